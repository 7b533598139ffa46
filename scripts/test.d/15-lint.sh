# Lint and format gates of the Python and TypeScript / JavaScript code (Rust's
# are cargo fmt and clippy in 10-rust): ruff (ruff.toml) and Biome
# (biome.jsonc), both pinned and installed into the repository. To fix what
# they report: `.venv/bin/ruff format . && .venv/bin/ruff check --fix .` and
# `npx biome check --write .`.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
ensure_venv
ensure_node_modules
ruff check --no-cache .
ruff format --no-cache --check .
ok "ruff: lint and format clean"
biome ci --reporter=summary --error-on-warnings .
ok "biome: lint and format clean"
# The runner itself: a misspelt suite name fails, naming it, rather than
# running nothing and reporting success.
if out="$(./dev test no-such-suite 2>&1)"; then
  fail "./dev test no-such-suite succeeded: $out"
  exit 1
fi
grep -q "no test suite named 'no-such-suite'" <<<"$out" || { fail "unexpected: $out"; exit 1; }
ok "./dev test refuses an unknown suite name"
# Every crate of the workspace follows the one lint policy of the root
# Cargo.toml ([workspace.lints]); a new crate that forgets to opt in fails here.
missing="$(cargo metadata --no-deps --format-version 1 --locked | python3 -c '
import json, sys, tomllib
for p in json.load(sys.stdin)["packages"]:
    with open(p["manifest_path"], "rb") as f:
        if tomllib.load(f).get("lints", {}).get("workspace") is not True:
            print(p["manifest_path"])
')"
if [[ -n "$missing" ]]; then
  fail "crates without '[lints] workspace = true':"$'\n'"$missing"
  exit 1
fi
ok "every workspace crate uses [workspace.lints]"
