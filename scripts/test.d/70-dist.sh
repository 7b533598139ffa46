# opt-in: ./dev test dist (not part of a plain ./dev test: it builds every
# platform, about 14 CPU-minutes each: RELEASING.md; 60-release.sh runs the
# linux-x64-gnu subset: ./dev test release, opt-in for now).
#
# Every release artifact: `./dev dist` (all platforms of
# scripts/dist/platforms.tsv), the checks of scripts/dist/suite.sh for each
# platform, then the aarch64 Linux builds run under qemu-user (Debian's
# qemu-user and aarch64 cross libc): the aarch64 host (gnu and musl) runs
# the conformance suite against the Rust conformance extension built for
# the same target.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
mapfile -t all < <(awk -F'\t' '!/^#/ && NF && $7 == "here" { print $1 }' scripts/dist/platforms.tsv)
# The macOS checks read Mach-O files with file(1) and llvm-nm.
ensure_apt file file llvm-nm llvm
source scripts/dist/suite.sh "${all[@]}"

# --- aarch64 under qemu ------------------------------------------------------------
ensure_apt qemu-aarch64 qemu-user /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 libc6-arm64-cross
build_rust_bins # the conformance runner (native)
sysroot=/usr/aarch64-linux-gnu
log="$tmp/conformance.log"
for suffix in linux-arm64-gnu linux-arm64-musl; do
  platform_row "$suffix"
  zig_target="$rust"
  [ "$libc" = glibc ] && zig_target="$rust.2.17"
  # The Rust conformance extension for the target (a debug build: the
  # engine is the same code, and it links in a fraction of the time).
  (export CARGO_TARGET_DIR="$ROOT/target/dist-build/qemu"; nice -n 10 cargo zigbuild --quiet --locked -p conformance-rust --target "$zig_target")
  ext="$ROOT/target/dist-build/qemu/$rust/debug/conformance-rust"
  check_elf "$ext" "conformance-rust ($suffix)"
  dir="$tmp/qemu-$suffix"
  mkdir -p "$dir/ext"
  # qemu-user runs one process: the host's child (the extension) needs its own.
  printf '#!/bin/sh\nexec qemu-aarch64 -L %s "%s" "$@"\n' "$sysroot" "$ext" > "$dir/ext/run"
  member "$(artifact npm "zot-host-$suffix-$version.tgz")" package/bin/zot-host > "$dir/zot-host-bin"
  printf '#!/bin/sh\nexec qemu-aarch64 -L %s "%s" "$@"\n' "$sysroot" "$dir/zot-host-bin" > "$dir/zot-host"
  chmod +x "$dir/ext/run" "$dir/zot-host" "$dir/zot-host-bin"
  node -e '
    const m = require(process.argv[1]);
    m.exec = "./run";
    delete m.args;
    process.stdout.write(JSON.stringify(m, null, 2));' "$ROOT/tests/conformance/rust/extension.json" > "$dir/ext/extension.json"
  "$CARGO_TARGET_DIR/debug/zot-conformance" --host "$dir/zot-host" --lang rust --ext "rust=$dir/ext" | tee "$log"
  require_tests_ran "$log" '^[1-9][0-9]* of [0-9]+ script runs conform'
  ok "$suffix under qemu: the host from zot-host-$suffix and the Rust conformance extension pass the conformance suite"
done
