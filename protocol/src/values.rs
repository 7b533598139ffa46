//! The closed value sets of the protocol (capabilities, exposure, levels,
//! statuses, decisions...).
//!
//! Every set is an enum with one variant per documented value plus
//! `Other(String)`, so that a value added by a newer peer decodes instead of
//! failing the whole frame (forward compatibility, WIRE-4/WIRE-12). Where the
//! spec *rejects* unknown values (e.g. `exposure`), the validation functions
//! in [`crate::validate`] say so.

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! string_enum {
    (
        $(#[doc = $doc:literal])+
        $name:ident {
            $( $(#[doc = $vdoc:literal])+ $var:ident = $s:literal, )+
        }
    ) => {
        $(#[doc = $doc])+
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[doc = $vdoc])+ $var, )+
            /// A value this version does not know, kept verbatim.
            Other(String),
        }

        impl $name {
            /// The documented wire values, in the spec's order.
            pub const KNOWN: &'static [&'static str] = &[$($s),+];

            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$var => $s, )+
                    Self::Other(s) => s,
                }
            }

            /// Whether this is one of the documented values.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Other(_))
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $( $s => Self::$var, )+
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                match Self::from(s.as_str()) {
                    Self::Other(_) => Self::Other(s),
                    known => known,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
                Ok(Self::from(s.as_ref()))
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                let doc = [$($doc),+].map(str::trim).join("\n");
                json_schema!({
                    "description": doc,
                    "type": "string",
                    "enum": Self::KNOWN,
                })
            }
        }
    };
}

string_enum! {
    /// A capability string of `hello.capabilities` or `hello_ack.capabilities`
    /// (§3). Exact and case-sensitive; unknown ones enable nothing.
    Capability {
        /// The extension registers slash commands (informational).
        Commands = "commands",
        /// The extension registers tools (informational).
        Tools = "tools",
        /// The extension subscribes to lifecycle events (informational).
        Events = "events",
        /// The extension opens panels (informational).
        Panels = "panels",
        /// The extension wants `tool_cancel` frames.
        ToolCancel = "tool_cancel",
        /// Extension: it sends `call_tool`; host: it accepts `call_tool`.
        CallTool = "call_tool",
        /// Host only: continuous mode, durable `call_tool` keys accepted.
        CallToolDurable = "call_tool_durable",
    }
}

string_enum! {
    /// How a registered tool is advertised (§7.1). An unknown value makes the
    /// host skip the tool.
    Exposure {
        /// Advertised eagerly to the model; callable from scripts too (default).
        Direct = "direct",
        /// Callable and discoverable from codemode scripts, no eager definition.
        Codemode = "codemode",
        /// Discoverable without inline declaration until activated.
        Deferred = "deferred",
        /// Advertised to the model, not callable from scripts.
        ModelOnly = "model-only",
    }
}

string_enum! {
    /// The level of a `notify` note (§14.2).
    NotifyLevel {
        /// Muted informational note.
        Info = "info",
        /// Something worked.
        Success = "success",
        /// Something needs attention.
        Warn = "warn",
        /// Something failed.
        Error = "error",
    }
}

string_enum! {
    /// The `action` of a `command_response` (§10.2). Empty means `noop`.
    CommandAction {
        /// Submit `prompt` as a new user message.
        Prompt = "prompt",
        /// Submit `prompt` and run `tool_name` with `tool_args` first.
        ToolPrompt = "tool_prompt",
        /// Insert `insert` into the editor.
        Insert = "insert",
        /// Show `display` once as a note.
        Display = "display",
        /// Open the panel `open_panel`.
        OpenPanel = "open_panel",
        /// Nothing: the extension handled it.
        Noop = "noop",
    }
}

string_enum! {
    /// A normalized key name of `panel_key` (§4.4.8).
    PanelKeyName {
        /// Arrow up.
        Up = "up",
        /// Arrow down.
        Down = "down",
        /// Arrow left.
        Left = "left",
        /// Arrow right.
        Right = "right",
        /// Enter / return.
        Enter = "enter",
        /// Escape (hosts close the panel instead of sending it; accept it anyway).
        Esc = "esc",
        /// Tab.
        Tab = "tab",
        /// Page up.
        PageUp = "pageup",
        /// Page down.
        PageDown = "pagedown",
        /// Home.
        Home = "home",
        /// End.
        End = "end",
        /// Backspace.
        Backspace = "backspace",
        /// Delete.
        Delete = "delete",
        /// A typed character, carried in `text`.
        Rune = "rune",
        /// Anything else (sent by the stored TUI).
        Unknown = "unknown",
    }
}

string_enum! {
    /// The terminal outcome of a client tool call (`tool_result` event, §12.2).
    ToolStatus {
        /// The tool ran and returned.
        Completed = "completed",
        /// Unknown tool, panic or error result.
        Failed = "failed",
        /// Refused by a guard or policy.
        Blocked = "blocked",
        /// Cancelled.
        Cancelled = "cancelled",
        /// A deadline passed.
        TimedOut = "timed_out",
    }
}

string_enum! {
    /// The outcome of a compaction attempt or a swarm runner (§12.2).
    RunStatus {
        /// Finished.
        Completed = "completed",
        /// Failed.
        Failed = "failed",
        /// Cancelled.
        Cancelled = "cancelled",
        /// A deadline passed.
        TimedOut = "timed_out",
    }
}

string_enum! {
    /// The value of a `permission_decision` (§12.6).
    Decision {
        /// Allowed (by the user, a remembered approval, policy or yolo mode).
        Approved = "approved",
        /// Refused.
        Denied = "denied",
        /// The approval was cancelled.
        Cancelled = "cancelled",
    }
}

string_enum! {
    /// Who resolved a `permission_decision` (§12.6).
    DecisionSource {
        /// The user answered.
        User = "user",
        /// A remembered approval.
        Remembered = "remembered",
        /// A policy (guards, preview failures, no confirmer).
        Policy = "policy",
        /// Yolo mode approves everything.
        Yolo = "yolo",
    }
}

string_enum! {
    /// Where a `permission_decision` was taken (§12.6).
    DecisionStage {
        /// Before the tool ran.
        PreExecution = "pre_execution",
        /// Inside the tool (a tool-local refusal).
        ToolExecution = "tool_execution",
    }
}

string_enum! {
    /// Why a session ended (§12.7).
    SessionEndReason {
        /// The host is shutting down.
        Shutdown = "shutdown",
        /// Another conversation became active.
        SessionSwitch = "session_switch",
        /// The working directory changed.
        CwdChange = "cwd_change",
    }
}

/// The fourteen observational lifecycle event names (§12.1), in the order
/// the spec lists them.
pub const LIFECYCLE_EVENT_NAMES: [&str; 14] = [
    "session_start",
    "session_end",
    "user_prompt_submit",
    "turn_start",
    "turn_end",
    "tool_call",
    "tool_result",
    "tool_confirmation_requested",
    "permission_decision",
    "assistant_message",
    "pre_compact",
    "post_compact",
    "subagent_start",
    "subagent_stop",
];

/// The interceptable event names in the order SDKs list them in
/// `subscribe.intercept` (SDK-10, OP-21).
pub const INTERCEPTABLE_EVENT_NAMES: [&str; 4] = [
    "before_agent_start",
    "tool_call",
    "turn_start",
    "assistant_message",
];

/// The built-in tool names that always shadow extension tools (§6.2).
pub const BUILTIN_TOOL_NAMES: [&str; 5] = ["read", "write", "edit", "bash", "skill"];

/// The capabilities every project SDK advertises, in Go SDK order (SDK-2).
pub const SDK_CAPABILITIES: [&str; 6] = [
    "commands",
    "tools",
    "events",
    "panels",
    "tool_cancel",
    "call_tool",
];
