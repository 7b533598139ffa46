"""What an :class:`~zot_ext.Extension` registers: its handlers, as the
session runs them (how many arguments each takes, whether it is a coroutine
function, where it runs), and the records of commands, tools and panels."""

from __future__ import annotations

from ._annotations import type_hints
from ._introspect import (
    EMPTY,
    POSITIONAL_ONLY,
    POSITIONAL_OR_KEYWORD,
    VAR_POSITIONAL,
    closure_names,
    is_coroutine_function,
    parameters,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Optional

    from ._schema import Converter

__all__ = ["_Command", "_Handler", "_Panel", "_Tool", "_first_param_type", "_is_async"]


def _positional_arity(fn: Callable[..., Any]) -> int:
    """How many positional arguments ``fn`` accepts (99: ``*args``)."""
    try:
        params = parameters(fn)
    except (TypeError, ValueError):
        return 99
    n = 0
    for p in params:
        if p.kind == VAR_POSITIONAL:
            return 99
        if p.kind in (POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD):
            n += 1
    return n


def _is_async(fn: Callable[..., Any]) -> bool:
    # An instance whose own `__call__` is a coroutine function counts too.
    return is_coroutine_function(fn) or is_coroutine_function(getattr(fn, "__call__", None))  # noqa: B004


def _first_param_type(fn: Callable[..., Any]) -> Any:
    """The annotation of ``fn``'s first parameter (``None`` if absent)."""
    try:
        params = parameters(fn)
    except (TypeError, ValueError):
        return None
    if not params or params[0].annotation is EMPTY:
        return None
    first = params[0]
    try:
        return type_hints(fn).get(first.name, first.annotation)
    except Exception:
        pass
    if isinstance(first.annotation, str):
        # A postponed annotation naming something get_type_hints cannot see
        # (another parameter's type is unresolvable, or a closure variable).
        try:
            scope = dict(getattr(fn, "__globals__", {}))
            scope.update(closure_names(fn))
            return eval(first.annotation, scope)
        except Exception:
            pass
    return first.annotation


class _Handler:
    """A handler as the session calls it (a plain class with slots, not a
    dataclass: read on every call, and made at import time)."""

    __slots__ = ("arity", "fn", "is_async", "thread")

    def __init__(self, fn: Callable[..., Any], is_async: bool, thread: bool, arity: int) -> None:
        self.fn = fn
        self.is_async = is_async
        self.thread = thread
        self.arity = arity

    @classmethod
    def of(cls, fn: Callable[..., Any], thread: bool = True, max_args: int = 99) -> _Handler:
        """``fn`` as called with at most ``max_args`` arguments (a panel
        handler gets its input only, never the context)."""
        if not callable(fn):
            raise TypeError(f"handler {fn!r} is not callable")
        return cls(fn, _is_async(fn), thread, min(_positional_arity(fn), max_args))

    def call(self, *args: Any) -> Any:
        return self.fn(*args[: self.arity])

    def call_with(self, value: Any, ctx: Any) -> Any:
        """``call(value, ctx)`` without packing and slicing the arguments
        (once per call or event)."""
        n = self.arity
        if n >= 2:
            return self.fn(value, ctx)
        if n == 1:
            return self.fn(value)
        return self.fn()


class _Command:
    __slots__ = ("description", "handler", "name")

    def __init__(self, name: str, description: str, handler: _Handler) -> None:
        self.name = name
        self.description = description
        self.handler = handler


class _Tool:
    """A tool's frame, handler and argument conversion; ``derived`` when the
    schema was derived from the handler's hints (the engine then builds its
    argument check on the first call, skipping the meta-schema)."""

    __slots__ = ("convert", "derived", "frame", "handler")

    def __init__(self, frame: Dict[str, Any], handler: _Handler, convert: Converter, derived: bool) -> None:
        self.frame = frame
        self.handler = handler
        self.convert = convert
        self.derived = derived


class _Panel:
    """The handlers of one panel registration, under the number the engine
    binds the panel's input to. Registering makes a new one with a fresh
    number (:meth:`with_handler`): input that arrived for an older
    registration is then stale."""

    __slots__ = ("on_close", "on_key", "on_resize", "registration")

    def __init__(
        self,
        registration: int = 0,
        on_key: Optional[_Handler] = None,
        on_close: Optional[_Handler] = None,
        on_resize: Optional[_Handler] = None,
    ) -> None:
        self.registration = registration
        self.on_key = on_key
        self.on_close = on_close
        self.on_resize = on_resize

    def with_handler(self, registration: int, field: str, handler: _Handler) -> _Panel:
        """A new registration: these handlers with ``field`` set to
        ``handler``."""
        panel = _Panel(registration, self.on_key, self.on_close, self.on_resize)
        setattr(panel, field, handler)
        return panel
