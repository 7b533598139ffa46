"""`zot-mcp serve --http 127.0.0.1:0 EXT_DIR` for the drivers beside this
file: starts it, reads the URL and the token it prints on stderr, and stops
it with SIGTERM (which must end it with status 0)."""

import contextlib
import signal
import subprocess
import sys
import threading


@contextlib.contextmanager
def served(zot_mcp, ext_dir, env):
    """Yields (url, token) of a running `serve --http`."""
    env = {k: v for k, v in env.items() if k != "ZOT_MCP_TOKEN"}
    cmd = [zot_mcp, "serve", "--http", "127.0.0.1:0", ext_dir]
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = token = None
    try:
        # The URL comes once the extension is ready, then the token.
        for line in proc.stderr:
            if "at http://" in line:
                url = line.split(" at ", 1)[1].strip()
            elif line.startswith("zot-mcp: token: "):
                token = line.removeprefix("zot-mcp: token: ").strip()
                break
        if not (url and token):
            sys.exit(f"{' '.join(cmd)} printed no URL and token (exit {proc.wait()})")
        # Keep draining stderr so the server never blocks on it.
        threading.Thread(target=lambda: [sys.stderr.write(line) for line in proc.stderr], daemon=True).start()
        yield url, token
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    if code != 0:
        sys.exit(f"{' '.join(cmd)} exited {code} on SIGTERM")
