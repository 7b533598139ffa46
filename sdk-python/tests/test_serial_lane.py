"""The serial lane's queue on its own (no engine): a job queued after the
lane's task was cancelled while it waited (the end of a session racing a
last batch) is kept without an error."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from zot_ext._serial import SerialLane


def test_a_job_queued_after_the_lanes_task_was_cancelled_is_kept() -> None:
    async def main() -> int:
        loop = asyncio.get_running_loop()
        session: Any = SimpleNamespace(
            loop=loop,
            routes=None,
            runner=SimpleNamespace(serial_ctx=None, ext=SimpleNamespace(_events={})),
            answers=None,
            bridge=None,
        )
        lane = SerialLane(session)
        task = loop.create_task(lane.run())
        # One turn of the loop: the task starts and waits for jobs.
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        lane.add({"kind": "event", "id": 1, "lane": "serial", "name": "turn_start", "event": {}})
        return len(lane._jobs)

    assert asyncio.run(main()) == 1
