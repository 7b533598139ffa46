# opt-in for now: ./dev test release (not part of a plain ./dev test until a
# clean CI run with it has been measured: it adds ~14 CPU-minutes and 2.3 GB
# of disk to a run that once ran a CI machine out of disk; closing note of
# 2026-12-01).
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
