"""What a type checker sees of the installed package: ``Extension.on`` pairs
each lifecycle event name with its ``TypedDict`` (the generated overloads in
``zot_ext._events``), interceptors are checked against their request type
and verdict, commands against ``str``: a mismatched handler is a mypy
error."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict

import pytest
from zot_ext.protocol import LIFECYCLE_EVENTS

PROBE = """
from typing import Any, Dict, Mapping, Optional
from zot_ext import Ctx, Extension, LifecycleEvent, Response, ToolCallEvent, TurnEndEvent
from zot_ext import ToolCallVerdict, ToolCallIntercept, TurnStartIntercept, BeforeAgentStartIntercept

ext = Extension("typed")

@ext.on("tool_call")
def with_ctx(ev: ToolCallEvent, ctx: Ctx) -> None:
    ctx.log(ev.get("tool_name", ""))

@ext.on("tool_call")
async def event_only(ev: ToolCallEvent) -> None: ...

@ext.on("turn_end")
def no_args() -> None: ...

@ext.on("tool_call")
def any_event(ev: LifecycleEvent, ctx: Ctx) -> None: ...

@ext.on("tool_call")
def mapping(ev: Mapping[str, Any]) -> None: ...

@ext.on("an_event_from_a_later_version")
def unknown(ev: Dict[str, Any], ctx: Ctx) -> None: ...

def passed(ev: ToolCallEvent, ctx: Ctx) -> None: ...

kept = ext.on("tool_call", passed)
reveal_type(kept)

@ext.on("tool_call")
def wrong_event(ev: TurnEndEvent, ctx: Ctx) -> None: ...  # error: wrong_event

@ext.on("tool_call")
def wrong_ctx(ev: ToolCallEvent, ctx: int) -> None: ...  # error: wrong_ctx

@ext.on("turn_end", thread="no")  # error: thread
def bad_option(ev: TurnEndEvent) -> None: ...

@ext.command("hi", "Say hi")
def hi(args: str, ctx: Ctx) -> Response:
    return Response.display(args)

@ext.command("count", "")  # error: command_args
def count(args: int) -> str:
    return str(args)

@ext.intercept_tool_call
def guard(req: ToolCallIntercept, ctx: Ctx) -> ToolCallVerdict:
    return ToolCallVerdict.block("no") if req.get("tool_name") == "bash" else ToolCallVerdict.allow()

@ext.intercept_tool_call  # error: intercept_request
def wrong_request(req: TurnStartIntercept) -> None: ...

@ext.intercept_turn_start  # error: intercept_verdict
async def wrong_verdict(req: TurnStartIntercept) -> ToolCallVerdict:
    return ToolCallVerdict.allow()

@ext.intercept_before_agent_start
def prompt(req: BeforeAgentStartIntercept) -> str:
    return req.get("system_prompt", "") + "!"

@ext.command
def bare_command(args: str, ctx: Ctx) -> str:
    return args

@ext.command  # error: bare_command_args
def bare_count(args: int) -> str:
    return str(args)

@ext.tool
async def bare_tool(city: str, days: int = 3, ctx: Optional[Ctx] = None) -> str:
    return city

@ext.tool(description="Described")
def described(args: Dict[str, Any]) -> str:
    return ""

reveal_type(bare_tool)
"""


def run_mypy(tmp_path: Path) -> str:
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent(PROBE))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            str(probe),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    return r.stdout + r.stderr


def test_on_checks_the_handler_against_the_event(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    out = run_mypy(tmp_path)
    lines = textwrap.dedent(PROBE).splitlines()
    # Every reported error, by the probe line's marker (the decorator's line
    # or the one after it).
    errors: Dict[str, str] = {}
    for m in re.finditer(r"probe\.py:(\d+): error: (.*)", out):
        n = int(m.group(1))
        near = "\n".join(lines[n - 1 : n + 1])
        marker = re.search(r"# error: (\w+)", near)
        assert marker, f"unexpected mypy error: {m.group(0)}\n{out}"
        errors[marker.group(1)] = m.group(2)
    assert set(errors) == {
        "wrong_event",
        "wrong_ctx",
        "thread",
        "command_args",
        "intercept_request",
        "intercept_verdict",
        "bare_command_args",
    }, out
    assert "TurnEndEvent" in errors["wrong_event"], out
    assert "int" in errors["wrong_ctx"], out
    # The direct form returns the handler unchanged.
    assert re.search(r'Revealed type is "def \(ev: TypedDict\(.*ToolCallEvent', out), out
    # A bare decorator too (the keyword-parameter tool keeps its signature).
    assert re.search(r'Revealed type is "def \(city: builtins.str, days: builtins.int =', out), out


def test_the_typed_overloads_cover_every_lifecycle_event() -> None:
    # The overloads exist for type checkers only (they are not defined at
    # run time, where `typing` is not loaded): read them from the source.
    import ast

    from zot_ext import _events

    tree = ast.parse(Path(_events.__file__).read_text())
    named = set()
    for node in ast.walk(tree):
        overload = isinstance(node, ast.FunctionDef) and any(
            isinstance(d, ast.Name) and d.id == "overload" for d in node.decorator_list
        )
        if overload and node.name == "on":
            event = next(a for a in node.args.args if a.arg == "event")
            named.update(re.findall(r"Literal\[[\"']([a-z_]+)[\"']\]", ast.unparse(event.annotation)))
    assert named == set(LIFECYCLE_EVENTS)
