//! [`Ctx`]: what every handler gets next to its arguments.

use serde::Serialize;
use zot_protocol::HostToolResult;

use super::handle::{CallOptions, ExtHandle, HostInfo};
use super::note::NoteArgs;
use crate::engine::{CallToolError, CancelToken, JobId, SendError};

/// The context of one handler invocation: its id, its cancellation, host
/// tools, notes and host information.
///
/// ```
/// use zot_ext::{Ctx, ToolOutput};
///
/// async fn slow(_args: serde_json::Value, ctx: Ctx) -> ToolOutput {
///     tokio::select! {
///         _ = tokio::time::sleep(std::time::Duration::from_secs(5)) => ToolOutput::text("done"),
///         _ = ctx.cancelled() => ToolOutput::text("cancelled"), // not sent: the host gave up
///     }
/// }
/// # let _ = slow;
/// ```
#[derive(Clone)]
pub struct Ctx {
    pub(crate) ext: ExtHandle,
    pub(crate) job: Option<JobId>,
    pub(crate) invocation: String,
    pub(crate) token: CancelToken,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("invocation", &self.invocation)
            .field("cancelled", &self.token.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl Ctx {
    /// The host's id of this invocation (`tool_call.id`, `command_invoked.id`
    /// or `event_intercept.id`; empty for events and panel input).
    pub fn id(&self) -> &str {
        &self.invocation
    }

    /// The engine's job id, for commands, tools and interceptors.
    pub fn job(&self) -> Option<JobId> {
        self.job
    }

    /// Completes when this invocation is cancelled: `tool_cancel`, the
    /// interception deadline, shutdown or EOF (for events: the end of the
    /// session). Usable in `tokio::select!`.
    pub async fn cancelled(&self) {
        self.token.cancelled().await
    }

    /// Whether this invocation was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }

    /// The cancellation token (to hand to spawned work).
    pub fn token(&self) -> &CancelToken {
        &self.token
    }

    /// Calls a host tool with `args` (any value serializing to a JSON
    /// object). From a tool handler the call's `parent_id` is this
    /// invocation (SDK-26) and cancelling this invocation cancels the call.
    /// Tool failures come back as `Ok` with `is_error` (SDK-32).
    pub async fn call_tool<A: Serialize + ?Sized>(
        &self,
        name: &str,
        args: &A,
    ) -> Result<HostToolResult, CallToolError> {
        self.call_tool_with(name, args, CallOptions::new()).await
    }

    /// [`Ctx::call_tool`] with a durable key and/or a deadline.
    pub async fn call_tool_with<A: Serialize + ?Sized>(
        &self,
        name: &str,
        args: &A,
        opts: CallOptions,
    ) -> Result<HostToolResult, CallToolError> {
        // The engine sends `parent_id` only for tool jobs; for others the
        // link still cancels the call with the job.
        self.ext.call(self.job, name, args, opts).await
    }

    /// Shows a note: `ctx.notify("done", NotifyLevel::Info)` (the message
    /// first, as in every SDK; the 0.1 order `(level, message)` still
    /// compiles, deprecated).
    pub fn notify<M, L>(&self, message: M, level: L) -> Result<(), SendError>
    where
        (M, L): NoteArgs,
    {
        self.ext.notify(message, level)
    }

    /// The host's `hello_ack`.
    pub fn host(&self) -> &HostInfo {
        self.ext.host().expect("handlers run after the handshake")
    }

    /// The extension handle (panels, submit, clear_notes, log...).
    pub fn ext(&self) -> &ExtHandle {
        &self.ext
    }

    /// Writes `[<name>] message` to stderr.
    pub fn log(&self, message: impl AsRef<str>) {
        self.ext.log(message)
    }
}
