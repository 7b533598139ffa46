//! Decoding one line into a typed frame.
//!
//! A line in the canonical form (`{"type":"…"` first, as every project
//! encoder writes it) is decoded in one pass: the tag is read off the line's
//! start and the line goes straight into the frame's own struct. Any other
//! line is read in two passes: a cheap one that only picks out `type` (and
//! `event`) while skipping everything else, then the real decode. No
//! intermediate `serde_json::Value` is built, large strings are copied once,
//! and an unknown `type` or event name costs a single validation pass before
//! it is handed back as an explicit unknown value.
//!
//! When the real decode fails, the line is decoded once more through
//! `serde_path_to_error` to name the offending field; errors are rare, so the
//! fast path pays nothing for that.

use std::borrow::Cow;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use crate::events::{InterceptRequest, LifecycleEvent, UnknownEvent};
use crate::ext_frames::ExtFrame;
use crate::host_frames::HostFrame;
use crate::raw::RawJson;
use crate::UnknownFrame;

/// Why a line could not be decoded into a frame. Each kind is distinct so a
/// reader can report precisely what was wrong, and all of them are
/// recoverable: the next line may be fine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The bytes are not UTF-8.
    #[error("frame is not valid UTF-8 (first bad byte at offset {valid_up_to})")]
    InvalidUtf8 {
        /// Length of the valid prefix.
        valid_up_to: usize,
    },
    /// The line is not JSON (syntax error or truncated).
    #[error("frame is not valid JSON: {message} (column {column})")]
    InvalidJson {
        /// The parser's message.
        message: String,
        /// 1-based column of the error.
        column: usize,
    },
    /// The line is JSON but not an object.
    #[error("frame is not a JSON object")]
    NotAnObject,
    /// The object has no `type`.
    #[error("frame has no `type` field")]
    MissingType,
    /// `type` is not a string.
    #[error("frame `type` must be a string")]
    InvalidTypeField,
    /// A known frame type with a field of the wrong shape.
    #[error("invalid `{frame_type}` frame{}: field `{path}`: {message}", .event.as_ref().map(|e| format!(" (event `{e}`)")).unwrap_or_default())]
    InvalidField {
        /// The frame's `type`.
        frame_type: String,
        /// For `event` / `event_intercept`: the event name.
        event: Option<String>,
        /// The top-level field at fault.
        field: String,
        /// The full path to the value at fault, e.g. `content[0].text`.
        path: String,
        /// What was wrong.
        message: String,
    },
}

impl DecodeError {
    /// A stable name for the kind of error, shared with the test vectors:
    /// `invalid_utf8`, `invalid_json`, `not_an_object`, `missing_type`,
    /// `invalid_type_field`, `invalid_field`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::InvalidUtf8 { .. } => "invalid_utf8",
            Self::InvalidJson { .. } => "invalid_json",
            Self::NotAnObject => "not_an_object",
            Self::MissingType => "missing_type",
            Self::InvalidTypeField => "invalid_type_field",
            Self::InvalidField { .. } => "invalid_field",
        }
    }
}

/// A frame direction: something a line can be decoded into.
pub trait Frame: Serialize + Sized {
    /// Decodes one line (without its LF).
    fn decode(line: &[u8]) -> Result<Self, DecodeError> {
        let text = std::str::from_utf8(line).map_err(|e| DecodeError::InvalidUtf8 {
            valid_up_to: e.valid_up_to(),
        })?;
        Self::decode_str(text)
    }

    /// Decodes one line of text (without its LF).
    fn decode_str(line: &str) -> Result<Self, DecodeError>;

    /// The frame's wire `type`.
    fn frame_type(&self) -> &str;
}

/// The tags of a frame read by the general path: `type`, `event` and `id`
/// as raw values, everything else skipped unparsed.
#[derive(Default)]
struct Peek<'a> {
    ty: Option<&'a RawValue>,
    event: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
}

impl<'de> Deserialize<'de> for Peek<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(PeekVisitor)
    }
}

struct PeekVisitor;

impl<'de> serde::de::Visitor<'de> for PeekVisitor {
    type Value = Peek<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Peek<'de>, M::Error> {
        let mut p = Peek::default();
        // Keys are taken raw: a key holding a lone surrogate escape must not
        // make the line invalid JSON here when the fast path, which never
        // reads it, calls it a bad field (the frame struct's decode names it).
        while let Some(key) = map.next_key::<&'de RawValue>()? {
            let slot = match tag_name(key.get()).as_deref() {
                Some("type") => &mut p.ty,
                Some("event") => &mut p.event,
                Some("id") => &mut p.id,
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
            };
            if slot.is_some() {
                let name = tag_name(key.get()).unwrap_or_default();
                return Err(serde::de::Error::custom(format_args!(
                    "duplicate field `{name}`"
                )));
            }
            // A present `null` stays `Some`: `"type":null` is a non-string
            // type rather than a missing one.
            *slot = Some(map.next_value()?);
        }
        Ok(p)
    }
}

/// A raw key's text, `None` when it holds no string a tag could be (e.g. a
/// lone surrogate escape).
fn tag_name(raw: &str) -> Option<Cow<'_, str>> {
    serde_json::from_str::<Cow<'_, str>>(raw).ok()
}

struct Tags<'a> {
    ty: Cow<'a, str>,
    event: Option<Cow<'a, str>>,
    id: Option<Cow<'a, str>>,
}

fn as_str<'a>(raw: &'a RawValue) -> Option<Cow<'a, str>> {
    serde_json::from_str::<Cow<'a, str>>(raw.get()).ok()
}

fn invalid_json(e: &serde_json::Error) -> DecodeError {
    DecodeError::InvalidJson {
        message: strip_position(&e.to_string()),
        column: e.column(),
    }
}

/// Frame types without a payload struct: nothing else would validate the
/// rest of their line, so they always take the full peek.
const UNIT_TYPES: [&str; 4] = ["ready", "clear_notes", "shutdown_ack", "shutdown"];

/// The canonical form every project encoder writes, `{"type":"<t>"` first
/// (then `,"event":"<e>"` for events and interceptions), read without
/// scanning the rest of the line. Only a known type (and a known event
/// name) with a payload struct is taken this way: that struct's decode then
/// validates the whole line. Anything else takes the full peek.
fn fast_tags<'a>(line: &'a str, known: &[&str]) -> Option<Tags<'a>> {
    fn plain_string(s: &str) -> Option<(&str, &str)> {
        // One pass over a short name: the closing quote, or an escape
        // (which the full decoder handles).
        let end = s.bytes().position(|b| b == b'"' || b == b'\\')?;
        (s.as_bytes()[end] == b'"').then(|| (&s[..end], &s[end + 1..]))
    }
    let (ty, rest) = plain_string(line.strip_prefix("{\"type\":\"")?)?;
    if !known.contains(&ty) || UNIT_TYPES.contains(&ty) {
        return None;
    }
    let events: &[&str] = match ty {
        "event" => &crate::values::LIFECYCLE_EVENT_NAMES,
        "event_intercept" => &crate::values::INTERCEPTABLE_EVENT_NAMES,
        _ => {
            return Some(Tags {
                ty: Cow::Borrowed(ty),
                event: None,
                id: None,
            })
        }
    };
    let (event, _) = plain_string(rest.strip_prefix(",\"event\":\"")?)?;
    events.contains(&event).then_some(Tags {
        ty: Cow::Borrowed(ty),
        event: Some(Cow::Borrowed(event)),
        id: None,
    })
}

fn peek<'a>(line: &'a str, known: &[&str]) -> Result<Tags<'a>, DecodeError> {
    if let Some(tags) = fast_tags(line, known) {
        return Ok(tags);
    }
    if !line.trim_start().starts_with('{') {
        // serde would happily read a struct out of a JSON array, so anything
        // that does not open an object is classified here.
        return match serde_json::from_str::<serde::de::IgnoredAny>(line) {
            Ok(_) => Err(DecodeError::NotAnObject),
            Err(e) => Err(invalid_json(&e)),
        };
    }
    let p: Peek<'_> = serde_json::from_str(line).map_err(|e| invalid_json(&e))?;
    let ty = p.ty.ok_or(DecodeError::MissingType)?;
    let ty = as_str(ty).ok_or(DecodeError::InvalidTypeField)?;
    Ok(Tags {
        ty,
        event: p.event.and_then(as_str),
        id: p.id.and_then(as_str),
    })
}

/// The fields that say what a frame is and which request it answers or
/// asks: `type`, `event` and `id`, read while everything else is skipped
/// (without recursion, whatever the line holds). A reader that cannot
/// decode a frame still learns from them whom to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameTags {
    /// The frame's `type`.
    pub frame_type: String,
    /// `event`, when present and a string.
    pub event: Option<String>,
    /// `id`, when present and a string.
    pub id: Option<String>,
}

impl FrameTags {
    /// Reads the tags of one line (without its LF); fails as
    /// [`Frame::decode`] fails when the line is no JSON object with a
    /// string `type`.
    ///
    /// ```
    /// use zot_protocol::FrameTags;
    ///
    /// let tags = FrameTags::read(br#"{"type":"tool_call","id":"7","args":{"deep":[[[]]]}}"#).unwrap();
    /// assert_eq!((tags.frame_type.as_str(), tags.id.as_deref()), ("tool_call", Some("7")));
    /// ```
    pub fn read(line: &[u8]) -> Result<Self, DecodeError> {
        let text = std::str::from_utf8(line).map_err(|e| DecodeError::InvalidUtf8 {
            valid_up_to: e.valid_up_to(),
        })?;
        let tags = peek(text, &[])?;
        Ok(Self {
            frame_type: tags.ty.into_owned(),
            event: tags.event.map(Cow::into_owned),
            id: tags.id.map(Cow::into_owned),
        })
    }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg.to_owned(),
    }
}

/// Decodes `line` into the frame struct `T`, naming the field on failure.
fn decode_struct<T: DeserializeOwned>(
    line: &str,
    frame_type: &str,
    event: Option<&str>,
) -> Result<T, DecodeError> {
    match serde_json::from_str::<T>(line) {
        Ok(v) => Ok(v),
        // Only reachable after the fast peek, which does not scan the line.
        Err(e) if (e.is_syntax() || e.is_eof()) && !lone_surrogate(&e) => Err(invalid_json(&e)),
        Err(first) => {
            // After the fast peek the line was not scanned: a syntax error
            // behind the field at fault still makes it invalid JSON, the
            // kind that comes first (as the full peek would have said).
            if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(line) {
                return Err(invalid_json(&e));
            }
            let mut de = serde_json::Deserializer::from_str(line);
            let (path, message) = match serde_path_to_error::deserialize::<_, T>(&mut de) {
                Ok(_) => (String::new(), strip_position(&first.to_string())),
                Err(e) => (e.path().to_string(), strip_position(&e.inner().to_string())),
            };
            let path = if path == "." || path.is_empty() {
                missing_field(&message).unwrap_or_default()
            } else {
                path
            };
            let message = if lone_surrogate(&first) {
                LONE_SURROGATE.to_owned()
            } else {
                message
            };
            let field = path.split(['.', '[']).next().unwrap_or_default().to_owned();
            Err(DecodeError::InvalidField {
                frame_type: frame_type.to_owned(),
                event: event.map(str::to_owned),
                field,
                path,
                message,
            })
        }
    }
}

/// What a string with an unpaired UTF-16 surrogate escape (`"\ud800"`) is
/// called in errors: valid JSON text, but no string any SDK can hold.
pub const LONE_SURROGATE: &str =
    "a string holds a lone UTF-16 surrogate (e.g. \\ud800), which is not text";

/// Whether serde_json refused a string for an unpaired surrogate escape; the
/// field is then named like any other field of the wrong shape.
fn lone_surrogate(e: &serde_json::Error) -> bool {
    let m = e.to_string();
    m.contains("surrogate") || m.contains("unexpected end of hex escape")
}

fn missing_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("missing field `")?;
    Some(rest[..rest.find('`')?].to_owned())
}

fn raw_line(line: &str) -> RawJson {
    let json = line.trim_matches([' ', '\t', '\r', '\n']);
    RawJson::from_string(json.to_owned()).expect("line was validated as JSON")
}

impl Frame for ExtFrame {
    fn decode_str(line: &str) -> Result<Self, DecodeError> {
        let tags = peek(line, &ExtFrame::TYPES)?;
        let ty = tags.ty.as_ref();
        macro_rules! s {
            ($var:ident) => {
                decode_struct(line, ty, None).map(ExtFrame::$var)
            };
        }
        match ty {
            "hello" => s!(Hello),
            "register_command" => s!(RegisterCommand),
            "register_tool" => s!(RegisterTool),
            "subscribe" => s!(Subscribe),
            "ready" => Ok(Self::Ready),
            "command_response" => s!(CommandResponse),
            "tool_result" => s!(ToolResult),
            "event_intercept_response" => s!(EventInterceptResponse),
            "call_tool" => s!(CallTool),
            "call_tool_cancel" => s!(CallToolCancel),
            "notify" => s!(Notify),
            "clear_notes" => Ok(Self::ClearNotes),
            "submit" => s!(Submit),
            "submit_slash" => s!(SubmitSlash),
            "open_panel" => s!(OpenPanel),
            "panel_render" => s!(PanelRender),
            "panel_close" => s!(PanelClose),
            "shutdown_ack" => Ok(Self::ShutdownAck),
            other => Ok(Self::Unknown(UnknownFrame {
                type_name: other.to_owned(),
                raw: raw_line(line),
            })),
        }
    }

    fn frame_type(&self) -> &str {
        self.type_name()
    }
}

impl Frame for HostFrame {
    fn decode_str(line: &str) -> Result<Self, DecodeError> {
        let tags = peek(line, &HostFrame::TYPES)?;
        let ty = tags.ty.as_ref();
        macro_rules! s {
            ($var:ident) => {
                decode_struct(line, ty, None).map(HostFrame::$var)
            };
        }
        match ty {
            "hello_ack" => s!(HelloAck),
            "command_invoked" => s!(CommandInvoked),
            "tool_call" => s!(ToolCall),
            "tool_cancel" => s!(ToolCancel),
            "tool_result" => s!(ToolResult),
            "event" => decode_event(line, &tags),
            "event_intercept" => decode_intercept(line, &tags),
            "panel_key" => s!(PanelKey),
            "panel_resize" => s!(PanelResize),
            "panel_close" => s!(PanelClose),
            "shutdown" => Ok(Self::Shutdown),
            other => Ok(Self::Unknown(UnknownFrame {
                type_name: other.to_owned(),
                raw: raw_line(line),
            })),
        }
    }

    fn frame_type(&self) -> &str {
        self.type_name()
    }
}

fn missing_event(frame_type: &str) -> DecodeError {
    DecodeError::InvalidField {
        frame_type: frame_type.to_owned(),
        event: None,
        field: "event".to_owned(),
        path: "event".to_owned(),
        message: "missing or non-string `event`".to_owned(),
    }
}

fn decode_event(line: &str, tags: &Tags<'_>) -> Result<HostFrame, DecodeError> {
    let name = tags
        .event
        .as_deref()
        .ok_or_else(|| missing_event("event"))?;
    macro_rules! e {
        ($var:ident) => {
            decode_struct(line, "event", Some(name)).map(LifecycleEvent::$var)
        };
    }
    let ev = match name {
        "session_start" => e!(SessionStart),
        "session_end" => e!(SessionEnd),
        "user_prompt_submit" => e!(UserPromptSubmit),
        "turn_start" => e!(TurnStart),
        "turn_end" => e!(TurnEnd),
        "tool_call" => e!(ToolCall),
        "tool_result" => e!(ToolResult),
        "tool_confirmation_requested" => e!(ToolConfirmationRequested),
        "permission_decision" => e!(PermissionDecision),
        "assistant_message" => e!(AssistantMessage),
        "pre_compact" => e!(PreCompact),
        "post_compact" => e!(PostCompact),
        "subagent_start" => e!(SubagentStart),
        "subagent_stop" => e!(SubagentStop),
        other => {
            return Ok(HostFrame::UnknownEvent(UnknownEvent {
                event: other.to_owned(),
                id: String::new(),
                raw: raw_line(line),
            }))
        }
    }?;
    Ok(HostFrame::Event(ev))
}

fn decode_intercept(line: &str, tags: &Tags<'_>) -> Result<HostFrame, DecodeError> {
    let name = tags
        .event
        .as_deref()
        .ok_or_else(|| missing_event("event_intercept"))?;
    macro_rules! i {
        ($var:ident) => {
            decode_struct(line, "event_intercept", Some(name)).map(InterceptRequest::$var)
        };
    }
    let req = match name {
        "tool_call" => i!(ToolCall),
        "turn_start" => i!(TurnStart),
        "assistant_message" => i!(AssistantMessage),
        "before_agent_start" => i!(BeforeAgentStart),
        other => {
            return Ok(HostFrame::UnknownIntercept(UnknownEvent {
                event: other.to_owned(),
                id: tags.id.as_deref().unwrap_or_default().to_owned(),
                raw: raw_line(line),
            }))
        }
    }?;
    Ok(HostFrame::EventIntercept(req))
}

macro_rules! deserialize_via_decode {
    ($ty:ty) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let raw = Box::<RawValue>::deserialize(d)?;
                <$ty as Frame>::decode_str(raw.get()).map_err(serde::de::Error::custom)
            }
        }
    };
}

deserialize_via_decode!(ExtFrame);
deserialize_via_decode!(HostFrame);
