"""todo: tools and a panel over one piece of state, persisted as JSON in the
extension's ``data_dir`` (from ``hello_ack``).

- tools ``todo_add``, ``todo_list`` (with structured content), ``todo_done``;
- ``/todo`` opens a panel: up/down move, enter toggles, ``d`` deletes, ``q``
  closes. Keys arrive in order, one at a time.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import List, Optional, TypedDict

from zot_ext import Ctx, Extension, HostInfo, PanelKey, Response, ToolOutput

FOOTER = "↑/↓ move · enter toggle · d delete · q close"


class Item(TypedDict):
    text: str
    done: bool


class AddArgs(TypedDict):
    text: str


class DoneArgs(TypedDict):
    index: int


class NoArgs(TypedDict):
    pass


LIST_SCHEMA = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"text": {"type": "string"}, "done": {"type": "boolean"}},
            },
        }
    },
}


class Todo:
    """The list and where it is saved. Handlers run in worker threads, so
    every access holds the lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.path: Optional[Path] = None
        self.items: List[Item] = []

    def load(self, data_dir: str) -> None:
        with self.lock:
            self.path = Path(data_dir) / "todos.json"
            try:
                self.items = json.loads(self.path.read_text("utf-8"))
            except (OSError, ValueError):
                self.items = []

    def save(self) -> None:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(self.items, indent=2), "utf-8")

    def lines(self, selected: int) -> List[str]:
        if not self.items:
            return ["(nothing to do)"]
        return [
            f"{'▸ ' if i == selected else '  '}[{'x' if it['done'] else ' '}] {it['text']}"
            for i, it in enumerate(self.items)
        ]


def build() -> Extension:
    ext = Extension("todo", "0.1.0")
    todo = Todo()

    @ext.on_hello
    def load(host: HostInfo) -> None:
        todo.load(host.data_dir)

    @ext.tool("todo_add", "Add an item to the todo list")
    def add(args: AddArgs) -> str:
        with todo.lock:
            todo.items.append({"text": args["text"], "done": False})
            todo.save()
            return f"added #{len(todo.items)}: {args['text']}"

    @ext.tool("todo_list", "List the todo items", output_schema=LIST_SCHEMA)
    def list_(args: NoArgs) -> ToolOutput:
        with todo.lock:
            items = [dict(it) for it in todo.items]
            text = "\n".join(todo.lines(-1))
        return ToolOutput.text(text).with_structured({"items": items})

    @ext.tool("todo_done", "Mark an item (1-based) as done")
    def done(args: DoneArgs) -> ToolOutput:
        with todo.lock:
            i = args["index"] - 1
            if not 0 <= i < len(todo.items):
                return ToolOutput.error(f"no item #{args['index']}")
            todo.items[i]["done"] = True
            todo.save()
            return ToolOutput.text(f"done: {todo.items[i]['text']}")

    @ext.command("todo", "Open the todo list")
    def open_list(args: str, ctx: Ctx) -> Response:
        panel = f"todo-{ctx.id}"  # a unique id per panel instance
        selected = 0

        def on_key(key: PanelKey) -> None:
            nonlocal selected
            with todo.lock:
                n = len(todo.items)
                name, text = key["key"], key.get("text", "")
                if name == "up":
                    selected = max(selected - 1, 0)
                elif name == "down":
                    selected = min(selected + 1, max(n - 1, 0))
                elif name == "enter" and selected < n:
                    todo.items[selected]["done"] = not todo.items[selected]["done"]
                elif name == "rune" and text == "d" and selected < n:
                    del todo.items[selected]
                    selected = min(selected, max(len(todo.items) - 1, 0))
                elif name == "rune" and text == "q":
                    ext.close_panel(panel)
                    return
                else:
                    return
                try:
                    todo.save()
                except OSError as e:
                    ext.log(f"cannot save: {e}")
                lines = todo.lines(selected)
            ext.render_panel(panel, lines=lines, footer=FOOTER)

        ext.on_panel_key(panel, on_key)
        with todo.lock:
            lines = todo.lines(0)
        return Response.open_panel(panel, title="Todo", lines=lines, footer=FOOTER)

    return ext


if __name__ == "__main__":
    build().run()
