//! One tool call as it enters the pipeline ([`ToolRequest`]), what the
//! scripted user does while it runs ([`WhileRunning`]) and what comes out
//! ([`ToolRun`]). The agent loop, `call_tool`, what a person does by hand
//! and the pipeline all speak these; this module uses none of them.

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use zot_protocol::RawJson;

use crate::session::script::{ConfirmAnswer, KeyPress, ToolCallSpec, WaitSpec};
use crate::session::tools::invoke::ToolOutput;

/// Arguments as proposed: a JSON object, or malformed text.
#[derive(Debug, Clone, PartialEq)]
pub enum ProposedArgs {
    /// Valid arguments.
    Json(RawJson),
    /// Malformed argument text (reported as `tool_args_raw`, HOST-135).
    Raw(String),
}

impl ProposedArgs {
    /// The arguments of a scripted call: `args_raw` when given (malformed
    /// text stays raw), else `args` (a non-object is raw), else `{}`.
    pub(crate) fn of(c: &ToolCallSpec) -> Self {
        match (&c.args_raw, &c.args) {
            (Some(raw), _) => match serde_json::from_str::<serde_json::Value>(raw) {
                Ok(v) if v.is_object() => Self::Json(RawJson::from(v)),
                _ => Self::Raw(raw.clone()),
            },
            (None, v) => Self::of_value(v.as_ref()),
        }
    }

    /// Arguments given as a JSON value: an object, else raw; none is `{}`.
    pub(crate) fn of_value(v: Option<&serde_json::Value>) -> Self {
        match v {
            Some(v) if v.is_object() => Self::Json(RawJson::from(v)),
            Some(v) => Self::Raw(v.to_string()),
            None => Self::Json(RawJson::empty_object()),
        }
    }

    /// The text the conversation records.
    pub(crate) fn text(&self) -> String {
        match self {
            Self::Json(j) => j.get().to_owned(),
            Self::Raw(r) => r.clone(),
        }
    }
}

/// One tool call entering the pipeline.
pub struct ToolRequest {
    /// Transcript tool id.
    pub tool_id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as proposed.
    pub args: ProposedArgs,
    /// Extension whose `call_tool` / `tool_prompt` started it.
    pub origin_extension: String,
    /// The `call_tool` chain (empty for model calls).
    pub chain: Vec<String>,
    /// Cancels the call.
    pub cancel: CancellationToken,
    /// Scripted confirmation answer.
    pub confirm: Option<ConfirmAnswer>,
    /// Cancel right after the `tool_call` frame was written.
    pub cancel_on_delivery: bool,
    /// Execution deadline (`call_tool`: 60 s, execution only, OP-1).
    pub exec_deadline: Option<Duration>,
    /// Emit the `tool_call` event and observation here (calls that are not
    /// part of a model turn).
    pub announce: bool,
    /// Came through `call_tool`: resolved in the whole agent registry, not
    /// only among model-advertised tools.
    pub via_call_tool: bool,
    /// Durable identity (continuous mode); empty: `<session>/<tool_id>`.
    pub durable_scope: String,
}

impl ToolRequest {
    /// A call that is not part of a model turn, announced where it runs,
    /// reaching any registered tool; the other fields at their defaults.
    pub(crate) fn announced(tool_id: String, name: String, args: ProposedArgs) -> Self {
        Self {
            tool_id,
            name,
            args,
            origin_extension: String::new(),
            chain: Vec::new(),
            cancel: CancellationToken::new(),
            confirm: None,
            cancel_on_delivery: false,
            exec_deadline: None,
            announce: true,
            via_call_tool: true,
            durable_scope: String::new(),
        }
    }
}

/// What the pipeline produced.
#[derive(Debug, Clone)]
pub struct ToolRun {
    /// The model-facing output.
    pub output: ToolOutput,
}

/// What the scripted user does while the tool runs: keys pressed in the
/// panel it opens (then, maybe, a cancel), and a frame to wait for before
/// the call counts as done.
#[derive(Default)]
pub(crate) struct WhileRunning {
    /// Keys pressed once the extension opened a panel.
    pub keys: Vec<KeyPress>,
    /// Cancel the call after the last key.
    pub cancel_after_keys: bool,
    /// Wait for this frame once the call's result is recorded.
    pub then_wait: Option<WaitSpec>,
}

impl WhileRunning {
    /// What a scripted call asks for: its keys, and its cancel (set on
    /// `cancel` when it comes before the call). Whether to cancel once the
    /// `tool_call` frame is written comes back with it.
    pub(crate) fn of(c: &ToolCallSpec, cancel: &CancellationToken) -> (Self, bool) {
        use crate::session::script::CancelOn;
        let (on_delivery, then_wait) = match &c.cancel {
            Some(cs) => {
                if cs.on == CancelOn::Before {
                    cancel.cancel();
                }
                (cs.on == CancelOn::Delivered, cs.then_wait.clone())
            }
            None => (false, None),
        };
        let user = Self {
            keys: c.keys.clone(),
            cancel_after_keys: c.cancel.as_ref().is_some_and(|cs| cs.on == CancelOn::Keys),
            then_wait,
        };
        (user, on_delivery)
    }
}
