#!/usr/bin/env bash
# ./dev install [--prefix DIR] [--debug]: builds zot-host and links it into
# DIR/bin (default ~/.local/bin), and builds this checkout's SDKs for the
# extensions `zot-host new` creates until the packages are published:
# target/sdk/ gets the npm package packed (.tgz) and the Python wheel, and
# zot-sdk.json naming them and sdk-rust/. A zot-host built here finds that
# file beside its build folder (host/src/scaffold/sdk.rs).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
# The caller's PATH: the helpers below put the repository's tools first.
user_path="$PATH"

usage() {
  echo "usage: ./dev install [--prefix DIR] [--debug]"
  echo "  --prefix DIR   link zot-host into DIR/bin (default: ~/.local, so ~/.local/bin)"
  echo "  --debug        the debug build that ./dev test makes (quicker to build, slower to run)"
}
prefix="${HOME:?HOME is not set; give --prefix}/.local"
profile=release
while [ "$#" -gt 0 ]; do
  case "$1" in
    --prefix)
      [ "$#" -ge 2 ] || { fail "./dev install: --prefix needs a directory"; usage >&2; exit 2; }
      prefix="$2"
      shift 2
      ;;
    --prefix=*) prefix="${1#*=}"; shift ;;
    --debug) profile=debug; shift ;;
    -h | --help) usage; exit 0 ;;
    *) fail "./dev install: unknown argument '$1'"; usage >&2; exit 2 ;;
  esac
done
bin="$prefix/bin"
link="$bin/zot-host"
if [ -e "$link" ] && [ ! -L "$link" ]; then
  fail "$link exists and is not a link ./dev install made; remove it or choose another --prefix"
  exit 1
fi

section "zot-host ($profile)"
if [ "$profile" = release ]; then
  cargo build --release --locked -q -p zot-host
else
  build_rust_bins
fi
host="$CARGO_TARGET_DIR/$profile/zot-host"

section "the SDKs for new extensions"
sdk="$CARGO_TARGET_DIR/sdk"
rm -rf "$sdk"
mkdir -p "$sdk"
bash scripts/node-sdk-build.sh
(cd sdk-node && npm pack --silent --pack-destination "$sdk" >/dev/null)
tgz="$(ls "$sdk"/zot-ext-*.tgz)"
ok "packed $(basename "$tgz")"
ensure_venv
# A development copy of the native module would be packaged with the new one.
rm -f sdk-python/python/zot_ext/_native*.so
(cd sdk-python && maturin build --release --locked --quiet -o "$sdk")
wheel="$(ls "$sdk"/zot_ext-*.whl)"
ok "built $(basename "$wheel")"
version="$(node -p 'require("./sdk-node/package.json").version')"
python3 - "$sdk/zot-sdk.json" "$version" "$ROOT" "$ROOT/sdk-rust" "$tgz" "$wheel" <<'PY'
import json, sys
out, version, checkout, rust, npm, python = sys.argv[1:]
with open(out, "w") as f:
    json.dump({"version": version, "checkout": checkout, "rust": rust, "npm": npm, "python": python}, f, indent=2)
    f.write("\n")
PY

section "on PATH"
mkdir -p "$bin"
ln -sfn "$host" "$link"
ok "$link -> $host"
found="$(PATH="$user_path" command -v zot-host || true)"
if [ -z "$found" ]; then
  note "$bin is not on PATH; add it (e.g. in ~/.profile): export PATH=\"$bin:\$PATH\""
elif [ "$(readlink -f "$found")" != "$(readlink -f "$host")" ]; then
  note "another zot-host comes first on PATH: $found; put $bin before it"
fi
if ! PATH="$user_path" command -v uv >/dev/null; then
  note "Python extensions run with uv, which is not on PATH: https://docs.astral.sh/uv/ (or: pipx install uv)"
fi
echo
echo "zot-host new NAME --lang rust|typescript|javascript|python now writes extensions that use"
echo "this checkout's SDKs ($sdk) until they are published."
