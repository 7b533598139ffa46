"""The SDK's errors: one class per kind of failure, all subclasses of
:class:`ZotError`, each with the stable ``code`` the Node SDK's errors carry
(``err.code``) and the Rust SDK's ``Error::code()`` returns, so that one
table (docs/api-parity.md) describes all three. The underlying cause (the
engine's refusal, the OS error) is kept as ``__cause__``."""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import ClassVar, Dict, Type

__all__ = [
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
]


class ZotError(Exception):
    """Something the SDK could not do. ``code`` names the kind of failure
    (the same string in every SDK)."""

    code: ClassVar[str] = "zot"


class NotRunningError(ZotError):
    """An action that needs a running session was taken without one
    (``notify`` before ``run``, ``ctx.host`` before the handshake)."""

    code = "not_running"


class RegistrationError(ZotError, ValueError):
    """The engine refused a registration (an invalid name or schema). Still a
    ``ValueError``, as the registration methods raised before."""

    code = "registration"


def duplicate_registration(kind: str, name: str, registered: str) -> RegistrationError:
    """A command or tool name registered before: hosts keep the first
    registration, so a second could never run. The text is the engine's
    (``RegisterError::DuplicateCommand`` / ``DuplicateTool``), as in every
    SDK."""
    quoted = json.dumps(name, ensure_ascii=False)
    if kind == "command":
        first = json.dumps(registered, ensure_ascii=False)
        return RegistrationError(
            f"duplicate command name {quoted}: command {first} is already registered"
            " (command names ignore case)"
        )
    return RegistrationError(f"duplicate tool name {quoted}: a tool of this name is already registered")


class SendError(ZotError):
    """The engine refused to send a frame (invalid contents, the wire is
    closed)."""

    code = "send"


class SessionError(ZotError):
    """The session could not start or ended abnormally (failed handshake,
    broken transport, already running)."""

    code = "session"


class ArgumentError(ZotError, ValueError):
    """The arguments do not match the handler's declared type (the tool
    answers with an error result carrying this message). Still a
    ``ValueError``, as before."""

    code = "invalid_arguments"


class CallToolError(ZotError):
    """A ``call_tool`` failed as a call: the host lacks ``call_tool``, the
    key is invalid, the deadline passed, the caller or the session gave up.
    (A tool that ran and failed is a :class:`CallResult` with
    ``is_error``.)

    ``kind`` is one of ``unsupported``, ``not_ready``, ``invalid_key``,
    ``invalid_request``, ``timeout``, ``cancelled``, ``closed``, ``write``;
    the common ones have their own subclass (:class:`CallToolTimeout`...).
    ``CallToolError(kind, message)`` builds the subclass of ``kind``.
    """

    code = "call_tool"
    kind: str
    message: str

    def __new__(cls, kind: str = "", message: str = "") -> CallToolError:
        # `CallToolError("timeout", ...)` is a CallToolTimeout, so that code
        # catching the subclass sees errors however they were built.
        sub = _BY_KIND.get(kind, cls) if cls is CallToolError else cls
        return super(CallToolError, sub).__new__(sub)

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Type[CallToolError], tuple[str, str]]:
        return (CallToolError, (self.kind, self.message))


class CallToolUnsupported(CallToolError):
    """The host does not accept ``call_tool`` (or durable keys)."""


class CallToolTimeout(CallToolError, TimeoutError):
    """The call's deadline passed (``call_tool_cancel`` was sent)."""


class CallToolCancelled(CallToolError):
    """The caller gave up: its invocation or the awaiting task was
    cancelled."""


class CallToolClosed(CallToolError):
    """The session ended before the answer came."""


_BY_KIND: Dict[str, Type[CallToolError]] = {
    "unsupported": CallToolUnsupported,
    "timeout": CallToolTimeout,
    "cancelled": CallToolCancelled,
    "closed": CallToolClosed,
}


def failure_message(e: BaseException) -> str:
    """What a failed handler's answer says: the exception's message, or its
    type where it has none."""
    return str(e) or type(e).__name__


def typed_failure_message(e: BaseException) -> str:
    """A failed interceptor's part of its verdict's reason: the exception's
    type, then its message (``KeyError: 'oops'``), as every SDK names it."""
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def log_failure(logger: logging.Logger, what: str, e: BaseException) -> None:
    """One line per failed handler, as the Node and Rust SDKs log it: the
    message, and where a handler's own exception was raised; the traceback
    at DEBUG level (``ext.logger.setLevel(logging.DEBUG)``). Bad arguments
    are the caller's mistake: no location."""
    import traceback  # only when a handler failed: not at start-up

    where = ""
    if not isinstance(e, ArgumentError) and e.__traceback__ is not None:
        last = traceback.extract_tb(e.__traceback__)[-1]
        where = f" ({os.path.basename(last.filename)}:{last.lineno} in {last.name})"
    logger.error("%s: %s%s", what, failure_message(e), where)
    logger.debug("%s: traceback", what, exc_info=e)
