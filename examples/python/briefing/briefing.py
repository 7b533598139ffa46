"""briefing: a tool that composes another extension's tool.

``briefing {cities}`` asks the host to run ``forecast`` (the weather tool,
whichever extension provides it: in the demo it is the Rust one) for each
city through ``call_tool``, and writes a one-line briefing per city. Each call
is a child of this invocation, so the host checks the chain (no cycles, at
most four calls deep) and cancelling the briefing cancels the forecasts.
"""

from __future__ import annotations

import asyncio
from typing import List, TypedDict

from zot_ext import CallToolError, Ctx, Extension, ToolOutput

ext = Extension("briefing", "0.1.0")


class BriefingArgs(TypedDict):
    cities: List[str]


async def one_city(ctx: Ctx, city: str) -> str:
    try:
        result = await ctx.call_tool("forecast", {"city": city, "days": 1}, timeout=20.0)
    except CallToolError as e:
        return f"{city}: no forecast ({e})"
    if result.is_error:
        return f"{city}: no forecast ({result.text})"
    # The forecast's first line is the city, the second the day.
    lines = result.text.splitlines()
    return f"{city}: {lines[1].strip() if len(lines) > 1 else result.text}"


@ext.tool("briefing", "A one-line weather briefing for several cities")
async def briefing(args: BriefingArgs, ctx: Ctx) -> ToolOutput:
    if not args["cities"]:
        return ToolOutput.error("name at least one city")
    lines = await asyncio.gather(*(one_city(ctx, c) for c in args["cities"]))
    return ToolOutput.text("\n".join(lines))


if __name__ == "__main__":
    ext.run()
