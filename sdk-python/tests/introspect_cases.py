"""Handlers whose signatures the SDK reads (test_introspect.py): read in a
child that has not loaded `inspect` or `typing` and compared with what those
modules say. This module must not import either."""

import functools
import sys


def plain(a, b=1, *args, c, d=2, **kw):  # type: ignore[no-untyped-def]
    """One line."""


def positional_only(a, /, b, *, c):  # type: ignore[no-untyped-def]
    pass


def nothing():  # type: ignore[no-untyped-def]
    """
    Starts on the second line.

        Indented more.
    \tA tab.

    """


def annotated(name: str, times: int = 3, ratio: float = 0.5, flag: bool = False) -> str:
    """Greets someone.

    As often as asked.
    """
    return name


def containers(tags: list[str], counts: dict[str, int], pair: tuple[int, str], anything=None) -> None:
    pass


def defaults_none(city: str, note: str = None) -> None:  # type: ignore[assignment]  # noqa: RUF013
    pass


async def coroutine(x: int) -> int:
    return x


async def agen(x: int):  # type: ignore[no-untyped-def]
    yield x


class Holder:
    def method(self, a: int, b: str = "x") -> None:
        """A method."""

    async def amethod(self, a: int) -> None:
        pass

    @classmethod
    def cls_method(cls, q: bool) -> None:
        pass

    @staticmethod
    def static(z: float) -> None:
        pass


class Documented:
    def run(self) -> None:
        """The base's documentation."""


class Inherits(Documented):
    def run(self) -> None:
        pass


class AsyncCallable:
    async def __call__(self, x: int) -> None:
        pass


def _decorated(fn):  # type: ignore[no-untyped-def]
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        return fn(*args, **kwargs)

    return wrapper


@_decorated
def wrapped(city: str, days: int = 1) -> None:
    pass


def _make_nested():  # type: ignore[no-untyped-def]
    def nested(x: int) -> None:
        pass

    return nested


holder = Holder()

#: Callables whose parameters are compared with `inspect.signature`.
SIGNATURES = {
    "plain": plain,
    "positional_only": positional_only,
    "nothing": nothing,
    "annotated": annotated,
    "containers": containers,
    "lambda": lambda x, y=3: None,
    "bound method": holder.method,
    "class method": Holder.cls_method,
    "static method": Holder.static,
    "partial": functools.partial(annotated, "n"),
    "wrapped": wrapped,
    "callable instance": AsyncCallable(),
    "builtin": len,
}

#: Callables whose docstrings are compared with `inspect.getdoc`.
DOCSTRINGS = {
    "plain": plain,
    "nothing": nothing,
    "annotated": annotated,
    "no docstring": positional_only,
    "bound method": holder.method,
    "inherited": Inherits().run,
    "nested, no docstring": _make_nested(),
}

#: Callables `inspect.iscoroutinefunction` is asked about.
COROUTINE_FUNCTIONS = {
    "def": plain,
    "async def": coroutine,
    "async generator": agen,
    "bound async method": holder.amethod,
    "partial of async": functools.partial(coroutine, 1),
    "partial of bound async": functools.partial(holder.amethod, 1),
    "callable instance": AsyncCallable(),
    "lambda": lambda: None,
}

#: Keyword tools whose schemas and conversions must not depend on whether
#: `typing` is loaded.
TOOLS = {
    "annotated": (annotated, {"name": "a", "times": 2.0}),
    "containers": (containers, {"tags": ["x"], "counts": {"a": 1}, "pair": [1, "b"]}),
    "defaults_none": (defaults_none, {"city": "Oslo"}),
}
if sys.version_info >= (3, 10):  # `int | None` needs 3.10

    def union(limit, names=None):  # type: ignore[no-untyped-def]
        pass

    # Set here: this module is read by Python 3.9 too.
    union.__annotations__ = {"limit": eval("int | None"), "names": eval("list[str] | None"), "return": None}
    TOOLS["union"] = (union, {"limit": None, "names": ["a"]})
