# Codegen drift gate: the committed JSON Schema, TypeScript and Python files
# and the generated docs tables (docs/reference/)
# must be exactly what zot-codegen renders from protocol/ (the golden test in
# `cargo test -p zot-codegen` checks the same from the Rust side).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
cargo run -q --locked -p zot-codegen -- --check
