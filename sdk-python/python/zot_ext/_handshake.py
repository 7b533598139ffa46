"""The handshake before the event loop. Importing asyncio is most of the
SDK's start-up; an extension whose on-hello hooks are all plain ``def``\\ s
answers ``hello_ack`` and reaches ``ready`` before it loads, as soon as a
script written without the SDK would. With ``async def`` hooks the session
shakes hands on its loop instead."""

from __future__ import annotations

import json

from . import _native
from ._context import HostInfo
from ._introspect import is_awaitable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Awaitable, List, Optional

    from ._contract import HelloJob, Job
    from ._extension import Extension
    from ._registry import _Handler

__all__ = ["hello_before_loop", "hello_on_loop", "accept_hello", "call_hook"]

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
    batch: List[Job] = json.loads(native.take_jobs())
    if not batch or batch[0]["kind"] != "hello":
        return batch  # the session ended before the handshake
    host = accept_hello(ext, batch[0])
    for hook in list(ext._hello_hooks):
        r = call_hook(ext, hook, host)
        if r is not None:
            ext.log("an on_hello hook returned an awaitable: declare it `async def` to have it awaited")
            _close(r)
    ext._announce(native)
    return batch[1:]


async def hello_on_loop(ext: Extension, native: _native.Engine, job: HelloJob) -> None:
    """The handshake on the session's loop (some hook is ``async def``): the
    hooks in order, each awaited, then the announcement."""
    host = accept_hello(ext, job)
    for hook in list(ext._hello_hooks):
        r = call_hook(ext, hook, host)
        if r is None:
            continue
        try:
            await r
        except Exception:
            ext.logger.exception("on_hello hook failed")
    ext._announce(native)


def accept_hello(ext: Extension, job: HelloJob) -> HostInfo:
    """Keeps the host's ``hello_ack`` on the extension (``ext.host``)."""
    host = HostInfo.from_ack(job["hello_ack"])
    ext._host = host
    return host


def call_hook(ext: Extension, hook: _Handler, host: HostInfo) -> Optional[Awaitable[Any]]:
    """Calls one on-hello hook; what is left to await, if anything. A hook
    that raises is logged, and the handshake goes on."""
    try:
        r = hook.call(host)
    except Exception:
        ext.logger.exception("on_hello hook failed")
        return None
    return r if is_awaitable(r) else None


def _close(awaitable: object) -> None:
    """Closes a coroutine that will never be awaited (no "never awaited"
    warning on top of the log line)."""
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
