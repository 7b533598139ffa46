//! Frames the extension sends to the host (§4.3).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::{ContentBlock, PanelSpec};
use crate::raw::RawJson;
use crate::values::{Capability, CommandAction, Exposure, NotifyLevel};
use crate::{is_false, UnknownFrame};

/// Every frame an extension writes to its stdout, tagged by `type`.
///
/// A frame of an unknown `type` is not an error: readers get an explicit
/// unknown value carrying the raw frame, and log and skip it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExtFrame {
    /// The first line an extension writes.
    Hello(Hello),
    /// Registers a slash command.
    RegisterCommand(RegisterCommand),
    /// Registers a model-callable tool.
    RegisterTool(RegisterTool),
    /// Subscribes to lifecycle events and interceptions.
    Subscribe(Subscribe),
    /// All initial registrations have been written.
    Ready,
    /// Reply to `command_invoked`.
    CommandResponse(CommandResponse),
    /// Reply to a host `tool_call`.
    ToolResult(ToolResult),
    /// Reply to `event_intercept`.
    EventInterceptResponse(EventInterceptResponse),
    /// Asks the host to run a tool.
    CallTool(CallTool),
    /// Gives up on an outstanding `call_tool`.
    CallToolCancel(CallToolCancel),
    /// Shows a note.
    Notify(Notify),
    /// Removes this extension's notes.
    ClearNotes,
    /// Submits a prompt as if typed (interactive host only).
    Submit(Submit),
    /// Runs a slash command as if typed (code-only; interactive host only).
    SubmitSlash(SubmitSlash),
    /// Opens a panel outside any command (code-only spontaneous form).
    OpenPanel(OpenPanel),
    /// Redraws an open panel.
    PanelRender(PanelRender),
    /// Closes a panel this extension opened.
    PanelClose(PanelClose),
    /// Reply to `shutdown`.
    ShutdownAck,
    /// A frame of a `type` this version does not know.
    #[serde(untagged)]
    #[schemars(skip)]
    Unknown(UnknownFrame),
}

impl ExtFrame {
    /// Every known `type`, in §4.1 order.
    pub const TYPES: [&'static str; 18] = [
        "hello",
        "register_command",
        "register_tool",
        "subscribe",
        "ready",
        "command_response",
        "tool_result",
        "event_intercept_response",
        "call_tool",
        "call_tool_cancel",
        "notify",
        "clear_notes",
        "submit",
        "submit_slash",
        "open_panel",
        "panel_render",
        "panel_close",
        "shutdown_ack",
    ];

    /// The frame's wire `type`.
    pub fn type_name(&self) -> &str {
        match self {
            Self::Hello(_) => "hello",
            Self::RegisterCommand(_) => "register_command",
            Self::RegisterTool(_) => "register_tool",
            Self::Subscribe(_) => "subscribe",
            Self::Ready => "ready",
            Self::CommandResponse(_) => "command_response",
            Self::ToolResult(_) => "tool_result",
            Self::EventInterceptResponse(_) => "event_intercept_response",
            Self::CallTool(_) => "call_tool",
            Self::CallToolCancel(_) => "call_tool_cancel",
            Self::Notify(_) => "notify",
            Self::ClearNotes => "clear_notes",
            Self::Submit(_) => "submit",
            Self::SubmitSlash(_) => "submit_slash",
            Self::OpenPanel(_) => "open_panel",
            Self::PanelRender(_) => "panel_render",
            Self::PanelClose(_) => "panel_close",
            Self::ShutdownAck => "shutdown_ack",
            Self::Unknown(u) => &u.type_name,
        }
    }
}

/// `hello` (§4.3.1): the extension introduces itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct Hello {
    /// Extension name; should equal the manifest `name` (the host keys by the
    /// manifest).
    pub name: String,
    /// Extension version (always emitted, may be empty).
    #[serde(default)]
    pub version: String,
    /// What the extension supports (§3.1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<Capability>,
}

/// `register_command` (§4.3.2).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct RegisterCommand {
    /// Command name without `/`; matched case-insensitively, this spelling is
    /// canonical.
    pub name: String,
    /// Shown in help, autocomplete and `ext doctor`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

/// `register_tool` (§4.3.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct RegisterTool {
    /// Tool name: exact match, shared namespace with the built-in tools.
    pub name: String,
    /// Model-facing description.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// JSON Schema of the arguments (always emitted; `null` or absent reads
    /// as `{"type":"object"}`).
    #[serde(
        default = "RawJson::object_schema",
        deserialize_with = "crate::raw::schema_or_object"
    )]
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub schema: RawJson,
    /// JSON Schema of `structured_content`, for programmatic callers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub output_schema: Option<RawJson>,
    /// Discovery grouping; defaults to the extension name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Used in discovery ranking and `describeNamespace`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace_description: String,
    /// Used in discovery ranking and `describeNamespace`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace_instructions: String,
    /// How the tool is advertised; overrides `deferred`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exposure: Option<Exposure>,
    /// Legacy flag: hidden until activated by `activate_tools`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub deferred: bool,
    /// The tool waits for user input: no host reply deadline in interactive
    /// hosts, rejected by the others.
    #[serde(default, skip_serializing_if = "is_false")]
    pub interactive: bool,
}

impl RegisterTool {
    /// A tool with a name, a description and an argument schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, schema: RawJson) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            schema,
            output_schema: None,
            namespace: String::new(),
            namespace_description: String::new(),
            namespace_instructions: String::new(),
            exposure: None,
            deferred: false,
            interactive: false,
        }
    }

    /// The exposure in force: the explicit one, else `deferred` if the legacy
    /// flag is set, else `direct` (§7.1).
    pub fn effective_exposure(&self) -> Exposure {
        match &self.exposure {
            Some(e) => e.clone(),
            None if self.deferred => Exposure::Deferred,
            None => Exposure::Direct,
        }
    }
}

/// `subscribe` (§4.3.4). Several frames accumulate.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct Subscribe {
    /// Lifecycle events to receive as `event` frames.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// Events to receive as `event_intercept`: `tool_call`, `turn_start`,
    /// `assistant_message`, `before_agent_start`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intercept: Vec<String>,
}

/// `command_response` (§4.3.6), the reply to `command_invoked`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct CommandResponse {
    /// The `command_invoked.id`.
    pub id: String,
    /// What the host should do (always emitted; empty means `noop`).
    #[serde(default = "noop")]
    pub action: CommandAction,
    /// Text for `prompt` / `tool_prompt`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prompt: String,
    /// Tool for `tool_prompt`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// Arguments for `tool_prompt`; must be a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub tool_args: Option<RawJson>,
    /// Text for `insert`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub insert: String,
    /// Text for `display`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub display: String,
    /// Panel for `open_panel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_panel: Option<PanelSpec>,
    /// Non-empty: shown as a red status line and the action is not applied.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}

fn noop() -> CommandAction {
    CommandAction::Noop
}

impl CommandResponse {
    /// A response with the given action and nothing else.
    pub fn new(id: impl Into<String>, action: CommandAction) -> Self {
        Self {
            id: id.into(),
            action,
            prompt: String::new(),
            tool_name: String::new(),
            tool_args: None,
            insert: String::new(),
            display: String::new(),
            open_panel: None,
            error: String::new(),
        }
    }
}

/// `tool_result` from the extension (§4.3.7), the reply to `tool_call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct ToolResult {
    /// The `tool_call.id`.
    pub id: String,
    /// Model-facing blocks (always emitted, may be empty).
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// The call failed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_error: bool,
    /// Registered deferred tools to make available after this result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub activate_tools: Vec<String>,
    /// JSON result for script callers of a tool with an `output_schema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Value>")]
    pub structured_content: Option<RawJson>,
}

/// `event_intercept_response` (§4.3.8). All fields default to "allow,
/// unchanged".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct EventInterceptResponse {
    /// `before_agent_start` only: the complete replacement prompt; `""`
    /// removes it; absent keeps it. `null` decodes as `Some(None)` so the
    /// host can report it as a failure.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::raw::present_or_null"
    )]
    #[schemars(with = "Option<String>")]
    pub system_prompt: Option<Option<String>>,
    /// The `event_intercept.id`.
    pub id: String,
    /// Refuse the action (`tool_call`, `turn_start`, `assistant_message`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub block: bool,
    /// Refusal text on block, otherwise a pass-through note.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// `tool_call` only: rewritten arguments (must be a JSON object; other
    /// values are ignored by the host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub modified_args: Option<RawJson>,
    /// `assistant_message` only: replacement of the user-visible text; empty
    /// means unchanged.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub replace_text: String,
}

impl EventInterceptResponse {
    /// "Allow, unchanged" for the request `id`.
    pub fn allow(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            ..Self::default()
        }
    }

    /// A block with a reason.
    pub fn block(id: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            block: true,
            reason: reason.into(),
            ..Self::default()
        }
    }
}

/// `call_tool` (§4.3.9): run a host tool. `args` must be an object; the host
/// answers violations with an error result, so the field is lenient here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct CallTool {
    /// Extension-chosen, unique among outstanding calls. Empty: ignored.
    #[serde(default)]
    pub id: String,
    /// Tool name in the active registry.
    #[serde(default)]
    pub name: String,
    /// Arguments; must be a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub args: Option<RawJson>,
    /// `tool_call.id` being handled, to compose tools.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parent_id: String,
    /// Durable call key (hosts advertising `call_tool_durable` only).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
}

/// `call_tool_cancel` (§4.3.10).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct CallToolCancel {
    /// The outstanding `call_tool.id`.
    pub id: String,
}

/// `notify` (§4.3.11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct Notify {
    /// Note level.
    pub level: NotifyLevel,
    /// Note text.
    #[serde(default)]
    pub message: String,
}

/// `submit` (§4.3.13).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct Submit {
    /// Prompt text; trimmed, empty is ignored.
    #[serde(default)]
    pub text: String,
}

/// `submit_slash` (§4.3.14, code-only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct SubmitSlash {
    /// Slash command text; must start with `/` after trimming.
    #[serde(default)]
    pub text: String,
}

/// `open_panel` as a spontaneous frame (§4.3.15, code-only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct OpenPanel {
    /// The panel to open now.
    pub panel: PanelSpec,
}

/// `panel_render` (§4.3.16).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct PanelRender {
    /// Target panel.
    pub panel_id: String,
    /// New title; empty keeps the current one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Replaces all body rows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// Replaces the footer.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub footer: String,
}

/// `panel_close`, in either direction (§4.3.17, §4.4.10).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(inline)]
pub struct PanelClose {
    /// The panel.
    pub panel_id: String,
}
