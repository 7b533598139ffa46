"""What the SDK reads of a handler at registration (its parameters, whether
it is a coroutine function, its docstring) and of what it returned (whether
to await it), without :mod:`inspect` on the way to ``ready``.

Importing :mod:`inspect` (and :mod:`dataclasses`, which imports it) costs
about 15 ms: more than the rest of the SDK's start-up. A plain function or
bound method is read from its code object here, which is what
:func:`inspect.signature` does for them too; any other callable (a
``functools.partial``, an instance with ``__call__``, a function carrying
``__wrapped__`` or ``__signature__``, a builtin) goes to
:func:`inspect.signature` itself, loaded then.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from types import CoroutineType, FunctionType, GeneratorType, MethodType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Tuple

__all__ = [
    "EMPTY",
    "POSITIONAL_ONLY",
    "POSITIONAL_OR_KEYWORD",
    "VAR_POSITIONAL",
    "KEYWORD_ONLY",
    "VAR_KEYWORD",
    "Param",
    "parameters",
    "is_coroutine_function",
    "is_awaitable",
    "docstring",
    "closure_names",
    "is_dataclass_type",
]


class _Empty:
    """No annotation, or no default."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "EMPTY"


EMPTY: Any = _Empty()

# The kinds of parameter, in the order a signature lists them.
POSITIONAL_ONLY = 0
POSITIONAL_OR_KEYWORD = 1
VAR_POSITIONAL = 2
KEYWORD_ONLY = 3
VAR_KEYWORD = 4

# Code object flags (CPython's `co_flags`, as `inspect` reads them).
_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08
_CO_COROUTINE = 0x80
_CO_ITERABLE_COROUTINE = 0x100


class Param:
    """One parameter: its name, kind, default and annotation (``EMPTY``
    when absent; the annotation as written, a string when postponed)."""

    __slots__ = ("annotation", "default", "kind", "name")

    def __init__(self, name: str, kind: int, default: Any = EMPTY, annotation: Any = EMPTY) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.annotation = annotation

    def __repr__(self) -> str:
        return f"Param({self.name!r}, {self.kind}, {self.default!r}, {self.annotation!r})"


def parameters(fn: Callable[..., Any]) -> List[Param]:
    """``fn``'s parameters as a call sees them (a bound method without its
    ``self``). Raises ``TypeError`` or ``ValueError`` where
    :func:`inspect.signature` does."""
    if type(fn) is FunctionType and not _redirected(fn):
        return _from_code(fn)
    if type(fn) is MethodType and type(fn.__func__) is FunctionType and not _redirected(fn.__func__):
        params = _from_code(fn.__func__)
        if params and params[0].kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD):
            return params[1:]
    return _from_inspect(fn)


def _redirected(fn: Any) -> bool:
    # A decorator's wrapper (`functools.wraps`) or an explicit signature:
    # `inspect.signature` reports the one it points to.
    return hasattr(fn, "__wrapped__") or hasattr(fn, "__signature__")


def _from_code(fn: Any) -> List[Param]:
    code = fn.__code__
    names = code.co_varnames
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    annotations: Dict[str, Any] = fn.__annotations__ or {}
    defaults: Tuple[Any, ...] = fn.__defaults__ or ()
    kwdefaults: Dict[str, Any] = fn.__kwdefaults__ or {}
    first_default = positional - len(defaults)
    out: List[Param] = []
    for i in range(positional):
        name = names[i]
        kind = POSITIONAL_ONLY if i < code.co_posonlyargcount else POSITIONAL_OR_KEYWORD
        default = defaults[i - first_default] if i >= first_default else EMPTY
        out.append(Param(name, kind, default, annotations.get(name, EMPTY)))
    at = positional + keyword_only
    if code.co_flags & _CO_VARARGS:
        name = names[at]
        out.append(Param(name, VAR_POSITIONAL, EMPTY, annotations.get(name, EMPTY)))
        at += 1
    for name in names[positional : positional + keyword_only]:
        out.append(Param(name, KEYWORD_ONLY, kwdefaults.get(name, EMPTY), annotations.get(name, EMPTY)))
    if code.co_flags & _CO_VARKEYWORDS:
        name = names[at]
        out.append(Param(name, VAR_KEYWORD, EMPTY, annotations.get(name, EMPTY)))
    return out


def _inspect() -> Any:
    import inspect

    return inspect


def _from_inspect(fn: Callable[..., Any]) -> List[Param]:
    inspect = _inspect()

    def value(v: Any) -> Any:
        return EMPTY if v is inspect.Parameter.empty else v

    return [
        Param(p.name, int(p.kind), value(p.default), value(p.annotation))
        for p in inspect.signature(fn).parameters.values()
    ]


def is_coroutine_function(fn: Any) -> bool:
    """Whether calling ``fn`` returns a coroutine
    (:func:`inspect.iscoroutinefunction`)."""
    while True:
        if isinstance(fn, MethodType):
            fn = fn.__func__
        elif isinstance(fn, functools.partial):
            fn = fn.func
        else:
            break
    if isinstance(fn, FunctionType) and not hasattr(fn, "_is_coroutine_marker"):
        return bool(fn.__code__.co_flags & _CO_COROUTINE)
    # Marked with `inspect.markcoroutinefunction` (Python 3.12), or a
    # function-like object of another kind (Cython's): `inspect` knows it.
    return hasattr(fn, "__code__") and _inspect().iscoroutinefunction(fn)


def is_awaitable(value: Any) -> bool:
    """Whether ``value`` can be awaited (:func:`inspect.isawaitable`)."""
    return (
        isinstance(value, CoroutineType)
        or (isinstance(value, GeneratorType) and bool(value.gi_code.co_flags & _CO_ITERABLE_COROUTINE))
        or isinstance(value, Awaitable)
    )


def docstring(fn: Any) -> str:
    """The docstring of a function or bound method itself (a partial's or an
    instance's would be its class's documentation), cleaned as
    :func:`inspect.cleandoc` does: the first line stripped, the common
    indentation of the others removed, blank lines at both ends dropped."""
    function = fn.__func__ if isinstance(fn, MethodType) else fn
    if not isinstance(function, FunctionType):
        return ""
    doc = function.__doc__
    if doc is None:
        # A method may inherit its base class's documentation: `inspect`
        # finds it from the qualified name (`Class.method`; a function
        # defined in another one, `outer.<locals>.f`, has no class).
        owner = function.__qualname__.rpartition(".")[0]
        in_class = owner != "" and not owner.endswith("<locals>")
        return (_inspect().getdoc(fn) or "") if in_class else ""
    if not isinstance(doc, str):
        return ""
    lines = doc.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.lstrip()]
    margin = min(indents, default=0)
    lines = [lines[0].lstrip()] + [line[margin:] for line in lines[1:]]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def closure_names(fn: Any) -> Dict[str, Any]:
    """The variables ``fn`` closes over, by name (what a postponed
    annotation naming a local type needs to be evaluated)."""
    if isinstance(fn, MethodType):
        fn = fn.__func__
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None) or ()
    if code is None:
        return {}
    out: Dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, cells):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # a cell not filled yet
            pass
    return out


def is_dataclass_type(tp: Any) -> bool:
    """Whether ``tp`` is a dataclass (a class; what
    :func:`dataclasses.is_dataclass` checks, without importing it: a program
    that made one has imported it)."""
    return isinstance(tp, type) and hasattr(tp, "__dataclass_fields__")


def is_dataclass_instance(value: Any) -> bool:
    """Whether ``value`` is an instance of a dataclass."""
    return not isinstance(value, type) and hasattr(type(value), "__dataclass_fields__")
