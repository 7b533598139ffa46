"""`zot-mcp serve` driven by the official Python MCP client (the `mcp`
package): tools/list, tools/call (content, structured content, errors) and
prompts over a zot extension, over stdio, or with --http over Streamable
HTTP (where a missing or wrong token must be refused with 401).

Usage: client.py ZOT_MCP EXT_DIR [--http]
"""

import asyncio
import os
import sys
import tempfile

import httpx
from http_server import served
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

from mcp import ClientSession, StdioServerParameters


async def check(session: ClientSession) -> None:
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


async def over_stdio(zot_mcp: str, ext_dir: str, env: dict) -> None:
    params = StdioServerParameters(command=zot_mcp, args=["serve", ext_dir], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await check(session)
    print("python mcp client: tools/list, tools/call, prompts over zot-mcp serve ok")


async def over_http(zot_mcp: str, ext_dir: str, env: dict) -> None:
    with served(zot_mcp, ext_dir, env) as (url, token):
        await refused(url, token)
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            streamablehttp_client(url, headers=headers) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await check(session)
    print(
        "python mcp client: 401 without the token; tools/list, tools/call, prompts over zot-mcp serve --http ok"
    )


async def refused(url: str, token: str) -> None:
    """An initialize request without the token, or with a wrong one: 401."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    accept = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient() as http:
        for auth in [{}, {"Authorization": f"Bearer {token}x"}]:
            r = await http.post(url, json=body, headers={**accept, **auth})
            assert r.status_code == 401, (auth, r.status_code, r.text)
            assert r.headers["www-authenticate"] == "Bearer", r.headers


if __name__ == "__main__":
    env = {**os.environ, "ZOT_HOME": tempfile.mkdtemp(prefix="zot-mcp-serve-")}
    transport = over_http if "--http" in sys.argv[3:] else over_stdio
    asyncio.run(transport(sys.argv[1], sys.argv[2], env))
