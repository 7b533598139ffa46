"""The Python examples (examples/python), in-process with zot_ext.testing."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from zot_ext import Extension
from zot_ext.testing import TestHost

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def load(example: str, module: str) -> ModuleType:
    path = EXAMPLES / example / f"{module}.py"
    spec = importlib.util.spec_from_file_location(f"example_{module}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses resolve their module
    spec.loader.exec_module(mod)
    return mod


def text(result: Any) -> str:
    return str(result["content"][0]["text"])


def test_every_example_has_a_manifest_and_a_readme() -> None:
    for d in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        manifest = json.loads((d / "extension.json").read_text())
        assert manifest["language"] == "python"
        assert (d / manifest["args"][0]).exists()
        assert (d / "README.md").exists()
    assert {p.name for p in EXAMPLES.iterdir()} >= {
        "hello-py", "weather", "guard", "todo", "ask-user", "composer",
    }  # fmt: skip


def test_hello() -> None:
    ext: Extension = load("hello-py", "hello").ext
    with TestHost(ext, cwd="/proj") as host:
        assert host.command("hello", "Ada")["display"] == "Hello, Ada!"
        assert host.command("hello")["display"] == "Hello, world!"
        assert host.command("ask-hello", "Bob")["prompt"] == "Write a one-line greeting for Bob."
        assert host.command("ping")["action"] == "noop"
        assert '{"type":"notify","level":"success","message":"pong"}' in host.transcript()
        assert host.command("where")["display"] == "zot test · test/test · project /proj"


def test_weather() -> None:
    ext: Extension = load("weather", "weather").ext
    with TestHost(ext) as host:
        tool = host.registration.tools[0]
        assert tool["schema"] == {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": 'City name, e.g. "Lisbon".'},
                "days": {
                    "type": "integer",
                    "description": "Number of days (1 to 7, default 3).",
                    "minimum": 1,
                    "maximum": 7,
                    "default": 3,
                },
            },
            "required": ["city"],
            "additionalProperties": False,
        }
        assert "high_c" in json.dumps(tool.get("output_schema"))
        r = host.tool("forecast", {"city": "Lisbon", "days": 2})
        assert text(r).startswith("Lisbon:\nday 1: ")
        structured = r.get("structured_content")
        assert isinstance(structured, dict) and len(structured["days"]) == 2
        bad = host.tool("forecast", {"days": 2})
        # Checked by the engine against the schema, the same in every SDK.
        assert bad.get("is_error") and text(bad) == "invalid arguments: missing field `city`"
        # Bounded by the schema, as in the Node and Rust examples.
        assert text(host.tool("forecast", {"city": "X", "days": 9})) == (
            "invalid arguments: field `days`: 9 is greater than the maximum of 7"
        )
        assert len(host.tool("forecast", {"city": "X"}).get("structured_content", {})["days"]) == 3


def test_guard() -> None:
    ext: Extension = load("guard", "guard").ext
    with TestHost(ext) as host:
        r = host.intercept({"event": "tool_call", "tool_name": "bash", "tool_args": {"command": "rm -rf /"}})
        assert r.get("block") and r.get("reason") == "guard: `rm -rf` is not allowed"
        r = host.intercept({"event": "tool_call", "tool_name": "bash", "tool_args": {"command": " ls "}})
        assert r.get("modified_args") == {"command": "ls -la"}
        r = host.intercept({"event": "tool_call", "tool_name": "bash", "tool_args": {}})
        assert r.get("block") and r.get("reason") == (
            'blocked: tool_call interceptor of "guard" failed: ValueError: guard: bash without a command'
        )
        assert host.intercept({"event": "turn_start", "step": 51}).get("block")
        r = host.intercept({"event": "assistant_message", "text": "key sk-0123456789abcdefghijklmn ok"})
        assert r.get("replace_text") == "key [redacted key] ok"
        assert "replace_text" not in host.intercept({"event": "assistant_message", "text": "sk-short"})
        r = host.intercept({"event": "before_agent_start", "system_prompt": "Base"})
        assert r.get("system_prompt") == "Base\n\nNever print secrets such as API keys."


def test_todo(tmp_path: Path) -> None:
    mod = load("todo", "todo")
    with TestHost(mod.build(), data_dir=str(tmp_path)) as host:
        assert text(host.tool("todo_add", {"text": "write docs"})) == "added #1: write docs"
        host.tool("todo_add", {"text": "ship"})
        assert text(host.tool("todo_done", {"index": 1})) == "done: write docs"
        assert host.tool("todo_done", {"index": 9}).get("is_error")
        listed = host.tool("todo_list", {})
        assert listed.get("structured_content") == {
            "items": [{"text": "write docs", "done": True}, {"text": "ship", "done": False}]
        }
        r = host.command("todo")
        panel = r.get("open_panel")
        assert panel is not None and panel["id"] == "todo-cmd-6"
        host.panel_key(panel["id"], "down")
        host.panel_key(panel["id"], "enter")
        host.panel_key(panel["id"], "rune", "q")
        frames = [host.next_frame() for _ in range(3)]
        assert frames[1] == {
            "type": "panel_render",
            "panel_id": "todo-cmd-6",
            "lines": ["  [x] write docs", "▸ [x] ship"],
            "footer": "↑/↓ move · enter toggle · d delete · q close",
        }
        assert frames[2] == {"type": "panel_close", "panel_id": "todo-cmd-6"}
    saved = json.loads((tmp_path / "todos.json").read_text())
    assert saved == [{"text": "write docs", "done": True}, {"text": "ship", "done": True}]
    # Persisted: a new session loads it.
    with TestHost(mod.build(), data_dir=str(tmp_path)) as host:
        assert "ship" in text(host.tool("todo_list", {}))


def test_ask_user() -> None:
    ext: Extension = load("ask-user", "ask_user").ext
    with TestHost(ext) as host:
        assert host.registration.tools[0].get("interactive") is True

        def open_() -> tuple[str, str]:
            tid = host.start_tool("ask_user", {"question": "Deploy?", "choices": ["yes", "no"]})
            frame = host.next_frame()
            while frame["type"] != "open_panel":  # renders of the previous panel
                frame = host.next_frame()
            assert frame["panel"] == {
                "id": f"ask-{tid}",
                "title": "Deploy?",
                "lines": ["▸ yes", "  no"],
                "footer": "↑/↓ choose · enter answer · esc dismiss",
            }
            return tid, frame["panel"]["id"]

        tid, panel = open_()
        host.panel_key(panel, "down")
        host.panel_key(panel, "enter")
        assert text(host.tool_result(tid)) == "The user chose: no"

        tid, panel = open_()
        host.panel_close(panel)
        assert host.tool_result(tid).get("is_error")

        tid, panel = open_()
        host.cancel_tool(tid)
        # The handler closes its own panel; no result is sent.
        assert host.next_frame() == {"type": "panel_close", "panel_id": panel}
        assert host.tool("ask_user", {"question": "q", "choices": []}).get("is_error")
        assert not any(f'"id":"{tid}"' in ln and "tool_result" in ln for ln in host.transcript())


def test_composer() -> None:
    ext: Extension = load("composer", "composer").ext
    with TestHost(ext, capabilities=["call_tool", "call_tool_durable"]) as host:
        tid = host.start_tool("read_many", {"paths": ["a.txt", "b.txt"]})
        calls = [host.expect_call_tool(), host.expect_call_tool()]
        assert sorted(c.get("key", "") for c in calls) == ["read-0", "read-1"]
        assert all(c.get("parent_id") == tid for c in calls)
        for c in calls:
            path = (c.get("args") or {})["path"]
            host.answer_call(c, f"{path} body", is_error=path == "b.txt")
        r = host.tool_result(tid)
        assert text(r) == "== a.txt ==\na.txt body\n== b.txt == failed: b.txt body"
        assert not r.get("is_error")

        host.send_json('{"type":"command_invoked","id":"w","name":"wc","args":"x.txt"}')
        call = host.expect_call_tool()
        assert not call.get("parent_id") and "key" not in call
        host.answer_call(call, "1\n2\n3")
        assert host.command_response("w")["display"] == "x.txt: 3 lines"

    with TestHost(ext, capabilities=[]) as host:
        r = host.tool("read_many", {"paths": ["a"]})
        assert r.get("is_error") and "does not support call_tool" in text(r)
        assert host.command("wc", "a")["error"] == "read not done: the host does not support call_tool"


def test_briefing_calls_forecast_for_every_city() -> None:
    ext: Extension = load("briefing", "briefing").ext
    with TestHost(ext) as host:
        tid = host.start_tool("briefing", {"cities": ["Lisbon", "Oslo"]})
        calls = [host.expect_call_tool(), host.expect_call_tool()]
        assert all(c.get("name") == "forecast" and c.get("parent_id") == tid for c in calls)
        for c in calls:
            city = (c.get("args") or {})["city"]
            if city == "Oslo":
                host.answer_call(c, "no data for Oslo", is_error=True)
            else:
                host.answer_call(c, f"{city}:\nday 1: 20 °C, sunny")
        r = host.tool_result(tid)
        assert text(r) == "Lisbon: day 1: 20 °C, sunny\nOslo: no forecast (no data for Oslo)"
        assert host.tool("briefing", {"cities": []}).get("is_error")
