"""Events and panel input: run in arrival order, one at a time (SDK-35),
each answered once its handler returned. The engine hands them over with
the other jobs; the order is kept here because only the facade knows when a
handler that suspends is done (an engine that released them one at a time
would cost a native call per event). Events whose handler is a plain
``def`` one running on a thread never come here: the engine hands them to a
worker thread in runs (``_runner``), and keeps the order between the two."""

from __future__ import annotations

import asyncio
from collections import deque
from functools import partial
from typing import TYPE_CHECKING, Deque, List

from ._results import is_awaitable
from ._routes import serial_what

if TYPE_CHECKING:
    from ._routes import SerialJob
    from ._session import _Session

__all__ = ["SerialJobs"]

# Jobs answered together at most: the engine's read-ahead bound keeps moving.
_BATCH = 256


class SerialJobs:
    """The session's events and panel input, in order; panel input carries
    the registration the engine bound it to when it arrived."""

    def __init__(self, session: _Session) -> None:
        self.session = session
        #: The jobs to run, in arrival order: the session appends to it and
        #: then calls :meth:`wake`.
        self.jobs: Deque[SerialJob] = deque()
        self._wake = asyncio.Event()

    def wake(self) -> None:
        """Jobs were added."""
        self._wake.set()

    async def run(self) -> None:
        # Jobs whose handlers returned are answered together, in one native
        # call per run of them (before waiting for more, and at most every
        # `_BATCH` jobs).
        done: List[int] = []
        # The registry's table (registering more changes it in place).
        events, runner = self.session.ext._events, self.session.runner
        ctx, bridge = runner.serial_ctx, self.session.bridge
        try:
            while True:
                while not self.jobs:
                    self._done(done)
                    await self._wake.wait()
                    self._wake.clear()
                job = self.jobs.popleft()
                if job["kind"] == "event":
                    handler, value = events.get(job["name"]), job["event"]
                else:
                    handler, value = self.session.routes.panel(job)
                if handler is None:
                    done.append(job["id"])
                    continue
                # Awaited here, not in a helper coroutine: one coroutine
                # fewer per event.
                try:
                    if handler.thread and not handler.is_async:
                        # Panel input, or an event whose handler became a
                        # threaded one after the engine queued it.
                        run = partial(runner.run_serial, job["id"], handler, value, job)
                        ran = await bridge.in_thread(run, serial_what(job))
                    else:
                        result = handler.call_with(value, ctx)
                        if handler.is_async or is_awaitable(result):
                            await result
                        ran = True
                except asyncio.CancelledError:
                    self.session.answers.fail(job["id"], "cancelled")
                    raise
                except Exception as e:
                    runner.serial_failed(job["id"], job, e)
                    ran = False
                if ran:
                    done.append(job["id"])
                if len(done) >= _BATCH:
                    self._done(done)
        finally:
            self._done(done)

    def _done(self, jobs: List[int]) -> None:
        if jobs:
            self.session.answers.done(jobs, "event handlers")
            jobs.clear()
