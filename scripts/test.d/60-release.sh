# opt-in: ./dev test release (RELEASING.md, "In ./dev test"): measured cold
# at about 40 CPU-minutes (three fat-LTO builds, the tools, the crates), over
# 20 min of wall time on an idle 2-core machine (CPU time over two cores),
# and 3.2 GB of disk: CI's
# whole run would pass its 45 minutes. Every ./dev test runs the part that
# needs no release build instead (58-package.sh: licences, npm pack guards,
# the release workflow, the crates packaged and verified). What only this
# suite catches: a package that no longer installs or runs from what ships,
# a glibc floor crept above 2.17.
# Release packaging, on this machine's platform (linux-x64-gnu): `./dev dist
# linux-x64-gnu` (zig, glibc 2.17 floor), then the checks of
# scripts/dist/suite.sh: licences at the root and inside every artifact, the
# npm pack guards, the binaries (architecture, GLIBC_ floor, entry points,
# auditwheel), the npm SDK in an empty project with no Rust, and the host
# from each channel (npx, the wheel in a fresh venv, cargo install of the
# packaged crate) running a scripted session. Every platform, and aarch64
# under qemu: ./dev test dist (scripts/test.d/70-dist.sh).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
source scripts/dist/suite.sh linux-x64-gnu
