//! The conversation as the session keeps it: who answers (provider,
//! model), the system prompt (the base one and the one in force after the
//! last `before_agent_start` pass), the conversation's size, and the
//! messages themselves when a live model is sent them.

use crate::session::message::{Conversation, Message};

/// The conversation's state (the session engine holds it in one mutex).
#[derive(Debug)]
pub(crate) struct Dialogue {
    /// Provider.
    pub(crate) provider: String,
    /// Model.
    pub(crate) model: String,
    /// The conversation (its size).
    pub(crate) conversation: Conversation,
    /// The base system prompt.
    pub(crate) base_prompt: String,
    /// The prompt in force after the last `before_agent_start` pass.
    pub(crate) prompt: Option<String>,
    /// The messages themselves, kept only for a live model (which is sent
    /// them); the scripted model needs only the sizes above.
    pub(crate) history: Option<crate::model::History>,
}

impl Dialogue {
    /// A new, empty conversation with `model` of `provider`.
    pub(crate) fn new(provider: String, model: String, base_prompt: String) -> Self {
        Self {
            provider,
            model,
            conversation: Conversation::default(),
            base_prompt,
            prompt: None,
            history: None,
        }
    }

    /// Adds a message to the conversation (and to a live model's history).
    pub(crate) fn converse(&mut self, m: Message) {
        self.conversation.count(&m);
        if let Some(h) = &mut self.history {
            h.push(m);
        }
    }

    /// Empties the conversation.
    pub(crate) fn forget_conversation(&mut self) {
        self.conversation.clear();
        if let Some(h) = &mut self.history {
            h.clear();
        }
    }
}
