"""Typed use of the generated protocol types; checked by ``mypy --strict``
(not collected by pytest). It proves that the TypedDicts narrow on their
tags and that optional keys really are optional."""

from __future__ import annotations

from typing import List

from zot_ext._protocol import (
    EXT_FRAME_TYPES,
    ContentBlock,
    ExtFrame,
    ExtFrameType,
    Hello,
    HostFrame,
    LifecycleEvent,
    PanelClose,
    RegisterTool,
    ToolResult,
)


def hello() -> Hello:
    # Optional keys may be left out; required ones may not.
    return {"type": "hello", "name": "demo", "capabilities": ["tools", "call_tool"]}


def frames() -> List[ExtFrame]:
    tool: RegisterTool = {
        "type": "register_tool",
        "name": "echo",
        "schema": {"type": "object"},
        "exposure": "model-only",
    }
    result: ToolResult = {
        "type": "tool_result",
        "id": "1",
        "content": [{"type": "text", "text": "hi"}],
        "structured_content": [1, "two"],
    }
    close: PanelClose = {"type": "panel_close", "panel_id": "p"}
    return [hello(), tool, result, {"type": "ready"}, close]


def describe(frame: HostFrame) -> str:
    if frame["type"] == "tool_call":
        return f"call {frame['name']} #{frame['id']}"
    if frame["type"] == "tool_result":
        # The host's tool_result, not the extension's.
        return f"{frame['id']}: {text(frame.get('content', []))}"
    if frame["type"] == "event":
        return on_event(frame)
    if frame["type"] == "event_intercept":
        if frame["event"] == "before_agent_start":
            return frame.get("system_prompt", "")
        return frame["id"]
    if frame["type"] == "panel_resize":
        return f"{frame['width']}x{frame['height']}"
    return frame["type"]


def on_event(event: LifecycleEvent) -> str:
    if event["event"] == "turn_start":
        step: int = event.get("step", 0)
        return f"turn {step}"
    if event["event"] == "tool_result":
        return event["status"]
    if event["event"] == "session_end":
        return event["reason"]
    return event["event"]


def text(blocks: List[ContentBlock]) -> str:
    return "".join(b.get("text", "") for b in blocks if b["type"] == "text")


def frame_type(name: str) -> ExtFrameType | None:
    for known in EXT_FRAME_TYPES:
        if known == name:
            return known
    return None
