"""A quick end-to-end check of an installed zot-ext wheel without pytest (run
by scripts/test.d/40-python.sh on the oldest supported Python): the
conformance extension in-process, sync and async handlers, cancellation and
call_tool."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "conformance" / "python"))

import conformance
import zot_ext
from zot_ext.testing import TestHost

assert "site-packages" in (zot_ext._native.__file__ or ""), zot_ext._native.__file__

with TestHost(conformance.build(), cwd="/proj") as host:
    assert len(host.registration.commands) == 13
    assert host.command("cwd")["display"] == "/proj"
    assert host.tool("add", {"a": 1, "b": 2})["content"] == [{"type": "text", "text": "sum=3"}]
    tid = host.start_tool("compose", {"text": "x"})
    host.answer_call(host.expect_call_tool(), "inner:x")
    assert host.tool_result(tid)["content"][0].get("text") == "composed:inner:x"
    host.start_tool("sleep", {"ms": 60000})
    assert host.shutdown()[-1] == {"type": "shutdown_ack"}
print(f"zot-ext {zot_ext.__version__} works on Python {sys.version.split()[0]}")
