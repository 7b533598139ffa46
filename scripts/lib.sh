# Shared helpers for ./dev and the suites in scripts/test.d. Source it.
# Everything installs inside the repository: target/, node_modules/, .venv/.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# No incremental caches unless asked for: they doubled target/debug (2 GB of
# a clean run) and a one-shot build (CI, a fresh checkout) never reuses them.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# A clean `./dev test` writes about 2.2 GB into target/ (README): say so up
# front when the disk is close to full, rather than let a linker die of it.
warn_if_low_disk() {
  local free_kb
  mkdir -p "$CARGO_TARGET_DIR"
  free_kb="$(df -Pk "$CARGO_TARGET_DIR" 2>/dev/null | awk 'NR == 2 { print $4 }')"
  if [ -n "$free_kb" ] && [ "$free_kb" -lt $((3 * 1024 * 1024)) ]; then
    fail "only $((free_kb / 1024)) MiB free for $CARGO_TARGET_DIR: a clean run needs about 2.2 GB"
  fi
}

# Every Rust binary the suites run (host, examples, conformance extension and
# runner), built with the same feature set as `cargo test --workspace`: a
# narrower `cargo build -p ...` resolves features without dev-dependencies
# and so rebuilds tokio and everything above it a second (and third) time.
build_rust_bins() {
  cargo build --workspace --bins --tests --locked -q
}

if [ -t 1 ]; then
  _b=$'\e[1m'; _g=$'\e[32m'; _r=$'\e[31m'; _d=$'\e[2m'; _z=$'\e[0m'
else
  _b=''; _g=''; _r=''; _d=''; _z=''
fi
section() { printf '\n%s== %s ==%s\n' "$_b" "$*" "$_z"; }
ok()      { printf '%s✔ %s%s\n' "$_g" "$*" "$_z"; }
fail()    { printf '%s✘ %s%s\n' "$_r" "$*" "$_z" >&2; }
note()    { printf '%s%s%s\n' "$_d" "$*" "$_z"; }

# The repo's Python virtualenv (.venv) with the dev tools pinned in
# scripts/requirements-dev.txt; re-installed only when that file changes.
ensure_venv() {
  local venv="$ROOT/.venv" req="$ROOT/scripts/requirements-dev.txt"
  if [ ! -x "$venv/bin/python" ]; then
    note "creating .venv"
    python3 -m venv "$venv"
  fi
  local stamp="$venv/.requirements.sha"
  local want
  want="$(sha256sum "$req" | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    note "installing Python dev tools into .venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
    echo "$want" > "$stamp"
  fi
  export PATH="$venv/bin:$PATH"
}

# The repo's node_modules with the dev tools pinned in package.json /
# package-lock.json; re-installed only when the lock file changes.
ensure_node_modules() {
  local stamp="$ROOT/node_modules/.lock.sha"
  local want
  want="$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    note "installing Node dev tools into node_modules"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
  export PATH="$ROOT/node_modules/.bin:$PATH"
}

# Fails unless the log of a test run shows at least one passing test.
# usage: require_tests_ran LOGFILE REGEX
require_tests_ran() {
  if ! grep -Eq "$2" "$1"; then
    fail "no test ran (expected /$2/ in the output)"
    return 1
  fi
}
