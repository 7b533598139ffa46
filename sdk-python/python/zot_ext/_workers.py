"""The threads that run plain ``def`` handlers: a bounded pool whose idle
threads exit."""

from __future__ import annotations

import itertools
import os
import threading
import time
from contextlib import contextmanager
from typing import Callable, Hashable, Iterator, Optional, OrderedDict, Set, Tuple

__all__ = ["Workers", "default_max_threads", "DEFAULT_IDLE_TIMEOUT"]

#: How long an idle worker thread waits for the next handler before it
#: exits, in seconds.
DEFAULT_IDLE_TIMEOUT = 10.0

Task = Callable[[], None]
#: A task and the name its thread carries while running it.
Named = Tuple[str, Task]


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
    """

    def __init__(self, max_threads: int, idle_timeout: float) -> None:
        lock = threading.Lock()
        # Two conditions on one lock: a finished handler must not wake every
        # idle worker (with 64 calls in flight that was a herd of GIL
        # hand-offs per call), only `wait_idle` once nothing runs.
        self._cv = threading.Condition(lock)
        self._idle_cv = threading.Condition(lock)
        self._max = max_threads
        self._idle_timeout = idle_timeout
        self._urgent: OrderedDict[Hashable, Named] = OrderedDict()
        self._queue: OrderedDict[Hashable, Named] = OrderedDict()
        # Workers waiting for a task, and workers that count against the
        # bound (all but those lent out).
        self._idle = 0
        self._counted = 0
        # Tasks submitted and not finished (queued or running).
        self._pending = 0
        self._closed = False
        self._threads: Set[threading.Thread] = set()
        self._names = itertools.count(1)

    def submit(self, task: Task, name: str, key: Optional[Hashable] = None, urgent: bool = False) -> None:
        """Runs ``task`` on a worker, now or once one is free; the thread is
        called ``name`` meanwhile (for thread dumps). ``key`` names the task
        for :meth:`withdraw`."""
        with self._cv:
            queue = self._urgent if urgent else self._queue
            queue[object() if key is None else key] = (name, task)
            self._pending += 1
            th = self._wake_or_grow()
        if th is not None:
            th.start()

    def withdraw(self, key: Hashable) -> bool:
        """Takes a task that has not started out of the queue; ``False``
        when it already started (or finished, or never was)."""
        with self._cv:
            if self._queue.pop(key, None) is None and self._urgent.pop(key, None) is None:
                return False
            self._done()
            return True

    @contextmanager
    def lend(self) -> Iterator[None]:
        """Around a blocking wait in a worker: the worker does not count
        against the bound meanwhile (another may start for queued tasks).
        Outside a worker thread it does nothing."""
        with self._cv:
            lent = threading.current_thread() in self._threads
            th = None
            if lent:
                self._counted -= 1
                th = self._wake_or_grow()
        if th is not None:
            th.start()
        try:
            yield
        finally:
            if lent:
                # Back over the bound perhaps: a worker exits after its task.
                with self._cv:
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
        with self._cv:
            self._closed = True
            self._cv.notify_all()
            threads = list(self._threads) if self._pending == 0 else []
        deadline = time.monotonic() + timeout
        for th in threads:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if th is not threading.current_thread():
                th.join(left)

    # -- with the lock held -------------------------------------------------

    def _wake_or_grow(self) -> Optional[threading.Thread]:
        """Wakes an idle worker for a queued task, or returns a new worker
        to start (outside the lock) while under the bound."""
        waiting = len(self._queue) + len(self._urgent)
        if waiting == 0:
            return None
        if self._idle >= waiting:
            self._cv.notify()
            return None
        if self._counted >= self._max:
            return None  # queued until a worker is free
        th = threading.Thread(target=self._work, name=f"zot-ext-worker-{next(self._names)}", daemon=True)
        self._threads.add(th)
        self._counted += 1
        return th

    def _next(self) -> Optional[Named]:
        """The next task, waiting at most the idle timeout for one; ``None``
        when this worker is to exit."""
        deadline: Optional[float] = None
        while True:
            if self._counted > self._max:
                return None  # a lent worker came back: over the bound
            if self._urgent:
                return self._urgent.popitem(last=False)[1]
            if self._queue:
                return self._queue.popitem(last=False)[1]
            if self._closed:
                return None
            now = time.monotonic()
            if deadline is None:
                deadline = now + self._idle_timeout
            elif now >= deadline:
                return None
            self._idle += 1
            try:
                self._cv.wait(deadline - now)
            finally:
                self._idle -= 1

    def _done(self) -> None:
        self._pending -= 1
        if self._pending == 0:
            self._idle_cv.notify_all()

    def _work(self) -> None:
        me = threading.current_thread()
        while True:
            with self._cv:
                named = self._next()
                if named is None:
                    self._threads.discard(me)
                    self._counted -= 1
                    return
            me.name, task = named
            try:
                task()
            finally:
                with self._cv:
                    self._done()
