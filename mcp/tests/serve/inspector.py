"""`zot-mcp serve` driven by the official MCP Inspector's CLI mode
(@modelcontextprotocol/inspector --cli): tools/list, tools/call (content,
structured content, an error) and prompts/list over a zot extension.

Usage: inspector.py MCP_INSPECTOR ZOT_MCP EXT_DIR
"""

import json
import os
import subprocess
import sys
import tempfile


def main():
    inspector, zot_mcp, ext_dir = sys.argv[1:4]
    # The inspector keeps state under HOME, the host its logs under ZOT_HOME.
    home = tempfile.mkdtemp(prefix="zot-mcp-inspector-")
    env = {**os.environ, "HOME": home, "ZOT_HOME": home}

    def inspect(*args, is_error=False):
        """The result the inspector prints; with is_error, a tool error
        result (for which the inspector exits non-zero, saying so)."""
        cmd = [inspector, "--cli", zot_mcp, "serve", ext_dir, *args]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
        if (out.returncode != 0) != is_error:
            sys.exit(f"{' '.join(cmd)} exited {out.returncode}:\n{out.stdout}{out.stderr}")
        return json.JSONDecoder().raw_decode(out.stdout)[0]

    tools = {t["name"]: t for t in inspect("--method", "tools/list")["tools"]}
    assert {"add", "echo", "fail", "image"} <= set(tools), sorted(tools)
    assert tools["add"]["inputSchema"]["required"] == ["a", "b"], tools["add"]
    add = inspect("--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "b=40")
    assert add["structuredContent"] == {"sum": 42} and not add["isError"], add
    assert add["content"] == [{"type": "text", "text": "sum=42"}], add
    echo = inspect("--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=héllo")
    assert echo["content"][0]["text"] == "héllo", echo
    fail = inspect("--method", "tools/call", "--tool-name", "fail", is_error=True)
    assert fail["isError"] is True, fail
    prompts = {p["name"] for p in inspect("--method", "prompts/list")["prompts"]}
    assert "Greet" in prompts, prompts
    print(
        f"MCP Inspector CLI: tools/list ({len(tools)} tools), tools/call, prompts/list over zot-mcp serve {ext_dir} ok"
    )


if __name__ == "__main__":
    main()
