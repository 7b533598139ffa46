"""Drives `zot-mcp wrap` over @modelcontextprotocol/server-filesystem on a
temporary directory: a file written, read back, listed, and a path outside
the directory refused (an MCP tool error → a zot error result).

Usage: filesystem.py ZOT_MCP SERVER_JS
"""

import os
import sys
import tempfile

from zothost import ZotHost


def main():
    zot_mcp, server = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        host = ZotHost(zot_mcp, ["node", server, root], name="fs")
        tools = host.registered("tool")
        for want in ["write_file", "read_text_file", "list_directory"]:
            assert want in tools, tools
        path = os.path.join(root, "note.txt")
        r = host.call("w", "write_file", {"path": path, "content": "written through zot"})
        assert not r.get("is_error"), r
        assert r["structured_content"]["content"].startswith("Successfully wrote"), r
        with open(path) as f:
            assert f.read() == "written through zot"
        r = host.call("r", "read_text_file", {"path": path})
        assert r["content"][0]["text"] == "written through zot", r
        r = host.call("l", "list_directory", {"path": root})
        assert "[FILE] note.txt" in r["content"][0]["text"], r
        r = host.call("x", "read_text_file", {"path": "/etc/hostname"})
        assert r.get("is_error") is True, r
        host.shutdown()
    print(f"server-filesystem through zot-mcp wrap: {len(tools)} tools; write, read, list, a refused path ok")


if __name__ == "__main__":
    main()
