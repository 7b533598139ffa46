"""Extensions as real child processes over stdin/stdout: the conformance
extension started the way a host starts it, clean exits on shutdown and EOF,
stdout protection, Ctrl-C, fork, and a byte-for-byte comparison with the
Rust conformance extension."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "tests" / "conformance" / "python"
ACK = (
    '{"type":"hello_ack","protocol_version":1,"capabilities":["call_tool"],"zot_version":"test",'
    '"provider":"p","model":"m","cwd":"/proj","extension_dir":"/ext","data_dir":"/data"}'
)


class Child:
    """A child process speaking the protocol; lines are read by a thread."""

    def __init__(
        self, argv: Sequence[str], cwd: Optional[Path] = None, env: Optional[Dict[str, str]] = None
    ) -> None:
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(cwd) if cwd else None,
            env=env,
            start_new_session=True,
        )
        self.lines: queue.Queue[Optional[str]] = queue.Queue()
        self.stderr: List[str] = []
        self._stderr_grew = threading.Condition()
        self._stderr_ended = False
        self.transcript: List[str] = []
        threading.Thread(target=self._read_out, daemon=True).start()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8").rstrip("\n"))
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            with self._stderr_grew:
                self.stderr.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._stderr_grew.notify_all()
        with self._stderr_grew:
            self._stderr_ended = True
            self._stderr_grew.notify_all()

    def wait_stderr(self, text: str, timeout: float = 10.0) -> None:
        """Waits for a stderr line containing ``text`` (what a child's
        handler writes when it reached the point a test waits for)."""

        def seen() -> bool:
            return any(text in line for line in self.stderr)

        with self._stderr_grew:
            self._stderr_grew.wait_for(lambda: seen() or self._stderr_ended, timeout)
            assert seen(), f"no {text!r} on stderr: {self.stderr}"

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode("utf-8") + b"\n")
        self.proc.stdin.flush()

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def read(self, timeout: float = 10.0) -> Optional[str]:
        line = self.lines.get(timeout=timeout)
        if line is not None:
            self.transcript.append(line)
        return line

    def read_until(self, done: Callable[[Dict[str, Any]], bool], timeout: float = 10.0) -> List[str]:
        out = []
        while True:
            line = self.read(timeout)
            assert line is not None, f"output closed; stderr: {self.stderr}"
            out.append(line)
            if done(json.loads(line)):
                return out

    def read_all(self, timeout: float = 10.0) -> List[str]:
        out = []
        while True:
            line = self.read(timeout)
            if line is None:
                return out
            out.append(line)

    def handshake(self) -> List[str]:
        first = self.read()
        assert first is not None and first.startswith('{"type":"hello"'), self.stderr
        self.send(ACK)
        return [first, *self.read_until(lambda f: f["type"] == "ready")]

    def wait(self, timeout: float) -> int:
        """The exit status, once the child exited and its stderr was read to
        the end (the reader thread may still be behind at the exit)."""
        status = self.proc.wait(timeout)
        self._err_reader.join(timeout)
        return status

    def exit_status_or_stacks(self, timeout: float) -> int:
        """The exit status; if the child is still running after `timeout`,
        fails with every thread's stack (the child must run with
        PYTHONFAULTHANDLER=1, which dumps them on SIGABRT) and its stderr."""
        try:
            return self.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)
            self.proc.wait(10)
            stderr = "\n".join(self.stderr_to_end())
            raise AssertionError(
                f"still running {timeout} s later; its stacks and stderr:\n{stderr}"
            ) from None

    def stderr_to_end(self, timeout: float = 10.0) -> List[str]:
        """Every stderr line, once the stream ended (after the exit)."""
        self._err_reader.join(timeout)
        return self.stderr

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


def conformance_child(**kw: Any) -> Child:
    return Child([sys.executable, str(CONFORMANCE / "conformance.py")], **kw)


@pytest.fixture
def child() -> Any:
    c = conformance_child()
    yield c
    c.kill()


def test_shutdown_acks_cancels_and_exits_0(child: Child) -> None:
    # The handlers are cancelled, not waited for (the sleep is a minute).
    child.handshake()
    child.send('{"type":"tool_call","id":"t1","name":"sleep","args":{"ms":60000}}')
    child.send('{"type":"tool_call","id":"t2","name":"ask","args":{}}')
    child.send('{"type":"shutdown"}')
    rest = child.read_all()
    assert child.wait(20) == 0
    assert sorted(rest[:-1]) == [
        '{"type":"notify","level":"warn","message":"ask cancelled"}',
        '{"type":"notify","level":"warn","message":"cancelled 60000"}',
    ]
    assert rest[-1] == '{"type":"shutdown_ack"}'
    assert any("[conformance] conformance started" in line for line in child.stderr)


def test_eof_cancels_and_exits_0(child: Child) -> None:
    child.handshake()
    child.send('{"type":"tool_call","id":"t1","name":"ask","args":{}}')
    child.close_stdin()
    assert child.read_all() == ['{"type":"notify","level":"warn","message":"ask cancelled"}']
    assert child.wait(20) == 0


def test_eof_before_hello_ack_fails_the_start(child: Child) -> None:
    assert child.read() is not None  # hello
    child.close_stdin()
    assert child.read_all() == []
    assert child.wait(3) == 1
    assert any("hello_ack" in line for line in child.stderr)


def echo_until_exit(c: Child) -> None:
    """Echo calls, each after the last one's result, until the output closes
    (50 at most)."""
    for i in range(50):
        c.send(json.dumps({"type": "tool_call", "id": f"e{i}", "name": "echo", "args": {"text": "x"}}))
        while True:
            line = c.read()
            if line is None:
                return
            frame = json.loads(line)
            if frame["type"] == "tool_result" and frame["id"] == f"e{i}":
                break


def test_an_engine_panic_is_one_line_on_stderr_and_exit_70() -> None:
    # Issue 13: a panic in the engine ends the process with one line and
    # status 70. The test-only fault hook makes the engine's reader (the one
    # read path) panic on the first frame after the handshake.
    what = "reader panicked: injected fault: the reader panics"
    c = conformance_child(env={**os.environ, "ZOT_EXT_TEST_FAULT": "reader-panic"})
    try:
        c.handshake()
        echo_until_exit(c)
        assert c.wait(10) == 70
        ours = [line for line in c.stderr_to_end() if line.startswith("[conformance] internal error")]
        assert ours == [
            f"[conformance] internal error: the engine's {what} after the handshake"
            " (ZOT_EXT_TEST_FAULT); exiting with status 70"
        ], c.stderr
    finally:
        c.kill()


def test_the_manifest_starts_it_from_any_directory(tmp_path: Path) -> None:
    manifest = json.loads((CONFORMANCE / "extension.json").read_text())
    assert manifest["name"] == "conformance" and manifest["version"] == "1.0.0"
    exe = manifest["exec"]
    assert exe.startswith("./")
    argv = [str(CONFORMANCE / exe), *manifest.get("args", [])]
    # A host runs it with the extension directory as cwd; any other works too.
    env = dict(os.environ)
    venv = ROOT / "target" / "python-sdk-venv" / "bin" / "python"
    if not venv.exists():
        env["ZOT_EXT_PYTHON"] = sys.executable  # not built by the test script
    c = Child(argv, cwd=tmp_path, env=env)
    try:
        lines = c.handshake()
        assert lines[0].startswith('{"type":"hello","name":"conformance"')
        c.send('{"type":"command_invoked","id":"1","name":"cwd","args":""}')
        assert c.read_until(lambda f: f["type"] == "command_response") == [
            '{"type":"command_response","id":"1","action":"display","display":"/proj"}'
        ]
        c.send('{"type":"shutdown"}')
        assert c.read_all() == ['{"type":"shutdown_ack"}']
        assert c.wait(2) == 0
    finally:
        c.kill()


def script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "ext.py"
    path.write_text(textwrap.dedent(body))
    return path


def test_stdout_is_protected_and_no_threads_block_the_exit(tmp_path: Path) -> None:
    path = script(
        tmp_path,
        """
        import os, sys, threading, time
        from zot_ext import Extension, Ctx

        ext = Extension("printer", "1.0.0")

        @ext.command("p")
        def p(args: str, ctx: Ctx) -> str:
            print("print from a handler")
            sys.stdout.flush()
            os.write(1, b"raw write to fd 1\\n")
            return "ok"

        @ext.tool("stuck")
        def stuck(args: dict) -> str:
            print("stuck started", file=sys.stderr, flush=True)
            time.sleep(30)  # ignores cancellation: a daemon thread
            return "late"

        ext.run()
        print("after run", threading.active_count(), file=sys.stderr)
        """,
    )
    c = Child([sys.executable, str(path)])
    try:
        c.handshake()
        c.send('{"type":"command_invoked","id":"1","name":"p","args":""}')
        assert c.read_until(lambda f: f["type"] == "command_response") == [
            '{"type":"command_response","id":"1","action":"display","display":"ok"}'
        ]
        c.send('{"type":"tool_call","id":"s","name":"stuck","args":{}}')
        c.wait_stderr("stuck started")
        c.send('{"type":"shutdown"}')
        assert c.read_all() == ['{"type":"shutdown_ack"}']
        # Not held by the handler (which sleeps for 30 s more).
        assert c.wait(20) == 0
        err = "\n".join(c.stderr)
        assert "print from a handler" in err and "raw write to fd 1" in err
        assert "after run" in err
    finally:
        c.kill()


def test_buffered_prints_reach_the_log_in_order_never_the_wire(tmp_path: Path) -> None:
    # Python block-buffers a piped stdout (unless PYTHONUNBUFFERED is set, as
    # it may be in the calling environment): a print at import time must not
    # be flushed onto the wire, and a print in a handler must reach the log
    # when it happens, not at exit. Order against unbuffered stderr writes
    # shows when each arrived.
    path = script(
        tmp_path,
        """
        import os
        from zot_ext import Extension

        print("printed at import")
        ext = Extension("printer", "1.0.0")

        @ext.command("p")
        def p(args: str) -> str:
            print("printed in a handler")
            os.write(2, b"marker after the handler print\\n")
            return "ok"

        ext.run()
        """,
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    c = Child([sys.executable, str(path)], env=env)
    try:
        c.handshake()
        c.send('{"type":"command_invoked","id":"1","name":"p","args":""}')
        c.read_until(lambda f: f["type"] == "command_response")
        c.send('{"type":"shutdown"}')
        assert c.read_all() == ['{"type":"shutdown_ack"}']
        assert c.wait(5) == 0
        # Every stdout line was a frame (handshake() checked the first).
        for line in c.transcript:
            json.loads(line)
        err = c.stderr
        assert "printed at import" in err and "printed in a handler" in err, err
        assert err.index("printed at import") < err.index("printed in a handler")
        assert err.index("printed in a handler") < err.index("marker after the handler print"), err
    finally:
        c.kill()


def test_protect_stdout_keeps_prints_while_loading_off_the_wire(tmp_path: Path) -> None:
    # Unbuffered (as with PYTHONUNBUFFERED or flush=True), a print at import
    # time would reach the host before `hello`; protect_stdout() first keeps
    # it in the log.
    path = script(
        tmp_path,
        """
        import zot_ext
        zot_ext.protect_stdout()
        zot_ext.protect_stdout()  # again: harmless

        print("printed while loading", flush=True)
        zot_ext.Extension("early", "1.0.0").run()
        """,
    )
    c = Child([sys.executable, "-u", str(path)])
    try:
        lines = c.handshake()
        assert lines[0].startswith('{"type":"hello","name":"early"'), lines
        c.close_stdin()
        assert c.read_all() == []
        assert c.wait(5) == 0
        assert "printed while loading" in c.stderr, c.stderr
    finally:
        c.kill()


def test_no_threads_are_left_after_run(tmp_path: Path) -> None:
    path = script(
        tmp_path,
        """
        import asyncio, sys, threading
        from zot_ext import Ctx, Extension

        ext = Extension("threads", "1.0.0")

        @ext.tool("wait_sync")
        def wait_sync(args: dict, ctx: Ctx) -> str:
            print("sync started", file=sys.stderr, flush=True)
            ctx.cancelled.wait(30)
            return "cancelled"

        @ext.tool("wait_async")
        async def wait_async(args: dict, ctx: Ctx) -> str:
            print("async started", file=sys.stderr, flush=True)
            await asyncio.sleep(30)
            return "never"

        @ext.on("turn_start")
        def on_turn(ev: dict) -> None:
            pass

        ext.run()
        print("threads", sorted(t.name for t in threading.enumerate()), file=sys.stderr, flush=True)
        """,
    )
    for end in ["shutdown", "eof"]:
        c = Child([sys.executable, str(path)])
        try:
            c.handshake()
            c.send('{"type":"event","event":"turn_start","step":1}')
            c.send('{"type":"tool_call","id":"1","name":"wait_sync","args":{}}')
            c.send('{"type":"tool_call","id":"2","name":"wait_async","args":{}}')
            c.wait_stderr("sync started")
            c.wait_stderr("async started")
            if end == "shutdown":
                c.send('{"type":"shutdown"}')
                assert c.read_all() == ['{"type":"shutdown_ack"}']
            else:
                c.close_stdin()
                assert c.read_all() == []
            # The handlers (30 s each) were cancelled, not waited for.
            assert c.wait(20) == 0
            assert "threads ['MainThread']" in c.stderr, c.stderr
        finally:
            c.kill()


def test_ctrl_c_exits_cleanly(tmp_path: Path) -> None:
    path = script(
        tmp_path,
        """
        import signal
        from zot_ext import Extension
        # As in a foreground process: a suite started in the background (`&`
        # in a script) hands its children SIGINT ignored, which Python keeps
        # (and Ctrl-C then rightly does nothing).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        ext = Extension("interrupted", "1.0.0")
        ext.command("x", "", lambda: "x")
        ext.run()
        print("run returned", flush=True)
        """,
    )
    # A hang shows where it is (how the inherited SIG_IGN above was found).
    c = Child([sys.executable, str(path)], env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    try:
        c.handshake()
        # Once a command is answered, the session's loop runs.
        c.send('{"type":"command_invoked","id":"1","name":"x","args":""}')
        c.read_until(lambda f: f["type"] == "command_response")
        c.proc.send_signal(signal.SIGINT)
        assert c.exit_status_or_stacks(10) == 0
        assert any("run returned" in line for line in c.stderr), c.stderr
        assert not any("Traceback" in line for line in c.stderr), c.stderr
    finally:
        c.kill()


def test_the_engine_refuses_to_run_after_fork(tmp_path: Path) -> None:
    path = script(
        tmp_path,
        """
        import os, sys
        import zot_ext
        from zot_ext.testing import TestHost

        ext = zot_ext.Extension("forky", "1.0.0")
        ext.command("x", "", lambda: "x")
        with TestHost(ext) as host:  # starts the runtime in the parent
            assert host.command("x")["display"] == "x"
        pid = os.fork()
        if pid == 0:
            try:
                TestHost(ext).start()
            except RuntimeError as e:
                print("child:", e, file=sys.stderr, flush=True)
                os._exit(7)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        print("child status", os.waitstatus_to_exitcode(status), file=sys.stderr, flush=True)
        """,
    )
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    c = Child([sys.executable, str(path)])
    try:
        assert c.wait(10) == 0
        err = "\n".join(c.stderr)
        assert "child status 7" in err, err
        assert "forked after the engine's runtime started" in err
    finally:
        c.kill()


# -- the same session against the Rust conformance extension -----------------

RUST_BIN = os.environ.get("ZOT_EXT_RUST_CONFORMANCE", str(ROOT / "target" / "debug" / "conformance-rust"))


def is_type(t: str, id: Optional[str] = None) -> Callable[[Dict[str, Any]], bool]:
    return lambda f: f["type"] == t and (id is None or f.get("id") == id)


def session(c: Child) -> List[List[str]]:
    """One scripted session; returns what the extension wrote per step."""
    steps: List[List[str]] = [c.handshake()]

    def step(lines: Sequence[str], done: Callable[[Dict[str, Any]], bool]) -> None:
        for line in lines:
            c.send(line)
        steps.append(c.read_until(done))

    def command(id: str, name: str, args: str = "") -> None:
        step(
            [json.dumps({"type": "command_invoked", "id": id, "name": name, "args": args})],
            is_type("command_response", id),
        )

    def tool(id: str, name: str, args: Dict[str, Any]) -> None:
        step(
            [json.dumps({"type": "tool_call", "id": id, "name": name, "args": args})],
            is_type("tool_result", id),
        )

    for i, (name, args) in enumerate(
        [
            ("echo", "a  b"), ("Greet", "Ada"), ("insert", "t"), ("cwd", ""), ("datadir", ""),
            ("oops", "x"), ("commit", "msg \"q\" é"), ("note", "n"), ("clear", ""),
            ("submit", "go"), ("nope", ""), ("ECHO", "case"),
        ]
    ):  # fmt: skip
        command(f"c{i}", name, args)
    for i, (name, targs) in enumerate(
        [
            ("echo", {"text": "hi"}), ("echo", {}), ("echo", {"text": 5}), ("add", {"a": 2, "b": 40}),
            ("fail", {}), ("lazy", {}), ("loader", {}), ("image", {}), ("big", {"bytes": 100}),
            ("missing", {}), ("sleep", {"ms": 10}),
        ]
    ):  # fmt: skip
        tool(f"t{i}", name, targs)
    from test_conformance import INTERCEPTS

    for request, _ in INTERCEPTS:
        step([request], is_type("event_intercept_response"))
    step(
        ['{"type":"event_intercept","id":"u","event":"future_thing"}'],
        is_type("event_intercept_response"),
    )
    events = [
        '{"type":"event","event":"session_start","session_id":"s","cwd":"/","sequence":1}',
        '{"type":"event","event":"turn_start","step":1,"sequence":2}',
        '{"type":"event","event":"some_future_event","sequence":3}',
        '{"type":"event","event":"session_end","reason":"shutdown","sequence":5}',
    ]
    step(
        [*events, '{"type":"command_invoked","id":"ev","name":"events","args":""}'],
        is_type("command_response", "ev"),
    )
    command("p1", "panel")
    keys = [
        json.dumps({"type": "panel_key", "panel_id": "conf-panel", "key": k, "text": t})
        for k, t in [("up", ""), ("up", ""), ("down", ""), ("left", ""), ("rune", "q")]
    ]
    step(keys, is_type("panel_close"))
    command("p2", "panel")
    step(
        [
            '{"type":"panel_close","panel_id":"conf-panel"}',
            '{"type":"panel_key","panel_id":"conf-panel","key":"up"}',
            '{"type":"command_invoked","id":"p3","name":"echo","args":"after"}',
        ],
        is_type("command_response", "p3"),
    )
    step(['{"type":"tool_call","id":"k1","name":"compose","args":{"text":"hi"}}'], is_type("call_tool"))
    step(
        ['{"type":"tool_result","id":"c1","name":"echo","content":[{"type":"text","text":"inner:hi"}]}'],
        is_type("tool_result", "k1"),
    )
    step(['{"type":"command_invoked","id":"ce","name":"callecho","args":"yo"}'], is_type("call_tool"))
    step(
        [
            '{"type":"tool_result","id":"c2","name":"echo","content":[{"type":"text","text":"no"}],"is_error":true}'
        ],
        is_type("command_response", "ce"),
    )
    step(
        [
            '{"type":"tool_call","id":"s1","name":"sleep","args":{"ms":60000}}',
            '{"type":"tool_cancel","id":"s1"}',
        ],
        is_type("notify"),
    )
    step(
        ['{"type":"tool_call","id":"a1","name":"ask","args":{}}', '{"type":"tool_cancel","id":"a1"}'],
        is_type("notify"),
    )
    step(
        ['{"type":"tool_call","id":"s2","name":"sleep","args":{"ms":60000}}', '{"type":"shutdown"}'],
        is_type("shutdown_ack"),
    )
    steps.append(c.read_all())
    assert c.wait(2) == 0
    return steps


@pytest.mark.skipif(
    not Path(RUST_BIN).exists(), reason="conformance-rust is not built (cargo build -p conformance-rust)"
)
def test_the_python_extension_writes_what_the_rust_one_writes() -> None:
    rust = Child([RUST_BIN])
    py = conformance_child()
    try:
        want = session(rust)
        got = session(py)
    finally:
        rust.kill()
        py.kill()
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"step {i}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_engine_threads_leave_signals_to_the_main_thread() -> None:
    # CPython handles signals on its main thread only: one that lands on an
    # engine thread never wakes an idle asyncio loop (Ctrl-C was lost so).
    import re

    from zot_ext import Extension
    from zot_ext.testing import TestHost

    ext = Extension("masked", "1.0.0")
    ext.command("x", "", lambda: "x")
    with TestHost(ext) as host:
        assert host.command("x")["display"] == "x"
        masks: Dict[str, List[int]] = {}
        for task in Path("/proc/self/task").iterdir():
            try:
                name = (task / "comm").read_text().strip()
                status = (task / "status").read_text()
            except OSError:  # the thread ended meanwhile
                continue
            found = re.search(r"^SigBlk:\s*([0-9a-f]+)$", status, re.M)
            assert found is not None, status
            masks.setdefault(name, []).append(int(found.group(1), 16))
    sigint = 1 << (signal.SIGINT - 1)
    engine = [m for name, ms in masks.items() if name.startswith("zot-ext-rt") for m in ms]
    assert engine, f"no engine thread among {sorted(masks)}"
    assert all(m & sigint for m in engine), f"an engine thread takes SIGINT: {masks}"
    main = (Path("/proc/self/task") / str(os.getpid()) / "status").read_text()
    found = re.search(r"^SigBlk:\s*([0-9a-f]+)$", main, re.M)
    assert found is not None and not int(found.group(1), 16) & sigint


def test_plain_hooks_shake_hands_before_asyncio_loads(tmp_path: Path) -> None:
    # `ready` must not wait for modules the SDK needs only later or never
    # (most of an extension's start-up): asyncio, logging and threading (its
    # worker threads start with the session) load after the handshake, the
    # job contract's types only for type checkers; typing,
    # inspect, dataclasses and contextlib not at all for an extension that
    # does not use them, even with a plain `def` tool whose parameters and
    # docstring make its schema. The hooks still see the host, send frames
    # and register.
    path = script(
        tmp_path,
        """
        import sys
        from zot_ext import Extension, Ctx, HostInfo

        ext = Extension("early", "1.0.0")
        seen = {}
        LATER = (
            "asyncio", "logging", "threading", "zot_ext._contract", "zot_ext._workers",
            "typing", "inspect", "dataclasses", "contextlib",
        )

        @ext.tool()
        def greet(name: str, times: int = 1, shout: bool = False) -> str:
            \"\"\"Greets someone.

            As often as asked.
            \"\"\"
            return name * times

        @ext.on_hello
        def hello(host: HostInfo) -> None:
            seen["loaded"] = [m for m in LATER if m in sys.modules]
            seen["cwd"] = ext.host.cwd if ext.host else None
            ext.notify("hello from the hook")

            @ext.command("late")
            def late(args: str, ctx: Ctx) -> str:
                return f"loaded at hello: {seen['loaded']}, cwd {seen['cwd']}"

        ext.run()
        """,
    )
    c = Child([sys.executable, str(path)])
    try:
        frames = c.handshake()
        assert any('"name":"late"' in f for f in frames), frames
        tool = next(json.loads(f) for f in frames if '"name":"greet"' in f)
        assert tool["description"] == "Greets someone.\n\nAs often as asked.", tool
        assert tool["schema"] == {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "times": {"type": "integer", "default": 1},
                "shout": {"type": "boolean", "default": False},
            },
            "required": ["name"],
            "additionalProperties": False,
        }, tool
        c.send('{"type":"command_invoked","id":"1","name":"late","args":""}')
        lines = c.read_until(lambda f: f["type"] == "command_response")
        assert lines[0] == '{"type":"notify","level":"info","message":"hello from the hook"}', lines
        assert json.loads(lines[-1])["display"] == "loaded at hello: [], cwd /proj"
        c.close_stdin()
        assert c.wait(10) == 0, c.stderr
    finally:
        c.kill()


def loop_runs_then_exits(c: Child) -> None:
    """The child's `async def` command `later` answers (its event loop
    runs), and the child exits 0 once stdin closes."""
    c.send('{"type":"command_invoked","id":"c","name":"later","args":""}')
    response = json.loads(c.read_until(lambda f: f["type"] == "command_response")[-1])
    assert response["display"] == "the loop runs", response
    c.close_stdin()
    assert c.wait(10) == 0, c.stderr


def test_a_plain_def_tool_answers_while_asyncio_loads(tmp_path: Path) -> None:
    # A plain `def` handler's job goes from the engine to a worker thread,
    # which needs no event loop: after `ready` it is answered without
    # waiting for asyncio (most of the SDK's start-up). Here importing
    # asyncio waits until the second tool runs (or 10 s): the first tool's
    # answer says asyncio had not loaded; the second returns an awaitable,
    # awaited once the loop runs; the session runs on afterwards.
    path = script(
        tmp_path,
        """
        import sys, threading
        from zot_ext import Extension

        release = threading.Event()

        class HoldAsyncio:
            def find_spec(self, name, path=None, target=None):
                if name == "asyncio":
                    sys.meta_path.remove(self)
                    release.wait(10)
                return None

        ext = Extension("quick", "1.0.0")

        @ext.tool()
        def probe() -> str:
            \"\"\"Whether asyncio had loaded.\"\"\"
            return f"asyncio loaded: {'asyncio' in sys.modules}"

        @ext.tool()
        def awaits() -> object:
            \"\"\"Returns an awaitable.\"\"\"
            release.set()

            async def later() -> str:
                return "awaited on the loop"

            return later()

        @ext.command("later")
        async def later(args: str) -> str:
            return "the loop runs"

        sys.meta_path.insert(0, HoldAsyncio())
        ext.run()
        """,
    )
    c = Child([sys.executable, str(path)])
    try:
        c.handshake()
        c.send('{"type":"tool_call","id":"t","name":"probe","args":{}}')
        result = json.loads(c.read_until(lambda f: f["type"] == "tool_result")[-1])
        assert result["content"] == [{"type": "text", "text": "asyncio loaded: False"}], result
        c.send('{"type":"tool_call","id":"a","name":"awaits","args":{}}')
        result = json.loads(c.read_until(lambda f: f["type"] == "tool_result")[-1])
        assert result["content"] == [{"type": "text", "text": "awaited on the loop"}], result
        loop_runs_then_exits(c)
    finally:
        c.kill()


def test_a_plain_def_tool_answers_while_typing_is_half_imported(tmp_path: Path) -> None:
    # The session's loop imports `typing` after `ready` while worker
    # threads answer calls. Here that import stops halfway (the module is in
    # `sys.modules`, not initialized) until the last tool runs: reading a
    # tool's typed argument meanwhile must not use the half-made module
    # ("partially initialized module 'typing' has no attribute ...").
    path = script(
        tmp_path,
        """
        import importlib.util, sys, threading
        from zot_ext import Extension

        assert "typing" not in sys.modules
        held, release = threading.Event(), threading.Event()

        class HeldLoader:
            def __init__(self, real):
                self.real = real

            def create_module(self, spec):
                return None

            def exec_module(self, module):
                held.set()
                release.wait(10)
                self.real.exec_module(module)

        class HoldTyping:
            def find_spec(self, name, path=None, target=None):
                if name != "typing":
                    return None
                sys.meta_path.remove(self)
                spec = importlib.util.find_spec("typing")
                spec.loader = HeldLoader(spec.loader)
                return spec

        ext = Extension("half", "1.0.0")

        @ext.tool()
        def held_up() -> str:
            \"\"\"Waits until the import of typing is held.\"\"\"
            return f"held: {held.wait(10)}"

        @ext.tool()
        def echo(text: str) -> str:
            \"\"\"Echoes text.\"\"\"
            half = not hasattr(sys.modules["typing"], "Any")
            return f"{text} (typing half imported: {half})"

        @ext.tool()
        def go_on() -> str:
            \"\"\"Lets the import of typing finish.\"\"\"
            release.set()
            return "released"

        @ext.command("later")
        async def later(args: str) -> str:
            return "the loop runs"

        sys.meta_path.insert(0, HoldTyping())
        ext.run()
        """,
    )
    c = Child([sys.executable, str(path)])

    def tool(name: str, args: str) -> object:
        c.send(f'{{"type":"tool_call","id":"{name}","name":"{name}","args":{args}}}')
        result = json.loads(c.read_until(lambda f: f["type"] == "tool_result")[-1])
        return result["content"]

    try:
        c.handshake()
        assert tool("held_up", "{}") == [{"type": "text", "text": "held: True"}]
        text = "hi (typing half imported: True)"
        assert tool("echo", '{"text":"hi"}') == [{"type": "text", "text": text}]
        assert tool("go_on", "{}") == [{"type": "text", "text": "released"}]
        loop_runs_then_exits(c)
    finally:
        c.kill()


def test_an_event_read_with_the_handshake_runs_before_the_command_after_it(tmp_path: Path) -> None:
    # With the handshake done before the loop, the first jobs the loop takes
    # can hold an event and a command right behind it: the event's handler
    # still runs first (SDK-35 order against the command that reads it).
    path = script(
        tmp_path,
        """
        from zot_ext import Extension

        ext = Extension("order", "1.0.0")
        seen = []

        @ext.on("turn_start")
        async def record(event: dict) -> None:
            seen.append(event["step"])

        @ext.command("seen")
        async def show(args: str) -> str:
            return repr(seen)

        ext.run()
        """,
    )
    c = Child([sys.executable, str(path)])
    try:
        first = c.read()
        assert first is not None and first.startswith('{"type":"hello"'), c.stderr
        c.send(
            ACK
            + '\n{"type":"event","event":"turn_start","step":7}'
            + '\n{"type":"command_invoked","id":"1","name":"seen","args":""}'
        )
        lines = c.read_until(lambda f: f["type"] == "command_response")
        assert json.loads(lines[-1])["display"] == "[7]", lines
        c.close_stdin()
        assert c.wait(10) == 0, c.stderr
    finally:
        c.kill()
