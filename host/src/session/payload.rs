//! The payloads of `emit` and `intercept` steps, decoded with the
//! protocol's own decoder: a script is checked with them when it is read
//! ([`crate::session::script`]) and a person's payload when it is fired
//! ([`crate::session::by_hand`]). A leaf: it uses the protocol only.

use serde_json::{Map, Value};
use zot_protocol::{Frame, HostFrame, InterceptRequest, LifecycleEvent};

/// Decodes the payload of an `emit` step (an `event` frame without `type`)
/// with the protocol's own decoder; errors say what is wrong.
pub fn decode_event(payload: &Map<String, Value>) -> Result<LifecycleEvent, String> {
    match decode_host_frame("event", payload, "emit")? {
        HostFrame::Event(ev) => Ok(ev),
        _ => Err(format!(
            "emit: unknown event {}; one of {}",
            payload.get("event").unwrap_or(&Value::Null),
            zot_protocol::values::LIFECYCLE_EVENT_NAMES.join(", ")
        )),
    }
}

/// Decodes the payload of an `intercept` step (an `event_intercept` frame
/// without `type` and `id`, which the host assigns).
pub fn decode_intercept(payload: &Map<String, Value>) -> Result<InterceptRequest, String> {
    let mut payload = payload.clone();
    payload
        .entry("id")
        .or_insert_with(|| Value::String("0".into()));
    match decode_host_frame("event_intercept", &payload, "intercept")? {
        HostFrame::EventIntercept(InterceptRequest::ToolCall(r)) if !r.tool_args.is_object() => {
            Err("intercept: tool_args must be a JSON object".into())
        }
        HostFrame::EventIntercept(r) => Ok(r),
        _ => Err(format!(
            "intercept: unknown event {}; one of {}",
            payload.get("event").unwrap_or(&Value::Null),
            InterceptRequest::EVENTS.join(", ")
        )),
    }
}

fn decode_host_frame(
    ty: &str,
    payload: &Map<String, Value>,
    step: &str,
) -> Result<HostFrame, String> {
    let mut frame = Map::new();
    frame.insert("type".into(), Value::String(ty.into()));
    for (k, v) in payload {
        if k != "type" {
            frame.insert(k.clone(), v.clone());
        }
    }
    let line = serde_json::to_string(&frame).map_err(|e| format!("{step}: {e}"))?;
    HostFrame::decode_str(&line).map_err(|e| format!("{step}: {e}"))
}

/// The outcome of an `intercept` step.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The intercepted event.
    pub event: String,
    /// The block reason, when the chain blocked.
    pub blocked: Option<String>,
    /// What the chain let through (arguments, text or system prompt).
    pub result: Option<Value>,
}
