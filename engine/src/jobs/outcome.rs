//! What a dispatcher answers a job with: the protocol's response types
//! without their `id` (the engine owns ids), plus what became of the answer.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use zot_protocol::{CommandAction, ContentBlock, PanelSpec, RawJson};

use crate::wire::writer::WriteError;

/// The answer to a [`crate::Job::Command`]: the fields of
/// `command_response` (§4.3.6) without `id`.
///
/// The engine normalizes it: an empty action is sent as `noop` (SDK-17) and
/// an invalid `tool_prompt` becomes an error response (SDK-18).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CommandOutcome {
    /// What the host should do.
    pub action: CommandAction,
    /// Text for `prompt` / `tool_prompt`.
    pub prompt: String,
    /// Tool for `tool_prompt`.
    pub tool_name: String,
    /// Arguments for `tool_prompt` (a JSON object).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_args: Option<RawJson>,
    /// Text for `insert`.
    pub insert: String,
    /// Text for `display`.
    pub display: String,
    /// Panel for `open_panel`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_panel: Option<PanelSpec>,
    /// Non-empty: shown as an error; the action is not applied (OP-7).
    pub error: String,
}

impl Default for CommandOutcome {
    fn default() -> Self {
        Self {
            action: CommandAction::Noop,
            prompt: String::new(),
            tool_name: String::new(),
            tool_args: None,
            insert: String::new(),
            display: String::new(),
            open_panel: None,
            error: String::new(),
        }
    }
}

/// The answer to a [`crate::Job::Tool`]: the fields of the
/// extension's `tool_result` (§4.3.7) without `id`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ToolOutcome {
    /// Model-facing blocks.
    pub content: Vec<ContentBlock>,
    /// The call failed.
    pub is_error: bool,
    /// Deferred tools to activate.
    pub activate_tools: Vec<String>,
    /// JSON result for programmatic callers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<RawJson>,
}

impl ToolOutcome {
    /// An error result with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(message)],
            is_error: true,
            ..Self::default()
        }
    }
}

/// The answer to a [`crate::Job::Intercept`]: the fields of
/// `event_intercept_response` (§4.3.8) without `id`. The default allows,
/// unchanged.
///
/// The engine applies the per-event rules: `modified_args` only for
/// `tool_call`, only when not blocking and only when it is a JSON object
/// (SDK-42); `replace_text` only for `assistant_message`, only when not
/// blocking, non-empty and different from the received text (SDK-43);
/// `system_prompt` only for `before_agent_start`, which cannot block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct InterceptOutcome {
    /// Refuse (`tool_call`, `turn_start`, `assistant_message`).
    pub block: bool,
    /// Refusal text on block, otherwise a pass-through note.
    pub reason: String,
    /// `tool_call`: rewritten arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_args: Option<RawJson>,
    /// `assistant_message`: replacement of the visible text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace_text: Option<String>,
    /// `before_agent_start`: the complete replacement prompt (`Some("")`
    /// removes it); `None` keeps it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
}

/// An answer to a job, for [`crate::Engine::complete`].
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Answers a command job.
    Command(CommandOutcome),
    /// Answers a tool job.
    Tool(ToolOutcome),
    /// Answers an interception job.
    Intercept(InterceptOutcome),
    /// Answers an event or panel job: the handler returned.
    Done,
    /// Answers any job whose handler failed (error, exception or panic)
    /// with this message: an `is_error` tool result (SDK-21), a `noop`
    /// command response with `error` (SDK-16), a `block` for the blocking
    /// interceptions and the kept prompt for `before_agent_start` (SDK-45,
    /// OP-32), a log line for event and panel jobs (SDK-36). A cancelled
    /// tool job still sends nothing.
    Failed(String),
}

/// What became of an answer the engine accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// The reply frame was written.
    Sent,
    /// An event or panel job was acknowledged (nothing to send).
    Done,
    /// Nothing was written, as the protocol asks.
    Dropped(DropReason),
}

/// Why an answer was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// The tool job was cancelled: no `tool_result` for it (SDK-23).
    Cancelled,
    /// The interception deadline passed: the host already moved on.
    Expired,
    /// The session is over.
    Closed,
}

/// Why an answer was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompleteError {
    /// No such job is waiting for an answer (already answered, or never
    /// handed out).
    #[error("no open job {0}")]
    UnknownJob(u64),
    /// The outcome does not fit the job (e.g. a tool result for a command).
    #[error("job {job} is a {expected} job; got a {got} outcome")]
    WrongKind {
        /// The job.
        job: u64,
        /// The job's kind.
        expected: &'static str,
        /// The outcome's kind.
        got: &'static str,
    },
    /// The outcome JSON could not be decoded.
    #[error("invalid outcome for job {job}: {message}")]
    InvalidOutcome {
        /// The job.
        job: u64,
        /// What was wrong.
        message: String,
    },
    /// The reply was over the 4 MiB frame limit. The engine answered the
    /// host with an error instead (an `is_error` tool result, an error
    /// command response, a block for an interceptor, the kept prompt for
    /// `before_agent_start`), so the job is closed either way.
    #[error("reply not sent: {0}; an error reply was sent instead")]
    TooLarge(WriteError),
    /// The transport failed while writing the reply.
    #[error("reply not sent: {0}")]
    Transport(WriteError),
}

impl Outcome {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Self::Command(_) => "command",
            Self::Tool(_) => "tool",
            Self::Intercept(_) => "intercept",
            Self::Done => "done",
            Self::Failed(_) => "failed",
        }
    }
}
