"""The conformance contract (docs/testing/conformance.md) for the Python
copy (tests/conformance/python), in-process with zot_ext.testing: the same
checks as tests/conformance/rust/tests/contract.rs."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator, List

import conformance
import pytest
from zot_ext.testing import TestHost

ROOT = Path(__file__).resolve().parents[2]


def readme_lines() -> List[str]:
    """The registration lines listed in tests/conformance/rust/README.md."""
    text = (ROOT / "tests" / "conformance" / "rust" / "README.md").read_text("utf-8")
    section = text.split("## What it registers, byte for byte", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S)
    assert block is not None
    lines = block.group(1).splitlines()
    assert lines[0].startswith('{"type":"hello"') and lines[-1] == '{"type":"ready"}'
    return lines


@pytest.fixture
def host() -> Iterator[TestHost]:
    with TestHost(conformance.build(), cwd="/project", data_dir="/data") as h:
        yield h


def test_registration_lines_equal_the_rust_readme() -> None:
    with TestHost(conformance.build(), cwd="/proj", data_dir="/data") as h:
        want = readme_lines()
        assert h.transcript()[: len(want)] == want
        assert len(h.transcript()) == len(want)


def test_handshake_registers_everything_in_order(host: TestHost) -> None:
    reg = host.registration
    assert reg.hello["name"] == "conformance" and reg.hello.get("version") == "1.0.0"
    assert reg.hello.get("capabilities") == [
        "commands",
        "tools",
        "events",
        "panels",
        "tool_cancel",
        "call_tool",
    ]
    assert [c["name"] for c in reg.commands] == [
        "echo", "Greet", "insert", "panel", "note", "clear", "submit", "commit", "oops",
        "events", "callecho", "cwd", "datadir",
    ]  # fmt: skip
    assert [t["name"] for t in reg.tools] == [
        "echo", "add", "fail", "sleep", "ask", "compose", "lazy", "loader", "image", "big",
    ]  # fmt: skip
    assert len(reg.events) == 14
    assert reg.intercepts == ["before_agent_start", "tool_call", "turn_start", "assistant_message"]
    assert reg.tools[4].get("interactive") and reg.tools[6].get("deferred")


def test_commands(host: TestHost) -> None:
    assert host.command("echo", "a  b")["display"] == "a  b"
    assert host.command("Greet", "Ada")["prompt"] == "Hello, Ada"
    assert host.command("insert", "text")["insert"] == "text"
    assert host.command("cwd")["display"] == "/project"
    assert host.command("datadir")["display"] == "/data"
    r = host.command("oops", "x")
    assert (r["action"], r["error"]) == ("noop", "command failed: x")
    host.command("commit", "msg")
    assert host.transcript()[-1] == (
        '{"type":"command_response","id":"cmd-7","action":"tool_prompt","prompt":"and push",'
        '"tool_name":"echo","tool_args":{"text":"msg"}}'
    )
    host.command("note", "hello")
    host.command("clear")
    host.command("submit", "go on")
    assert host.transcript()[-6:] == [
        '{"type":"notify","level":"info","message":"hello"}',
        '{"type":"command_response","id":"cmd-8","action":"noop"}',
        '{"type":"clear_notes"}',
        '{"type":"command_response","id":"cmd-9","action":"noop"}',
        '{"type":"submit","text":"go on"}',
        '{"type":"command_response","id":"cmd-10","action":"noop"}',
    ]


def test_panel_counter(host: TestHost) -> None:
    host.command("panel")
    assert host.transcript()[-1].endswith(
        '"action":"open_panel","open_panel":{"id":"conf-panel","title":"Counter",'
        '"lines":["0"],"footer":"up/down - q quits"}}'
    )
    for k in ["up", "up", "down", "left"]:
        host.panel_key("conf-panel", k)
    host.panel_key("conf-panel", "rune", "q")
    assert [host.next_frame_json() for _ in range(4)] == [
        '{"type":"panel_render","panel_id":"conf-panel","lines":["1"]}',
        '{"type":"panel_render","panel_id":"conf-panel","lines":["2"]}',
        '{"type":"panel_render","panel_id":"conf-panel","lines":["1"]}',
        '{"type":"panel_close","panel_id":"conf-panel"}',
    ]
    # Reopen, then the host closes it: later keys are ignored.
    host.command("panel")
    host.panel_close("conf-panel")
    host.panel_key("conf-panel", "up")
    assert host.shutdown() == [{"type": "shutdown_ack"}]


def test_tools(host: TestHost) -> None:
    assert host.tool("echo", {"text": "hi"})["content"] == [{"type": "text", "text": "hi"}]
    # The engine checks the arguments against the schema first.
    for bad, why in [({}, "missing field `text`"), ({"text": 5}, 'field `text`: 5 is not of type "string"')]:
        r = host.tool("echo", bad)
        assert r.get("is_error") and r["content"] == [{"type": "text", "text": f"invalid arguments: {why}"}]
    r = host.tool("add", {"a": 2, "b": 40})
    assert r["content"] == [{"type": "text", "text": "sum=42"}]
    assert '"structured_content":{"sum":42}' in host.transcript()[-1]
    r = host.tool("fail", {})
    assert r.get("is_error") and "boom" in r["content"][0].get("text", "")
    assert host.tool("lazy", {})["content"][0].get("text") == "lazy ok"
    r = host.tool("loader", {})
    assert r["content"][0].get("text") == "loaded" and r.get("activate_tools") == ["lazy"]
    tid = host.start_tool("image", {})
    host.tool_result(tid)
    assert host.transcript()[-1] == (
        f'{{"type":"tool_result","id":"{tid}","content":[{{"type":"text","text":"image"}},'
        '{"type":"image","mime_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ'
        'AAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}]}'
    )
    assert host.tool("big", {"bytes": 1000})["content"][0].get("text") == "x" * 1000


def test_sleep_completes_or_is_cancelled(host: TestHost) -> None:
    assert host.tool("sleep", {"ms": 250})["content"][0].get("text") == "slept 250"
    tid = host.start_tool("sleep", {"ms": 60000})
    ask = host.start_tool("ask", {})
    host.cancel_tool(tid)
    assert host.next_frame() == {"type": "notify", "level": "warn", "message": "cancelled 60000"}
    host.cancel_tool(ask)
    assert host.next_frame() == {"type": "notify", "level": "warn", "message": "ask cancelled"}
    # Shutdown cancels a running sleep too, before the ack.
    host.start_tool("sleep", {"ms": 60000})
    assert host.shutdown() == [
        {"type": "notify", "level": "warn", "message": "cancelled 60000"},
        {"type": "shutdown_ack"},
    ]


def test_compose_and_callecho_use_call_tool(host: TestHost) -> None:
    tid = host.start_tool("compose", {"text": "hi"})
    call = host.expect_call_tool()
    assert (call["name"], call.get("parent_id")) == ("echo", tid)
    assert call.get("args") == {"text": "inner:hi"}
    host.answer_call(call, "inner:hi")
    assert host.tool_result(tid)["content"][0].get("text") == "composed:inner:hi"

    tid = host.start_tool("compose", {"text": "x"})
    host.answer_call(host.expect_call_tool(), "echo failed", is_error=True)
    r = host.tool_result(tid)
    assert r.get("is_error") and r["content"][0].get("text") == "echo failed"

    host.send_json('{"type":"command_invoked","id":"c","name":"callecho","args":"yo"}')
    call = host.expect_call_tool()
    assert not call.get("parent_id") and call.get("args") == {"text": "yo"}
    host.answer_call(call, "yo")
    assert host.command_response("c")["display"] == "called:yo"

    host.send_json('{"type":"command_invoked","id":"d","name":"callecho","args":"no"}')
    host.answer_call(host.expect_call_tool(), "refused", is_error=True)
    assert host.command_response("d")["display"] == "call failed:refused"


def test_callecho_without_call_tool_support() -> None:
    with TestHost(conformance.build(), capabilities=[]) as h:
        assert h.command("callecho", "x")["display"] == "call failed:the host does not support call_tool"


INTERCEPTS = [
    (
        '{"type":"event_intercept","id":"1","event":"tool_call","tool_name":"bash","tool_args":{"command":"sudo rm -rf /"}}',
        '{"type":"event_intercept_response","id":"1","block":true,"reason":"refused: rm -rf"}',
    ),
    (
        '{"type":"event_intercept","id":"2","event":"tool_call","tool_name":"bash","tool_args":{"command":"ls"}}',
        '{"type":"event_intercept_response","id":"2","modified_args":{"command":"echo GUARDED: ls"}}',
    ),
    (
        '{"type":"event_intercept","id":"3","event":"tool_call","tool_name":"read","tool_args":{"command":"ls"}}',
        '{"type":"event_intercept_response","id":"3"}',
    ),
    (
        '{"type":"event_intercept","id":"4","event":"turn_start","step":99}',
        '{"type":"event_intercept_response","id":"4","block":true,"reason":"step limit"}',
    ),
    (
        '{"type":"event_intercept","id":"5","event":"turn_start","step":98}',
        '{"type":"event_intercept_response","id":"5"}',
    ),
    (
        '{"type":"event_intercept","id":"6","event":"assistant_message","text":"BLOCKME"}',
        '{"type":"event_intercept_response","id":"6","block":true,"reason":"blocked"}',
    ),
    (
        '{"type":"event_intercept","id":"7","event":"assistant_message","text":"a SECRET and SECRET"}',
        '{"type":"event_intercept_response","id":"7","replace_text":"a [redacted] and [redacted]"}',
    ),
    (
        '{"type":"event_intercept","id":"8","event":"assistant_message","text":"fine"}',
        '{"type":"event_intercept_response","id":"8"}',
    ),
    (
        '{"type":"event_intercept","id":"9","event":"before_agent_start","system_prompt":"KEEP this"}',
        '{"type":"event_intercept_response","id":"9"}',
    ),
    (
        '{"type":"event_intercept","id":"10","event":"before_agent_start","system_prompt":"REMOVE this"}',
        '{"type":"event_intercept_response","system_prompt":"","id":"10"}',
    ),
    (
        '{"type":"event_intercept","id":"11","event":"before_agent_start","system_prompt":"Base"}',
        '{"type":"event_intercept_response","system_prompt":"Base\\n[conformance]","id":"11"}',
    ),
]


def test_interceptors(host: TestHost) -> None:
    for request, want in INTERCEPTS:
        host.intercept(json.loads(request))
        assert host.transcript()[-1] == want


def test_events_are_recorded_in_arrival_order(host: TestHost) -> None:
    for ev in [
        '{"type":"event","event":"session_start","session_id":"s","cwd":"/","sequence":1}',
        '{"type":"event","event":"turn_start","step":1,"sequence":2}',
        '{"type":"event","event":"some_future_event","sequence":3}',
        '{"type":"event","event":"tool_result","status":"completed","tool_id":"t","tool_name":"x","executed":false,"result":{"content":[],"is_error":false},"sequence":4}',
        '{"type":"event","event":"session_end","reason":"shutdown","sequence":5}',
    ]:
        host.send_json(ev)
    assert host.command("events")["display"] == (
        '{"count":4,"last":["session_start","turn_start","tool_result","session_end"]}'
    )


def test_eof_ends_the_extension(no_leftover_threads: None) -> None:
    h = TestHost(conformance.build())
    h.start()
    h.start_tool("ask", {})
    assert h.close_stdin() == [{"type": "notify", "level": "warn", "message": "ask cancelled"}]
    h.finished()
