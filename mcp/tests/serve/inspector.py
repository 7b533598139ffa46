"""`zot-mcp serve` driven by the official MCP Inspector's CLI mode
(@modelcontextprotocol/inspector --cli): tools/list, tools/call (content,
structured content, an error) and prompts/list over a zot extension, over
stdio, or with --http over Streamable HTTP (where a wrong token must be
refused with 401).

Usage: inspector.py MCP_INSPECTOR ZOT_MCP EXT_DIR [--http]
"""

import json
import os
import subprocess
import sys
import tempfile

from http_server import served


def run(inspector, target, env, *args, is_error=False):
    """The result the inspector prints for `target`; with is_error, a tool
    error result (for which the inspector exits non-zero, saying so)."""
    cmd = [inspector, "--cli", *target, *args]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    if (out.returncode != 0) != is_error:
        sys.exit(f"{' '.join(cmd)} exited {out.returncode}:\n{out.stdout}{out.stderr}")
    return json.JSONDecoder().raw_decode(out.stdout)[0]


def check(inspect):
    """The checks, through `inspect(*args, is_error=False)`; how many tools."""
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
    return len(tools)


def main():
    inspector, zot_mcp, ext_dir = sys.argv[1:4]
    # The inspector keeps state under HOME, the host its logs under ZOT_HOME.
    home = tempfile.mkdtemp(prefix="zot-mcp-inspector-")
    env = {**os.environ, "HOME": home, "ZOT_HOME": home}
    if "--http" not in sys.argv[4:]:
        n = check(lambda *a, **kw: run(inspector, [zot_mcp, "serve", ext_dir], env, *a, **kw))
        print(
            f"MCP Inspector CLI: tools/list ({n} tools), tools/call, prompts/list over zot-mcp serve {ext_dir} ok"
        )
        return
    with served(zot_mcp, ext_dir, env) as (url, token):
        # A 401 makes the inspector look for OAuth; --stored-auth-only makes
        # it report the refusal instead of asking for a browser login.
        wrong = [url, "--transport", "http", "--header", f"Authorization: Bearer {token}x"]
        cmd = [inspector, "--cli", *wrong, "--method", "tools/list", "--stored-auth-only"]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
        said = out.stdout + out.stderr
        assert out.returncode != 0 and "refused: wrong bearer token" in said, (out.returncode, said)
        target = [url, "--transport", "http", "--header", f"Authorization: Bearer {token}"]
        n = check(lambda *a, **kw: run(inspector, target, env, *a, **kw))
    print(
        f"MCP Inspector CLI: a wrong token refused; tools/list ({n} tools), tools/call, "
        f"prompts/list over zot-mcp serve --http {ext_dir} ok"
    )


if __name__ == "__main__":
    main()
