"""Reading type hints without importing :mod:`typing` on the way to
``ready``.

Importing :mod:`typing` costs an extension about a third of the SDK's own
import time. A hint made with it (``Optional[int]``, ``Annotated``,
``Literal``, ``Any``, a ``TypedDict``) exists only in a program that has
imported it, so these helpers ask :mod:`typing` only when ``sys.modules``
holds it; before that, a hint is a class, a builtin generic
(``list[str]``) or a ``|`` union, read from its own attributes.
"""

from __future__ import annotations

import sys
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Tuple

__all__ = [
    "NoneType",
    "get_args",
    "get_origin",
    "is_annotated",
    "is_any",
    "is_literal",
    "type_hints",
    "union_types",
]

NoneType = type(None)

# `int | None` (Python 3.10+): a union made without `typing`.
_UnionType: Any = getattr(types, "UnionType", None)


# `typing` once it was seen imported (see `_typing`).
_loaded: Any = None


def _typing() -> Any:
    """:mod:`typing` if it is imported. A module another thread is still
    importing (in ``sys.modules``, its spec ``_initializing``) counts as
    absent: a worker thread answers calls while the session's loop starts,
    which imports it. No hint can be made with it before it is loaded."""
    global _loaded
    if _loaded is None:
        typing = sys.modules.get("typing")
        if typing is None or getattr(typing.__spec__, "_initializing", False):
            return None
        _loaded = typing
    return _loaded


def get_origin(tp: Any) -> Any:
    """:func:`typing.get_origin`."""
    typing = _typing()
    if typing is not None:
        return typing.get_origin(tp)
    if isinstance(tp, types.GenericAlias):
        return tp.__origin__
    if _UnionType is not None and isinstance(tp, _UnionType):
        return _UnionType
    return None


def get_args(tp: Any) -> Tuple[Any, ...]:
    """:func:`typing.get_args`."""
    typing = _typing()
    if typing is not None:
        return tuple(typing.get_args(tp))
    if isinstance(tp, types.GenericAlias) or (_UnionType is not None and isinstance(tp, _UnionType)):
        return tuple(tp.__args__)
    return ()


def is_any(tp: Any) -> bool:
    """Whether ``tp`` is :data:`typing.Any`."""
    typing = _typing()
    return typing is not None and tp is typing.Any


def is_annotated(origin: Any) -> bool:
    """Whether ``origin`` (a hint's :func:`get_origin`) is ``Annotated``."""
    typing = _typing()
    return typing is not None and origin is typing.Annotated


def is_literal(origin: Any) -> bool:
    """Whether ``origin`` (a hint's :func:`get_origin`) is ``Literal``."""
    typing = _typing()
    return typing is not None and origin is typing.Literal


def union_types() -> Tuple[Any, ...]:
    """The origins of a union: ``typing.Union`` and ``types.UnionType``."""
    typing = _typing()
    found = (typing.Union,) if typing is not None else ()
    return found + ((_UnionType,) if _UnionType is not None else ())


def type_hints(obj: Any) -> Dict[str, Any]:
    """:func:`typing.get_type_hints` with ``include_extras``. A function
    whose annotations are all evaluated already (no postponed strings) is
    read as it is (``None`` read as ``NoneType``), without importing
    :mod:`typing`."""
    annotations = getattr(obj, "__annotations__", None)
    if (
        _typing() is None
        and isinstance(obj, (types.FunctionType, types.MethodType))
        and isinstance(annotations, dict)
        and not any(isinstance(a, str) for a in annotations.values())
    ):
        return {name: NoneType if a is None else a for name, a in annotations.items()}
    import typing

    return typing.get_type_hints(obj, include_extras=True)
