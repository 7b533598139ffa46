# opt-in for now: ./dev test package (CI's total beside the fuzz suite's quick run
# is not measured yet; RELEASING.md, "In ./dev test").
# Release packaging, the part that needs no release build: in every ./dev
# test, while the full release suite (60-release: linux-x64-gnu built with
# zig as it ships, installed from npm, a venv and cargo install, and run) is
# opt-in, `./dev test release`, for its cost (RELEASING.md, "In ./dev test").
# Checks: the licence files at the root, the npm pack guards, the release
# workflow (scripts/dist/static-checks.sh), and the crates packaged in
# publish order and verified, as `./dev dist` does (scripts/dist/crates.sh:
# `cargo package` builds each from its packaged sources), with the licence
# files inside. The crates' step is what found a zot-host crate that did not
# build from its package (its scaffold templates left out).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
source scripts/dist/checks.sh
source scripts/dist/crates.sh
ensure_node_modules
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

source scripts/dist/static-checks.sh

package_crates "$tmp/crates"
for c in "${CRATES[@]}"; do
  check_licences "$tmp/crates/$c-$(workspace_version).crate"
done
ok "the crates ${CRATES[*]} package in publish order, each verified (built from its packaged sources), with LICENSE-MIT and LICENSE-APACHE"
