"""Events and panel input: run in arrival order, one at a time (SDK-35),
each answered once its handler returned. The engine hands them over with
the other jobs; the order is kept here because only the facade knows when a
handler that suspends is done (an engine that released them one at a time
would cost a native call per event)."""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from typing import TYPE_CHECKING, Any, Deque, List, Optional, Tuple, Union

from ._context import Ctx
from ._contract import EventJob, PanelCloseJob, PanelKeyJob, PanelResizeJob
from ._errors import failure_message, log_failure
from ._registry import _Handler, _Panel

if TYPE_CHECKING:
    from ._protocol import PanelKey, PanelResize
    from ._session import _Session

__all__ = ["SerialJobs", "SerialJob"]

SerialJob = Union[EventJob, PanelKeyJob, PanelCloseJob, PanelResizeJob]


class SerialJobs:
    """The session's events and panel input, in order; panel input carries
    the registration it arrived for (see ``_Session._dispatch``)."""

    def __init__(self, session: _Session) -> None:
        self.session = session
        self._queue: Deque[Tuple[SerialJob, Optional[_Panel]]] = deque()
        self._wake = asyncio.Event()
        self._event_ctx: Optional[Ctx] = None

    def queue(self, job: SerialJob, panel: Optional[_Panel]) -> None:
        self._queue.append((job, panel))
        self._wake.set()

    async def run(self) -> None:
        # Jobs whose handlers returned are answered together, in one native
        # call per run of them (before waiting for more, and at most every
        # 256 jobs so that the engine's read-ahead bound keeps moving).
        done: List[int] = []
        try:
            while True:
                while not self._queue:
                    if done:
                        self._done(done)
                        done = []
                    await self._wake.wait()
                    self._wake.clear()
                job, panel = self._queue.popleft()
                if await self._run_one(job, panel):
                    done.append(job["id"])
                    if len(done) >= 256:
                        self._done(done)
                        done = []
        finally:
            if done:
                self._done(done)

    def _done(self, jobs: List[int]) -> None:
        self.session.answers.done(jobs, "event handlers")

    async def _run_one(self, job: SerialJob, panel: Optional[_Panel]) -> bool:
        """Runs one event or panel job (panel input goes to ``panel``, the
        registration it arrived for); ``True`` when it is to be answered as
        done (a failure is answered here)."""
        job_id = job["id"]
        what: str = job["kind"]
        try:
            if job["kind"] == "event":
                what = f"event {job['name']}"
                handler = self.session.ext._events.get(job["name"])
                if handler is not None:
                    # The engine hands events over with their `type`; one
                    # context serves every event (no job, the session's
                    # cancellation).
                    if self._event_ctx is None:
                        self._event_ctx = Ctx(self.session, None, "", self.session.ending)
                    await self._call(handler, what, job["event"], self._event_ctx)
            elif job["kind"] == "panel_close":
                panel_id = job["panel_id"]
                what = f"panel {panel_id} close"
                # Unregister only the registration the close arrived for: a
                # panel reopened meanwhile under the same id stays.
                with self.session.ext._lock:
                    if panel is not None and self.session.ext._panels.get(panel_id) is panel:
                        del self.session.ext._panels[panel_id]
                if panel is not None and panel.on_close is not None:
                    await self._call(panel.on_close, what, panel_id)
            else:
                panel_id = job["panel_id"]
                what = f"panel {panel_id} {job['kind'][6:]}"
                # Input goes to the registration it arrived for, and only
                # while that registration is still active (close_panel may
                # have ended it since).
                with self.session.ext._lock:
                    if self.session.ext._panels.get(panel_id) is not panel:
                        panel = None
                if panel is None:
                    pass
                elif job["kind"] == "panel_key":
                    if panel.on_key is not None:
                        key: PanelKey = {
                            "type": "panel_key",
                            "panel_id": panel_id,
                            "key": job["key"],
                            "text": job.get("text", ""),
                        }
                        await self._call(panel.on_key, what, key)
                elif panel.on_resize is not None:
                    resize: PanelResize = {
                        "type": "panel_resize",
                        "panel_id": panel_id,
                        "width": job["width"],
                        "height": job["height"],
                    }
                    await self._call(panel.on_resize, what, resize)
        except asyncio.CancelledError:
            self.session.answers.fail(job_id, "cancelled")
            raise
        except Exception as e:
            self.session.ext._ensure_logging()
            log_failure(self.session.ext.logger, f"{what} handler failed", e)
            self.session.answers.fail(job_id, failure_message(e))  # the engine logs it too (SDK-36)
            return False
        return True

    async def _call(self, handler: _Handler, what: str, *args: Any) -> None:
        if handler.is_async:
            await handler.call(*args)
        elif handler.thread:
            result = await self.session._in_thread(lambda: handler.call(*args), what)
            if inspect.isawaitable(result):
                await result
        else:
            result = handler.call(*args)
            if inspect.isawaitable(result):
                await result
