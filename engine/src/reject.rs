//! Requests the engine refuses to read still get their one reply.
//!
//! A host frame nested deeper than [`MAX_FRAME_DEPTH`] is not decoded: no
//! SDK could hand it to a handler (Python's `json` runs out of stack near
//! 1,000 levels, Rust's typed decode at 128), so all of them refuse it here,
//! alike. Its `type` and `id` are still read (without recursion) and, for a
//! request, the host gets the reply it waits for instead of sitting out its
//! deadline:
//!
//! - `tool_call`: an error `tool_result`;
//! - `command_invoked`: a `command_response` with `error`;
//! - `event_intercept`: the verdict of a failed interceptor (fail-closed,
//!   see `intercept::failure`) when one is registered for the event, else
//!   `allow` as for any event without a handler (SDK-40);
//! - `tool_result`, the host's answer to a `call_tool`: the waiting call
//!   gets an error result at once rather than timing out, since the answer
//!   will not come again.
//!
//! Any other frame, or one without a readable string `id`, is logged and
//! skipped like a malformed one (SDK-50).

use std::sync::Arc;

use zot_protocol::limits::MAX_FRAME_DEPTH;
use zot_protocol::{
    CommandAction, CommandResponse, ContentBlock, EventInterceptResponse, ExtFrame, FrameTags,
    HostToolResult, ToolResult,
};

use super::diagnostics::Repeated;
use super::intercept::{self, InterceptKind};
use super::reader::reply;
use super::Inner;
use crate::lock;

/// What is wrong with a frame nested too deeply.
pub(crate) fn too_deep_message() -> String {
    format!(
        "the frame is nested deeper than {MAX_FRAME_DEPTH} levels, the most a host frame may have"
    )
}

/// Answers (or skips) a frame nested deeper than [`MAX_FRAME_DEPTH`].
pub(crate) fn too_deep(inner: &Arc<Inner>, line: &[u8]) {
    let problem = too_deep_message();
    let tags = FrameTags::read(line).ok();
    let what = match &tags {
        Some(t) => match answer(inner, t, &problem) {
            Some(reply) => format!(
                "{} {:?} refused ({reply}): {problem}",
                t.frame_type,
                t.id.as_deref().unwrap_or_default()
            ),
            None => format!("host frame {:?} skipped: {problem}", t.frame_type),
        },
        None => format!("host frame skipped: {problem}"),
    };
    inner.diag_repeated(Repeated::TooDeep, || what);
}

/// Sends the reply `tags` asks for, if any; returns what it was.
fn answer(inner: &Arc<Inner>, tags: &FrameTags, problem: &str) -> Option<&'static str> {
    let id = tags.id.clone()?;
    match tags.frame_type.as_str() {
        "tool_call" => {
            reply(
                inner,
                ExtFrame::ToolResult(ToolResult {
                    id,
                    content: vec![ContentBlock::text(format!("tool_call refused: {problem}"))],
                    is_error: true,
                    ..ToolResult::default()
                }),
            );
            Some("answered with an error result")
        }
        "command_invoked" => {
            let mut resp = CommandResponse::new(id, CommandAction::Noop);
            resp.error = format!("command refused: {problem}");
            reply(inner, ExtFrame::CommandResponse(resp));
            Some("answered with an error")
        }
        "event_intercept" => {
            let event = tags.event.as_deref().unwrap_or_default();
            let guarded = lock(&inner.state).registry.intercepts(event);
            let (resp, said) = match InterceptKind::named(event).filter(|_| guarded) {
                Some(kind) => {
                    let msg = format!("{event} interception refused: {problem}");
                    (
                        intercept::failure(&id, &kind, &msg),
                        "answered as a failed interceptor",
                    )
                }
                None => (
                    EventInterceptResponse::allow(&id),
                    "allowed: no interceptor",
                ),
            };
            reply(inner, ExtFrame::EventInterceptResponse(resp));
            Some(said)
        }
        "tool_result" => {
            inner.on_host_result(HostToolResult {
                id,
                content: vec![ContentBlock::text(format!(
                    "the host's tool_result could not be read: {problem}"
                ))],
                is_error: true,
                ..HostToolResult::default()
            });
            Some("the waiting call_tool gets an error result")
        }
        _ => None,
    }
}
