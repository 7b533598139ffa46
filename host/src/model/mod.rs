//! A live model: the agent loop's turns come from a real model over the
//! OpenAI-compatible chat completions API (`POST {url}/chat/completions`),
//! as served by OpenAI and by local servers such as ollama, llama.cpp's
//! `llama-server`, vLLM or LM Studio. The scripted model (a script's
//! `replies`) stays the default; `--model-url` switches `run`, `inspect`
//! and `dev` to a live one.
//!
//! Each model step sends the system prompt in force (after the
//! `before_agent_start` interceptors), the conversation so far and the
//! tools advertised to the model with their JSON Schemas; the reply's text
//! and tool calls become the step's turn, which then runs through the
//! host's usual pipeline (interception, confirmation, the extension's tool,
//! `tool_result`), and the results go back to the model on the next step.

mod chat;
mod http;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

pub use chat::{ChatTool, ModelTurn};

use crate::session::Message;

/// The environment variable the API key is read from by default.
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";

/// How long one model request may take (local models on a CPU are slow).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(300);

/// The most model steps one prompt runs before the host stops the loop (a
/// model that keeps calling tools would otherwise run forever).
pub const DEFAULT_MAX_STEPS: u32 = 50;

/// The conversation bytes kept for the model: the oldest messages go first
/// beyond this (a model's context is smaller anyway), so a long session's
/// memory stays bounded.
pub const MAX_HISTORY_BYTES: usize = 4 << 20;

/// The command-line options of a live model, shared by `run`, `inspect`
/// and `dev`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// Drive turns with a live model at this OpenAI-compatible API base URL
    /// (e.g. http://127.0.0.1:11434/v1 for ollama); without it the scripted
    /// model answers.
    #[arg(long = "model-url", value_name = "URL")]
    pub url: Option<String>,
    /// The model name sent to the API (required with --model-url).
    #[arg(long = "model", value_name = "NAME", requires = "url")]
    pub model: Option<String>,
    /// The environment variable holding the API key, sent as a bearer token
    /// (unset: no key, as local servers expect).
    #[arg(long = "model-key-env", value_name = "VAR", default_value = DEFAULT_KEY_ENV)]
    pub key_env: String,
    /// The most model steps one prompt may take.
    #[arg(long = "model-max-steps", value_name = "N", default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: u32,
}

impl ModelArgs {
    /// The live model these options ask for, `None` for the scripted one;
    /// an error names the option at fault.
    pub fn resolve(&self) -> Result<Option<Arc<LiveModel>>, String> {
        let Some(url) = &self.url else {
            return Ok(None);
        };
        let model = self
            .model
            .clone()
            .ok_or("--model-url needs --model NAME (the model the API should run)")?;
        let key = std::env::var(&self.key_env).ok().filter(|k| !k.is_empty());
        let endpoint = http::Endpoint::parse(url).map_err(|e| format!("--model-url {url}: {e}"))?;
        Ok(Some(Arc::new(LiveModel {
            endpoint,
            model,
            key,
            max_steps: self.max_steps.max(1),
        })))
    }
}

/// A live model endpoint.
#[derive(Debug)]
pub struct LiveModel {
    endpoint: http::Endpoint,
    model: String,
    key: Option<String>,
    max_steps: u32,
}

impl LiveModel {
    /// A model at `url` (the API base, e.g. `http://127.0.0.1:8080/v1`).
    pub fn new(url: &str, model: &str, key: Option<String>) -> Result<Self, String> {
        Ok(Self {
            endpoint: http::Endpoint::parse(url)?,
            model: model.to_owned(),
            key,
            max_steps: DEFAULT_MAX_STEPS,
        })
    }

    /// The model name.
    pub fn name(&self) -> &str {
        &self.model
    }

    /// The most steps one prompt may take.
    pub fn max_steps(&self) -> u32 {
        self.max_steps
    }

    /// Asks the model for its next turn.
    pub async fn next_turn(
        &self,
        system: &str,
        history: &History,
        tools: &[ChatTool],
    ) -> Result<ModelTurn, String> {
        let body = chat::request(&self.model, system, history.messages(), tools);
        let reply = http::post_json(
            &self.endpoint,
            "chat/completions",
            self.key.as_deref(),
            &body,
            REQUEST_TIMEOUT,
        )
        .await
        .map_err(|e| format!("model request to {} failed: {e}", self.endpoint))?;
        chat::parse_reply(&reply).map_err(|e| format!("model reply from {}: {e}", self.endpoint))
    }
}

/// The messages a live model sees, bounded by [`MAX_HISTORY_BYTES`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    messages: VecDeque<Message>,
    bytes: usize,
}

impl History {
    /// Adds a message, dropping the oldest beyond the bound (never leaving a
    /// tool result without the call it answers at the front).
    pub fn push(&mut self, m: Message) {
        self.bytes += m.text_bytes();
        self.messages.push_back(m);
        while self.bytes > MAX_HISTORY_BYTES && self.messages.len() > 1 {
            self.drop_front();
            while matches!(self.messages.front(), Some(Message::ToolResult { .. })) {
                self.drop_front();
            }
        }
    }

    fn drop_front(&mut self) {
        if let Some(m) = self.messages.pop_front() {
            self.bytes -= m.text_bytes();
        }
    }

    /// Empties it (a new session).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// The messages, oldest first.
    pub fn messages(&self) -> impl Iterator<Item = &Message> {
        self.messages.iter()
    }
}

/// The JSON of a turn as a script's `replies` holds it, so that a live
/// session exported from `inspect` replays with the same turns.
pub fn turn_json(turn: &ModelTurn) -> Value {
    turn.script.clone()
}
