# Node: the generated TypeScript types compile and narrow under the strictest
# settings, and the shared vectors agree with the generated tag lists.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_node_modules
tsc --strict --noEmit --exactOptionalPropertyTypes --noUncheckedIndexedAccess \
  --target es2022 --module nodenext --moduleResolution nodenext --types node \
  sdk-node/test/types-check.ts
ok "tsc --strict: sdk-node/test/types-check.ts compiles"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
node --test sdk-node/test/*.test.mjs 2>&1 | tee "$log"
# TAP reporter (piped output): "# pass N"; spec reporter: "ℹ pass N".
require_tests_ran "$log" '^(# |ℹ )pass [1-9][0-9]*$'
