# Sourced by scripts/dist.sh: the C library's name in musl builds.
#
# zig links a dynamic musl build (the Node addon, the Python module; the
# host is static) against a stub whose soname is `libc.so`. musllinux wheels
# (PEP 656, auditwheel's policy) name it as Alpine's musl does,
# libc.musl-<arch>.so.1, and auditwheel refuses `libc.so`. musl's loader takes
# any `libc.` name for itself, so the renamed file loads wherever musl runs.

# Renames the C library that the ELF file $1 (of Rust architecture $2) needs.
musl_name_libc() {
  local file="$1" arch="$2"
  patchelf --replace-needed libc.so "libc.musl-$arch.so.1" "$file"
  readelf -d "$file" | grep -q "Shared library: \[libc.musl-$arch.so.1\]" ||
    { fail "$file: still does not name libc.musl-$arch.so.1"; return 1; }
}

# The same for every extension module of the wheel $1, repacked in place
# (`wheel pack` writes its RECORD again).
musl_name_libc_in_wheel() {
  local whl="$1" arch="$2" tmp so
  tmp="$(mktemp -d)"
  python -m wheel unpack --dest "$tmp" "$whl" >/dev/null
  while IFS= read -r so; do
    musl_name_libc "$so" "$arch"
  done < <(find "$tmp" -name '*.so')
  rm "$whl"
  python -m wheel pack --dest-dir "$(dirname "$whl")" "$tmp"/*/ >/dev/null
  rm -rf "$tmp"
  [ -f "$whl" ] || { fail "repacking $(basename "$whl") gave another file name"; return 1; }
}
