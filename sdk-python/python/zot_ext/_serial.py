"""Events and panel input: run in arrival order, one at a time (SDK-35),
each answered once its handler returned. The engine hands them over with
the other jobs; the order is kept here because only the facade knows when a
handler that suspends is done (an engine that released them one at a time
would cost a native call per event)."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING, Any, Deque, List, Optional, Tuple

from ._context import Ctx
from ._errors import failure_message, log_failure
from ._registry import _Handler
from ._results import is_awaitable
from ._routes import serial_what

if TYPE_CHECKING:
    from ._routes import SerialJob
    from ._session import _Session

    # Jobs, each with its handler and the handler's input.
    _Run = List[Tuple[SerialJob, _Handler, Any]]

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
        # The context of every event handler: no job, the session's
        # cancellation.
        self._ctx = Ctx(session.runner, None, "", session.runner.ending)

    def wake(self) -> None:
        """Jobs were added."""
        self._wake.set()

    async def run(self) -> None:
        # Jobs whose handlers returned are answered together, in one native
        # call per run of them (before waiting for more, and at most every
        # `_BATCH` jobs).
        done: List[int] = []
        # The registry's table (registering more changes it in place).
        events, ctx = self.session.ext._events, self._ctx
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
                elif handler.thread and not handler.is_async:
                    await self._run_in_thread(self._run_from(job, handler, value), done)
                else:
                    # Awaited here, not in a helper coroutine: one coroutine
                    # fewer per event.
                    try:
                        result = handler.call_with(value, ctx)
                        if handler.is_async or is_awaitable(result):
                            await result
                        done.append(job["id"])
                    except asyncio.CancelledError:
                        self.session.answers.fail(job["id"], "cancelled")
                        raise
                    except Exception as e:
                        self._failed(job, e)
                if len(done) >= _BATCH:
                    self._done(done)
        finally:
            self._done(done)

    def _run_from(self, job: SerialJob, handler: _Handler, value: Any) -> _Run:
        """``job`` and the events queued right behind it whose plain ``def``
        handlers also run in a thread (at most ``_BATCH``): they go to one
        worker thread together, still in order and one at a time, instead of
        one thread hand-off each."""
        run: _Run = [(job, handler, value)]
        events = self.session.ext._events
        while self.jobs and len(run) < _BATCH:
            nxt = self.jobs[0]
            if nxt["kind"] != "event":
                break
            h = events.get(nxt["name"])
            if h is None or h.is_async or not h.thread:
                break
            self.jobs.popleft()
            run.append((nxt, h, nxt["event"]))
        return run

    async def _run_in_thread(self, run: _Run, done: List[int]) -> None:
        """Runs ``run`` on one worker thread, in order; the jobs that
        succeed go to ``done`` (failures are answered there). A handler
        that returns an awaitable has it awaited on the loop before the
        next one runs."""
        ctx, bridge = self._ctx, self.session.bridge
        ran: List[Optional[int]] = []  # a job's id, or None: it failed

        def work() -> None:
            for job, handler, value in run:
                try:
                    result = handler.call_with(value, ctx)
                    if is_awaitable(result):
                        bridge.await_from_thread(result)
                    ran.append(job["id"])
                except Exception as e:
                    ran.append(None)
                    self._failed(job, e)

        # The thread's name meanwhile: what the handler is, or the run's.
        what = serial_what(run[0][0]) if len(run) == 1 else "event handlers"
        try:
            await bridge.in_thread(work, what)
        except asyncio.CancelledError:
            for job, _, _ in run[len(ran) :]:
                self.session.answers.fail(job["id"], "cancelled")
            raise
        done.extend(i for i in ran if i is not None)

    def _failed(self, job: SerialJob, e: Exception) -> None:
        self.session.ext._ensure_logging()
        log_failure(self.session.ext.logger, f"{serial_what(job)} handler failed", e)
        self.session.answers.fail(job["id"], failure_message(e))  # the engine logs it too (SDK-36)

    def _done(self, jobs: List[int]) -> None:
        if jobs:
            self.session.answers.done(jobs, "event handlers")
            jobs.clear()
