"""Bounds, in real child processes: frames nested too deeply are refused by
the engine with their normal reply (and nothing else in the same read is
lost), a batch the read path cannot decode ends the session loudly, and
plain ``def`` handlers run on a bounded set of threads that go away when
idle."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from test_process import Child, conformance_child, script

#: The most a host frame may nest (zot_protocol::limits::MAX_FRAME_DEPTH).
MAX_FRAME_DEPTH = 128


def deep_call(call_id: str, levels: int) -> str:
    """A ``tool_call`` of ``echo`` with ``levels`` nested arrays in its
    args."""
    nested = "[" * levels + "]" * levels
    return f'{{"type":"tool_call","id":"{call_id}","name":"echo","args":{{"text":"x","deep":{nested}}}}}'


def results_by_id(
    child: Child, ids: List[str], backlog: Optional[List[Dict[str, Any]]] = None
) -> Dict[str, Dict[str, Any]]:
    """The ``tool_result`` of each id; frames read meanwhile that are not
    one of them go to ``backlog`` (and are taken from it first)."""
    backlog = [] if backlog is None else backlog
    got: Dict[str, Dict[str, Any]] = {}
    for frame in list(backlog):
        if frame["type"] == "tool_result" and frame["id"] in ids:
            got[frame["id"]] = frame
            backlog.remove(frame)
    while set(got) != set(ids):
        line = child.read()
        assert line is not None, f"output closed; stderr: {child.stderr}"
        frame = json.loads(line)
        if frame["type"] == "tool_result" and frame["id"] in ids:
            got[frame["id"]] = frame
        else:
            backlog.append(frame)
    return got


def test_deep_calls_are_refused_and_the_call_beside_them_is_answered() -> None:
    child = conformance_child()
    try:
        child.handshake()
        # One write: a 1,000-deep and a 100,000-deep call, then a valid one.
        chunk = "\n".join(
            [
                deep_call("deep-1k", 1_000),
                deep_call("deep-100k", 100_000),
                '{"type":"tool_call","id":"ok","name":"echo","args":{"text":"hi"}}',
            ]
        )
        child.send(chunk)
        got = results_by_id(child, ["deep-1k", "deep-100k", "ok"])
        assert got["ok"] == {"type": "tool_result", "id": "ok", "content": [{"type": "text", "text": "hi"}]}
        for call_id in ["deep-1k", "deep-100k"]:
            r = got[call_id]
            assert r["is_error"] is True, r
            text = r["content"][0]["text"]
            assert text.startswith("tool_call refused: "), text
            assert f"nested deeper than {MAX_FRAME_DEPTH} levels" in text, text
        # The session goes on.
        child.send('{"type":"shutdown"}')
        assert child.read_all() == ['{"type":"shutdown_ack"}']
        assert child.wait(5) == 0
    finally:
        child.kill()


def test_the_depth_limit_itself_reaches_the_handler() -> None:
    child = conformance_child()
    try:
        child.handshake()
        # The frame is level 1, args level 2, `deep` from level 3 on.
        child.send(deep_call("at", MAX_FRAME_DEPTH - 2))
        child.send(deep_call("over", MAX_FRAME_DEPTH - 1))
        got = results_by_id(child, ["at", "over"])
        assert got["at"]["content"] == [{"type": "text", "text": "x"}], got["at"]
        assert got["over"]["is_error"] is True, got["over"]
    finally:
        child.kill()


def test_a_flood_of_malformed_lines_is_logged_a_few_times_then_counted() -> None:
    child = conformance_child()
    try:
        child.handshake()
        child.send("\n".join(f"not json {i}" for i in range(1_000)))
        child.send('{"type":"shutdown"}')
        assert child.read_all() == ['{"type":"shutdown_ack"}']
        assert child.wait(5) == 0
        quoted = [line for line in child.stderr if "] malformed host frame skipped: " in line]
        counts = [
            int(m.group(1).replace(",", ""))
            for m in (
                re.search(r'suppressed ([\d,]+) more "malformed host frame" diagnostics', line)
                for line in child.stderr
            )
            if m
        ]
        # 10 quoted per 10 s, and every line accounted for.
        assert counts and len(quoted) <= 10 * (len(counts) + 1), child.stderr
        assert len(quoted) + sum(counts) == 1_000, child.stderr
    finally:
        child.kill()


#: The two tests below lower the recursion limit so that Python's json
#: cannot decode a frame the engine accepts.
shallow_json = pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="from 3.12 on the recursion limit no longer bounds the json parser"
)


def shallow_child(tmp_path: Path, handler: str) -> Child:
    """An extension whose tool ``echo`` is ``handler`` (``def`` or ``async
    def``), run with the recursion limit lowered once the handshake is done."""
    path = script(
        tmp_path,
        f"""
        import sys
        from zot_ext import Extension

        ext = Extension("shallow", "1.0.0")

        @ext.tool("echo")
        {handler} echo(args: dict) -> str:
            return "echoed"

        @ext.on_hello
        def lower_the_limit(host: object) -> None:
            sys.setrecursionlimit(120)

        ext.run()
        """,
    )
    c = Child([sys.executable, str(path)])
    c.handshake()
    return c


@shallow_json
def test_a_batch_that_cannot_be_decoded_ends_the_session_loudly(tmp_path: Path) -> None:
    # The session must not go on as if the call never came. (An `async def`
    # tool: its job comes to the loop in a batch.)
    c = shallow_child(tmp_path, "async def")
    try:
        c.send(deep_call("deep", 120))
        assert c.read_all() == []
        assert c.wait(5) == 1
        err = "\n".join(c.stderr)
        assert "jobs from the engine could not be decoded (RecursionError" in err, err
        assert "ending the session" in err, err
    finally:
        c.kill()


@shallow_json
def test_a_worker_call_whose_arguments_cannot_be_decoded_is_answered_with_why(tmp_path: Path) -> None:
    # A plain `def` tool's job comes to a worker thread alone, so only its
    # own call fails, with the reason; the extension goes on.
    c = shallow_child(tmp_path, "def")
    try:
        c.send(deep_call("deep", 120))
        c.send('{"type":"tool_call","id":"flat","name":"echo","args":{"text":"x"}}')
        got = results_by_id(c, ["deep", "flat"])
        assert got["deep"]["is_error"] is True
        assert "maximum recursion depth exceeded" in got["deep"]["content"][0]["text"], got["deep"]
        assert got["flat"]["content"] == [{"type": "text", "text": "echoed"}]
        c.wait_stderr("tool echo: a job the engine routed to a thread could not start")
    finally:
        c.kill()


POOL = """
import sys, threading
from zot_ext import Ctx, Extension

ext = Extension("pool", "1.0.0", max_threads=4, thread_idle_timeout=0.2)
release = threading.Event()
lock = threading.Lock()
running = 0
peak = 0
started = 0

@ext.tool("block")
def block(args: dict, ctx: Ctx) -> str:
    global running, peak, started
    with lock:
        started += 1
        running += 1
        peak = max(peak, running)
    try:
        while not release.is_set() and not ctx.cancelled.is_set():
            release.wait(0.05)
        return "cancelled" if ctx.cancelled.is_set() else "released"
    finally:
        with lock:
            running -= 1

@ext.tool("nested")
def nested(args: dict, ctx: Ctx) -> str:
    # A tool calling a tool of this same extension through the host.
    return "nested:" + ctx.call_tool_sync("block", {}).text

@ext.command("stats", thread=False)
def stats(args: str) -> str:
    return f"threads={threading.active_count()} running={running} peak={peak} started={started}"

@ext.command("release", thread=False)
def do_release(args: str) -> str:
    release.set() if args == "set" else release.clear()
    return "ok"

ext.run()
print("exited with", threading.active_count(), "threads", file=sys.stderr, flush=True)
"""


class Pool:
    """The POOL extension and its host side."""

    def __init__(self, tmp_path: Path) -> None:
        self.child = Child([sys.executable, str(script(tmp_path, POOL))])
        self.child.handshake()
        self.n = 0
        # Frames read while waiting for another one.
        self.backlog: List[Dict[str, Any]] = []

    def command(self, name: str, args: str = "") -> str:
        self.n += 1
        cid = f"c{self.n}"
        self.child.send(json.dumps({"type": "command_invoked", "id": cid, "name": name, "args": args}))
        while True:
            line = self.child.read()
            assert line is not None, self.child.stderr
            frame = json.loads(line)
            if frame["type"] == "command_response" and frame["id"] == cid:
                return str(frame["display"])
            self.backlog.append(frame)

    def results(self, ids: List[str]) -> Dict[str, Dict[str, Any]]:
        return results_by_id(self.child, ids, self.backlog)

    def stats(self) -> Dict[str, int]:
        return {k: int(v) for k, v in (kv.split("=") for kv in self.command("stats").split())}

    def wait_for(self, done: Any, what: str, timeout: float = 10.0) -> Dict[str, int]:
        """Polls ``stats`` until ``done(stats)``: a bounded wait for a state
        the extension reaches on its own (threads exiting when idle)."""
        deadline = time.monotonic() + timeout
        while True:
            s = self.stats()
            if done(s):
                return s
            assert time.monotonic() < deadline, f"{what}: {s}"
            time.sleep(0.02)


def test_blocking_calls_use_at_most_the_bound_of_threads_which_exit_when_idle(tmp_path: Path) -> None:
    pool = Pool(tmp_path)
    child = pool.child
    try:
        base = pool.stats()["threads"]  # the main thread and the SDK's own
        for i in range(50):
            child.send(f'{{"type":"tool_call","id":"b{i}","name":"block","args":{{}}}}')
        s = pool.wait_for(lambda s: s["running"] == 4, "four handlers running")
        assert s["threads"] <= base + 4, s
        # A queued call that is cancelled never starts, and is answered to
        # the engine at once (which sends no tool_result after tool_cancel,
        # SDK-23), while all four threads are still blocked: once `stats`
        # (dispatched after the cancellation) answers, its id is free again.
        child.send('{"type":"tool_cancel","id":"b49"}')
        assert pool.stats()["running"] == 4
        child.send('{"type":"tool_call","id":"b49","name":"block","args":{}}')
        assert pool.command("release", "set") == "ok"
        got = pool.results([f"b{i}" for i in range(50)])
        assert {r["content"][0]["text"] for r in got.values()} == {"released"}
        s = pool.wait_for(lambda s: s["threads"] == base, "idle threads exit")
        assert s["peak"] == 4 and s["started"] == 50, s
        child.send('{"type":"shutdown"}')
        assert child.read_all() == ['{"type":"shutdown_ack"}']
        assert child.wait(5) == 0
        assert not any("watchdog" in line or "reused" in line for line in child.stderr), child.stderr
    finally:
        child.kill()


def test_many_blocked_calls_exit_cleanly_on_shutdown(tmp_path: Path) -> None:
    pool = Pool(tmp_path)
    child = pool.child
    try:
        base = pool.stats()["threads"]
        for i in range(2_000):
            child.send(f'{{"type":"tool_call","id":"b{i}","name":"block","args":{{}}}}')
        s = pool.wait_for(lambda s: s["running"] == 4, "four handlers running")
        assert s["threads"] <= base + 4, s
        # Every call is cancelled: no tool_result (SDK-23), every job
        # answered, and the process exits before the engine's watchdog.
        child.send('{"type":"shutdown"}')
        assert child.read_all() == ['{"type":"shutdown_ack"}']
        assert child.wait(5) == 0
        assert not any("watchdog" in line for line in child.stderr), child.stderr
        assert any("exited with" in line for line in child.stderr), child.stderr
    finally:
        child.kill()


def test_a_thread_waiting_in_call_tool_sync_leaves_its_place(tmp_path: Path) -> None:
    # Four `nested` calls take the four threads, each calling `block` of
    # the same extension: the four `block` calls must still run.
    pool = Pool(tmp_path)
    child = pool.child
    try:
        assert pool.command("release", "set") == "ok"
        for i in range(4):
            child.send(f'{{"type":"tool_call","id":"n{i}","name":"nested","args":{{}}}}')
        calls = []
        while len(calls) < 4:
            line = child.read()
            assert line is not None, child.stderr
            call = json.loads(line)
            assert call["type"] == "call_tool" and call["name"] == "block", call
            calls.append(call)
        # All four threads wait in call_tool_sync; the host runs each call on
        # this extension, then answers it.
        for call in calls:
            child.send(
                json.dumps({"type": "tool_call", "id": f"inner-{call['id']}", "name": "block", "args": {}})
            )
        inner = pool.results([f"inner-{call['id']}" for call in calls])
        for call in calls:
            content = inner[f"inner-{call['id']}"]["content"]
            child.send(
                json.dumps({"type": "tool_result", "id": call["id"], "name": "block", "content": content})
            )
        got = pool.results([f"n{i}" for i in range(4)])
        assert {r["content"][0]["text"] for r in got.values()} == {"nested:released"}
    finally:
        child.kill()
