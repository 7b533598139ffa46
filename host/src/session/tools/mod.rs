//! Tools: one call from the model, a person or an extension to its answer.
//!
//! - `request`: a call as it enters the pipeline and what comes out (what
//!   every caller speaks; it uses none of them).
//! - `answers`: what a person answers calls with (confirmations, stub
//!   replies), stub tools, direct calls in flight.
//! - [`pipeline`]: one tool call through the host's steps in order
//!   (validate → resolve → intercept → confirm → execute → observe); it
//!   sees the session through its `ToolSession` trait only.
//! - [`invoke`]: sending a call to the extension that registered the tool
//!   and waiting for its result (deadline, cancel, withdrawal).
//! - [`extension_calls`]: an extension calling a tool itself (`call_tool`
//!   frames: validation, parent chains, continuous-mode replay).
//! - [`builtin`]: the host's own tools (`read`, `write`, `edit`, `bash`,
//!   `skill`), jailed to the session's cwd.
//!
//! Tools reach extensions through [`crate::process`] only; which extension
//! owns a name is the registry's answer ([`crate::process::registry`]),
//! never decided here.

pub(crate) mod answers;
pub mod builtin;
pub mod extension_calls;
pub mod invoke;
pub mod pipeline;
pub(crate) mod request;
