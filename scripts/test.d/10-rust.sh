# Rust: format, lints, and every workspace test (unit, integration, doc).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
log="$(mktemp)"
cargo test --workspace --locked 2>&1 | tee "$log"
require_tests_ran "$log" 'test result: ok\. [1-9][0-9]* passed'
