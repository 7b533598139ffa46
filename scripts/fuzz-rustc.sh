#!/usr/bin/env bash
# RUSTC_WRAPPER of the fuzz builds (scripts/fuzz.sh): coverage instrumentation
# only for this repository's crates. cargo-fuzz puts the sancov flags in
# RUSTFLAGS, so every dependency (tokio, serde_json, jsonschema...) gets them
# too, and libFuzzer then spends most of each run collecting coverage of code
# we do not fuzz (fuzz/README.md, "Instrumentation"). A crate from outside
# the repository is compiled with the same flags minus those.
# Usage (by cargo): fuzz-rustc.sh RUSTC ARGS...
set -euo pipefail
rustc="$1"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
case "${CARGO_MANIFEST_DIR:-}" in
  "$root" | "$root"/*) exec "$rustc" "$@" ;;
esac
args=()
for a in "$@"; do
  case "$a" in
    -Cpasses=sancov-module | -Cllvm-args=-sanitizer-coverage-*) ;;
    *) args+=("$a") ;;
  esac
done
exec "$rustc" "${args[@]}"
