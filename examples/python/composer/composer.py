"""composer: calling host tools with ``call_tool``.

- ``read_many {paths}`` reads several files through the host's ``read`` tool,
  concurrently; each call is a child of this invocation (``parent_id``), has
  a durable key and a 20 s deadline;
- ``/wc <path>`` counts lines through ``read``, from a command.
"""

from __future__ import annotations

import asyncio
from typing import List, Tuple, TypedDict, Union

from zot_ext import CallResult, CallToolError, Ctx, Extension, Response, ToolOutput

ext = Extension("composer", "0.1.0")

#: Under the host's 30 s command deadline.
CALL_DEADLINE = 20.0


class ReadMany(TypedDict):
    paths: List[str]


@ext.tool("read_many", "Read several files through the host's read tool")
async def read_many(args: ReadMany, ctx: Ctx) -> ToolOutput:
    paths = args["paths"]
    if not paths:
        return ToolOutput.error("no paths")

    async def read(i: int, path: str) -> Tuple[str, Union[CallResult, CallToolError]]:
        try:
            return path, await ctx.call_tool("read", {"path": path}, key=f"read-{i}", timeout=CALL_DEADLINE)
        except CallToolError as e:
            return path, e

    out: List[str] = []
    failed = 0
    for path, result in await asyncio.gather(*(read(i, p) for i, p in enumerate(paths))):
        if isinstance(result, CallToolError):
            failed += 1
            out.append(f"== {path} == not read: {result}")
        elif result.is_error:
            failed += 1
            out.append(f"== {path} == failed: {result.text}")
        else:
            out.append(f"== {path} ==\n{result.text}")
    return ToolOutput.text("\n".join(out)).with_error(failed == len(paths))


@ext.command("wc", "Count the lines of a file")
def wc(path: str, ctx: Ctx) -> Response:
    # A plain function runs in a worker thread: the blocking form works here.
    try:
        r = ctx.call_tool_sync("read", {"path": path}, timeout=CALL_DEADLINE)
    except CallToolError as e:
        return Response.error(f"read not done: {e}")
    if r.is_error:
        return Response.error(f"read failed: {r.text}")
    return Response.display(f"{path}: {len(r.text.splitlines())} lines")


if __name__ == "__main__":
    ext.run()
