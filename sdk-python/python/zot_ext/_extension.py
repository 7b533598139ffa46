"""The :class:`Extension` object (registration and spontaneous actions) and
the dispatcher that runs its handlers for one engine session.

The dispatcher is the Python half of the engine's pull model: it pulls
batches of jobs from the native engine (woken through ``loop.add_reader`` on
the engine's wake descriptor) and answers each job with ``complete`` or
``fail``. It makes no protocol decision: ids, deadlines, cancellation, what
a late or cancelled answer means, ``call_tool`` matching and writing all
happen in the engine.

Concurrency, as the engine's job contract asks:

- commands, tools and interceptors run concurrently: ``async def`` handlers
  as tasks on the SDK's event loop (cancelled with ``task.cancel()``), plain
  ``def`` handlers on a bounded set of reusable worker threads (see
  ``_workers``; or on the loop thread with ``thread=False``), with
  ``ctx.cancelled`` set on cancellation;
- events and panel input run in arrival order, one at a time, each answered
  once its handler returned.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import json
import logging
import os
import sys
import threading
import traceback
from collections import deque
from dataclasses import dataclass, replace
from functools import partial
from typing import (
    Any,
    Awaitable,
    Callable,
    Deque,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    cast,
    overload,
)

from . import _native
from ._context import Ctx, HostInfo, _Waiter
from ._contract import (
    CommandJob,
    CommandOutcome,
    EventJob,
    FinishedJob,
    HelloJob,
    InterceptJob,
    InterceptOutcome,
    Job,
    PanelCloseJob,
    PanelKeyJob,
    PanelResizeJob,
    ToolJob,
    ToolOutcome,
)
from ._errors import ArgumentError, NotRunningError, RegistrationError, SendError, SessionError, ZotError
from ._events import EventRegistration
from ._handlers import HandlerOf
from ._protocol import (
    AssistantMessageIntercept,
    BeforeAgentStartIntercept,
    Exposure,
    NotifyLevel,
    PanelKey,
    PanelResize,
    ToolCallIntercept,
    TurnStartIntercept,
)
from ._results import (
    MessageVerdict,
    PromptVerdict,
    Response,
    ToolCallVerdict,
    ToolOutput,
    TurnVerdict,
    panel_spec,
    to_json,
    verdict_outcome,
)
from ._schema import Converter, converter_for, schema_for
from ._signature import command_description, keyword_tool, name_of, tool_description
from ._workers import DEFAULT_IDLE_TIMEOUT, Workers, default_max_threads

__all__ = ["Extension", "protect_stdout"]

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
PanelF = TypeVar("PanelF", bound=Callable[..., Any])

# How long the end of a session waits for handler threads and tasks that
# already answered to wind down (the engine's shutdown grace came before).
_WIND_DOWN = 0.3


def _positional_arity(fn: Callable[..., Any]) -> int:
    """How many positional arguments ``fn`` accepts (99: ``*args``)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return 99
    n = 0
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            return 99
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
    return n


def _is_async(fn: Callable[..., Any]) -> bool:
    # An instance whose own `__call__` is a coroutine function counts too.
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004


def _first_param_type(fn: Callable[..., Any]) -> Any:
    """The annotation of ``fn``'s first parameter (``None`` if absent)."""
    import typing

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    if not params or params[0].annotation is inspect.Parameter.empty:
        return None
    first = params[0]
    try:
        return typing.get_type_hints(fn, include_extras=True).get(first.name, first.annotation)
    except Exception:
        pass
    if isinstance(first.annotation, str):
        # A postponed annotation naming something get_type_hints cannot see
        # (another parameter's type is unresolvable, or a closure variable).
        try:
            scope = dict(getattr(fn, "__globals__", {}))
            scope.update(inspect.getclosurevars(fn).nonlocals)
            return eval(first.annotation, scope)
        except Exception:
            pass
    return first.annotation


@dataclass
class _Handler:
    fn: Callable[..., Any]
    is_async: bool
    thread: bool
    arity: int

    @classmethod
    def of(cls, fn: Callable[..., Any], thread: bool = True) -> _Handler:
        if not callable(fn):
            raise TypeError(f"handler {fn!r} is not callable")
        return cls(fn, _is_async(fn), thread, _positional_arity(fn))

    def call(self, *args: Any) -> Any:
        return self.fn(*args[: self.arity])


@dataclass
class _Command:
    name: str
    description: str
    handler: _Handler


@dataclass
class _Tool:
    frame: Dict[str, Any]
    handler: _Handler
    convert: Converter


@dataclass(frozen=True)
class _Panel:
    """The handlers of one panel registration. Registering replaces the
    object (never mutates it): input bound to an older registration on
    arrival is then recognised as stale."""

    on_key: Optional[_Handler] = None
    on_close: Optional[_Handler] = None
    on_resize: Optional[_Handler] = None


class _Text:
    """A tool answer of one text block, handed to the engine as text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


# What a command, tool or interceptor job is answered with (the engine's
# contract), or a tool's one text block.
Outcome = Union[CommandOutcome, ToolOutcome, InterceptOutcome, _Text]


def _answer(outcome: Outcome) -> Union[str, _Text]:
    """An outcome as the engine takes it: JSON, or the text itself."""
    return outcome if isinstance(outcome, _Text) else to_json(outcome)


def protect_stdout() -> None:
    """Protects stdout now, before :meth:`Extension.run`: the host's pipe is
    set aside for the engine and from here on descriptor 1 points at stderr,
    so anything printed while the extension loads (its own ``print()`` or a
    library's banner) lands in the log instead of before ``hello``, which the
    host would refuse. ``run()`` does the same anyway; call this right after
    ``import zot_ext`` when something may print before it. Safe to call more
    than once.

    >>> import zot_ext
    >>> zot_ext.protect_stdout()  # doctest: +SKIP
    """
    _native.protect_stdout()
    _stdout_follows_descriptor_1()


def _stdout_follows_descriptor_1() -> None:
    """Called once the engine pointed descriptor 1 at stderr (it keeps the
    wire for itself): what ``print()`` buffered before ``run()`` goes to the
    log now, and later prints reach it line by line, not when the buffer
    fills or at exit (never, if the process ends by the exit watchdog).
    A ``sys.stdout`` that is not descriptor 1 (replaced by the user or a test
    runner) is left alone."""
    out = sys.stdout
    try:
        if out is None or out.fileno() != 1:
            return
        out.flush()
        if isinstance(out, io.TextIOWrapper) and not out.line_buffering:
            out.reconfigure(line_buffering=True)
    except (AttributeError, OSError, ValueError):
        return


def _message(e: BaseException) -> str:
    return str(e) or type(e).__name__


def _log_failure(logger: logging.Logger, what: str, e: BaseException) -> None:
    """One line per failed handler, as the Node and Rust SDKs log it: the
    message, and where a handler's own exception was raised; the traceback
    at DEBUG level (``ext.logger.setLevel(logging.DEBUG)``). Bad arguments
    are the caller's mistake: no location."""
    where = ""
    if not isinstance(e, ArgumentError) and e.__traceback__ is not None:
        last = traceback.extract_tb(e.__traceback__)[-1]
        where = f" ({os.path.basename(last.filename)}:{last.lineno} in {last.name})"
    logger.error("%s: %s%s", what, _message(e), where)
    logger.debug("%s: traceback", what, exc_info=e)


class Extension(EventRegistration):
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
    after ``thread_idle_timeout`` seconds.
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
        self.logger = logging.getLogger(f"zot_ext.{name}")
        self._commands: Dict[str, _Command] = {}
        self._tools: Dict[str, _Tool] = {}
        self._events: Dict[str, _Handler] = {}
        self._intercepts: Dict[str, _Handler] = {}
        self._hello_hooks: List[_Handler] = []
        self._panels: Dict[str, _Panel] = {}
        self._session: Optional[_Session] = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Extension({self.name!r}, {self.version!r})"

    # -- registration -----------------------------------------------------

    def _live(self) -> Optional[_native.Engine]:
        """The engine to register with at once (after the announcement)."""
        s = self._session
        return s.native if s is not None and s.announced else None

    def _register_late(self, what: str, call: Callable[[_native.Engine], None]) -> None:
        native = self._live()
        if native is None:
            return
        try:
            call(native)
        except (_native.EngineError, ValueError) as e:
            raise RegistrationError(f"{what} not registered: {e}") from e

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
        as the error (SDK-16). Registering a name again (compared
        case-insensitively) replaces the command.
        """
        if callable(name):
            return self.command(None, description, thread=thread)(name)

        def register(fn: CommandF) -> CommandF:
            cmd_name = name if name is not None else name_of(fn, "command handler")
            desc = description if description is not None else command_description(fn)
            cmd = _Command(cmd_name, desc, _Handler.of(fn, thread))
            with self._lock:
                self._commands[cmd_name.lower()] = cmd
            self._register_late(f"command {cmd_name!r}", lambda n: n.register_command(cmd_name, desc))
            return fn

        return register if handler is None else register(handler)

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
        cancelled through ``ctx`` (SDK-53).
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
            spec = _Tool(frame, handler_of, convert)
            with self._lock:
                self._tools[tool_name] = spec
            self._register_late(f"tool {tool_name!r}", lambda n: n.register_tool(to_json(frame)))
            return fn

        return register if handler is None else register(handler)

    def _on(self, event: str, handler: Optional[Callable[..., Any]], thread: bool) -> Any:
        # The typed overloads of ``on`` are generated (EventRegistration).
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            with self._lock:
                self._events[event] = _Handler.of(fn, thread)
            self._register_late(f"event {event!r}", lambda n: n.subscribe(event))
            return fn

        return register if handler is None else register(handler)

    def _intercept(self, event: str, fn: Callable[..., Any], thread: bool) -> None:
        with self._lock:
            self._intercepts[event] = _Handler.of(fn, thread)
        self._register_late(f"interceptor {event!r}", lambda n: n.intercept(event))

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

        def register(fn: ToolCallF) -> ToolCallF:
            self._intercept("tool_call", fn, thread)
            return fn

        return register if handler is None else register(handler)

    @overload
    def intercept_turn_start(self, handler: TurnF) -> TurnF: ...

    @overload
    def intercept_turn_start(self, *, thread: bool = True) -> Callable[[TurnF], TurnF]: ...

    def intercept_turn_start(
        self, handler: Optional[TurnF] = None, *, thread: bool = True
    ) -> Union[TurnF, Callable[[TurnF], TurnF]]:
        """Intercepts turn starts (``TurnStartIntercept`` → a
        :class:`TurnVerdict` or ``None``)."""

        def register(fn: TurnF) -> TurnF:
            self._intercept("turn_start", fn, thread)
            return fn

        return register if handler is None else register(handler)

    @overload
    def intercept_assistant_message(self, handler: MessageF) -> MessageF: ...

    @overload
    def intercept_assistant_message(self, *, thread: bool = True) -> Callable[[MessageF], MessageF]: ...

    def intercept_assistant_message(
        self, handler: Optional[MessageF] = None, *, thread: bool = True
    ) -> Union[MessageF, Callable[[MessageF], MessageF]]:
        """Intercepts assistant messages (``AssistantMessageIntercept`` → a
        :class:`MessageVerdict` or ``None``)."""

        def register(fn: MessageF) -> MessageF:
            self._intercept("assistant_message", fn, thread)
            return fn

        return register if handler is None else register(handler)

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

        def register(fn: PromptF) -> PromptF:
            self._intercept("before_agent_start", fn, thread)
            return fn

        return register if handler is None else register(handler)

    def on_hello(self, hook: HelloF) -> HelloF:
        """Runs ``hook(host)`` after ``hello_ack`` and before the
        registrations are announced (SDK-7), on the event loop thread
        (``async def`` allowed); it may register more commands, tools,
        events and interceptors."""
        with self._lock:
            self._hello_hooks.append(_Handler.of(hook, thread=False))
        return hook

    @overload
    def on_panel_key(self, panel_id: str, *, thread: bool = True) -> Callable[[PanelF], PanelF]: ...

    @overload
    def on_panel_key(self, panel_id: str, handler: PanelF, *, thread: bool = True) -> PanelF: ...

    def on_panel_key(
        self, panel_id: str, handler: Optional[PanelF] = None, *, thread: bool = True
    ) -> Union[PanelF, Callable[[PanelF], PanelF]]:
        """Routes ``panel_key`` frames for ``panel_id`` to ``handler(key)``
        (a ``PanelKey`` dict), in arrival order, one at a time, replacing an
        earlier key handler. Keys for panels without a handler are ignored
        (SDK-46)."""

        def register(fn: PanelF) -> PanelF:
            with self._lock:
                self._panels[panel_id] = replace(
                    self._panels.get(panel_id, _Panel()), on_key=_Handler.of(fn, thread)
                )
            return fn

        return register if handler is None else register(handler)

    @overload
    def on_panel_close(self, panel_id: str, *, thread: bool = True) -> Callable[[PanelF], PanelF]: ...

    @overload
    def on_panel_close(self, panel_id: str, handler: PanelF, *, thread: bool = True) -> PanelF: ...

    def on_panel_close(
        self, panel_id: str, handler: Optional[PanelF] = None, *, thread: bool = True
    ) -> Union[PanelF, Callable[[PanelF], PanelF]]:
        """Calls ``handler(panel_id)`` when the host closes ``panel_id``
        (Esc / Ctrl+C); the panel's handlers are forgotten afterwards."""

        def register(fn: PanelF) -> PanelF:
            with self._lock:
                self._panels[panel_id] = replace(
                    self._panels.get(panel_id, _Panel()), on_close=_Handler.of(fn, thread)
                )
            return fn

        return register if handler is None else register(handler)

    @overload
    def on_panel_resize(self, panel_id: str, *, thread: bool = True) -> Callable[[PanelF], PanelF]: ...

    @overload
    def on_panel_resize(self, panel_id: str, handler: PanelF, *, thread: bool = True) -> PanelF: ...

    def on_panel_resize(
        self, panel_id: str, handler: Optional[PanelF] = None, *, thread: bool = True
    ) -> Union[PanelF, Callable[[PanelF], PanelF]]:
        """Routes ``panel_resize`` frames for ``panel_id`` (no stored host
        sends them; OP-14)."""

        def register(fn: PanelF) -> PanelF:
            with self._lock:
                self._panels[panel_id] = replace(
                    self._panels.get(panel_id, _Panel()), on_resize=_Handler.of(fn, thread)
                )
            return fn

        return register if handler is None else register(handler)

    def forget_panel(self, panel_id: str) -> None:
        """Forgets every handler of ``panel_id``."""
        with self._lock:
            self._panels.pop(panel_id, None)

    # -- spontaneous actions ----------------------------------------------

    @property
    def host(self) -> Optional[HostInfo]:
        """The host's ``hello_ack`` while a session runs (after the
        handshake)."""
        s = self._session
        return s.host if s is not None else None

    @property
    def running(self) -> bool:
        """Whether a session is running."""
        return self._session is not None

    def _send(self, frame: Mapping[str, Any]) -> None:
        s = self._session
        if s is None:
            raise NotRunningError("the extension is not running")
        try:
            s.native.send(to_json(frame))
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

    def _ensure_logging(self) -> None:
        """Sends the extension's log lines to stderr as ``[<name>] message``
        unless the application configured logging itself."""
        if self.logger.handlers or logging.getLogger().handlers:
            return
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(f"[{self.name.replace('%', '%%')}] %(message)s"))
        self.logger.addHandler(handler)
        self.logger.setLevel(logging.INFO)
        self.logger.propagate = False

    def log(self, message: str, level: int = logging.INFO) -> None:
        """Logs ``message`` to stderr through :attr:`logger` (stdout is the
        wire)."""
        self._ensure_logging()
        self.logger.log(level, message)

    # -- running ------------------------------------------------------------

    def run(self) -> None:
        """Serves the extension over stdin/stdout until ``shutdown`` or EOF:
        ``asyncio.run(self.serve())``. Ctrl-C ends it cleanly; a failed
        session (e.g. no ``hello_ack``) exits with status 1."""
        self._ensure_logging()
        try:
            asyncio.run(self.serve())
        except KeyboardInterrupt:
            self.logger.info("interrupted")
        except ZotError as e:
            self.logger.error("%s", e)
            raise SystemExit(1) from None

    async def serve(self) -> None:
        """Serves the extension over stdin/stdout on the running event loop
        until ``shutdown`` or EOF. Raises :class:`SessionError` when the
        session failed."""
        try:
            # Once requests flow, the session reads the host's pipe on this
            # event loop and feeds the engine (no thread hand-off per request).
            native = _native.Engine.stdio_fed(self.name, self.version)
        except (_native.EngineError, RuntimeError) as e:
            raise SessionError(f"cannot start: {e}") from e
        _stdout_follows_descriptor_1()
        await self._serve_on(native, fed=True)

    async def _serve_on(self, native: _native.Engine, fed: bool = False) -> None:
        with self._lock:
            running = self._session is not None
            if not running:
                session = _Session(self, native, fed)
                self._session = session
        if running:
            native.close()
            raise SessionError(f"extension {self.name!r} is already running")
        try:
            error = await session.run()
        finally:
            self._session = None
        if error:
            raise SessionError(error)

    def _announce(self, native: _native.Engine) -> None:
        """Registers everything with the engine, then announces it."""
        with self._lock:
            commands = list(self._commands.values())
            tools = list(self._tools.values())
            events = list(self._events)
            intercepts = list(self._intercepts)
        for c in commands:
            self._try_register(f"command {c.name!r}", partial(native.register_command, c.name, c.description))
        for t in tools:
            self._try_register(f"tool {t.frame['name']!r}", partial(native.register_tool, to_json(t.frame)))
        for e in events:
            self._try_register(f"event {e!r}", partial(native.subscribe, e))
        for i in intercepts:
            self._try_register(f"interceptor {i!r}", partial(native.intercept, i))
        try:
            native.hello_done()
        except _native.EngineError as e:
            self.log(f"handshake not completed: {e}", logging.ERROR)

    def _try_register(self, what: str, call: Callable[[], None]) -> None:
        try:
            call()
        except (_native.EngineError, ValueError) as e:
            self.log(f"{what} not registered: {e}", logging.ERROR)


# ---------------------------------------------------------------------------
# The dispatcher

# Events and panel input, in order; panel input carries the registration it
# arrived for (see `_dispatch`).
_SerialJob = Union[EventJob, PanelKeyJob, PanelCloseJob, PanelResizeJob]
_Serial = Tuple[_SerialJob, Optional[_Panel]]


class _Session:
    """One engine session: pulls jobs and runs the extension's handlers."""

    def __init__(self, ext: Extension, native: _native.Engine, fed: bool = False) -> None:
        self.ext = ext
        self.native = native
        # Fed mode: the host's pipe, once taken over from the engine.
        self._fed = fed
        self._wire_asked = False
        self._wire: Optional[int] = None
        self._wire_paused = False
        self._resume_queued = False
        self.loop = asyncio.get_running_loop()
        self.loop_thread = threading.get_ident()
        self.host: Optional[HostInfo] = None
        self.announced = False
        self.tasks: Dict[int, asyncio.Task[None]] = {}
        self.cancels: Dict[int, threading.Event] = {}
        self.workers = Workers(ext.max_threads, ext.thread_idle_timeout)
        self.calls: Dict[int, _Waiter] = {}
        self.calls_lock = threading.Lock()
        # The token of event and panel handlers: set when the session ends.
        self.ending = threading.Event()
        self._batches: Deque[List[Job]] = deque()
        self._wake = asyncio.Event()
        self._serial: Deque[_Serial] = deque()
        self._serial_wake = asyncio.Event()
        self._event_ctx: Optional[Ctx] = None
        self._poller: Optional[threading.Thread] = None
        self._stop_polling = threading.Event()
        self._fd: Optional[int] = None

    # -- pulling jobs -----------------------------------------------------

    def _pull(self) -> None:
        """The wake descriptor is readable: take every queued job."""
        try:
            text = self.native.try_next_jobs()
        except Exception as e:  # the runtime is gone: end the session
            self._push(self._finished(f"engine unavailable: {e}"))
            return
        if text != "[]":
            self._push(self._jobs(text))

    @staticmethod
    def _finished(error: str) -> List[Job]:
        """A batch that ends the session with ``error``."""
        job: FinishedJob = {"kind": "finished", "error": error}
        return [job]

    def _jobs(self, text: str) -> List[Job]:
        """Decodes a batch of jobs from the engine. A batch that does not
        decode (the engine bounds what it hands over, so only a broken
        interpreter state gets here, e.g. a recursion limit set far below
        the default) would lose its requests without a word: the session
        ends instead, with an error that says why (the process exits 1)."""
        try:
            return cast(List[Job], json.loads(text))
        except Exception as e:
            message = (
                f"a batch of {len(text)} bytes of jobs from the engine could not be decoded "
                f"({type(e).__name__}: {e}); its requests cannot be answered, ending the session"
            )
        try:
            self.native.close()
        except Exception:  # already closed, or the runtime is gone
            pass
        return self._finished(message)

    def _push(self, batch: List[Job]) -> None:
        self._batches.append(batch)
        self._wake.set()

    def _poll(self) -> None:
        """Fallback for event loops without ``add_reader``: a thread waits
        for jobs with the GIL released."""
        while not self._stop_polling.is_set():
            try:
                text = self.native.next_jobs(0.25)
            except Exception as e:
                batch = self._finished(f"engine unavailable: {e}")
            else:
                if text == "[]":
                    continue
                batch = self._jobs(text)
            try:
                self.loop.call_soon_threadsafe(self._push, batch)
            except RuntimeError:  # the loop is closed
                return
            if any(j["kind"] == "finished" for j in batch):
                return

    def _attach(self) -> None:
        try:
            fd = self.native.wake_fd()
            self.loop.add_reader(fd, self._pull)
            self._fd = fd
        except (NotImplementedError, _native.EngineError):
            self._poller = threading.Thread(target=self._poll, name="zot-ext-poll", daemon=True)
            self._poller.start()
            return
        self._pull()

    # -- reading the host's pipe here (fed mode) -------------------------

    def _take_wire(self) -> None:
        """After the first requests: read the host's pipe on this loop."""
        if self.ending.is_set() or self._wire is not None:
            return
        try:
            fd = self.native.take_wire_fd()
        except (_native.EngineError, RuntimeError):
            return
        if fd is None:
            return  # not a pipe: the engine reads on
        self._wire = fd
        self.loop.add_reader(fd, self._read_wire)

    def _read_wire(self) -> None:
        fd = self._wire
        if fd is None:
            return
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError as e:
            self._fed_out(self.native.feed_end(str(e)))
            return
        self._fed_out(self.native.feed(data) if data else self.native.feed_end(None))

    def _fed_out(self, out: Tuple[str, bool, bool]) -> None:
        jobs, paused, ended = out
        fd = self._wire
        if fd is not None:
            if ended:
                self._close_wire()
            elif paused != self._wire_paused:
                # Held for the on-hello hook or a full event backlog; an
                # empty feed says when to go on (`resume_feed`).
                self._wire_paused = paused
                if paused:
                    self.loop.remove_reader(fd)
                else:
                    self.loop.add_reader(fd, self._read_wire)
        if jobs != "[]":
            self._push(self._jobs(jobs))

    def resume_feed(self) -> None:
        """Goes on reading after a pause, once its cause may be gone (any
        thread; runs on the loop, never inside a handler's call)."""
        if not self._wire_paused or self._resume_queued:
            return
        self._resume_queued = True

        def resume() -> None:
            self._resume_queued = False
            if self._wire_paused and self._wire is not None:
                try:
                    self._fed_out(self.native.feed(b""))
                except (_native.EngineError, RuntimeError):
                    pass

        try:
            self.loop.call_soon_threadsafe(resume)
        except RuntimeError:  # the loop is closed
            pass

    def _close_wire(self) -> None:
        fd, self._wire = self._wire, None
        if fd is not None:
            self.loop.remove_reader(fd)
            os.close(fd)

    def _detach(self) -> None:
        self._close_wire()
        if self._fd is not None:
            self.loop.remove_reader(self._fd)
            self._fd = None
        if self._poller is not None:
            self._stop_polling.set()
            self._poller.join(1.0)

    async def run(self) -> Optional[str]:
        """Runs the session; returns the engine's error, if it failed."""
        self._attach()
        serial = self.loop.create_task(self._serial_loop())
        try:
            while True:
                if not self._batches:
                    await self._wake.wait()
                    self._wake.clear()
                while self._batches:
                    for job in self._batches.popleft():
                        if job["kind"] == "finished":
                            return job.get("error") or None
                        if job["kind"] == "hello":
                            await self._hello(job)
                        else:
                            self._dispatch(job)
                            if self._fed and not self._wire_asked:
                                # The first requests came through the
                                # engine's reader: take the pipe over after
                                # them (off the start-up path).
                                self._wire_asked = True
                                self.loop.call_soon(self._take_wire)
        except asyncio.CancelledError:
            # Ctrl-C or the application cancelled serve(): end the session
            # from our side (the engine cancels every job).
            try:
                self.native.close()
            except RuntimeError:
                pass
            raise
        finally:
            self._detach()
            await self._wind_down(serial)

    async def _wind_down(self, serial: asyncio.Task[None]) -> None:
        """After the end: stop what is left (every job was answered or
        abandoned by the engine's grace), without leaving threads behind."""
        self.ending.set()
        for ev in list(self.cancels.values()):
            ev.set()
        serial.cancel()
        pending: List[asyncio.Task[None]] = [serial, *self.tasks.values()]
        for t in pending:
            t.cancel()
        await asyncio.wait(pending, timeout=_WIND_DOWN)
        with self.calls_lock:
            waiters = list(self.calls.items())
            self.calls.clear()
        for call, w in waiters:
            w.resolve(
                {"kind": "call_result", "call": call, "error": "the session ended", "error_kind": "closed"}
            )
        # Handlers that ignore cancellation keep running in daemon threads;
        # they cannot keep the process alive.
        self.workers.wait_idle(_WIND_DOWN)
        self.workers.close(_WIND_DOWN)

    # -- dispatching ------------------------------------------------------

    async def _hello(self, job: HelloJob) -> None:
        host = HostInfo.from_ack(job["hello_ack"])
        self.host = host
        for hook in list(self.ext._hello_hooks):
            try:
                r = hook.call(host)
                if inspect.isawaitable(r):
                    await r
            except Exception:
                self.ext.logger.exception("on_hello hook failed")
        self.ext._announce(self.native)
        self.announced = True

    def _dispatch(self, job: Job) -> None:
        if job["kind"] == "command":
            self._command(job)
        elif job["kind"] == "tool":
            self._tool(job)
        elif job["kind"] == "intercept":
            self._interception(job)
        elif job["kind"] == "event":
            self._queue_serial(job, None)
        elif job["kind"] in ("panel_key", "panel_close", "panel_resize"):
            # Panel input is bound, on arrival, to the registration it is
            # for: a command that reopens the same panel id after this frame
            # arrived must neither receive it nor lose its fresh
            # registration to an older close.
            panel_job = cast(Union[PanelKeyJob, PanelCloseJob, PanelResizeJob], job)
            with self.ext._lock:
                target = self.ext._panels.get(panel_job["panel_id"])
            self._queue_serial(panel_job, target)
        elif job["kind"] == "cancel":
            self._cancel(job["id"])
        elif job["kind"] == "call_result":
            with self.calls_lock:
                waiter = self.calls.pop(job["call"], None)
            if waiter is not None:
                waiter.resolve(job)
        elif job["kind"] == "shutdown":
            self.ending.set()

    def _queue_serial(self, job: _SerialJob, panel: Optional[_Panel]) -> None:
        self._serial.append((job, panel))
        self._serial_wake.set()

    def _command(self, job: CommandJob) -> None:
        job_id, name = job["id"], job["name"]
        cmd = self.ext._commands.get(name.lower())
        if cmd is None:
            self._fail(job_id, f"no handler for /{name}")
            return
        args = job["args"]
        self._start(
            job_id,
            job["invocation"],
            cmd.handler,
            lambda: args,
            lambda value: Response.of(value).outcome(),
            f"command /{name}",
        )

    def _tool(self, job: ToolJob) -> None:
        job_id, name = job["id"], job["name"]
        tool = self.ext._tools.get(name)
        if tool is None:
            self._fail(job_id, f"no handler for tool {json.dumps(name)}")
            return
        raw = job["args"]

        def args() -> Any:
            return tool.convert(raw)

        def outcome(value: Any) -> Outcome:
            out = ToolOutput.of(value)
            text = out._only_text()
            return _Text(text) if text is not None else out.outcome()

        self._start(job_id, job["invocation"], tool.handler, args, outcome, f"tool {name}")

    def _interception(self, job: InterceptJob) -> None:
        job_id, event = job["id"], job["name"]
        handler = self.ext._intercepts.get(event)
        if handler is None:
            self._complete(job_id, "{}", f"{event} interceptor")
            return
        request = job["request"]

        def outcome(value: Any) -> Outcome:
            return verdict_outcome(event, value)

        self._start(
            job_id,
            request["id"],
            handler,
            lambda: request,
            outcome,
            f"{event} interceptor",
            urgent=True,
        )

    def _start(
        self,
        job_id: int,
        invocation: str,
        handler: _Handler,
        args: Callable[[], Any],
        outcome: Callable[[Any], Outcome],
        what: str,
        urgent: bool = False,
    ) -> None:
        cancelled = threading.Event()
        self.cancels[job_id] = cancelled
        ctx = Ctx(self, job_id, invocation, cancelled)
        if handler.is_async:
            self.tasks[job_id] = self.loop.create_task(
                self._run_async(job_id, handler, args, outcome, ctx, what)
            )
        elif handler.thread:
            self._spawn(
                lambda: self._run_sync(job_id, handler, args, outcome, ctx, what),
                what,
                key=job_id,
                urgent=urgent,
            )
        else:
            self._run_sync(job_id, handler, args, outcome, ctx, what)

    def _cancel(self, job_id: int) -> None:
        ev = self.cancels.get(job_id)
        if ev is not None:
            ev.set()
        if self.workers.withdraw(job_id):
            # Still queued for a thread: answered now, never started.
            self.cancels.pop(job_id, None)
            self._fail(job_id, "cancelled")
            return
        if job_id in self.tasks:
            # Scheduled, not immediate: a task cancelled in the batch that
            # started it still runs up to its first `await` and then gets
            # CancelledError, so its handler always sees the cancellation.
            self.loop.call_soon(self._cancel_task, job_id)

    def _cancel_task(self, job_id: int) -> None:
        task = self.tasks.get(job_id)
        if task is not None:
            task.cancel()

    async def _run_async(
        self,
        job_id: int,
        handler: _Handler,
        args: Callable[[], Any],
        outcome: Callable[[Any], Outcome],
        ctx: Ctx,
        what: str,
    ) -> None:
        try:
            try:
                result = handler.call(args(), ctx)
                if inspect.isawaitable(result):
                    result = await result
                answer = _answer(outcome(result))
            except asyncio.CancelledError:
                self._fail(job_id, "cancelled")
                return
            except Exception as e:
                self._failed(job_id, what, e, ctx)
                return
            except BaseException as e:
                self._fail(job_id, _message(e))
                raise
            self._complete(job_id, answer, what)
        finally:
            self.tasks.pop(job_id, None)
            self.cancels.pop(job_id, None)

    def _run_sync(
        self,
        job_id: int,
        handler: _Handler,
        args: Callable[[], Any],
        outcome: Callable[[Any], Outcome],
        ctx: Ctx,
        what: str,
    ) -> None:
        try:
            try:
                result = handler.call(args(), ctx)
                if inspect.isawaitable(result):
                    result = self._await_from_thread(result)
                answer = _answer(outcome(result))
            except Exception as e:
                self._failed(job_id, what, e, ctx)
                return
            except BaseException as e:
                self._fail(job_id, _message(e))
                raise
            self._complete(job_id, answer, what)
        finally:
            # Straight from the worker: a dict pop is atomic under the GIL,
            # and scheduling it on the loop cost a loop wake-up per call.
            self.cancels.pop(job_id, None)

    def _await_from_thread(self, awaitable: Awaitable[Any]) -> Any:
        if threading.get_ident() == self.loop_thread:
            raise TypeError("a thread=False handler returned an awaitable; declare it `async def`")

        async def wait() -> Any:
            return await awaitable

        return asyncio.run_coroutine_threadsafe(wait(), self.loop).result()

    def _on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        if threading.get_ident() == self.loop_thread:
            fn(*args)
            return
        try:
            self.loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop is closed
            pass

    def _spawn(
        self, target: Callable[[], None], what: str, key: Optional[int] = None, urgent: bool = False
    ) -> None:
        def run() -> None:
            try:
                target()
            except BaseException:  # pragma: no cover - _run_sync answers first
                self.ext.logger.exception("%s: handler thread failed", what)

        self.workers.submit(run, f"zot-ext {what}", key, urgent)

    def _in_thread(self, fn: Callable[[], Any], what: str) -> asyncio.Future[Any]:
        """Runs ``fn`` in a worker thread; the future resolves on the loop."""
        future: asyncio.Future[Any] = self.loop.create_future()

        def settle(ok: bool, value: Any) -> None:
            if future.done():
                return
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

        def target() -> None:
            try:
                value = fn()
            except BaseException as e:
                self._on_loop(settle, False, e)
            else:
                self._on_loop(settle, True, value)

        self._spawn(target, what)
        return future

    def _complete(self, job_id: int, answer: Union[str, _Text], what: str) -> None:
        try:
            if isinstance(answer, _Text):
                self.native.complete_text(job_id, answer.text)
            else:
                self.native.complete(job_id, answer)
        except _native.EngineError as e:
            self.ext.log(f"{what}: {e}", logging.WARNING)
        except RuntimeError:  # the runtime is gone (interpreter exiting)
            pass

    def _fail(self, job_id: int, message: str) -> None:
        try:
            self.native.fail(job_id, message)
        except (_native.EngineError, RuntimeError):
            pass

    def _failed(self, job_id: int, what: str, e: Exception, ctx: Ctx) -> None:
        if not ctx.cancelled.is_set():
            self.ext._ensure_logging()
            _log_failure(self.ext.logger, f"{what} failed", e)
        self._fail(job_id, _message(e))

    # -- events and panel input, in order ---------------------------------

    async def _serial_loop(self) -> None:
        # Jobs whose handlers returned are answered together, in one native
        # call per run of them (before waiting for more, and at most every
        # 256 jobs so that the engine's read-ahead bound keeps moving).
        done: List[int] = []
        try:
            while True:
                while not self._serial:
                    if done:
                        self._complete_serial(done)
                        done = []
                    await self._serial_wake.wait()
                    self._serial_wake.clear()
                job, panel = self._serial.popleft()
                if await self._run_serial(job, panel):
                    done.append(job["id"])
                    if len(done) >= 256:
                        self._complete_serial(done)
                        done = []
        finally:
            if done:
                self._complete_serial(done)

    def _complete_serial(self, jobs: List[int]) -> None:
        try:
            self.native.complete_serial(jobs)
        except _native.EngineError as e:
            self.ext.log(f"event handlers: {e}", logging.WARNING)
        except RuntimeError:  # the runtime is gone (interpreter exiting)
            pass
        # Reading may have paused for the event backlog.
        self.resume_feed()

    async def _run_serial(self, job: _SerialJob, panel: Optional[_Panel]) -> bool:
        """Runs one event or panel job (panel input goes to ``panel``, the
        registration it arrived for); ``True`` when it is to be answered as
        done (a failure is answered here)."""
        job_id = job["id"]
        what: str = job["kind"]
        try:
            if job["kind"] == "event":
                what = f"event {job['name']}"
                handler = self.ext._events.get(job["name"])
                if handler is not None:
                    # The engine hands events over with their `type`; one
                    # context serves every event (no job, the session's
                    # cancellation).
                    if self._event_ctx is None:
                        self._event_ctx = Ctx(self, None, "", self.ending)
                    await self._call_serial(handler, what, job["event"], self._event_ctx)
            elif job["kind"] == "panel_close":
                panel_id = job["panel_id"]
                what = f"panel {panel_id} close"
                # Unregister only the registration the close arrived for: a
                # panel reopened meanwhile under the same id stays.
                with self.ext._lock:
                    if panel is not None and self.ext._panels.get(panel_id) is panel:
                        del self.ext._panels[panel_id]
                if panel is not None and panel.on_close is not None:
                    await self._call_serial(panel.on_close, what, panel_id)
            else:
                panel_id = job["panel_id"]
                what = f"panel {panel_id} {job['kind'][6:]}"
                # Input goes to the registration it arrived for, and only
                # while that registration is still active (close_panel may
                # have ended it since).
                with self.ext._lock:
                    if self.ext._panels.get(panel_id) is not panel:
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
                        await self._call_serial(panel.on_key, what, key)
                elif panel.on_resize is not None:
                    resize: PanelResize = {
                        "type": "panel_resize",
                        "panel_id": panel_id,
                        "width": job["width"],
                        "height": job["height"],
                    }
                    await self._call_serial(panel.on_resize, what, resize)
        except asyncio.CancelledError:
            self._fail(job_id, "cancelled")
            raise
        except Exception as e:
            self.ext._ensure_logging()
            _log_failure(self.ext.logger, f"{what} handler failed", e)
            self._fail(job_id, _message(e))  # the engine logs it too (SDK-36)
            return False
        return True

    async def _call_serial(self, handler: _Handler, what: str, *args: Any) -> None:
        if handler.is_async:
            await handler.call(*args)
        elif handler.thread:
            result = await self._in_thread(lambda: handler.call(*args), what)
            if inspect.isawaitable(result):
                await result
        else:
            result = handler.call(*args)
            if inspect.isawaitable(result):
                await result
