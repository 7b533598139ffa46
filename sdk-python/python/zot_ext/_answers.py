"""The answers to the engine's jobs, handed over in batches.

The engine takes answers in one way only: ``complete(batch)``, a JSON array
of the contract's ``Answer`` (``{"job", "command" | "tool" | "text" |
"intercept" | "error"}``; none of them: an event or panel job is done),
whose replies it writes in one ``write(2)``. Answers produced on the event
loop's thread are collected and handed over together once per turn of the
loop (and before any spontaneous frame, so that frames leave in the order
they were produced); a worker thread hands its answer over at once, with
the GIL released while the engine writes, together with the answers other
worker threads finished meanwhile (they leave theirs to it instead of each
making a native call).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from json.encoder import encode_basestring

from . import _native
from ._errors import failure_message

# The types only for type checkers: a plain `def` tool's first call is
# answered before `typing` would load (see `_runner`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from asyncio import AbstractEventLoop
    from typing import Callable, Deque, List, Optional, Tuple

    from ._contract import Answer, Answered, CommandOutcome, InterceptOutcome, ToolOutcome

    # An answer and what it is for, to name it when the engine refuses it
    # (`None` for a failure, whose refusal says nothing new).
    _Pending = Tuple[Answer, Optional[str]]

__all__ = [
    "Answers",
    "command_answer",
    "done_answer",
    "failure_answer",
    "intercept_answer",
    "text_answer",
    "tool_answer",
]


def command_answer(job: int, outcome: CommandOutcome) -> Answer:
    """A command handler's result."""
    return {"job": job, "command": outcome}


def tool_answer(job: int, outcome: ToolOutcome) -> Answer:
    """A tool handler's result."""
    return {"job": job, "tool": outcome}


def text_answer(job: int, text: str) -> Answer:
    """A tool's result of one text block."""
    return {"job": job, "text": text}


def intercept_answer(job: int, outcome: InterceptOutcome) -> Answer:
    """An interceptor's verdict."""
    return {"job": job, "intercept": outcome}


def failure_answer(job: int, message: str) -> Answer:
    """A failed handler's answer."""
    return {"job": job, "error": message}


def done_answer(job: int) -> Answer:
    """An event or panel job whose handler returned."""
    return {"job": job}


# `logging.WARNING` and `logging.ERROR` (logging loads on first use).
_WARNING = 30
_ERROR = 40

# Compact, non-ASCII kept: the bytes serde_json writes for the same value.
# One encoder for every batch (`json.dumps` with options builds a new one
# per call).
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

# Done event and panel jobs handed over together at most: the engine's
# read-ahead bound keeps moving during a burst.
_DONE_BATCH = 256


def _json(value: object) -> str:
    return _ENCODER.encode(value)


def _encode(answer: Answer) -> str:
    """One answer as JSON. The two shapes nearly every call and event
    answers with (a text result, a job done) are written directly: encoding
    a dict costs several times as much as quoting one string."""
    if len(answer) == 1:
        return f'{{"job":{answer["job"]}}}'
    text = answer.get("text")
    if text is not None and len(answer) == 2:
        return f'{{"job":{answer["job"]},"text":{encode_basestring(text)}}}'
    return _ENCODER.encode(answer)


class Answers:
    """Collects the answers of one turn of the loop (see the module docs)."""

    def __init__(self, native: _native.Engine, log: Callable[[str, int], None]) -> None:
        self._native = native
        # The session's loop, once it runs (see `attach`); its thread is
        # this one.
        self._loop: Optional[AbstractEventLoop] = None
        self._loop_thread = threading.get_ident()
        self._log = log
        self._pending: List[_Pending] = []
        # Event and panel jobs done on the loop's thread: ids, no answer
        # dict per job.
        self._done: List[int] = []
        self._scheduled = False
        # Answers of worker threads, and the lock of the thread handing them
        # over: a thread that finds it taken leaves its answer to the holder.
        self._from_threads: Deque[_Pending] = deque()
        self._handing_over = threading.Lock()

    def _combine(self) -> None:
        """Hands over the answers worker threads queued: the one thread that
        takes the lock hands over every answer queued meanwhile (while it
        waits in the engine with the GIL released), one native call for all.
        It looks again after releasing the lock, so no answer is left
        behind."""
        queued = self._from_threads
        while queued:
            if not self._handing_over.acquire(blocking=False):
                return  # the holder looks again after releasing it
            try:
                batch: List[_Pending] = []
                try:
                    while True:
                        batch.append(queued.popleft())
                except IndexError:
                    pass
                if batch:
                    self._complete(batch)
            finally:
                self._handing_over.release()

    def attach(self, loop: AbstractEventLoop) -> None:
        """The session's loop runs: answers of its thread leave at the end of
        its turn. (Before, only worker threads answer, at once.)"""
        self._loop = loop

    def add(self, answer: Answer, label: Optional[str]) -> None:
        """Hands one answer over: with this turn's (loop thread) or at once
        (any other thread)."""
        if threading.get_ident() != self._loop_thread:
            self._from_threads.append((answer, label))
            self._combine()
            return
        self._pending.append((answer, label))
        if not self._scheduled:
            self._schedule()

    def done_one(self, job: int) -> None:
        """An event or panel job whose handler returned, on the loop's
        thread: handed over with this turn's answers, or at once after
        `_DONE_BATCH` of them (the engine's read-ahead waits for them)."""
        self._done.append(job)
        if len(self._done) >= _DONE_BATCH:
            self.flush()
        elif not self._scheduled:
            self._schedule()

    def _schedule(self) -> None:
        self._scheduled = True
        loop = self._loop
        if loop is not None:
            try:
                loop.call_soon(self.flush)
                return
            except RuntimeError:  # the loop is closed
                pass
        self.flush()

    def fail(self, job: int, message: str) -> None:
        self.add(failure_answer(job, message), None)

    def done(self, jobs: List[int]) -> None:
        """Event and panel jobs whose handlers returned, handed over now: a
        worker thread's run of events, or the ids the loop's thread
        collected (`flush`). Written directly: no answer dict per job."""
        batch = "[" + ",".join([f'{{"job":{job}}}' for job in jobs]) + "]"
        try:
            result = self._native.complete(batch)
        except RuntimeError:  # the runtime is gone (interpreter exiting)
            return
        if '"error"' in result:
            self._refused([(done_answer(job), "event handlers") for job in jobs], result)

    def flush(self) -> None:
        """Hands over what the loop's thread collected (loop thread only)."""
        self._scheduled = False
        if self._pending:
            pending, self._pending = self._pending, []
            self._complete(pending)
        if self._done:
            done, self._done = self._done, []
            self.done(done)

    def _complete(self, answers: List[_Pending]) -> None:
        try:
            result = self._native.complete(self._batch(answers))
        except RuntimeError:  # the runtime is gone (interpreter exiting)
            return
        except (ValueError, UnicodeError) as e:
            # An answer that cannot be handed over (a lone surrogate in its
            # text): the others still are, and that job is failed, saying why.
            if len(answers) > 1:
                for one in answers:
                    self._complete([one])
                return
            answer, label = answers[0]
            message = f"the answer could not be handed to the engine: {e}"
            self._log(f"{label or 'answer'}: {message}", _WARNING)
            job = answer["job"]
            self._complete([(failure_answer(job, message.encode("utf-8", "replace").decode()), None)])
            return
        # Refusals are rare: decoded only when there is one.
        if '"error"' in result:
            self._refused(answers, result)

    def _refused(self, answers: List[_Pending], result: str) -> None:
        """Logs the answers the engine refused (``result``: what became of
        each, in order)."""
        answered: List[Answered] = json.loads(result)
        for (_, label), outcome in zip(answers, answered):
            error = outcome.get("error")
            if error is not None and label is not None:
                self._log(f"{label}: {error}", _WARNING)

    def _batch(self, answers: List[_Pending]) -> str:
        """The batch as JSON. An outcome that does not
        encode (a set, an object JSON does not know) fails its own job with
        the reason, not the batch."""
        try:
            return "[" + ",".join([_encode(a) for a, _ in answers]) + "]"
        except (TypeError, ValueError):
            pass
        encodable: List[Answer] = []
        for answer, label in answers:
            try:
                _json(answer)
            except (TypeError, ValueError) as e:
                self._log(f"{label or 'answer'} failed: {e}", _ERROR)
                answer = failure_answer(answer["job"], failure_message(e))
            encodable.append(answer)
        return _json(encodable)
