"""Drives `zot-mcp wrap` over the official MCP test server
(@modelcontextprotocol/server-everything) as a zot host would: handshake,
registrations, calls, a cancellation mid-call and shutdown.

Usage: drive.py ZOT_MCP SERVER_JS
"""

import json
import subprocess
import sys


def main():
    zot_mcp, server = sys.argv[1], sys.argv[2]
    proc = subprocess.Popen(
        [zot_mcp, "wrap", "--name", "everything", "--", "node", server, "stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    frames = []

    def recv():
        line = proc.stdout.readline()
        if not line:
            sys.exit(f"zot-mcp closed its output (exit {proc.wait()})")
        frame = json.loads(line)
        frames.append(frame)
        return frame

    def send(frame):
        proc.stdin.write(json.dumps(frame) + "\n")
        proc.stdin.flush()

    def until(pred):
        while True:
            f = recv()
            if pred(f):
                return f

    def call(id_, name, args):
        send({"type": "tool_call", "id": id_, "name": name, "args": args})
        return until(lambda f: f["type"] == "tool_result" and f["id"] == id_)

    assert recv()["type"] == "hello"
    send(
        {
            "type": "hello_ack",
            "protocol_version": 1,
            "capabilities": ["call_tool"],
            "zot_version": "test",
            "provider": "test",
            "model": "test",
            "cwd": "/tmp",
            "extension_dir": "/tmp",
            "data_dir": "/tmp",
        }
    )
    until(lambda f: f["type"] == "ready")
    tools = {f["name"] for f in frames if f["type"] == "register_tool"}
    want = {"echo", "get-sum", "get-tiny-image", "get-structured-content", "trigger-long-running-operation"}
    assert want <= tools, f"missing tools: {want - tools}"

    r = call("c1", "echo", {"message": "hi"})
    assert r["content"] == [{"type": "text", "text": "Echo: hi"}], r
    r = call("c2", "get-sum", {"a": 2, "b": 3})
    assert "5" in r["content"][0]["text"], r
    r = call("c3", "get-tiny-image", {})
    assert any(b["type"] == "image" and b["mime_type"] == "image/png" for b in r["content"]), r
    r = call("c4", "get-structured-content", {"location": "New York"})
    assert "temperature" in r["structured_content"], r
    r = call("c5", "trigger-long-running-operation", {"duration": 1, "steps": 2})
    notes = [f["message"] for f in frames if f["type"] == "notify"]
    assert "progress 2/2" in notes, notes

    # Cancel a long call once it reported progress: no result comes for it,
    # and the server keeps answering.
    send(
        {
            "type": "tool_call",
            "id": "c6",
            "name": "trigger-long-running-operation",
            "args": {"duration": 30, "steps": 30},
        }
    )
    until(lambda f: f["type"] == "notify")
    send({"type": "tool_cancel", "id": "c6"})
    r = call("c7", "echo", {"message": "still here"})
    assert r["content"][0]["text"] == "Echo: still here", r
    assert not any(f["type"] == "tool_result" and f["id"] == "c6" for f in frames)

    send({"type": "shutdown"})
    until(lambda f: f["type"] == "shutdown_ack")
    proc.stdin.close()
    assert proc.wait() == 0
    print(
        f"server-everything through zot-mcp wrap: {len(tools)} tools registered, "
        "text, image, structured content, progress and cancellation ok"
    )


if __name__ == "__main__":
    main()
