"""What handlers return: tool outputs, command responses and interception
verdicts (the Python forms of the Rust SDK's ``ToolOutput``, ``Response``
and verdict types).

They only build the outcome the engine expects (the wire fields without
``id``); the engine normalizes and validates it (e.g. an invalid
``tool_prompt`` becomes an error response, SDK-18).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import CoroutineType

from ._introspect import is_awaitable as _is_awaitable
from ._introspect import is_dataclass_instance

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Iterable, List, Optional, Sequence, Union, cast

    from ._contract import CommandOutcome, InterceptOutcome, ToolOutcome
    from ._protocol import ContentBlock, ImageBlock, PanelSpec, TextBlock
else:

    def cast(_type: object, value: object) -> object:
        """:func:`typing.cast` at run time: the value itself."""
        return value


__all__ = [
    "ToolOutput",
    "Response",
    "ToolCallVerdict",
    "TurnVerdict",
    "MessageVerdict",
    "PromptVerdict",
    "text_block",
    "image_block",
    "to_json",
    "jsonable",
    "is_awaitable",
]


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: dataclasses and pydantic models become
    dicts; everything else is returned as is."""
    if is_dataclass_instance(value):
        import dataclasses  # loaded already: the value's class is one

        return dataclasses.asdict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return dump(mode="json")
    return value


def to_json(value: Any) -> str:
    """Compact JSON, non-ASCII kept as is: the same bytes ``serde_json``
    writes for the same value (so SDKs in every language emit identical
    frames)."""
    return json.dumps(jsonable(value), separators=(",", ":"), ensure_ascii=False)


def text_block(text: str) -> TextBlock:
    """A text content block."""
    return {"type": "text", "text": text}


def image_block(mime_type: str, data: bytes) -> ImageBlock:
    """An image content block from raw bytes (base64-encoded here)."""
    import base64  # only for images: not at start-up

    return {
        "type": "image",
        "mime_type": mime_type,
        "data": base64.b64encode(data).decode("ascii"),
    }


_UNSET: Any = object()


class ToolOutput:
    """The result of a tool handler: model-facing content blocks, plus
    optional structured content and deferred tools to activate.

    >>> ToolOutput.text("sum=3").with_structured({"sum": 3}).activate("lazy").outcome()
    {'content': [{'type': 'text', 'text': 'sum=3'}], 'activate_tools': ['lazy'], 'structured_content': {'sum': 3}}

    A tool handler may also return a ``str`` (one text block), a list of
    content blocks, a ``dict`` / dataclass / pydantic model (structured
    content plus its JSON text, see :meth:`structured`) or ``None`` (no
    content).
    """

    __slots__ = ("activate_tools", "content", "is_error", "structured_content")

    def __init__(
        self,
        content: Optional[Iterable[ContentBlock]] = None,
        *,
        is_error: bool = False,
        activate_tools: Optional[Iterable[str]] = None,
        structured_content: Any = _UNSET,
    ) -> None:
        self.content: List[ContentBlock] = list(content or [])
        self.is_error = is_error
        self.activate_tools: List[str] = list(activate_tools or [])
        self.structured_content: Any = structured_content

    @classmethod
    def text(cls, text: str) -> ToolOutput:
        """One text block."""
        return cls([text_block(text)])

    def _only_text(self) -> Optional[str]:
        """The text when this is one text block and nothing else (the
        common result, answered without a JSON round trip)."""
        if (
            len(self.content) == 1
            and not self.is_error
            and not self.activate_tools
            and self.structured_content is _UNSET
        ):
            block = self.content[0]
            if block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    return text
        return None

    @classmethod
    def error(cls, message: str) -> ToolOutput:
        """An error result (``is_error``) with one text block."""
        return cls([text_block(message)], is_error=True)

    @classmethod
    def blocks(cls, content: Iterable[ContentBlock]) -> ToolOutput:
        """Any content blocks."""
        return cls(content)

    @classmethod
    def image_bytes(cls, mime_type: str, data: bytes) -> ToolOutput:
        """One image block from raw bytes."""
        return cls([image_block(mime_type, data)])

    @classmethod
    def structured(cls, value: Any) -> ToolOutput:
        """Content = the compact JSON text of ``value``, and
        ``structured_content`` = ``value`` (for tools declaring an
        ``output_schema``; the text keeps clients that ignore structured
        content informed)."""
        data = jsonable(value)
        out = cls.text(to_json(data))
        out.structured_content = data
        return out

    def with_text(self, text: str) -> ToolOutput:
        """Adds a text block."""
        self.content.append(text_block(text))
        return self

    def with_image_bytes(self, mime_type: str, data: bytes) -> ToolOutput:
        """Adds an image block from raw bytes."""
        self.content.append(image_block(mime_type, data))
        return self

    def with_structured(self, value: Any) -> ToolOutput:
        """Sets ``structured_content`` (content blocks unchanged)."""
        self.structured_content = jsonable(value)
        return self

    def activate(self, *tools: str) -> ToolOutput:
        """Names registered deferred tools to activate after this result."""
        self.activate_tools.extend(tools)
        return self

    def with_error(self, is_error: bool = True) -> ToolOutput:
        """Marks the result as an error (or not)."""
        self.is_error = is_error
        return self

    def outcome(self) -> ToolOutcome:
        """The engine outcome (the ``tool_result`` fields without ``id``)."""
        out: ToolOutcome = {"content": self.content}
        if self.is_error:
            out["is_error"] = True
        if self.activate_tools:
            out["activate_tools"] = self.activate_tools
        if self.structured_content is not _UNSET:
            out["structured_content"] = self.structured_content
        return out

    def __repr__(self) -> str:
        return f"ToolOutput({self.outcome()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolOutput) and self.outcome() == other.outcome()

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def of(cls, value: Any) -> ToolOutput:
        """Converts what a tool handler returned (see the class doc)."""
        if isinstance(value, ToolOutput):
            return value
        if value is None:
            return cls()
        if isinstance(value, str):
            return cls.text(value)
        if isinstance(value, (list, tuple)):
            return cls.blocks(value)
        if isinstance(value, Mapping) or jsonable(value) is not value:
            return cls.structured(dict(value) if isinstance(value, Mapping) else value)
        raise TypeError(
            f"a tool handler returned {type(value).__name__}; return a ToolOutput, "
            "a str, a list of content blocks, a dict or None"
        )


class Response:
    """The response of a command handler (``command_response``, §10.2).

    A command handler may also return a ``str`` (shown with ``display``) or
    ``None`` (``noop``).
    """

    __slots__ = ("_outcome",)

    def __init__(self, action: str = "noop", **fields: Any) -> None:
        self._outcome: Dict[str, Any] = {"action": action, **fields}

    @classmethod
    def prompt(cls, prompt: str) -> Response:
        """Sends ``prompt`` to the agent as a user message."""
        return cls("prompt", prompt=prompt)

    @classmethod
    def tool_prompt(cls, tool_name: str, args: Mapping[str, Any], prompt: str) -> Response:
        """Runs ``tool_name`` with ``args`` first, then submits ``prompt``
        (§10.3). The engine sends an error response instead when the name or
        the prompt is empty or the arguments are not an object (SDK-18)."""
        return cls("tool_prompt", prompt=prompt, tool_name=tool_name, tool_args=jsonable(args))

    @classmethod
    def insert(cls, text: str) -> Response:
        """Puts ``text`` into the editor."""
        return cls("insert", insert=text)

    @classmethod
    def display(cls, text: str) -> Response:
        """Shows ``text`` once as a note."""
        return cls("display", display=text)

    @classmethod
    def open_panel(
        cls,
        panel_id: str,
        *,
        title: str = "",
        lines: Sequence[str] = (),
        footer: str = "",
    ) -> Response:
        """Opens a panel (route its keys with ``Extension.on_panel_key``)."""
        return cls("open_panel", open_panel=panel_spec(panel_id, title, lines, footer))

    @classmethod
    def noop(cls) -> Response:
        """Does nothing (the handler did its work itself)."""
        return cls("noop")

    @classmethod
    def error(cls, message: str) -> Response:
        """A ``noop`` with an error shown to the user."""
        return cls("noop", error=message)

    def outcome(self) -> CommandOutcome:
        """The engine outcome (the ``command_response`` fields without
        ``id``)."""
        # The constructor takes any fields (public since the first release);
        # the engine checks them (SDK-17, SDK-18).
        return cast("CommandOutcome", self._outcome)

    def __repr__(self) -> str:
        return f"Response({self._outcome!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Response) and self._outcome == other._outcome

    __hash__ = None  # type: ignore[assignment]

    @classmethod
    def of(cls, value: Any) -> Response:
        """Converts what a command handler returned."""
        if isinstance(value, Response):
            return value
        if value is None:
            return cls.noop()
        if isinstance(value, str):
            return cls.display(value)
        raise TypeError(
            f"a command handler returned {type(value).__name__}; return a Response, a str or None"
        )


def panel_spec(panel_id: str, title: str, lines: Sequence[str], footer: str) -> PanelSpec:
    """A ``PanelSpec`` without its empty optional fields."""
    spec: PanelSpec = {"id": panel_id}
    if title:
        spec["title"] = title
    if lines:
        spec["lines"] = list(lines)
    if footer:
        spec["footer"] = footer
    return spec


class _Verdict:
    __slots__ = ("_outcome",)

    def __init__(self, **outcome: Any) -> None:
        self._outcome: Dict[str, Any] = outcome

    def outcome(self) -> InterceptOutcome:
        """The engine outcome (the ``event_intercept_response`` fields
        without ``id``)."""
        # Built by the verdicts' own constructors, with the contract's names.
        return cast("InterceptOutcome", self._outcome)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._outcome!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._outcome == other._outcome  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]


class ToolCallVerdict(_Verdict):
    """The verdict of a ``tool_call`` interceptor (§11.2). Returning ``None``
    allows the call."""

    @classmethod
    def allow(cls) -> ToolCallVerdict:
        """Let the call run unchanged."""
        return cls()

    @classmethod
    def block(cls, reason: str) -> ToolCallVerdict:
        """Refuse the call; the reason is the model's error text."""
        return cls(block=True, reason=reason)

    @classmethod
    def modify(cls, args: Mapping[str, Any]) -> ToolCallVerdict:
        """Run the call with these arguments (a JSON object)."""
        return cls(modified_args=jsonable(args))


class TurnVerdict(_Verdict):
    """The verdict of a ``turn_start`` interceptor (§11.3)."""

    @classmethod
    def allow(cls) -> TurnVerdict:
        """Let the turn start."""
        return cls()

    @classmethod
    def block(cls, reason: str) -> TurnVerdict:
        """Stop the turn; the user sees the reason."""
        return cls(block=True, reason=reason)


class MessageVerdict(_Verdict):
    """The verdict of an ``assistant_message`` interceptor (§11.4)."""

    @classmethod
    def allow(cls) -> MessageVerdict:
        """Show the message unchanged."""
        return cls()

    @classmethod
    def block(cls, reason: str) -> MessageVerdict:
        """Hide the message from the user."""
        return cls(block=True, reason=reason)

    @classmethod
    def replace(cls, text: str) -> MessageVerdict:
        """Show this text instead (an empty or unchanged text is no
        change)."""
        return cls(replace_text=text)


class PromptVerdict(_Verdict):
    """The verdict of a ``before_agent_start`` hook (§11.5). Returning
    ``None`` keeps the prompt; returning a ``str`` replaces it."""

    @classmethod
    def keep(cls) -> PromptVerdict:
        """Keep the current prompt (the field is omitted)."""
        return cls()

    @classmethod
    def replace(cls, prompt: str) -> PromptVerdict:
        """Use exactly this prompt (``""`` removes it)."""
        return cls(system_prompt=prompt)

    @classmethod
    def remove(cls) -> PromptVerdict:
        """Remove the system prompt (``replace("")``)."""
        return cls(system_prompt="")


if TYPE_CHECKING:
    Verdict = Union[ToolCallVerdict, TurnVerdict, MessageVerdict, PromptVerdict]


def verdict_outcome(event: str, value: Any) -> InterceptOutcome:
    """Converts what an interceptor returned into the engine outcome."""
    if value is None:
        return {}
    if event == "before_agent_start" and isinstance(value, str):
        return {"system_prompt": value}
    expected = {
        "tool_call": ToolCallVerdict,
        "turn_start": TurnVerdict,
        "assistant_message": MessageVerdict,
        "before_agent_start": PromptVerdict,
    }.get(event)
    if expected is not None and isinstance(value, expected):
        return value.outcome()
    want = expected.__name__ if expected else "a verdict"
    raise TypeError(f"a {event} interceptor returned {type(value).__name__}; return {want} or None")


# What handlers return: answered without asking the `Awaitable` ABC (an
# `isinstance` through its `__instancecheck__`) for the common results.
_PLAIN_RESULTS = frozenset(
    {
        str,
        dict,
        list,
        tuple,
        type(None),
        bool,
        int,
        float,
        ToolOutput,
        Response,
        ToolCallVerdict,
        TurnVerdict,
        MessageVerdict,
        PromptVerdict,
    }
)


def is_awaitable(value: Any) -> bool:
    """Whether a handler returned something to await
    (:func:`inspect.isawaitable`)."""
    tp = type(value)
    if tp in _PLAIN_RESULTS:
        return False
    return tp is CoroutineType or _is_awaitable(value)
