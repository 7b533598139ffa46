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
from typing import TYPE_CHECKING, Deque, Optional

from ._results import is_awaitable
from ._routes import serial_what

if TYPE_CHECKING:
    from ._contract import Job
    from ._routes import SerialJob
    from ._session import _Session

__all__ = ["SerialLane"]


class SerialLane:
    """The session's events and panel input, in order; panel input carries
    the registration the engine bound it to when it arrived."""

    def __init__(self, session: _Session) -> None:
        self.session = session
        self._jobs: Deque[SerialJob] = deque()
        # Set while the lane's task waits for jobs.
        self._waiting: Optional[asyncio.Future[None]] = None

    def add(self, job: Job) -> None:
        """Queues a job (the engine puts only event and panel jobs on this
        lane). The lane's task wakes at the first of a batch, before a
        handler task a later job of the batch starts, which then sees the
        events that came before it handled."""
        self._jobs.append(job)  # type: ignore[arg-type]
        waiting, self._waiting = self._waiting, None
        if waiting is not None and not waiting.done():  # not cancelled with the lane's task
            waiting.set_result(None)

    async def run(self) -> None:
        session, jobs = self.session, self._jobs
        routes, runner, answers = session.routes, session.runner, session.answers
        ctx, bridge = runner.serial_ctx, session.bridge
        # The registry's table (registering more changes it in place).
        events = runner.ext._events
        while True:
            while not jobs:
                self._waiting = session.loop.create_future()
                await self._waiting
            job = jobs.popleft()
            if job["kind"] == "event":
                handler, value = events.get(job["name"]), job["event"]
            else:
                handler, value = routes.panel(job)
            # Awaited here, not in a helper coroutine: one coroutine fewer
            # per event.
            try:
                if handler is None:
                    ran = True
                elif handler.thread and not handler.is_async:
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
                answers.fail(job["id"], "cancelled")
                raise
            except Exception as e:
                runner.serial_failed(job["id"], job, e)
                ran = False
            if ran:
                answers.done_one(job["id"])
