"""zot-ext: write extensions for the zot coding agent in Python.

An extension is a subprocess that speaks newline-delimited JSON with its host
over stdin/stdout. This package runs the shared Rust engine of zot-ext (the
compiled module ``zot_ext._native``), which owns every protocol rule:
handshake, ids, dispatch, deadlines, cancellation, ``call_tool``, writing and
shutdown. This Python layer registers handlers and runs them::

    from zot_ext import Ctx, Extension, Response

    ext = Extension("hello", "1.0.0")

    @ext.command("hi", "Say hi")
    def hi(args: str, ctx: Ctx) -> Response:
        return Response.display(f"hi {args}")

    if __name__ == "__main__":
        ext.run()

Handlers may be plain functions (run in a worker thread; ``ctx.cancelled``
is set on cancellation) or ``async def`` (run on the SDK's asyncio loop;
cancelled with ``asyncio.CancelledError``). The wire types of the protocol
are the ``TypedDict``\\ s of :mod:`zot_ext.protocol`. Test extensions
in-process with :mod:`zot_ext.testing`.
"""

from __future__ import annotations

import atexit

from . import _native
from ._context import CallResult, Ctx, HostInfo
from ._errors import (
    ArgumentError,
    CallToolCancelled,
    CallToolClosed,
    CallToolError,
    CallToolTimeout,
    CallToolUnsupported,
    NotRunningError,
    RegistrationError,
    SendError,
    SessionError,
    ZotError,
)
from ._extension import Extension, protect_stdout
from ._results import (
    MessageVerdict,
    PromptVerdict,
    Response,
    ToolCallVerdict,
    ToolOutput,
    TurnVerdict,
    image_block,
    text_block,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, List

    from ._protocol import (
        AssistantMessageEvent,
        AssistantMessageIntercept,
        BeforeAgentStartIntercept,
        ContentBlock,
        HelloAck,
        HostToolResult,
        ImageBlock,
        LifecycleEvent,
        PanelKey,
        PanelResize,
        PanelSpec,
        PermissionDecisionEvent,
        PostCompactEvent,
        PreCompactEvent,
        SessionEndEvent,
        SessionStartEvent,
        SubagentStartEvent,
        SubagentStopEvent,
        TextBlock,
        ToolCallEvent,
        ToolCallIntercept,
        ToolConfirmationRequestedEvent,
        ToolResultEvent,
        TurnEndEvent,
        TurnStartEvent,
        TurnStartIntercept,
        UserPromptSubmitEvent,
    )


# The protocol's TypedDicts listed in __all__ load on first use (PEP 562):
# defining them is the largest share of the SDK's own import time, and an
# extension needs none of them to run. Every other name of __all__ is bound
# by the imports above, so only those reach __getattr__.
def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import _protocol

        value = getattr(_protocol, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(__all__))


__version__ = _native.__version__

# The engine's tokio runtime is stopped and its threads joined before the
# interpreter finalizes (threads touching a finalizing interpreter hang or
# crash). atexit handlers run before finalization.
atexit.register(_native.shutdown_runtime)

__all__ = [
    "__version__",
    # the API
    "Extension",
    "protect_stdout",
    "Ctx",
    "HostInfo",
    "CallResult",
    "ToolOutput",
    "Response",
    "ToolCallVerdict",
    "TurnVerdict",
    "MessageVerdict",
    "PromptVerdict",
    "text_block",
    "image_block",
    "ZotError",
    "NotRunningError",
    "RegistrationError",
    "SendError",
    "SessionError",
    "ArgumentError",
    "CallToolError",
    "CallToolUnsupported",
    "CallToolTimeout",
    "CallToolCancelled",
    "CallToolClosed",
    # the payloads handlers receive (all wire types: zot_ext.protocol)
    "HelloAck",
    "LifecycleEvent",
    "SessionStartEvent",
    "SessionEndEvent",
    "UserPromptSubmitEvent",
    "TurnStartEvent",
    "TurnEndEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "ToolConfirmationRequestedEvent",
    "PermissionDecisionEvent",
    "AssistantMessageEvent",
    "PreCompactEvent",
    "PostCompactEvent",
    "SubagentStartEvent",
    "SubagentStopEvent",
    "ToolCallIntercept",
    "TurnStartIntercept",
    "AssistantMessageIntercept",
    "BeforeAgentStartIntercept",
    "PanelKey",
    "PanelResize",
    "PanelSpec",
    "ContentBlock",
    "TextBlock",
    "ImageBlock",
    "HostToolResult",
]
