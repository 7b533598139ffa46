# zot-host new: for each language, the scaffold as a user gets it passes its
# own test (on the SDK's in-process harness), type-checks (mypy --strict,
# tsc --checkJs) and passes `zot-host ext doctor`.
#
# The generated files name the published SDK (zot-ext of this version); they
# are not edited here. This checkout's SDK is linked in from outside them,
# the way each toolchain lets a developer try a local package: Cargo's
# `--config patch.crates-io.zot-ext.path=...`, a node_modules/zot-ext link
# (what `npm link` makes), and the virtualenv that has this checkout's wheel
# (target/python-sdk-venv). So what is tested is byte for byte what
# `zot-host new` gives a user, and no test depends on a registry.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_node_modules
build_rust_bins
host="$CARGO_TARGET_DIR/debug/zot-host"
bash scripts/node-sdk-build.sh
venv="$ROOT/target/python-sdk-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import zot_ext' 2>/dev/null; then
  bash scripts/python-sdk-venv.sh
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
home="$tmp/home"
passed=0
failed=0
check() { # NAME COMMAND...: runs it, counts it
  local what="$1"
  shift
  if "$@" >"$tmp/out.log" 2>&1; then
    ok "$what"
    passed=$((passed + 1))
  else
    cat "$tmp/out.log" >&2
    fail "$what"
    failed=$((failed + 1))
  fi
}
doctor() { # DIR
  PATH="$venv/bin:$PATH" "$host" ext doctor --zot-home "$home" --no-ext --ext "$1"
}

# Rust. The build tree is kept between runs ($CARGO_TARGET_DIR/scaffold-rust,
# linked in as the scaffold's target/, where its manifest's exec points), so
# dependencies build once.
"$host" new scaffold-rust --lang rust --dir "$tmp/rust" >/dev/null
mkdir -p "$CARGO_TARGET_DIR/scaffold-rust"
ln -s "$CARGO_TARGET_DIR/scaffold-rust" "$tmp/rust/target"
cargo_local=(--offline --config "patch.crates-io.zot-ext.path=\"$ROOT/sdk-rust\"")
check "rust scaffold: cargo test" env -u CARGO_TARGET_DIR -C "$tmp/rust" \
  cargo test -q "${cargo_local[@]}"
check "rust scaffold: cargo build" env -u CARGO_TARGET_DIR -C "$tmp/rust" \
  cargo build -q "${cargo_local[@]}"
check "rust scaffold: zot-host ext doctor" doctor "$tmp/rust"

# Node.
"$host" new scaffold-node --lang node --dir "$tmp/node" >/dev/null
mkdir -p "$tmp/node/node_modules"
ln -s "$ROOT/sdk-node" "$tmp/node/node_modules/zot-ext"
check "node scaffold: npm test" env -C "$tmp/node" npm test --silent
check "node scaffold: tsc --checkJs" tsc --noEmit --allowJs --checkJs --strict \
  --target es2022 --module nodenext --moduleResolution nodenext --types node \
  "$tmp/node/extension.mjs" "$tmp/node/index.mjs"
check "node scaffold: zot-host ext doctor" doctor "$tmp/node"

# Python.
"$host" new scaffold-python --lang python --dir "$tmp/python" >/dev/null
check "python scaffold: pytest" env -C "$tmp/python" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider
check "python scaffold: mypy --strict" env -C "$tmp/python" \
  "$venv/bin/python" -m mypy --strict --python-version 3.9 \
  --cache-dir "$CARGO_TARGET_DIR/mypy-cache" extension.py tests/test_extension.py
check "python scaffold: zot-host ext doctor" doctor "$tmp/python"

echo "scaffold: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
