//! Frames the host sends to the extension (§4.4).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::ContentBlock;
use crate::events::{InterceptRequest, LifecycleEvent, UnknownEvent};
use crate::ext_frames::PanelClose;
use crate::raw::RawJson;
use crate::values::{Capability, PanelKeyName};
use crate::{is_false, UnknownFrame};

/// Every frame a host writes to an extension's stdin, tagged by `type`.
///
/// An unknown `type`, and an `event` or `event_intercept` with an unknown
/// event name, are not errors: readers get explicit unknown values carrying
/// the raw frame (an unknown interception keeps its `id`, because it must
/// still be answered).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostFrame {
    /// The host's answer to `hello`.
    HelloAck(HelloAck),
    /// The user ran a registered slash command.
    CommandInvoked(CommandInvoked),
    /// The model (or `call_tool`) invoked a registered tool.
    ToolCall(ToolCall),
    /// The host gave up on a `tool_call`.
    ToolCancel(ToolCancel),
    /// The answer to the extension's `call_tool`.
    ToolResult(HostToolResult),
    /// A lifecycle notification.
    Event(LifecycleEvent),
    /// A request to block or rewrite an event.
    EventIntercept(InterceptRequest),
    /// A key press in the extension's focused panel.
    PanelKey(PanelKey),
    /// The panel's size changed (code-only; never sent by the reference host).
    PanelResize(PanelResize),
    /// The user closed the panel.
    PanelClose(PanelClose),
    /// Graceful stop: answer `shutdown_ack` and exit.
    Shutdown,
    /// A frame of a `type` this version does not know.
    #[serde(untagged)]
    #[schemars(skip)]
    Unknown(UnknownFrame),
    /// An `event` frame with an unknown event name.
    #[serde(untagged)]
    #[schemars(skip)]
    UnknownEvent(UnknownEvent),
    /// An `event_intercept` frame with an unknown event name.
    #[serde(untagged)]
    #[schemars(skip)]
    UnknownIntercept(UnknownEvent),
}

impl HostFrame {
    /// Every known `type`, in §4.1 order.
    pub const TYPES: [&'static str; 11] = [
        "hello_ack",
        "command_invoked",
        "tool_call",
        "tool_cancel",
        "tool_result",
        "event",
        "event_intercept",
        "panel_key",
        "panel_resize",
        "panel_close",
        "shutdown",
    ];

    /// The frame's wire `type`.
    pub fn type_name(&self) -> &str {
        match self {
            Self::HelloAck(_) => "hello_ack",
            Self::CommandInvoked(_) => "command_invoked",
            Self::ToolCall(_) => "tool_call",
            Self::ToolCancel(_) => "tool_cancel",
            Self::ToolResult(_) => "tool_result",
            Self::Event(_) | Self::UnknownEvent(_) => "event",
            Self::EventIntercept(_) | Self::UnknownIntercept(_) => "event_intercept",
            Self::PanelKey(_) => "panel_key",
            Self::PanelResize(_) => "panel_resize",
            Self::PanelClose(_) => "panel_close",
            Self::Shutdown => "shutdown",
            Self::Unknown(u) => &u.type_name,
        }
    }
}

/// `hello_ack` (§4.4.1).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct HelloAck {
    /// Always 1 (`limits::PROTOCOL_VERSION`).
    pub protocol_version: u32,
    /// What the host supports (§3.2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<Capability>,
    /// Host version.
    #[serde(default)]
    pub zot_version: String,
    /// Active provider id.
    #[serde(default)]
    pub provider: String,
    /// Active model id.
    #[serde(default)]
    pub model: String,
    /// The user's project directory (not the extension's own cwd).
    #[serde(default)]
    pub cwd: String,
    /// The extension's own directory.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub extension_dir: String,
    /// Where the extension keeps its state.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub data_dir: String,
}

impl HelloAck {
    /// Whether the host advertised a capability.
    pub fn has(&self, cap: &Capability) -> bool {
        self.capabilities.contains(cap)
    }
}

/// `command_invoked` (§4.4.2).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct CommandInvoked {
    /// Host correlation id.
    pub id: String,
    /// The canonical (registered) spelling of the command.
    pub name: String,
    /// The trimmed rest of the user's input.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub args: String,
}

/// `tool_call` (§4.4.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct ToolCall {
    /// Opaque correlation id; usable as `call_tool.parent_id` while
    /// outstanding.
    pub id: String,
    /// Registered tool name.
    pub name: String,
    /// Arguments (a JSON object; `{}` when the model sent none).
    #[serde(default = "RawJson::empty_object")]
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub args: RawJson,
}

/// `tool_cancel` (§4.4.4).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct ToolCancel {
    /// The abandoned `tool_call.id`.
    pub id: String,
}

/// `tool_result` from the host (§4.4.5): the answer to `call_tool`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct HostToolResult {
    /// The `call_tool.id`.
    pub id: String,
    /// The requested tool name.
    #[serde(default)]
    pub name: String,
    /// Text and base64 image blocks, within the observation budget.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Tool failure, refusal, unknown tool or rule violation.
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_error: bool,
    /// Content was shortened or blocks omitted.
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
}

impl HostToolResult {
    /// The first text block, or `""`.
    pub fn first_text(&self) -> &str {
        self.content
            .iter()
            .find_map(ContentBlock::as_text)
            .unwrap_or("")
    }
}

/// `panel_key` (§4.4.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct PanelKey {
    /// Focused panel.
    pub panel_id: String,
    /// Normalized key name.
    pub key: PanelKeyName,
    /// The typed character when `key` is `rune`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// `panel_resize` (§4.4.9, code-only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct PanelResize {
    /// Panel.
    pub panel_id: String,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}
