"""`zot-mcp serve` driven by the official Python MCP client (the `mcp`
package): tools/list, tools/call (content, structured content, errors) and
prompts over a zot extension.

Usage: client.py ZOT_MCP EXT_DIR
"""

import asyncio
import os
import sys
import tempfile

from mcp.client.stdio import stdio_client

from mcp import ClientSession, StdioServerParameters


async def drive(zot_mcp: str, ext_dir: str) -> None:
    home = tempfile.mkdtemp(prefix="zot-mcp-serve-")
    params = StdioServerParameters(
        command=zot_mcp, args=["serve", ext_dir], env={**os.environ, "ZOT_HOME": home}
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        assert init.serverInfo.name == "conformance", init.serverInfo
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert {"add", "echo", "fail", "image", "sleep"} <= set(tools), sorted(tools)
        assert "ask" not in tools, "interactive tools are not offered"
        assert tools["add"].inputSchema["required"] == ["a", "b"], tools["add"]
        assert tools["add"].outputSchema["properties"]["sum"]["type"] == "integer"

        add = await session.call_tool("add", {"a": 2, "b": 40})
        assert add.structuredContent == {"sum": 42}, add
        assert add.content[0].text == "sum=42" and not add.isError, add
        echo = await session.call_tool("echo", {"text": "héllo"})
        assert echo.content[0].text == "héllo", echo
        fail = await session.call_tool("fail", {})
        assert fail.isError, fail
        image = await session.call_tool("image", {})
        assert [c.type for c in image.content] == ["text", "image"], image
        assert image.content[1].mimeType == "image/png", image

        prompts = {p.name for p in (await session.list_prompts()).prompts}
        assert "Greet" in prompts, prompts
        greet = await session.get_prompt("Greet", {"args": "ada"})
        assert greet.messages[0].role == "user", greet
        assert greet.messages[0].content.text == "Hello, ada", greet
    print("python mcp client: tools/list, tools/call, prompts over zot-mcp serve ok")


if __name__ == "__main__":
    asyncio.run(drive(sys.argv[1], sys.argv[2]))
