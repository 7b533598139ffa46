#!/usr/bin/env bash
# Publishes what ./dev dist put in target/dist, in dependency order:
#   1. crates: zot-protocol, zot-ext-engine (on zot-protocol), then zot-ext
#      (on both), zot-host (on zot-protocol) and zot-mcp (on all of them);
#   2. npm: every platform package, then the main packages zot-ext, zot-host
#      and zot-mcp (whose optionalDependencies name them);
#   3. PyPI: the wheels and sdists (twine).
# A dry run unless --execute is given: cargo and npm check everything they
# would upload (`cargo publish --dry-run`, `npm publish --dry-run`) and the
# PyPI files are checked with `twine check`. Credentials come from the usual
# places (CARGO_REGISTRY_TOKEN, ~/.npmrc or NODE_AUTH_TOKEN, TWINE_USERNAME /
# TWINE_PASSWORD or ~/.pypirc); this script never asks for them.
#
# usage: scripts/publish.sh [--execute]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

execute=0
case "${1:-}" in
  "") ;;
  --execute) execute=1 ;;
  *) echo "usage: scripts/publish.sh [--execute]" >&2; exit 2 ;;
esac
dist="$ROOT/target/dist"
version="$(workspace_version)"
if [ ! -f "$dist/ARTIFACTS.md" ]; then
  fail "no release in target/dist: run ./dev dist first"
  exit 1
fi
dry=(--dry-run)
if [ "$execute" = 1 ]; then dry=(); fi

section "crates.io"
# One command publishes them in dependency order, waiting for each to be in
# the index before the next (cargo >= 1.90).
cargo publish --locked "${dry[@]}" -p zot-protocol -p zot-ext-engine -p zot-ext -p zot-host -p zot-mcp

section "npm"
mapfile -t tarballs < <(ls "$dist"/npm/*.tgz)
for tgz in "${tarballs[@]}"; do
  case "$(basename "$tgz")" in
    zot-ext-"$version".tgz | zot-host-"$version".tgz | zot-mcp-"$version".tgz) ;;
    *) npm publish "${dry[@]}" --access public "$tgz" ;;
  esac
done
npm publish "${dry[@]}" --access public "$dist/npm/zot-ext-$version.tgz"
npm publish "${dry[@]}" --access public "$dist/npm/zot-host-$version.tgz"
npm publish "${dry[@]}" --access public "$dist/npm/zot-mcp-$version.tgz"

section "PyPI"
ensure_dist_tools
if [ "$execute" = 1 ]; then
  twine upload "$dist"/pypi/*
else
  twine check --strict "$dist"/pypi/*
  note "dry run: nothing was published (scripts/publish.sh --execute publishes)"
fi
