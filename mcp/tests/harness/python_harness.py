"""`zot-mcp wrap` over the official MCP test server
(@modelcontextprotocol/server-everything), driven through the Python SDK's
testing harness (`zot_ext.testing.TestHost.spawn`): the registered tools,
echo, a structured-content tool, a clean exit.

Usage: python python_harness.py ZOT_MCP SERVER_JS (with zot_ext installed)
"""

import sys

from zot_ext.testing import TestHost


def main() -> None:
    zot_mcp, server = sys.argv[1], sys.argv[2]
    with TestHost.spawn(zot_mcp, ["wrap", "--", "node", server, "stdio"], timeout=60) as host:
        tools = [t["name"] for t in host.registration.tools]
        for want in ["echo", "get-sum", "get-structured-content"]:
            assert want in tools, tools
        assert host.tool("echo", {"message": "hi"})["content"] == [{"type": "text", "text": "Echo: hi"}]
        weather = host.tool("get-structured-content", {"location": "New York"})
        assert not weather.get("is_error"), weather
        assert isinstance(weather["structured_content"]["temperature"], (int, float)), weather
        assert host.shutdown()[-1]["type"] == "shutdown_ack"
    # Leaving the block waited for a clean exit (code 0).
    print(f"Python TestHost.spawn: {len(tools)} tools registered, echo and structured content checked")


if __name__ == "__main__":
    main()
