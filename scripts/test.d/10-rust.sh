# Rust: format, lints, rustdoc, and every workspace test (unit, integration, doc).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# rustdoc too: a link to an item that moved or went away fails here.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked -q
log="$(mktemp)"
cargo test --workspace --locked 2>&1 | tee "$log"
require_tests_ran "$log" 'test result: ok\. [1-9][0-9]* passed'
# `cargo add` and the Rust quick start exactly as the READMEs say, in a fresh
# crate outside the repository, against the packaged zot-protocol and zot-ext.
bash scripts/cargo-add-check.sh
