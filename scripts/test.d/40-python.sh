# Python: the generated TypedDicts type-check strictly for the Python 3.9
# floor, and the shared vectors agree with the generated tag tuples.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_venv
MYPYPATH=sdk-python/python mypy --strict --python-version 3.9 \
  --cache-dir "$CARGO_TARGET_DIR/mypy-cache" \
  sdk-python/python/zot_ext/_protocol.py sdk-python/tests/typecheck_protocol.py
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
python -m pytest -p no:cacheprovider sdk-python/tests 2>&1 | tee "$log"
require_tests_ran "$log" '[1-9][0-9]* passed'
