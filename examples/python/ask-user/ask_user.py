"""ask-user: an async interactive tool. It opens a panel with choices and
waits for the user (no host deadline in the interactive TUI); it ends when
the user picks a choice, dismisses the panel (Esc -> ``panel_close``), or
the host cancels the call (``tool_cancel``, shutdown, EOF:
``asyncio.CancelledError``), closing its panel in every case."""

from __future__ import annotations

import asyncio
from typing import List, Optional, TypedDict

from zot_ext import Ctx, Extension, PanelKey, ToolOutput

FOOTER = "↑/↓ choose · enter answer · esc dismiss"

ext = Extension("ask-user", "0.1.0")


class AskArgs(TypedDict):
    question: str
    choices: List[str]


def lines(choices: List[str], selected: int) -> List[str]:
    return [f"{'▸ ' if i == selected else '  '}{c}" for i, c in enumerate(choices)]


@ext.tool("ask_user", "Ask the user to choose one answer", interactive=True)
async def ask_user(args: AskArgs, ctx: Ctx) -> ToolOutput:
    choices = args["choices"]
    if not choices:
        return ToolOutput.error("choices must not be empty")
    panel = f"ask-{ctx.id}"  # one panel per invocation
    answer: asyncio.Future[Optional[str]] = asyncio.get_running_loop().create_future()
    selected = 0

    # `async def` panel handlers run on the SDK's loop, like this handler.
    async def on_key(key: PanelKey) -> None:
        nonlocal selected
        if key["key"] == "up":
            selected = max(selected - 1, 0)
        elif key["key"] == "down":
            selected = min(selected + 1, len(choices) - 1)
        elif key["key"] == "enter":
            if not answer.done():
                answer.set_result(choices[selected])
            return
        else:
            return
        ext.render_panel(panel, lines=lines(choices, selected))

    async def on_close() -> None:
        if not answer.done():
            answer.set_result(None)

    ext.on_panel_key(panel, on_key)
    ext.on_panel_close(panel, on_close)
    ext.open_panel(panel, title=args["question"], lines=lines(choices, 0), footer=FOOTER)
    try:
        choice = await answer
    except asyncio.CancelledError:
        # The host gave up: clean up; nothing is sent for a cancelled call.
        ext.close_panel(panel)
        raise
    if choice is None:
        return ToolOutput.error("the user dismissed the question")
    ext.close_panel(panel)
    return ToolOutput.text(f"The user chose: {choice}")


if __name__ == "__main__":
    ext.run()
