"""Between the SDK's event loop and the handler threads: a function run on
a worker thread whose result settles a future on the loop, an awaitable a
worker thread waits for on the loop, and a call onto the loop from any
thread."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Awaitable, Callable

from ._workers import Workers

__all__ = ["LoopBridge"]


class LoopBridge:
    """The loop of one session, its thread and its worker threads."""

    def __init__(self, loop: asyncio.AbstractEventLoop, workers: Workers) -> None:
        self.loop = loop
        self.loop_thread = threading.get_ident()
        self.workers = workers

    def on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        """Calls ``fn(*args)`` on the loop: at once on its thread, else at
        its next turn (nothing, once the loop is closed)."""
        if threading.get_ident() == self.loop_thread:
            fn(*args)
            return
        try:
            self.loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop is closed
            pass

    def in_thread(self, fn: Callable[[], Any], what: str) -> asyncio.Future[Any]:
        """Runs ``fn`` on a worker thread; the future resolves on the loop."""
        future: asyncio.Future[Any] = self.loop.create_future()

        def settle(ok: bool, value: Any) -> None:
            if future.done():
                return
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

        def target() -> None:
            try:
                value = fn()
            except BaseException as e:
                self.on_loop(settle, False, e)
            else:
                self.on_loop(settle, True, value)

        self.workers.submit(f"zot-ext {what}", target)
        return future

    def await_from_thread(self, awaitable: Awaitable[Any]) -> Any:
        """Waits, on a worker thread, for an awaitable a plain ``def``
        handler returned, run on the loop."""
        if threading.get_ident() == self.loop_thread:
            raise TypeError("a thread=False handler returned an awaitable; declare it `async def`")

        async def wait() -> Any:
            return await awaitable

        # Waiting, the thread leaves its place in the bounded pool (as
        # `call_tool_sync` does): what it awaits may need a worker.
        with self.workers.lend():
            return asyncio.run_coroutine_threadsafe(wait(), self.loop).result()
