"""`zot-mcp wrap` over server-everything under the reference host: an
installed-style extension folder whose manifest runs the bridge, and a
`zot-host run` session script in which the user runs a prompt command (the
rendered prompt reaches the scripted model), the model calls a tool, and
the resources command lists the server's resources.

Usage: session.py ZOT_HOST ZOT_MCP SERVER_JS
"""

import json
import os
import subprocess
import sys
import tempfile

SCRIPT = {
    "mode": "interactive",
    "steps": [
        {"command": "/everything:args-prompt Austin Texas", "replies": [{"text": "Sunny in Austin."}]},
        {
            "prompt": "add 2 and 3",
            "replies": [
                {"tool_calls": [{"name": "get-sum", "args": {"a": 2, "b": 3}}]},
                {"text": "It is 5."},
            ],
        },
        {"command": "/everything:resources"},
        {
            "expect": {
                "contains": [
                    "What's weather in Austin, Texas?",
                    "Sunny in Austin.",
                    "The sum of 2 and 3 is 5.",
                    "demo://resource/static/document/",
                ]
            }
        },
    ],
}


def main():
    zot_host, zot_mcp, server = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        ext = os.path.join(tmp, "everything")
        os.mkdir(ext)
        manifest = {
            "name": "everything",
            "exec": zot_mcp,
            "args": ["wrap", "--name", "everything", "--", "node", server, "stdio"],
        }
        with open(os.path.join(ext, "extension.json"), "w") as f:
            json.dump(manifest, f)
        script = os.path.join(tmp, "session.json")
        with open(script, "w") as f:
            json.dump(SCRIPT, f)
        cmd = [zot_host, "run", "--script", script, "--ext", ext, "--no-ext", "--json", "--zot-home", tmp]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            sys.exit(f"{' '.join(cmd)} exited {out.returncode}:\n{out.stdout}\n{out.stderr}")
    print(
        "zot-host run: a prompt command, a model tool call and the resources command through zot-mcp wrap ok"
    )


if __name__ == "__main__":
    main()
