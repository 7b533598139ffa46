"""Test setup.

The suites run against the *installed* ``zot_ext`` (scripts/test.d/40-python.sh
installs the built wheel into a fresh virtualenv: what ships is what is
tested). Only when no ``zot_ext`` with its compiled module is importable do
they fall back to the source tree (``sdk-python/python``), e.g. after
copying a development build of the native module there.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import threading
from pathlib import Path
from typing import Iterator, Optional

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "python"
ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "tests" / "conformance" / "python"

try:
    import zot_ext._native  # noqa: F401
except ImportError:
    sys.path.insert(0, str(SOURCE))

# The conformance extension is importable as `conformance`.
sys.path.insert(0, str(CONFORMANCE))


@pytest.fixture
def no_leftover_threads() -> Iterator[None]:
    """Fails a test that leaves Python threads running behind it (the
    session must have wound down by the time the harness returns)."""
    before = set(threading.enumerate())
    yield
    extra = [t for t in threading.enumerate() if t not in before]
    for t in extra:
        t.join(2.0)
    left = [t.name for t in extra if t.is_alive()]
    assert not left, f"threads left behind: {left}"


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Optional[bool]:
    """Runs ``async def`` tests with ``asyncio.run`` (no plugin needed)."""
    if not inspect.iscoroutinefunction(pyfuncitem.obj):
        return None
    names = pyfuncitem._fixtureinfo.argnames
    kwargs = {name: pyfuncitem.funcargs[name] for name in names}
    asyncio.run(pyfuncitem.obj(**kwargs))
    return True
