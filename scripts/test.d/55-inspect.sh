# zot-host inspect: the page's TypeScript type-checks, the committed bundle
# (host/inspect-ui/dist, embedded in the binary) is what its sources build
# to, and the inspector works in a real browser: Debian's Chromium driven by
# playwright-core (no browser download) against the conformance extension.
# Screenshots of the main views go to target/inspect-screenshots/.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_node_modules
tsc -p host/inspect-ui/tsconfig.json
ok "tsc --strict: host/inspect-ui compiles"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
node host/inspect-ui/build.mjs "$tmp/dist"
if ! diff -r host/inspect-ui/dist "$tmp/dist" >/dev/null; then
  fail "host/inspect-ui/dist differs from what its sources build to: run 'node host/inspect-ui/build.mjs' and commit dist/"
  diff -r host/inspect-ui/dist "$tmp/dist" | head -20 >&2 || true
  exit 1
fi
ok "host/inspect-ui/dist is up to date"

chromium="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  if [ "$(id -u)" != 0 ]; then
    fail "no Chromium at $chromium: install Debian's chromium package (apt-get install chromium) or set CHROMIUM"
    exit 1
  fi
  note "installing Debian's chromium"
  if ! apt-get install -y -q chromium >"$tmp/apt.log" 2>&1; then
    # The package lists may be missing or stale: refresh them once.
    apt-get update -q >>"$tmp/apt.log" 2>&1
    apt-get install -y -q chromium >>"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; exit 1; }
  fi
fi
export CHROMIUM="$chromium"

build_rust_bins
export ZOT_HOST="$CARGO_TARGET_DIR/debug/zot-host"
export ZOT_INSPECT_SHOTS="$CARGO_TARGET_DIR/inspect-screenshots"
rm -rf "$ZOT_INSPECT_SHOTS"
log="$tmp/inspect.log"
node --test host/inspect-ui/test/ 2>&1 | tee "$log"
require_tests_ran "$log" '^(# |ℹ )pass [1-9][0-9]*$'
if grep -Eq '^(# |ℹ )fail [1-9]' "$log"; then
  fail "inspect suite failed"
  exit 1
fi
ok "screenshots in $ZOT_INSPECT_SHOTS: $(cd "$ZOT_INSPECT_SHOTS" && ls | tr '\n' ' ')"
