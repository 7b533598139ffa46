# opt-in: ./dev test dist (not part of a plain ./dev test: it builds every
# platform, about 10 CPU-minutes each: RELEASING.md; 60-release.sh runs the
# linux-x64-gnu subset: ./dev test release).
#
# Every release artifact: `./dev dist` (all platforms of
# scripts/dist/platforms.tsv, or those of ZOT_DIST_PLATFORMS, e.g.
# `ZOT_DIST_PLATFORMS=darwin-arm64 ./dev test dist`), the checks of
# scripts/dist/suite.sh for each platform, then the Linux builds that can run
# here do: the aarch64 ones under qemu-user (Debian's qemu-user and aarch64
# cross libc) and the x86-64 musl one natively (statically linked): the host
# of each runs the conformance suite against the Rust conformance extension
# built for the same target.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
mapfile -t all < <(awk -F'\t' '!/^#/ && NF && $7 == "here" { print $1 }' scripts/dist/platforms.tsv)
if [ -n "${ZOT_DIST_PLATFORMS:-}" ]; then read -ra all <<< "$ZOT_DIST_PLATFORMS"; fi
# The macOS checks read Mach-O files with file(1) and llvm-nm.
ensure_apt file file llvm-nm llvm
source scripts/dist/suite.sh "${all[@]}"

# --- the other Linux builds run: aarch64 under qemu, x86-64 musl natively --------------
runnable=()
for suffix in "${all[@]}"; do
  case "$suffix" in linux-arm64-* | linux-x64-musl) runnable+=("$suffix") ;; esac
done
[ "${#runnable[@]}" -gt 0 ] || exit 0
build_rust_bins # the conformance runner (native)
sysroot=/usr/aarch64-linux-gnu
log="$tmp/conformance.log"
for suffix in "${runnable[@]}"; do
  platform_row "$suffix"
  zig_target="$rust"
  [ "$libc" = glibc ] && zig_target="$rust.2.17"
  # The Rust conformance extension for the target (a debug build: the
  # engine is the same code, and it links in a fraction of the time).
  (export CARGO_TARGET_DIR="$ROOT/target/dist-build/qemu"; nice -n 10 cargo zigbuild --quiet --locked -p conformance-rust --target "$zig_target")
  ext="$ROOT/target/dist-build/qemu/$rust/debug/conformance-rust"
  check_elf "$ext" "conformance-rust ($suffix)"
  dir="$tmp/run-$suffix"
  mkdir -p "$dir/ext"
  member "$(artifact npm "zot-host-$suffix-$version.tgz")" package/bin/zot-host > "$dir/zot-host-bin"
  chmod +x "$dir/zot-host-bin"
  if [ "$arch" = aarch64 ]; then
    ensure_apt qemu-aarch64 qemu-user /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 libc6-arm64-cross
    how="under qemu-user"
    # qemu-user runs one process: the host's child (the extension) needs its own.
    runner="qemu-aarch64 -L $sysroot "
    # Emulated, a debug extension answers hello_ack after more than the
    # spec's 250 ms auto-ready window (HOST-31), and on a loaded machine
    # after more than 5 s (20×: 2 of 9 scripts started before the
    # registrations): every deadline of the host ×50.
    export ZOT_HOST_TIME_SCALE=50
  else
    unset ZOT_HOST_TIME_SCALE
    # No musl userland here (Alpine is not a Debian package): the musl host
    # and extension run because they are static, as Rust's musl target links.
    for f in "$dir/zot-host-bin" "$ext"; do
      ! readelf -l "$f" | grep -q 'Requesting program interpreter' || die "$f: a musl build linked dynamically (needs a musl loader)"
    done
    how="natively (statically linked)"
    runner=""
  fi
  printf '#!/bin/sh\nexec %s"%s" "$@"\n' "$runner" "$ext" > "$dir/ext/run"
  printf '#!/bin/sh\nexec %s"%s" "$@"\n' "$runner" "$dir/zot-host-bin" > "$dir/zot-host"
  chmod +x "$dir/ext/run" "$dir/zot-host"
  node -e '
    const m = require(process.argv[1]);
    m.exec = "./run";
    delete m.args;
    process.stdout.write(JSON.stringify(m, null, 2));' "$ROOT/tests/conformance/rust/extension.json" > "$dir/ext/extension.json"
  "$CARGO_TARGET_DIR/debug/zot-conformance" --host "$dir/zot-host" --lang rust --ext "rust=$dir/ext" | tee "$log"
  require_tests_ran "$log" '^[1-9][0-9]* of [0-9]+ script runs conform'
  ok "$suffix $how: the host from zot-host-$suffix and the Rust conformance extension pass the conformance suite"
done

# --- the musl addons and modules, loaded by musl's own loader ---------------------
# (Debian's musl package: natively for x86-64, under qemu-user for aarch64.)
for suffix in "${all[@]}"; do
  platform_row "$suffix"
  [ "$libc" = musl ] || continue
  if [ "$arch" = x86_64 ]; then
    ensure_apt /lib/ld-musl-x86_64.so.1 musl
    loader=/lib/ld-musl-x86_64.so.1 runner=""
  elif root="$(debian_arm64_userland)"; then
    loader="$root/lib/ld-musl-aarch64.so.1" runner="qemu-aarch64 -L $root"
  else
    note "skipped musl's loader for $suffix: no Debian arm64 packages (target/tools/debian-arm64/apt.log)"
    continue
  fi
  dir="$tmp/musl-$suffix"
  mkdir -p "$dir"
  member "$(artifact npm "zot-ext-$suffix-$version.tgz")" "package/zot-ext.$suffix.node" > "$dir/addon.node"
  check_musl_loads "$loader" "$runner" "$dir/addon.node" "napi_" "zot-ext-$suffix"
  whl="$(artifact pypi "zot_ext-$version-cp39-abi3-musllinux_1_2_$arch.whl")"
  member "$whl" zot_ext/_native.abi3.so > "$dir/module.so"
  check_musl_loads "$loader" "$runner" "$dir/module.so" "_?Py" "$(basename "$whl")"
done

# --- linux-arm64-gnu's addon and wheel, loaded by Debian's arm64 Node and CPython --
# Under qemu-user, each drives an extension in-process through the SDK's
# TestHost (handshake, a command and its reply, shutdown): the engine in the
# addon and in the extension module runs on aarch64. In-process because the
# host's 10 s hello timeout (protocol limits) is not sure to hold for a Node or
# CPython starting under emulation on a busy machine; the host itself ran
# under qemu above. Debian's Node is 18 (zot-ext asks for 20: engines), the
# oldest napi the addon needs is 4. The musl ones stay unloaded: Debian has no
# musl Node or CPython.
if [[ " ${all[*]} " == *" linux-arm64-gnu "* ]]; then
  if ! root="$(debian_arm64_userland)"; then
    note "skipped loading the linux-arm64-gnu addon and wheel: this machine's apt sources have no Debian 12 arm64 Node and Python (target/tools/debian-arm64/apt.log)"
  else
    dir="$tmp/arm64-load"
    mkdir -p "$dir/node/node_modules" "$dir/py/site"
    for pkg in zot-ext zot-ext-linux-arm64-gnu; do
      mkdir -p "$dir/node/node_modules/$pkg"
      tar xzf "$(artifact npm "$pkg-$version.tgz")" -C "$dir/node/node_modules/$pkg" --strip-components=1
    done
    cat > "$dir/node/check.mjs" <<'EOF'
import assert from "node:assert/strict";
import { Extension, Response } from "zot-ext";
import { TestHost } from "zot-ext/testing";

const ext = new Extension("hello", "1.0.0").command("hi", "Say hi", (args) => Response.display(`hi ${args}`));
const host = await TestHost.start(ext);
assert.equal((await host.command("hi", "there")).display, "hi there");
await host.shutdown();
console.log(`Node ${process.version} ${process.arch}`);
EOF
    out="$(cd "$dir/node" && qemu-aarch64 -L "$root" "$root/usr/bin/node" check.mjs 2>&1)" ||
      { printf '%s\n' "$out" >&2; die "the linux-arm64-gnu addon under Debian's arm64 Node failed (above)"; }
    [ "$out" = "Node $(qemu-aarch64 -L "$root" "$root/usr/bin/node" --version) arm64" ] || die "unexpected output of the arm64 Node check: $out"
    ok "zot-ext-linux-arm64-gnu under qemu-user, $out (Debian): an extension's command answered through TestHost"
    unzip -q "$(artifact pypi "zot_ext-$version-cp39-abi3-*manylinux_2_17_aarch64*.whl")" -d "$dir/py/site"
    cat > "$dir/py/check.py" <<'EOF'
import platform

from zot_ext import Extension, Response
from zot_ext.testing import TestHost

ext = Extension("hello", "1.0.0")


@ext.command("hi", "Say hi")
def hi(args: str) -> Response:
    return Response.display(f"hi {args}")


with TestHost(ext) as host:
    assert host.command("hi", "there")["display"] == "hi there"
print(f"CPython {platform.python_version()} {platform.machine()}")
EOF
    out="$(cd "$dir/py" && PYTHONPATH="$dir/py/site" qemu-aarch64 -L "$root" "$root/usr/bin/python3.11" check.py 2>&1)" ||
      { printf '%s\n' "$out" >&2; die "the linux-arm64-gnu wheel under Debian's arm64 CPython failed (above)"; }
    [[ "$out" == "CPython 3."*" aarch64" ]] || die "unexpected output of the arm64 CPython check: $out"
    ok "$(basename "$(artifact pypi "zot_ext-$version-cp39-abi3-*manylinux_2_17_aarch64*.whl")") under qemu-user, $out (Debian): an extension's command answered through TestHost"
  fi
fi
