"""The :class:`Extension` object: its registrations (commands, tools,
events, interceptors, panels, on-hello hooks) and its spontaneous actions.
Running it is the session's (``_session``)."""

from __future__ import annotations

import _thread
import os
import sys

from . import _native
from ._context import HostInfo
from ._errors import (
    NotRunningError,
    RegistrationError,
    SendError,
    SessionError,
    ZotError,
    duplicate_registration,
)
from ._events import EventRegistration
from ._handshake import hello_before_loop
from ._panels import PanelRegistration
from ._registry import _Command, _first_param_type, _Handler, _is_async, _Panel, _Tool
from ._results import (
    MessageVerdict,
    PromptVerdict,
    Response,
    ToolCallVerdict,
    TurnVerdict,
    panel_spec,
    to_json,
)
from ._schema import converter_for, schema_for
from ._signature import command_description, keyword_tool, name_of, tool_description
from ._stdout import protect_stdout, stdout_follows_descriptor_1

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union, overload

    from ._contract import Job
    from ._handlers import HandlerOf
    from ._protocol import (
        AssistantMessageIntercept,
        BeforeAgentStartIntercept,
        Exposure,
        NotifyLevel,
        ToolCallIntercept,
        TurnStartIntercept,
    )
    from ._runner import JobRunner
    from ._schema import Converter

__all__ = ["Extension", "protect_stdout"]

# `logging.INFO` and `logging.ERROR`: the module loads on first use.
_INFO = 20
_ERROR = 40

#: How long an idle worker thread waits for the next handler before it
#: exits, in seconds.
DEFAULT_IDLE_TIMEOUT = 10.0


def default_max_threads() -> int:
    """The default bound on handler threads: ``min(32, CPUs + 4)``, the
    default of :class:`concurrent.futures.ThreadPoolExecutor` (blocking
    handlers mostly wait, so a few more threads than CPUs)."""
    return min(32, (os.cpu_count() or 1) + 4)


if TYPE_CHECKING:
    CommandResult = Union[Response, str, None]
    ToolHandler = Callable[..., Any]
    HelloHook = Callable[[HostInfo], Any]

    CommandF = TypeVar("CommandF", bound="HandlerOf[str, CommandResult]")
    ToolF = TypeVar("ToolF", bound=ToolHandler)
    HelloF = TypeVar("HelloF", bound=HelloHook)
    ToolCallF = TypeVar("ToolCallF", bound="HandlerOf[ToolCallIntercept, Optional[ToolCallVerdict]]")
    TurnF = TypeVar("TurnF", bound="HandlerOf[TurnStartIntercept, Optional[TurnVerdict]]")
    MessageF = TypeVar("MessageF", bound="HandlerOf[AssistantMessageIntercept, Optional[MessageVerdict]]")
    PromptResult = Union[PromptVerdict, str, None]
    PromptF = TypeVar("PromptF", bound="HandlerOf[BeforeAgentStartIntercept, PromptResult]")
    AnyF = TypeVar("AnyF", bound="Callable[..., Any]")


class Extension(EventRegistration, PanelRegistration):
    """An extension: its registrations and its spontaneous actions.

    >>> ext = Extension("hello", "1.0.0")
    >>> @ext.command("hi", "Say hi")
    ... def hi(args: str, ctx: Ctx) -> Response:
    ...     return Response.display(f"hi {args}")
    >>> # ext.run()  # serve over stdin/stdout until shutdown or EOF

    Every handler gets ``(args, ctx)`` (or only ``args``, or nothing, if it
    declares fewer parameters). ``async def`` handlers run on the SDK's
    event loop; plain ``def`` handlers run in a worker thread unless
    registered with ``thread=False`` (then on the loop thread: keep them
    short).

    ``max_threads`` bounds the worker threads (``min(32, CPUs + 4)`` by
    default); beyond it calls wait for a free one. An idle worker exits
    after ``thread_idle_timeout`` seconds, except the last one waiting.
    """

    def __init__(
        self,
        name: str,
        version: str = "0.0.0",
        *,
        max_threads: Optional[int] = None,
        thread_idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        if not name:
            raise ValueError("the extension name must not be empty")
        if max_threads is not None and max_threads < 1:
            raise ValueError(f"max_threads must be at least 1, not {max_threads}")
        if not thread_idle_timeout > 0:
            raise ValueError(f"thread_idle_timeout must be positive, not {thread_idle_timeout}")
        self.name = name
        self.version = version
        self.max_threads = default_max_threads() if max_threads is None else max_threads
        self.thread_idle_timeout = thread_idle_timeout
        self._logger: Optional[logging.Logger] = None
        self._commands: Dict[str, _Command] = {}
        self._tools: Dict[str, _Tool] = {}
        self._events: Dict[str, _Handler] = {}
        self._intercepts: Dict[str, _Handler] = {}
        self._hello_hooks: List[_Handler] = []
        self._panels: Dict[str, _Panel] = {}
        # The running session's connection: the engine, the host's
        # `hello_ack` once received, and whether the registrations were
        # announced. Set before the event loop runs (see `_handshake`).
        self._native: Optional[_native.Engine] = None
        self._host: Optional[HostInfo] = None
        self._announced = False
        # The running session's part that needs no event loop (its worker
        # threads take jobs before the loop runs).
        self._runner: Optional[JobRunner] = None
        self._lock = _thread.allocate_lock()

    def __repr__(self) -> str:
        return f"Extension({self.name!r}, {self.version!r})"

    # -- registration -----------------------------------------------------

    def _live(self) -> Optional[_native.Engine]:
        """The engine to register with at once (after the announcement)."""
        return self._native if self._announced else None

    @staticmethod
    def _check(call: Callable[[], None]) -> None:
        """Applies the engine's registration rules now, at the call that
        registers: a mistake raises here, with the text every SDK uses."""
        try:
            call()
        except (_native.EngineError, ValueError) as e:
            raise RegistrationError(str(e)) from e

    def _worker_routes(self) -> List[Tuple[str, str]]:
        """The ``(kind, name)`` of every command, tool, interceptor and
        event handler that runs on a worker thread (plain ``def``,
        ``thread=True``)."""
        with self._lock:
            handlers = [
                *(("command", c.name, c.handler) for c in self._commands.values()),
                *(("tool", name, t.handler) for name, t in self._tools.items()),
                *(("intercept", event, h) for event, h in self._intercepts.items()),
                *(("event", event, h) for event, h in self._events.items()),
            ]
        return [(kind, name) for kind, name, h in handlers if h.thread and not h.is_async]

    def _routes_to_workers(self) -> bool:
        return bool(self._worker_routes())

    def _route(self, native: _native.Engine, kind: str, name: str, handler: _Handler) -> None:
        """Routes a registration's jobs to the worker threads (or not),
        before the engine hands out any: a plain ``def`` handler's job
        reaches its thread without passing through the event loop."""
        on = handler.thread and not handler.is_async
        native.route_to_workers(kind, name, on)
        runner = self._runner
        if on and runner is not None:
            runner.workers.start()

    def _register_late(self, what: str, call: Callable[[_native.Engine], None]) -> None:
        native = self._live()
        if native is None:
            return
        try:
            call(native)
        except (_native.EngineError, ValueError) as e:
            raise RegistrationError(f"{what} not registered: {e}") from e

    if TYPE_CHECKING:

        @overload
        def command(self, name: CommandF, /) -> CommandF: ...

        @overload
        def command(
            self, name: Optional[str] = None, description: Optional[str] = None, *, thread: bool = True
        ) -> Callable[[CommandF], CommandF]: ...

        @overload
        def command(
            self, name: Optional[str], description: Optional[str], handler: CommandF, *, thread: bool = True
        ) -> CommandF: ...

    def command(
        self,
        name: Union[str, CommandF, None] = None,
        description: Optional[str] = None,
        handler: Optional[CommandF] = None,
        *,
        thread: bool = True,
    ) -> Union[CommandF, Callable[[CommandF], CommandF]]:
        """Registers a slash command: a decorator, bare (``@ext.command``)
        or called (``@ext.command("hi", "Say hi")``), or pass ``handler``.

        The name defaults to the function's name, the description to the
        first paragraph of its docstring. The handler gets the rest of the
        user's input (``str``) and a :class:`Ctx`; it returns a
        :class:`Response`, a ``str`` (shown with ``display``) or ``None``
        (``noop``). Raising an exception answers ``noop`` with the message
        as the error (SDK-16). A name registered before (compared
        case-insensitively, as hosts do) raises :class:`RegistrationError`.
        """
        if callable(name):
            return self.command(None, description, thread=thread)(name)

        def register(fn: CommandF) -> CommandF:
            cmd_name = name if name is not None else name_of(fn, "command handler")
            desc = description if description is not None else command_description(fn)
            self._check(lambda: _native.check_command(cmd_name))
            cmd = _Command(cmd_name, desc, _Handler.of(fn, thread))
            with self._lock:
                earlier = self._commands.get(cmd_name.lower())
                if earlier is not None:
                    raise duplicate_registration("command", cmd_name, earlier.name)
                self._commands[cmd_name.lower()] = cmd

            def late(n: _native.Engine) -> None:
                self._route(n, "command", cmd_name, cmd.handler)
                n.register_command(cmd_name, desc)

            self._register_late(f"command {cmd_name!r}", late)
            return fn

        return register if handler is None else register(handler)

    if TYPE_CHECKING:

        @overload
        def tool(self, name: ToolF, /) -> ToolF: ...

        @overload
        def tool(
            self,
            name: Optional[str] = None,
            description: Optional[str] = None,
            *,
            schema: Optional[Mapping[str, Any]] = None,
            output_schema: Optional[Mapping[str, Any]] = None,
            namespace: str = "",
            namespace_description: str = "",
            namespace_instructions: str = "",
            exposure: Optional[Exposure] = None,
            deferred: bool = False,
            interactive: bool = False,
            thread: bool = True,
        ) -> Callable[[ToolF], ToolF]: ...

        @overload
        def tool(
            self,
            name: Optional[str],
            description: Optional[str],
            handler: ToolF,
            *,
            schema: Optional[Mapping[str, Any]] = None,
            output_schema: Optional[Mapping[str, Any]] = None,
            namespace: str = "",
            namespace_description: str = "",
            namespace_instructions: str = "",
            exposure: Optional[Exposure] = None,
            deferred: bool = False,
            interactive: bool = False,
            thread: bool = True,
        ) -> ToolF: ...

    def tool(
        self,
        name: Union[str, ToolF, None] = None,
        description: Optional[str] = None,
        handler: Optional[ToolF] = None,
        *,
        schema: Optional[Mapping[str, Any]] = None,
        output_schema: Optional[Mapping[str, Any]] = None,
        namespace: str = "",
        namespace_description: str = "",
        namespace_instructions: str = "",
        exposure: Optional[Exposure] = None,
        deferred: bool = False,
        interactive: bool = False,
        thread: bool = True,
    ) -> Union[ToolF, Callable[[ToolF], ToolF]]:
        """Registers a tool: a decorator, bare (``@ext.tool``) or called
        (``@ext.tool("greet", "Greet someone")``), or pass ``handler``.

        The name defaults to the function's name, the description to its
        docstring. The handler takes its arguments either as one object and
        a :class:`Ctx` (``def greet(args: Greet, ctx: Ctx)``: the first
        parameter annotated with a ``TypedDict``, a dataclass or a pydantic
        model; none / ``dict`` means any object), or as keyword parameters
        with type hints (``def weather(city: str, days: int = 3, ctx: Ctx =
        ...)``: each parameter but the context is a property, required unless
        it has a default or is ``Optional``). Without ``schema`` the JSON
        Schema is derived from those hints, and the arguments (validated by
        the engine against the schema) are converted to the hinted types
        before the handler runs. It returns a :class:`ToolOutput`, a
        ``str``, a list of content blocks, a ``dict`` (structured content)
        or ``None``; raising an exception answers ``is_error`` with the
        message (SDK-21). ``interactive`` tools wait for the user and get
        cancelled through ``ctx`` (SDK-53). A name registered before raises
        :class:`RegistrationError`.
        """
        if callable(name):
            return self.tool(
                None,
                description,
                name,
                schema=schema,
                output_schema=output_schema,
                namespace=namespace,
                namespace_description=namespace_description,
                namespace_instructions=namespace_instructions,
                exposure=exposure,
                deferred=deferred,
                interactive=interactive,
                thread=thread,
            )

        def register(fn: ToolF) -> ToolF:
            tool_name = name if name is not None else name_of(fn, "tool handler")
            keywords = keyword_tool(fn)
            if keywords is not None:
                derived = keywords.schema
                convert: Converter = keywords.convert
                handler_of = _Handler(keywords.caller(fn), _is_async(fn), thread, 2)
            else:
                arg_type = _first_param_type(fn)
                derived = schema_for(arg_type) if schema is None else {}
                convert = converter_for(arg_type)
                handler_of = _Handler.of(fn, thread)
            frame: Dict[str, Any] = {
                "name": tool_name,
                "description": description if description is not None else tool_description(fn),
                "schema": dict(schema) if schema is not None else derived,
            }
            if output_schema is not None:
                frame["output_schema"] = dict(output_schema)
            if namespace:
                frame["namespace"] = namespace
            if namespace_description:
                frame["namespace_description"] = namespace_description
            if namespace_instructions:
                frame["namespace_instructions"] = namespace_instructions
            if exposure is not None:
                frame["exposure"] = exposure
            if deferred:
                frame["deferred"] = True
            if interactive:
                frame["interactive"] = True
            # A schema derived from hints is valid by construction.
            is_derived = schema is None
            self._check(lambda: _native.check_tool(to_json(frame), is_derived))
            spec = _Tool(frame, handler_of, convert, is_derived)
            with self._lock:
                if tool_name in self._tools:
                    raise duplicate_registration("tool", tool_name, tool_name)
                self._tools[tool_name] = spec

            def late(n: _native.Engine) -> None:
                self._route(n, "tool", tool_name, handler_of)
                n.register_tool(to_json(frame), is_derived)

            self._register_late(f"tool {tool_name!r}", late)
            return fn

        return register if handler is None else register(handler)

    def _on(self, event: str, handler: Optional[Callable[..., Any]], thread: bool) -> Any:
        # The typed overloads of ``on`` are generated (EventRegistration).
        self._check(lambda: _native.check_event(event))

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            handler = _Handler.of(fn, thread)
            with self._lock:
                self._events[event] = handler

            def late(n: _native.Engine) -> None:
                self._route(n, "event", event, handler)
                n.subscribe(event)

            self._register_late(f"event {event!r}", late)
            return fn

        return register if handler is None else register(handler)

    def _interceptor(
        self, event: str, handler: Optional[AnyF], thread: bool
    ) -> Union[AnyF, Callable[[AnyF], AnyF]]:
        """Registers ``handler``, or returns the decorator that will."""

        def register(fn: AnyF) -> AnyF:
            self._intercept(event, fn, thread)
            return fn

        return register if handler is None else register(handler)

    def _intercept(self, event: str, fn: Callable[..., Any], thread: bool) -> None:
        self._check(lambda: _native.check_intercept(event))
        handler = _Handler.of(fn, thread)
        with self._lock:
            self._intercepts[event] = handler

        def late(n: _native.Engine) -> None:
            self._route(n, "intercept", event, handler)
            n.intercept(event)

        self._register_late(f"interceptor {event!r}", late)

    if TYPE_CHECKING:

        @overload
        def intercept_tool_call(self, handler: ToolCallF) -> ToolCallF: ...

        @overload
        def intercept_tool_call(self, *, thread: bool = True) -> Callable[[ToolCallF], ToolCallF]: ...

    def intercept_tool_call(
        self, handler: Optional[ToolCallF] = None, *, thread: bool = True
    ) -> Union[ToolCallF, Callable[[ToolCallF], ToolCallF]]:
        """Intercepts tool calls (``ToolCallIntercept`` → a
        :class:`ToolCallVerdict` or ``None`` to allow). A failing
        interceptor blocks the call (SDK-45); an answer later than the
        host's deadline is dropped by the engine."""
        return self._interceptor("tool_call", handler, thread)

    if TYPE_CHECKING:

        @overload
        def intercept_turn_start(self, handler: TurnF) -> TurnF: ...

        @overload
        def intercept_turn_start(self, *, thread: bool = True) -> Callable[[TurnF], TurnF]: ...

    def intercept_turn_start(
        self, handler: Optional[TurnF] = None, *, thread: bool = True
    ) -> Union[TurnF, Callable[[TurnF], TurnF]]:
        """Intercepts turn starts (``TurnStartIntercept`` → a
        :class:`TurnVerdict` or ``None``)."""
        return self._interceptor("turn_start", handler, thread)

    if TYPE_CHECKING:

        @overload
        def intercept_assistant_message(self, handler: MessageF) -> MessageF: ...

        @overload
        def intercept_assistant_message(self, *, thread: bool = True) -> Callable[[MessageF], MessageF]: ...

    def intercept_assistant_message(
        self, handler: Optional[MessageF] = None, *, thread: bool = True
    ) -> Union[MessageF, Callable[[MessageF], MessageF]]:
        """Intercepts assistant messages (``AssistantMessageIntercept`` → a
        :class:`MessageVerdict` or ``None``)."""
        return self._interceptor("assistant_message", handler, thread)

    if TYPE_CHECKING:

        @overload
        def intercept_before_agent_start(self, handler: PromptF) -> PromptF: ...

        @overload
        def intercept_before_agent_start(self, *, thread: bool = True) -> Callable[[PromptF], PromptF]: ...

    def intercept_before_agent_start(
        self, handler: Optional[PromptF] = None, *, thread: bool = True
    ) -> Union[PromptF, Callable[[PromptF], PromptF]]:
        """Rewrites the system prompt (``BeforeAgentStartIntercept`` → a
        :class:`PromptVerdict`, a ``str`` (the new prompt) or ``None`` to
        keep it). A failing hook keeps the prompt."""
        return self._interceptor("before_agent_start", handler, thread)

    def on_hello(self, hook: HelloF) -> HelloF:
        """Runs ``hook(host)`` after ``hello_ack`` and before the
        registrations are announced (SDK-7); it may register more commands,
        tools, events and interceptors. With :meth:`run`, plain ``def``
        hooks run on the main thread before the event loop starts (so that
        ``ready`` does not wait for asyncio to load); ``async def`` hooks
        run on the event loop."""
        with self._lock:
            self._hello_hooks.append(_Handler.of(hook, thread=False))
        return hook

    # -- spontaneous actions ----------------------------------------------

    @property
    def host(self) -> Optional[HostInfo]:
        """The host's ``hello_ack`` while a session runs (after the
        handshake)."""
        return self._host

    @property
    def running(self) -> bool:
        """Whether a session is running."""
        return self._native is not None

    def _send(self, frame: Mapping[str, Any]) -> None:
        native = self._native
        if native is None:
            raise NotRunningError("the extension is not running")
        s = self._runner
        if s is not None and _thread.get_ident() == s.loop_thread:
            s.answers.flush()  # answers produced before this frame leave first
        try:
            native.send(to_json(frame))
        except (_native.EngineError, RuntimeError) as e:
            raise SendError(str(e)) from e

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        """Shows a note (``notify``; ``level``: info, success, warn,
        error). Frames sent before the handshake completes follow
        ``ready``."""
        self._send({"type": "notify", "level": level, "message": message})

    def clear_notes(self) -> None:
        """Removes this extension's notes (``clear_notes``)."""
        self._send({"type": "clear_notes"})

    def submit(self, text: str) -> None:
        """Submits a prompt as if typed (``submit``; interactive hosts)."""
        self._send({"type": "submit", "text": text})

    def submit_slash(self, text: str) -> None:
        """Runs a slash command as if typed (``submit_slash``)."""
        self._send({"type": "submit_slash", "text": text})

    def open_panel(
        self, panel_id: str, *, title: str = "", lines: Sequence[str] = (), footer: str = ""
    ) -> None:
        """Opens a panel outside any command (spontaneous ``open_panel``)."""
        self._send({"type": "open_panel", "panel": panel_spec(panel_id, title, lines, footer)})

    def render_panel(
        self,
        panel_id: str,
        *,
        lines: Optional[Sequence[str]] = None,
        title: Optional[str] = None,
        footer: Optional[str] = None,
    ) -> None:
        """Redraws a panel (``panel_render``): the given parts replace the
        current ones."""
        frame: Dict[str, Any] = {"type": "panel_render", "panel_id": panel_id}
        if title:
            frame["title"] = title
        if lines:
            frame["lines"] = list(lines)
        if footer:
            frame["footer"] = footer
        self._send(frame)

    def close_panel(self, panel_id: str) -> None:
        """Closes a panel (``panel_close``) and forgets its handlers (the
        host does not echo the close back)."""
        self.forget_panel(panel_id)
        self._send({"type": "panel_close", "panel_id": panel_id})

    @property
    def logger(self) -> logging.Logger:
        """The extension's logger, ``zot_ext.<name>`` (made on first use:
        the :mod:`logging` module is not loaded before ``ready``)."""
        logger = self._logger
        if logger is None:
            import logging

            logger = self._logger = logging.getLogger(f"zot_ext.{self.name}")
        return logger

    @logger.setter
    def logger(self, logger: logging.Logger) -> None:
        self._logger = logger

    def _ensure_logging(self) -> None:
        """Sends the extension's log lines to stderr as ``[<name>] message``
        unless the application configured logging itself."""
        import logging

        if self.logger.handlers or logging.getLogger().handlers:
            return
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(f"[{self.name.replace('%', '%%')}] %(message)s"))
        self.logger.addHandler(handler)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False

    def log(self, message: str, level: int = _INFO) -> None:
        """Logs ``message`` to stderr through :attr:`logger` (stdout is the
        wire)."""
        self._ensure_logging()
        self.logger.log(level, message)

    # -- running ------------------------------------------------------------

    def run(self) -> None:
        """Serves the extension over stdin/stdout until ``shutdown`` or EOF.
        The handshake comes first, then the session runs on
        ``asyncio.run``. Ctrl-C ends it cleanly; a failed session (e.g. no
        ``hello_ack``) exits with status 1."""
        try:
            native = self._start_stdio()
            self._claim(native)
            # Before asyncio and logging load (most of the SDK's start-up):
            # with plain `def` hooks, the host sees `ready` as soon as it
            # would from a script without the SDK (what logs before it sets
            # up logging itself).
            early = hello_before_loop(self, native)
            # Plain `def` handlers' jobs reach their threads from now on,
            # while asyncio loads.
            runner = self._start_runner(native)
            self._ensure_logging()
            import asyncio

            asyncio.run(self._serve_claimed(native, early, runner))
        except KeyboardInterrupt:
            self.log("interrupted")
        except ZotError as e:
            self.log(str(e), _ERROR)
            raise SystemExit(1) from None

    async def serve(self) -> None:
        """Serves the extension over stdin/stdout on the running event loop
        until ``shutdown`` or EOF. Raises :class:`SessionError` when the
        session failed."""
        native = self._start_stdio()
        await self._serve_on(native)

    def _start_stdio(self) -> _native.Engine:
        """Starts the engine on stdin/stdout. It reads the host's pipe on its
        own thread (the one read path) and wakes the session's loop through
        its wake descriptor."""
        try:
            native = _native.Engine.stdio(self.name, self.version)
        except (_native.EngineError, RuntimeError) as e:
            raise SessionError(f"cannot start: {e}") from e
        stdout_follows_descriptor_1()
        return native

    def _claim(self, native: _native.Engine) -> None:
        """Makes ``native`` this extension's session (one at a time), and
        binds the panels registered so far."""
        with self._lock:
            running = self._native is not None
            if not running:
                self._native = native
                for panel_id, panel in self._panels.items():
                    native.bind_panel(panel_id, panel.registration)
        if running:
            native.close()
            raise SessionError(f"extension {self.name!r} is already running")

    async def _serve_on(self, native: _native.Engine) -> None:
        self._claim(native)
        await self._serve_claimed(native, None)

    def _start_runner(self, native: _native.Engine) -> JobRunner:
        """The session's part that needs no loop, its worker threads started
        if any handler runs on them."""
        from ._runner import JobRunner

        runner = JobRunner(self, native)
        with self._lock:
            self._runner = runner
        if self._routes_to_workers():
            runner.workers.start()
        return runner

    async def _serve_claimed(
        self, native: _native.Engine, early: Optional[List[Job]], runner: Optional[JobRunner] = None
    ) -> None:
        """Runs the session; ``early``: the jobs taken before the loop ran
        (``None`` when the handshake is the session's to do)."""
        from ._session import _Session

        try:
            session = _Session(runner or self._start_runner(native), early)
            error = await session.run()
        finally:
            with self._lock:
                self._runner = None
                self._native = None
                self._host = None
                self._announced = False
        if error:
            raise SessionError(error)

    def _running_engine(self) -> Optional[_native.Engine]:
        return self._native

    def _announce(self, native: _native.Engine) -> None:
        """Registers everything with the engine, then announces it."""
        with self._lock:
            commands = list(self._commands.values())
            tools = list(self._tools.values())
            events = list(self._events)
            intercepts = list(self._intercepts)
        routes = self._worker_routes()
        for kind, name in routes:
            native.route_to_workers(kind, name, True)
        runner = self._runner
        if routes and runner is not None:
            runner.workers.start()
        # The engine logs what it refuses (the same line in every SDK).
        native.register_all(
            to_json(
                {
                    "commands": [{"name": c.name, "description": c.description} for c in commands],
                    "tools": [{"spec": to_json(t.frame), "derived": t.derived} for t in tools],
                    "events": events,
                    "intercepts": intercepts,
                }
            )
        )
        # Before `hello_done`: from then on a worker thread may run a handler
        # that registers more, which must reach the engine at once.
        self._announced = True
        try:
            native.hello_done()
        except _native.EngineError as e:
            self.log(f"handshake not completed: {e}", _ERROR)
