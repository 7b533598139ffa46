"""The answers to the engine's jobs, handed over in batches.

The engine takes answers in one way only: ``complete(batch)``, a JSON array
of the contract's ``Answer`` (``{"job", "command" | "tool" | "text" |
"intercept" | "error"}``; none of them: an event or panel job is done),
whose replies it writes in one ``write(2)``. Answers produced on the event
loop's thread are collected and handed over together once per turn of the
loop (and before any spontaneous frame, so that frames leave in the order
they were produced); a worker thread hands its answer over at once, with
the GIL released while the engine writes.
"""

from __future__ import annotations

import json
import logging
import threading
from asyncio import AbstractEventLoop
from typing import Any, Callable, List, Optional, Tuple

from . import _native
from ._contract import Answered
from ._results import to_json

__all__ = ["Answers", "answer_part", "failure_part", "text_part"]


def answer_part(job: int, key: str, outcome: Any) -> str:
    """One ``Answer`` with ``outcome`` under ``key`` (``command``, ``tool``,
    ``intercept``); raises when the outcome does not serialize."""
    return f'{{"job":{job},"{key}":{to_json(outcome)}}}'


def text_part(job: int, text: str) -> str:
    """A tool's answer of one text block."""
    return f'{{"job":{job},"text":{to_json(text)}}}'


def failure_part(job: int, message: str) -> str:
    """A failed handler's answer."""
    return f'{{"job":{job},"error":{to_json(message)}}}'


class Answers:
    """Collects the answers of one turn of the loop (see the module docs)."""

    def __init__(
        self,
        native: _native.Engine,
        loop: AbstractEventLoop,
        log: Callable[[str, int], None],
    ) -> None:
        self._native = native
        self._loop = loop
        self._loop_thread = threading.get_ident()
        self._log = log
        # (job, its answer, what it is for to name it when the engine
        # refuses it: `None` for a failure, whose refusal says nothing new)
        self._pending: List[Tuple[int, str, Optional[str]]] = []
        self._scheduled = False

    def add(self, job: int, part: str, label: Optional[str]) -> None:
        """Hands one answer over: with this turn's (loop thread) or at once
        (any other thread)."""
        if threading.get_ident() != self._loop_thread:
            self._complete([(job, part, label)])
            return
        self._pending.append((job, part, label))
        if not self._scheduled:
            self._scheduled = True
            try:
                self._loop.call_soon(self.flush)
            except RuntimeError:  # the loop is closed
                self.flush()

    def fail(self, job: int, message: str) -> None:
        self.add(job, failure_part(job, message), None)

    def done(self, jobs: List[int], label: str) -> None:
        """Event and panel jobs whose handlers returned, handed over now
        (the engine's read-ahead waits for them)."""
        self._pending.extend((job, f'{{"job":{job}}}', label) for job in jobs)
        self.flush()

    def flush(self) -> None:
        """Hands over what the loop's thread collected (loop thread only)."""
        self._scheduled = False
        if self._pending:
            pending, self._pending = self._pending, []
            self._complete(pending)

    def _complete(self, answers: List[Tuple[int, str, Optional[str]]]) -> None:
        try:
            result = self._native.complete("[" + ",".join(a[1] for a in answers) + "]")
        except RuntimeError:  # the runtime is gone (interpreter exiting)
            return
        except (ValueError, UnicodeError) as e:
            # An answer that cannot be handed over (a lone surrogate in its
            # text): the others still are, and that job is failed, saying why.
            if len(answers) > 1:
                for one in answers:
                    self._complete([one])
                return
            job, _, label = answers[0]
            message = f"the answer could not be handed to the engine: {e}"
            self._log(f"{label or 'answer'}: {message}", logging.WARNING)
            self._complete([(job, failure_part(job, message.encode("utf-8", "replace").decode()), None)])
            return
        # Refusals are rare: decoded only when there is one.
        if '"error"' in result:
            answered: List[Answered] = json.loads(result)
            for (_, _, label), outcome in zip(answers, answered):
                error = outcome.get("error")
                if error is not None and label is not None:
                    self._log(f"{label}: {error}", logging.WARNING)
