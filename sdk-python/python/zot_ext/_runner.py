"""The part of a session that needs no event loop: the concurrent jobs'
contexts and cancellations, the answers, the pending ``call_tool`` calls,
and the worker threads that run plain ``def`` handlers, which take their
jobs from the engine directly (``_workers``): a command, tool or
interceptor call, or a run of events to handle in order.

It exists before asyncio loads: ``Extension.run`` starts the worker threads
right after the handshake, so a plain ``def`` tool answers while the
session's loop (``_session``) is still being set up. What a worker needs
the loop for (awaiting what a handler returned) waits until it runs.
"""

from __future__ import annotations

import _thread
import json
import threading

from ._answers import Answers
from ._calls import PendingCalls
from ._context import Cancellation, Ctx, HostInfo
from ._errors import failure_message, log_failure
from ._results import is_awaitable
from ._routes import Route, Routes, serial_what
from ._workers import Workers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from asyncio import AbstractEventLoop
    from typing import Any, Dict, List, Optional, Tuple, Union

    from . import _native
    from ._bridge import LoopBridge
    from ._extension import Extension
    from ._registry import _Handler
    from ._routes import SerialJob

    #: A run of events for a worker thread: ``(id, name, frame_json)`` each.
    EventRun = List[Tuple[int, str, str]]
    #: A command, tool or interceptor job for a worker thread: ``(kind, id,
    #: name, invocation, input, cancelled)``; the input is a command's text,
    #: a tool's arguments or an interception's request (JSON).
    WorkerCall = Tuple[str, int, str, str, str, bool]

__all__ = ["JobRunner"]

# Cancels kept for a worker thread that has taken its job and not
# registered it yet. Only a few are ever pending; the rest are for handlers
# that had finished, so past this many they are dropped all at once.
_EARLY_CANCELS = 1024


class JobRunner:
    """Runs command, tool and interceptor handlers: their contexts, their
    cancellation, their answers; plain ``def`` ones on worker threads."""

    def __init__(self, ext: Extension, native: _native.Engine) -> None:
        self.ext = ext
        self.native = native
        self.routes = Routes(ext)
        self.cancels: Dict[int, Cancellation] = {}
        # Cancels that found no handler registered (see `cancel`).
        self._early_cancels: Dict[int, bool] = {}
        self.answers = Answers(native, lambda m, level: ext.log(m, level))
        self.calls = PendingCalls(native)
        self.workers = Workers(
            native, ext.max_threads, ext.thread_idle_timeout, lambda: ext.logger, self._run_on_worker
        )
        # The thread of the session's loop: this one, which runs it (or
        # will, once asyncio has loaded).
        self.loop_thread = _thread.get_ident()
        # The token of event and panel handlers: set when the session ends.
        self.ending = Cancellation()
        # The context of every event and panel handler: no job.
        self.serial_ctx = Ctx(self, None, "", self.ending)
        self.loop: Optional[AbstractEventLoop] = None
        self._bridge: Optional[LoopBridge] = None
        self._attached = threading.Event()

    @property
    def host(self) -> Optional[HostInfo]:
        """The host's ``hello_ack``, once received."""
        return self.ext._host

    def attach(self, loop: AbstractEventLoop, bridge: LoopBridge) -> None:
        """The session's loop runs."""
        self.loop, self._bridge = loop, bridge
        self.answers.attach(loop)
        self._attached.set()

    @property
    def bridge(self) -> LoopBridge:
        """The session's loop and worker threads (a worker waits for the
        loop to run)."""
        if self._bridge is None:
            self._attached.wait()
        assert self._bridge is not None
        return self._bridge

    def context(self, job_id: int, invocation: str, cancelled: bool) -> Ctx:
        """A job's context, its cancellation registered (and signalled when
        the job was cancelled before its handler started)."""
        cancellation = Cancellation()
        self.cancels[job_id] = cancellation
        if cancelled:
            cancellation.set()
        return Ctx(self, job_id, invocation, cancellation)

    def cancel(self, job_id: int) -> None:
        """Signals a job's cancellation. Noted before the look-up: a worker
        thread that took this job from the engine registers it, then looks
        here (`_run_on_worker`), so one of the two sees the other."""
        early = self._early_cancels
        if len(early) >= _EARLY_CANCELS:
            early.clear()
        early[job_id] = True
        ev = self.cancels.get(job_id)
        if ev is not None:
            ev.set()
            early.pop(job_id, None)

    def cancel_all(self) -> None:
        """The session ended: every handler's cancellation is signalled."""
        self.ending.set()
        for cancellation in list(self.cancels.values()):
            cancellation.set()

    def close(self, grace: float) -> None:
        """After :meth:`cancel_all` and the loop's tasks: pending
        ``call_tool`` calls fail, and the worker threads get ``grace`` seconds
        to finish. Handlers that ignore cancellation keep running in daemon
        threads; they cannot keep the process alive."""
        self.calls.close_all()
        self.workers.wait_idle(grace)
        self.workers.close(grace)

    def _run_on_worker(self, thread: threading.Thread, work: Union[WorkerCall, EventRun]) -> None:
        """Runs a command, tool or interceptor job, or a run of events, the
        engine handed to a worker thread (``thread``)."""
        if isinstance(work, list):
            thread.name = "zot-ext event handlers"
            self._run_events(work)
            return
        kind, job_id, name, invocation, text, cancelled = work
        try:
            route = self.routes.route(kind, name)
            # Only the handler's input is JSON (a command's is its text).
            raw = text if kind == "command" else json.loads(text)
        except Exception as e:  # a bug of ours: the job is still answered once
            self.ext._ensure_logging()
            self.ext.logger.exception(
                "%s %s: a job the engine routed to a thread could not start", kind, name
            )
            self.answers.fail(job_id, failure_message(e))
            return
        # A cancel that came after the engine handed the job over and before
        # this registration found nothing to signal (see `cancel`).
        cancellation = Cancellation()
        self.cancels[job_id] = cancellation
        if cancelled or self._early_cancels.pop(job_id, False):
            cancellation.set()
        thread.name = route.thread_name
        # `context`, inline: once per call.
        self.run_sync(job_id, route, raw, Ctx(self, job_id, invocation, cancellation))

    def _run_events(self, run: EventRun) -> None:
        """Runs the handlers of a run of events here, in order, one at a
        time, and completes the jobs (each one, whatever happens). The
        frames are parsed only when a handler takes its event, all in one
        ``json.loads`` (their keys made once for the run)."""
        events, done, ran = self.ext._events, [], 0
        takes = any(h is not None and h.arity for h in map(events.get, {name for _, name, _ in run}))
        values = json.loads("[" + ",".join([frame for _, _, frame in run]) + "]") if takes else None
        try:
            for job_id, name, frame in run:
                handler = events.get(name)
                ran += 1
                # None: unsubscribed since; nothing to run.
                if handler is not None:
                    if values is not None:
                        value = values[ran - 1]
                    else:  # a handler that takes it, registered meanwhile
                        value = json.loads(frame) if handler.arity else None
                    if not self.run_serial(job_id, handler, value, name):
                        continue
                done.append(job_id)
        finally:
            self.answers.done(done)
            for job_id, _, _ in run[ran:]:  # after a handler's SystemExit
                self.answers.fail(job_id, "not run: an earlier handler stopped its thread")

    def run_serial(self, job_id: int, handler: _Handler, value: Any, job: Union[SerialJob, str]) -> bool:
        """Runs an event or panel job's plain ``def`` handler here; whether
        it returned (a failure is answered here). ``job``: the job, or an
        event's name."""
        try:
            result = handler.call_with(value, self.serial_ctx)
            if is_awaitable(result):
                self.bridge.await_from_thread(result)
            return True
        except BaseException as e:
            self.serial_failed(job_id, job, e)
            if not isinstance(e, Exception):
                raise
            return False

    def serial_failed(self, job_id: int, job: Union[SerialJob, str], e: BaseException) -> None:
        """Answers an event or panel job whose handler raised ``e``
        (``job``: the job, or an event's name)."""
        self.ext._ensure_logging()
        what = f"event {job}" if isinstance(job, str) else serial_what(job)
        log_failure(self.ext.logger, f"{what} handler failed", e)
        self.answers.fail(job_id, failure_message(e))  # the engine logs it too (SDK-36)

    def run_sync(self, job_id: int, route: Route, raw: Any, ctx: Ctx) -> None:
        """Runs a plain ``def`` handler here and answers its job."""
        try:
            result = route.handler.call_with(route.convert(raw), ctx)
            if is_awaitable(result):
                result = self.bridge.await_from_thread(result)
            answer = route.answer(job_id, result)
        except BaseException as e:
            self.failed(job_id, route, e, ctx)
        else:
            self.answers.add(answer, route.what)
        finally:
            # Straight from the worker: a dict pop is atomic under the GIL,
            # and scheduling it on the loop cost a loop wake-up per call.
            self.cancels.pop(job_id, None)

    def failed(self, job_id: int, route: Route, e: BaseException, ctx: Ctx) -> None:
        """Answers a job whose handler raised ``e``."""
        if not isinstance(e, Exception):
            # KeyboardInterrupt, SystemExit: the job is answered, and the
            # exception goes on.
            self.answers.fail(job_id, failure_message(e))
            raise e
        if not ctx.is_cancelled():
            self.ext._ensure_logging()
            log_failure(self.ext.logger, f"{route.what} failed", e)
        self.answers.fail(job_id, route.failure(e))
