"""Events and panel input: run in arrival order, one at a time (SDK-35),
each answered once its handler returned. The engine hands them over with
the other jobs; the order is kept here because only the facade knows when a
handler that suspends is done (an engine that released them one at a time
would cost a native call per event)."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING, Any, Awaitable, Deque, List, Optional, Tuple, cast

from ._context import Ctx
from ._contract import EventJob
from ._errors import failure_message, log_failure
from ._registry import _Handler
from ._results import is_awaitable
from ._routes import SerialJob, serial_what

if TYPE_CHECKING:
    from ._session import _Session

__all__ = ["SerialJobs"]


class SerialJobs:
    """The session's events and panel input, in order; panel input carries
    the registration the engine bound it to when it arrived."""

    def __init__(self, session: _Session) -> None:
        self.session = session
        #: The jobs to run, in arrival order: the session appends to it and
        #: then calls :meth:`wake`.
        self.jobs: Deque[SerialJob] = deque()
        self._wake = asyncio.Event()
        self._event_ctx: Optional[Ctx] = None

    def wake(self) -> None:
        """Jobs were added."""
        self._wake.set()

    async def run(self) -> None:
        # Jobs whose handlers returned are answered together, in one native
        # call per run of them (before waiting for more, and at most every
        # 256 jobs so that the engine's read-ahead bound keeps moving).
        done: List[int] = []
        # The registry's table (registering more changes it in place) and
        # the context of every event handler, looked up once.
        events = self.session.ext._events
        ctx = self._context()
        try:
            while True:
                while not self.jobs:
                    if done:
                        self._done(done)
                        done = []
                    await self._wake.wait()
                    self._wake.clear()
                job = self.jobs.popleft()
                if (
                    job["kind"] == "event"
                    and (handler := events.get(job["name"])) is not None
                    and handler.is_async
                ):
                    # Awaited here, not through `_run_one` or `_settle`:
                    # three coroutines fewer per event.
                    try:
                        await handler.call_with(job["event"], ctx)
                        done.append(job["id"])
                    except asyncio.CancelledError:
                        self.session.answers.fail(job["id"], "cancelled")
                        raise
                    except Exception as e:
                        self._failed(job, f"event {job['name']}", e)
                elif self._threaded(job) is not None:
                    done.extend(await self._run_in_thread(self._run_of_threaded(job)))
                elif await self._run_one(job):
                    done.append(job["id"])
                if len(done) >= 256:
                    self._done(done)
                    done = []
        finally:
            if done:
                self._done(done)

    def _context(self) -> Ctx:
        """The context of event handlers (one for all): no job, the
        session's cancellation."""
        if self._event_ctx is None:
            self._event_ctx = Ctx(self.session, None, "", self.session.ending)
        return self._event_ctx

    def _threaded(self, job: SerialJob) -> Optional[_Handler]:
        """The handler of an event whose plain ``def`` handler runs in a
        worker thread, else ``None``."""
        if job["kind"] != "event":
            return None
        handler = self.session.ext._events.get(job["name"])
        if handler is None or handler.is_async or not handler.thread:
            return None
        return handler

    def _run_of_threaded(self, first: SerialJob) -> List[Tuple[EventJob, _Handler]]:
        """``first`` and the events queued right behind it whose handlers
        also run in a thread (at most 256): they go to one worker thread
        together, still in order and one at a time, instead of one thread
        hand-off each."""
        run: List[Tuple[EventJob, _Handler]] = []
        job: SerialJob = first
        while True:
            handler = self._threaded(job)
            if handler is None:  # not for `first`, which the caller checked
                return run
            run.append((cast(EventJob, job), handler))
            if len(run) >= 256 or not self.jobs or self._threaded(self.jobs[0]) is None:
                return run
            job = self.jobs.popleft()

    async def _run_in_thread(self, run: List[Tuple[EventJob, _Handler]]) -> List[int]:
        """Runs a run of threaded event handlers in one worker thread, in
        order; returns the jobs done (failures are answered here). A handler
        that returns an awaitable is awaited on the loop, and the rest of the
        run goes back to the front of the queue."""
        ctx = self._context()

        def work() -> Tuple[List[Tuple[EventJob, Optional[Exception]]], Any]:
            ran: List[Tuple[EventJob, Optional[Exception]]] = []
            for job, handler in run:
                try:
                    result = handler.call_with(job["event"], ctx)
                except Exception as e:
                    ran.append((job, e))
                    continue
                if is_awaitable(result):
                    return ran, result
                ran.append((job, None))
            return ran, None

        try:
            ran, pending = await self.session.bridge.in_thread(work, "event handlers")
        except asyncio.CancelledError:
            for job, _ in run:
                self.session.answers.fail(job["id"], "cancelled")
            raise
        done = [job["id"] for job, error in ran if error is None]
        for job, error in ran:
            if error is not None:
                self._failed(job, f"event {job['name']}", error)
        if pending is not None:
            await self._settle(run[len(ran)][0], pending, done)
            for later, _ in reversed(run[len(ran) + 1 :]):
                self.jobs.appendleft(later)
        return done

    async def _settle(self, job: EventJob, pending: Awaitable[Any], done: List[int]) -> None:
        """Awaits an event handler's result: the job goes to ``done``, or
        its failure is answered."""
        try:
            await pending
            done.append(job["id"])
        except asyncio.CancelledError:
            self.session.answers.fail(job["id"], "cancelled")
            raise
        except Exception as e:
            self._failed(job, f"event {job['name']}", e)

    def _failed(self, job: SerialJob, what: str, e: Exception) -> None:
        self.session.ext._ensure_logging()
        log_failure(self.session.ext.logger, f"{what} handler failed", e)
        self.session.answers.fail(job["id"], failure_message(e))  # the engine logs it too (SDK-36)

    def _done(self, jobs: List[int]) -> None:
        self.session.answers.done(jobs, "event handlers")

    async def _run_one(self, job: SerialJob) -> bool:
        """Runs one event or panel job; ``True`` when it is to be answered as
        done (a failure is answered here)."""
        try:
            target = self.session.routes.serial(job, self._context())
            if target is not None:
                await self._call(target[0], serial_what(job), *target[1])
        except asyncio.CancelledError:
            self.session.answers.fail(job["id"], "cancelled")
            raise
        except Exception as e:
            self._failed(job, serial_what(job), e)
            return False
        return True

    async def _call(self, handler: _Handler, what: str, *args: Any) -> None:
        if handler.is_async:
            await handler.call(*args)
        elif handler.thread:
            result = await self.session.bridge.in_thread(lambda: handler.call(*args), what)
            if is_awaitable(result):
                await result
        else:
            result = handler.call(*args)
            if is_awaitable(result):
                await result
