"""What handlers get next to their arguments: :class:`Ctx`, with the host's
:class:`HostInfo`, cancellation and ``call_tool``; and the errors of the
SDK."""

from __future__ import annotations

import _thread

from ._errors import CallToolError, NotRunningError, SessionError, ZotError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    import concurrent.futures
    import threading
    from typing import Any, ClassVar, List, Mapping, Optional, Tuple, Union

    from ._contract import CallResultJob, CallStart
    from ._extension import Extension
    from ._protocol import ContentBlock, HelloAck, HostToolResult, NotifyLevel
    from ._runner import JobRunner

__all__ = [
    "ZotError",
    "CallToolError",
    "SessionError",
    "HostInfo",
    "CallResult",
    "Ctx",
]


class _Record:
    """A frozen value with a dataclass's ``repr``, ``==`` and ``hash`` over
    its ``_compared`` fields (``raw`` is not one). Not a dataclass: importing
    :mod:`dataclasses` costs more at start-up than the rest of the SDK, and
    :class:`HostInfo` is made before ``ready``."""

    __slots__ = ()
    _compared: ClassVar[Tuple[str, ...]] = ()

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def _values(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._compared)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self) or not isinstance(other, _Record):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._compared)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        # For pickle and `copy`: made again through `__init__`, whose
        # parameters are the slots, in order (restoring the slots one by one
        # would go through the frozen `__setattr__`).
        slots: Tuple[str, ...] = type(self).__slots__
        return type(self), tuple(getattr(self, name) for name in slots)


class HostInfo(_Record):
    """What the host said in ``hello_ack`` (SDK-6)."""

    _compared = ("protocol_version", "capabilities", "zot_version", "provider", "model", "cwd", "extension_dir",
                 "data_dir")  # fmt: skip
    __slots__ = (*_compared, "raw")

    protocol_version: int
    capabilities: Tuple[str, ...]
    zot_version: str
    provider: str
    model: str
    cwd: str
    """The user's project directory (not the extension's own cwd)."""
    extension_dir: str
    data_dir: str
    """Where the extension keeps its state."""
    raw: HelloAck
    """The ``hello_ack`` frame as the host wrote it."""

    def __init__(
        self,
        protocol_version: int,
        capabilities: Tuple[str, ...],
        zot_version: str,
        provider: str,
        model: str,
        cwd: str,
        extension_dir: str,
        data_dir: str,
        raw: HelloAck,
    ) -> None:
        self._set(
            protocol_version=protocol_version,
            capabilities=capabilities,
            zot_version=zot_version,
            provider=provider,
            model=model,
            cwd=cwd,
            extension_dir=extension_dir,
            data_dir=data_dir,
            raw=raw,
        )

    @classmethod
    def from_ack(cls, ack: HelloAck) -> HostInfo:
        return cls(
            protocol_version=ack.get("protocol_version", 1),
            capabilities=tuple(ack.get("capabilities", [])),
            zot_version=ack.get("zot_version", ""),
            provider=ack.get("provider", ""),
            model=ack.get("model", ""),
            cwd=ack.get("cwd", ""),
            extension_dir=ack.get("extension_dir", ""),
            data_dir=ack.get("data_dir", ""),
            raw=ack,
        )

    @property
    def supports_call_tool(self) -> bool:
        """Whether the host accepts ``call_tool``."""
        return "call_tool" in self.capabilities

    @property
    def supports_durable_calls(self) -> bool:
        """Whether the host accepts durable call keys."""
        return "call_tool_durable" in self.capabilities


class CallResult(_Record):
    """The host's answer to a ``call_tool`` (a tool failure has
    ``is_error``)."""

    _compared = ("id", "name", "content", "is_error", "truncated")
    __slots__ = (*_compared, "raw")

    id: str
    name: str
    content: List[ContentBlock]
    is_error: bool
    truncated: bool
    raw: HostToolResult
    """The host's ``tool_result`` frame."""

    def __init__(
        self,
        id: str,
        name: str,
        content: List[ContentBlock],
        is_error: bool,
        truncated: bool,
        raw: HostToolResult,
    ) -> None:
        self._set(id=id, name=name, content=content, is_error=is_error, truncated=truncated, raw=raw)

    @property
    def text(self) -> str:
        """The first text block, or ``""``."""
        for block in self.content:
            if block["type"] == "text":
                return block.get("text", "")
        return ""

    @classmethod
    def from_job(cls, result: HostToolResult) -> CallResult:
        """From the ``result`` of a ``call_result`` job (the host's frame,
        ``type`` included)."""
        return cls(
            id=result["id"],
            name=result.get("name", ""),
            content=list(result.get("content", [])),
            is_error=result.get("is_error", False),
            truncated=result.get("truncated", False),
            raw=result,
        )


class _Waiter:
    """Where the result of one started call goes (an asyncio future on the
    SDK's loop, or a concurrent future for a worker thread)."""

    __slots__ = ("future",)

    def __init__(
        self, future: Union[asyncio.Future[CallResult], concurrent.futures.Future[CallResult]]
    ) -> None:
        self.future = future

    def resolve(self, job: CallResultJob) -> None:
        """Called on the loop thread with a ``call_result`` job."""
        if self.future.done():
            return
        if "result" in job:
            self.future.set_result(CallResult.from_job(job["result"]))
        else:
            err = CallToolError(job.get("error_kind", "closed"), job.get("error", ""))
            self.future.set_exception(err)


class Cancellation:
    """Whether an invocation (or the session, for events and panel input)
    was cancelled. The :class:`threading.Event` handlers see as
    ``ctx.cancelled`` is made when one first asks for it: making one costs
    about 2 µs, much of a small call, and most handlers never look."""

    __slots__ = ("_event", "_set")

    def __init__(self) -> None:
        self._set = False
        self._event: Optional[threading.Event] = None

    def set(self) -> None:
        """Cancels (from any thread; idempotent)."""
        # Flag first, then look for an event: `event()` publishes first, then
        # looks at the flag, so one of the two sets it.
        self._set = True
        event = self._event
        if event is not None:
            event.set()

    def is_set(self) -> bool:
        return self._set

    def event(self) -> threading.Event:
        """The event, set once cancelled."""
        event = self._event
        if event is None:
            with _EVENTS_LOCK:
                event = self._event
                if event is None:
                    # `threading` loads on first use: an extension reaches
                    # `ready` without it.
                    import threading

                    event = threading.Event()
                    self._event = event
            if self._set:
                event.set()
        return event


# Serialises only the first look at a `Cancellation`'s event (two threads
# must not each make one).
_EVENTS_LOCK = _thread.allocate_lock()


class Ctx:
    """The context of one handler invocation.

    - ``id``: the host's id of this invocation (``tool_call.id``,
      ``command_invoked.id`` or ``event_intercept.id``; empty for events and
      panel input);
    - ``cancelled``: a :class:`threading.Event` set when the invocation is
      cancelled (``tool_cancel``, the interception deadline, shutdown or EOF;
      for events and panel input: the end of the session). Plain ``def``
      handlers poll it or ``wait()`` on it; ``async def`` handlers are
      cancelled with :class:`asyncio.CancelledError` as well;
    - ``host``: the host's ``hello_ack`` (:class:`HostInfo`);
    - :meth:`call_tool` / :meth:`call_tool_sync`, :meth:`notify`, :meth:`log`.
    """

    __slots__ = ("_cancellation", "_session", "ext", "id", "job")

    def __init__(
        self,
        session: JobRunner,
        job: Optional[int],
        invocation: str,
        cancellation: Cancellation,
    ) -> None:
        self._session = session
        self.id = invocation
        self.job = job
        self._cancellation = cancellation
        self.ext: Extension = session.ext

    def __repr__(self) -> str:
        return f"Ctx(id={self.id!r}, cancelled={self._cancellation.is_set()})"

    @property
    def cancelled(self) -> threading.Event:
        """Set when this invocation is cancelled (see the class docs)."""
        return self._cancellation.event()

    @property
    def host(self) -> HostInfo:
        """The host's ``hello_ack``."""
        host = self._session.host
        if host is None:  # pragma: no cover - handlers run after the handshake
            raise NotRunningError("no hello_ack yet")
        return host

    def is_cancelled(self) -> bool:
        """Whether this invocation was cancelled."""
        return self._cancellation.is_set()

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        """Shows a note (``notify``)."""
        self.ext.notify(message, level)

    def log(self, message: str) -> None:
        """Logs ``message`` through the extension's logger (stderr)."""
        self.ext.log(message)

    def _start(
        self,
        name: str,
        args: Optional[Mapping[str, Any]],
        key: Optional[str],
        timeout: Optional[float],
        waiter: _Waiter,
    ) -> int:
        request: CallStart = {"name": name, "args": dict(args) if args is not None else {}}
        if self.job is not None:
            request["parent"] = self.job
        if key is not None:
            request["key"] = key
        if timeout is not None:
            request["timeout_ms"] = timeout * 1000
        return self._session.calls.start(request, waiter)

    async def call_tool(
        self,
        name: str,
        args: Optional[Mapping[str, Any]] = None,
        *,
        key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> CallResult:
        """Calls a host tool and waits for its result (``async`` handlers).

        From a tool handler the call's ``parent_id`` is this invocation
        (SDK-26), and cancelling this invocation cancels the call. ``key``
        is a durable key (sent only to hosts that support it); ``timeout``
        the deadline in seconds (60 by default), after which
        ``call_tool_cancel`` is sent and :class:`CallToolError` (``timeout``)
        raised. Cancelling the awaiting task cancels the call. Tool failures
        come back as a result with ``is_error`` (SDK-32).
        """
        import asyncio  # loaded by then: the session runs on it

        session = self._session
        loop = asyncio.get_running_loop()
        if loop is not session.loop:
            raise ZotError("call_tool must be awaited on the extension's event loop")
        future: asyncio.Future[CallResult] = loop.create_future()
        call = self._start(name, args, key, timeout, _Waiter(future))
        try:
            return await future
        except asyncio.CancelledError:
            session.calls.cancel(call)
            raise

    def call_tool_sync(
        self,
        name: str,
        args: Optional[Mapping[str, Any]] = None,
        *,
        key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> CallResult:
        """:meth:`call_tool` for plain ``def`` handlers running in a worker
        thread: blocks until the result comes (or the call fails). Not
        usable on the event loop's thread (``thread=False`` handlers)."""
        session = self._session
        if _thread.get_ident() == session.loop_thread:
            raise ZotError(
                "call_tool_sync would block the event loop; use `await ctx.call_tool(...)` "
                "in an async handler, or let the handler run in a worker thread"
            )
        import concurrent.futures  # loaded by then: asyncio imports it

        future: concurrent.futures.Future[CallResult] = concurrent.futures.Future()
        self._start(name, args, key, timeout, _Waiter(future))
        # The engine resolves every started call exactly once (result,
        # deadline, cancellation of this job, or the end of the session).
        # Waiting, this thread leaves its place in the bounded pool: the
        # tool called may be one of this extension's own.
        with session.workers.lend():
            return future.result()
