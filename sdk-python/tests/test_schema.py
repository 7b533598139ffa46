"""Tool schemas derived from type hints, and argument conversion."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Annotated, Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union

import pytest
from zot_ext import ArgumentError
from zot_ext._schema import converter_for, schema_for


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Inner(TypedDict, total=False):
    tag: str


@dataclass
class Everything:
    name: Annotated[str, "Who."]
    mode: Literal["fast", "slow"]
    color: Color
    tags: List[str]
    pair: Tuple[int, str]
    weights: Dict[str, float]
    inner: Inner
    either: Union[int, str]
    maybe: Optional[int] = None
    items: List[Inner] = field(default_factory=list)


def test_schema_of_every_supported_type() -> None:
    assert schema_for(Everything) == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who."},
            "mode": {"enum": ["fast", "slow"]},
            "color": {"enum": ["red", "blue"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
            "weights": {"type": "object", "additionalProperties": {"type": "number"}},
            "inner": {"type": "object", "properties": {"tag": {"type": "string"}}},
            "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "maybe": {"type": "integer"},
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"tag": {"type": "string"}}},
            },
        },
        "required": ["name", "mode", "color", "tags", "pair", "weights", "inner", "either"],
    }
    assert schema_for(None) == schema_for(Dict[str, Any]) == {"type": "object"}
    with pytest.raises(TypeError):
        schema_for(int)


def test_conversion() -> None:
    convert = converter_for(Everything)
    value = convert(
        {
            "name": "n",
            "mode": "fast",
            "color": "blue",
            "tags": ["a"],
            "pair": [1, "x"],
            "weights": {"w": 1},
            "inner": {"tag": "t", "extra": 1},
            "either": "s",
            "items": [{}],
        }
    )
    assert value == Everything(
        name="n",
        mode="fast",
        color=Color.BLUE,
        tags=["a"],
        pair=(1, "x"),
        weights={"w": 1.0},
        inner={"tag": "t", "extra": 1},  # type: ignore[typeddict-unknown-key]
        either="s",
        items=[{}],
    )
    bad = [
        ({"mode": "x"}, "arguments.mode: expected one of ['fast', 'slow'], got str"),
        ({"tags": "a"}, "arguments.tags: expected an array, got str"),
        ({"either": 1.5}, "arguments.either: no variant matches"),
        ({"maybe": "1"}, "arguments.maybe: expected an integer, got str"),
    ]
    good = {
        "name": "n", "mode": "fast", "color": "red", "tags": [], "pair": [1, "x"],
        "weights": {}, "inner": {}, "either": 1,
    }  # fmt: skip
    assert convert(good).maybe is None
    for patch, message in bad:
        with pytest.raises(ArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
            convert({**good, **patch})
    with pytest.raises(ArgumentError, match="expected a JSON object"):
        converter_for(None)([1])
