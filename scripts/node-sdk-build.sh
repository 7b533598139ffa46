#!/usr/bin/env bash
# Builds the Node SDK in place: the napi-rs addon (release, in the workspace
# target/, copied next to the package as zot-ext.<platform>.node) and the
# TypeScript facade (dist/). Incremental: a no-op when nothing changed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
ensure_node_modules
(cd sdk-node && napi build --platform --release --no-js --dts src/binding.d.ts --output-dir .)
node sdk-node/scripts/build-ts.mjs
