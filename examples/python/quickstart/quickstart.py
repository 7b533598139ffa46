from typing import TypedDict

from zot_ext import Ctx, Extension, Response, ToolOutput

ext = Extension("hello", "1.0.0")


@ext.command("hi", "Say hi")
def hi(args: str) -> Response:
    return Response.display(f"hi {args}")


class Greet(TypedDict):
    name: str


@ext.tool("greet", "Greet someone")
async def greet(args: Greet, ctx: Ctx) -> ToolOutput:
    return ToolOutput.text(f"Hello, {args['name']}!")


ext.run()
