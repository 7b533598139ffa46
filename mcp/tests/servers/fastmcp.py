"""Drives `zot-mcp wrap` over a FastMCP server (fastmcp_server.py, the
`mcp` Python package): typed tools, structured output, a raised error,
a prompt as a slash command and a resource.

Usage: fastmcp.py ZOT_MCP PYTHON
"""

import os
import sys

from zothost import ZotHost


def main():
    zot_mcp, python = sys.argv[1], sys.argv[2]
    server = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fastmcp_server.py")
    host = ZotHost(zot_mcp, [python, server])
    tools = {f["name"]: f for f in host.frames if f["type"] == "register_tool"}
    assert set(tools) == {"add_note", "count_words", "fail"}, tools
    assert tools["add_note"]["namespace"] == "py-notes", tools["add_note"]
    assert tools["add_note"]["schema"]["required"] == ["title", "body"], tools["add_note"]
    r = host.call("a", "add_note", {"title": "t", "body": "b"})
    assert r["content"][0]["text"] == "stored t", r
    r = host.call("c", "count_words", {"text": "one two three"})
    assert r["structured_content"] == {"words": 3}, r
    r = host.call("f", "fail", {"reason": "nope"})
    assert r.get("is_error") is True and "nope" in r["content"][0]["text"], r
    r = host.command("p", "py-notes:summarize", "zot")
    assert r["prompt"] == "Summarize zot in one line.", r
    r = host.command("r", "py-notes:resources", "notes://all")
    assert r["insert"] == "t: b", r
    host.shutdown()
    print("a FastMCP server through zot-mcp wrap: tools, structured output, errors, prompt, resource ok")


if __name__ == "__main__":
    main()
