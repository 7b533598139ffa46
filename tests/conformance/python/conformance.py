"""The conformance extension (contract: docs/testing/conformance.md),
written with the public API of the Python SDK (zot-ext) only.

``build()`` makes a fresh extension (the tests drive it in-process with
``zot_ext.testing``); running this file serves it over stdin/stdout. It
registers exactly the lines listed in tests/conformance/rust/README.md and
answers exactly like the Rust copy.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections import deque
from typing import TypedDict

from zot_ext import (
    AssistantMessageIntercept,
    BeforeAgentStartIntercept,
    CallToolError,
    Ctx,
    Extension,
    HostInfo,
    LifecycleEvent,
    MessageVerdict,
    PanelKey,
    PromptVerdict,
    Response,
    ToolCallIntercept,
    ToolCallVerdict,
    ToolOutput,
    TurnStartIntercept,
    TurnVerdict,
)
from zot_ext.protocol import LIFECYCLE_EVENTS, LifecycleEventName

#: The 1x1 PNG of the contract.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

#: Each lifecycle event name's place in LIFECYCLE_EVENTS (see `EventLog`).
PLACE = {name: place for place, name in enumerate(LIFECYCLE_EVENTS)}

#: How many event names `events` lists at most (a reply near 320 KB with the
#: longest name).
EVENTS_KEPT = 10_000

#: The panel of the `panel` command.
PANEL = "conf-panel"

#: `callecho` gives up before the host's 30 s command deadline.
CALLECHO_TIMEOUT = 20.0

#: `{"type":"object"}`.
OBJECT = {"type": "object"}


#: Every input is bounded by the schema, which the engine checks before a
#: handler runs (the same answer in every language): `ms` within what a Node
#: timer can wait (2^31 - 1 ms), `bytes` within 4 MiB (no reply carries more: a
#: frame is at most 4 MiB), every field required.
SLEEP_SCHEMA = {
    "type": "object",
    "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 2147483647}},
    "required": ["ms"],
}
COMPOSE_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
BIG_SCHEMA = {
    "type": "object",
    "properties": {"bytes": {"type": "integer", "minimum": 0, "maximum": 4194304}},
    "required": ["bytes"],
}

#: `add`'s answer when the sum leaves the exact integer range.
SUM_OUT_OF_RANGE = "sum out of range: a + b is beyond ±9007199254740991"
MAX_EXACT_INTEGER = 2**53 - 1


class GuardError(Exception):
    """What the ``tool_call`` interceptor raises on ``crash``: the verdict
    names the class."""


def one(name: str, ty: str) -> dict[str, object]:
    """An object schema with one property of the given JSON type."""
    return {"type": "object", "properties": {name: {"type": ty}}}


class AddArgs(TypedDict):
    a: int
    b: int


class SleepArgs(TypedDict):
    ms: int


class TextArgs(TypedDict):
    text: str


class BigArgs(TypedDict):
    bytes: int


class EventLog:
    """The record behind `events`: how many events arrived, and the names of
    the last EVENTS_KEPT in arrival order, as their places in
    LIFECYCLE_EVENTS (the only events subscribed to). A long session sends
    millions of events (the soak of bench/README.md); listing them all would
    outgrow both memory and the 4 MiB frame."""

    def __init__(self) -> None:
        self.count = 0
        self.last: deque[int] = deque(maxlen=EVENTS_KEPT)

    def push(self, name: LifecycleEventName) -> None:
        self.last.append(PLACE[name])
        self.count += 1

    def display(self) -> str:
        """``{"count":<all events>,"last":[<names>]}``, compact."""
        names = json.dumps([LIFECYCLE_EVENTS[place] for place in self.last], separators=(",", ":"))
        return f'{{"count":{self.count},"last":{names}}}'


def build() -> Extension:
    """The conformance extension (a fresh one per call)."""
    ext = Extension("conformance", "1.0.0")
    received = EventLog()

    # Commands, in the contract's order. Plain functions run in a worker
    # thread; `async def` ones on the SDK's event loop.

    @ext.command("echo", "Display the arguments")
    def echo(args: str) -> Response:
        return Response.display(args)

    @ext.command("Greet", "Prompt with a greeting")
    def greet(args: str) -> Response:
        return Response.prompt(f"Hello, {args}")

    @ext.command("insert", "Insert the arguments into the editor")
    def insert(args: str) -> Response:
        return Response.insert(args)

    @ext.command("panel", "Open a counter panel")
    def panel(args: str, ctx: Ctx) -> Response:
        n = 0

        def on_key(key: PanelKey) -> None:
            nonlocal n
            if key["key"] == "up":
                n += 1
            elif key["key"] == "down":
                n -= 1
            elif key["key"] == "rune" and key.get("text") == "q":
                ext.close_panel(PANEL)
                return
            else:
                return
            ext.render_panel(PANEL, lines=[str(n)])

        ext.on_panel_key(PANEL, on_key)
        return Response.open_panel(PANEL, title="Counter", lines=["0"], footer="up/down - q quits")

    @ext.command("note", "Send the arguments as a note")
    def note(args: str, ctx: Ctx) -> Response:
        ctx.notify(args, "info")
        return Response.noop()

    @ext.command("clear", "Clear this extension's notes")
    def clear(args: str) -> Response:
        ext.clear_notes()
        return Response.noop()

    @ext.command("submit", "Submit the arguments as a prompt")
    def submit(args: str) -> Response:
        ext.submit(args)
        return Response.noop()

    @ext.command("commit", "Run echo through tool_prompt")
    def commit(args: str) -> Response:
        return Response.tool_prompt("echo", {"text": args}, "and push")

    @ext.command("oops", "Fail with an error")
    def oops(args: str) -> Response:
        return Response.error(f"command failed: {args}")

    @ext.command("events", "Show the events received so far")
    async def show_events(args: str) -> Response:
        return Response.display(received.display())

    @ext.command("callecho", "Call the host tool echo")
    async def callecho(args: str, ctx: Ctx) -> Response:
        try:
            r = await ctx.call_tool("echo", {"text": args}, timeout=CALLECHO_TIMEOUT)
        except CallToolError as e:
            return Response.display(f"call failed:{e}")
        if r.is_error:
            return Response.display(f"call failed:{r.text}")
        return Response.display(f"called:{r.text}")

    # Tools, in the contract's order. Schemas are literals, kept byte for
    # byte; the annotated argument types still check and convert the args.

    @ext.tool(
        "echo",
        "Echo the text",
        schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )
    def echo_tool(args: dict[str, object]) -> ToolOutput:
        text = args.get("text")
        if not isinstance(text, str):
            return ToolOutput.error("missing text")
        return ToolOutput.text(text)

    @ext.tool(
        "add",
        "Add two integers",
        schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
        output_schema=one("sum", "integer"),
        namespace="math",
        namespace_description="Arithmetic",
        namespace_instructions="Integers only",
        exposure="codemode",
    )
    def add(args: AddArgs) -> ToolOutput:
        # The engine bounds a and b to ±(2^53 - 1); the sum must fit there
        # too, or a Node copy could not give it exactly.
        total = args["a"] + args["b"]
        if abs(total) > MAX_EXACT_INTEGER:
            return ToolOutput.error(SUM_OUT_OF_RANGE)
        return ToolOutput.text(f"sum={total}").with_structured({"sum": total})

    @ext.tool("fail", "Always fail", schema=OBJECT)
    def fail(args: dict[str, object]) -> ToolOutput:
        raise RuntimeError("boom")

    @ext.tool("sleep", "Sleep for ms milliseconds", schema=SLEEP_SCHEMA)
    async def sleep(args: SleepArgs, ctx: Ctx) -> ToolOutput:
        ms = args["ms"]
        try:
            await asyncio.sleep(ms / 1000)
        except asyncio.CancelledError:
            ctx.notify(f"cancelled {ms}", "warn")
            raise  # nothing is sent for a cancelled call
        return ToolOutput.text(f"slept {ms}")

    @ext.tool("ask", "Wait for the user until cancelled", schema=OBJECT, interactive=True)
    async def ask(args: dict[str, object], ctx: Ctx) -> ToolOutput:
        try:
            await asyncio.get_running_loop().create_future()  # until cancelled
        except asyncio.CancelledError:
            ctx.notify("ask cancelled", "warn")
            raise
        return ToolOutput.text("unreachable")

    @ext.tool("compose", "Call echo through call_tool", schema=COMPOSE_SCHEMA)
    async def compose(args: TextArgs, ctx: Ctx) -> ToolOutput:
        try:
            r = await ctx.call_tool("echo", {"text": f"inner:{args['text']}"})
        except CallToolError as e:
            return ToolOutput.error(str(e))
        if r.is_error:
            return ToolOutput.error(r.text)
        return ToolOutput.text(f"composed:{r.text}")

    @ext.tool("lazy", "A deferred tool", schema=OBJECT, deferred=True)
    def lazy(args: dict[str, object]) -> ToolOutput:
        return ToolOutput.text("lazy ok")

    @ext.tool("loader", "Activate the lazy tool", schema=OBJECT)
    def loader(args: dict[str, object]) -> ToolOutput:
        return ToolOutput.text("loaded").activate("lazy")

    @ext.tool("image", "Return a 1x1 PNG", schema=OBJECT)
    def image(args: dict[str, object]) -> ToolOutput:
        return ToolOutput.text("image").with_image_bytes("image/png", PNG)

    @ext.tool("big", "Return bytes times x", schema=BIG_SCHEMA)
    def big(args: BigArgs) -> ToolOutput:
        return ToolOutput.text("x" * args["bytes"])

    # All fourteen lifecycle events, in the spec's order (recorded on the
    # loop, so `events` sees every event that arrived before it).
    async def record(event: LifecycleEvent) -> None:
        received.push(event["event"])

    for name in LIFECYCLE_EVENTS:
        ext.on(name, record)

    @ext.intercept_tool_call
    def guard(call: ToolCallIntercept) -> ToolCallVerdict:
        if call.get("tool_name") != "bash":
            return ToolCallVerdict.allow()
        command = call.get("tool_args", {}).get("command")
        command = command if isinstance(command, str) else ""
        if "rm -rf" in command:
            return ToolCallVerdict.block("refused: rm -rf")
        if command == "ls":
            return ToolCallVerdict.modify({"command": "echo GUARDED: ls"})
        if command == "crash":
            raise GuardError("oops")
        return ToolCallVerdict.allow()

    @ext.intercept_turn_start
    def turn(req: TurnStartIntercept) -> TurnVerdict:
        if req.get("step", 0) >= 99:
            return TurnVerdict.block("step limit")
        return TurnVerdict.allow()

    @ext.intercept_assistant_message
    def message(msg: AssistantMessageIntercept) -> MessageVerdict:
        text = msg.get("text", "")
        if text == "BLOCKME":
            return MessageVerdict.block("blocked")
        if "SECRET" in text:
            return MessageVerdict.replace(text.replace("SECRET", "[redacted]"))
        return MessageVerdict.allow()

    @ext.intercept_before_agent_start
    def prompt(req: BeforeAgentStartIntercept) -> PromptVerdict:
        current = req.get("system_prompt", "")
        if "KEEP" in current:
            return PromptVerdict.keep()
        if "REMOVE" in current:
            return PromptVerdict.remove()
        return PromptVerdict.replace(f"{current}\n[conformance]")

    @ext.on_hello
    def hello(host: HostInfo) -> None:
        cwd, data_dir = host.cwd, host.data_dir
        ext.command("cwd", "Show hello_ack.cwd", lambda args: Response.display(cwd))
        ext.command("datadir", "Show hello_ack.data_dir", lambda args: Response.display(data_dir))

    return ext


def main() -> None:
    ext = build()
    ext.log("conformance started")
    ext.run()


if __name__ == "__main__":
    main()
