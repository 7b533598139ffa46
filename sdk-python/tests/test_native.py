"""The native module itself: the pull model over JSON, its errors, the stubs
checked against it, the fallback without ``add_reader``, and the runtime's
shutdown before the interpreter finalizes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import threading
from typing import Any, Dict, List

import pytest
from zot_ext import Extension, _native
from zot_ext.testing import TestHost, default_hello_ack


def ack_json(**fields: Any) -> str:
    return json.dumps(default_hello_ack(**fields))


def complete(engine: _native.Engine, *answers: Dict[str, Any]) -> List[Dict[str, str]]:
    """Completes a batch of answers; what became of each."""
    answered: List[Dict[str, str]] = json.loads(engine.complete(json.dumps(list(answers))))
    return answered


def jobs(engine: _native.Engine, timeout: float = 5.0) -> List[Dict[str, Any]]:
    engine.wait_jobs(timeout)
    batch: List[Dict[str, Any]] = json.loads(engine.take_jobs())
    return batch


def test_the_pull_model_over_json() -> None:
    engine, harness = _native.Engine.memory("raw", "0.1.0", ack_json(cwd="/w"))
    assert engine.name == "raw"
    engine.register_command("hi", "Say hi")
    engine.register_tool('{"name":"t","schema":{"type":"object"}}', False)
    engine.subscribe("turn_end")
    engine.intercept("turn_start")
    with pytest.raises(_native.EngineError):
        engine.intercept("session_start")
    with pytest.raises(ValueError):
        engine.register_tool("not json", False)

    # The harness connects in the background; the hello job comes first.
    (hello,) = jobs(engine)
    assert hello["kind"] == "hello" and hello["hello_ack"]["cwd"] == "/w"
    ack = engine.hello_ack()
    assert ack is not None and json.loads(ack)["type"] == "hello_ack"
    engine.hello_done()
    reg = json.loads(harness.registration())
    assert [c["name"] for c in reg["commands"]] == ["hi"]
    assert reg["events"] == ["turn_end"] and reg["intercepts"] == ["turn_start"]

    # A command: pulled as JSON, answered in a batch of answers as JSON.
    out: Dict[str, str] = {}
    t = threading.Thread(target=lambda: out.update(r=harness.command("hi", "there")))
    t.start()
    (cmd,) = jobs(engine)
    assert {k: cmd[k] for k in ("kind", "name", "args")} == {"kind": "command", "name": "hi", "args": "there"}
    assert complete(engine, {"job": cmd["id"], "command": {"action": "display", "display": "ok"}}) == [
        {"status": "sent"}
    ]
    t.join(5)
    assert json.loads(out["r"])["display"] == "ok"
    # Answered already: refused, and said so per answer.
    assert complete(engine, {"job": cmd["id"], "command": {}}) == [{"error": f"no open job {cmd['id']}"}]
    with pytest.raises(ValueError):
        engine.complete("{}")  # not a batch

    # A tool cancelled before it was pulled: the job still comes, marked
    # cancelled (or, taken before the cancel was read, followed by one).
    harness.send_json('{"type":"tool_call","id":"x","name":"t","args":{}}')
    harness.cancel_tool("x")
    batch = jobs(engine)
    if not batch[0].get("cancelled"):
        batch += jobs(engine)
        assert [j["kind"] for j in batch] == ["tool", "cancel"]
    else:
        assert [j["kind"] for j in batch] == ["tool"]
    assert engine.is_cancelled(batch[0]["id"])
    assert complete(engine, {"job": batch[0]["id"], "tool": {"content": []}}) == [
        {"status": "dropped:cancelled"}
    ]

    # Spontaneous frames are validated by the engine.
    engine.send('{"type":"notify","level":"info","message":"n"}')
    with pytest.raises(_native.EngineError):
        engine.send('{"type":"ready"}')
    # A refused call is an answer (the contract's CallStarted), not an error.
    started = json.loads(engine.start_call('{"name":"echo","args":[1]}'))
    assert started["error_kind"] == "invalid_request"

    # The blocking wait says False on timeout, with the GIL released.
    assert engine.wait_jobs(0.01) is False
    assert engine.take_jobs() == "[]"
    assert harness.shutdown() == ['{"type":"notify","level":"info","message":"n"}', '{"type":"shutdown_ack"}']
    # `shutdown` comes at once, `finished` once the session has wound down:
    # they may arrive in separate batches.
    kinds: List[str] = []
    while "finished" not in kinds:
        batch = jobs(engine)
        assert batch, f"no `finished` job within 5 s (got {kinds})"
        kinds += [j["kind"] for j in batch]
    assert kinds == ["shutdown", "finished"]


def test_the_stubs_match_the_compiled_module() -> None:
    pytest.importorskip("mypy")
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "zot_ext._native"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_event_loops_without_add_reader_are_served_by_a_polling_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_readers(self: Any, fd: int, cb: Any, *args: Any) -> None:
        raise NotImplementedError

    monkeypatch.setattr(asyncio.SelectorEventLoop, "add_reader", no_readers)
    ext = Extension("polling")
    ext.command("hi", "", lambda args: f"hi {args}")
    with TestHost(ext) as host:
        assert host.command("hi", "poll")["display"] == "hi poll"
        assert any(t.name == "zot-ext-poll" for t in threading.enumerate())


def test_the_runtime_is_stopped_at_exit_and_not_used_after() -> None:
    code = textwrap.dedent(
        """
        import atexit
        import zot_ext
        from zot_ext import _native
        from zot_ext.testing import TestHost

        ext = zot_ext.Extension("rt", "1.0.0")
        ext.command("x", "", lambda: "x")
        with TestHost(ext) as host:
            host.command("x")
        assert _native.runtime_running()
        _native.shutdown_runtime()  # what the atexit hook does
        assert not _native.runtime_running()
        try:
            TestHost(ext).start()
        except RuntimeError as e:
            print("refused:", e)
        _native.shutdown_runtime()  # twice is fine
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "refused: zot_ext: the runtime was shut down" in r.stdout
