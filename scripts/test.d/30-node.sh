# Node: the generated TypeScript types compile and narrow under the strictest
# settings, and the shared vectors agree with the generated tag lists. Then
# the npm package zot-ext: build the addon (release) and the TypeScript
# facade, `npm pack`, install the tarball into a fresh project with no Rust
# on PATH, and run the package suites and the conformance extension from
# there: what ships is what is tested.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_node_modules
tsc --strict --noEmit --exactOptionalPropertyTypes --noUncheckedIndexedAccess \
  --target es2022 --module nodenext --moduleResolution nodenext --types node \
  sdk-node/test/types-check.ts
ok "tsc --strict: sdk-node/test/types-check.ts compiles"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
log="$tmp/vectors.log"
node --test sdk-node/test/*.test.mjs 2>&1 | tee "$log"
# TAP reporter (piped output): "# pass N"; spec reporter: "ℹ pass N".
require_tests_ran "$log" '^(# |ℹ )pass [1-9][0-9]*$'

# --- the package -----------------------------------------------------------
# The addon, in the workspace target/ (CARGO_TARGET_DIR, absolute: napi-rs
# writes the typings through it). Incremental: a no-op when nothing changed.
bash scripts/node-sdk-build.sh
# The binding's typings are generated from the Rust sources: once committed,
# they must not drift.
if git ls-files --error-unmatch sdk-node/src/binding.d.ts >/dev/null 2>&1; then
  git diff --exit-code -- sdk-node/src/binding.d.ts
fi
(cd sdk-node && npm pack --silent --pack-destination "$tmp" >/dev/null)
tarball="$(ls "$tmp"/zot-ext-*.tgz)"
ok "packed $(basename "$tarball") ($(du -h "$tarball" | cut -f1))"

# A fresh project whose PATH has node and npm only: no cargo, no rustc.
mkdir -p "$tmp/bin" "$tmp/project"
ln -s "$(command -v node)" "$tmp/bin/node"
ln -s "$(command -v npm)" "$tmp/bin/npm"
bare="$tmp/bin"
if PATH="$bare" command -v cargo >/dev/null 2>&1; then
  fail "cargo is still on the bare PATH"
  exit 1
fi
project="$tmp/project"
cd "$project"
printf '{ "name": "zot-ext-smoke", "private": true }\n' > package.json
PATH="$bare" npm install --no-audit --no-fund --loglevel=error "$tarball"
test -f node_modules/zot-ext/dist/index.js
ls node_modules/zot-ext/zot-ext.*.node >/dev/null
ok "installed the tarball without Rust"

# `node ext.js` works: hello first, the registrations, ready, exit 0 on EOF.
cat > ext.js <<'EOF'
const { Extension, Response } = require("zot-ext");
new Extension("smoke", "1.0.0").command("hi", "Say hi", (args) => Response.display(`hi ${args}`)).run();
EOF
# (stdin stays open a moment: like a host, wait for `ready` before EOF)
out="$({ echo '{"type":"hello_ack","protocol_version":1}'; sleep 0.3
  echo '{"type":"command_invoked","id":"1","name":"hi","args":"there"}'; sleep 0.3; } |
  { PATH="$bare" node ext.js; echo "exit=$?"; } 2>&1)"
expected='{"type":"hello","name":"smoke","version":"1.0.0","capabilities":["commands","tools","events","panels","tool_cancel","call_tool"]}
{"type":"register_command","name":"hi","description":"Say hi"}
{"type":"ready"}
{"type":"command_response","id":"1","action":"display","display":"hi there"}'
if [ "${out#"$expected"}" = "$out" ] || [[ "$out" != *'exit=0' ]]; then
  fail "node ext.js: unexpected output:"
  printf '%s\n' "$out" >&2
  exit 1
fi
ok "node ext.js speaks the protocol from the installed package"

# The suites, the conformance extension and the examples, from the installed
# package. The TypeScript example runs through the repository's tsx.
cp -R "$ROOT/tests/conformance/node" conformance
cp -R "$ROOT/examples/node" examples
cp -R "$ROOT/sdk-node/test/package" test
ln -s "$ROOT/node_modules/tsx" node_modules/tsx
ln -s "$ROOT/node_modules/zod" node_modules/zod
ln -s "$ROOT/node_modules/typescript" node_modules/typescript
node "$ROOT/node_modules/typescript/bin/tsc" --strict --noEmit --exactOptionalPropertyTypes \
  --noUncheckedIndexedAccess --noUncheckedSideEffectImports --target es2022 --module nodenext --moduleResolution nodenext \
  --typeRoots "$ROOT/node_modules/@types" --types node \
  test/consumer.mts test/consumer.cts examples/scratchpad/index.ts
ok "tsc --strict: ESM and CommonJS consumers and the TypeScript example type-check against the installed package"
# The Rust conformance extension, for TestHost.spawn (spawn.test.mjs).
(cd "$ROOT" && cargo build -p conformance-rust --locked -q)
log="$tmp/package.log"
PATH="$bare" ZOT_EXT_REPO="$ROOT" ZOT_CONFORMANCE_DIR="$project/conformance" ZOT_EXAMPLES_DIR="$project/examples" \
  node --test test/*.test.mjs 2>&1 | tee "$log"
require_tests_ran "$log" '^(# |ℹ )pass [1-9][0-9]*$'
if grep -Eq '^(# |ℹ )fail [1-9]' "$log"; then
  fail "package suites failed"
  exit 1
fi
