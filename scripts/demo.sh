# The main job. Until the host and the SDKs land it shows the protocol crate
# at work: every shared test vector decoded, with its frame type.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
section "extension → host frames"
cargo run -q -p zot-protocol --example explain -- ext
section "host → extension frames"
cargo run -q -p zot-protocol --example explain -- host
