# opt-in for this landing: ./dev test release (RELEASING.md, "In ./dev test":
# about 14 CPU-minutes, 8-10 min on an idle 2-core machine, and 2.4 GB of
# disk on a fresh clone; to return to every run once its cost beside the new
# fuzz and scaffold suites is measured in a clean CI run). What it alone catches: a package that
# no longer installs or runs from what ships, and a crate that no longer
# packages in publish order.
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
