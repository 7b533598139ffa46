//! Requests the engine refuses to read still get their one reply.
//!
//! A host frame nested deeper than [`MAX_FRAME_DEPTH`] is not decoded: no
//! SDK could hand it to a handler (Python's `json` runs out of stack near
//! 1,000 levels, Rust's typed decode at 128), so all of them refuse it here,
//! alike. A frame that does not decode (a field of the wrong type, a string
//! with a lone surrogate, a missing field) is refused the same way. Its
//! `type` and `id` are still read (without recursion) and, for a request,
//! the host gets the reply it waits for instead of sitting out its
//! deadline:
//!
//! - `tool_call`: an error `tool_result`;
//! - `command_invoked`: a `command_response` with `error`;
//! - `event_intercept`: the verdict of a failed interceptor (fail-closed,
//!   see `intercept::failure`) when one is registered for the event (or,
//!   with `event` unreadable, when any is), else `allow` as for any event
//!   without a handler (SDK-40);
//! - `tool_result`, the host's answer to a `call_tool`: the waiting call
//!   gets an error result at once rather than timing out, since the answer
//!   will not come again.
//!
//! Each refusal is one log line naming the frame, its id and the field at
//! fault. Any other frame, or one without a readable string `id`, is logged
//! and skipped (SDK-50).

use std::sync::Arc;

use zot_protocol::limits::MAX_FRAME_DEPTH;
use zot_protocol::{
    CommandAction, CommandResponse, ContentBlock, DecodeError, EventInterceptResponse, ExtFrame,
    FrameTags, HostToolResult, InterceptRequest, ToolResult,
};

use crate::lock;
use crate::requests::intercept::{self, InterceptKind};
use crate::wire::diagnostics::Repeated;
use crate::Inner;

/// What is wrong with a frame nested too deeply.
pub(crate) fn too_deep_message() -> String {
    format!(
        "the frame is nested deeper than {MAX_FRAME_DEPTH} levels, the most a host frame may have"
    )
}

/// Answers (or skips) a frame nested deeper than [`MAX_FRAME_DEPTH`].
pub(crate) fn too_deep(inner: &Arc<Inner>, line: &[u8]) {
    refuse(inner, line, &too_deep_message(), Repeated::TooDeep);
}

/// Answers (or skips) a frame that did not decode.
pub(crate) fn undecodable(inner: &Arc<Inner>, line: &[u8], error: &DecodeError) {
    let problem = if line.starts_with(BOM) {
        "the line starts with a UTF-8 byte order mark (EF BB BF); frames are JSON text without one"
            .to_owned()
    } else {
        error.to_string()
    };
    refuse(inner, line, &problem, Repeated::MalformedFrame);
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

fn refuse(inner: &Arc<Inner>, line: &[u8], problem: &str, kind: Repeated) {
    let tags = FrameTags::read(line)
        .or_else(|_| read_tags_leniently(line))
        .ok();
    let what = match &tags {
        Some(t) => match answer(inner, t, problem) {
            Some(reply) => format!(
                "{} {:?} refused ({reply}): {problem}",
                t.frame_type,
                t.id.as_deref().unwrap_or_default()
            ),
            None => format!("host frame {:?} skipped: {problem}", t.frame_type),
        },
        None => format!("malformed host frame skipped: {problem}"),
    };
    inner.diag_repeated(kind, || what);
}

/// Reads the tags of a line that is not valid UTF-8 or starts with a byte
/// order mark: the frame is still refused, but a readable `id` gets its
/// reply. Bytes that are not UTF-8 become U+FFFD, which changes no tag
/// made of valid text.
fn read_tags_leniently(line: &[u8]) -> Result<FrameTags, DecodeError> {
    let line = line.strip_prefix(BOM).unwrap_or(line);
    FrameTags::read(String::from_utf8_lossy(line).as_bytes())
}

/// A field of a decoded interception request that the engine refuses to
/// hand to an interceptor: a `tool_call`'s `tool_args` must be a JSON
/// object (every SDK's interceptor reads it as one).
pub(crate) fn bad_intercept_field(req: &InterceptRequest) -> Option<String> {
    match req {
        InterceptRequest::ToolCall(r) if !r.tool_args.is_object() => Some(format!(
            "invalid `event_intercept` frame (event `tool_call`): field `tool_args`: expected a JSON object, got {}",
            r.tool_args.get().chars().take(40).collect::<String>()
        )),
        _ => None,
    }
}

/// Refuses a decoded interception request with a field at fault: the
/// verdict of a failed interceptor when one is registered, else `allow`.
pub(crate) fn refuse_intercept(
    inner: &Arc<Inner>,
    req: &InterceptRequest,
    guarded: bool,
    problem: &str,
) {
    let kind = InterceptKind::of(req);
    let (resp, said) = verdict(req.id(), Some(&kind).filter(|_| guarded), problem);
    inner.reply(ExtFrame::EventInterceptResponse(resp));
    let msg = format!("event_intercept {:?} refused ({said}): {problem}", req.id());
    inner.diag_repeated(Repeated::MalformedFrame, || msg);
}

/// The verdict for a refused interception: fail-closed when guarded.
fn verdict(
    id: &str,
    guarded: Option<&InterceptKind>,
    problem: &str,
) -> (EventInterceptResponse, &'static str) {
    match guarded {
        Some(kind) => {
            let msg = format!("{} interception refused: {problem}", kind.name());
            (
                intercept::failure(id, kind, &msg),
                "answered as a failed interceptor",
            )
        }
        None => (EventInterceptResponse::allow(id), "allowed: no interceptor"),
    }
}

/// Sends the reply `tags` asks for, if any; returns what it was.
fn answer(inner: &Arc<Inner>, tags: &FrameTags, problem: &str) -> Option<&'static str> {
    let id = tags.id.clone()?;
    match tags.frame_type.as_str() {
        "tool_call" => {
            refuse_tool(inner, id, format!("tool_call refused: {problem}"));
            Some("answered with an error result")
        }
        "command_invoked" => {
            let mut resp = CommandResponse::new(id, CommandAction::Noop);
            resp.error = format!("command refused: {problem}");
            inner.reply(ExtFrame::CommandResponse(resp));
            Some("answered with an error")
        }
        "event_intercept" => {
            let st = lock(&inner.state);
            let kind = match tags.event.as_deref() {
                Some(event) => {
                    InterceptKind::named(event).filter(|_| st.registry.intercepts(event))
                }
                // Which guard it was for is unknown: fail closed when the
                // extension guards anything (a blocking event first).
                None => [
                    "tool_call",
                    "turn_start",
                    "assistant_message",
                    "before_agent_start",
                ]
                .into_iter()
                .find(|e| st.registry.intercepts(e))
                .and_then(InterceptKind::named),
            };
            drop(st);
            let (resp, said) = verdict(&id, kind.as_ref(), problem);
            inner.reply(ExtFrame::EventInterceptResponse(resp));
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

/// Answers a `tool_call` the engine refuses before any handler runs.
pub(crate) fn refuse_tool(inner: &Inner, id: String, text: String) {
    inner.reply(ExtFrame::ToolResult(ToolResult {
        id,
        content: vec![ContentBlock::text(text)],
        is_error: true,
        ..ToolResult::default()
    }));
}
