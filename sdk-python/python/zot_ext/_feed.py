"""How the session's loop learns that jobs wait, and takes them: through
``loop.add_reader`` on the engine's wake descriptor, or, on loops without
one (Windows' proactor), from a thread that waits for jobs with the GIL
released. Every queued job is taken at once (the one pull) and handed to the
session on the loop's thread."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Callable, List, Optional, cast

from . import _native
from ._contract import FinishedJob, Job

__all__ = ["JobFeed", "undecodable"]


def undecodable(native: _native.Engine, text: str, e: Exception) -> List[Job]:
    """What jobs from the engine that do not decode become. The engine bounds
    what it hands over, so only a broken interpreter state gets here (e.g. a
    recursion limit set far below the default); their requests would be
    lost without a word: the session ends instead (a batch of `finished`
    with an error that says why; the process exits 1)."""
    message = (
        f"a batch of {len(text)} bytes of jobs from the engine could not be decoded "
        f"({type(e).__name__}: {e}); its requests cannot be answered, ending the session"
    )
    try:
        native.close()
    except Exception:  # already closed, or the runtime is gone
        pass
    job: FinishedJob = {"kind": "finished", "error": message}
    return [job]


class JobFeed:
    """Takes the engine's batches of jobs and hands each to ``deliver`` on
    ``loop``'s thread, in the order taken."""

    def __init__(
        self, native: _native.Engine, loop: asyncio.AbstractEventLoop, deliver: Callable[[List[Job]], None]
    ) -> None:
        self.native = native
        self.loop = loop
        self._deliver = deliver
        self._poller: Optional[threading.Thread] = None
        self._stop_polling = threading.Event()
        self._fd: Optional[int] = None

    def _hand_over(self, batch: List[Job]) -> None:
        # `finished` is the last job of all (no look at every job).
        if batch[-1]["kind"] == "finished":
            self._stop_polling.set()
        self._deliver(batch)

    def pull(self) -> None:
        """Jobs are queued (the wake descriptor is readable, or the waiting
        thread said so): take every one, the one pull, and handle them now,
        on this turn of the loop."""
        try:
            text = self.native.take_jobs()
        except Exception as e:  # the runtime is gone: end the session
            self._hand_over(self._finished(f"engine unavailable: {e}"))
            return
        if text != "[]":
            self._hand_over(self._jobs(text))

    @staticmethod
    def _finished(error: str) -> List[Job]:
        """A batch that ends the session with ``error``."""
        job: FinishedJob = {"kind": "finished", "error": error}
        return [job]

    def _jobs(self, text: str) -> List[Job]:
        try:
            return cast(List[Job], json.loads(text))
        except Exception as e:
            return undecodable(self.native, text, e)

    def _poll(self) -> None:
        """Fallback for event loops without ``add_reader`` (Windows'
        proactor): a thread waits for jobs with the GIL released, and the
        loop takes them (``pull``) before the thread waits again."""
        pulled = threading.Event()

        def pull() -> None:
            try:
                self.pull()
            finally:
                pulled.set()

        while not self._stop_polling.is_set():
            try:
                ready = self.native.wait_jobs(0.25)
            except Exception as e:
                batch = self._finished(f"engine unavailable: {e}")
                try:
                    self.loop.call_soon_threadsafe(self._hand_over, batch)
                except RuntimeError:  # the loop is closed
                    pass
                return
            if not ready:
                continue
            pulled.clear()
            try:
                self.loop.call_soon_threadsafe(pull)
            except RuntimeError:  # the loop is closed
                return
            while not pulled.wait(0.25):
                if self._stop_polling.is_set():
                    return

    def attach(self) -> None:
        """Starts handing over jobs (the ones already queued at once)."""
        try:
            fd = self.native.wake_fd()
            self.loop.add_reader(fd, self.pull)
            self._fd = fd
        except (NotImplementedError, _native.EngineError):
            self._poller = threading.Thread(target=self._poll, name="zot-ext-poll", daemon=True)
            self._poller.start()
            return
        self.pull()

    def detach(self) -> None:
        """Stops handing over jobs."""
        if self._fd is not None:
            self.loop.remove_reader(self._fd)
            self._fd = None
        if self._poller is not None:
            self._stop_polling.set()
            self._poller.join(1.0)
