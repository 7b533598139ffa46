# Release packaging, the part that needs no release build, in every ./dev
# test: the licence files at the root, the npm pack guards and the release
# workflow (scripts/dist/static-checks.sh, seconds). Named (`./dev test
# package`) it also packages the crates in publish order and verifies them,
# as `./dev dist` does (scripts/dist/crates.sh: `cargo package` builds each
# from its packaged sources), with the licence files inside: about 4 minutes
# cold, kept out of the default run for CI's 45-minute budget (RELEASING.md,
# "In ./dev test"). The crates' step is what found a zot-host crate that did
# not build from its package (its scaffold templates left out). The full
# release suites stay opt-in: `./dev test release` (linux-x64-gnu built with
# zig as it ships, installed from npm, a venv and cargo install, and run) and
# `./dev test dist` (every platform).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
source scripts/dist/checks.sh
source scripts/dist/crates.sh
ensure_node_modules
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

source scripts/dist/static-checks.sh

if [ -z "${ZOT_TEST_NAMED:-}" ]; then
  note "skipped packaging the crates (about 4 min cold): ./dev test package"
  exit 0
fi
package_crates "$tmp/crates"
for c in "${CRATES[@]}"; do
  check_licences "$tmp/crates/$c-$(workspace_version).crate"
done
ok "the crates ${CRATES[*]} package in publish order, each verified (built from its packaged sources), with LICENSE-MIT and LICENSE-APACHE"
