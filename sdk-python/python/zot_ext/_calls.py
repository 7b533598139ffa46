"""The ``call_tool`` calls an extension started: each one's waiter, until
the engine hands over its end (the engine matches results, keeps deadlines
and sends cancellations)."""

from __future__ import annotations

import json
import threading

from ._errors import CallToolError
from ._results import to_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Protocol

    from . import _native
    from ._contract import CallResultJob, CallStart, CallStarted

    class Waiter(Protocol):
        def resolve(self, job: CallResultJob) -> None: ...


__all__ = ["PendingCalls"]


class PendingCalls:
    """Started calls by the engine's call number (from any thread)."""

    def __init__(self, native: _native.Engine) -> None:
        self._native = native
        self._waiters: Dict[int, Waiter] = {}
        self._lock = threading.Lock()

    def start(self, request: CallStart, waiter: Waiter) -> int:
        """Starts a call; its end goes to ``waiter``. Raises
        :class:`CallToolError` when the engine refused it (nothing sent)."""
        text = to_json(request)
        # Under the lock: the call's end cannot be settled before it is kept.
        with self._lock:
            try:
                started: CallStarted = json.loads(self._native.start_call(text))
            except RuntimeError as e:  # the runtime is gone (interpreter exiting, fork)
                raise CallToolError("closed", str(e)) from e
            call = started.get("call")
            if call is None:
                # The same answer the Node binding gives
                # (zot_ext_engine::contract, "Errors").
                raise CallToolError(started.get("error_kind", "write"), started.get("error", ""))
            self._waiters[call] = waiter
        return call

    def cancel(self, call: int) -> None:
        """The caller stopped waiting: forget the call and cancel it."""
        with self._lock:
            self._waiters.pop(call, None)
        self._native.cancel_call(call)

    def settle(self, job: CallResultJob) -> None:
        """Hands a ``call_result`` job to its call's waiter."""
        with self._lock:
            waiter = self._waiters.pop(job["call"], None)
        if waiter is not None:
            waiter.resolve(job)

    def close_all(self) -> None:
        """The session ended: every call still waiting fails (``closed``)."""
        with self._lock:
            waiters = list(self._waiters.items())
            self._waiters.clear()
        for call, w in waiters:
            w.resolve(
                {"kind": "call_result", "call": call, "error": "the session ended", "error_kind": "closed"}
            )
