"""The shape every handler may take, for the typed registration methods."""

from __future__ import annotations

__all__ = ["HandlerOf"]

# For type checkers only (nothing here runs): `typing` is not imported on
# the way to `ready` (see `_annotations`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Awaitable, Callable, TypeVar, Union

    from ._context import Ctx

    _In = TypeVar("_In")
    _Out = TypeVar("_Out")

    #: A handler of ``_In`` returning ``_Out`` (or an awaitable of it): it
    #: takes the input and a :class:`Ctx`, the input alone, or nothing.
    #: (``_In`` must appear first: an alias's parameters are ordered by
    #: first appearance.)
    HandlerOf = Union[
        Callable[[_In, Ctx], Union[_Out, Awaitable[_Out]]],
        Callable[[_In], Union[_Out, Awaitable[_Out]]],
        Callable[[], Union[_Out, Awaitable[_Out]]],
    ]
