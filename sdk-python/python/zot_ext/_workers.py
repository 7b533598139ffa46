"""The threads that run plain ``def`` handlers.

The engine keeps the pool's rules (its worker lane): which jobs go to a
thread, the bound on threads, interceptions first, a queued job that is
cancelled answered at once without starting, a thread waiting in
``call_tool_sync`` not counting, idle threads exiting. A thread waits for
work inside the engine with the GIL released, so a call reaches its handler
without passing through the event loop; this module only starts a thread
when the engine says so, and runs what each thread takes.
"""

from __future__ import annotations

import itertools
import threading
import time

from . import _native

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import Any, Callable, Dict, Set, Tuple, Union

    from ._runner import EventRun, WorkerCall

__all__ = ["Workers"]

if TYPE_CHECKING:
    #: A task: the name its thread carries while running it, a function and
    #: its arguments (no closure per task: a call's objects stay few).
    Task = Tuple[str, Callable[..., Any], Tuple[Any, ...]]


class Workers:
    """Daemon threads for plain ``def`` handlers, at most ``max_threads``
    running at once (the engine counts them).

    - ``run_job(thread, work)`` runs a job the engine routed to the
      threads (:meth:`_native.Engine.route_to_workers`; a tuple of its
      fields), or a run of events (a list of ``(id, name, frame_json)``).
    - :meth:`submit` queues a function of the SDK's own (a run of event
      handlers) for the same threads, under the same bound.
    - Threads are daemons, so a handler that ignores cancellation cannot
      keep the process alive; they exit when the session ends.
    """

    def __init__(
        self,
        native: _native.Engine,
        max_threads: int,
        idle_timeout: float,
        logger: Callable[[], logging.Logger],
        run_job: Callable[[threading.Thread, Union[WorkerCall, EventRun]], None],
    ) -> None:
        self._native = native
        self._max = max_threads
        self._idle_timeout = idle_timeout
        self._logger = logger
        self._run_job = run_job
        # Functions queued with `submit`, by the key the engine hands back.
        self._tasks: Dict[int, Task] = {}
        self._keys = itertools.count(1)
        self._threads: Set[threading.Thread] = set()
        self._names = itertools.count(1)
        self._started = False

    def start(self) -> None:
        """Sets the engine's bound and starts the first thread (once), so
        that a routed job finds one waiting."""
        if self._started:
            return
        self._started = True
        for _ in range(self._native.start_workers(self._max)):
            self._spawn()

    def submit(self, name: str, fn: Callable[..., Any], args: Tuple[Any, ...] = ()) -> None:
        """Runs ``fn(*args)`` on a worker, now or once one is free; the
        thread is called ``name`` meanwhile (for thread dumps)."""
        self.start()
        key = next(self._keys)
        self._tasks[key] = (name, fn, args)
        if self._native.queue_task(key):
            self._spawn()

    def lend(self) -> _Lent:
        """Around a blocking wait in a worker (``with workers.lend():``):
        the worker does not count against the bound meanwhile (another may
        start for queued work). Outside a worker thread it does nothing."""
        return _Lent(self)

    def wait_idle(self, timeout: float) -> None:
        """Waits (at most ``timeout`` s) until no handler is running or
        queued."""
        self._native.wait_workers_idle(timeout)

    def close(self, timeout: float) -> None:
        """After the session: joins the threads (they exit when it ends)
        within one shared ``timeout`` (a handler that ignores cancellation
        is left to its daemon thread)."""
        deadline = time.monotonic() + timeout
        for th in list(self._threads):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if th is not threading.current_thread():
                th.join(left)

    def _spawn(self) -> None:
        th = threading.Thread(target=self._work, name=f"zot-ext-worker-{next(self._names)}", daemon=True)
        self._threads.add(th)
        th.start()

    def _work(self) -> None:
        me = threading.current_thread()
        take = self._native.take_work
        finished = False
        try:
            while True:
                try:
                    taken = take(self._idle_timeout, finished)
                except RuntimeError:  # the runtime is gone (interpreter exiting)
                    return
                if taken is None:
                    return
                spawn, work = taken
                if spawn:
                    self._spawn()
                finished = True
                try:
                    if isinstance(work, int):
                        name, fn, args = self._tasks.pop(work)
                        me.name = name
                        fn(*args)
                    else:
                        self._run_job(me, work)
                except BaseException:  # pragma: no cover - handlers answer first
                    self._logger().exception("%s: handler thread failed", me.name)
        finally:
            self._threads.discard(me)


class _Lent:
    """What :meth:`Workers.lend` returns (a class, not a
    ``contextlib.contextmanager``: that module is not loaded before
    ``ready``)."""

    __slots__ = ("_lent", "_workers")

    def __init__(self, workers: Workers) -> None:
        self._workers = workers
        self._lent = False

    def __enter__(self) -> None:
        workers = self._workers
        if threading.current_thread() in workers._threads:
            self._lent = True
            if workers._native.lend_worker():
                workers._spawn()

    def __exit__(self, *exc: object) -> None:
        if self._lent:
            self._lent = False
            self._workers._native.return_worker()
