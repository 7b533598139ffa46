//! Why a `call_tool` failed as a call (docs/protocol.md §9; SDK-32). Its kind,
//! as the bindings receive it, is [`CallToolError::error_kind`] (the
//! contract, `contract.rs`).

use std::time::Duration;

use zot_protocol::validate::ValueError;

use crate::wire::writer::WriteError;

/// Why a `call_tool` failed as a call (as opposed to a tool that ran and
/// reported `is_error`, which is an `Ok` result; SDK-32).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CallToolError {
    /// The host's `hello_ack` did not advertise `call_tool`; nothing was
    /// sent (SDK-27).
    #[error("the host does not support call_tool")]
    Unsupported,
    /// Called before the handshake completed.
    #[error("call_tool is not available before the handshake")]
    NotReady,
    /// The durable key breaks the rules of §9.5; nothing was sent.
    #[error(transparent)]
    InvalidKey(ValueError),
    /// The arguments are not a JSON object, or the name is empty; nothing
    /// was sent.
    #[error("call_tool requires a name and JSON object args")]
    InvalidRequest,
    /// No answer within the deadline; `call_tool_cancel` was sent.
    #[error("call_tool {name} timed out after {after:?}")]
    Timeout {
        /// The tool.
        name: String,
        /// The deadline.
        after: Duration,
    },
    /// The caller (or the parent job) gave up; `call_tool_cancel` was sent.
    #[error("call_tool cancelled")]
    Cancelled,
    /// The session ended (shutdown, EOF or a broken transport) before the
    /// answer came.
    #[error("the connection to the host closed")]
    Closed,
    /// The request could not be written.
    #[error("call_tool not sent: {0}")]
    Write(WriteError),
}
