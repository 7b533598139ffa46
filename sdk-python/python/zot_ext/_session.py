"""The dispatcher that runs an :class:`~zot_ext.Extension`'s handlers for
one engine session: the Python half of the engine's pull model.

It takes batches of jobs from the native engine (``_feed``), handles each
batch on the turn of the loop that took it, and answers in batches
(``_answers``). It makes no protocol decision: ids, deadlines,
cancellation, what a late or cancelled answer means, ``call_tool``
matching and writing all happen in the engine.

Concurrency, as the engine's job contract asks:

- commands, tools and interceptors run concurrently: ``async def`` handlers
  as tasks on the SDK's event loop (``_tasks``, cancelled with
  ``task.cancel()``), plain ``def`` handlers on a bounded set of reusable
  worker threads, which take their jobs from the engine directly
  (``_runner``, which exists before the loop; or on the loop thread with
  ``thread=False``), with ``ctx.cancelled`` set on cancellation;
- jobs whose ``lane`` the engine set to ``serial`` (events and panel input)
  run in arrival order, one at a time, each answered once its handler
  returned (``_serial``).
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import List, Optional, Union

from ._bridge import LoopBridge
from ._contract import CommandJob, InterceptJob, Job, ToolJob
from ._feed import JobFeed
from ._handshake import hello_on_loop
from ._runner import JobRunner
from ._serial import SerialLane
from ._tasks import HandlerTasks

__all__ = ["_Session"]

# How long the end of a session waits for handler threads and tasks that
# already answered to wind down (the engine's shutdown grace came before).
_WIND_DOWN = 0.3


class _Session:
    """One engine session: pulls jobs and runs the extension's handlers."""

    def __init__(self, runner: JobRunner, early: Optional[List[Job]] = None) -> None:
        self.runner = runner
        self.native = runner.native
        # Jobs taken before the loop ran (`_handshake`), handled first.
        self._early = early
        self.loop = asyncio.get_running_loop()
        self.tasks = HandlerTasks(runner, self.loop)
        self.routes, self.answers, self.workers = runner.routes, runner.answers, runner.workers
        self.bridge = LoopBridge(self.loop, self.workers)
        # The end of the session: the engine's error, if any.
        self._over: asyncio.Future[Optional[str]] = self.loop.create_future()
        self.serial = SerialLane(self)
        self.feed = JobFeed(self.native, self.loop, self._deliver)
        runner.attach(self.loop, self.bridge)

    def _deliver(self, batch: List[Job]) -> None:
        """Handles one batch, in the order taken. ``hello`` comes alone: the
        engine hands out nothing else until the on-hello hooks are done."""
        try:
            for job in batch:
                if self._over.done():
                    return
                if job.get("lane") == "serial":
                    # Events and panel input (bound by the engine, on
                    # arrival, to the registration it is for).
                    self.serial.add(job)
                elif job["kind"] == "command" or job["kind"] == "tool" or job["kind"] == "intercept":
                    self._start(job)
                elif job["kind"] == "cancel":
                    self.runner.cancel(job["id"])
                    self.tasks.cancel(job["id"])
                elif job["kind"] == "call_result":
                    self.runner.calls.settle(job)
                elif job["kind"] == "shutdown":
                    self.runner.ending.set()
                elif job["kind"] == "finished":
                    self._over.set_result(job.get("error") or None)
                elif job["kind"] == "hello":
                    hello = hello_on_loop(self.runner.ext, self.native, job)
                    self.loop.create_task(hello).add_done_callback(self._hello_done)
        except Exception as e:  # a bug of ours: end the session with it
            if not self._over.done():
                self._over.set_exception(e)
            return
        # Answers of handlers that ran inline leave with this batch, not a
        # turn of the loop later.
        self.answers.flush()

    def _hello_done(self, task: asyncio.Task[None]) -> None:
        error = None if task.cancelled() else task.exception()
        if error is not None and not self._over.done():
            self._over.set_exception(error)

    async def run(self) -> Optional[str]:
        """Runs the session; returns the engine's error, if it failed."""
        # The serial lane's task first: with the handshake done before the
        # loop, the first pull may already hold an event and a command
        # after it, whose task must not start before the event's handler.
        # The worker threads are up already: started with the runner, or by
        # the first registration routed to them.
        serial = self.loop.create_task(self.serial.run())
        if self._early:
            self._deliver(self._early)
        self.feed.attach()
        try:
            return await asyncio.shield(self._over)
        except asyncio.CancelledError:
            # Ctrl-C or the application cancelled serve(): end the session
            # from our side (the engine cancels every job).
            with suppress(RuntimeError):
                self.native.close()
            raise
        finally:
            # Stop what is left (every job was answered or abandoned by the
            # engine's grace), without leaving threads behind.
            self.feed.detach()
            self.runner.cancel_all()
            await self.tasks.wind_down([serial], _WIND_DOWN)
            self.runner.close(_WIND_DOWN)

    # -- dispatching ------------------------------------------------------

    def _start(self, job: Union[CommandJob, ToolJob, InterceptJob]) -> None:
        route, invocation, raw = self.routes.of(job)
        # Cancelled before it was handed out: the handler starts with its
        # cancellation signalled.
        job_id, cancelled = job["id"], job.get("cancelled", False)
        ctx = self.runner.context(job_id, invocation, cancelled)
        if route.handler.is_async:
            self.tasks.start(job_id, route, raw, ctx)
        elif route.handler.thread:
            # Routed to the threads after the job was queued (a replaced
            # interceptor): it joins them here.
            self.workers.submit(route.thread_name, self.runner.run_sync, (job_id, route, raw, ctx))
        else:
            self.runner.run_sync(job_id, route, raw, ctx)
        if cancelled:
            self.tasks.cancel(job_id)
