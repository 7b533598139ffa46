//! Shared payloads: content blocks, panels, observed results.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// One block of tool output (§4.2.1): text, or a base64 image.
///
/// Other block types decode to an explicit unknown block so that a receiver
/// can report them (the host turns them into a placeholder text) instead of
/// failing the whole frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// A text block.
    Text {
        /// The text. Empty text blocks are dropped by hosts.
        #[serde(default)]
        text: String,
    },
    /// An image block.
    Image {
        /// MIME type, e.g. `image/png`.
        #[serde(default)]
        mime_type: String,
        /// Standard base64 (with padding) of the image bytes (WIRE-20).
        #[serde(default)]
        data: String,
    },
    /// A block type this version does not know.
    #[serde(untagged)]
    #[schemars(skip)]
    Unknown(UnknownBlock),
}

/// A content block of an unknown `type`; only the type name is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownBlock {
    /// The block's `type`.
    #[serde(rename = "type")]
    pub type_name: String,
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// An image block from already base64-encoded data.
    pub fn image(mime_type: impl Into<String>, base64_data: impl Into<String>) -> Self {
        Self::Image {
            mime_type: mime_type.into(),
            data: base64_data.into(),
        }
    }

    /// The block's text, if it is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            _ => None,
        }
    }

    /// The wire `type` of the block.
    pub fn type_name(&self) -> &str {
        match self {
            Self::Text { .. } => "text",
            Self::Image { .. } => "image",
            Self::Unknown(u) => &u.type_name,
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // A flat helper instead of serde's tagged-enum buffering: it decodes
        // in one pass and lets unknown block types through.
        #[derive(Deserialize)]
        struct Flat {
            #[serde(rename = "type")]
            type_name: String,
            #[serde(default)]
            text: String,
            #[serde(default)]
            mime_type: String,
            #[serde(default)]
            data: String,
        }
        let f = Flat::deserialize(d)?;
        Ok(match f.type_name.as_str() {
            "text" => Self::Text { text: f.text },
            "image" => Self::Image {
                mime_type: f.mime_type,
                data: f.data,
            },
            _ => Self::Unknown(UnknownBlock {
                type_name: f.type_name,
            }),
        })
    }
}

/// An extension-owned panel (§4.2.2).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PanelSpec {
    /// Extension-chosen id; later frames name it as `panel_id`. Use a unique
    /// id per panel instance.
    pub id: String,
    /// Header text; empty means the host shows the extension name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// Body rows (may contain ANSI styling). Rows starting with `▸ `, `● ` or
    /// U+200B are shown as selected.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// Key-hint line under the body.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub footer: String,
}

/// The observed output of a tool inside a `tool_result` event (§4.2.3),
/// bounded by the observation budget.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EventResult {
    /// Text and base64 image blocks.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Whether the tool reported an error (always emitted).
    #[serde(default)]
    pub is_error: bool,
    /// Something was shortened or omitted to respect the budget.
    #[serde(default, skip_serializing_if = "crate::is_false")]
    pub truncated: bool,
}
