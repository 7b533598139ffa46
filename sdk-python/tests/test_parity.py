"""docs/api-parity.md against the real package: every Python cell of the
table names a member of ``zot_ext`` whose signature starts with the listed
parameters, in that order, with the listed defaults (and no default where
none is listed)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest
import zot_ext

TABLE = Path(__file__).resolve().parents[2] / "docs" / "api-parity.md"
COLUMNS = ("call", "rust", "typescript", "python", "notes")


def rows() -> List[Tuple[str, str]]:
    """(call, Python cell) of every row of the table."""
    text = TABLE.read_text(encoding="utf-8")
    body = text.split("## The table", 1)[1]
    out = []
    for line in body.splitlines():
        if not line.startswith("| ") or line.startswith("| call | Rust |") or line.startswith("| ---"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        assert len(cells) == len(COLUMNS), f"{line!r}: expected {len(COLUMNS)} cells"
        out.append((cells[0], cells[3]))
    return out


CELL = re.compile(r"^`(?P<owner>[A-Za-z_]\w*)(?:\.(?P<member>\w+))?(?:\((?P<params>.*)\))?`$")


def parse_params(params: str) -> List[Tuple[str, Optional[str]]]:
    """``a, b="info"`` -> [("a", None), ("b", '"info"')]."""
    out: List[Tuple[str, Optional[str]]] = []
    for part in filter(None, (p.strip() for p in params.split(","))):
        name, _, default = part.partition("=")
        out.append((name.strip(), default.strip() or None))
    return out


def check(cell: str) -> None:
    m = CELL.match(cell)
    assert m, f"{cell}: not `Owner.member(params)`"
    owner: Any = getattr(zot_ext, m["owner"], None)
    assert owner is not None, f"{cell}: zot_ext has no {m['owner']}"
    member = m["member"]
    if member is None:
        target: Any = owner
    elif m["params"] is None:
        # A property or attribute: on the class, or declared on it.
        annotations = {k for c in inspect.getmro(owner) for k in getattr(c, "__annotations__", {})}
        assert hasattr(owner, member) or member in annotations, f"{cell}: {owner.__name__} has no {member}"
        return
    else:
        target = getattr(owner, member, None)
        assert target is not None, f"{cell}: {owner.__name__} has no {member}"
    assert m["params"] is not None, f"{cell}: a call needs parentheses"
    sig = inspect.signature(target)
    actual = [p for p in sig.parameters.values() if p.name != "self"]
    listed = parse_params(m["params"])
    assert len(actual) >= len(listed), f"{cell}: the signature is {sig}"
    for (name, default), param in zip(listed, actual):
        assert param.name == name, f"{cell}: parameter {param.name!r} where the table lists {name!r} ({sig})"
        if default is None:
            assert param.default is inspect.Parameter.empty, f"{cell}: {name} has a default in {sig}"
        else:
            assert param.default == ast.literal_eval(default), (
                f"{cell}: {name}'s default is {param.default!r}"
            )
    # What the table leaves out must be optional.
    for param in actual[len(listed) :]:
        optional = param.default is not inspect.Parameter.empty or param.kind in (
            param.VAR_POSITIONAL,
            param.VAR_KEYWORD,
        )
        assert optional, f"{cell}: the required parameter {param.name!r} is missing from the table ({sig})"


@pytest.mark.parametrize(("call", "cell"), [r for r in rows() if r[1] != "—"])
def test_the_parity_table_matches_the_package(call: str, cell: str) -> None:
    check(cell)


def test_the_table_is_read_and_its_checks_can_fail() -> None:
    assert len(rows()) >= 30
    for wrong in (
        "`Extension.notify(level, message)`",  # the order
        '`Ctx.notify(message, level="warn")`',  # the default
        "`Extension.no_such_call()`",  # the name
        "`Extension.open_panel()`",  # a required parameter left out
    ):
        with pytest.raises(AssertionError):
            check(wrong)
