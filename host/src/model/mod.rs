//! A live model: the agent loop's turns come from a real model over the
//! OpenAI-compatible chat completions API (`POST {url}/chat/completions`),
//! as served by OpenAI, OpenRouter, Groq, Mistral and the others of
//! `--provider`, and by local servers such as ollama, llama.cpp's
//! `llama-server`, vLLM or LM Studio. The scripted model (a script's
//! `replies`) stays the default; `--model-url` or `--provider` switches
//! `run`, `inspect` and `dev` to a live one.
//!
//! Each model step sends the system prompt in force (after the
//! `before_agent_start` interceptors), the conversation so far and the
//! tools advertised to the model with their JSON Schemas; the reply's text
//! and tool calls become the step's turn, which then runs through the
//! host's usual pipeline (interception, confirmation, the extension's tool,
//! `tool_result`), and the results go back to the model on the next step.
//! Replies are streamed by default; a streamed turn is the same turn as a
//! whole one (`stream`).
//!
//! Owns the chat API: the request, its transport, retries and the reading
//! of replies. The agent loop ([`crate::session`]) asks it for a turn,
//! given as the session's messages and answered as a script turn; it may
//! not talk to extensions (it only withholds its key from their
//! environment) nor touch what drives a session (the CLI, [`crate::live`],
//! [`crate::inspect`], [`crate::dev`]).

mod chat;
mod failure;
mod http;
mod options;
pub(crate) mod providers;
mod read;
mod sse;
mod stream;
mod tls;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::body::Bytes;
use serde_json::Value;

pub use chat::{ChatTool, ModelTurn, Usage};
pub use http::Timeouts;
pub use options::ModelArgs;

use failure::Failure;

use crate::session::message::Message;

/// The environment variable the API key is read from by default (with
/// `--model-url` and no `--provider`).
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";

/// The most model steps one prompt runs before the host stops the loop (a
/// model that keeps calling tools would otherwise run forever).
pub const DEFAULT_MAX_STEPS: u32 = 50;

/// The conversation bytes kept for the model: the oldest messages go first
/// beyond this (a model's context is smaller anyway), so a long session's
/// memory stays bounded.
pub const MAX_HISTORY_BYTES: usize = 4 << 20;

/// The longest `retry-after` waited for; a provider asking for more (a
/// quota that resets in an hour) gets an error at once.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// The longest pause between two attempts without a `retry-after`.
const MAX_BACKOFF: Duration = Duration::from_secs(8);

/// How a live model is reached, besides where.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Ask for a streamed reply (`stream: true`).
    pub stream: bool,
    /// The timeouts of each request.
    pub timeouts: Timeouts,
    /// New attempts after a failure that may pass (see
    /// [`MAX_RETRY_AFTER`]): 0 tries once.
    pub retries: u32,
    /// The first pause between attempts; each next one doubles (up to 8 s).
    pub backoff: Duration,
    /// Certificates (PEM) trusted besides the built-in roots.
    pub ca_file: Option<PathBuf>,
    /// The most model steps one prompt may take.
    pub max_steps: u32,
    /// The provider named to extensions (`hello_ack`).
    pub provider: String,
    /// The variable the key came from, named when the API refuses it.
    pub key_env: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            stream: true,
            timeouts: Timeouts::default(),
            retries: 2,
            backoff: Duration::from_millis(500),
            ca_file: None,
            max_steps: DEFAULT_MAX_STEPS,
            provider: "openai-compatible".into(),
            key_env: None,
        }
    }
}

/// What a live model is doing, for a front end that shows it as it comes.
#[derive(Debug, Clone, Copy)]
pub enum ModelEvent<'a> {
    /// A piece of the streamed text.
    Text(&'a str),
    /// An attempt failed; another follows after `wait`.
    Retrying {
        /// Why (the failure's line).
        why: &'a str,
        /// The pause before it.
        wait: Duration,
    },
    /// The request is over (its turn or its error follows).
    End,
}

/// Sees a live model's [`ModelEvent`]s.
pub type ModelObserver = Arc<dyn Fn(ModelEvent<'_>) + Send + Sync>;

/// A live model endpoint.
pub struct LiveModel {
    endpoint: http::Endpoint,
    model: String,
    key: Option<String>,
    tls: Option<Arc<rustls::ClientConfig>>,
    settings: Settings,
    observer: Mutex<Option<ModelObserver>>,
    last_failure: Mutex<Option<String>>,
}

impl std::fmt::Debug for LiveModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveModel")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl LiveModel {
    /// A model at `url` (the API base, e.g. `http://127.0.0.1:8080/v1`)
    /// with the default settings.
    pub fn new(url: &str, model: &str, key: Option<String>) -> Result<Self, String> {
        Self::with(url, model, key, Settings::default())
    }

    /// A model at `url` with these settings; the error names what is
    /// wrong (the URL, the CA file).
    pub fn with(
        url: &str,
        model: &str,
        key: Option<String>,
        settings: Settings,
    ) -> Result<Self, String> {
        let endpoint = http::Endpoint::parse(url)?;
        let tls = if endpoint.is_tls() {
            Some(
                tls::client_config(settings.ca_file.as_deref()).map_err(|e| {
                    match &settings.ca_file {
                        Some(p) => format!("--model-ca-file {}: {e}", p.display()),
                        None => e,
                    }
                })?,
            )
        } else {
            None
        };
        Ok(Self {
            endpoint,
            model: model.to_owned(),
            key,
            tls,
            settings,
            observer: Mutex::new(None),
            last_failure: Mutex::new(None),
        })
    }

    /// The model name.
    pub fn name(&self) -> &str {
        &self.model
    }

    /// The provider named to extensions.
    pub fn provider(&self) -> &str {
        &self.settings.provider
    }

    /// The most steps one prompt may take.
    pub fn max_steps(&self) -> u32 {
        self.settings.max_steps.max(1)
    }

    /// Shows each request's progress to `observer` (streamed text, retries).
    pub fn observe(&self, observer: ModelObserver) {
        *lock(&self.observer) = Some(observer);
    }

    /// The last request that failed, as its error line (a run that had one
    /// fails).
    pub fn last_failure(&self) -> Option<String> {
        lock(&self.last_failure).clone()
    }

    fn notify(&self, e: ModelEvent<'_>) {
        let observer = lock(&self.observer).clone();
        if let Some(o) = observer {
            o(e);
        }
    }

    /// Asks the model for its next turn, trying again after a failure that
    /// may pass; the error is one line naming the URL and the cause.
    pub async fn next_turn(
        &self,
        system: &str,
        history: &History,
        tools: &[ChatTool],
    ) -> Result<ModelTurn, String> {
        let body = chat::request(
            &self.model,
            system,
            history.messages(),
            tools,
            self.settings.stream,
        );
        let body = Bytes::from(body.to_string());
        let mut attempt = 1;
        let result = loop {
            match self.attempt(body.clone()).await {
                Ok(turn) => break Ok(turn),
                Err(f) => match self.pause_before_retry(&f, attempt) {
                    Some(wait) => {
                        let why = f.to_string();
                        tracing::info!("model request failed ({why}); retrying in {wait:?}");
                        self.notify(ModelEvent::Retrying { why: &why, wait });
                        tokio::time::sleep(wait).await;
                        attempt += 1;
                    }
                    None => break Err(self.error_line(&f, attempt)),
                },
            }
        };
        self.notify(ModelEvent::End);
        if let Err(e) = &result {
            *lock(&self.last_failure) = Some(e.clone());
        }
        result
    }

    async fn attempt(&self, body: Bytes) -> Result<ModelTurn, Failure> {
        let accept = if self.settings.stream {
            "text/event-stream"
        } else {
            "application/json"
        };
        let req = http::Post {
            path: "chat/completions",
            key: self.key.as_deref(),
            body,
            accept,
        };
        let timeouts = self.settings.timeouts;
        let reply = http::post(&self.endpoint, self.tls.as_ref(), req, timeouts).await?;
        let on_text = |t: &str| self.notify(ModelEvent::Text(t));
        read::turn(reply, timeouts.idle, &on_text).await
    }

    /// The pause before the next attempt, or `None` to give up.
    fn pause_before_retry(&self, f: &Failure, attempt: u32) -> Option<Duration> {
        if !f.retryable() || attempt > self.settings.retries {
            return None;
        }
        match f.retry_after() {
            Some(d) if d <= MAX_RETRY_AFTER => Some(d),
            Some(_) => None,
            None => Some(backoff(self.settings.backoff, attempt)),
        }
    }

    /// The error line: the URL, the cause, what may help, the attempts.
    fn error_line(&self, f: &Failure, attempts: u32) -> String {
        let mut line = format!("model request to {} failed: {f}", self.endpoint);
        match f {
            Failure::Status {
                code: 401 | 403, ..
            } => line.push_str(&match (&self.settings.key_env, &self.key) {
                (Some(var), Some(_)) => format!(" (the key is ${var}'s)"),
                (Some(var), None) => format!(" (no key was sent: ${var} is unset)"),
                (None, _) => " (no key was sent: name its variable with --model-key-env)".into(),
            }),
            Failure::Status { code: 404, .. } => line.push_str(&format!(
                " (is the model name `{}` right, and the URL the API's base, e.g. .../v1?)",
                self.model
            )),
            _ => {}
        }
        if f.retry_after().is_some_and(|d| d > MAX_RETRY_AFTER) {
            line.push_str(&format!(
                "; not retried: the wait is longer than {}",
                failure::secs(MAX_RETRY_AFTER)
            ));
        }
        if attempts > 1 {
            line.push_str(&format!("; gave up after {attempts} attempts"));
        }
        line
    }
}

/// `base` doubled per attempt, at most [`MAX_BACKOFF`], less up to a
/// quarter at random so that many clients do not retry in step.
fn backoff(base: Duration, attempt: u32) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let d = base
        .saturating_mul(1 << (attempt - 1).min(16))
        .min(MAX_BACKOFF);
    // A random number without a crate: std's hasher keys are random.
    let r = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let jitter = (r % 1000) as f64 / 4000.0;
    d.mul_f64(1.0 - jitter)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_its_cap_with_less_than_a_quarter_off() {
        let base = Duration::from_millis(500);
        for (attempt, full) in [(1, 500), (2, 1000), (3, 2000), (5, 8000), (40, 8000)] {
            let d = backoff(base, attempt);
            let full = Duration::from_millis(full);
            assert!(d <= full && d >= full.mul_f64(0.75), "{attempt}: {d:?}");
        }
    }
}
