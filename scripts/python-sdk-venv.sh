#!/usr/bin/env bash
# Builds the zot-ext wheel (sdk-python) with maturin and installs it into a
# fresh virtualenv, target/python-sdk-venv, with no Rust on PATH: the package
# exactly as it ships. The Python tests and tests/conformance/python/run use
# that venv. Builds reuse the workspace target/ directory.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_venv

wheels="$CARGO_TARGET_DIR/wheels"
mkdir -p "$wheels"
rm -f "$wheels"/zot_ext-*.whl
# A development copy of the native module in the source tree would be
# packaged next to the freshly built one.
rm -f sdk-python/python/zot_ext/_native*.so
(cd sdk-python && maturin build --release --locked --quiet -o "$wheels")
wheel="$(ls "$wheels"/zot_ext-*-abi3-*.whl)"
ok "built $(basename "$wheel")"

venv="$ROOT/target/python-sdk-venv"
rm -rf "$venv"
python3 -m venv "$venv"
# The wheel installs with no Rust (nor cargo) on PATH.
env PATH=/usr/bin:/bin "$venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
# The test tools, pinned as in .venv (maturin is not needed there).
mapfile -t tools < <(grep -E '^(pytest|mypy|pydantic)==' scripts/requirements-dev.txt)
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${tools[@]}"
ok "installed into $venv"
