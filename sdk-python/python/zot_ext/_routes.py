"""How a job reaches its handler. A command, tool or interceptor job comes
back as an answer through one :class:`Route` per registration, made once
and kept while the registration stands, so that a call makes no closures of
its own; panel input runs the handler :meth:`Routes.panel` gives (none
for stale input)."""

from __future__ import annotations

from ._answers import command_answer, intercept_answer, text_answer, tool_answer
from ._errors import failure_message, typed_failure_message
from ._results import Response, ToolOutput, verdict_outcome

# The types only for type checkers (see `_answers`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Optional, Tuple, Union

    from ._contract import (
        Answer,
        CommandJob,
        EventJob,
        InterceptJob,
        PanelCloseJob,
        PanelKeyJob,
        PanelResizeJob,
        ToolJob,
    )
    from ._extension import Extension
    from ._protocol import PanelKey, PanelResize
    from ._registry import _Command, _Handler, _Panel, _Tool

    PanelJob = Union[PanelKeyJob, PanelCloseJob, PanelResizeJob]
    SerialJob = Union[EventJob, PanelJob]

__all__ = ["Route", "Routes", "serial_what"]


def serial_what(job: SerialJob) -> str:
    """What logs call an event or panel job's handler."""
    if job["kind"] == "event":
        return f"event {job['name']}"
    return f"panel {job['panel_id']} {job['kind'][6:]}"


def _same(raw: Any) -> Any:
    return raw


class Route:
    """One registration's handler, how the job's input becomes the
    handler's argument, how its result becomes the answer, and what logs
    and thread dumps call it."""

    __slots__ = ("convert", "handler", "source", "thread_name", "urgent", "what")

    def __init__(
        self,
        source: object,
        handler: _Handler,
        what: str,
        urgent: bool = False,
        convert: Callable[[Any], Any] = _same,
    ) -> None:
        # The registration this route was made from: a route is remade when
        # the name is registered again.
        self.source = source
        self.handler = handler
        self.what = what
        self.thread_name = f"zot-ext {what}"
        # Interceptors: the host allows the event once its verdict is late.
        self.urgent = urgent
        #: The handler's argument from the job's input (a tool's converter
        #: itself: no call in between).
        self.convert = convert

    def answer(self, job: int, value: Any) -> Answer:
        """The handler's result as the engine's answer (raises when it
        does not convert)."""
        raise NotImplementedError

    def failure(self, e: Exception) -> str:
        """What the answer of a handler that raised ``e`` says."""
        return failure_message(e)


class _CommandRoute(Route):
    __slots__ = ()

    def answer(self, job: int, value: Any) -> Answer:
        return command_answer(job, Response.of(value).outcome())


class _ToolRoute(Route):
    __slots__ = ()

    def __init__(self, tool: _Tool, name: str) -> None:
        super().__init__(tool, tool.handler, f"tool {name}", convert=tool.convert)

    def answer(self, job: int, value: Any) -> Answer:
        if type(value) is str:
            return text_answer(job, value)
        out = ToolOutput.of(value)
        text = out._only_text()
        return text_answer(job, text) if text is not None else tool_answer(job, out.outcome())


class _InterceptRoute(Route):
    __slots__ = ("_event",)

    def __init__(self, handler: _Handler, event: str) -> None:
        super().__init__(handler, handler, f"{event} interceptor", urgent=True)
        self._event = event

    def answer(self, job: int, value: Any) -> Answer:
        return intercept_answer(job, verdict_outcome(self._event, value))

    def failure(self, e: Exception) -> str:
        # The verdict's reason (the engine adds the verdict and who failed):
        # the exception's type says what.
        return typed_failure_message(e)


class Routes:
    """The routes of one extension's registrations, made on first use.

    The engine hands out only jobs for names registered from this
    extension, and answers the others itself."""

    def __init__(self, ext: Extension) -> None:
        self._ext = ext
        self._commands: Dict[str, Route] = {}
        self._tools: Dict[str, Route] = {}
        self._interceptors: Dict[str, Route] = {}

    def of(self, job: Union[CommandJob, ToolJob, InterceptJob]) -> Tuple[Route, str, Any]:
        """The route of a command, tool or interceptor job, the invocation
        id its context carries, and the handler's input."""
        route = self.route(job["kind"], job["name"])
        # `job["kind"]` again: mypy narrows the job's type only so.
        if job["kind"] == "intercept":
            request = job["request"]
            return route, request["id"], request
        return route, job["invocation"], job["args"]

    def route(self, kind: str, name: str) -> Route:
        """The route of a ``command``, ``tool`` or ``intercept`` job by its
        registration's name (an interception's: its event's)."""
        if kind == "tool":
            return self.tool(name)
        if kind == "command":
            return self.command(name)
        return self.interceptor(name)

    def command(self, name: str) -> Route:
        cmd: _Command = self._ext._commands[name.lower()]
        route = self._commands.get(name)
        if route is None or route.source is not cmd:
            route = self._commands[name] = _CommandRoute(cmd, cmd.handler, f"command /{name}")
        return route

    def tool(self, name: str) -> Route:
        tool: _Tool = self._ext._tools[name]
        route = self._tools.get(name)
        if route is None or route.source is not tool:
            route = self._tools[name] = _ToolRoute(tool, name)
        return route

    def interceptor(self, event: str) -> Route:
        handler = self._ext._intercepts[event]
        route = self._interceptors.get(event)
        if route is None or route.source is not handler:
            route = self._interceptors[event] = _InterceptRoute(handler, event)
        return route

    def panel(self, job: PanelJob) -> Tuple[Optional[_Handler], Any]:
        """The handler panel input runs and its argument; no handler for
        stale input or an input the panel has no handler for."""
        panel = self._current(job)
        if panel is None:
            return None, None
        panel_id = job["panel_id"]
        if job["kind"] == "panel_close":
            return panel.on_close, panel_id
        if job["kind"] == "panel_key":
            key: PanelKey = {
                "type": "panel_key",
                "panel_id": panel_id,
                "key": job["key"],
                "text": job.get("text", ""),
            }
            return panel.on_key, key
        resize: PanelResize = {
            "type": "panel_resize",
            "panel_id": panel_id,
            "width": job["width"],
            "height": job["height"],
        }
        return panel.on_resize, resize

    def _current(self, job: PanelJob) -> Optional[_Panel]:
        """The handlers panel input is for: the registration the engine bound
        it to when it arrived, while that is still the panel's current one
        (replaced, forgotten or closed since: the input is stale). A close
        forgets them (the engine unbound the panel when the close arrived; a
        panel reopened since under the same id has a newer registration)."""
        ext = self._ext
        with ext._lock:
            panel = ext._panels.get(job["panel_id"])
            if panel is None or panel.registration != job["registration"]:
                return None
            if job["kind"] == "panel_close":
                del ext._panels[job["panel_id"]]
            return panel
