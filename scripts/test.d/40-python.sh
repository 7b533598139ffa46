# Python: the generated TypedDicts type-check strictly for the Python 3.9
# floor, and the shared vectors agree with the generated tag tuples. Then the
# zot-ext package as it ships: the wheel built by maturin, installed into a
# fresh venv (scripts/python-sdk-venv.sh), mypy --strict on the package, the
# examples and the conformance extension, and every pytest suite run against
# the installed package: the API, the examples, the conformance contract, the
# stubs against the compiled module (mypy.stubtest), real child processes, and
# a byte-for-byte comparison of the Python conformance extension with the
# Rust one.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_venv
mypy_cache="$CARGO_TARGET_DIR/mypy-cache"
MYPYPATH=sdk-python/python mypy --strict --python-version 3.9 --cache-dir "$mypy_cache" \
  sdk-python/python/zot_ext/_protocol.py sdk-python/tests/typecheck_protocol.py

bash scripts/python-sdk-venv.sh
venv="$ROOT/target/python-sdk-venv"

# The package (its stub of the native module included), the examples and the
# conformance extension, for the 3.9 floor.
MYPYPATH=sdk-python/python mypy --strict --python-version 3.9 --cache-dir "$mypy_cache" \
  -p zot_ext
MYPYPATH=sdk-python/python mypy --strict --python-version 3.9 --cache-dir "$mypy_cache" \
  examples/python/*/*.py tests/conformance/python/conformance.py
ok "mypy --strict: zot_ext, examples/python, tests/conformance/python"

# The Rust conformance extension, to compare the Python one with it.
build_rust_bins
export ZOT_EXT_RUST_CONFORMANCE="$CARGO_TARGET_DIR/debug/conformance-rust"
export ZOT_EXT_EXPECT_INSTALLED=1
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
"$venv/bin/python" -m pytest -p no:cacheprovider \
  --rootdir sdk-python sdk-python/tests 2>&1 | tee "$log"
require_tests_ran "$log" '[1-9][0-9]* passed'

# One abi3 wheel for every CPython >= 3.9: smoke-test it on the floor version
# when this machine has one.
py39="$(ls -d "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.9*/bin/python3.9 2>/dev/null | tail -1 || true)"
if [ -n "$py39" ]; then
  v39="$(mktemp -d)"
  "$py39" -m venv "$v39/venv"
  env PATH=/usr/bin:/bin "$v39/venv/bin/python" -m pip install -q --disable-pip-version-check \
    "$(ls "$CARGO_TARGET_DIR"/wheels/zot_ext-*-abi3-*.whl)"
  (cd "$v39" && "$v39/venv/bin/python" "$ROOT/sdk-python/tests/smoke.py")
  rm -rf "$v39"
  ok "the abi3 wheel works on $("$py39" --version)"
else
  note "no Python 3.9 here; skipped the abi3 smoke test on the floor version"
fi

# The source distribution (what pip builds where no wheel fits, with cargo):
# it must hold everything the build needs. Built into a wheel here in the dev
# profile (the release build is the wheel's, above) with the .venv's maturin
# (no build isolation: no download), installed into a fresh venv, smoke-tested.
sdist_dir="$CARGO_TARGET_DIR/sdist"
rm -rf "$sdist_dir"
mkdir -p "$sdist_dir"
(cd sdk-python && maturin sdist -o "$sdist_dir")
sdist="$(ls "$sdist_dir"/zot_ext-*.tar.gz)"
if tar tzf "$sdist" | grep -E '\.(so|whl|pyc)$|/target/|node_modules/'; then
  fail "$(basename "$sdist") carries build products (above)"
  exit 1
fi
# Its own target directory, emptied first: the unpacked sdist is a workspace
# of its own whose crates hash like the repository's, and its files carry the
# archive's old mtimes, so cargo would take older artifacts for fresh.
rm -rf "$ROOT/target/sdist-build"
CARGO_TARGET_DIR="$ROOT/target/sdist-build" MATURIN_PEP517_ARGS="--profile dev" \
  "$ROOT/.venv/bin/python" -m pip wheel -q \
  --disable-pip-version-check --no-build-isolation --no-deps -w "$sdist_dir" "$sdist"
python3 -m venv "$sdist_dir/venv"
env PATH=/usr/bin:/bin "$sdist_dir/venv/bin/python" -m pip install -q --disable-pip-version-check \
  "$(ls "$sdist_dir"/zot_ext-*.whl)"
(cd "$sdist_dir" && "$sdist_dir/venv/bin/python" "$ROOT/sdk-python/tests/smoke.py")
rm -rf "$sdist_dir/venv"
ok "$(basename "$sdist") builds and works"
