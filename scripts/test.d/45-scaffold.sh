# zot-host new: for each language, what a newcomer does from a clone, with
# no package on a registry: `./dev install` (zot-host on PATH, this
# checkout's SDKs for new extensions), then `zot-host new`, the scaffold's
# own tests, `zot-host run` with its session script, `zot-host ext install .`,
# a new session in which the installed copy starts and answers, and
# `zot-host ext doctor` clean. The repository's own checks come on top: the
# scaffolds type-check (tsc --checkJs, mypy --strict).
#
# What differs from a newcomer's machine, and why:
# - ZOT_HOME is a folder of this run, one per language (isolation: nothing
#   is installed into the user's zot, and each session sees one extension);
# - `./dev install --debug --prefix <this run>`: the debug build `./dev test`
#   makes anyway, linked into a bin folder of this run (not ~/.local/bin);
# - uv is the one in the repository's .venv (scripts/requirements-dev.txt),
#   on PATH as the user's own would be;
# - the Rust scaffold's target/ is moved in from $CARGO_TARGET_DIR between
#   runs, so that its dependencies build once (a real folder, as cargo makes).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
user_path="$PATH"
ensure_venv
ensure_node_modules
tsc="$ROOT/node_modules/.bin/tsc"
venv="$ROOT/target/python-sdk-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import zot_ext' 2>/dev/null; then
  bash scripts/python-sdk-venv.sh
fi

tmp="$(mktemp -d)"
rust_target="$CARGO_TARGET_DIR/scaffold-rust"
cleanup() {
  # The Rust scaffold's build tree goes back for the next run.
  if [ -d "$tmp/rust/target" ]; then
    rm -rf "$rust_target"
    mv "$tmp/rust/target" "$rust_target"
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

bash scripts/install.sh --debug --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || {
  cat "$tmp/install.log" >&2
  fail "./dev install --debug --prefix $tmp/prefix"
  exit 1
}
ok "./dev install --debug --prefix <run folder>"
mkdir -p "$tmp/tools"
ln -s "$ROOT/.venv/bin/uv" "$tmp/tools/uv"
# The newcomer's PATH: theirs, with zot-host and uv on it.
newcomer_path="$tmp/prefix/bin:$tmp/tools:$user_path"

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
# As the newcomer types it, in DIR: their PATH, ZOT_HOME of the language.
as_user() { # LANG DIR COMMAND...
  local lang="$1" dir="$2"
  shift 2
  env -C "$dir" -u CARGO_TARGET_DIR PATH="$newcomer_path" ZOT_HOME="$tmp/home-$lang" "$@"
}
# The steps after the scaffold's own tests, the same in every language.
run_install_doctor() { # LANG
  local lang="$1" dir="$tmp/$1"
  check "$lang: zot-host run --script session.json --ext ." \
    as_user "$lang" "$dir" zot-host run --script session.json --ext .
  check "$lang: zot-host ext install ." as_user "$lang" "$dir" zot-host ext install .
  # A new session elsewhere: only the installed copy can answer.
  mkdir -p "$tmp/elsewhere"
  check "$lang: the installed copy answers in a new session" \
    as_user "$lang" "$tmp/elsewhere" zot-host run --script "$dir/session.json"
  check "$lang: zot-host ext doctor: 1 healthy, nothing else" doctor_clean "$lang"
}
doctor_clean() { # LANG: exits 0, and not with warnings either
  as_user "$1" "$tmp/elsewhere" zot-host ext doctor >"$tmp/doctor.log" 2>&1 || {
    cat "$tmp/doctor.log"
    return 1
  }
  cat "$tmp/doctor.log"
  grep -q '1 healthy, 0 warnings, 0 problems' "$tmp/doctor.log"
}
new() { # LANG
  as_user "$1" "$tmp" zot-host new "scaffold-$1" --lang "$1" --dir "$1" >/dev/null
}

# Rust.
new rust
grep -q '^\[patch.crates-io\]' "$tmp/rust/Cargo.toml" || {
  fail "rust: Cargo.toml does not take zot-ext from this checkout"
  exit 1
}
if [ -d "$rust_target" ]; then mv "$rust_target" "$tmp/rust/target"; fi
check "rust: cargo test" as_user rust "$tmp/rust" cargo test -q
check "rust: cargo build" as_user rust "$tmp/rust" cargo build -q
run_install_doctor rust

# JavaScript.
new javascript
check "javascript: npm install" as_user javascript "$tmp/javascript" \
  npm install --no-audit --no-fund --loglevel=error
check "javascript: npm test" as_user javascript "$tmp/javascript" npm test --silent
check "javascript: tsc --checkJs" "$tsc" --noEmit --allowJs --checkJs --strict \
  --target es2022 --module nodenext --moduleResolution nodenext --types node \
  --typeRoots "$ROOT/node_modules/@types" \
  "$tmp/javascript/extension.mjs" "$tmp/javascript/index.mjs"
run_install_doctor javascript

# TypeScript.
new typescript
check "typescript: npm install" as_user typescript "$tmp/typescript" \
  npm install --no-audit --no-fund --loglevel=error
check "typescript: npm test (tsc, then the test)" as_user typescript "$tmp/typescript" npm test --silent
run_install_doctor typescript

# Python.
new python
check "python: uv run pytest" as_user python "$tmp/python" uv run pytest -q -p no:cacheprovider
check "python: mypy --strict" env -C "$tmp/python" \
  "$venv/bin/python" -m mypy --strict --python-version 3.9 \
  --cache-dir "$CARGO_TARGET_DIR/mypy-cache" extension.py tests/test_extension.py
run_install_doctor python

echo "scaffold: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
