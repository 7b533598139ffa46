//! A live session: the host's session engine driven by a person one step
//! at a time instead of by a script file. `zot-host inspect` drives it
//! from a web page; every action is a script step (`host/SCRIPT.md`) run
//! through the engine's `step`, so the session can be exported as a script
//! that `zot-host run` replays with the same transcript (`recorder`).
//!
//! Steps run one at a time, as in a script. While one runs, only what acts
//! on it is taken: a Cancel, keys for the panel of the running call, and
//! answers to stub tools' calls.
//!
//! Owns the live session, its feed and its recorder. It drives
//! [`crate::session`] from above, as `run_script` does; the session,
//! [`crate::process`] and [`crate::store`] never reach into it, and it
//! knows nothing of the web page or the terminal that drive it
//! ([`crate::inspect`], [`crate::dev`]).

pub(crate) mod feed;
pub(crate) mod recorder;
mod state;
mod tail;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};

use crate::model::ModelEvent;
use crate::session::engine::SessionEngine;
use crate::session::run::{open_session, RunOptions};
use crate::session::script::{Script, Step};
use crate::session::steps::StepOutput;
use crate::transcript::{Observation, Transcript};
use feed::{Feed, ModelNote};
use recorder::Recorder;

/// Steps a live session takes at most (a person never gets near it; a
/// program driving one in a loop gets a clear error instead of growing the
/// recording without end).
pub(crate) const MAX_STEPS: usize = 100_000;

/// What to load and how the session is set up.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// `--ext` paths.
    pub explicit: Vec<PathBuf>,
    /// Project directory.
    pub cwd: PathBuf,
    /// `$ZOT_HOME`.
    pub zot_home: PathBuf,
    /// `--no-ext`.
    pub no_discovery: bool,
    /// The script's top-level settings (`mode`, `confirm`, `timeouts`...;
    /// no `steps`): the exported script starts with them.
    pub header: Map<String, Value>,
    /// A live model for the turns (`--model-url`).
    pub model: Option<Arc<crate::model::LiveModel>>,
}

/// Why a live action was not taken.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LiveError {
    /// Another step runs.
    #[error("a step is running ({0}); wait for it, or cancel it")]
    Busy(String),
    /// The request is not a valid step.
    #[error("{0}")]
    Invalid(String),
    /// The session has ended.
    #[error("the session has ended")]
    Closed,
}

/// A live session.
pub struct Live {
    engine: Arc<SessionEngine>,
    feed: Arc<Feed>,
    recorder: Arc<Mutex<Recorder>>,
    gate: tokio::sync::Mutex<()>,
    running: Mutex<Option<Value>>,
    closed: AtomicBool,
    closed_notify: tokio::sync::Notify,
    end: crate::session::script::End,
    tail: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Parses one step with the script parser (so that it is checked exactly as
/// a script's step is).
pub(crate) fn parse_step(step: &Map<String, Value>) -> Result<Step, LiveError> {
    let text = json!({ "steps": [step] }).to_string();
    let script = Script::parse(&text, "step").map_err(|e| match e {
        crate::session::script::ScriptError::Invalid { message, .. } => LiveError::Invalid(
            message
                .replacen("steps[0]: ", "", 1)
                .replacen("steps[0]", "step", 1),
        ),
        other => LiveError::Invalid(other.to_string()),
    })?;
    script
        .steps
        .into_iter()
        .next()
        .ok_or_else(|| LiveError::Invalid("no step".into()))
}

/// A one-line description of a step (its action and its main value).
fn describe(step: &Map<String, Value>) -> String {
    step.iter()
        .find(|(k, _)| k.as_str() != "wait")
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                Value::Object(o) => o
                    .get("name")
                    .or_else(|| o.get("event"))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                _ => String::new(),
            };
            format!("{k} {v}").trim_end().to_owned()
        })
        .unwrap_or_else(|| "wait".into())
}

impl Live {
    /// Loads the extensions and starts the session.
    pub async fn open(opts: LiveOptions) -> Result<Arc<Self>, LiveError> {
        if opts.header.contains_key("steps") {
            return Err(LiveError::Invalid(
                "the session settings cannot hold steps".into(),
            ));
        }
        let mut header = opts.header.clone();
        if let Some(m) = &opts.model {
            // The replay names the model the live session had.
            header
                .entry("provider")
                .or_insert_with(|| json!(m.provider()));
            header.entry("model").or_insert_with(|| json!(m.name()));
        }
        let script = Script::parse(&Value::Object(header.clone()).to_string(), "settings")
            .map_err(|e| LiveError::Invalid(e.to_string()))?;
        let feed = Feed::new();
        let recorder = Arc::new(Mutex::new(Recorder::new(header)));
        {
            let r = recorder.clone();
            feed.set_frame_hook(move |f| lock(&r).on_frame(f));
            let r = recorder.clone();
            feed.set_observation_hook(move |o| lock(&r).on_observation(o));
        }
        if let Some(m) = &opts.model {
            // Streamed text reaches the page and the REPL as it comes.
            let f = feed.clone();
            m.observe(Arc::new(move |e| {
                f.model_note(match e {
                    ModelEvent::Text(t) => ModelNote::Text(t.into()),
                    ModelEvent::Retrying { why, wait } => ModelNote::Retrying(
                        format!("{why}; trying again in {:.1} s", wait.as_secs_f64()).into(),
                    ),
                    ModelEvent::End => ModelNote::End,
                })
            }));
        }
        let logs = tail::sizes(&opts.zot_home.join("logs"));
        let mut run = RunOptions::new(opts.cwd.clone(), opts.zot_home.clone());
        run.explicit = opts.explicit.clone();
        run.no_discovery = opts.no_discovery;
        run.wire = Some(feed.wire_log());
        run.model = opts.model.clone();
        let f = feed.clone();
        // Streamed into the feed, which keeps a bounded copy; the transcript
        // itself keeps nothing.
        run.transcript = Transcript::streaming(move |o: &Observation| f.observation(o));
        let engine = open_session(&script, &run).await;
        let r = recorder.clone();
        engine.on_model_turn(Arc::new(move |turn| lock(&r).model_turn(turn.clone())));
        let tail = tail::spawn(feed.clone(), engine.manager().clone(), logs);
        Ok(Arc::new(Self {
            engine,
            feed,
            recorder,
            gate: tokio::sync::Mutex::new(()),
            running: Mutex::default(),
            closed: AtomicBool::new(false),
            closed_notify: tokio::sync::Notify::new(),
            end: script.end,
            tail,
        }))
    }

    /// The session engine.
    pub fn engine(&self) -> &Arc<SessionEngine> {
        &self.engine
    }

    /// What the session has seen.
    pub fn feed(&self) -> &Arc<Feed> {
        &self.feed
    }

    /// The step running now.
    pub fn running(&self) -> Option<Value> {
        lock(&self.running).clone()
    }

    /// Steps recorded so far.
    pub fn steps(&self) -> usize {
        lock(&self.recorder).len()
    }

    /// Whether the session has ended.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Resolves once the session has ended (`/exit`, or [`Live::close`]).
    pub async fn closed(&self) {
        loop {
            let n = self.closed_notify.notified();
            tokio::pin!(n);
            n.as_mut().enable();
            if self.is_closed() {
                return;
            }
            n.await;
        }
    }

    /// Runs one step (a script step's JSON object) and records it.
    pub async fn run(&self, step: Map<String, Value>) -> Result<StepOutput, LiveError> {
        if self.is_closed() {
            return Err(LiveError::Closed);
        }
        let parsed = parse_step(&step)?;
        if let Some(a) = step.get("answer").and_then(Value::as_object) {
            // An answer to a call that waits now joins that call's step.
            if lock(&self.recorder).answered(Value::Object(a.clone())) {
                if let Some(a) = parsed.answer {
                    self.engine.queue_answer(a);
                }
                return Ok(StepOutput::None);
            }
        }
        let Ok(_gate) = self.gate.try_lock() else {
            let what = self
                .running()
                .and_then(|v| v.as_object().map(describe))
                .unwrap_or_else(|| "starting".into());
            return Err(LiveError::Busy(what));
        };
        let i = {
            let mut rec = lock(&self.recorder);
            if rec.len() >= MAX_STEPS {
                return Err(LiveError::Invalid(format!(
                    "a live session takes at most {MAX_STEPS} steps; export it and start another"
                )));
            }
            rec.begin(step.clone())
        };
        *lock(&self.running) = Some(Value::Object(step));
        self.feed.state_changed();
        let out = self.engine.step(i, &parsed).await;
        self.engine.drain_inbox().await;
        lock(&self.recorder).end(i);
        *lock(&self.running) = None;
        if self.engine.exit_requested() {
            self.close().await;
        }
        self.feed.state_changed();
        Ok(out)
    }

    /// A key for the open panel: part of the running call when one runs
    /// (an interactive tool waiting for the person), else a `key` step.
    pub async fn key(&self, key: &str, text: &str) -> Result<(), LiveError> {
        if self.is_closed() {
            return Err(LiveError::Closed);
        }
        if lock(&self.recorder).key_in_call(key, text) {
            self.engine.panel_key(key, text);
            return Ok(());
        }
        let mut step = Map::new();
        step.insert("key".into(), json!(key));
        if key.eq_ignore_ascii_case("rune") {
            step.insert("text".into(), json!(text));
        }
        self.run(step).await.map(drop)
    }

    /// Cancels the running call; whether one was running (a call whose
    /// step began but that is not yet in flight is not cancelled).
    pub fn cancel(&self) -> bool {
        let mut rec = lock(&self.recorder);
        if rec.running_call().is_none() || !self.engine.cancel_direct_calls() {
            return false;
        }
        rec.cancelled();
        true
    }

    /// The session as a script (`host/SCRIPT.md`).
    pub fn export(&self) -> Value {
        lock(&self.recorder).export()
    }

    /// The transcript so far (as `zot-host run --json` prints it), and how
    /// many early observations were dropped from memory.
    pub fn transcript(&self) -> (Vec<Observation>, u64) {
        let (obs, dropped) = self.feed.observations();
        (obs.iter().map(|o| o.o.clone()).collect(), dropped)
    }

    /// Ends the session: `session_end`, then every extension is stopped.
    pub async fn close(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.closed_notify.notify_waiters();
        self.engine.cancel_direct_calls();
        self.engine.shutdown_by(self.end.stop_by()).await;
        self.tail.abort();
        self.feed.state_changed();
    }
}
