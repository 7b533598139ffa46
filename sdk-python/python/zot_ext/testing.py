"""Drive an extension in-process, as its host, from pytest.

This is the engine's own harness (``zot_ext::testing::TestHost`` in Rust)
over an in-memory transport: it does the handshake (and returns what the
extension registered), invokes commands and tools, sends events,
interceptions and panel input, cancels, answers the extension's
``call_tool``\\ s and reads every frame the extension wrote. No process is
spawned and no host is needed. The extension runs its real dispatcher.

Synchronous tests::

    from zot_ext.testing import TestHost

    def test_hi() -> None:
        with TestHost(ext) as host:
            assert host.command("hi", "there")["display"] == "hi there"

Asynchronous tests (the extension runs on the test's own event loop)::

    async def test_hi() -> None:
        async with AsyncTestHost(ext) as host:
            r = await host.tool("greet", {"name": "Ada"})

An extension *process*, written in any language, is driven the same way
over its stdin and stdout::

    def test_node_extension() -> None:
        with TestHost.spawn("node", ["ext.js"], cwd="my-extension") as host:
            assert host.tool("greet", {"name": "Ada"})["content"]

Every waiting method gives up after ``timeout`` seconds (10 by default)
with :class:`TimeoutError`. The waiting helpers read until the frame they
want and keep every other frame, in order, for :meth:`TestHost.next_frame`;
:meth:`TestHost.transcript` has every line in write order.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple, TypeVar, cast

from . import _native
from ._extension import Extension
from ._protocol import (
    CallTool,
    CommandResponse,
    EventInterceptResponse,
    ExtFrame,
    Hello,
    HelloAck,
    RegisterCommand,
    RegisterTool,
    ToolResult,
)
from ._results import to_json

__all__ = [
    "TestHost",
    "AsyncTestHost",
    "Registration",
    "HarnessError",
    "default_hello_ack",
]

HarnessError = _native.HarnessError
"""The harness could not do what was asked (e.g. the extension closed its
output before the expected frame came)."""

T = TypeVar("T")


def default_hello_ack(**fields: Any) -> HelloAck:
    """The ``hello_ack`` the harness sends by default (protocol 1,
    capability ``call_tool``, ``test`` host/provider/model, ``cwd`` and
    ``extension_dir`` = the current directory, ``data_dir`` = the temp
    directory), with ``fields`` replaced."""
    ack = cast(HelloAck, json.loads(_native.default_hello_ack_json()))
    ack.update(fields)  # type: ignore[typeddict-item]
    return ack


@dataclass
class Registration:
    """What the extension announced during the handshake."""

    hello: Hello
    commands: List[RegisterCommand] = field(default_factory=list)
    tools: List[RegisterTool] = field(default_factory=list)
    events: List[str] = field(default_factory=list)
    intercepts: List[str] = field(default_factory=list)
    subscribe_frames: int = 0


class _Core:
    """The blocking operations on the native harness, shared by both
    hosts."""

    def __init__(self, harness: _native.Harness, timeout: Optional[float]) -> None:
        self.harness = harness
        self.timeout = math.inf if timeout is None else timeout
        self._ids = itertools.count(1)

    def registration(self) -> Registration:
        r = json.loads(self.harness.registration(self.timeout))
        return Registration(
            hello=r["hello"],
            commands=r["commands"],
            tools=r["tools"],
            events=r["events"],
            intercepts=r["intercepts"],
            subscribe_frames=r["subscribe_frames"],
        )

    def transcript(self) -> List[str]:
        return self.harness.transcript(self.timeout)

    def send_json(self, line: str) -> None:
        self.harness.send_json(line, self.timeout)

    def send(self, frame: Mapping[str, Any]) -> None:
        self.harness.send_json(to_json(frame), self.timeout)

    def next_frame(self) -> ExtFrame:
        return cast(ExtFrame, json.loads(self.harness.next_frame(self.timeout)))

    def next_frame_json(self) -> str:
        return self.harness.next_frame(self.timeout)

    def try_next_frame(self) -> Optional[ExtFrame]:
        line = self.harness.try_next_frame(self.timeout)
        return None if line is None else cast(ExtFrame, json.loads(line))

    def command(self, name: str, args: str) -> CommandResponse:
        return cast(CommandResponse, json.loads(self.harness.command(name, args, self.timeout)))

    def command_response(self, id: str) -> CommandResponse:
        return cast(CommandResponse, json.loads(self.harness.command_response(id, self.timeout)))

    def start_tool(self, name: str, args: Optional[Mapping[str, Any]], id: Optional[str]) -> str:
        return self.harness.start_tool(name, to_json({} if args is None else args), id, self.timeout)

    def tool_result(self, id: str) -> ToolResult:
        return cast(ToolResult, json.loads(self.harness.tool_result(id, self.timeout)))

    def tool(self, name: str, args: Optional[Mapping[str, Any]]) -> ToolResult:
        return self.tool_result(self.start_tool(name, args, None))

    def cancel_tool(self, id: str) -> None:
        self.harness.cancel_tool(id, self.timeout)

    def _intercept_line(self, request: Mapping[str, Any]) -> str:
        req = {"type": "event_intercept", **request}
        req.setdefault("id", f"int-{next(self._ids)}")
        return to_json(req)

    def intercept(self, request: Mapping[str, Any]) -> EventInterceptResponse:
        line = self._intercept_line(request)
        return cast(EventInterceptResponse, json.loads(self.harness.intercept(line, self.timeout)))

    def intercept_response(self, id: str) -> EventInterceptResponse:
        return cast(EventInterceptResponse, json.loads(self.harness.intercept_response(id, self.timeout)))

    def event(self, event: Mapping[str, Any]) -> None:
        self.send({"type": "event", **event})

    def panel_key(self, panel_id: str, key: str, text: str) -> None:
        self.harness.panel_key(panel_id, key, text, self.timeout)

    def panel_close(self, panel_id: str) -> None:
        self.harness.panel_close(panel_id, self.timeout)

    def expect_call_tool(self) -> CallTool:
        return cast(CallTool, json.loads(self.harness.expect_call_tool(self.timeout)))

    def answer_call(self, call: CallTool, text: str, is_error: bool) -> None:
        self.harness.answer_call(call["id"], call.get("name", ""), text, is_error, self.timeout)

    def _frames(self, lines: List[str]) -> List[ExtFrame]:
        return [cast(ExtFrame, json.loads(line)) for line in lines]

    def shutdown(self) -> List[ExtFrame]:
        return self._frames(self.harness.shutdown(self.timeout))

    def close_stdin(self) -> List[ExtFrame]:
        return self._frames(self.harness.close_stdin(self.timeout))

    def drain(self) -> List[ExtFrame]:
        return self._frames(self.harness.drain(self.timeout))

    def stderr(self) -> Optional[str]:
        return self.harness.stderr(self.timeout)


@dataclass
class _Process:
    """An extension process to spawn (see :meth:`TestHost.spawn`)."""

    command: str
    args: List[str]
    cwd: Optional[str]
    env: Optional[Mapping[str, str]]
    stderr: str

    def label(self) -> str:
        return " ".join([self.command, *self.args])

    def spawn(self, hello_ack: Optional[HelloAck], ack_fields: Mapping[str, Any]) -> _native.Harness:
        if self.stderr not in ("pipe", "inherit"):
            raise ValueError(f"stderr: {self.stderr!r} is neither 'pipe' nor 'inherit'")
        env = None if self.env is None else dict(self.env)
        return _native.Harness.spawn(
            self.command, self.args, _ack_json(hello_ack, ack_fields), self.cwd, env, self.stderr
        )

    def check_exit(self, harness: _native.Harness, timeout: Optional[float]) -> None:
        """Waits for the process to exit; raises when it failed."""
        code = harness.wait(math.inf if timeout is None else timeout)
        if code:
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            raise HarnessError(f"`{self.label()}` {how}")


def _ack_json(hello_ack: Optional[HelloAck], ack_fields: Mapping[str, Any]) -> str:
    ack = default_hello_ack() if hello_ack is None else dict(hello_ack)
    ack.update(ack_fields)  # type: ignore[typeddict-item]
    ack["type"] = "hello_ack"
    return to_json(ack)


def _process(
    command: str,
    args: Sequence[str],
    cwd: Optional[str],
    env: Optional[Mapping[str, str]],
    stderr: str,
) -> _Process:
    if isinstance(args, str):
        raise TypeError("args is a sequence of arguments, not one string")
    return _Process(command, list(args), None if cwd is None else str(cwd), env, stderr)


def _start(
    ext: Extension, hello_ack: Optional[HelloAck], ack_fields: Mapping[str, Any]
) -> Tuple[_native.Engine, _native.Harness]:
    return _native.Engine.memory(ext.name, ext.version, _ack_json(hello_ack, ack_fields))


class TestHost:
    """The host side of an in-process session, for synchronous tests.

    The extension's dispatcher runs on its own event loop in a background
    thread; every method here blocks (with the GIL released) until the
    extension answered or ``timeout`` passed. Use it as a context manager:
    leaving it closes the extension's stdin (EOF) if the session is still
    running, waits for the dispatcher to finish and re-raises what it
    raised.

    ``hello_ack`` replaces the default ``hello_ack``; keyword arguments
    replace single fields of it (``cwd="/proj"``, ``capabilities=[]``...).
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        ext: Extension,
        *,
        hello_ack: Optional[HelloAck] = None,
        timeout: Optional[float] = 10.0,
        **ack_fields: Any,
    ) -> None:
        self._setup(ext, hello_ack, timeout, ack_fields)

    def _setup(
        self,
        ext: Optional[Extension],
        hello_ack: Optional[HelloAck],
        timeout: Optional[float],
        ack_fields: Mapping[str, Any],
    ) -> None:
        self.ext = ext
        self._ack = hello_ack
        self._fields = ack_fields
        self.timeout = timeout
        self._core: Optional[_Core] = None
        self._thread: Optional[threading.Thread] = None
        self._error: Optional[BaseException] = None
        self._ended = False
        self._registration: Optional[Registration] = None
        self._process: Optional[_Process] = None

    @classmethod
    def spawn(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        stderr: str = "pipe",
        hello_ack: Optional[HelloAck] = None,
        timeout: Optional[float] = 10.0,
        **ack_fields: Any,
    ) -> TestHost:
        """A host for an extension *process* (written in any language):
        ``command`` with ``args``, started by ``with`` (or :meth:`start`);
        its stdin and stdout are the transport.

        ``cwd`` is the process's working directory (the ``hello_ack``'s
        ``cwd`` is set with ``hello_ack=default_hello_ack(cwd=...)``).
        ``env``, when given, is the whole environment (as in
        :mod:`subprocess`: add to ``os.environ`` for one more variable).
        ``stderr="pipe"`` (the default) keeps what it writes there for
        :meth:`stderr` and quotes it when it fails before the handshake
        ends; ``"inherit"`` leaves it on this process's stderr. Leaving the
        ``with`` block closes its stdin, waits for it to exit (raising
        :class:`HarnessError` if its exit code is not 0) and kills it if it
        still runs."""
        host = cls.__new__(cls)
        host._setup(None, hello_ack, timeout, ack_fields)
        host._process = _process(command, args, cwd, env, stderr)
        return host

    def __enter__(self) -> TestHost:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close(raise_errors=exc[0] is None)

    def start(self) -> Registration:
        """Starts the extension and completes the handshake."""
        if self._process is not None:
            self._core = _Core(self._process.spawn(self._ack, self._fields), self.timeout)
            try:
                self._registration = self._core.registration()
            except BaseException:
                self._core.harness.close()
                raise
            return self._registration
        if self.ext is None:
            raise RuntimeError("no extension to start (pass one, or use TestHost.spawn)")
        ext = self.ext
        native, harness = _start(ext, self._ack, self._fields)
        self._core = _Core(harness, self.timeout)

        def serve() -> None:
            try:
                asyncio.run(ext._serve_on(native))
            except BaseException as e:  # reported by close() / finished()
                self._error = e

        self._thread = threading.Thread(target=serve, name=f"zot-ext test {self.ext.name}", daemon=True)
        self._thread.start()
        try:
            self._registration = self._core.registration()
        except HarnessError:
            # The dispatcher failed before the handshake: report why.
            self._thread.join(self.timeout)
            self.finished()
            raise
        return self._registration

    @property
    def core(self) -> _Core:
        if self._core is None:
            raise RuntimeError("the TestHost is not started (use `with TestHost(ext) as host:`)")
        return self._core

    @property
    def registration(self) -> Registration:
        """What the extension announced."""
        if self._registration is None:
            raise RuntimeError("the TestHost is not started")
        return self._registration

    def transcript(self) -> List[str]:
        """Every line the extension wrote so far, in order (``hello``
        first)."""
        return self.core.transcript()

    def send_json(self, line: str) -> None:
        """Sends one line as is (any JSON, valid or not)."""
        self.core.send_json(line)

    def send(self, frame: Mapping[str, Any]) -> None:
        """Sends a host frame (a dict with its ``type``)."""
        self.core.send(frame)

    def next_frame(self) -> ExtFrame:
        """The next frame the extension wrote (frames skipped by the waiting
        helpers first)."""
        return self.core.next_frame()

    def next_frame_json(self) -> str:
        """:meth:`next_frame` as its JSON line."""
        return self.core.next_frame_json()

    def try_next_frame(self) -> Optional[ExtFrame]:
        """The next frame if one was already written (never waits)."""
        return self.core.try_next_frame()

    def command(self, name: str, args: str = "") -> CommandResponse:
        """Invokes a command and waits for its response."""
        return self.core.command(name, args)

    def command_response(self, id: str) -> CommandResponse:
        """Waits for the ``command_response`` to ``id``."""
        return self.core.command_response(id)

    def start_tool(
        self, name: str, args: Optional[Mapping[str, Any]] = None, *, id: Optional[str] = None
    ) -> str:
        """Sends a ``tool_call`` without waiting; returns its id."""
        return self.core.start_tool(name, args, id)

    def tool_result(self, id: str) -> ToolResult:
        """Waits for the ``tool_result`` to ``id``."""
        return self.core.tool_result(id)

    def tool(self, name: str, args: Optional[Mapping[str, Any]] = None) -> ToolResult:
        """Calls a tool and waits for its result."""
        return self.core.tool(name, args)

    def cancel_tool(self, id: str) -> None:
        """Sends ``tool_cancel`` for ``id``."""
        self.core.cancel_tool(id)

    def intercept(self, request: Mapping[str, Any]) -> EventInterceptResponse:
        """Sends an ``event_intercept`` (``type`` and a fresh ``id`` added
        when missing) and waits for its response."""
        return self.core.intercept(request)

    def intercept_response(self, id: str) -> EventInterceptResponse:
        """Waits for the ``event_intercept_response`` to ``id``."""
        return self.core.intercept_response(id)

    def event(self, event: Mapping[str, Any]) -> None:
        """Sends a lifecycle event (``type`` added)."""
        self.core.event(event)

    def panel_key(self, panel_id: str, key: str, text: str = "") -> None:
        """Sends a ``panel_key`` (``key``: ``up``, ``rune``...)."""
        self.core.panel_key(panel_id, key, text)

    def panel_close(self, panel_id: str) -> None:
        """Sends the host's ``panel_close``."""
        self.core.panel_close(panel_id)

    def expect_call_tool(self) -> CallTool:
        """Waits for the extension's next ``call_tool``."""
        return self.core.expect_call_tool()

    def answer_call(self, call: CallTool, text: str, *, is_error: bool = False) -> None:
        """Answers a ``call_tool`` with one text block."""
        self.core.answer_call(call, text, is_error)

    def shutdown(self) -> List[ExtFrame]:
        """Sends ``shutdown``; returns every frame the extension still wrote
        until its output closed (``shutdown_ack`` last)."""
        self._ended = True
        return self.core.shutdown()

    def close_stdin(self) -> List[ExtFrame]:
        """Closes the extension's stdin (EOF); returns every frame it still
        wrote until its output closed."""
        self._ended = True
        return self.core.close_stdin()

    def drain(self) -> List[ExtFrame]:
        """Every remaining frame until the extension's output closes."""
        return self.core.drain()

    def finished(self, timeout: Optional[float] = None) -> None:
        """Waits for the extension's dispatcher to return (after the session
        ended) and re-raises what it raised; for a spawned process, waits
        for it to exit and raises :class:`HarnessError` if its exit code is
        not 0."""
        if self._process is not None and self._core is not None:
            self._process.check_exit(self._core.harness, self.timeout if timeout is None else timeout)
            return
        if self._thread is not None:
            self._thread.join(self.timeout if timeout is None else timeout)
            if self._thread.is_alive():
                raise TimeoutError("the extension's dispatcher did not finish")
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def close(self, raise_errors: bool = True) -> None:
        """Ends the session (EOF) if it still runs and waits for the
        dispatcher."""
        if self._core is None:
            return
        try:
            if not self._ended:
                self._ended = True
                self._core.close_stdin()
        finally:
            try:
                if raise_errors:
                    self.finished()
                elif self._thread is not None:
                    self._thread.join(self.timeout)
            finally:
                if self._process is not None:
                    self._core.harness.close()  # kills it if it still runs

    def stderr(self) -> Optional[str]:
        """What a spawned process wrote on its stderr so far (``None``
        in-process or with ``stderr="inherit"``)."""
        return self.core.stderr()


class AsyncTestHost:
    """The host side of an in-process session, for ``async`` tests: the
    extension's dispatcher runs as a task on the test's running event loop,
    and every method is awaited (the waiting happens in a worker thread with
    the GIL released). Use it with ``async with``."""

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        ext: Extension,
        *,
        hello_ack: Optional[HelloAck] = None,
        timeout: Optional[float] = 10.0,
        **ack_fields: Any,
    ) -> None:
        self._setup(ext, hello_ack, timeout, ack_fields)

    def _setup(
        self,
        ext: Optional[Extension],
        hello_ack: Optional[HelloAck],
        timeout: Optional[float],
        ack_fields: Mapping[str, Any],
    ) -> None:
        self.ext = ext
        self._ack = hello_ack
        self._fields = ack_fields
        self.timeout = timeout
        self._core: Optional[_Core] = None
        self._task: Optional[asyncio.Task[None]] = None
        self._ended = False
        self._registration: Optional[Registration] = None
        self._process: Optional[_Process] = None

    @classmethod
    def spawn(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        stderr: str = "pipe",
        hello_ack: Optional[HelloAck] = None,
        timeout: Optional[float] = 10.0,
        **ack_fields: Any,
    ) -> AsyncTestHost:
        """A host for an extension process, as :meth:`TestHost.spawn`,
        started by ``async with``."""
        host = cls.__new__(cls)
        host._setup(None, hello_ack, timeout, ack_fields)
        host._process = _process(command, args, cwd, env, stderr)
        return host

    async def __aenter__(self) -> AsyncTestHost:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close(raise_errors=exc[0] is None)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(None, lambda: fn(*args))

    @property
    def core(self) -> _Core:
        if self._core is None:
            raise RuntimeError("the AsyncTestHost is not started (use `async with`)")
        return self._core

    async def start(self) -> Registration:
        """Starts the extension on the running loop and completes the
        handshake."""
        if self._process is not None:
            process = self._process
            self._core = _Core(await self._run(process.spawn, self._ack, self._fields), self.timeout)
            try:
                self._registration = await self._run(self._core.registration)
            except BaseException:
                await self._run(self._core.harness.close)
                raise
            return self._registration
        if self.ext is None:
            raise RuntimeError("no extension to start (pass one, or use AsyncTestHost.spawn)")
        native, harness = _start(self.ext, self._ack, self._fields)
        self._core = _Core(harness, self.timeout)
        self._task = asyncio.get_running_loop().create_task(self.ext._serve_on(native))
        try:
            self._registration = await self._run(self._core.registration)
        except HarnessError:
            await self.finished()  # the dispatcher failed first: report why
            raise
        return self._registration

    @property
    def registration(self) -> Registration:
        """What the extension announced."""
        if self._registration is None:
            raise RuntimeError("the AsyncTestHost is not started")
        return self._registration

    async def transcript(self) -> List[str]:
        """Every line the extension wrote so far, in order."""
        return await self._run(self.core.transcript)

    async def send_json(self, line: str) -> None:
        """Sends one line as is."""
        await self._run(self.core.send_json, line)

    async def send(self, frame: Mapping[str, Any]) -> None:
        """Sends a host frame (a dict with its ``type``)."""
        await self._run(self.core.send, frame)

    async def next_frame(self) -> ExtFrame:
        """The next frame the extension wrote."""
        return await self._run(self.core.next_frame)

    async def next_frame_json(self) -> str:
        """:meth:`next_frame` as its JSON line."""
        return await self._run(self.core.next_frame_json)

    async def try_next_frame(self) -> Optional[ExtFrame]:
        """The next frame if one was already written."""
        return await self._run(self.core.try_next_frame)

    async def command(self, name: str, args: str = "") -> CommandResponse:
        """Invokes a command and waits for its response."""
        return await self._run(self.core.command, name, args)

    async def command_response(self, id: str) -> CommandResponse:
        """Waits for the ``command_response`` to ``id``."""
        return await self._run(self.core.command_response, id)

    async def start_tool(
        self, name: str, args: Optional[Mapping[str, Any]] = None, *, id: Optional[str] = None
    ) -> str:
        """Sends a ``tool_call`` without waiting; returns its id."""
        return await self._run(self.core.start_tool, name, args, id)

    async def tool_result(self, id: str) -> ToolResult:
        """Waits for the ``tool_result`` to ``id``."""
        return await self._run(self.core.tool_result, id)

    async def tool(self, name: str, args: Optional[Mapping[str, Any]] = None) -> ToolResult:
        """Calls a tool and waits for its result."""
        return await self._run(self.core.tool, name, args)

    async def cancel_tool(self, id: str) -> None:
        """Sends ``tool_cancel`` for ``id``."""
        await self._run(self.core.cancel_tool, id)

    async def intercept(self, request: Mapping[str, Any]) -> EventInterceptResponse:
        """Sends an ``event_intercept`` and waits for its response."""
        return await self._run(self.core.intercept, request)

    async def event(self, event: Mapping[str, Any]) -> None:
        """Sends a lifecycle event."""
        await self._run(self.core.event, event)

    async def panel_key(self, panel_id: str, key: str, text: str = "") -> None:
        """Sends a ``panel_key``."""
        await self._run(self.core.panel_key, panel_id, key, text)

    async def panel_close(self, panel_id: str) -> None:
        """Sends the host's ``panel_close``."""
        await self._run(self.core.panel_close, panel_id)

    async def expect_call_tool(self) -> CallTool:
        """Waits for the extension's next ``call_tool``."""
        return await self._run(self.core.expect_call_tool)

    async def answer_call(self, call: CallTool, text: str, *, is_error: bool = False) -> None:
        """Answers a ``call_tool`` with one text block."""
        await self._run(self.core.answer_call, call, text, is_error)

    async def shutdown(self) -> List[ExtFrame]:
        """Sends ``shutdown``; returns the frames written until the end."""
        self._ended = True
        return await self._run(self.core.shutdown)

    async def close_stdin(self) -> List[ExtFrame]:
        """Closes the extension's stdin (EOF); returns the frames written
        until the end."""
        self._ended = True
        return await self._run(self.core.close_stdin)

    async def drain(self) -> List[ExtFrame]:
        """Every remaining frame until the extension's output closes."""
        return await self._run(self.core.drain)

    async def finished(self) -> None:
        """Waits for the extension's dispatcher to return and re-raises
        what it raised; for a spawned process, waits for it to exit and
        raises :class:`HarnessError` if its exit code is not 0."""
        if self._process is not None and self._core is not None:
            await self._run(self._process.check_exit, self._core.harness, self.timeout)
            return
        if self._task is not None:
            await asyncio.wait_for(asyncio.shield(self._task), self.timeout)

    async def close(self, raise_errors: bool = True) -> None:
        """Ends the session (EOF) if it still runs and waits for the
        dispatcher."""
        if self._core is None:
            return
        try:
            if not self._ended:
                self._ended = True
                await self.close_stdin()
        finally:
            try:
                if raise_errors:
                    await self.finished()
                elif self._task is not None:
                    await asyncio.wait([self._task], timeout=self.timeout)
            finally:
                if self._process is not None:
                    await self._run(self._core.harness.close)  # kills it if it still runs

    async def stderr(self) -> Optional[str]:
        """What a spawned process wrote on its stderr so far (``None``
        in-process or with ``stderr="inherit"``)."""
        return await self._run(self.core.stderr)
