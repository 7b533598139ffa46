# zot-mcp against MCP code nobody here wrote. wrap: the official MCP test
# server (@modelcontextprotocol/server-everything: every tool it registers,
# progress, cancellation, prompts, resources; and a `zot-host run` session
# script over it, and through each SDK's testing harness), the official filesystem
# server on a temporary directory, and a FastMCP server written with the
# `mcp` Python package. serve: the MCP Inspector's CLI and the Python `mcp`
# client, over stdio and Streamable HTTP (--http), of the conformance
# extension of each SDK. The packages are
# pinned and installed once under target/ (target/mcp-servers,
# target/mcp-venv); without a registry the part needing it is skipped,
# saying so.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
# Pinned so the tool names the drivers assert stay put.
servers_version="2026.8.31"
inspector_version="2.12.0"
client_version="1.22.0"
drivers=mcp/tests/servers

# npm_install DIR SPEC ENTRY: installs the npm package SPEC once under
# target/mcp-servers/DIR and prints the path of ENTRY in it; fails when npm
# cannot install it.
npm_install() {
  local prefix="$ROOT/target/mcp-servers/$1"
  local entry="$prefix/node_modules/$3"
  if [ ! -e "$entry" ]; then
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$2" >&2 || return 1
  fi
  echo "$entry"
}

# The Node and Python SDKs as built in place (for the conformance extensions
# and the testing harnesses); no-ops when an earlier suite of this run built
# them.
build_sdks() {
  bash scripts/node-sdk-build.sh
  if [ ! -x target/python-sdk-venv/bin/python ] || [ -n "$(find sdk-python engine protocol -newer target/python-sdk-venv/bin/python -name '*.rs' -o -newer target/python-sdk-venv/bin/python -name '*.py' | head -1)" ]; then
    bash scripts/python-sdk-venv.sh
  fi
}

cargo build -p zot-mcp -p zot-host -p conformance-rust --locked -q
zot_mcp="$ROOT/target/debug/zot-mcp"

for server in everything filesystem; do
  pkg="@modelcontextprotocol/server-$server"
  if entry="$(npm_install "$server-$servers_version" "$pkg@$servers_version" "$pkg/dist/index.js")"; then
    python3 "$drivers/$server.py" "$zot_mcp" "$entry"
    ok "zot-mcp wrap over server-$server"
    if [ "$server" = everything ]; then
      python3 "$drivers/session.py" "$ROOT/target/debug/zot-host" "$zot_mcp" "$entry"
      ok "zot-mcp wrap over server-everything under zot-host run"
      everything="$entry"
    fi
  else
    note "skipped server-$server: the npm registry is unreachable (not installed)"
  fi
done

# serve under the official MCP Inspector's CLI (tools/list, tools/call,
# prompts/list) over the conformance extension of each SDK, built as the
# conformance suite builds them (no-ops when an earlier suite of this run
# did).
if inspector="$(npm_install "inspector-$inspector_version" \
    "@modelcontextprotocol/inspector@$inspector_version" .bin/mcp-inspector)"; then
  build_sdks
  for lang in rust node python; do
    python3 mcp/tests/serve/inspector.py "$inspector" "$zot_mcp" "tests/conformance/$lang"
    ok "zot-mcp serve of the $lang conformance extension under the MCP Inspector CLI"
    python3 mcp/tests/serve/inspector.py "$inspector" "$zot_mcp" "tests/conformance/$lang" --http
    ok "zot-mcp serve --http of the $lang conformance extension under the MCP Inspector CLI (Streamable HTTP, bearer token)"
  done
else
  note "skipped the MCP Inspector: the npm registry is unreachable (not installed)"
fi

# wrap over server-everything driven through each SDK's testing harness
# (TestHost.spawn in Rust, Node and Python): tools listed, echo and
# structured content checked.
if [ -n "${everything:-}" ]; then
  ZOT_MCP_EVERYTHING="$everything" cargo test -p zot-mcp --locked -q --test harness -- --ignored
  ok "zot-mcp wrap over server-everything through the Rust SDK's TestHost.spawn"
  build_sdks
  node mcp/tests/harness/node.mjs "$zot_mcp" "$everything"
  ok "zot-mcp wrap over server-everything through the Node SDK's TestHost.spawn"
  target/python-sdk-venv/bin/python mcp/tests/harness/python_harness.py "$zot_mcp" "$everything"
  ok "zot-mcp wrap over server-everything through the Python SDK's TestHost.spawn"
fi

# The Python MCP SDK: a FastMCP server under wrap, and the client of serve.
venv="$ROOT/target/mcp-venv"
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$client_version')" 2>/dev/null; then
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q "mcp==$client_version"; then
    note "skipped the Python MCP SDK parts: PyPI is unreachable (mcp not installed)"
    exit 0
  fi
fi
python3 "$drivers/fastmcp.py" "$zot_mcp" "$venv/bin/python"
ok "zot-mcp wrap over a FastMCP server"
build_sdks
for lang in rust node python; do
  "$venv/bin/python" mcp/tests/serve/client.py "$zot_mcp" "tests/conformance/$lang"
  ok "zot-mcp serve of the $lang conformance extension with the Python MCP client"
  "$venv/bin/python" mcp/tests/serve/client.py "$zot_mcp" "tests/conformance/$lang" --http
  ok "zot-mcp serve --http of the $lang conformance extension with the Python MCP client (Streamable HTTP, bearer token, 401 without it)"
done
