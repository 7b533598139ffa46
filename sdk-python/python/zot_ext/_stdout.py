"""Keeping stdout for the wire: what the extension prints goes to the log."""

from __future__ import annotations

import io
import os
import sys

from . import _native

__all__ = ["protect_stdout", "stdout_follows_descriptor_1"]


def protect_stdout() -> None:
    """Protects stdout now, before :meth:`Extension.run`: the host's pipe is
    set aside for the engine and from here on descriptor 1 points at stderr,
    so anything printed while the extension loads (its own ``print()`` or a
    library's banner) lands in the log instead of before ``hello``, which the
    host would refuse. ``run()`` does the same anyway; call this right after
    ``import zot_ext`` when something may print before it. Safe to call more
    than once.

    >>> import zot_ext
    >>> zot_ext.protect_stdout()  # doctest: +SKIP
    """
    _native.protect_stdout()
    stdout_follows_descriptor_1()


def stdout_follows_descriptor_1() -> None:
    """Called once the engine pointed descriptor 1 at stderr (it keeps the
    wire for itself): what ``print()`` buffered before ``run()`` goes to the
    log now, and later prints reach it line by line, not when the buffer
    fills or at exit (never, if the process ends by the exit watchdog).
    A ``sys.stdout`` that is not descriptor 1 (replaced by the user or a test
    runner) is left alone.

    On Windows the engine can repoint only the process's standard handles;
    descriptor 1 of the C runtime (one runtime, shared by CPython and the
    native module) still holds the host's pipe, of which the engine keeps a
    handle of its own: descriptor 1 becomes stderr's here."""
    if sys.platform == "win32":
        try:
            os.dup2(2, 1)
        except OSError:  # no stderr (pythonw): nothing to print to anyway
            pass
    out = sys.stdout
    try:
        if out is None or out.fileno() != 1:
            return
        out.flush()
        if isinstance(out, io.TextIOWrapper) and not out.line_buffering:
            out.reconfigure(line_buffering=True)
    except (AttributeError, OSError, ValueError):
        return
