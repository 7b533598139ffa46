"""``TestHost.spawn`` / ``AsyncTestHost.spawn``: the testing harness driving
an extension *process* over its stdin and stdout: the Rust conformance
extension (its registration lines, a command, a tool, a ``call_tool`` round
trip, a clean exit), the Python one started with this interpreter, and the
errors that name the command."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from zot_ext.testing import AsyncTestHost, HarnessError, TestHost, default_hello_ack

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "tests" / "conformance" / "python"
RUST_BIN = os.environ.get("ZOT_EXT_RUST_CONFORMANCE", str(ROOT / "target" / "debug" / "conformance-rust"))


def readme_lines() -> Any:
    readme = (ROOT / "tests" / "conformance" / "rust" / "README.md").read_text()
    section = readme[readme.index("## What it registers, byte for byte") :]
    start = section.index("```\n") + 4
    return section[start : section.index("\n```", start)].split("\n")


@pytest.mark.skipif(
    not Path(RUST_BIN).exists(), reason="conformance-rust is not built (cargo build -p conformance-rust)"
)
def test_drives_the_rust_conformance_extension_as_a_process() -> None:
    with TestHost.spawn(RUST_BIN, hello_ack=default_hello_ack(cwd="/proj")) as host:
        assert host.transcript() == readme_lines()
        assert host.command("echo", "a  b")["display"] == "a  b"
        assert host.command("cwd")["display"] == "/proj"
        assert host.tool("add", {"a": 2, "b": 40})["content"] == [{"type": "text", "text": "sum=42"}]
        id = host.start_tool("compose", {"text": "hi"})
        call = host.expect_call_tool()
        assert call["name"] == "echo"
        host.answer_call(call, "inner:hi")
        assert not host.tool_result(id).get("is_error")
        assert host.shutdown()[-1]["type"] == "shutdown_ack"
    # Leaving the block waited for a clean exit (code 0).


def test_drives_a_python_extension_with_cwd_env_and_captured_stderr(tmp_path: Path) -> None:
    env = {**os.environ, "ZOT_TEST_MARK": "1"}
    with TestHost.spawn(
        sys.executable, [str(CONFORMANCE / "conformance.py")], cwd=str(tmp_path), env=env
    ) as host:
        assert host.registration.hello["name"] == "conformance"
        assert host.command("Greet", "Ada")["prompt"] == "Hello, Ada"
        assert host.command("cwd")["display"] == os.getcwd()  # the hello_ack's, not the process's
        assert host.stderr() == "[conformance] conformance started\n"


async def test_async_host_spawns_and_reports_a_failed_exit() -> None:
    script = "import sys; sys.exit(0)"
    with pytest.raises(HarnessError) as e:
        async with AsyncTestHost.spawn(sys.executable, ["-c", script]):
            pass
    assert f"`{sys.executable} -c {script}`: closed its output before hello" in str(e.value)
    async with AsyncTestHost.spawn(sys.executable, [str(CONFORMANCE / "conformance.py")]) as host:
        assert (await host.command("echo", "x"))["display"] == "x"
        host_id = await host.start_tool("sleep", {"ms": 60000})
        await host.cancel_tool(host_id)
        assert (await host.shutdown())[-1]["type"] == "shutdown_ack"


def test_an_exit_before_hello_names_the_command_its_code_and_stderr() -> None:
    script = "import sys; sys.stderr.write('boom: no config\\n'); sys.exit(3)"
    with pytest.raises(HarnessError) as e:
        TestHost.spawn(sys.executable, ["-c", script]).start()
    msg = str(e.value)
    assert f"`{sys.executable} -c {script}`: closed its output before hello; it exited (exit " in msg, msg
    assert ": 3)" in msg and msg.endswith("its stderr:\nboom: no config"), msg


def test_a_command_that_cannot_start_is_named() -> None:
    with pytest.raises(HarnessError) as e:
        TestHost.spawn("zot-no-such-extension-binary", ["--flag"]).start()
    assert str(e.value).startswith("cannot start `zot-no-such-extension-binary --flag`: "), e.value


def test_a_process_still_running_is_killed_and_its_end_reported() -> None:
    host = TestHost.spawn(sys.executable, [str(CONFORMANCE / "conformance.py")])
    host.start()
    host.start_tool("sleep", {"ms": 60000})
    host.core.harness.close()  # killed now
    with pytest.raises(HarnessError):
        host.transcript()


CRASHING = """
import os, sys
from zot_ext import Extension, Response

ext = Extension("crashing", "1.0.0")

@ext.command("crash", "Exit at once")
def crash(args: str) -> Response:
    sys.stderr.write("crashing on purpose\\n")
    sys.stderr.flush()
    os._exit(5)

ext.run()
"""


def test_a_crash_mid_session_names_the_command_its_code_and_stderr() -> None:
    host = TestHost.spawn(sys.executable, ["-c", CRASHING])
    host.start()
    try:
        with pytest.raises(HarnessError) as e:
            host.command("crash")
        msg = str(e.value)
        assert "`: the extension closed its output; it exited (exit " in msg, msg
        assert ": 5)" in msg and msg.endswith("its stderr:\ncrashing on purpose"), msg
    finally:
        host.close(raise_errors=False)
