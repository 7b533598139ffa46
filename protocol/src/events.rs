//! Lifecycle notifications (`event`, §12) and interception requests
//! (`event_intercept`, §11), each tagged by `event`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

use crate::content::EventResult;
use crate::is_false;
use crate::raw::RawJson;
use crate::values::{
    Decision, DecisionSource, DecisionStage, RunStatus, SessionEndReason, ToolStatus,
};

/// One lifecycle notification, tagged by `event` (the fourteen of §12.1).
///
/// Every variant carries the common fields `session_id`, `cwd` and
/// `sequence`. Unknown event names never reach this type: the frame decoder
/// turns them into an explicit unknown event.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(inline)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LifecycleEvent {
    /// An active conversation opened.
    SessionStart(SessionStartEvent),
    /// The active conversation closed.
    SessionEnd(SessionEndEvent),
    /// The host accepted model input.
    UserPromptSubmit(UserPromptSubmitEvent),
    /// A model step begins.
    TurnStart(TurnStartEvent),
    /// The model response attempt ended (before client tools run).
    TurnEnd(TurnEndEvent),
    /// The model proposed a client tool call.
    ToolCall(ToolCallEvent),
    /// A client tool call reached a terminal outcome.
    ToolResult(ToolResultEvent),
    /// The host is about to wait for interactive approval.
    ToolConfirmationRequested(ToolConfirmationRequestedEvent),
    /// An approval or policy decision was resolved.
    PermissionDecision(PermissionDecisionEvent),
    /// Visible assistant text was produced.
    AssistantMessage(AssistantMessageEvent),
    /// A compaction attempt begins.
    PreCompact(PreCompactEvent),
    /// That compaction attempt finished.
    PostCompact(PostCompactEvent),
    /// A local swarm runner starts or resumes.
    SubagentStart(SubagentStartEvent),
    /// That runner returned.
    SubagentStop(SubagentStopEvent),
}

/// The payload struct of one lifecycle event: its wire name and its
/// extraction from a [`LifecycleEvent`]. Implemented for every event
/// struct (generated with [`LifecycleEvent::name`] from one table, so the
/// two cannot disagree); SDKs key typed event handlers on it
/// (`Extension::on_event::<ToolResultEvent>`).
pub trait EventPayload: Sized + Send + 'static {
    /// The wire event name (`"tool_result"`).
    const NAME: &'static str;
    /// This payload, if `event` is this kind of event.
    fn from_event(event: LifecycleEvent) -> Option<Self>;
    /// The event carrying this payload.
    fn into_event(self) -> LifecycleEvent;
}

macro_rules! lifecycle_names {
    ($($var:ident($payload:ident) => $name:literal),+ $(,)?) => {
        $(
            impl EventPayload for $payload {
                const NAME: &'static str = $name;
                fn from_event(event: LifecycleEvent) -> Option<Self> {
                    match event {
                        LifecycleEvent::$var(e) => Some(e),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
                fn into_event(self) -> LifecycleEvent {
                    LifecycleEvent::$var(self)
                }
            }

            impl From<$payload> for LifecycleEvent {
                fn from(e: $payload) -> Self {
                    LifecycleEvent::$var(e)
                }
            }
        )+

        impl LifecycleEvent {
            /// The wire event name.
            pub fn name(&self) -> &'static str {
                match self { $( Self::$var(_) => $name, )+ }
            }

            /// The common `sequence` field.
            pub fn sequence(&self) -> u64 {
                match self { $( Self::$var(e) => e.sequence, )+ }
            }

            /// The common `session_id` field.
            pub fn session_id(&self) -> &str {
                match self { $( Self::$var(e) => &e.session_id, )+ }
            }

            /// The common `cwd` field.
            pub fn cwd(&self) -> &str {
                match self { $( Self::$var(e) => &e.cwd, )+ }
            }

            /// Sets the common fields (the host stamps them at enqueue time).
            pub fn set_common(&mut self, session_id: &str, cwd: &str, sequence: u64) {
                match self {
                    $( Self::$var(e) => {
                        e.session_id = session_id.to_owned();
                        e.cwd = cwd.to_owned();
                        e.sequence = sequence;
                    } )+
                }
            }
        }
    };
}

lifecycle_names! {
    SessionStart(SessionStartEvent) => "session_start",
    SessionEnd(SessionEndEvent) => "session_end",
    UserPromptSubmit(UserPromptSubmitEvent) => "user_prompt_submit",
    TurnStart(TurnStartEvent) => "turn_start",
    TurnEnd(TurnEndEvent) => "turn_end",
    ToolCall(ToolCallEvent) => "tool_call",
    ToolResult(ToolResultEvent) => "tool_result",
    ToolConfirmationRequested(ToolConfirmationRequestedEvent) => "tool_confirmation_requested",
    PermissionDecision(PermissionDecisionEvent) => "permission_decision",
    AssistantMessage(AssistantMessageEvent) => "assistant_message",
    PreCompact(PreCompactEvent) => "pre_compact",
    PostCompact(PostCompactEvent) => "post_compact",
    SubagentStart(SubagentStartEvent) => "subagent_start",
    SubagentStop(SubagentStopEvent) => "subagent_stop",
}

/// Declares an event payload struct with the three common fields first.
macro_rules! event_struct {
    (
        $(#[doc = $doc:literal])+
        $name:ident { $($body:tt)* }
    ) => {
        $(#[doc = $doc])+
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[schemars(inline)]
        pub struct $name {
            /// Active conversation id (persisted id, else runtime-generated).
            #[serde(default)]
            pub session_id: String,
            /// Working directory of the session.
            #[serde(default)]
            pub cwd: String,
            /// Monotonic over all notifications of the host's extension
            /// manager (not per subscriber); starts at 1.
            #[serde(default)]
            pub sequence: u64,
            $($body)*
        }
    };
}

event_struct! {
    /// `session_start`: an active conversation opened.
    SessionStartEvent {}
}

event_struct! {
    /// `session_end`: the active conversation closed.
    SessionEndEvent {
        /// Why it ended.
        pub reason: SessionEndReason,
    }
}

event_struct! {
    /// `user_prompt_submit`: model input accepted (after preprocessing).
    UserPromptSubmitEvent {
        /// The prompt text (absent for image-only input).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub text: String,
        /// Queued behind a running turn.
        #[serde(default, skip_serializing_if = "is_false")]
        pub queued: bool,
        /// Attached images (their bytes are never included).
        #[serde(default, skip_serializing_if = "is_zero")]
        pub image_count: u32,
    }
}

event_struct! {
    /// `turn_start`: a model step begins.
    TurnStartEvent {
        /// Step number (omitted when 0).
        #[serde(default, skip_serializing_if = "is_zero")]
        pub step: u32,
    }
}

event_struct! {
    /// `turn_end`: the model response attempt ended.
    TurnEndEvent {
        /// Stop reason, e.g. `end_turn`.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub stop: String,
        /// Error text, if the attempt failed.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub error: String,
    }
}

event_struct! {
    /// `tool_call`: the model proposed a client tool call.
    ToolCallEvent {
        /// Name of the extension whose `call_tool` started this call.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub origin_extension: String,
        /// Transcript tool-call id; correlate with `(session_id, tool_id)`.
        #[serde(default)]
        pub tool_id: String,
        /// Tool name.
        #[serde(default)]
        pub tool_name: String,
        /// The model's original arguments.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
        pub tool_args: Option<RawJson>,
        /// Raw text of malformed arguments (`tool_args` is then absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_args_raw: Option<String>,
    }
}

event_struct! {
    /// `tool_result`: a client tool call reached a terminal outcome.
    ToolResultEvent {
        /// Outcome.
        pub status: ToolStatus,
        /// Observed output, within the observation budget.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub result: Option<EventResult>,
        /// Whether the tool's execute step was entered; absent = unknown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub executed: Option<bool>,
        /// Name of the extension whose `call_tool` started this call.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub origin_extension: String,
        /// Transcript tool-call id.
        #[serde(default)]
        pub tool_id: String,
        /// Tool name.
        #[serde(default)]
        pub tool_name: String,
        /// Effective arguments (rewrites applied; `{}` for none).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
        pub tool_args: Option<RawJson>,
        /// Raw text of malformed arguments (`tool_args` is then absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_args_raw: Option<String>,
    }
}

event_struct! {
    /// `tool_confirmation_requested`: the host waits for approval next.
    ToolConfirmationRequestedEvent {
        /// Name of the extension whose `call_tool` started this call.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub origin_extension: String,
        /// Transcript tool-call id.
        #[serde(default)]
        pub tool_id: String,
        /// Tool name.
        #[serde(default)]
        pub tool_name: String,
        /// The short preview shown in the confirmation dialog.
        #[serde(default)]
        pub tool_preview: String,
    }
}

event_struct! {
    /// `permission_decision`: an approval or policy decision was resolved.
    PermissionDecisionEvent {
        /// Why, when given.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub reason: String,
        /// Who decided.
        pub source: DecisionSource,
        /// The decision.
        pub decision: Decision,
        /// Where it was taken.
        pub stage: DecisionStage,
        /// Name of the extension whose `call_tool` started this call.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub origin_extension: String,
        /// Transcript tool-call id.
        #[serde(default)]
        pub tool_id: String,
        /// Tool name.
        #[serde(default)]
        pub tool_name: String,
    }
}

event_struct! {
    /// `assistant_message`: visible assistant text.
    AssistantMessageEvent {
        /// The text.
        #[serde(default)]
        pub text: String,
    }
}

event_struct! {
    /// `pre_compact`: a compaction attempt begins.
    PreCompactEvent {
        /// Pairs `pre_compact` with `post_compact`.
        #[serde(default)]
        pub compaction_id: String,
        /// Messages in the transcript; absent = unknown (differs from 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub message_count: Option<u64>,
        /// Serialized text bytes / 4; absent = unknown (differs from 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub token_estimate: Option<u64>,
    }
}

event_struct! {
    /// `post_compact`: the compaction attempt finished.
    PostCompactEvent {
        /// Outcome.
        pub status: RunStatus,
        /// Pairs `pre_compact` with `post_compact`.
        #[serde(default)]
        pub compaction_id: String,
        /// Messages in the resulting transcript; absent = unknown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub message_count: Option<u64>,
        /// Serialized text bytes / 4 of the result; absent = unknown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub token_estimate: Option<u64>,
        /// Error text on failure.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub error: String,
    }
}

event_struct! {
    /// `subagent_start`: a local swarm runner starts or resumes.
    SubagentStartEvent {
        /// Runner invocation id; pairs start with stop.
        #[serde(default)]
        pub agent_run_id: String,
        /// Agent id (survives resume).
        #[serde(default)]
        pub agent_id: String,
        /// Runner name (currently the agent id).
        #[serde(default)]
        pub name: String,
    }
}

event_struct! {
    /// `subagent_stop`: the runner returned.
    SubagentStopEvent {
        /// Runner invocation id; pairs start with stop.
        #[serde(default)]
        pub agent_run_id: String,
        /// Outcome.
        pub status: RunStatus,
        /// Agent id.
        #[serde(default)]
        pub agent_id: String,
        /// Runner name.
        #[serde(default)]
        pub name: String,
        /// Error text on failure.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub error: String,
    }
}

/// One interception request, tagged by `event` (§4.4.7, §11).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(inline)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum InterceptRequest {
    /// May replace the whole system prompt.
    BeforeAgentStart(BeforeAgentStartIntercept),
    /// May block the call or rewrite its arguments.
    ToolCall(ToolCallIntercept),
    /// May block the turn.
    TurnStart(TurnStartIntercept),
    /// May hide or rewrite the visible text.
    AssistantMessage(AssistantMessageIntercept),
}

impl InterceptRequest {
    /// Every interceptable event name.
    pub const EVENTS: [&'static str; 4] = crate::values::INTERCEPTABLE_EVENT_NAMES;

    /// The wire event name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ToolCall(_) => "tool_call",
            Self::TurnStart(_) => "turn_start",
            Self::AssistantMessage(_) => "assistant_message",
            Self::BeforeAgentStart(_) => "before_agent_start",
        }
    }

    /// The request id to answer.
    pub fn id(&self) -> &str {
        match self {
            Self::ToolCall(r) => &r.id,
            Self::TurnStart(r) => &r.id,
            Self::AssistantMessage(r) => &r.id,
            Self::BeforeAgentStart(r) => &r.id,
        }
    }
}

/// `event_intercept` for `tool_call`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct ToolCallIntercept {
    /// Name of the extension whose `call_tool` raised this call.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub origin_extension: String,
    /// Host correlation id.
    pub id: String,
    /// Transcript tool id.
    #[serde(default)]
    pub tool_id: String,
    /// Tool name.
    #[serde(default)]
    pub tool_name: String,
    /// Current arguments (after earlier interceptors' rewrites).
    #[serde(default = "RawJson::empty_object")]
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub tool_args: RawJson,
}

/// `event_intercept` for `turn_start`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct TurnStartIntercept {
    /// Host correlation id.
    pub id: String,
    /// Step number.
    #[serde(default)]
    pub step: u32,
}

/// `event_intercept` for `assistant_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct AssistantMessageIntercept {
    /// Host correlation id.
    pub id: String,
    /// Assembled visible text (after earlier rewrites).
    #[serde(default)]
    pub text: String,
}

/// `event_intercept` for `before_agent_start` (system prompt replacement).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct BeforeAgentStartIntercept {
    /// The complete current system prompt (emitted even when empty).
    #[serde(default)]
    pub system_prompt: String,
    /// Persisted conversation id, else a runtime-local id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub session_id: String,
    /// One preparation pass, shared by the whole chain.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub agent_run_id: String,
    /// Effective working directory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cwd: String,
    /// Effective provider.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub provider: String,
    /// Effective model.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// Host correlation id.
    pub id: String,
}

/// An `event` or `event_intercept` frame whose event name this version does
/// not know, kept as its raw line.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownEvent {
    /// The event name.
    pub event: String,
    /// The request id (interceptions only; empty otherwise).
    pub id: String,
    /// The whole frame.
    pub raw: RawJson,
}

impl Serialize for UnknownEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}
