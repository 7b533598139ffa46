# The main job: one session through the reference host with example
# extensions written in Rust, Node (JavaScript and TypeScript) and Python
# loaded at once. Builds what it needs first (incrementally).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

section "building (first run: a few minutes; later: seconds)"
cargo build -q --locked -p zot-host -p zot-example-weather -p zot-example-guard
bash scripts/node-sdk-build.sh >/dev/null
if [ ! -x target/python-sdk-venv/bin/python ]; then
  bash scripts/python-sdk-venv.sh >/dev/null
fi
ok "zot-host, the Rust examples, the Node SDK and the Python SDK are built"

# The Python examples start `python3`: the virtualenv with the built wheel.
export PATH="$ROOT/target/python-sdk-venv/bin:$PATH"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
rm -f examples/node/scratchpad/scratchpad.txt

cat <<TXT

${_b}zot-ext demo${_z}: the reference host (zot-host) plays zot, with a scripted
model, against six extensions in three languages:

  Rust    weather     a typed tool, forecast
  Rust    guard       refuses dangerous tool calls before they run
  Node    ask-user    an interactive tool with a panel (cancelled below)
  Node    scratchpad  TypeScript slash commands, run from source
  Python  hello-py    slash commands
  Python  briefing    a tool that calls the Rust forecast tool via call_tool

Every line below is what a zot user would see; the wire underneath is the
real protocol (add --wire FILE to zot-host to record it).
TXT
section "session"
"$CARGO_TARGET_DIR/debug/zot-host" run --script examples/demo/session.json \
  --no-ext --zot-home "$home" \
  -e examples/rust/weather -e examples/rust/guard \
  -e examples/node/ask-user -e examples/node/scratchpad \
  -e examples/python/hello-py -e examples/python/briefing
rm -f examples/node/scratchpad/scratchpad.txt
echo
ok "demo finished"
note "next: ./dev test runs every suite; zot-host --help for the CLI; README.md for the SDKs"
