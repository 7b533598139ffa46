"""The public API of zot_ext, driven in-process through zot_ext.testing."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import os
import pickle
import sys
import threading
from typing import Any, Callable, Dict, List, Optional, TypedDict

import pytest
import zot_ext
from zot_ext import (
    CallToolError,
    Ctx,
    Extension,
    HostInfo,
    MessageVerdict,
    PromptVerdict,
    Response,
    ToolCallVerdict,
    ToolOutput,
    ToolResultEvent,
    TurnVerdict,
    ZotError,
)
from zot_ext.testing import AsyncTestHost, TestHost, default_hello_ack


def text_of(result: Any) -> str:
    return str(result["content"][0]["text"])


def test_the_installed_package_is_tested() -> None:
    # scripts/test.d/40-python.sh sets this: the suites must import the
    # wheel installed in the fresh venv, not the source tree.
    if os.environ.get("ZOT_EXT_EXPECT_INSTALLED") == "1":
        assert "site-packages" in (zot_ext.__file__ or "")
        assert "site-packages" in (zot_ext._native.__file__ or "")
    assert zot_ext.__version__ == "0.1.0"


# -- sync and async handlers ------------------------------------------------


def make_basic() -> Extension:
    ext = Extension("basic", "1.2.3")

    @ext.command("sync", "A plain def command")
    def sync_cmd(args: str, ctx: Ctx) -> Response:
        return Response.display(f"sync:{args}:{threading.current_thread().name}")

    @ext.command("async", "An async command")
    async def async_cmd(args: str, ctx: Ctx) -> str:
        await asyncio.sleep(0)
        return f"async:{args}"

    @ext.command("inline", "A thread=False command", thread=False)
    def inline_cmd(args: str) -> str:
        return threading.current_thread().name

    @ext.command("none", "Returns None")
    def none_cmd() -> None:
        return None

    @ext.tool("stool", "A sync tool")
    def stool(args: Dict[str, Any], ctx: Ctx) -> str:
        return f"stool {args} {ctx.id}"

    @ext.tool("atool", "An async tool")
    async def atool(args: Dict[str, Any], ctx: Ctx) -> ToolOutput:
        return ToolOutput.text("a").with_text("b").with_structured({"n": 1}).activate("x", "y")

    @ext.tool("dict", "Returns a dict")
    def dict_tool(args: Dict[str, Any]) -> Dict[str, Any]:
        return {"k": [1, 2]}

    @ext.tool("nothing", "Returns None")
    def nothing(args: Dict[str, Any]) -> None:
        return None

    return ext


def test_sync_and_async_handlers(no_leftover_threads: None) -> None:
    with TestHost(make_basic()) as host:
        r = host.command("sync", "x")
        assert r["action"] == "display"
        assert r["display"].startswith("sync:x:zot-ext command /sync")
        assert host.command("async", "y")["display"] == "async:y"
        assert host.command("inline")["display"] == "zot-ext test basic"
        assert host.command("none") == {"type": "command_response", "id": "cmd-4", "action": "noop"}
        r2 = host.tool("stool", {"a": 1})
        assert text_of(r2) == f"stool {{'a': 1}} {r2['id']}"
        assert host.tool("atool") == {
            "type": "tool_result",
            "id": "tool-6",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "activate_tools": ["x", "y"],
            "structured_content": {"n": 1},
        }
        assert host.tool("dict")["content"] == [{"type": "text", "text": '{"k":[1,2]}'}]
        assert host.tool("dict")["structured_content"] == {"k": [1, 2]}
        assert host.tool("nothing")["content"] == []
        # Unknown names are answered by the engine.
        assert host.command("nope")["error"] == "no handler for /nope"
        r3 = host.tool("nope")
        assert r3["is_error"] and text_of(r3) == 'no handler for tool "nope"'


async def test_async_harness(no_leftover_threads: None) -> None:
    async with AsyncTestHost(make_basic()) as host:
        assert host.registration.hello["name"] == "basic"
        assert host.registration.hello["version"] == "1.2.3"
        assert (await host.command("async", "z"))["display"] == "async:z"
        assert text_of(await host.tool("stool", {})).startswith("stool {}")
        frames = await host.shutdown()
        assert frames == [{"type": "shutdown_ack"}]


def test_registration_follows_the_rules() -> None:
    ext = Extension("reg")
    ext.command("b", "B", lambda: None)
    ext.command("a", "A", lambda: None)
    with pytest.raises(zot_ext.RegistrationError):
        ext.command("B", "B again", lambda: None)  # /b is registered
    ext.tool("t", "T", lambda args: None, exposure="direct", deferred=True)
    ext.on("turn_end", lambda ev: None)
    ext.on("session_start", lambda ev: None)
    ext.on("turn_end", lambda ev: None)  # replaced, not moved (SDK-9)
    ext.intercept_assistant_message(lambda m: None)
    ext.intercept_tool_call(lambda c: None)
    with TestHost(ext) as host:
        reg = host.registration
        assert [(c["name"], c.get("description")) for c in reg.commands] == [
            ("b", "B"),
            ("a", "A"),
        ]
        assert reg.tools == [
            {
                "type": "register_tool",
                "name": "t",
                "description": "T",
                "schema": {"type": "object"},
                "exposure": "direct",
                "deferred": True,
            }
        ]
        assert reg.events == ["turn_end", "session_start"]
        assert reg.intercepts == ["tool_call", "assistant_message"]
        assert reg.subscribe_frames == 1
        assert host.command("b")["action"] == "noop"


# -- exceptions ---------------------------------------------------------------


def make_failing() -> Extension:
    ext = Extension("failing")

    @ext.command("boom")
    def boom(args: str) -> Response:
        raise ValueError("bad command")

    @ext.command("aboom")
    async def aboom(args: str) -> Response:
        raise KeyError("k")

    @ext.tool("boom")
    def tboom(args: Dict[str, Any]) -> str:
        raise RuntimeError("bad tool")

    @ext.tool("aboom")
    async def taboom(args: Dict[str, Any]) -> str:
        raise RuntimeError()

    @ext.tool("badret")
    def badret(args: Dict[str, Any]) -> Any:
        return 42

    @ext.intercept_tool_call
    def guard(call: Any) -> ToolCallVerdict:
        raise RuntimeError("guard broke")

    @ext.intercept_before_agent_start
    async def prompt(req: Any) -> str:
        raise RuntimeError("prompt broke")

    @ext.intercept_turn_start
    def turn(req: Dict[str, Any]) -> TurnVerdict:
        return TurnVerdict.block(req["oops"])

    @ext.on("turn_start")
    def on_turn(ev: Any) -> None:
        raise RuntimeError("event broke")

    @ext.command("alive")
    def alive() -> str:
        return "yes"

    return ext


def test_exceptions_become_error_results(caplog: pytest.LogCaptureFixture) -> None:
    with TestHost(make_failing()) as host:
        r = host.command("boom")
        assert (r["action"], r["error"]) == ("noop", "bad command")
        assert host.command("aboom")["error"] == "'k'"
        t = host.tool("boom")
        assert t["is_error"] and text_of(t) == "bad tool"
        t = host.tool("aboom")
        assert t["is_error"] and text_of(t) == "RuntimeError"
        t = host.tool("badret")
        assert t["is_error"] and "returned int" in text_of(t)
        # A failing guard blocks (SDK-45); a failing prompt hook keeps it.
        r1 = host.intercept({"event": "tool_call", "tool_name": "bash", "tool_args": {}})
        # The reason names the interceptor, the extension and the exception.
        assert r1.get("block") is True
        assert (
            r1.get("reason")
            == 'blocked: tool_call interceptor of "failing" failed: RuntimeError: guard broke'
        )
        r2 = host.intercept({"event": "before_agent_start", "system_prompt": "x"})
        assert "system_prompt" not in r2
        assert (
            r2.get("reason")
            == 'prompt kept: before_agent_start interceptor of "failing" failed: RuntimeError: prompt broke'
        )
        r3 = host.intercept({"event": "turn_start", "step": 1})
        assert r3.get("reason") == "blocked: turn_start interceptor of \"failing\" failed: KeyError: 'oops'"
        # A failing event handler is logged; the extension lives on (SDK-36).
        host.event({"event": "turn_start", "step": 1})
        assert host.command("alive")["display"] == "yes"
    assert "tool boom failed: bad tool" in caplog.text
    assert "event turn_start handler failed: event broke" in caplog.text


# -- cancellation ---------------------------------------------------------------


class Probe:
    """Records what handlers saw, for the test thread."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.sync_started = threading.Event()
        self.async_started = threading.Event()
        self.done = threading.Event()
        self.seen: List[str] = []


def make_cancellable(probe: Probe) -> Extension:
    ext = Extension("cancel")

    @ext.tool("sync_wait")
    def sync_wait(args: Dict[str, Any], ctx: Ctx) -> str:
        probe.started.set()
        probe.sync_started.set()
        cancelled = ctx.cancelled.wait(10)
        probe.seen.append(f"sync cancelled={cancelled}")
        probe.done.set()
        return "finished anyway"  # dropped by the engine (SDK-23)

    @ext.tool("async_wait")
    async def async_wait(args: Dict[str, Any], ctx: Ctx) -> str:
        probe.started.set()
        probe.async_started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            probe.seen.append(f"async CancelledError flag={ctx.is_cancelled()}")
            ctx.notify("cleanup", "warn")
            raise
        finally:
            probe.done.set()
        return "never"

    @ext.tool("async_ignores")
    async def async_ignores(args: Dict[str, Any], ctx: Ctx) -> str:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            return "swallowed"  # still dropped: the call was cancelled
        return "never"

    # On the loop (not a worker thread): it runs after the jobs the loop
    # took before it, such as a cancel.
    @ext.command("ping")
    async def ping() -> str:
        return "pong"

    return ext


def test_a_cancel_before_the_handler_looks_is_set_when_it_does(no_leftover_threads: None) -> None:
    # `ctx.cancelled` is made on first use (see the next test): a cancel
    # that came before is already set on it.
    started, release, done = threading.Event(), threading.Event(), threading.Event()
    seen: List[Any] = []
    ext = Extension("late-look")

    @ext.tool("late")
    def late(args: Dict[str, Any], ctx: Ctx) -> str:
        started.set()
        release.wait(10)
        seen.append((ctx.is_cancelled(), ctx.cancelled.is_set(), ctx.cancelled.wait(0)))
        done.set()
        return "dropped"

    # On the loop (not a worker thread): it runs after the jobs the loop
    # took before it, such as a cancel.
    @ext.command("ping")
    async def ping() -> str:
        return "pong"

    with TestHost(ext) as host:
        tid = host.start_tool("late")
        assert started.wait(5)
        host.cancel_tool(tid)
        # The loop handles its jobs in order: once `ping` is answered, so is
        # the cancel.
        assert host.command("ping")["display"] == "pong"
        release.set()
        assert done.wait(5)
    assert seen == [(True, True, True)]


def test_a_call_makes_a_threading_event_only_if_its_handler_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One costs about 2 µs, much of a small call (bench/README.md).
    made_by: List[str] = []

    class Counted(threading.Event):
        def __init__(self) -> None:
            made_by.append(sys._getframe(1).f_globals.get("__name__", ""))
            super().__init__()

    ext = Extension("events")

    @ext.tool("quiet")
    def quiet(args: Dict[str, Any], ctx: Ctx) -> str:
        return "ok" if not ctx.is_cancelled() else "cancelled"

    @ext.tool("looks")
    def looks(args: Dict[str, Any], ctx: Ctx) -> str:
        return "ok" if not ctx.cancelled.is_set() else "cancelled"

    with TestHost(ext) as host:
        monkeypatch.setattr(threading, "Event", Counted)
        for _ in range(5):
            assert host.tool("quiet")["content"][0]["text"] == "ok"
        quiet_made = [m for m in made_by if m.startswith("zot_ext")]
        assert host.tool("looks")["content"][0]["text"] == "ok"
        looks_made = [m for m in made_by if m.startswith("zot_ext")][len(quiet_made) :]
        monkeypatch.undo()
    assert quiet_made == []
    assert looks_made == ["zot_ext._context"]


def test_cancel_a_sync_handler(no_leftover_threads: None) -> None:
    probe = Probe()
    with TestHost(make_cancellable(probe)) as host:
        tid = host.start_tool("sync_wait")
        assert probe.started.wait(5)
        host.cancel_tool(tid)
        assert probe.done.wait(5)
        assert probe.seen == ["sync cancelled=True"]
        # Nothing was sent for the cancelled call (SDK-23).
        assert host.command("ping")["display"] == "pong"
        assert not any(f'"id":"{tid}"' in line for line in host.transcript()[1:] if "tool_result" in line)


def test_cancel_an_async_handler(no_leftover_threads: None) -> None:
    probe = Probe()
    with TestHost(make_cancellable(probe)) as host:
        tid = host.start_tool("async_wait")
        assert probe.started.wait(5)
        host.cancel_tool(tid)
        assert host.next_frame() == {"type": "notify", "level": "warn", "message": "cleanup"}
        assert probe.seen == ["async CancelledError flag=True"]
        tid2 = host.start_tool("async_ignores")
        host.cancel_tool(tid2)
        assert host.command("ping")["display"] == "pong"
        lines = host.transcript()
        assert not any("tool_result" in line for line in lines)


def test_cancel_before_start_in_both_kinds_of_handler(no_leftover_threads: None) -> None:
    probe = Probe()
    with TestHost(make_cancellable(probe)) as host:
        # tool_call and tool_cancel in one write: the engine records the
        # cancellation before any handler runs (§8); the handler still
        # starts and sees it at once.
        host.send_json(
            '{"type":"tool_call","id":"early-a","name":"async_wait","args":{}}\n'
            '{"type":"tool_cancel","id":"early-a"}'
        )
        assert host.next_frame() == {"type": "notify", "level": "warn", "message": "cleanup"}
        assert probe.seen == ["async CancelledError flag=True"]
        assert probe.done.wait(5)  # the async handler's `finally` ran
        probe.done.clear()
        host.send_json(
            '{"type":"tool_call","id":"early-s","name":"sync_wait","args":{}}\n'
            '{"type":"tool_cancel","id":"early-s"}'
        )
        assert probe.done.wait(5)
        assert probe.seen[-1] == "sync cancelled=True"
        assert host.command("ping")["display"] == "pong"
        assert not any("tool_result" in line for line in host.transcript())


def test_shutdown_cancels_running_handlers(no_leftover_threads: None) -> None:
    probe = Probe()
    with TestHost(make_cancellable(probe)) as host:
        host.start_tool("async_wait")
        host.start_tool("sync_wait")
        assert probe.async_started.wait(5) and probe.sync_started.wait(5)
        frames = host.shutdown()
        # Both were cancelled, not waited for (each waits 10 s otherwise).
        assert frames == [
            {"type": "notify", "level": "warn", "message": "cleanup"},
            {"type": "shutdown_ack"},
        ]
        assert "sync cancelled=True" in probe.seen


def test_eof_cancels_and_ends_cleanly(no_leftover_threads: None) -> None:
    probe = Probe()
    host = TestHost(make_cancellable(probe))
    host.start()
    host.start_tool("async_wait")
    assert probe.started.wait(5)
    assert host.close_stdin() == [{"type": "notify", "level": "warn", "message": "cleanup"}]
    host.finished()
    host.close()


def test_a_handler_ignoring_cancellation_does_not_hold_the_session() -> None:
    started, release, returned = threading.Event(), threading.Event(), threading.Event()
    ext = Extension("stubborn")

    @ext.tool("stuck")
    def stuck(args: Dict[str, Any]) -> str:
        started.set()
        release.wait()
        returned.set()
        return "late"

    try:
        with TestHost(ext) as host:
            host.start_tool("stuck")
            assert started.wait(5)
            # The engine's grace ends the wait: the session is over while
            # the handler still blocks.
            assert host.shutdown() == [{"type": "shutdown_ack"}]
        assert not returned.is_set()
    finally:
        release.set()


async def test_no_handler_task_outlives_the_session() -> None:
    """A handler that swallows its cancellation is cancelled again when the
    session ends: its task is over by the time ``serve`` returns, not left
    running on the application's loop."""
    ext = Extension("stubborn_async")
    started = asyncio.Event()
    seen: List[str] = []

    @ext.tool("stubborn")
    async def stubborn(args: Dict[str, Any]) -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            seen.append("cancelled")  # and carries on
        try:
            await asyncio.sleep(30)
        finally:
            seen.append("ended")
        return "late"

    async with AsyncTestHost(ext) as host:
        await host.start_tool("stubborn")
        await asyncio.wait_for(started.wait(), 5)
        assert await host.shutdown() == [{"type": "shutdown_ack"}]
    assert seen == ["cancelled", "ended"]


# -- duplicate ids (issue 13) -----------------------------------------------------


def make_duplicates() -> Extension:
    ext = Extension("dup")
    gates: List[asyncio.Event] = []

    def gate() -> asyncio.Event:
        if not gates:  # made on the extension's loop
            gates.append(asyncio.Event())
        return gates[0]

    @ext.tool("wait")
    async def wait(args: Dict[str, Any], ctx: Ctx) -> str:
        ctx.notify(f"started {args['n']}")
        try:
            await gate().wait()
        except asyncio.CancelledError:
            ctx.notify(f"cancelled {args['n']}", "warn")
            raise
        return f"released {args['n']}"

    @ext.command("release")
    async def release() -> str:
        gate().set()
        return "released"

    return ext


def duplicate(id: str) -> Dict[str, Any]:
    text = f'duplicate tool_call id "{id}": a request with this id is still running; this one was not run'
    return {"type": "tool_result", "id": id, "content": [{"type": "text", "text": text}], "is_error": True}


def test_a_duplicate_tool_call_id_gets_an_error_and_the_running_call_keeps_its_cancel_and_result() -> None:
    # The engine answers a request with the id of a running one at once with
    # an error and leaves the running one alone.
    with TestHost(make_duplicates()) as host:
        host.start_tool("wait", {"n": 1}, id="t1")
        assert host.next_frame() == {"type": "notify", "level": "info", "message": "started 1"}
        host.start_tool("wait", {"n": 2}, id="t1")
        assert host.next_frame() == duplicate("t1")
        host.cancel_tool("t1")
        assert host.next_frame() == {"type": "notify", "level": "warn", "message": "cancelled 1"}

        host.start_tool("wait", {"n": 3}, id="t2")
        assert host.next_frame() == {"type": "notify", "level": "info", "message": "started 3"}
        host.start_tool("wait", {"n": 4}, id="t2")
        assert host.next_frame() == duplicate("t2")
        assert host.command("release")["display"] == "released"
        assert host.tool_result("t2") == {
            "type": "tool_result",
            "id": "t2",
            "content": [{"type": "text", "text": "released 3"}],
        }
        # Nothing more: the cancelled call's answer was dropped (SDK-23).
        assert host.shutdown() == [{"type": "shutdown_ack"}]


# -- call_tool ----------------------------------------------------------------


def make_caller() -> Extension:
    ext = Extension("caller")

    @ext.tool("acall")
    async def acall(args: Dict[str, Any], ctx: Ctx) -> str:
        try:
            r = await ctx.call_tool(
                "echo", {"text": args.get("text", "")}, timeout=args.get("timeout"), key=args.get("key")
            )
        except CallToolError as e:
            return f"error {e.kind}: {e}"
        return f"{'ERR' if r.is_error else 'OK'} {r.text} {r.name}"

    @ext.tool("scall")
    def scall(args: Dict[str, Any], ctx: Ctx) -> str:
        try:
            r = ctx.call_tool_sync("echo", {"text": "s"}, timeout=args.get("timeout"))
        except CallToolError as e:
            return f"error {e.kind}: {e}"
        return f"{'ERR' if r.is_error else 'OK'} {r.text}"

    @ext.tool("two")
    async def two(args: Dict[str, Any], ctx: Ctx) -> str:
        a, b = await asyncio.gather(
            ctx.call_tool("echo", {"text": "1"}), ctx.call_tool("echo", {"text": "2"})
        )
        return a.text + b.text

    @ext.command("inline_sync", thread=False)
    def inline_sync(args: str, ctx: Ctx) -> str:
        try:
            ctx.call_tool_sync("echo", {})
        except ZotError as e:
            return str(e)
        return "no error"

    return ext


def test_call_tool_results_and_errors(no_leftover_threads: None) -> None:
    with TestHost(make_caller()) as host:
        tid = host.start_tool("acall", {"text": "hi"})
        call = host.expect_call_tool()
        assert call["name"] == "echo" and call.get("parent_id") == tid
        assert call.get("args") == {"text": "hi"}
        host.answer_call(call, "hi back")
        assert text_of(host.tool_result(tid)) == "OK hi back echo"

        tid = host.start_tool("acall", {"text": "x"})
        host.answer_call(host.expect_call_tool(), "refused", is_error=True)
        assert text_of(host.tool_result(tid)) == "ERR refused echo"

        tid = host.start_tool("scall")
        call = host.expect_call_tool()
        assert call.get("parent_id") == tid
        host.answer_call(call, "sync ok")
        assert text_of(host.tool_result(tid)) == "OK sync ok"

        tid = host.start_tool("two")
        c1, c2 = host.expect_call_tool(), host.expect_call_tool()
        assert c1["id"] != c2["id"]
        host.answer_call(c2, "B")
        host.answer_call(c1, "A")
        assert text_of(host.tool_result(tid)) == "AB"

        # An invalid durable key fails locally, nothing is sent (SDK-29).
        assert text_of(host.tool("acall", {"key": "a/b"})).startswith("error invalid_key")

        assert "would block the event loop" in host.command("inline_sync")["display"]


def test_call_tool_timeouts(no_leftover_threads: None) -> None:
    with TestHost(make_caller()) as host:
        tid = host.start_tool("acall", {"text": "slow", "timeout": 0.2})
        call = host.expect_call_tool()
        r = host.tool_result(tid)
        assert text_of(r) == "error timeout: call_tool echo timed out after 200ms"
        # The deadline sent call_tool_cancel (SDK-30).
        assert any(line == f'{{"type":"call_tool_cancel","id":"{call["id"]}"}}' for line in host.transcript())

        tid = host.start_tool("scall", {"timeout": 0.2})
        host.expect_call_tool()
        assert text_of(host.tool_result(tid)).startswith("error timeout:")


def test_call_tool_is_cancelled_with_its_tool(no_leftover_threads: None) -> None:
    with TestHost(make_caller()) as host:
        tid = host.start_tool("acall", {"text": "x"})
        call = host.expect_call_tool()
        host.cancel_tool(tid)
        frame = host.next_frame()
        assert frame == {"type": "call_tool_cancel", "id": call["id"]}
        tid = host.start_tool("scall")
        call = host.expect_call_tool()
        host.cancel_tool(tid)
        assert host.next_frame() == {"type": "call_tool_cancel", "id": call["id"]}


def test_call_tool_without_host_support_fails_at_once() -> None:
    with TestHost(make_caller(), capabilities=[]) as host:
        assert text_of(host.tool("acall")) == "error unsupported: the host does not support call_tool"
        assert not any('"call_tool"' in line for line in host.transcript()[1:])


def test_call_tool_fails_when_the_session_ends(no_leftover_threads: None) -> None:
    with TestHost(make_caller()) as host:
        host.start_tool("acall", {"text": "x"})
        host.expect_call_tool()
        assert host.shutdown() == [{"type": "shutdown_ack"}]


# -- events, interceptors, panels -------------------------------------------------


def serial_marker(ext: Extension) -> Callable[[TestHost], None]:
    """A wait for everything sent to the serial lane so far to be handled:
    it sends an event (``pre_compact``, which these tests do not use
    otherwise) and waits for its handler, which runs after every event and
    panel input sent before it."""
    reached = threading.Event()

    @ext.on("pre_compact")
    def marker() -> None:
        reached.set()

    def wait(host: TestHost) -> None:
        reached.clear()
        host.event({"event": "pre_compact"})
        assert reached.wait(10), "the serial lane did not reach the marker"

    return wait


def test_event_payloads_are_typed_dicts_in_order() -> None:
    seen: List[Any] = []
    ext = Extension("events")

    @ext.on("tool_result")
    def on_result(ev: ToolResultEvent, ctx: Ctx) -> None:
        seen.append((ev["type"], ev["event"], ev["status"], ev.get("executed"), ctx.id))

    @ext.on("turn_start")
    async def on_turn(ev: zot_ext.TurnStartEvent) -> None:
        await asyncio.sleep(0.01)
        seen.append(("turn", ev.get("step")))

    @ext.on("turn_end", thread=False)
    def on_end(ev: zot_ext.TurnEndEvent) -> None:
        seen.append(("end", ev.get("stop")))

    @ext.command("seen")
    async def show() -> str:
        return repr(seen)

    handled = serial_marker(ext)

    with TestHost(ext) as host:
        host.event({"event": "turn_start", "step": 3, "sequence": 1})
        host.event(
            {
                "event": "tool_result",
                "status": "completed",
                "tool_id": "t",
                "tool_name": "x",
                "result": {"content": [], "is_error": False},
                "sequence": 2,
            }
        )
        host.event({"event": "session_end", "reason": "shutdown"})  # not subscribed
        host.event({"event": "turn_end", "stop": "end_turn"})
        host.event({"event": "tool_result", "status": "blocked", "executed": False, "sequence": 4})
        handled(host)
        assert seen == [
            ("turn", 3),
            ("event", "tool_result", "completed", None, ""),
            ("end", "end_turn"),
            ("event", "tool_result", "blocked", False, ""),
        ]


def test_a_name_that_is_no_lifecycle_event_raises_at_once_listing_them() -> None:
    ext = Extension("events")
    with pytest.raises(zot_ext.RegistrationError) as e:
        ext.on("tool_reslt")
    assert str(e.value).startswith('unknown event "tool_reslt" (events: session_start, ')
    assert "tool_result" in str(e.value)


def test_a_command_or_tool_name_registered_twice_raises_at_once_naming_it() -> None:
    ext = Extension("dup")
    ext.command("deploy", "", lambda: None)
    with pytest.raises(zot_ext.RegistrationError) as e:
        ext.command("Deploy", "", lambda: None)
    assert e.value.code == "registration"
    assert str(e.value) == (
        'duplicate command name "Deploy": command "deploy" is already registered (command names ignore case)'
    )

    @ext.tool
    def t() -> str:
        return ""

    with pytest.raises(zot_ext.RegistrationError) as e:

        @ext.tool("t")
        def t2() -> str:
            return ""

    assert str(e.value) == 'duplicate tool name "t": a tool of this name is already registered'


def test_an_invalid_tool_name_raises_at_the_decorator() -> None:
    ext = Extension("tools")
    with pytest.raises(zot_ext.RegistrationError, match="my tool"):

        @ext.tool("my tool")
        def t() -> str:
            return ""


def test_interceptors() -> None:
    ext = Extension("guard")

    @ext.intercept_tool_call
    def guard(call: zot_ext.ToolCallIntercept, ctx: Ctx) -> Optional[ToolCallVerdict]:
        assert call["type"] == "event_intercept" and ctx.id == call["id"]
        if call.get("tool_name") == "rm":
            return ToolCallVerdict.block("no")
        if call.get("tool_name") == "ls":
            return ToolCallVerdict.modify({"path": "/safe", "n": [1, "é"]})
        return None

    @ext.intercept_turn_start(thread=False)
    def turn(req: zot_ext.TurnStartIntercept) -> TurnVerdict:
        return TurnVerdict.block("stop") if req.get("step", 0) > 5 else TurnVerdict.allow()

    @ext.intercept_assistant_message
    async def msg(m: zot_ext.AssistantMessageIntercept) -> MessageVerdict:
        return MessageVerdict.replace(m.get("text", "").upper())

    @ext.intercept_before_agent_start
    def prompt(req: zot_ext.BeforeAgentStartIntercept) -> Any:
        return req.get("system_prompt", "") + "!"

    with TestHost(ext) as host:
        assert host.intercept({"event": "tool_call", "tool_name": "rm"}) == {
            "type": "event_intercept_response",
            "id": "int-1",
            "block": True,
            "reason": "no",
        }
        r = host.intercept({"event": "tool_call", "id": "x", "tool_name": "ls"})
        assert r == {
            "type": "event_intercept_response",
            "id": "x",
            "modified_args": {"path": "/safe", "n": [1, "é"]},
        }
        assert host.intercept({"event": "tool_call", "tool_name": "cat"}).get("block") is None
        assert host.intercept({"event": "turn_start", "step": 6}).get("reason") == "stop"
        assert host.intercept({"event": "assistant_message", "text": "hi"}).get("replace_text") == "HI"
        # An unchanged text is no change (SDK-43, decided by the engine).
        assert "replace_text" not in host.intercept({"event": "assistant_message", "text": "HI"})
        assert (
            host.intercept({"event": "before_agent_start", "system_prompt": "p"}).get("system_prompt") == "p!"
        )


def test_a_slow_async_interceptor_still_answers() -> None:
    # (Answers later than the host's 5 s deadline are dropped by the engine,
    # which tests that itself.)
    ext = Extension("slow")

    @ext.intercept_turn_start
    async def turn(req: Any) -> TurnVerdict:
        await asyncio.sleep(0.05)
        return TurnVerdict.block("slow")

    with TestHost(ext) as host:
        assert host.intercept({"event": "turn_start", "step": 1}).get("reason") == "slow"


def test_panels_route_keys_in_order_and_forget_closed_panels() -> None:
    ext = Extension("panels")
    log: List[str] = []

    @ext.command("open")
    def open_(args: str) -> Response:
        ext.on_panel_key("p", lambda key: log.append(f"{key['key']}{key.get('text', '')}"))
        ext.on_panel_close("p", lambda panel_id: log.append(f"closed {panel_id}"))
        return Response.open_panel("p", title="T", lines=["a"], footer="f")

    @ext.command("spont")
    def spont() -> None:
        ext.open_panel("q", title="Q", lines=["1", "2"])
        ext.render_panel("q", lines=["3"], footer="ff")
        ext.close_panel("q")

    handled = serial_marker(ext)

    @ext.command("log")
    async def show() -> str:
        return ",".join(log)

    with TestHost(ext) as host:
        r = host.command("open")
        assert r.get("open_panel") == {"id": "p", "title": "T", "lines": ["a"], "footer": "f"}
        for k in ["up", "down", "esc"]:
            host.panel_key("p", k)
        host.panel_key("p", "rune", "x")
        host.panel_key("other", "up")  # no handler: ignored (SDK-46)
        host.send_json('{"type":"panel_resize","panel_id":"p","width":80,"height":20}')
        host.panel_close("p")
        host.panel_key("p", "up")  # forgotten
        host.command("spont")
        handled(host)
        assert host.command("log")["display"] == "up,down,esc,runex,closed p"
        lines = [ln for ln in host.transcript() if '"q"' in ln]
        assert lines == [
            '{"type":"open_panel","panel":{"id":"q","title":"Q","lines":["1","2"]}}',
            '{"type":"panel_render","panel_id":"q","lines":["3"],"footer":"ff"}',
            '{"type":"panel_close","panel_id":"q"}',
        ]


def test_a_panel_handler_gets_its_input_only() -> None:
    # Panel handlers take the input alone: a second parameter with a default
    # keeps its default (it is not given the context event handlers get),
    # whether the handler runs on the loop or in a worker thread.
    ext = Extension("panel-args")
    seen: List[object] = []
    names: List[str] = []

    def on_key(key: Any, extra: object = "default") -> None:
        seen.append((key["key"], extra))
        names.append(threading.current_thread().name)

    async def on_close(panel_id: str, extra: object = "default") -> None:
        seen.append((panel_id, extra))

    ext.on_panel_key("p", on_key)
    ext.on_panel_key("q", on_key, thread=False)
    ext.on_panel_close("p", on_close)
    handled = serial_marker(ext)

    with TestHost(ext) as host:
        host.panel_key("p", "up")
        host.panel_key("q", "down")
        host.panel_close("p")
        handled(host)
    assert seen == [("up", "default"), ("down", "default"), ("p", "default")]
    # A thread dump names the handler a worker thread runs.
    assert names[0] == "zot-ext panel p key", names


def test_on_hello_sees_the_host_and_registers_more() -> None:
    ext = Extension("hello")
    got: List[HostInfo] = []

    @ext.on_hello
    async def hello(host: HostInfo) -> None:
        got.append(host)
        ext.command("late", "Registered in on_hello", lambda: host.cwd)

    with TestHost(
        ext, cwd="/proj", data_dir="/data", capabilities=["call_tool", "call_tool_durable"]
    ) as host:
        assert [c["name"] for c in host.registration.commands] == ["late"]
        assert host.command("late")["display"] == "/proj"
        info = got[0]
        assert (info.cwd, info.data_dir, info.zot_version) == ("/proj", "/data", "test")
        assert info.supports_call_tool and info.supports_durable_calls
        assert info.raw["type"] == "hello_ack"


def test_host_info_and_call_results_are_frozen_values() -> None:
    ack: Any = {"type": "hello_ack", "protocol_version": 1, "capabilities": ["call_tool"], "cwd": "/p"}
    info = HostInfo.from_ack(ack)
    assert info == HostInfo.from_ack({**ack, "model": ""}) and hash(info) == hash(HostInfo.from_ack(ack))
    assert repr(info).startswith("HostInfo(protocol_version=1, capabilities=('call_tool',), ")
    assert "raw=" not in repr(info)
    with pytest.raises(AttributeError, match="frozen"):
        info.cwd = "/elsewhere"  # type: ignore[misc]
    for again in (pickle.loads(pickle.dumps(info)), copy.copy(info), copy.deepcopy(info)):
        assert again == info and again.raw == ack and again.supports_call_tool
    result = zot_ext.CallResult.from_job(
        {"type": "tool_result", "id": "c1", "content": [{"type": "text", "text": "hi"}]}
    )
    assert (result.text, result.is_error, result.name) == ("hi", False, "")
    assert pickle.loads(pickle.dumps(result)) == result


def test_registering_after_ready_is_announced_at_once() -> None:
    ext = Extension("late")

    @ext.command("add")
    def add(args: str) -> None:
        ext.command(args, "added", lambda: "new")
        ext.tool(args, "added", lambda a: "t")

    with TestHost(ext) as host:
        host.command("add", "extra")
        assert host.command("extra")["display"] == "new"
        assert text_of(host.tool("extra")) == "t"
        lines = host.transcript()
        assert '{"type":"register_command","name":"extra","description":"added"}' in lines


def test_spontaneous_frames_and_errors_when_not_running() -> None:
    ext = Extension("spont")
    with pytest.raises(ZotError, match="not running"):
        ext.notify("x")

    @ext.command("go")
    def go(args: str, ctx: Ctx) -> None:
        ctx.notify("n1")
        ext.notify("n2", "success")
        ext.clear_notes()
        ext.submit("prompt")
        ext.submit_slash("/cmd")

    with TestHost(ext) as host:
        host.command("go")
        assert host.transcript()[-6:] == [
            '{"type":"notify","level":"info","message":"n1"}',
            '{"type":"notify","level":"success","message":"n2"}',
            '{"type":"clear_notes"}',
            '{"type":"submit","text":"prompt"}',
            '{"type":"submit_slash","text":"/cmd"}',
            '{"type":"command_response","id":"cmd-1","action":"noop"}',
        ]


def test_tool_prompt_is_validated_by_the_engine() -> None:
    ext = Extension("tp")
    ext.command("good", "", lambda: Response.tool_prompt("echo", {"text": "hi"}, "go"))
    ext.command("bad", "", lambda: Response.tool_prompt("", {"text": "hi"}, "go"))
    with TestHost(ext) as host:
        assert host.command("good").get("tool_args") == {"text": "hi"}
        bad = host.command("bad")
        assert bad["action"] == "noop" and bad.get("error")


def test_a_second_serve_of_a_running_extension_is_refused() -> None:
    ext = make_basic()
    with TestHost(ext), pytest.raises(ZotError, match="already running"):
        TestHost(ext, timeout=2).start()


def test_an_extension_can_be_served_again_after_the_end() -> None:
    ext = make_basic()
    for _ in range(2):
        with TestHost(ext) as host:
            assert host.command("async", "again")["display"] == "async:again"


def test_default_hello_ack() -> None:
    ack = default_hello_ack(cwd="/x")
    assert ack["type"] == "hello_ack" and ack["cwd"] == "/x" and ack.get("capabilities") == ["call_tool"]


# -- typed arguments ------------------------------------------------------------


class Point(TypedDict):
    x: int
    y: float


@dataclasses.dataclass
class Move:
    """Move somewhere."""

    to: Point
    speed: float = 1.0
    label: Optional[str] = None


def test_typed_arguments_are_checked_and_converted() -> None:
    ext = Extension("typed")

    @ext.tool("move", "Move")
    def move(args: Move, ctx: Ctx) -> str:
        assert isinstance(args, Move)
        return f"{args.to['x']},{args.to['y']:.1f} at {args.speed} {args.label}"

    @ext.tool("point", "Point")
    async def point(args: Point) -> str:
        return f"{args['x']}/{args['y']}"

    with TestHost(ext) as host:
        assert host.registration.tools[0]["schema"] == {
            "type": "object",
            "properties": {
                "to": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}, "y": {"type": "number"}},
                    "required": ["x", "y"],
                },
                "speed": {"type": "number"},
                "label": {"type": "string"},
            },
            "required": ["to"],
            "description": "Move somewhere.",
        }
        assert text_of(host.tool("move", {"to": {"x": 1, "y": 2}})) == "1,2.0 at 1.0 None"
        assert text_of(host.tool("point", {"x": 3, "y": 4.5})) == "3/4.5"
        bad = host.tool("point", {"x": "3", "y": 1})
        # Checked by the engine against the schema, the same in every SDK.
        assert (
            bad["is_error"] and text_of(bad) == 'invalid arguments: field `x`: "3" is not of type "integer"'
        )
        missing = host.tool("move", {})
        assert text_of(missing) == "invalid arguments: missing field `to`"


try:
    import pydantic
except ImportError:  # pragma: no cover - pydantic is optional
    pydantic = None
else:

    class City(pydantic.BaseModel):
        name: str
        days: int = 1


@pytest.mark.skipif(pydantic is None, reason="pydantic is not installed")
def test_pydantic_models_when_installed() -> None:
    ext = Extension("pyd")

    @ext.tool("forecast", "Forecast")
    def forecast(args: City) -> str:
        return f"{args.name} x{args.days}"

    with TestHost(ext) as host:
        schema = host.registration.tools[0]["schema"]
        assert schema["properties"]["name"]["type"] == "string"
        assert schema["required"] == ["name"]
        assert text_of(host.tool("forecast", {"name": "Oslo"})) == "Oslo x1"
        bad = host.tool("forecast", {"days": 2})
        assert bad["is_error"] and "name" in text_of(bad)


def test_results_helpers_match_the_rust_ones() -> None:
    assert ToolOutput.text("a").outcome() == {"content": [{"type": "text", "text": "a"}]}
    assert ToolOutput.error("e").outcome() == {
        "content": [{"type": "text", "text": "e"}],
        "is_error": True,
    }
    assert ToolOutput.structured({"sum": 3}).outcome() == {
        "content": [{"type": "text", "text": '{"sum":3}'}],
        "structured_content": {"sum": 3},
    }
    assert ToolOutput.image_bytes("image/png", b"\x89PNG").content == [
        {"type": "image", "mime_type": "image/png", "data": "iVBORw=="}
    ]
    assert ToolOutput.text("x").with_error().is_error
    assert Response.display("d").outcome() == {"action": "display", "display": "d"}
    assert Response.error("e").outcome() == {"action": "noop", "error": "e"}
    assert Response.insert("i").outcome() == {"action": "insert", "insert": "i"}
    assert Response.prompt("p").outcome() == {"action": "prompt", "prompt": "p"}
    assert PromptVerdict.remove() == PromptVerdict.replace("")
    assert PromptVerdict.keep().outcome() == {}
    assert ToolCallVerdict.block("r").outcome() == {"block": True, "reason": "r"}


def test_the_protocol_types_load_on_first_use() -> None:
    # A fresh interpreter: importing the SDK does not define the protocol's
    # TypedDicts (start-up cost); naming one, or a star import, does.
    import subprocess
    import sys

    probe = (
        "import sys, typing, zot_ext\n"
        "assert 'zot_ext._protocol' not in sys.modules, 'loaded at import'\n"
        "from zot_ext import ToolCallEvent\n"
        "assert ToolCallEvent.__module__ == 'zot_ext._protocol'\n"
        "assert 'HelloAck' in dir(zot_ext)\n"
        "ns = {}\n"
        "exec('from zot_ext import *', ns)\n"
        "missing = [n for n in zot_ext.__all__ if n not in ns]\n"
        "assert not missing, missing\n"
        "try:\n"
        "    zot_ext.NoSuchName\n"
        "except AttributeError as e:\n"
        "    assert 'NoSuchName' in str(e)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')\n"
        "ext = zot_ext.Extension('t')\n"
        "def on_call(ev: 'zot_ext.ToolCallEvent') -> None: ...\n"
        "assert typing.get_type_hints(on_call)['ev'] is ToolCallEvent\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_a_result_that_is_not_json_fails_its_own_call_not_its_batch() -> None:
    ext = Extension("t", "1.0.0")

    @ext.tool("bad", "Returns what JSON cannot hold", schema={"type": "object"})
    async def bad(args: Dict[str, Any]) -> ToolOutput:
        return ToolOutput.text("x").with_structured({"ids": {1, 2}})

    @ext.tool("good", "Returns text", schema={"type": "object"})
    async def good(args: Dict[str, Any]) -> str:
        return "fine"

    with TestHost(ext) as host:
        # Started together: their answers are handed to the engine together.
        ids = [host.start_tool(name) for name in ("bad", "good", "bad")]
        bad1, fine, bad2 = (host.tool_result(i) for i in ids)
    for r in (bad1, bad2):
        assert r.get("is_error") is True, r
        assert "not JSON serializable" in r["content"][0]["text"], r
    assert fine.get("is_error") is not True and fine["content"][0]["text"] == "fine", fine


def test_a_burst_of_threaded_event_handlers_runs_in_order_one_at_a_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Plain `def` handlers run in worker threads; a burst of them must still
    # run in arrival order, one at a time, through a failing handler and one
    # that returns an awaitable (awaited on the loop before the next event).
    ext = Extension("burst", "1.0.0")
    order: List[object] = []
    overlaps: List[int] = []
    busy = threading.Lock()

    @ext.on("turn_end")
    def on_turn_end(event: zot_ext.TurnEndEvent, ctx: Ctx) -> object:
        seq = event["sequence"]
        if not busy.acquire(blocking=False):
            overlaps.append(seq)
            return None
        try:
            order.append(seq)
            if seq == 3:
                raise ValueError("three")
            if seq == 5:

                async def later() -> None:
                    await asyncio.sleep(0)
                    order.append("5 awaited")

                return later()
            if seq == 10:
                ctx.notify("done")
            return None
        finally:
            busy.release()

    with TestHost(ext) as host:
        for seq in range(1, 11):
            host.event({"event": "turn_end", "sequence": seq})
        assert host.next_frame() == {"type": "notify", "level": "info", "message": "done"}
    assert overlaps == []
    assert order == [1, 2, 3, 4, 5, "5 awaited", 6, 7, 8, 9, 10]
    assert "event turn_end handler failed: three" in caplog.text


def test_a_plain_def_event_handler_runs_while_the_loop_is_busy() -> None:
    # A `thread=False` tool holds the loop's thread until an event's plain
    # `def` handler has run: the engine hands such events to a worker
    # thread itself, as it does calls, without a turn of the loop.
    ext = Extension("busy-loop", "1.0.0")
    seen = threading.Event()

    @ext.on("turn_end")
    def on_turn_end(event: zot_ext.TurnEndEvent, ctx: Ctx) -> None:
        seen.set()

    @ext.tool(name="hold", description="Holds the loop", thread=False)
    def hold(ctx: Ctx) -> str:
        return "seen" if seen.wait(10) else "not seen"

    with TestHost(ext) as host:
        tid = host.start_tool("hold")
        host.event({"event": "turn_end", "sequence": 1})
        assert host.tool_result(tid)["content"] == [{"type": "text", "text": "seen"}]


def test_plain_def_event_handlers_get_their_event_only_if_they_take_it() -> None:
    # Three events in one write: one run for a worker thread. The first
    # handler takes no argument (its event is never parsed) and replaces
    # itself with one that takes the event, which the next two get.
    ext = Extension("late-reader", "1.0.0")
    seen: List[object] = []

    def reader(event: zot_ext.TurnStartEvent, ctx: Ctx) -> None:
        seen.append(event["step"])
        if event["step"] == 3:
            ctx.notify("done")

    @ext.on("turn_start")
    def first() -> None:
        seen.append("first")
        ext.on("turn_start", reader)

    with TestHost(ext) as host:
        host.send_json(
            "\n".join(f'{{"type":"event","event":"turn_start","step":{step}}}' for step in (1, 2, 3))
        )
        assert host.next_frame() == {"type": "notify", "level": "info", "message": "done"}
    assert seen == ["first", 2, 3]


def test_events_alternating_between_the_loop_and_threads_keep_their_order() -> None:
    # `turn_start` has an `async def` handler (the loop), `turn_end` a plain
    # `def` one (a worker thread): the engine hands each to its place only
    # once the ones before it were handled, so the order holds across both.
    ext = Extension("alternate", "1.0.0")
    order: List[str] = []
    running: List[str] = []
    overlaps: List[str] = []

    def enter(name: str) -> None:
        if running:
            overlaps.append(name)
        running.append(name)
        order.append(name)

    @ext.on("turn_start")
    async def on_turn_start(event: zot_ext.TurnStartEvent, ctx: Ctx) -> None:
        enter(f"start {event['step']}")
        await asyncio.sleep(0)
        running.pop()

    @ext.on("turn_end")
    def on_turn_end(event: zot_ext.TurnEndEvent, ctx: Ctx) -> None:
        enter(f"end {event['sequence']}")
        running.pop()
        if event["sequence"] == 9:
            ctx.notify("done")

    expected: List[str] = []
    with TestHost(ext) as host:
        for n in range(1, 10):
            # Two of a kind now and then: a run of thread events, two loop ones.
            kinds = ["start", "end"] if n % 3 else ["start", "start", "end", "end"]
            for kind in kinds:
                if kind == "start":
                    host.event({"event": "turn_start", "step": n})
                else:
                    host.event({"event": "turn_end", "sequence": n})
                expected.append(f"{kind} {n}")
        assert host.next_frame() == {"type": "notify", "level": "info", "message": "done"}
    assert overlaps == []
    assert order == expected


def test_a_worker_awaiting_what_its_handler_returned_leaves_its_place() -> None:
    # One worker thread. A plain `def` event handler and a plain `def` tool
    # return awaitables that wait for gates a second tool opens: a thread
    # waiting for what its handler returned must leave the bounded pool
    # meanwhile, or that tool never gets a thread.
    import concurrent.futures

    ext = Extension("lend", "1.0.0", max_threads=1)
    gates: Dict[str, concurrent.futures.Future[None]] = {
        "event": concurrent.futures.Future(),
        "tool": concurrent.futures.Future(),
    }

    @ext.on("turn_end")
    def on_turn_end(event: zot_ext.TurnEndEvent, ctx: Ctx) -> object:
        async def after_the_gate() -> None:
            await asyncio.wrap_future(gates["event"])
            ctx.notify("event handler done")

        return after_the_gate()

    @ext.tool("wait", "waits for its gate")
    def wait() -> object:
        async def after_the_gate() -> str:
            await asyncio.wrap_future(gates["tool"])
            return "released"

        return after_the_gate()

    @ext.tool("release", "opens a gate")
    def release(gate: str) -> str:
        gates[gate].set_result(None)
        return "opened"

    with TestHost(ext) as host:
        host.event({"event": "turn_end", "sequence": 1})
        waiting = host.start_tool("wait")
        assert host.tool("release", {"gate": "tool"})["content"][0]["text"] == "opened"
        assert host.tool_result(waiting)["content"][0]["text"] == "released"
        assert host.tool("release", {"gate": "event"})["content"][0]["text"] == "opened"
        assert host.next_frame() == {"type": "notify", "level": "info", "message": "event handler done"}


def test_a_plain_def_call_reaches_its_thread_while_the_loop_is_busy(no_leftover_threads: None) -> None:
    # A plain `def` handler's job goes from the engine straight to a worker
    # thread: it runs even while the event loop is stuck in another handler
    # (here an `async def` that blocks the loop until the tool has run).
    ext = Extension("straight", "1.0.0")
    hogging, ran = threading.Event(), threading.Event()

    @ext.command("hog")
    async def hog(args: str) -> str:
        hogging.set()
        return "released" if ran.wait(5) else "the tool never ran"

    @ext.tool("mark")
    def mark(args: Dict[str, Any]) -> str:
        ran.set()
        return "marked"

    with TestHost(ext) as host:
        host.send_json('{"type":"command_invoked","id":"h","name":"hog","args":""}')
        assert hogging.wait(5)
        host.send_json('{"type":"tool_call","id":"m","name":"mark","args":{}}')
        assert host.tool_result("m")["content"][0]["text"] == "marked"
        assert host.command_response("h")["display"] == "released"
