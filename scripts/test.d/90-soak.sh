# opt-in: not part of `./dev test`; run it with `./dev test soak` (about 35
# minutes on 2 cores with its release builds, bench/README.md "Soak").
# The host's soak and fault benchmark (issue 13): 200,000 tool calls,
# 1,000,000 lifecycle events and 100,000 notes through zot-host with the
# conformance extension of every SDK, plus a 100,000-note flood; fails when
# a reply is lost or the RSS of host or extension grows past its target.
# `cargo test -p zot-bench` runs a small version of it (quick_soak_loses_nothing).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
# The Node and Python SDKs as they ship (no-ops when already built).
bash scripts/node-sdk-build.sh
if [ ! -x target/python-sdk-venv/bin/python ] || [ -n "$(find sdk-python engine protocol -newer target/python-sdk-venv/bin/python -name '*.rs' -o -newer target/python-sdk-venv/bin/python -name '*.py' | head -1)" ]; then
  bash scripts/python-sdk-venv.sh
fi
# Builds the release host, conformance-rust and bench-floor itself.
cargo run --release --locked -q -p zot-bench -- soak --out "$CARGO_TARGET_DIR/zot-bench/soak.json"
