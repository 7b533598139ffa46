#!/usr/bin/env bash
# ./dev dist [PLATFORM...]: builds every release artifact into target/dist/
# (RELEASING.md): for each platform of scripts/dist/platforms.tsv (or the
# ones named) the npm packages zot-{ext,host,mcp}-<platform> and the wheels
# zot-ext (abi3), zot-host and zot-mcp; then the main npm packages, the
# sdists, the crates, and
# target/dist/ARTIFACTS.md (every file with its size and sha256).
#
# Everything is cross-compiled on this machine with zig (target/tools): gnu
# builds link against glibc 2.17 (manylinux2014), musl builds are musllinux_1_2,
# macOS builds need no SDK. Release builds use their own target directories,
# one per tool, in target/dist-build: zig-linked artifacts would otherwise
# replace the dev builds' in target/ (and the other way round) on every run,
# and the napi CLI and maturin pass different flags (cargo keeps one copy of
# a crate per target and profile, so each would rebuild the other's).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/dist/musl.sh"
cd "$ROOT"

table="$ROOT/scripts/dist/platforms.tsv"
mapfile -t all < <(awk -F'\t' '!/^#/ && NF && $7 == "here" { print $1 }' "$table")
if [ "$#" -gt 0 ]; then
  for p in "$@"; do
    if [[ " ${all[*]} " != *" $p "* ]]; then
      fail "unknown platform $p (the platforms: ${all[*]})"
      exit 2
    fi
  done
  platforms=("$@")
else
  platforms=("${all[@]}")
fi

ensure_node_modules
ensure_dist_tools
version="$(workspace_version)"
for f in sdk-node/package.json npm/zot-host/package.json mcp/npm/package.json; do
  v="$(node -p "require('./$f').version")"
  if [ "$v" != "$version" ]; then
    fail "$f has version $v, the Cargo workspace $version: make them equal"
    exit 1
  fi
done

out="$ROOT/target/dist"
stage="$ROOT/target/dist-stage"
rm -rf "$out" "$stage"
mkdir -p "$out/npm" "$out/pypi" "$out/crates" "$stage/npm"
builds="$ROOT/target/dist-build"
start=$SECONDS

section "TypeScript facade"
(cd sdk-node && node scripts/build-ts.mjs)

for suffix in "${platforms[@]}"; do
  IFS=$'\t' read -r _ rust _ _ libc wheel _ < <(awk -F'\t' -v s="$suffix" '$1 == s' "$table")
  section "$suffix ($rust)"
  ensure_rust_target "$rust"
  zig_target="$rust"
  if [ "$libc" = glibc ]; then zig_target="$rust.2.17"; fi
  compat=()
  if [ "$wheel" != - ]; then compat=(--compatibility "$wheel"); fi
  # The same macOS floor for the addon as for the wheels (lib.sh).
  if [[ "$rust" == *-apple-darwin ]]; then
    export MACOSX_DEPLOYMENT_TARGET="$(macos_deployment_target "$rust")"
  else
    unset MACOSX_DEPLOYMENT_TARGET
  fi
  build="$stage/build/$suffix"
  mkdir -p "$build/wheels"

  # The Node addon: napi's cross-compile mode (cargo zigbuild).
  (cd sdk-node && CARGO_TARGET_DIR="$builds/npm" nice -n 10 napi build -x --target "$zig_target" --release --strip --platform --no-js \
    --dts "$build/binding.d.ts" --output-dir "$build")
  if [ "$libc" = musl ]; then musl_name_libc "$build/zot-ext.$suffix.node" "${rust%%-*}"; fi
  node scripts/dist/npm-packages.mjs platform zot-ext "$suffix" "$build/zot-ext.$suffix.node" "$stage/npm"
  ok "zot-ext-$suffix"

  # The wheels: the SDK (abi3) and the binaries (bindings = "bin").
  for manifest in sdk-python/Cargo.toml host/Cargo.toml mcp/Cargo.toml; do
    CARGO_TARGET_DIR="$builds/pypi" nice -n 10 maturin build --quiet --release --locked --strip --zig --target "$rust" "${compat[@]}" \
      -m "$manifest" -o "$build/wheels"
  done
  if [ "$libc" = musl ]; then musl_name_libc_in_wheel "$(ls "$build"/wheels/zot_ext-*.whl)" "${rust%%-*}"; fi
  host_wheel="$(ls "$build"/wheels/zot_host-*.whl)"
  mv "$build"/wheels/*.whl "$out/pypi/"
  ok "$(cd "$out/pypi" && ls -- *"${host_wheel##*-}" | tr '\n' ' ')"

  # Each npm package has its wheel's binary.
  for bin in zot-host zot-mcp; do
    w="${bin//-/_}"
    unzip -p "$out/pypi/$w-${host_wheel##*/zot_host-}" "$w-$version.data/scripts/$bin" > "$build/$bin"
    node scripts/dist/npm-packages.mjs platform "$bin" "$suffix" "$build/$bin" "$stage/npm"
    ok "$bin-$suffix"
  done
done

section "main packages, sdists, crates"
# Platforms built elsewhere (the release workflow's Windows job) whose
# packages the main packages must list too.
read -ra extra <<< "${ZOT_DIST_EXTRA_PLATFORMS:-}"
node scripts/dist/npm-packages.mjs main zot-ext "$stage/npm" "${platforms[@]}" "${extra[@]}"
node scripts/dist/npm-packages.mjs main zot-host "$stage/npm" "${platforms[@]}" "${extra[@]}"
node scripts/dist/npm-packages.mjs main zot-mcp "$stage/npm" "${platforms[@]}" "${extra[@]}"
for dir in "$stage"/npm/*/; do
  (cd "$dir" && npm pack --silent --pack-destination "$out/npm" >/dev/null)
done
ok "npm: $(cd "$out/npm" && ls | wc -l) tarballs"
for manifest in sdk-python/Cargo.toml host/Cargo.toml mcp/Cargo.toml; do
  CARGO_TARGET_DIR="$builds/pypi" maturin sdist -m "$manifest" -o "$out/pypi" >/dev/null
done
ok "sdists"
# In publish order, each verified against the others (scripts/dist/crates.sh).
source "$ROOT/scripts/dist/crates.sh"
package_crates "$out/crates"
ok "crates"

node scripts/dist/artifacts.mjs "$out" "${platforms[@]}" > "$out/ARTIFACTS.md"
ok "target/dist: $(du -sh "$out" | cut -f1) in $(find "$out" -type f | wc -l) files, built in $((SECONDS - start)) s (see target/dist/ARTIFACTS.md)"
