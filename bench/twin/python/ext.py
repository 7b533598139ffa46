"""The raw Python script's extension (bench/raw/python) written with the
Python SDK: the same tools, the same subscriptions, handlers that do the
same work (plain ``def``, as a script's would be). The benchmarks compare it
with the raw script where the conformance extension, which registers and
loads much more (``asyncio`` for its ``async def`` handlers), would not
compare like with like (the start-up row)."""

from zot_ext import Extension

ext = Extension("python-twin", "1.0.0")


@ext.tool("echo", "echo text")
def echo(text: str) -> str:
    return text


@ext.tool("big", "n bytes of x")
def big(bytes: int = 0) -> str:
    return "x" * bytes


@ext.on("tool_call")
def on_tool_call() -> None:
    pass


@ext.on("tool_result")
def on_tool_result() -> None:
    pass


if __name__ == "__main__":
    ext.run()
