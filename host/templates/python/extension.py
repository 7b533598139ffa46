"""{{name}}: a zot extension with a slash command, a typed tool and an event
handler. ``uv run pytest`` drives it in-process; ``zot-host dev .`` restarts it on
every change and gives you a REPL."""

from __future__ import annotations

from typing import Dict, Optional, TypedDict

from zot_ext import Extension, Response, ToolOutput
from zot_ext.protocol import TurnStartEvent


class _GreetRequired(TypedDict):
    name: str


class Greet(_GreetRequired, total=False):
    """The ``{{tool}}`` tool's arguments: its schema comes from this type
    (``name`` required, ``excited`` optional)."""

    excited: bool


def extension(state: Optional[Dict[str, int]] = None) -> Extension:
    """The extension; ``state["turns"]`` counts the turns it saw."""
    counts: Dict[str, int] = state if state is not None else {"turns": 0}
    counts.setdefault("turns", 0)
    ext = Extension("{{name}}", "0.1.0")

    # `/{{command}} Ada` shows a line in the chat.
    @ext.command("{{command}}", "Say hello")
    def hello(args: str) -> Response:
        who = args.strip() or "world"
        return Response.display(f"Hello, {who}! ({counts['turns']} turns so far)")

    # A tool the model can call, with typed arguments.
    @ext.tool("{{tool}}", "Greet someone by name")
    async def greet(args: Greet) -> ToolOutput:
        mark = "!" if args.get("excited", False) else "."
        return ToolOutput.text(f"Hello, {args['name']}{mark}")

    # A lifecycle event: handlers run in arrival order, one at a time.
    @ext.on("turn_start")
    def on_turn(event: TurnStartEvent) -> None:
        counts["turns"] += 1

    return ext


if __name__ == "__main__":
    extension().run()
