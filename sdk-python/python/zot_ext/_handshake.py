"""The handshake before the event loop. Importing asyncio is most of the
SDK's start-up; an extension whose on-hello hooks are all plain ``def``\\ s
answers ``hello_ack`` and reaches ``ready`` before it loads, as soon as a
script written without the SDK would. With ``async def`` hooks the session
shakes hands on its loop instead."""

from __future__ import annotations

import inspect
import json
from typing import TYPE_CHECKING, List, Optional, cast

from . import _native
from ._context import HostInfo

if TYPE_CHECKING:
    from ._contract import Job
    from ._extension import Extension

__all__ = ["hello_before_loop"]

# How long one wait for the engine's first jobs lasts (Ctrl-C is seen
# between waits).
_WAIT = 0.25


def hello_before_loop(ext: Extension, native: _native.Engine) -> Optional[List[Job]]:
    """Takes the engine's first jobs; when they are the host's ``hello_ack``
    and every hook is a plain ``def``, runs the hooks and announces the
    registrations here. Returns the jobs the session still has to handle
    (``None``: the handshake is the session's)."""
    if any(hook.is_async for hook in ext._hello_hooks):
        return None
    while not native.wait_jobs(_WAIT):
        pass
    batch = cast(List["Job"], json.loads(native.take_jobs()))
    if not batch or batch[0]["kind"] != "hello":
        return batch  # the session ended before the handshake
    host = HostInfo.from_ack(batch[0]["hello_ack"])
    ext._host = host
    for hook in list(ext._hello_hooks):
        try:
            r = hook.call(host)
        except Exception:
            ext.logger.exception("on_hello hook failed")
            continue
        if inspect.isawaitable(r):
            ext.log("an on_hello hook returned an awaitable: declare it `async def` to have it awaited")
            _close(r)
    ext._announce(native)
    return batch[1:]


def _close(awaitable: object) -> None:
    """Closes a coroutine that will never be awaited (no "never awaited"
    warning on top of the log line)."""
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
