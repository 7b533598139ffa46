"""The threads that run plain ``def`` handlers: a bounded pool whose idle
threads exit."""

from __future__ import annotations

import itertools
import os
import queue
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Deque, Dict, Hashable, Iterator, Optional, Set, Tuple

if TYPE_CHECKING:
    import logging

__all__ = ["Workers", "default_max_threads", "DEFAULT_IDLE_TIMEOUT"]

#: How long an idle worker thread waits for the next handler before it
#: exits, in seconds.
DEFAULT_IDLE_TIMEOUT = 10.0

#: A task: the name its thread carries while running it, a function and its
#: arguments (no closure per task: a call's objects stay few).
Task = Tuple[str, Callable[..., Any], Tuple[Any, ...]]


def default_max_threads() -> int:
    """The default bound on handler threads: ``min(32, CPUs + 4)``, the
    default of :class:`concurrent.futures.ThreadPoolExecutor` (blocking
    handlers mostly wait, so a few more threads than CPUs)."""
    return min(32, (os.cpu_count() or 1) + 4)


class Workers:
    """Daemon threads for plain ``def`` handlers, at most ``max_threads``
    running at once.

    - Starting a thread costs about 50 µs, most of a small sync call (see
      bench/README.md), so a finished worker takes the next handler; after
      ``idle_timeout`` seconds without one it exits.
    - Beyond the bound, handlers queue in arrival order; ``urgent`` ones
      (interceptors: the host stops waiting after 5 s and then allows the
      event) go first.
    - A queued handler can be withdrawn by its key before it starts
      (:meth:`withdraw`), so a cancelled call is answered at once instead
      of after a free thread.
    - A worker blocked in ``ctx.call_tool_sync`` does not count while it
      waits (:meth:`lend`): the tool it calls may be one of this
      extension's own, which must not queue behind its caller.
    - Workers are daemons, so a handler that ignores cancellation cannot
      keep the process alive, and :meth:`close` lets idle ones exit at the
      end of a session.

    Not :class:`concurrent.futures.ThreadPoolExecutor`: its threads never
    exit while idle, and it can neither withdraw a queued call by key nor
    let a waiting worker give its place up.

    The hand-off is a C lock around a few counters and a
    :class:`queue.SimpleQueue` an idle worker blocks on: every submitted task
    either wakes one idle worker (a token on that queue), starts a thread,
    or waits in the backlog for a worker that finishes. A
    :class:`threading.Condition` (Python code and a new lock per wait) cost
    most of a small call.
    """

    def __init__(self, max_threads: int, idle_timeout: float, logger: logging.Logger) -> None:
        self._lock = threading.Lock()
        # Only `wait_idle` waits on it.
        self._idle_cv = threading.Condition(self._lock)
        self._max = max_threads
        self._idle_timeout = idle_timeout
        self._logger = logger
        # Tasks not started, by key; their keys in arrival order.
        self._tasks: Dict[Hashable, Task] = {}
        self._urgent: Deque[Hashable] = deque()
        self._queued: Deque[Hashable] = deque()
        # A token per task handed to a waiting worker.
        self._wake: queue.SimpleQueue[None] = queue.SimpleQueue()
        # Workers blocked for a token and not yet promised one; tasks no
        # worker was woken or started for. Never both above zero.
        self._waiting = 0
        self._backlog = 0
        # Workers that count against the bound (all but those lent out).
        self._counted = 0
        # Tasks submitted and not finished (queued or running).
        self._pending = 0
        self._closed = False
        self._threads: Set[threading.Thread] = set()
        self._names = itertools.count(1)

    def submit(
        self,
        name: str,
        fn: Callable[..., Any],
        args: Tuple[Any, ...] = (),
        key: Optional[Hashable] = None,
        urgent: bool = False,
    ) -> None:
        """Runs ``fn(*args)`` on a worker, now or once one is free; the
        thread is called ``name`` meanwhile (for thread dumps). ``key``
        names the task for :meth:`withdraw`."""
        k: Hashable = object() if key is None else key
        th = None
        with self._lock:
            self._tasks[k] = (name, fn, args)
            (self._urgent if urgent else self._queued).append(k)
            self._pending += 1
            if self._waiting:
                self._waiting -= 1
                self._wake.put(None)
            elif self._counted < self._max:
                th = self._grow()
            else:
                self._backlog += 1  # until a worker is free
        if th is not None:
            th.start()

    def withdraw(self, key: Hashable) -> bool:
        """Takes a task that has not started out of the queue; ``False``
        when it already started (or finished, or never was)."""
        with self._lock:
            if self._tasks.pop(key, None) is None:
                return False
            self._done()
            return True

    @contextmanager
    def lend(self) -> Iterator[None]:
        """Around a blocking wait in a worker: the worker does not count
        against the bound meanwhile (another may start for queued tasks).
        Outside a worker thread it does nothing."""
        lent = threading.current_thread() in self._threads
        th = None
        if lent:
            with self._lock:
                self._counted -= 1
                if self._backlog and self._counted < self._max:
                    self._backlog -= 1
                    th = self._grow()
        if th is not None:
            th.start()
        try:
            yield
        finally:
            if lent:
                # Back over the bound perhaps: a worker exits after its task.
                with self._lock:
                    self._counted += 1

    def wait_idle(self, timeout: float) -> None:
        """Waits (at most ``timeout`` s) until no handler is running or
        queued."""
        with self._idle_cv:
            self._idle_cv.wait_for(lambda: self._pending == 0, timeout)

    def close(self, timeout: float) -> None:
        """Lets idle workers exit and, when no handler is still running,
        joins them within one shared ``timeout`` (a handler that ignores
        cancellation is left to its daemon thread)."""
        with self._lock:
            self._closed = True
            for _ in range(self._waiting):
                self._wake.put(None)
            self._waiting = 0
            threads = list(self._threads) if self._pending == 0 else []
        deadline = time.monotonic() + timeout
        for th in threads:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if th is not threading.current_thread():
                th.join(left)

    # -- with the lock held -------------------------------------------------

    def _grow(self) -> threading.Thread:
        """A new worker (to start outside the lock): it takes a queued task
        as it starts."""
        th = threading.Thread(target=self._work, name=f"zot-ext-worker-{next(self._names)}", daemon=True)
        self._threads.add(th)
        self._counted += 1
        return th

    def _done(self) -> None:
        self._pending -= 1
        if self._pending == 0:
            self._idle_cv.notify_all()

    def _leave(self, me: threading.Thread) -> None:
        self._counted -= 1
        self._threads.discard(me)

    # -- on a worker ----------------------------------------------------------

    def _take(self) -> Optional[Task]:
        """The next queued task, urgent ones first (the keys of withdrawn
        tasks are skipped); ``None`` when none is left."""
        while True:
            try:
                k = self._urgent.popleft()
            except IndexError:
                try:
                    k = self._queued.popleft()
                except IndexError:
                    return None
            task = self._tasks.pop(k, None)
            if task is not None:
                return task

    def _run(self, me: threading.Thread, task: Task) -> None:
        name, fn, args = task
        me.name = name
        try:
            fn(*args)
        except BaseException:  # pragma: no cover - handlers answer first
            self._logger.exception("%s: handler thread failed", name)
        finally:
            with self._lock:
                self._done()

    def _wait(self, me: threading.Thread) -> bool:
        """After a task: whether this worker goes on (a task is queued for
        it, or it was woken for one) or exits (over the bound, closed, or
        idle for the timeout)."""
        with self._lock:
            if self._counted > self._max:
                self._leave(me)  # a lent worker came back: over the bound
                return False
            if self._backlog:
                self._backlog -= 1
                return True
            if self._closed:
                self._leave(me)
                return False
            self._waiting += 1
        try:
            self._wake.get(timeout=self._idle_timeout)
            return True
        except queue.Empty:
            pass
        with self._lock:
            if self._waiting:
                # No promise outstanding for a waiter: this one may go.
                self._waiting -= 1
                self._leave(me)
                return False
        # Promised a token as the wait timed out: it is on its way.
        self._wake.get()
        return True

    def _work(self) -> None:
        me = threading.current_thread()
        while True:
            task = self._take()
            if task is not None:
                self._run(me, task)
            if not self._wait(me):
                return
