"""The FastMCP-style idioms of the Python SDK, through the public API: bare
decorators, names and descriptions from the function, keyword-parameter
tools, one-line failure logs, and the typed errors."""

from __future__ import annotations

import collections.abc
import logging
import pickle
from typing import Annotated, Any, Dict, List, Literal, Mapping, MutableMapping, Optional, TypedDict

import pytest
import zot_ext
from zot_ext import (
    ArgumentError,
    CallToolError,
    CallToolTimeout,
    CallToolUnsupported,
    Ctx,
    Extension,
    NotRunningError,
    RegistrationError,
    ZotError,
)
from zot_ext.testing import TestHost


def text_of(result: Any) -> str:
    return str(result["content"][0]["text"])


def test_bare_decorators_take_the_name_and_description_from_the_function() -> None:
    ext = Extension("bare")

    @ext.command
    def hi(args: str) -> str:
        """Say hi.

        Longer text for readers, not for the menu."""
        return f"hi {args}"

    @ext.tool
    def shout(args: Dict[str, Any]) -> str:
        """Shout the text back.

        Upper-cases all of it."""
        return str(args.get("text", "")).upper()

    @ext.command()
    def plain() -> str:
        return "plain"

    @ext.tool(description="explicit wins")
    def documented() -> str:
        """Not this."""
        return "ok"

    with TestHost(ext) as host:
        reg = host.registration
        assert [(c["name"], c.get("description", "")) for c in reg.commands] == [
            ("hi", "Say hi."),
            ("plain", ""),
        ]
        assert [(t["name"], t["description"]) for t in reg.tools] == [
            ("shout", "Shout the text back.\n\nUpper-cases all of it."),
            ("documented", "explicit wins"),
        ]
        assert host.command("hi", "you")["display"] == "hi you"
        assert text_of(host.tool("shout", {"text": "hey"})) == "HEY"


class _Where(TypedDict):
    """Where to look: ``city`` is a name,
    see :class:`~zot_ext.Ctx` for the rest."""

    city: str


def test_docstrings_reach_the_model_without_their_markup() -> None:
    ext = Extension("docs")

    @ext.tool
    def lookup(args: _Where) -> str:
        """Look ``city`` up (:func:`geo.find`).

        The text is dedented, its paragraphs kept."""
        return args["city"]

    with TestHost(ext) as host:
        (tool,) = host.registration.tools
        assert tool["description"] == "Look city up (geo.find).\n\nThe text is dedented, its paragraphs kept."
        assert tool["schema"]["description"] == "Where to look: city is a name, see zot_ext.Ctx for the rest."


def test_a_lambda_needs_a_name() -> None:
    ext = Extension("anon")
    with pytest.raises(TypeError, match="pass the name"):
        ext.tool(lambda: None)


def make_keywords() -> Extension:
    ext = Extension("kw")

    @ext.tool
    def weather(
        city: Annotated[str, "The city"],
        days: int = 3,
        unit: Literal["C", "F"] = "C",
        tags: Optional[List[str]] = None,
        ctx: Optional[Ctx] = None,
    ) -> str:
        """Forecast for a city."""
        assert isinstance(ctx, Ctx)
        return f"{city} {days} {unit} {tags}"

    @ext.tool
    async def add(a: int, b: float, ctx: Ctx) -> str:
        return f"{a + b} {ctx.id}"

    @ext.tool
    def only_ctx(ctx: Ctx) -> str:
        return f"id={ctx.id}"

    @ext.tool
    def rest(first: str, **extra: Any) -> str:
        return f"{first} {sorted(extra.items())}"

    return ext


def test_keyword_parameter_tools_get_a_schema_and_their_arguments() -> None:
    with TestHost(make_keywords()) as host:
        tools = {t["name"]: t for t in host.registration.tools}
        assert tools["weather"]["schema"] == {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city"},
                "days": {"type": "integer", "default": 3},
                "unit": {"enum": ["C", "F"], "default": "C"},
                "tags": {"type": "array", "items": {"type": "string"}, "default": None},
            },
            "required": ["city"],
            "additionalProperties": False,
        }
        assert tools["add"]["schema"]["required"] == ["a", "b"]
        assert tools["only_ctx"]["schema"] == {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
        }
        assert "additionalProperties" not in tools["rest"]["schema"]

        assert text_of(host.tool("weather", {"city": "Oslo"})) == "Oslo 3 C None"
        assert text_of(host.tool("weather", {"city": "Oslo", "days": 2.0, "tags": ["a"]})) == "Oslo 2 C ['a']"
        assert text_of(host.tool("add", {"a": 1, "b": 2})).startswith("3.0 ")
        assert text_of(host.tool("only_ctx")).startswith("id=")
        assert text_of(host.tool("rest", {"first": "x", "y": 1})) == "x [('y', 1)]"

        # The engine refuses what the schema refuses, naming the field.
        missing = host.tool("weather", {})
        assert missing["is_error"] and "city" in text_of(missing)
        assert text_of(missing).startswith("invalid arguments")
        extra = host.tool("weather", {"city": "Oslo", "color": "red"})
        assert extra["is_error"] and "color" in text_of(extra)
        wrong = host.tool("add", {"a": "1", "b": 2})
        assert wrong["is_error"] and text_of(wrong).startswith("invalid arguments")


def test_a_mapping_first_parameter_takes_the_whole_arguments_object() -> None:
    ext = Extension("mappings")

    @ext.tool
    def typing_mapping(args: Mapping[str, Any]) -> str:
        return repr(sorted(args.items()))

    @ext.tool
    async def abc_mapping(args: collections.abc.Mapping, ctx: Ctx) -> str:
        return repr(sorted(args.items()))

    @ext.tool
    def mutable(args: MutableMapping[str, int]) -> str:
        return repr(sorted(args.items()))

    with TestHost(ext) as host:
        for t in host.registration.tools:
            assert t["schema"] == {"type": "object"}, t
        for name in ("typing_mapping", "abc_mapping", "mutable"):
            assert text_of(host.tool(name, {"x": 1})) == "[('x', 1)]", name


def test_positional_only_parameters_cannot_be_tool_arguments() -> None:
    ext = Extension("posonly")

    def f(a: int, /) -> str:
        return ""

    with pytest.raises(TypeError, match="'a' cannot be given by keyword"):
        ext.tool(f)


def test_a_failed_handler_logs_one_line_and_the_traceback_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    ext = Extension("logs")

    @ext.tool
    def boom() -> str:
        raise RuntimeError("bad tool")

    @ext.tool
    def typed(n: int) -> str:
        return str(n)

    with caplog.at_level(logging.INFO, logger="zot_ext.logs"), TestHost(ext) as host:
        assert text_of(host.tool("boom")) == "bad tool"
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is None
    assert errors[0].getMessage().startswith("tool boom failed: bad tool (test_idioms.py:")
    assert "Traceback" not in caplog.text

    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="zot_ext.logs"), TestHost(ext) as host:
        host.tool("boom")
    assert "Traceback" in caplog.text

    # A bad argument is the caller's mistake: no location, no traceback.
    converted = zot_ext._signature.keyword_tool(typed)
    assert converted is not None
    with pytest.raises(ArgumentError, match=r"arguments\.n: expected an integer, got str"):
        converted.convert({"n": "x"})


def test_errors_are_typed_with_a_code_and_keep_their_cause() -> None:
    ext = Extension("errs")
    with pytest.raises(NotRunningError) as not_running:
        ext.notify("x")
    assert isinstance(not_running.value, ZotError) and not_running.value.code == "not_running"

    late: List[BaseException] = []

    @ext.command
    def add(args: str) -> None:
        try:
            ext.tool("bad name!", "", lambda: None)
        except ZotError as e:
            late.append(e)

    with TestHost(ext) as host:
        host.command("add")
    assert isinstance(late[0], RegistrationError) and isinstance(late[0], ValueError)
    assert late[0].code == "registration" and late[0].__cause__ is not None

    timeout = CallToolError("timeout", "too slow")
    assert isinstance(timeout, CallToolTimeout) and isinstance(timeout, TimeoutError)
    assert (timeout.kind, str(timeout), timeout.code) == ("timeout", "too slow", "call_tool")
    assert type(pickle.loads(pickle.dumps(timeout))) is CallToolTimeout
    assert type(CallToolError("write", "w")) is CallToolError
    assert ArgumentError("x").code == "invalid_arguments"


def test_call_tool_errors_are_their_kinds_subclass() -> None:
    ext = Extension("caller")
    seen: List[BaseException] = []

    @ext.tool
    async def call(ctx: Ctx) -> str:
        try:
            await ctx.call_tool("echo")
        except CallToolUnsupported as e:
            seen.append(e)
            raise
        return "unreachable"

    with TestHost(ext, capabilities=[]) as host:
        assert host.tool("call")["is_error"]
    # The engine refuses such a call as data (the contract's CallStarted with
    # an error kind), so the error is built from that: no native exception
    # to chain, but the kind and the engine's message.
    assert seen and seen[0].kind == "unsupported"
    assert str(seen[0]) == "the host does not support call_tool"


def test_notify_takes_the_message_first_and_info_by_default() -> None:
    ext = Extension("notes")

    @ext.command
    def go(args: str, ctx: Ctx) -> None:
        ctx.notify("done")
        ctx.notify("careful", "warn")
        ctx.notify("saved", level="success")

    with TestHost(ext) as host:
        host.command("go")
        assert host.transcript()[-4:-1] == [
            '{"type":"notify","level":"info","message":"done"}',
            '{"type":"notify","level":"warn","message":"careful"}',
            '{"type":"notify","level":"success","message":"saved"}',
        ]
