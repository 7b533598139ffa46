//! The session script format (see `host/SCRIPT.md`): what the user does and
//! what the scripted model answers, step by step.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::config::{HostMode, Timeouts};

/// A whole script.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Host mode (default `interactive`).
    #[serde(default)]
    pub mode: Option<HostMode>,
    /// Confirmation policy: `ask` (default in interactive mode) or `yolo`
    /// (default in the other modes).
    #[serde(default)]
    pub confirm: Option<ConfirmPolicy>,
    /// Answer used when a confirmation has no scripted answer (default
    /// `approve`); `wait` makes such a confirmation wait for the next
    /// `confirm` step (the user takes their time).
    #[serde(default)]
    pub default_answer: Option<DefaultAnswer>,
    /// Session id (default `session-1`).
    #[serde(default)]
    pub session_id: Option<String>,
    /// Provider id (default `scripted`).
    #[serde(default)]
    pub provider: Option<String>,
    /// Model id (default `scripted-model`).
    #[serde(default)]
    pub model: Option<String>,
    /// Base system prompt.
    #[serde(default)]
    pub system_prompt: Option<String>,
    /// Continuous mode (durable `call_tool`).
    #[serde(default)]
    pub continuous: bool,
    /// Deadline overrides in milliseconds (keys as in [`TimeoutOverrides`]).
    #[serde(default)]
    pub timeouts: TimeoutOverrides,
    /// How the session ends: `shutdown` (default: `session_end`, then the
    /// `shutdown` frame) or `eof` (`session_end`, then stdin is closed).
    #[serde(default)]
    pub end: End,
    /// The steps, run one at a time.
    #[serde(default)]
    pub steps: Vec<Step>,
}

/// How a scripted session ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum End {
    /// Graceful: a `shutdown` frame, then stdin is closed.
    #[default]
    Shutdown,
    /// Only stdin is closed: extensions see EOF.
    Eof,
}

impl End {
    /// How the extensions are stopped.
    pub fn stop_by(self) -> crate::process::stop_all::StopBy {
        match self {
            Self::Shutdown => crate::process::stop_all::StopBy::Shutdown,
            Self::Eof => crate::process::stop_all::StopBy::Eof,
        }
    }
}

/// Confirmation policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfirmPolicy {
    /// Ask (answers come from the script).
    Ask,
    /// Approve everything without asking.
    Yolo,
}

/// An answer to a confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfirmAnswer {
    /// Allow once.
    Approve,
    /// Refuse.
    Deny,
    /// Allow and remember for this tool.
    Remember,
}

impl ConfirmAnswer {
    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Deny => "deny",
            Self::Remember => "remember",
        }
    }
}

/// The answer to confirmations nothing in the script answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DefaultAnswer {
    /// Allow once.
    Approve,
    /// Refuse.
    Deny,
    /// Allow and remember for this tool.
    Remember,
    /// No answer yet: wait until a `confirm` step queues one (denied if the
    /// session shuts down first).
    Wait,
}

impl DefaultAnswer {
    /// The immediate answer, `None` for [`DefaultAnswer::Wait`].
    pub fn answer(self) -> Option<ConfirmAnswer> {
        match self {
            Self::Approve => Some(ConfirmAnswer::Approve),
            Self::Deny => Some(ConfirmAnswer::Deny),
            Self::Remember => Some(ConfirmAnswer::Remember),
            Self::Wait => None,
        }
    }
}

/// Deadline overrides, in milliseconds; absent keys keep the spec's values.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeoutOverrides {
    /// Tool reply deadline.
    pub tool_reply_ms: Option<u64>,
    /// Interception deadline.
    pub intercept_ms: Option<u64>,
    /// `before_agent_start` deadline.
    pub before_agent_start_ms: Option<u64>,
    /// Command deadline.
    pub command_ms: Option<u64>,
    /// `call_tool` deadline.
    pub call_tool_ms: Option<u64>,
    /// Write bound.
    pub write_ms: Option<u64>,
    /// Shutdown grace.
    pub shutdown_grace_ms: Option<u64>,
    /// SIGTERM → SIGKILL.
    pub sigterm_to_sigkill_ms: Option<u64>,
    /// Startup readiness grace.
    pub ready_grace_ms: Option<u64>,
    /// Auto-ready idle window.
    pub auto_ready_idle_ms: Option<u64>,
    /// Hello bound.
    pub hello_ms: Option<u64>,
}

impl TimeoutOverrides {
    /// Applies the overrides.
    pub fn apply(&self, t: &mut Timeouts) {
        use std::time::Duration as D;
        let set = |slot: &mut D, v: Option<u64>| {
            if let Some(ms) = v {
                *slot = D::from_millis(ms);
            }
        };
        set(&mut t.tool_reply, self.tool_reply_ms);
        set(&mut t.intercept, self.intercept_ms);
        set(&mut t.before_agent_start, self.before_agent_start_ms);
        set(&mut t.command, self.command_ms);
        set(&mut t.call_tool, self.call_tool_ms);
        set(&mut t.write, self.write_ms);
        set(&mut t.shutdown_grace, self.shutdown_grace_ms);
        set(&mut t.reload_stop_grace, self.shutdown_grace_ms);
        set(&mut t.sigterm_to_sigkill, self.sigterm_to_sigkill_ms);
        set(&mut t.ready_grace, self.ready_grace_ms);
        set(&mut t.reload_ready_grace, self.ready_grace_ms);
        set(&mut t.auto_ready_idle, self.auto_ready_idle_ms);
        set(&mut t.hello, self.hello_ms);
    }
}

/// One step. Exactly one action key must be present; `wait` may accompany
/// any action and runs after it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Submit a user prompt.
    pub prompt: Option<String>,
    /// Images attached to the prompt (only counted).
    #[serde(default)]
    pub images: u32,
    /// Step number of the prompt's first model step (default 1), to reach
    /// high step numbers without scripting that many turns.
    pub first_step: Option<u32>,
    /// Model turns to queue (with `prompt`, `command`, or alone).
    pub replies: Option<Vec<Turn>>,
    /// Run a slash command (`/name args`).
    pub command: Option<String>,
    /// Press a key in the focused panel (`up`, ..., `rune`, `esc`, `ctrl+c`).
    pub key: Option<String>,
    /// The character for `key: "rune"`.
    pub text: Option<String>,
    /// Queue confirmation answers.
    pub confirm: Option<OneOrMany<ConfirmAnswer>>,
    /// Compact the conversation.
    pub compact: Option<Compact>,
    /// Run a subagent.
    pub subagent: Option<Subagent>,
    /// Switch the model.
    pub model: Option<ModelSwitch>,
    /// Switch the session.
    pub session: Option<SessionSwitch>,
    /// Clear the conversation (and notes).
    pub clear: Option<bool>,
    /// `/reload-ext`.
    pub reload: Option<bool>,
    /// Restart one extension (the others keep running).
    pub restart: Option<String>,
    /// Report the tools advertised to the model.
    pub tools: Option<bool>,
    /// Wait for a frame from an extension.
    pub wait: Option<WaitSpec>,
    /// Call a tool directly, outside any model turn, as a person does in
    /// `zot-host inspect` (the same pipeline as a model's call).
    pub call: Option<ToolCallSpec>,
    /// Emit a lifecycle event: the payload of an `event` frame without
    /// `type` (the host stamps `session_id`, `cwd` and `sequence`).
    pub emit: Option<serde_json::Map<String, serde_json::Value>>,
    /// Send an interception request through its chain: the payload of an
    /// `event_intercept` frame without `type` and `id`; the verdict is
    /// reported.
    pub intercept: Option<serde_json::Map<String, serde_json::Value>>,
    /// From now on, answer calls of this tool by hand (`answer` steps)
    /// instead of routing them to the extension that registered it.
    pub stub: Option<String>,
    /// Route calls of this tool to its extension again.
    pub unstub: Option<String>,
    /// Queue the reply to the next call of a stub tool.
    pub answer: Option<StubAnswer>,
    /// Check the transcript so far.
    pub expect: Option<Expect>,
    /// Call a tool the way a codemode script would (HOST-73, HOST-75).
    pub codemode: Option<CodemodeCall>,
    /// Sleep (avoid: prefer `wait`).
    pub sleep_ms: Option<u64>,
    /// Run the step this many times in a row (default 1): long sessions
    /// without a long script.
    pub repeat: Option<u64>,
}

/// One value or a list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    /// One.
    One(T),
    /// Several.
    Many(Vec<T>),
}

impl<T: Clone> OneOrMany<T> {
    /// As a list.
    pub fn to_vec(&self) -> Vec<T> {
        match self {
            Self::One(t) => vec![t.clone()],
            Self::Many(v) => v.clone(),
        }
    }
}

/// One model turn.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Visible assistant text.
    #[serde(default)]
    pub text: String,
    /// Tool calls of the batch.
    #[serde(default)]
    pub tool_calls: Vec<ToolCallSpec>,
    /// Stop reason (default `tool_use` with calls, else `end_turn`).
    pub stop: Option<String>,
    /// Error of the response attempt.
    #[serde(default)]
    pub error: String,
}

/// One scripted tool call.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    /// Transcript tool id (default `toolu_<n>`).
    pub id: Option<String>,
    /// Tool name.
    pub name: String,
    /// Arguments (an object; default `{}`).
    pub args: Option<serde_json::Value>,
    /// Malformed argument text instead of `args`.
    pub args_raw: Option<String>,
    /// Answer to this call's confirmation.
    pub confirm: Option<ConfirmAnswer>,
    /// Cancel it deterministically.
    pub cancel: Option<CancelSpec>,
    /// Keys the user presses while this call runs, once its extension has
    /// opened a panel (interactive tools that wait for the user).
    #[serde(default)]
    pub keys: Vec<KeyPress>,
}

/// A key pressed in the panel of a running tool call.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyPress {
    /// Key name (`up`, `down`, `enter`, `rune`, `esc`...).
    pub key: String,
    /// The typed character for `rune`.
    #[serde(default)]
    pub text: String,
    /// Wait for this frame before the next key.
    pub wait: Option<WaitSpec>,
}

/// The reply to one call of a stub tool, as an extension's `tool_result`
/// would carry it (the host converts it the same way).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StubAnswer {
    /// The stub tool it answers.
    pub tool: String,
    /// A text block (shorthand; goes before `content`).
    pub text: Option<String>,
    /// Content blocks (`text`, `image`).
    #[serde(default)]
    pub content: Vec<zot_protocol::ContentBlock>,
    /// The call failed.
    #[serde(default)]
    pub is_error: bool,
    /// Structured result for script callers.
    pub structured_content: Option<serde_json::Value>,
}

/// A tool call made by a codemode script.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodemodeCall {
    /// Tool name.
    pub name: String,
    /// Arguments (default `{}`).
    pub args: Option<serde_json::Value>,
}

/// When to cancel a tool call.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelSpec {
    /// `delivered`: right after its `tool_call` frame was written to the
    /// extension; `before`: before it starts (cancelled ahead of execution);
    /// `keys`: once its `keys` were pressed.
    pub on: CancelOn,
    /// After cancelling, wait for this frame before the loop goes on.
    pub then_wait: Option<WaitSpec>,
}

/// Cancellation trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CancelOn {
    /// After the `tool_call` frame was written.
    Delivered,
    /// Before execution starts (no frame written).
    Before,
    /// Once the call's `keys` were pressed (each after its wait): a person
    /// who worked an interactive tool's panel, then gave up on it.
    Keys,
}

/// Waits for a frame read from an extension. Each wait consumes the first
/// matching frame not consumed by an earlier wait, so it does not depend on
/// timing.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitSpec {
    /// Extension name (any when absent).
    pub ext: Option<String>,
    /// Frame `type`.
    #[serde(rename = "type")]
    pub frame_type: String,
    /// Fields that must be equal (top-level keys).
    #[serde(default)]
    pub fields: BTreeMap<String, serde_json::Value>,
    /// Give up after this long (default 10 000 ms); a timeout is an expect failure.
    pub timeout_ms: Option<u64>,
}

/// Compaction.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compact {
    /// Summary text replacing the conversation.
    #[serde(default)]
    pub summary: Option<String>,
    /// Outcome (default `completed`).
    pub status: Option<String>,
    /// Error text.
    #[serde(default)]
    pub error: String,
}

/// A subagent run.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subagent {
    /// Agent id (default `agent-1`).
    pub agent_id: Option<String>,
    /// Outcome (default `completed`).
    pub status: Option<String>,
    /// Error text.
    #[serde(default)]
    pub error: String,
}

/// A model switch.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSwitch {
    /// Provider (unchanged when absent).
    pub provider: Option<String>,
    /// Model.
    pub model: String,
}

/// A session switch.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSwitch {
    /// New session id.
    pub id: String,
    /// New working directory (relative to the current one); a change makes the
    /// end reason `cwd_change`.
    pub cwd: Option<String>,
}

/// A check of the transcript so far (its JSON form).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Substrings that must occur.
    #[serde(default)]
    pub contains: Vec<String>,
    /// Substrings that must not occur.
    #[serde(default)]
    pub not_contains: Vec<String>,
}

/// A script that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// I/O.
    #[error("cannot read script {path}: {source}")]
    Io {
        /// Path.
        path: String,
        /// Error.
        source: std::io::Error,
    },
    /// Bad JSON or shape.
    #[error("script {path}: {message}")]
    Invalid {
        /// Path.
        path: String,
        /// Where and what.
        message: String,
    },
}

impl Script {
    /// Parses and checks a script; errors name the step and field.
    pub fn parse(text: &str, origin: &str) -> Result<Self, ScriptError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let s: Script =
            serde_path_to_error_lite(&mut de).map_err(|message| ScriptError::Invalid {
                path: origin.to_owned(),
                message,
            })?;
        for (i, step) in s.steps.iter().enumerate() {
            let n = step.actions();
            if n != 1 && !(n == 0 && step.wait.is_some()) {
                return Err(ScriptError::Invalid {
                    path: origin.to_owned(),
                    message: format!(
                        "steps[{i}]: a step needs exactly one action (prompt, replies, command, key, confirm, compact, subagent, model, session, clear, reload, restart, tools, expect, codemode, call, emit, intercept, stub, unstub, answer, sleep_ms; or wait alone), found {n}"
                    ),
                });
            }
            if step.repeat == Some(0) {
                return Err(ScriptError::Invalid {
                    path: origin.to_owned(),
                    message: format!("steps[{i}]: repeat must be at least 1"),
                });
            }
            let checked = match (&step.emit, &step.intercept) {
                (Some(e), _) => crate::session::payload::decode_event(e).map(drop),
                (_, Some(r)) => crate::session::payload::decode_intercept(r).map(drop),
                _ => Ok(()),
            };
            if let Err(e) = checked {
                return Err(ScriptError::Invalid {
                    path: origin.to_owned(),
                    message: format!("steps[{i}]: {e}"),
                });
            }
            if step.key.as_deref() == Some("rune") && step.text.is_none() {
                return Err(ScriptError::Invalid {
                    path: origin.to_owned(),
                    message: format!("steps[{i}]: key \"rune\" needs \"text\""),
                });
            }
        }
        Ok(s)
    }

    /// Reads a script file.
    pub fn load(path: &Path) -> Result<Self, ScriptError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }
}

impl Step {
    /// How many actions the step names (a valid step has one; a lone `wait` none).
    pub fn actions(&self) -> usize {
        let replies_alone =
            self.replies.is_some() && self.prompt.is_none() && self.command.is_none();
        [
            self.prompt.is_some(),
            replies_alone,
            self.command.is_some(),
            self.key.is_some(),
            self.confirm.is_some(),
            self.compact.is_some(),
            self.subagent.is_some(),
            self.model.is_some(),
            self.session.is_some(),
            self.clear.is_some(),
            self.reload.is_some(),
            self.restart.is_some(),
            self.tools.is_some(),
            self.expect.is_some(),
            self.codemode.is_some(),
            self.call.is_some(),
            self.emit.is_some(),
            self.intercept.is_some(),
            self.stub.is_some(),
            self.unstub.is_some(),
            self.answer.is_some(),
            self.sleep_ms.is_some(),
        ]
        .iter()
        .filter(|b| **b)
        .count()
    }
}

/// Deserializes with a path to the failing field in the message.
fn serde_path_to_error_lite<'de, T: Deserialize<'de>>(
    de: &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
) -> Result<T, String> {
    match serde_path_to_error::deserialize::<_, T>(&mut *de) {
        Ok(v) => Ok(v),
        Err(e) => {
            let path = e.path().to_string();
            Err(if path == "." {
                e.inner().to_string()
            } else {
                format!("{path}: {}", e.inner())
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_reports_locations() {
        let s = Script::parse(
            r#"{"mode":"print","steps":[{"prompt":"hi","replies":[{"text":"yo"}]},{"wait":{"type":"notify"}}]}"#,
            "t",
        )
        .unwrap();
        assert_eq!(s.mode, Some(HostMode::Print));
        let e = Script::parse(r#"{"steps":[{"prompt":"a","command":"/b"}]}"#, "t").unwrap_err();
        assert!(e.to_string().contains("steps[0]"), "{e}");
        let e = Script::parse(r#"{"steps":[{"promt":"a"}]}"#, "t").unwrap_err();
        assert!(e.to_string().contains("steps[0]"), "{e}");
        let s = Script::parse(r#"{"steps":[{"prompt":"a","repeat":3}]}"#, "t").unwrap();
        assert_eq!(s.steps[0].repeat, Some(3));
        let e = Script::parse(
            r#"{"steps":[{"tools":true},{"prompt":"a","repeat":0}]}"#,
            "t",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("steps[1]: repeat must be at least 1"),
            "{e}"
        );
    }
}
