# Shared helpers for ./dev and the suites in scripts/test.d. Source it.
# Everything installs inside the repository: target/, node_modules/, .venv/.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
# No incremental caches unless asked for: they doubled target/debug (2 GB of
# a clean run) and a one-shot build (CI, a fresh checkout) never reuses them.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# A clean `./dev test` writes about 7.6 GB into target/ (measured on a clean
# clone, 2026-12-05: debug 4.3, fuzz 0.75, the scaffold's 0.75, release 0.4,
# sdist 0.4, cargo-add 0.35): say so up front when the disk is close to
# full, rather than let a linker die of it.
warn_if_low_disk() {
  local free_kb
  mkdir -p "$CARGO_TARGET_DIR"
  free_kb="$(df -Pk "$CARGO_TARGET_DIR" 2>/dev/null | awk 'NR == 2 { print $4 }')"
  if [ -n "$free_kb" ] && [ "$free_kb" -lt $((9 * 1024 * 1024)) ]; then
    fail "only $((free_kb / 1024)) MiB free for $CARGO_TARGET_DIR: a clean run of every suite needs about 8 GB"
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

# The release build tools (zig, cargo-zigbuild, maturin, auditwheel) pinned
# in scripts/requirements-dist.txt, in their own virtualenv target/tools/venv
# (zig alone is ~400 MB: not in .venv, which every ./dev test needs).
ensure_dist_tools() {
  local venv="$ROOT/target/tools/venv" req="$ROOT/scripts/requirements-dist.txt"
  if [ ! -x "$venv/bin/python" ]; then
    note "creating target/tools/venv"
    mkdir -p "$ROOT/target/tools"
    python3 -m venv "$venv"
  fi
  local stamp="$venv/.requirements.sha" want
  want="$(sha256sum "$req" | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    note "installing the release build tools into target/tools/venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
    echo "$want" > "$stamp"
  fi
  # `zig` itself, for the tools that look for it on PATH (the napi CLI).
  mkdir -p "$ROOT/target/tools/bin"
  printf '#!/bin/sh\nexec "%s" -m ziglang "$@"\n' "$venv/bin/python" > "$ROOT/target/tools/bin/zig"
  chmod +x "$ROOT/target/tools/bin/zig"
  export PATH="$ROOT/target/tools/bin:$venv/bin:$PATH"
  # cargo-zigbuild and maturin find zig through this interpreter (ziglang).
  export CARGO_ZIGBUILD_PYTHON_PATH="$venv/bin/python"
  export CARGO_ZIGBUILD_CACHE_DIR="$ROOT/target/tools/zigbuild-cache"
  export ZIG_GLOBAL_CACHE_DIR="$ROOT/target/tools/zig-cache"
}

# The standard library of another Rust target (rustup's own download).
ensure_rust_target() {
  if ! rustup target list --installed | grep -qx "$1"; then
    note "rustup target add $1"
    rustup target add "$1" >/dev/null
  fi
}

# The oldest macOS a build for the Rust target $1 runs on: rustc's and
# maturin's defaults (the wheels' tags macosx_10_12_x86_64, macosx_11_0_arm64;
# Node 20 itself needs 10.15 / 11). Set as MACOSX_DEPLOYMENT_TARGET for every
# macOS build: zig's own default is its newest macOS (13.0), with which the
# npm addon did not load on macOS 11 and 12.
macos_deployment_target() {
  case "$1" in
    x86_64-apple-darwin) echo 10.12 ;;
    aarch64-apple-darwin) echo 11.0 ;;
  esac
}

# The version every package of the project carries: the Cargo workspace's.
workspace_version() {
  sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml"
}

# Debian packages a check needs (the suites run as root on CI): installed
# with apt-get when one of the given commands is missing.
# usage: ensure_apt COMMAND PACKAGE [COMMAND PACKAGE...]
ensure_apt() {
  local missing=()
  while [ "$#" -gt 0 ]; do
    if ! command -v "$1" >/dev/null 2>&1 && ! [ -e "$1" ]; then missing+=("$2"); fi
    shift 2
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    note "apt-get install ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}
