# Checks of the release artifacts in target/dist, shared by the suites
# scripts/test.d/60-release.sh (linux-x64-gnu, opt-in: ./dev test release) and
# scripts/test.d/70-dist.sh (every platform, ./dev test dist). Source it after
# scripts/lib.sh. Each check prints one ✔ line or fails (set -e) saying what
# is wrong with which file.

DIST="$ROOT/target/dist"
LICENCES=(LICENSE-MIT LICENSE-APACHE)

die() {
  fail "$*"
  exit 1
}

# One row of scripts/dist/platforms.tsv as variables: rust os cpu libc.
platform_row() {
  IFS=$'\t' read -r _ rust os cpu libc _ _ < <(awk -F'\t' -v s="$1" '$1 == s' "$ROOT/scripts/dist/platforms.tsv")
  [ -n "${rust:-}" ] || die "unknown platform $1"
  arch="${rust%%-*}" # x86_64 | aarch64
}

# The single file of target/dist/$1 whose name matches the glob $2.
artifact() {
  local found=()
  mapfile -t found < <(compgen -G "$DIST/$1/$2" || true)
  [ "${#found[@]}" = 1 ] || die "expected one target/dist/$1/$2, found ${#found[@]}: ${found[*]:-none}"
  printf '%s\n' "${found[0]}"
}

# The member names of an archive (npm / sdist / crate tarball or wheel).
members() {
  case "$1" in
    *.whl) unzip -Z1 "$1" ;;
    *) tar tzf "$1" ;;
  esac
}

# One member's bytes, on stdout.
member() {
  case "$1" in
    *.whl) unzip -p "$1" "$2" ;;
    *) tar xzOf "$1" "$2" ;;
  esac
}

# Both licence files are inside the artifact, where its ecosystem keeps them,
# byte for byte the root's.
check_licences() {
  local a="$1" pattern l m
  case "$a" in
    *.tgz) pattern='^package/' ;;                           # npm
    *.whl) pattern='\.dist-info/licenses/(.*/)?' ;;         # PEP 639
    *.crate) pattern='^[^/]+/' ;;                            # crate root
    *.tar.gz) pattern='^[^/]+/' ;;                           # sdist root
  esac
  for l in "${LICENCES[@]}"; do
    m="$(members "$a" | grep -E "$pattern$l\$" | head -1 || true)"
    [ -n "$m" ] || die "$(basename "$a") has no $l (looked for /$pattern$l/)"
    cmp -s <(member "$a" "$m") "$ROOT/$l" || die "$(basename "$a"): $m differs from the repository's $l"
  done
}

# A file's highest GLIBC_ symbol version (empty: none).
max_glibc() {
  # None at all (a musl build) is an answer, not a failure.
  readelf -V --wide "$1" | { grep -o 'GLIBC_[0-9][0-9.]*' || true; } | sed 's/GLIBC_//' | sort -uV | tail -1
}

# An ELF file of the platform: its architecture, its C library (glibc <= 2.17,
# or none of glibc's symbols for musl) and the entry point it must export.
check_elf() {
  local file="$1" label="$2" export="${3:-}" want machine top needed other
  case "$arch" in
    x86_64) want="Advanced Micro Devices X86-64" ;;
    aarch64) want="AArch64" ;;
  esac
  machine="$(readelf -h "$file" | sed -n 's/^ *Machine: *//p')"
  [ "$machine" = "$want" ] || die "$label: machine $machine, expected $want"
  top="$(max_glibc "$file")"
  if [ "$libc" = glibc ]; then
    [ -n "$top" ] || die "$label: links no glibc symbol versions (not a gnu build?)"
    [ "$(printf '%s\n2.17\n' "$top" | sort -V | tail -1)" = 2.17 ] || die "$label: needs GLIBC_$top, above the 2.17 floor"
  else
    [ -z "$top" ] || die "$label: a musl build that needs GLIBC_$top"
  fi
  # The libraries it loads: the C library's own only (a musl build may
  # link none at all: static; and names musl as Alpine does, see
  # scripts/dist/musl.sh). Anything else would have to be on the user's
  # machine (auditwheel checks the same of the wheels, nothing of npm's).
  needed="$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
  if [ "$libc" = glibc ]; then
    other="$(printf '%s\n' "$needed" | grep -Ev '^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libgcc_s\.so\.1|ld-linux-[a-z0-9-]+\.so\.[12])?$' || true)"
  else
    other="$(printf '%s\n' "$needed" | grep -Ev "^(libc\\.musl-$arch\\.so\\.1)?\$" || true)"
  fi
  [ -z "$other" ] || die "$label: loads libraries outside the C library: $(echo $other)"
  if [ -n "$export" ]; then
    readelf --dyn-syms --wide "$file" | awk -v s="$export" '$8 == s && $7 != "UND" { f = 1 } END { exit !f }' ||
      die "$label: does not export $export"
  fi
  needed="$(echo $needed)"
  ok "$label: ELF $machine${top:+, GLIBC_$top at most}, loads ${needed:-no library (static)}${export:+, exports $export}"
}

# A Mach-O file of the platform's architecture, exporting the entry point.
check_macho() {
  local file="$1" label="$2" export="${3:-}" want desc dylibs other minos floor id
  want="$arch"
  [ "$arch" = aarch64 ] && want=arm64
  desc="$(file -b "$file")"
  [[ "$desc" == "Mach-O 64-bit $want "* || "$desc" == "Mach-O 64-bit "*"$want"* ]] || die "$label: $desc, expected a Mach-O $want file"
  if [ -n "$export" ]; then
    llvm-nm --extern-only --defined-only "$file" | grep -q " _$export\$" || die "$label: does not export _$export"
  fi
  # Loads on the oldest macOS the platform promises (dyld refuses a file
  # whose minimum is newer than the running system).
  minos="$(llvm-objdump --macho --private-headers "$file" |
    awk '$1 == "cmd" { c = $2 } (c == "LC_BUILD_VERSION" && $1 == "minos") || (c == "LC_VERSION_MIN_MACOSX" && $1 == "version") { print $2; exit }')"
  floor="$(macos_deployment_target "$rust")"
  [ -n "$minos" ] || die "$label: no minimum macOS version in its load commands"
  [ "$(printf '%s\n%s\n' "$minos" "$floor" | sort -V | tail -1)" = "$floor" ] ||
    die "$label: needs macOS $minos, newer than the platform's floor $floor (MACOSX_DEPLOYMENT_TARGET)"
  # Only what every Mac has: a library from Homebrew, a Python framework or
  # an @rpath would make the file load on the build machine only.
  # (--dylibs-used lists a dylib's own install name, LC_ID_DYLIB, too.)
  id="$(llvm-objdump --macho --dylib-id "$file" | tail -n +2)"
  dylibs="$(llvm-objdump --macho --dylibs-used "$file" | tail -n +2 | sed 's/^[[:space:]]*//; s/ (compatibility.*//' | grep -vxF "${id:-/}")"
  [ -n "$dylibs" ] || die "$label: links no library at all (not even libSystem)"
  other="$(printf '%s\n' "$dylibs" | grep -Ev '^(/usr/lib/|/System/Library/Frameworks/)' || true)"
  [ -z "$other" ] || die "$label: links libraries that are not part of macOS: $(echo $other)"
  ok "$label: $desc, macOS $minos+${export:+, exports _$export}, links only $(printf '%s\n' "$dylibs" | xargs -n1 basename | tr '\n' ' ')"
}

check_binary() {
  if [ "$os" = darwin ]; then check_macho "$@"; else check_elf "$@"; fi
}

# The platform's four binaries, taken out of the artifacts that ship them,
# plus what their package metadata says about the platform.
check_platform_artifacts() {
  local suffix="$1" version tmp tgz whl tag
  platform_row "$suffix"
  version="$(workspace_version)"
  tmp="$(mktemp -d)"
  tgz="$(artifact npm "zot-ext-$suffix-$version.tgz")"
  member "$tgz" "package/zot-ext.$suffix.node" > "$tmp/addon"
  check_binary "$tmp/addon" "npm zot-ext-$suffix: zot-ext.$suffix.node" napi_register_module_v1
  check_npm_platform_fields "$tgz"
  tgz="$(artifact npm "zot-host-$suffix-$version.tgz")"
  member "$tgz" package/bin/zot-host > "$tmp/host"
  check_binary "$tmp/host" "npm zot-host-$suffix: bin/zot-host"
  check_npm_platform_fields "$tgz"
  case "$os-$libc" in
    linux-glibc) tag="*manylinux_2_17_$arch*" ;;
    linux-musl) tag="musllinux_1_2_$arch" ;;
    darwin-*) tag="macosx_*_${arch/aarch64/arm64}" ;;
  esac
  whl="$(artifact pypi "zot_ext-$version-cp39-abi3-$tag.whl")"
  member "$whl" zot_ext/_native.abi3.so > "$tmp/module"
  check_binary "$tmp/module" "$(basename "$whl"): zot_ext/_native.abi3.so" PyInit__native
  check_auditwheel "$whl"
  whl="$(artifact pypi "zot_host-$version-py3-none-$tag.whl")"
  member "$whl" "zot_host-$version.data/scripts/zot-host" > "$tmp/host-whl"
  check_binary "$tmp/host-whl" "$(basename "$whl"): zot-host"
  cmp -s "$tmp/host" "$tmp/host-whl" || die "zot-host-$suffix: the npm and PyPI binaries differ"
  check_auditwheel "$whl"
  # zot-mcp ships the same way as zot-host.
  tgz="$(artifact npm "zot-mcp-$suffix-$version.tgz")"
  member "$tgz" package/bin/zot-mcp > "$tmp/mcp"
  check_binary "$tmp/mcp" "npm zot-mcp-$suffix: bin/zot-mcp"
  check_npm_platform_fields "$tgz"
  whl="$(artifact pypi "zot_mcp-$version-py3-none-$tag.whl")"
  member "$whl" "zot_mcp-$version.data/scripts/zot-mcp" > "$tmp/mcp-whl"
  check_binary "$tmp/mcp-whl" "$(basename "$whl"): zot-mcp"
  cmp -s "$tmp/mcp" "$tmp/mcp-whl" || die "zot-mcp-$suffix: the npm and PyPI binaries differ"
  check_auditwheel "$whl"
  rm -rf "$tmp"
}

# The npm platform package names the platform as the table does.
check_npm_platform_fields() {
  local got want
  got="$(member "$1" package/package.json | node -e '
    const p = JSON.parse(require("fs").readFileSync(0, "utf8"));
    console.log([p.os, p.cpu, p.libc ?? ["-"]].map((a) => a.join(",")).join(" "))')"
  want="$os $cpu $libc"
  [ "$got" = "$want" ] || die "$(basename "$1"): os/cpu/libc $got, expected $want"
}

# `auditwheel show` agrees with the platform tag a Linux wheel claims: the
# most compatible tag it finds for the wheel's contents is in the name.
check_auditwheel() {
  local whl="$1" out tag
  case "$whl" in *linux*) ;; *) return 0 ;; esac
  local ldpaths=()
  if [[ "$whl" == *musllinux* ]]; then
    # There is no musl C library here, and auditwheel need not find the
    # one the policy allows (libc.musl-<arch>.so.1): it would search this
    # machine's glibc paths instead. Nothing to search.
    mkdir -p "$ROOT/target/tmp/no-libs"
    ldpaths=(--ldpaths "$ROOT/target/tmp/no-libs")
  fi
  out="$(auditwheel show "${ldpaths[@]}" "$whl" 2>&1)" || die "auditwheel show $(basename "$whl") failed: $out"
  # auditwheel wraps its sentences at any word: lines joined with a space.
  tag="$(printf '%s\n' "$out" | tr '\n' ' ' | tr -s ' ' | sed -n 's/.*consistent with the following platform tag: *"\([^"]*\)".*/\1/p')"
  [ -n "$tag" ] || die "auditwheel show $(basename "$whl"): no platform tag in: $out"
  [[ "$(basename "$whl")" == *"$tag"* ]] || die "$(basename "$whl"): auditwheel says $tag"
  ok "auditwheel show $(basename "$whl"): $tag"
}

# An empty project whose PATH has node and npm only (no cargo, no rustc);
# sets $BARE (that PATH).
bare_path() {
  local dir="$1"
  mkdir -p "$dir/bin"
  ln -sf "$(command -v node)" "$dir/bin/node"
  ln -sf "$(command -v npm)" "$dir/bin/npm"
  ln -sf "$(command -v npx)" "$dir/bin/npx"
  BARE="$dir/bin:/usr/bin:/bin"
  if PATH="$BARE" command -v cargo >/dev/null 2>&1 || PATH="$BARE" command -v rustc >/dev/null 2>&1; then
    die "Rust is on the bare PATH $BARE"
  fi
}

# The session every host channel runs: one command, and its reply checked
# (`expect` fails the run with exit status 1).
write_session() {
  cat > "$1" <<'EOF'
{
  "steps": [
    { "command": "/hi there" },
    { "expect": { "contains": ["hi there"] } }
  ]
}
EOF
}

# A Node extension with the hi command, for the installed zot-ext.
write_node_extension() {
  mkdir -p "$1"
  printf '{ "name": "hello", "version": "1.0.0", "exec": "node", "args": ["index.mjs"] }\n' > "$1/extension.json"
  cat > "$1/index.mjs" <<'EOF'
import { Extension, Response } from "zot-ext";
await new Extension("hello", "1.0.0").command("hi", "Say hi", (args) => Response.display(`hi ${args}`)).run();
EOF
}

# The same in Python, for the installed zot_ext.
write_python_extension() {
  mkdir -p "$1"
  printf '{ "name": "hello", "version": "1.0.0", "exec": "%s", "args": ["hello.py"] }\n' "$2" > "$1/extension.json"
  cat > "$1/hello.py" <<'EOF'
from zot_ext import Extension, Response

ext = Extension("hello", "1.0.0")


@ext.command("hi", "Say hi")
def hi(args: str) -> Response:
    return Response.display(f"hi {args}")


ext.run()
EOF
}

# `<host> --version` prints the workspace version, and the session runs
# against the extension in $2 (in the current directory, a scratch project).
check_host_runs() {
  local host="$1" ext="$2" label="$3" v
  shift 3
  v="$("$@" "$host" --version)"
  [ "$v" = "zot-host $(workspace_version)" ] || die "$label: --version printed \"$v\""
  write_session session.json
  mkdir -p zot-home
  "$@" "$host" run --script session.json --ext "$ext" --no-ext --cwd . --zot-home zot-home > transcript.txt 2>&1 ||
    { cat transcript.txt >&2; die "$label: the scripted session failed (transcript above)"; }
  ok "$label: $v, and a scripted session against $(basename "$ext") passes"
}

# target/dist/ARTIFACTS.md says truthfully what the run built: every file of
# target/dist with its sha256, and every platform of platforms.tsv in its
# table, "built" exactly when target/dist holds its six platform artifacts
# (and none of them otherwise), the CI-only ones with their reason.
check_artifact_list() {
  local list="$DIST/ARTIFACTS.md" f sha row suffix n status
  [ -f "$list" ] || die "no target/dist/ARTIFACTS.md"
  while read -r f; do
    sha="$(sha256sum "$DIST/$f" | cut -d' ' -f1)"
    grep -qF "| \`$(basename "$f")\` | " "$list" || die "ARTIFACTS.md does not list $f"
    grep -F "| \`$(basename "$f")\` | " "$list" | grep -qF "\`$sha\`" || die "ARTIFACTS.md: wrong sha256 for $f"
  done < <(cd "$DIST" && find npm pypi crates -type f | sort)
  while IFS=$'\t' read -r suffix _ _ _ _ _ where; do
    row="$(grep -E "^\| $suffix \| " "$list" || true)"
    [ -n "$row" ] || die "ARTIFACTS.md has no row for the platform $suffix"
    status="$(printf '%s\n' "$row" | cut -d'|' -f4 | sed 's/^ *//; s/ *$//')"
    platform_row "$suffix"
    n="$(platform_files "$suffix" | wc -l)"
    if [ "$status" = built ]; then
      [ "$n" = 6 ] || die "ARTIFACTS.md says $suffix is built, target/dist has $n of its 6 artifacts"
    else
      [ "$n" = 0 ] || die "ARTIFACTS.md says $suffix is $status, but target/dist has $n of its artifacts"
      if [ "$where" != here ]; then
        [[ "$status" == "not built: CI only"* ]] || die "ARTIFACTS.md: $suffix is built by CI only, the list says: $status"
        grep -qE "^- $suffix: not built here: " "$list" || die "ARTIFACTS.md does not say why $suffix is not built here"
      fi
    fi
  done < <(awk -F'\t' '!/^#/ && NF && $1 != "suffix"' "$ROOT/scripts/dist/platforms.tsv")
  ok "ARTIFACTS.md lists all $(cd "$DIST" && find npm pypi crates -type f | wc -l) files with their sha256, and each platform as built or not (and where instead) as target/dist has it"
}

# The files of target/dist that belong to one platform: its three npm
# packages and its three wheels (by tag), one per line.
platform_files() {
  local tag
  case "$os-$libc" in
    linux-glibc) tag="manylinux_2_17_$arch" ;;
    linux-musl) tag="musllinux_1_2_$arch" ;;
    darwin-*) tag="macosx_[0-9_]*_${arch/aarch64/arm64}" ;;
    win32-*) tag="win_amd64" ;;
  esac
  (cd "$DIST" && find npm pypi -type f | grep -E "^npm/zot-(ext|host|mcp)-$1-[0-9]|^pypi/.*[-.]$tag(\.|$)" || true)
}

# Debian's arm64 Node and CPython with the libraries they load, unpacked
# (dpkg -x, nothing installed) into target/tools/debian-arm64/root for
# `qemu-aarch64 -L`. Downloaded with apt-get on a private state (this
# machine's sources, architecture arm64): dpkg's configuration is left alone.
# About 30 MB to download, 140 MB unpacked; kept for the next run. The names
# are Debian 12's (bookworm: Node 18, Python 3.11). Prints the root; fails
# where the sources have none of them (another release, or Ubuntu, whose
# arm64 packages are on ports.ubuntu.com).
DEBIAN_ARM64_PACKAGES=(libc6 libgcc-s1 libstdc++6 zlib1g libssl3 libexpat1 libffi8 libbz2-1.0 liblzma5 libuuid1
  python3.11-minimal libpython3.11-minimal libpython3.11-stdlib
  nodejs libnode108 libuv1 libicu72 libbrotli1 libc-ares2 libnghttp2-14 node-acorn node-cjs-module-lexer node-undici
  musl)
debian_arm64_userland() {
  local dir="$ROOT/target/tools/debian-arm64" want apt deb
  want="$(printf '%s\n' "${DEBIAN_ARM64_PACKAGES[@]}" | sha256sum | cut -d' ' -f1)"
  if [ "$(cat "$dir/.packages.sha" 2>/dev/null)" != "$want" ]; then
    rm -rf "$dir"
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$dir/root"
    apt=(-qq -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o "Dir::State::Lists=$dir/lists"
      -o "Dir::Cache=$dir/cache" -o Dir::State::status=/dev/null)
    apt-get "${apt[@]}" update > "$dir/apt.log" 2>&1 &&
      (cd "$dir/debs" && apt-get "${apt[@]}" download "${DEBIAN_ARM64_PACKAGES[@]}" >> "$dir/apt.log" 2>&1) || return 1
    for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
    rm -rf "$dir/lists" "$dir/cache" "$dir/debs"
    echo "$want" > "$dir/.packages.sha"
  fi
  printf '%s\n' "$dir/root"
}

# musl's own loader ($1, run by the command prefix $2, e.g. qemu) loads the
# ELF file $3 in its listing mode: the C library it names must be musl
# itself, and the only symbols left unresolved those of the runtime that
# loads it ($4: a regex, e.g. napi_ for Node). Debian has no musl Node or
# CPython to load the addon and module for real; this shows the musl side of
# the link holds (the name of the C library, every libc symbol found).
check_musl_loads() {
  local loader="$1" runner="$2" file="$3" runtime="$4" label="$5" out libc missing
  out="$($runner "$loader" --list "$file" 2>&1 || true)"
  libc="$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*\(libc[^ ]*\) => .*/\1/p')"
  [ -n "$libc" ] || die "$label: musl's loader did not resolve the C library: $out"
  missing="$(printf '%s\n' "$out" | sed -n 's/^Error relocating [^:]*: \([^:]*\): symbol not found$/\1/p' | grep -Ev "^($runtime)" || true)"
  [ -z "$missing" ] || die "$label: under musl's loader, symbols of no runtime are missing: $(echo $missing)"
  printf '%s\n' "$out" | grep -v '^Error relocating [^:]*: [^:]*: symbol not found$' | grep -q "^Error" &&
    die "$label: musl's loader failed: $out"
  ok "$label: musl's loader takes $libc for itself; unresolved only the runtime's symbols (${runtime//|/, })"
}
