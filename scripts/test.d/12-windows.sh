# Windows (x86_64-pc-windows-gnu). In every run (./dev test): the crates an
# extension author builds (zot-protocol, zot-ext-engine, zot-ext) compile
# for Windows, tests included, with clippy's warnings as errors. Named
# (./dev test windows): also zot-host and zot-mcp compile for Windows, and
# the tests of those three crates run under Wine (the stdio transport in a
# real process among them). Installs the Rust target, and when named
# MinGW-w64 and Wine (Debian packages); skips, saying why, where the target
# cannot be installed (no network).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
target=x86_64-pc-windows-gnu
if ! rustup target list --installed | grep -qx "$target"; then
  if ! rustup target add "$target" >/dev/null 2>&1; then
    note "skipped: the Rust target $target cannot be installed here (rustup target add $target)"
    exit 0
  fi
fi
sdk=(-p zot-protocol -p zot-ext-engine -p zot-ext)
cargo clippy --target "$target" --locked "${sdk[@]}" --all-targets -q -- -D warnings
ok "the SDK crates compile for Windows (clippy, tests included)"
if [ -z "${ZOT_TEST_NAMED:-}" ]; then
  exit 0
fi

# MinGW-w64 links the test binaries (and builds ring's C for zot-host).
ensure_apt x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64 /usr/lib/wine/wine64 wine64
cargo check --target "$target" --locked -p zot-host -p zot-mcp --lib --bins -q
ok "zot-host and zot-mcp compile for Windows"

# A Wine prefix of the suite's own, with the stand-in DLL Rust programs need
# under Debian 12's Wine (scripts/windows/bcryptprimitives.c).
wine_dir="$CARGO_TARGET_DIR/tools/wine"
export WINEPREFIX="$wine_dir/prefix" WINEDEBUG=-all
mkdir -p "$WINEPREFIX"
/usr/lib/wine/wine64 cmd /c exit 0 >/dev/null 2>&1 || true # creates the prefix
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  scripts/windows/bcryptprimitives.c scripts/windows/bcryptprimitives.def -ladvapi32

log="$(mktemp)"
CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=/usr/lib/wine/wine64 \
  cargo test --target "$target" --locked "${sdk[@]}" 2>&1 | tee "$log"
require_tests_ran "$log" 'test result: ok\. [1-9][0-9]* passed'
ok "the SDK crates' tests pass on Windows (under Wine)"
