"""What the SDK reads of a handler without `inspect` and `typing` (which it
does not import on the way to `ready`) must be what those modules say."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any, Dict, List

import introspect_cases as cases
import pytest
from zot_ext import _introspect
from zot_ext._signature import keyword_tool

HERE = Path(__file__).parent


def _inspected(fn: Any) -> List[Any]:
    def value(v: Any) -> Any:
        return _introspect.EMPTY if v is inspect.Parameter.empty else v

    return [
        (p.name, int(p.kind), value(p.default), value(p.annotation))
        for p in inspect.signature(fn).parameters.values()
    ]


@pytest.mark.parametrize("name", sorted(cases.SIGNATURES))
def test_parameters_are_what_inspect_signature_says(name: str) -> None:
    fn = cases.SIGNATURES[name]
    got = [(p.name, p.kind, p.default, p.annotation) for p in _introspect.parameters(fn)]
    assert got == _inspected(fn)


@pytest.mark.parametrize("name", sorted(cases.DOCSTRINGS))
def test_docstrings_are_what_inspect_getdoc_says(name: str) -> None:
    fn = cases.DOCSTRINGS[name]
    assert _introspect.docstring(fn) == (inspect.getdoc(fn) or "")


@pytest.mark.parametrize("name", sorted(cases.COROUTINE_FUNCTIONS))
def test_coroutine_functions_are_what_inspect_says(name: str) -> None:
    fn = cases.COROUTINE_FUNCTIONS[name]
    assert _introspect.is_coroutine_function(fn) == inspect.iscoroutinefunction(fn)


def test_awaitables_are_what_inspect_isawaitable_says() -> None:
    class Awaitable:
        def __await__(self) -> Any:
            yield

    @types.coroutine
    def generator_based() -> Any:
        yield

    coroutine = cases.coroutine(1)
    values = [coroutine, Awaitable(), generator_based(), (x for x in ()), 1, "text", None, cases.coroutine]
    try:
        for v in values:
            assert _introspect.is_awaitable(v) == inspect.isawaitable(v), v
    finally:
        coroutine.close()


def _child(code: str) -> Dict[str, Any]:
    """Runs ``code`` in a fresh interpreter that can import the cases; its
    last line of output, as JSON."""
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(HERE), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    out: Dict[str, Any] = json.loads(run.stdout.splitlines()[-1])
    return out


def test_a_nested_function_without_docstring_is_read_without_inspect() -> None:
    got = _child(
        """
        import json, sys
        import introspect_cases as cases
        from zot_ext import _introspect
        doc = _introspect.docstring(cases.DOCSTRINGS["nested, no docstring"])
        print(json.dumps({"doc": doc, "inspect": "inspect" in sys.modules}))
        """
    )
    assert got == {"doc": "", "inspect": False}


def test_coroutine_functions_are_what_inspect_says_without_loading_it() -> None:
    got = _child(
        """
        import json, sys
        import introspect_cases as cases
        from zot_ext import _introspect
        out = {k: _introspect.is_coroutine_function(f) for k, f in cases.COROUTINE_FUNCTIONS.items()}
        assert "inspect" not in sys.modules, "inspect was loaded"
        print(json.dumps(out))
        """
    )
    assert got == {k: inspect.iscoroutinefunction(f) for k, f in cases.COROUTINE_FUNCTIONS.items()}


def test_tool_schemas_and_arguments_do_not_depend_on_typing_being_loaded() -> None:
    # Without `typing` loaded, hints are read from the objects themselves;
    # with it (here: pytest loads it), through `typing`. Same answers.
    got = _child(
        """
        import json, sys
        import introspect_cases as cases
        from zot_ext._signature import keyword_tool
        out = {}
        for name, (fn, args) in cases.TOOLS.items():
            tool = keyword_tool(fn)
            out[name] = {"schema": tool.schema, "kwargs": repr(tool.convert(args))}
        loaded = [m for m in ("typing", "inspect", "dataclasses") if m in sys.modules]
        assert not loaded, f"loaded: {loaded}"
        print(json.dumps(out))
        """
    )
    want = {}
    for name, (fn, args) in cases.TOOLS.items():
        tool = keyword_tool(fn)
        assert tool is not None
        want[name] = {"schema": tool.schema, "kwargs": repr(tool.convert(args))}
    assert got == want
