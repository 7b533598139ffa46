//! The interception rules (docs/protocol.md §11): turning a handler's outcome, or
//! its failure, into the one `event_intercept_response` the host gets.

use zot_protocol::limits::MAX_SYSTEM_PROMPT_BYTES;
use zot_protocol::{EventInterceptResponse, InterceptRequest};

use crate::jobs::outcome::InterceptOutcome;

/// What the engine remembers of a request until it is answered.
#[derive(Debug, Clone)]
pub(crate) enum InterceptKind {
    ToolCall,
    TurnStart,
    /// Keeps the received text: `replace_text` equal to it is no change
    /// (SDK-43).
    AssistantMessage {
        text: String,
    },
    BeforeAgentStart,
}

impl InterceptKind {
    pub(crate) fn of(req: &InterceptRequest) -> Self {
        match req {
            InterceptRequest::ToolCall(_) => Self::ToolCall,
            InterceptRequest::TurnStart(_) => Self::TurnStart,
            InterceptRequest::AssistantMessage(r) => Self::AssistantMessage {
                text: r.text.clone(),
            },
            InterceptRequest::BeforeAgentStart(_) => Self::BeforeAgentStart,
        }
    }

    /// The kind of a request for `event`, when it can be intercepted (the
    /// received text of `assistant_message` is unknown: empty).
    pub(crate) fn named(event: &str) -> Option<Self> {
        Some(match event {
            "tool_call" => Self::ToolCall,
            "turn_start" => Self::TurnStart,
            "assistant_message" => Self::AssistantMessage {
                text: String::new(),
            },
            "before_agent_start" => Self::BeforeAgentStart,
            _ => return None,
        })
    }

    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::ToolCall => "tool_call",
            Self::TurnStart => "turn_start",
            Self::AssistantMessage { .. } => "assistant_message",
            Self::BeforeAgentStart => "before_agent_start",
        }
    }
}

/// Builds the response to `id` from a handler's outcome. Returns it with a
/// diagnostic when part of the outcome had to be dropped.
pub(crate) fn respond(
    id: &str,
    kind: &InterceptKind,
    out: InterceptOutcome,
) -> (EventInterceptResponse, Option<String>) {
    let mut resp = EventInterceptResponse::allow(id);
    let mut diag = None;
    resp.reason = out.reason;
    match kind {
        InterceptKind::BeforeAgentStart => match out.system_prompt {
            Some(prompt) => {
                // N-21: measured on the JSON-encoded string.
                let encoded = serde_json::to_string(&prompt).map(|s| s.len()).unwrap_or(0);
                if encoded > MAX_SYSTEM_PROMPT_BYTES {
                    diag = Some(format!(
                        "before_agent_start: replacement prompt of {encoded} encoded bytes exceeds the {MAX_SYSTEM_PROMPT_BYTES}-byte limit; keeping the current prompt"
                    ));
                } else {
                    // A response with both applies the prompt and ignores
                    // `block` (§11.5), so `block` is never sent.
                    resp.system_prompt = Some(Some(prompt));
                }
            }
            None if out.block => {
                diag = Some(
                    "before_agent_start: startup hooks cannot block; keeping the current prompt"
                        .to_owned(),
                );
            }
            None => {}
        },
        _ if out.block => {
            resp.block = true;
        }
        InterceptKind::ToolCall => {
            if let Some(args) = out.modified_args {
                if args.is_object() {
                    resp.modified_args = Some(args);
                } else {
                    diag =
                        Some("tool_call: modified_args must be a JSON object; ignored".to_owned());
                }
            }
        }
        InterceptKind::AssistantMessage { text } => {
            if let Some(r) = out.replace_text {
                if !r.is_empty() && &r != text {
                    resp.replace_text = r;
                }
            }
        }
        InterceptKind::TurnStart => {}
    }
    (resp, diag)
}

/// The reason a failed interceptor's verdict gives, naming what happened:
/// the verdict, the interceptor, its extension and the failure as the SDK
/// put it (`Type: message`), e.g. `blocked: tool_call interceptor of
/// "guard" failed: KeyError: 'oops'`. The user and the model see it.
/// `before_agent_start` cannot block: its verdict keeps the prompt.
pub(crate) fn failed_reason(ext: &str, kind: &InterceptKind, failure: &str) -> String {
    let verdict = match kind {
        InterceptKind::BeforeAgentStart => "prompt kept",
        _ => "blocked",
    };
    let event = kind.name();
    format!("{verdict}: {event} interceptor of {ext:?} failed: {failure}")
}

/// The response to a failed (erroring, panicking or oversized) interceptor.
///
/// A guard that fails must not open the gate: the blocking events answer
/// `block` with the failure as the reason, as the Go SDK does (SDK-45,
/// OP-32). `before_agent_start` cannot block; its failure keeps the current
/// prompt (the field is omitted) and the failure travels as the reason note.
pub(crate) fn failure(id: &str, kind: &InterceptKind, message: &str) -> EventInterceptResponse {
    match kind {
        InterceptKind::BeforeAgentStart => EventInterceptResponse {
            reason: message.to_owned(),
            ..EventInterceptResponse::allow(id)
        },
        _ => EventInterceptResponse::block(id, message),
    }
}
