"""A minimal zot host over `zot-mcp wrap`, for the drivers beside this
file: it starts the bridge, does the handshake (docs/protocol.md §5),
collects the registrations and exchanges frames."""

import json
import subprocess
import sys


class ZotHost:
    def __init__(self, zot_mcp, command, name=None):
        args = [zot_mcp, "wrap"] + (["--name", name] if name else []) + ["--", *command]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.frames = []
        assert self.recv()["type"] == "hello"
        self.send(
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
        self.until(lambda f: f["type"] == "ready")

    def recv(self):
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"zot-mcp closed its output (exit {self.proc.wait()})")
        frame = json.loads(line)
        self.frames.append(frame)
        return frame

    def send(self, frame):
        self.proc.stdin.write(json.dumps(frame) + "\n")
        self.proc.stdin.flush()

    def until(self, pred):
        while True:
            f = self.recv()
            if pred(f):
                return f

    def registered(self, kind):
        """The names of the registered tools (`tool`) or commands (`command`)."""
        return [f["name"] for f in self.frames if f["type"] == f"register_{kind}"]

    def call(self, id_, name, args):
        self.send({"type": "tool_call", "id": id_, "name": name, "args": args})
        return self.until(lambda f: f["type"] == "tool_result" and f["id"] == id_)

    def command(self, id_, name, args=""):
        self.send({"type": "command_invoked", "id": id_, "name": name, "args": args})
        return self.until(lambda f: f["type"] == "command_response" and f["id"] == id_)

    def shutdown(self):
        self.send({"type": "shutdown"})
        self.until(lambda f: f["type"] == "shutdown_ack")
        self.proc.stdin.close()
        assert self.proc.wait() == 0, "zot-mcp exits 0 after shutdown"
