#!/usr/bin/env python3
"""A hand-rolled MCP server over stdio in the style of bench/raw/python
(stdlib json, no SDK), with the same `echo` tool: run through `zot-mcp
wrap`, its figures less raw-python's are what the bridge adds per call."""

import json
import sys


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


ECHO = {
    "name": "echo",
    "description": "echo text",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}

for line in sys.stdin:
    msg = json.loads(line)
    method, id_ = msg.get("method"), msg.get("id")
    if id_ is None:
        continue  # notifications (initialized, cancelled)
    if method == "initialize":
        result = {
            "protocolVersion": msg["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench-echo", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": [ECHO]}
    elif method == "tools/call" and msg["params"]["name"] == "echo":
        text = msg["params"].get("arguments", {}).get("text", "")
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "ping":
        result = {}
    else:
        emit({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": f"no method {method}"}})
        continue
    emit({"jsonrpc": "2.0", "id": id_, "result": result})
