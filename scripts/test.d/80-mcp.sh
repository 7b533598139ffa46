# opt-in: not part of `./dev test`; run it with `./dev test mcp`. Needs the
# npm registry once (the server is cached under target/mcp-servers).
# zot-mcp wrap against the official MCP test server
# (@modelcontextprotocol/server-everything): registrations, text, image,
# structured content, progress notes and a cancellation mid-call; and
# zot-mcp serve driven by the Python MCP client (PyPI, cached under target/).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
# Pinned so the tool names the driver asserts stay put.
server_version="2026.8.31"
prefix="$ROOT/target/mcp-servers/everything-$server_version"
server="$prefix/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ ! -f "$server" ]; then
  mkdir -p "$prefix"
  if ! npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
      "@modelcontextprotocol/server-everything@$server_version"; then
    note "skipped mcp: the npm registry is unreachable (server-everything not installed)"
    exit 0
  fi
fi
cargo build -p zot-mcp --locked -q
python3 mcp/tests/everything/drive.py "$ROOT/target/debug/zot-mcp" "$server"
ok "zot-mcp wrap over server-everything"

# zot-mcp serve against the official Python MCP client (the `mcp` package,
# pinned), installed in target/mcp-venv: the conformance extension's tools
# and commands (as prompts).
client_version="1.22.0"
venv="$ROOT/target/mcp-venv"
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$client_version')" 2>/dev/null; then
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q "mcp==$client_version"; then
    note "skipped mcp serve: PyPI is unreachable (the mcp client not installed)"
    exit 0
  fi
fi
cargo build -p conformance-rust --locked -q
"$venv/bin/python" mcp/tests/serve/client.py "$ROOT/target/debug/zot-mcp" tests/conformance/rust
ok "zot-mcp serve with the Python MCP client"
