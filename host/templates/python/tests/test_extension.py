from typing import Dict

from extension import extension
from zot_ext.testing import TestHost


def test_command_tool_and_event() -> None:
    state: Dict[str, int] = {"turns": 0}
    with TestHost(extension(state)) as host:
        reg = host.registration
        assert [c["name"] for c in reg.commands] == ["{{command}}"]
        assert reg.events == ["turn_start"]

        assert host.command("{{command}}", "Ada")["display"] == "Hello, Ada! (0 turns so far)"

        r = host.tool("{{tool}}", {"name": "Ada", "excited": True})
        assert r["content"] == [{"type": "text", "text": "Hello, Ada!"}]

        host.event({"event": "turn_start", "step": 1})
        # Shutting down lets the handler finish first.
        host.shutdown()
    assert state["turns"] == 1
