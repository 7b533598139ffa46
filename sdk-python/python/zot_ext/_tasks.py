"""``async def`` command, tool and interceptor handlers: each runs as a task
on the session's loop, cancelled with ``task.cancel()`` when its job is."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Dict, Iterable

from ._results import is_awaitable

if TYPE_CHECKING:
    from ._context import Ctx
    from ._routes import Route
    from ._runner import JobRunner

__all__ = ["HandlerTasks"]


class HandlerTasks:
    """The running tasks of one session's ``async def`` handlers, by job."""

    def __init__(self, runner: JobRunner, loop: asyncio.AbstractEventLoop) -> None:
        self._runner = runner
        self._loop = loop
        self._tasks: Dict[int, asyncio.Task[None]] = {}

    def start(self, job_id: int, route: Route, raw: Any, ctx: Ctx) -> None:
        self._tasks[job_id] = self._loop.create_task(self._run(job_id, route, raw, ctx))

    def cancel(self, job_id: int) -> None:
        task = self._tasks.get(job_id)
        if task is not None:
            # Scheduled, not immediate: a task cancelled in the batch that
            # started it still runs up to its first `await` and then gets
            # CancelledError, so its handler always sees the cancellation.
            self._loop.call_soon(task.cancel)

    async def wind_down(self, others: Iterable[asyncio.Task[None]], timeout: float) -> None:
        """Cancels every task (and ``others``) and gives them ``timeout``
        seconds to finish."""
        pending = [*others, *self._tasks.values()]
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=timeout)

    async def _run(self, job_id: int, route: Route, raw: Any, ctx: Ctx) -> None:
        runner = self._runner
        try:
            result = route.handler.call_with(route.convert(raw), ctx)
            if is_awaitable(result):
                result = await result
            answer = route.answer(job_id, result)
        except asyncio.CancelledError:
            runner.answers.fail(job_id, "cancelled")
        except BaseException as e:
            runner.failed(job_id, route, e, ctx)
        else:
            runner.answers.add(answer, route.what)
        finally:
            self._tasks.pop(job_id, None)
            runner.cancels.pop(job_id, None)
