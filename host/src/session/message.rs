//! What the conversation is made of: its messages, and its size as
//! `pre_compact` / `post_compact` report it (HOST-143).
//!
//! A leaf: the live model ([`crate::model`]) and the session state both
//! build on it, and it uses neither.

/// One conversation entry (what the model would see).
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A user message.
    User(String),
    /// An assistant message with its tool calls `(tool_id, name, args, origin_extension)`.
    Assistant {
        /// The model's original text.
        text: String,
        /// Tool calls.
        tool_calls: Vec<(String, String, String, String)>,
    },
    /// A tool result.
    ToolResult {
        /// Tool id.
        tool_id: String,
        /// Full text (never shortened).
        text: String,
        /// Error result.
        is_error: bool,
    },
    /// A compaction summary.
    Summary(String),
}

impl Message {
    /// Its serialized text bytes as HOST-143 counts them: the texts, and
    /// the argument text of each tool call.
    pub fn text_bytes(&self) -> usize {
        match self {
            Message::User(t) | Message::Summary(t) => t.len(),
            Message::Assistant { text, tool_calls } => {
                text.len() + tool_calls.iter().map(|c| c.2.len()).sum::<usize>()
            }
            Message::ToolResult { text, .. } => text.len(),
        }
    }
}

/// The conversation as `pre_compact` / `post_compact` report it: the
/// message count and the token estimate (HOST-143). The reference host has
/// no model that would read the messages, so it keeps their count and text
/// bytes instead of the texts: a session of any length holds the same.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Conversation {
    /// Messages.
    pub messages: u64,
    /// Their serialized text bytes ([`Message::text_bytes`]).
    pub text_bytes: u64,
}

impl Conversation {
    /// Adds a message.
    pub fn push(&mut self, m: Message) {
        self.count(&m);
    }

    /// Counts a message kept elsewhere.
    pub fn count(&mut self, m: &Message) {
        self.messages += 1;
        self.text_bytes += m.text_bytes() as u64;
    }

    /// Empties the conversation.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Serialized text bytes ÷ 4 (HOST-143).
    pub fn token_estimate(&self) -> u64 {
        self.text_bytes / zot_protocol::limits::TOKEN_ESTIMATE_DIVISOR
    }
}
