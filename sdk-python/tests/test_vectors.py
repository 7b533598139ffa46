"""The shared protocol vectors (tests/vectors/) against the generated types.

Every valid line must parse as a JSON object whose ``type`` is a known frame
type of its direction (listed in ``zot_ext._protocol``) or else be handled as
an unknown frame; ``event`` / ``event_intercept`` frames likewise carry a
known event name or an unknown one. The invalid cases are checked as far as a
JSON parser can tell: bad UTF-8 and JSON syntax, non-objects, a missing or
non-string ``type``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
from zot_ext import _protocol as p

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"


def lines(path: Path) -> List[Tuple[int, bytes]]:
    """The non-empty lines of a vector file, split on LF only.

    ``str.splitlines()`` would also split on U+2028, U+2029 and U+0085,
    which some vectors carry raw inside strings.
    """
    data = path.read_bytes()
    assert data.endswith(b"\n"), f"{path} must end with LF"
    return [(n, line) for n, line in enumerate(data.split(b"\n"), 1) if line]


def valid(direction: str) -> List[Tuple[int, bytes]]:
    return lines(VECTORS / "valid" / f"{direction}.jsonl")


def invalid_cases() -> List[Dict[str, Any]]:
    cases = [json.loads(line) for _, line in lines(VECTORS / "invalid" / "cases.jsonl")]
    assert cases, "no invalid cases"
    return cases


KNOWN_TYPES = {
    "ext_to_host": frozenset(p.EXT_FRAME_TYPES),
    "host_to_ext": frozenset(p.HOST_FRAME_TYPES),
}
KNOWN_EVENTS = {
    "event": frozenset(p.LIFECYCLE_EVENTS),
    "event_intercept": frozenset(p.INTERCEPT_EVENTS),
}


def classify(direction: str, frame: Dict[str, Any]) -> str:
    """``known:<type>``, ``known:<type>/<event>``, or why it is unknown."""
    tag = frame["type"]
    assert isinstance(tag, str)
    if tag not in KNOWN_TYPES[direction]:
        return "unknown-frame"
    if tag in KNOWN_EVENTS:
        event = frame.get("event")
        assert isinstance(event, str), f"`{tag}` frame without a string `event`"
        if event not in KNOWN_EVENTS[tag]:
            return "unknown-event"
        return f"known:{tag}/{event}"
    return f"known:{tag}"


@pytest.mark.parametrize("direction", ["ext_to_host", "host_to_ext"])
def test_valid_lines_parse_and_are_classified(direction: str) -> None:
    seen = set()
    for n, line in valid(direction):
        frame = json.loads(line.decode("utf-8"))
        assert isinstance(frame, dict), f"{direction}:{n}: not an object"
        seen.add(classify(direction, frame))
    # Each file covers every frame type of its direction (README).
    known = {s.split(":", 1)[1].split("/")[0] for s in seen if s.startswith("known:")}
    assert known == set(KNOWN_TYPES[direction])
    assert "unknown-frame" in seen


def test_every_event_and_intercept_is_covered() -> None:
    seen = {classify("host_to_ext", json.loads(line.decode("utf-8"))) for _, line in valid("host_to_ext")}
    for event in p.LIFECYCLE_EVENTS:
        assert f"known:event/{event}" in seen
    for event in p.INTERCEPT_EVENTS:
        assert f"known:event_intercept/{event}" in seen
    assert "unknown-event" in seen


def test_tag_lists_match_the_unions() -> None:
    # The tuples are what SDK code dispatches on; they must list each frame
    # type once, in protocol order.
    assert len(set(p.EXT_FRAME_TYPES)) == len(p.EXT_FRAME_TYPES) == 18
    assert len(set(p.HOST_FRAME_TYPES)) == len(p.HOST_FRAME_TYPES) == 11
    assert len(p.LIFECYCLE_EVENTS) == 14
    # SDK-10: the order SDKs list them in `subscribe.intercept`.
    assert p.INTERCEPT_EVENTS == (
        "before_agent_start",
        "tool_call",
        "turn_start",
        "assistant_message",
    )
    assert p.EXT_FRAME_TYPES[0] == "hello" and p.HOST_FRAME_TYPES[0] == "hello_ack"


def raw_line(case: Dict[str, Any]) -> bytes:
    if "line_base64" in case:
        return base64.b64decode(case["line_base64"], validate=True)
    line = case["line"]
    assert isinstance(line, str)
    return line.encode("utf-8")


def first_error(line: bytes) -> str:
    """The first rule a line breaks, as far as JSON parsing can tell, or
    ``ok`` when only a typed decoder can reject it (``invalid_field``)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return "invalid_utf8"
    try:
        value = json.loads(text, parse_constant=reject_constant)
    except ValueError:
        return "invalid_json"
    if not isinstance(value, dict):
        return "not_an_object"
    if "type" not in value:
        return "missing_type"
    if not isinstance(value["type"], str):
        return "invalid_type_field"
    return "ok"


def reject_constant(name: str) -> Any:
    # Python's json accepts NaN and Infinity; JSON does not.
    raise ValueError(f"{name} is not JSON")


@pytest.mark.parametrize("case", invalid_cases(), ids=lambda c: str(c["name"]))
def test_invalid_case(case: Dict[str, Any]) -> None:
    got = first_error(raw_line(case))
    if case["expect"] == "invalid_field":
        # A JSON object with a string `type`: the error is in a field, which
        # only a typed decoder sees. The type must be a known one.
        assert got == "ok"
        assert case["frame_type"] in KNOWN_TYPES[case["direction"]]
        assert case["frame_type"] == json.loads(raw_line(case))["type"]
    else:
        assert got == case["expect"]
