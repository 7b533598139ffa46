"""Tool argument schemas from type hints, and arguments converted to those
types.

A tool handler's first parameter may be annotated with a ``TypedDict``, a
dataclass or (when pydantic is installed) a pydantic model; its JSON Schema
is then derived from the annotation and the arguments the host sends are
checked and converted to that type before the handler runs. ``dict`` /
``Dict[str, Any]`` / no annotation means "any object", passed as is.

Supported field types: ``str``, ``int``, ``float``, ``bool``, ``None``,
``Any``, ``Optional[T]`` and other unions, ``Literal[...]``, enums,
``List[T]`` / ``Sequence[T]`` / ``Tuple[T, ...]``, ``Dict[str, T]``, nested
TypedDicts and dataclasses, and ``Annotated[T, "description"]``; a
``dict`` in ``Annotated`` is a JSON Schema fragment merged into the field's
schema (``Annotated[int, {"minimum": 1, "maximum": 7}]``): the engine
validates every call against the schema, bounds included.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, MutableMapping

from ._annotations import (
    NoneType,
    get_args,
    get_origin,
    is_annotated,
    is_any,
    is_literal,
    type_hints,
    union_types,
)
from ._errors import ArgumentError
from ._introspect import is_dataclass_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional, Tuple

    Converter = Callable[[Any], Any]

__all__ = ["ArgumentError", "schema_for", "converter_for", "is_typeddict"]


def is_typeddict(tp: Any) -> bool:
    """Whether ``tp`` is a TypedDict class (``typing`` or
    ``typing_extensions``), on every supported Python version."""
    return (
        isinstance(tp, type)
        and issubclass(tp, dict)
        and hasattr(tp, "__annotations__")
        and hasattr(tp, "__total__")
    )


def _is_pydantic_model(tp: Any) -> bool:
    return (
        isinstance(tp, type)
        and callable(getattr(tp, "model_json_schema", None))
        and callable(getattr(tp, "model_validate", None))
    )


def _hints(tp: Any) -> Dict[str, Any]:
    return type_hints(tp)


def _unwrap(tp: Any) -> Tuple[Any, Optional[str]]:
    """Strips ``Annotated``; returns the type and a description string if
    one was attached."""
    description = None
    if is_annotated(get_origin(tp)):
        args = get_args(tp)
        tp = args[0]
        for meta in args[1:]:
            if isinstance(meta, str):
                description = meta
            else:
                desc = getattr(meta, "description", None)
                if isinstance(desc, str):
                    description = desc
    return tp, description


def _is_optional(tp: Any) -> bool:
    tp, _ = _unwrap(tp)
    return get_origin(tp) in union_types() and NoneType in get_args(tp)


# The types that take the arguments as a plain mapping.
_MAPPINGS = (dict, Mapping, MutableMapping)


def is_mapping_type(tp: Any) -> bool:
    """Whether ``tp`` is ``dict`` or a mapping ABC, bare or subscripted
    (``Dict[str, Any]``, ``Mapping[str, int]``)."""
    return tp in _MAPPINGS or get_origin(tp) in _MAPPINGS


def schema_for(tp: Any) -> Dict[str, Any]:
    """The JSON Schema (an object schema) of a handler's argument type."""
    if tp is None or is_any(tp) or is_mapping_type(tp):
        return {"type": "object"}
    if isinstance(tp, str):
        raise TypeError(
            f"cannot resolve the argument annotation {tp!r}: define the type at module level "
            "(postponed annotations are looked up in the module's globals) or pass schema=..."
        )
    tp, _ = _unwrap(tp)
    if _is_pydantic_model(tp):
        schema = tp.model_json_schema()
        if not isinstance(schema, dict):  # pragma: no cover - pydantic always returns a dict
            raise TypeError(f"{tp.__name__}.model_json_schema() did not return a dict")
        return schema
    if is_typeddict(tp) or is_dataclass_type(tp):
        return _object_schema(tp)
    raise TypeError(
        f"cannot derive a tool schema from {tp!r}: annotate the arguments with a TypedDict, "
        "a dataclass or a pydantic model, or pass schema=..."
    )


def _object_schema(tp: type) -> Dict[str, Any]:
    hints = _hints(tp)
    props: Dict[str, Any] = {}
    required: List[str] = []
    if is_typeddict(tp):
        req_keys = getattr(tp, "__required_keys__", frozenset(hints))
        for name, hint in hints.items():
            props[name] = _field_schema(hint)
            if name in req_keys and not _is_optional(hint):
                required.append(name)
    else:
        import dataclasses  # loaded already: `tp` is a dataclass

        for f in dataclasses.fields(tp):
            hint = hints.get(f.name, object)
            props[f.name] = _field_schema(hint)
            has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            if not has_default and not _is_optional(hint):
                required.append(f.name)
    schema: Dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    doc = getattr(tp, "__doc__", None)
    if doc and not doc.startswith(tp.__name__ + "("):  # skip dataclass' generated doc
        schema["description"] = clean_doc(" ".join(doc.split()))
    return schema


# reStructuredText's inline markup, which the model would read literally:
# ``literal``, :role:`text` (also :role:`~a.b` and :role:`title <target>`).
_RST_LITERAL = re.compile(r"``(.+?)``")
_RST_ROLE = re.compile(r":[\w.+-]+:`~?([^`<]*?)\s*(?:<[^`>]*>)?`")


def clean_doc(text: str) -> str:
    """A docstring as a description for the model: ``text`` (already
    dedented) with reStructuredText's inline markup reduced to its words."""
    return _RST_ROLE.sub(r"\1", _RST_LITERAL.sub(r"\1", text))


def _field_schema(hint: Any) -> Dict[str, Any]:
    tp, description = _unwrap(hint)
    schema = _type_schema(tp)
    if description:
        schema = {**schema, "description": description}
    if is_annotated(get_origin(hint)):
        for meta in get_args(hint)[1:]:
            if isinstance(meta, Mapping):
                schema = {**schema, **meta}
    return schema


_SCALARS: Dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _type_schema(tp: Any) -> Dict[str, Any]:
    if tp is object or is_any(tp):
        return {}
    if tp is NoneType or tp is None:
        return {"type": "null"}
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [m.value for m in tp]}
    if is_typeddict(tp) or is_dataclass_type(tp):
        return _object_schema(tp)
    if _is_pydantic_model(tp):
        schema = tp.model_json_schema()
        return dict(schema) if isinstance(schema, dict) else {}
    origin = get_origin(tp)
    args = get_args(tp)
    if is_literal(origin):
        return {"enum": list(args)}
    if origin in union_types():
        options = [a for a in args if a is not NoneType]
        if len(options) == 1:
            return _field_schema(options[0])
        return {"anyOf": [_field_schema(a) for a in options]}
    if origin in (list, tuple, set, frozenset) or _is_abc(origin, "Sequence"):
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return {"type": "array", "prefixItems": [_field_schema(a) for a in args]}
        item = args[0] if args else object
        return {"type": "array", "items": _field_schema(item)}
    if origin is dict or _is_abc(origin, "Mapping") or tp is dict:
        value = args[1] if len(args) == 2 else object
        inner = _field_schema(value)
        return {"type": "object", "additionalProperties": inner} if inner else {"type": "object"}
    if tp is list:
        return {"type": "array"}
    raise TypeError(f"cannot derive a JSON Schema for {tp!r}")


def _is_abc(origin: Any, name: str) -> bool:
    import collections.abc as abc

    return origin is getattr(abc, name)


# ---------------------------------------------------------------------------
# Conversion


def converter_for(tp: Any) -> Converter:
    """A function that checks and converts raw arguments (a JSON object
    decoded into a dict) into ``tp``; raises :class:`ArgumentError`."""
    if tp is None or is_any(tp) or is_mapping_type(tp):
        return _object_passthrough
    if isinstance(tp, str):
        # An annotation that cannot be resolved (the schema was given
        # explicitly): the arguments are passed as a dict.
        return _object_passthrough
    tp, _ = _unwrap(tp)
    if _is_pydantic_model(tp):

        def pydantic_convert(value: Any) -> Any:
            try:
                return tp.model_validate(value)
            except Exception as e:  # pydantic.ValidationError; pydantic is optional
                raise ArgumentError(f"invalid arguments: {e}") from e

        return pydantic_convert
    return lambda value: _convert(value, tp, "arguments")


def _object_passthrough(value: Any) -> Any:
    if not isinstance(value, dict):
        raise ArgumentError("invalid arguments: expected a JSON object")
    return value


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)


def _fail(path: str, expected: str, value: Any) -> ArgumentError:
    got = "null" if value is None else type(value).__name__
    return ArgumentError(f"invalid arguments: {path}: expected {expected}, got {got}")


def _convert(value: Any, hint: Any, path: str) -> Any:
    tp, _ = _unwrap(hint)
    if tp is object or is_any(tp):
        return value
    if tp is NoneType or tp is None:
        if value is not None:
            raise _fail(path, "null", value)
        return None
    if tp is bool:
        if not isinstance(value, bool):
            raise _fail(path, "a boolean", value)
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise _fail(path, "an integer", value)
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(path, "a number", value)
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise _fail(path, "a string", value)
        return value
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError:
            raise _fail(path, f"one of {[m.value for m in tp]}", value) from None
    if is_typeddict(tp):
        return _convert_typeddict(value, tp, path)
    if is_dataclass_type(tp):
        return _convert_dataclass(value, tp, path)
    if _is_pydantic_model(tp):
        try:
            return tp.model_validate(value)
        except Exception as e:
            raise ArgumentError(f"invalid arguments: {path}: {e}") from e
    origin = get_origin(tp)
    args = get_args(tp)
    if is_literal(origin):
        if value not in args:
            raise _fail(path, f"one of {list(args)}", value)
        return value
    if origin in union_types():
        if value is None and NoneType in args:
            return None
        errors = []
        for option in args:
            if option is NoneType:
                continue
            try:
                return _convert(value, option, path)
            except ArgumentError as e:
                errors.append(str(e))
        raise ArgumentError(
            errors[0] if len(errors) == 1 else f"invalid arguments: {path}: no variant matches"
        )
    if origin in (list, tuple, set, frozenset) or _is_abc(origin, "Sequence") or tp is list:
        if not isinstance(value, list):
            raise _fail(path, "an array", value)
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                raise ArgumentError(f"invalid arguments: {path}: expected {len(args)} items")
            return tuple(_convert(v, a, f"{path}[{i}]") for i, (v, a) in enumerate(zip(value, args)))
        item = args[0] if args else object
        items = [_convert(v, item, f"{path}[{i}]") for i, v in enumerate(value)]
        if origin is tuple:
            return tuple(items)
        if origin in (set, frozenset):
            return origin(items)
        return items
    if origin is dict or _is_abc(origin, "Mapping") or tp is dict:
        if not isinstance(value, dict):
            raise _fail(path, "an object", value)
        inner = args[1] if len(args) == 2 else object
        return {k: _convert(v, inner, f"{path}.{k}") for k, v in value.items()}
    raise TypeError(f"cannot convert arguments to {_type_name(tp)}")


def _convert_typeddict(value: Any, tp: type, path: str) -> Any:
    if not isinstance(value, dict):
        raise _fail(path, "an object", value)
    hints = _hints(tp)
    required = getattr(tp, "__required_keys__", frozenset(hints))
    out = dict(value)
    for name, hint in hints.items():
        if name in value:
            out[name] = _convert(value[name], hint, f"{path}.{name}")
        elif name in required and not _is_optional(hint):
            raise ArgumentError(f"invalid arguments: missing field {name!r}")
    return out


def _convert_dataclass(value: Any, tp: type, path: str) -> Any:
    if not isinstance(value, dict):
        raise _fail(path, "an object", value)
    import dataclasses  # loaded already: `tp` is a dataclass

    hints = _hints(tp)
    kwargs: Dict[str, Any] = {}
    for f in dataclasses.fields(tp):
        if not f.init:
            continue
        hint = hints.get(f.name, object)
        if f.name in value:
            kwargs[f.name] = _convert(value[f.name], hint, f"{path}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            if _is_optional(hint):
                kwargs[f.name] = None
            else:
                raise ArgumentError(f"invalid arguments: missing field {f.name!r}")
    return tp(**kwargs)
