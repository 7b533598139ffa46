"""What a handler's signature says, FastMCP-style: its name (the function's
``__name__``), its description (the docstring), and how a tool takes its
arguments.

A tool takes its arguments in one of two ways:

- **one object** (as before): the first parameter is a ``TypedDict``, a
  dataclass, a pydantic model, a ``dict`` or ``Mapping``, or unannotated; the handler is
  called as ``handler(args, ctx)``;
- **keyword parameters**: the first parameter is annotated with anything
  else (``str``, ``int``, ``Optional[List[str]]``...), or is the
  :class:`~zot_ext.Ctx`; then every parameter but the ``Ctx`` (annotated
  ``Ctx``, or named ``ctx``) is one property of the tool's schema, required
  unless it has a default or is ``Optional``, and the handler is called as
  ``handler(name=..., city=..., ctx=ctx)``.

The one-object reading wins for a single parameter of an object type, so
that every handler written for 0.1 keeps its meaning.
"""

from __future__ import annotations

from ._annotations import NoneType, get_args, get_origin, is_any, type_hints, union_types
from ._context import Ctx
from ._errors import ArgumentError
from ._introspect import (
    EMPTY,
    POSITIONAL_ONLY,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    Param,
    closure_names,
    docstring,
    is_dataclass_type,
    parameters,
)
from ._schema import (
    _convert,
    _field_schema,
    _is_optional,
    _is_pydantic_model,
    _unwrap,
    clean_doc,
    is_mapping_type,
    is_typeddict,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["name_of", "command_description", "tool_description", "KeywordTool", "keyword_tool"]


def name_of(fn: Callable[..., Any], what: str) -> str:
    """The registration name taken from ``fn`` (``@ext.tool`` without a
    name)."""
    name = getattr(fn, "__name__", "")
    if not isinstance(name, str) or not name or name == "<lambda>":
        raise TypeError(f"{what} {fn!r} has no __name__ to register it under: pass the name")
    return name


def command_description(fn: Callable[..., Any]) -> str:
    """A slash command's menu line: the docstring's first paragraph on one
    line (a menu shows one line; the rest of the docstring is for
    readers)."""
    first = docstring(fn).split("\n\n", 1)[0]
    return clean_doc(" ".join(first.split()))


def tool_description(fn: Callable[..., Any]) -> str:
    """A tool's description: the whole docstring, cleaned of its indentation
    (the model reads all of it, as with FastMCP)."""
    return clean_doc(docstring(fn).strip())


def _hints(fn: Callable[..., Any]) -> Dict[str, Any]:
    """``fn``'s parameter annotations, resolved. A postponed annotation that
    ``get_type_hints`` cannot resolve as a whole (a closure's type) is
    evaluated on its own with the closure's variables; one that still fails
    stays a string."""
    try:
        return type_hints(fn)
    except Exception:
        pass
    scope: Dict[str, Any] = dict(getattr(fn, "__globals__", {}))
    scope.update(closure_names(fn))
    out: Dict[str, Any] = {}
    for name, ann in getattr(fn, "__annotations__", {}).items():
        if isinstance(ann, str):
            try:
                ann = eval(ann, scope)
            except Exception:
                pass
        out[name] = ann
    return out


def _is_ctx(param: Param, hint: Any) -> bool:
    """Whether ``param`` receives the :class:`Ctx`: annotated ``Ctx`` (or
    ``Optional[Ctx]``, to give it a default), or unannotated and named
    ``ctx``."""
    options = [a for a in get_args(hint) if a is not NoneType]
    if get_origin(hint) in union_types() and options == [Ctx]:
        return True
    return hint is Ctx or (param.name == "ctx" and param.annotation is EMPTY)


def _is_object_type(hint: Any) -> bool:
    """Whether ``hint`` types the whole arguments object (the one-object
    reading)."""
    if hint is None or is_any(hint) or isinstance(hint, str) or is_mapping_type(hint):
        return True
    tp, _ = _unwrap(hint)
    if is_mapping_type(tp):
        return True
    return is_typeddict(tp) or _is_pydantic_model(tp) or is_dataclass_type(tp)


class _Param:
    __slots__ = ("has_default", "hint", "name")

    def __init__(self, name: str, hint: Any, has_default: bool) -> None:
        self.name = name
        self.hint = hint
        self.has_default = has_default


class KeywordTool:
    """A tool handler taking keyword parameters: its schema, the conversion
    of the arguments to keyword arguments, and the call."""

    __slots__ = ("ctx_name", "params", "schema", "var_keyword")

    def __init__(
        self, schema: Dict[str, Any], params: Tuple[_Param, ...], ctx_name: Optional[str], var_keyword: bool
    ) -> None:
        self.schema = schema
        self.params = params
        self.ctx_name = ctx_name
        self.var_keyword = var_keyword

    def convert(self, value: Any) -> Dict[str, Any]:
        """The keyword arguments of one call; raises
        :class:`ArgumentError`."""
        if not isinstance(value, dict):
            raise ArgumentError("invalid arguments: expected a JSON object")
        kwargs: Dict[str, Any] = {}
        for p in self.params:
            if p.name in value:
                kwargs[p.name] = _convert(value[p.name], p.hint, f"arguments.{p.name}")
            elif not p.has_default:
                if not _is_optional(p.hint):
                    raise ArgumentError(f"invalid arguments: missing field {p.name!r}")
                kwargs[p.name] = None
        if self.var_keyword:
            known = {p.name for p in self.params}
            kwargs.update((k, v) for k, v in value.items() if k not in known)
        return kwargs

    def caller(self, fn: Callable[..., Any]) -> Callable[[Dict[str, Any], Ctx], Any]:
        """``fn`` called with the converted keywords (and the context, when
        it takes one). An ``async def`` returns its coroutine, awaited by the
        dispatcher."""
        ctx_name = self.ctx_name

        def call(kwargs: Dict[str, Any], ctx: Ctx) -> Any:
            if ctx_name is not None:
                return fn(**kwargs, **{ctx_name: ctx})
            return fn(**kwargs)

        return call


def _default_of(value: Any) -> Optional[Dict[str, Any]]:
    # A plain JSON default is shown to the model; anything else is not.
    if value is None or isinstance(value, (str, int, float, bool)):
        return {"default": value}
    return None


def keyword_tool(fn: Callable[..., Any]) -> Optional[KeywordTool]:
    """The keyword-parameter reading of ``fn``, or ``None`` when ``fn``
    takes one arguments object (see the module's documentation). Raises
    ``TypeError`` for a signature that cannot be a tool (``*args``,
    positional-only parameters)."""
    try:
        params = parameters(fn)
    except (TypeError, ValueError):
        return None
    if not params:
        return None
    hints = _hints(fn)
    first = params[0]
    first_hint = hints.get(first.name, first.annotation)
    one_object = first.annotation is EMPTY or _is_object_type(first_hint)
    if one_object and not _is_ctx(first, first_hint):
        return None
    ctx_name: Optional[str] = None
    out: List[_Param] = []
    properties: Dict[str, Any] = {}
    required: List[str] = []
    var_keyword = False
    for p in params:
        hint = hints.get(p.name, object if p.annotation is EMPTY else p.annotation)
        if ctx_name is None and _is_ctx(p, hint):
            ctx_name = p.name
            continue
        if p.kind == VAR_KEYWORD:
            var_keyword = True
            continue
        if p.kind in (VAR_POSITIONAL, POSITIONAL_ONLY):
            raise TypeError(
                f"tool handler {getattr(fn, '__name__', fn)!r}: parameter {p.name!r} cannot be "
                "given by keyword; tool arguments are keyword parameters"
            )
        if isinstance(hint, str):
            raise TypeError(
                f"tool handler {getattr(fn, '__name__', fn)!r}: cannot resolve the annotation "
                f"{hint!r} of {p.name!r}: define the type at module level"
            )
        has_default = p.default is not EMPTY
        schema = _field_schema(hint)
        if has_default:
            schema = {**schema, **(_default_of(p.default) or {})}
        elif not _is_optional(hint):
            required.append(p.name)
        properties[p.name] = schema
        out.append(_Param(p.name, hint, has_default))
    schema_out: Dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema_out["required"] = required
    if not var_keyword:
        # An unknown key is refused by the engine, naming it, rather than
        # dropped on the way to the handler.
        schema_out["additionalProperties"] = False
    return KeywordTool(schema_out, tuple(out), ctx_name, var_keyword)
