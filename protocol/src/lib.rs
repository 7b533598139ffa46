//! # zot-protocol
//!
//! The single source of truth of the zot extension protocol, version 1: one
//! Rust type for every frame in each direction, the lifecycle events, the
//! value sets, every limit as a named constant, the validation rules the spec
//! puts on values, a line codec (async and blocking) and the JSON Schema the
//! TypeScript and Python types are generated from.
//!
//! ```
//! use zot_protocol::{ExtFrame, Frame, HostFrame};
//!
//! let frame = HostFrame::decode(br#"{"type":"tool_call","id":"7","name":"echo","args":{"text":"hi"}}"#).unwrap();
//! let HostFrame::ToolCall(call) = frame else { panic!() };
//! assert_eq!(call.args.get(), r#"{"text":"hi"}"#);
//!
//! // Unknown frame types decode to an explicit value instead of an error.
//! let unknown = ExtFrame::decode(br#"{"type":"from_the_future","x":1}"#).unwrap();
//! assert_eq!(unknown.type_name(), "from_the_future");
//! ```
//!
//! ## Wire form
//!
//! Frames are encoded compactly with optional keys omitted at their default,
//! and only `"`, `\` and control characters escaped (WIRE-15). One deliberate
//! difference from the key order of docs/protocol.md §4 (which mirrors the Go
//! structs): the discriminator `type` (and `event`) always comes first, so
//! that a streaming reader can dispatch before it has seen the whole object.
//! Receivers never compare raw bytes (OP-33), and since every project SDK
//! encodes through this crate, all of them emit identical bytes.

#![warn(missing_docs)]

// The README's Rust block compiles and runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod codec;
pub mod content;
mod decode;
pub mod depth;
pub mod events;
pub mod ext_frames;
pub mod host_frames;
pub mod limits;
pub mod raw;
pub mod schema;
pub mod validate;
pub mod values;

pub use codec::{encode_frame, CodecError, FrameReader, FrameWriter, LineReader, LineSplitter};
pub use content::{ContentBlock, EventResult, PanelSpec, UnknownBlock};
pub use decode::{DecodeError, Frame, FrameTags, LONE_SURROGATE};
pub use events::{
    AssistantMessageEvent, AssistantMessageIntercept, BeforeAgentStartIntercept, EventPayload,
    InterceptRequest, LifecycleEvent, PermissionDecisionEvent, PostCompactEvent, PreCompactEvent,
    SessionEndEvent, SessionStartEvent, SubagentStartEvent, SubagentStopEvent, ToolCallEvent,
    ToolCallIntercept, ToolConfirmationRequestedEvent, ToolResultEvent, TurnEndEvent,
    TurnStartEvent, TurnStartIntercept, UnknownEvent, UserPromptSubmitEvent,
};
pub use ext_frames::{
    CallTool, CallToolCancel, CommandResponse, EventInterceptResponse, ExtFrame, Hello, Notify,
    OpenPanel, PanelClose, PanelRender, RegisterCommand, RegisterTool, Submit, SubmitSlash,
    Subscribe, ToolResult,
};
pub use host_frames::{
    CommandInvoked, HelloAck, HostFrame, HostToolResult, PanelKey, PanelResize, ToolCall,
    ToolCancel,
};
pub use raw::RawJson;
pub use values::{
    Capability, CommandAction, Decision, DecisionSource, DecisionStage, Exposure, NotifyLevel,
    PanelKeyName, RunStatus, SessionEndReason, ToolStatus,
};

use serde::{Serialize, Serializer};

/// A frame of a `type` this version does not know, kept as its raw line so a
/// reader can log it, forward it, or skip it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownFrame {
    /// The frame's `type`.
    pub type_name: String,
    /// The whole frame.
    pub raw: RawJson,
}

impl Serialize for UnknownFrame {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}
