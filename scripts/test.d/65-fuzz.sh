# Fuzzing smoke run. In every run (./dev test): the codec and engine targets
# for 20 s each, the two that take what a host writes to an extension and
# build without the host (the sanitizer-free fuzz build of the host is most
# of the full suite's time). Named (./dev test fuzz): every cargo-fuzz
# target in fuzz/ for 30 s. FUZZ_SECONDS / FUZZ_TARGETS override both; long
# runs: ./dev fuzz TARGET SECONDS. Fails
# on a crash, a timeout or running out of memory; skips, saying why, where
# the pinned nightly or cargo-fuzz cannot be installed (no network). The
# crashers kept in fuzz/regressions are replayed by the rust suite without
# nightly (cargo test -p zot-fuzz-harness).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
status=0
if [ -n "${ZOT_TEST_NAMED:-}" ]; then
  seconds="${FUZZ_SECONDS:-30}"
else
  seconds="${FUZZ_SECONDS:-20}"
  export FUZZ_TARGETS="${FUZZ_TARGETS:-codec engine}"
fi
bash scripts/fuzz.sh smoke "$seconds" || status=$?
if [ "$status" -eq 3 ]; then
  exit 0 # skipped; fuzz.sh said why
fi
exit "$status"
