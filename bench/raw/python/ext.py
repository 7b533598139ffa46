#!/usr/bin/env python3
"""A hand-rolled zot extension in the style of the docs' quick start: stdlib
json, no SDK. The benchmarks' baseline for "what Python users write today".
Tools: echo (text), big (bytes); subscribes to tool_call and tool_result."""

import json
import sys


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


emit({"type": "hello", "name": "raw-python", "version": "1.0.0", "capabilities": ["tools", "events"]})

for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello_ack":
        emit(
            {
                "type": "register_tool",
                "name": "echo",
                "description": "echo text",
                "schema": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
            }
        )
        emit(
            {
                "type": "register_tool",
                "name": "big",
                "description": "n bytes of x",
                "schema": {"type": "object", "properties": {"bytes": {"type": "integer"}}},
            }
        )
        emit({"type": "subscribe", "events": ["tool_call", "tool_result"]})
        emit({"type": "ready"})
    elif kind == "tool_call":
        args = msg.get("args") or {}
        if msg["name"] == "echo":
            text = args.get("text")
            if isinstance(text, str):
                emit({"type": "tool_result", "id": msg["id"], "content": [{"type": "text", "text": text}]})
            else:
                emit(
                    {
                        "type": "tool_result",
                        "id": msg["id"],
                        "is_error": True,
                        "content": [{"type": "text", "text": "missing text"}],
                    }
                )
        elif msg["name"] == "big":
            emit(
                {
                    "type": "tool_result",
                    "id": msg["id"],
                    "content": [{"type": "text", "text": "x" * int(args.get("bytes", 0))}],
                }
            )
    elif kind == "event":
        pass
    elif kind == "shutdown":
        emit({"type": "shutdown_ack"})
        break
