//! The scripted session engine: the embedded stand-in for the model and the
//! user. It opens, starts and ends the session, runs queued input while
//! idle, and holds the session's parts, each a struct with its own file
//! and lock: where the session is and what it tells the transcript and the
//! extensions ([`crate::session::fanout`]), the conversation
//! ([`crate::session::dialogue`]), whether it is active or closing
//! ([`crate::session::lifecycle`]), the model's replies
//! ([`crate::session::replies`]), what a person answers tool calls with
//! ([`crate::session::tools::answers`]), the screen
//! ([`crate::session::screen`]), queued input ([`crate::session::input`])
//! and the script's waits ([`crate::session::waits`]). The mode is fixed.
//!
//! What it does is split by concern, each an `impl SessionEngine` in the
//! file named for it: a script's steps in [`crate::session::steps`], the
//! conversation and its switches in [`crate::session::conversation`], slash
//! commands in [`crate::session::commands`], notes and panels in
//! [`crate::session::surface`], spontaneous extension frames in
//! [`crate::session::frames`], the agent loop in [`crate::session::agent`],
//! what a person does by hand in [`crate::session::by_hand`]; the tool
//! pipeline ([`crate::session::tools::pipeline`]) sees the engine through
//! its `ToolSession` trait ([`crate::session::tool_session`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use zot_protocol::{LifecycleEvent, SessionEndEvent, SessionEndReason, SessionStartEvent};

use crate::config::{HostConfig, HostMode, QueueLimits, Timeouts};
use crate::process::extension::{FrameHandler, LoadedExtension};
use crate::process::manager::Manager;
use crate::session::dialogue::Dialogue;
use crate::session::extensions::Extensions;
use crate::session::fanout::{Fanout, Place};
use crate::session::input::{Inbox, Input, Refused, MAX_QUEUED_PROMPTS};
use crate::session::lifecycle::Lifecycle;
use crate::session::open_panels::Panels;
use crate::session::replies::{ModelTurnHook, Replies};
use crate::session::screen::Screen;
use crate::session::script::{ConfirmAnswer, ConfirmPolicy, Script};
use crate::session::tools::answers::Answers;
use crate::session::waits::Waits;
use crate::store::discovery::DiscoveryOptions;
use crate::transcript::{Observation, Transcript};
use crate::wire::WireLog;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a step produced besides observations.
#[derive(Debug, Clone, Default)]
pub enum StepOutput {
    /// Nothing.
    #[default]
    None,
    /// The outcome of a `call` step.
    Tool(crate::session::tools::invoke::ToolOutput),
    /// The verdict of an `intercept` step.
    Verdict(crate::session::payload::Verdict),
}

/// The session engine.
pub struct SessionEngine {
    /// The loaded extensions as the session asks about them.
    pub(crate) extensions: Extensions,
    me: Weak<SessionEngine>,
    /// Observations and lifecycle events, and where the session is.
    pub(crate) fanout: Fanout,
    /// The host mode (fixed for the session).
    mode: HostMode,
    /// The conversation: who answers, the system prompt, its size.
    pub(crate) dialogue: Mutex<Dialogue>,
    /// Whether the session is active, and whether shutdown began.
    lifecycle: Lifecycle,
    /// The model's turns: the script's replies or the live model.
    pub(crate) replies: Replies,
    /// Confirmation and stub answers, stub tools, direct calls in flight:
    /// what the tool pipeline waits on a person for.
    pub(crate) answers: Answers,
    /// Panels, notes and the editor's text.
    pub(crate) screen: Mutex<Screen>,
    /// Input waiting its turn: queued `submit`s and follow-ups.
    pub(crate) input: Input,
    /// The script's waits for extension frames.
    pub(crate) waits: Waits,
    /// The engine's local counter (tool ids, run ids...).
    counter: AtomicU64,
    /// Failed `expect` / `wait` checks.
    failures: AtomicUsize,
    /// `/exit` asked the session to end.
    pub(super) exit: AtomicBool,
    /// Durable `call_tool` results (continuous mode).
    pub(crate) durable: Option<crate::store::durable::DurableStore>,
}

/// Inputs of [`run_script`].
#[derive(Clone)]
pub struct RunOptions {
    /// `--ext` paths.
    pub explicit: Vec<PathBuf>,
    /// Project directory.
    pub cwd: PathBuf,
    /// `$ZOT_HOME`.
    pub zot_home: PathBuf,
    /// `--no-ext`.
    pub no_discovery: bool,
    /// Wire log.
    pub wire: Option<WireLog>,
    /// Where observations go.
    pub transcript: Transcript,
    /// Base deadlines (the script's overrides apply on top).
    pub timeouts: Timeouts,
    /// Multiplies every deadline, the script's included (`--time-scale`).
    pub time_scale: f64,
    /// Queue bounds.
    pub queue: QueueLimits,
    /// Cancelled to end the run early (an interrupt): the remaining steps
    /// are skipped and the session shuts down as usual.
    pub stop: tokio_util::sync::CancellationToken,
    /// A live model for the turns (`--model-url`); `None`: the script's.
    pub model: Option<Arc<crate::model::LiveModel>>,
}

impl RunOptions {
    /// Options with the spec's deadlines.
    pub fn new(cwd: PathBuf, zot_home: PathBuf) -> Self {
        Self {
            explicit: Vec::new(),
            cwd,
            zot_home,
            no_discovery: false,
            wire: None,
            transcript: Transcript::new(),
            timeouts: Timeouts::default(),
            time_scale: 1.0,
            queue: QueueLimits::default(),
            stop: tokio_util::sync::CancellationToken::new(),
            model: None,
        }
    }
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// Everything observed, when the run's transcript keeps observations
    /// ([`Transcript::new`]); empty for a streaming one.
    pub observations: Vec<Observation>,
    /// Failed `expect` / `wait` checks.
    pub failures: usize,
    /// What the engine held in memory after the last step (before shutdown).
    pub retained: Retained,
}

/// How much session state the engine holds in memory: what a long session
/// must not grow. Every field is a count of items held now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Retained {
    /// Observations the transcript keeps (0 when it streams).
    pub observations: usize,
    /// Frames kept for scripted waits.
    pub wait_frames: usize,
    /// Notes in the notes area.
    pub notes: usize,
    /// Prompts and slash commands queued by extensions (`submit`).
    pub queued_prompts: usize,
    /// Requests to extensions waiting for their reply.
    pub pending_replies: usize,
    /// Host `tool_call`s outstanding at extensions.
    pub host_calls: usize,
    /// Extensions' `call_tool`s outstanding at the host.
    pub ext_calls: usize,
    /// Diagnostics kept for `ext doctor`, over all extensions.
    pub diagnostics: usize,
    /// Event and interception names extensions subscribed to.
    pub subscriptions: usize,
    /// Registration records (commands and tools, active or not).
    pub registrations: usize,
}

/// Loads the extensions, runs the script and shuts down.
pub async fn run_script(script: &Script, opts: RunOptions) -> RunOutcome {
    let engine = open_session(script, &opts).await;
    'steps: for (i, step) in script.steps.iter().enumerate() {
        for _ in 0..step.repeat.unwrap_or(1) {
            let ran = tokio::select! {
                biased;
                () = opts.stop.cancelled() => false,
                () = async {
                    engine.step(i, step).await;
                    engine.drain_inbox().await;
                } => true,
            };
            if !ran || engine.exit_requested() {
                break 'steps;
            }
        }
    }
    let retained = engine.retained();
    engine.shutdown_by(script.end.stop_by()).await;
    RunOutcome {
        observations: opts.transcript.snapshot(),
        failures: engine.failures(),
        retained,
    }
}

/// Loads the extensions and starts the session of a script's settings
/// (not its steps): what [`run_script`] and a live session
/// ([`crate::live`]) share. The caller runs steps and shuts down.
pub async fn open_session(script: &Script, opts: &RunOptions) -> Arc<SessionEngine> {
    let mut cfg = HostConfig::new(opts.cwd.clone(), opts.zot_home.clone());
    cfg.mode = script.mode.unwrap_or(HostMode::Interactive);
    cfg.continuous = script.continuous;
    cfg.timeouts = opts.timeouts.clone();
    script.timeouts.apply(&mut cfg.timeouts);
    if opts.time_scale != 1.0 {
        cfg.timeouts = cfg.timeouts.scaled(opts.time_scale);
    }
    cfg.queue = opts.queue;
    if let Some(p) = &script.provider {
        cfg.provider = p.clone();
    }
    if let Some(live) = &opts.model {
        // hello_ack and before_agent_start name the model that answers.
        cfg.provider = live.provider().to_owned();
        cfg.model = live.name().to_owned();
    }
    if let Some(m) = &script.model {
        cfg.model = m.clone();
    }
    let discovery = DiscoveryOptions {
        cwd: opts.cwd.clone(),
        zot_home: opts.zot_home.clone(),
        explicit: opts.explicit.clone(),
        no_discovery: opts.no_discovery,
    };
    let mgr = Manager::new(
        cfg.clone(),
        discovery,
        opts.wire.clone(),
        opts.transcript.clone(),
    );
    let durable = if cfg.continuous {
        let path = opts.zot_home.join("state").join("durable-calls.sqlite");
        match crate::store::durable::DurableStore::open(&path) {
            Ok(s) => Some(s),
            Err(e) => {
                opts.transcript.push(Observation::Warning {
                    text: format!("{e} ({}); durable replay disabled", path.display()),
                });
                None
            }
        }
    } else {
        None
    };
    // `expect` checks are answered as the transcript streams by.
    opts.transcript.watch(
        script
            .steps
            .iter()
            .filter_map(|s| s.expect.as_ref())
            .flat_map(|e| e.contains.iter().chain(&e.not_contains))
            .cloned(),
    );
    let engine = SessionEngine::with_store(mgr.clone(), script, durable);
    if let Some(live) = &opts.model {
        engine.use_live_model(live.clone());
    }
    let handler: Arc<dyn FrameHandler> = engine.clone();
    mgr.set_handler(Arc::downgrade(&handler));
    mgr.load(cfg.timeouts.ready_grace).await;
    if !matches!(cfg.mode, HostMode::Print | HostMode::Json) {
        engine.start_session();
    }
    engine
}

impl SessionEngine {
    /// Turns come from `model` from now on (see [`crate::model`]).
    pub fn use_live_model(&self, model: Arc<crate::model::LiveModel>) {
        lock(&self.dialogue)
            .history
            .get_or_insert_with(Default::default);
        self.replies.use_live(model);
    }

    /// Calls `hook` with each turn of the live model, in its script form
    /// (a live session records it as `replies`).
    pub fn on_model_turn(&self, hook: ModelTurnHook) {
        self.replies.on_live_turn(hook);
    }

    /// A new engine for a script's settings.
    pub fn new(mgr: Arc<Manager>, script: &Script) -> Arc<Self> {
        Self::with_store(mgr, script, None)
    }

    /// A new engine with a durable store for continuous mode.
    pub fn with_store(
        mgr: Arc<Manager>,
        script: &Script,
        durable: Option<crate::store::durable::DurableStore>,
    ) -> Arc<Self> {
        let cfg = mgr.cfg().clone();
        let policy = script.confirm.unwrap_or(if cfg.mode.is_interactive() {
            ConfirmPolicy::Ask
        } else {
            ConfirmPolicy::Yolo
        });
        Arc::new_cyclic(|me| Self {
            fanout: Fanout::new(
                mgr.clone(),
                Place {
                    session_id: script
                        .session_id
                        .clone()
                        .unwrap_or_else(|| "session-1".into()),
                    cwd: cfg.cwd.clone(),
                },
            ),
            extensions: Extensions::new(mgr),
            me: me.clone(),
            dialogue: Mutex::new(Dialogue::new(
                cfg.provider.clone(),
                cfg.model.clone(),
                script
                    .system_prompt
                    .clone()
                    .unwrap_or_else(|| "You are zot, a coding agent (reference host).".into()),
            )),
            lifecycle: Lifecycle::default(),
            mode: cfg.mode,
            replies: Replies::default(),
            answers: Answers::new(
                policy,
                script
                    .default_answer
                    .map_or(Some(ConfirmAnswer::Approve), |d| d.answer()),
            ),
            screen: Mutex::default(),
            input: Input::default(),
            waits: Waits::for_script(script),
            counter: AtomicU64::new(0),
            failures: AtomicUsize::new(0),
            exit: AtomicBool::new(false),
            durable,
        })
    }

    /// The extension manager: loading, restart, reload, shutdown.
    pub fn manager(&self) -> &Arc<Manager> {
        self.extensions.manager()
    }

    /// A strong handle to this engine.
    pub(crate) fn arc(&self) -> Option<Arc<SessionEngine>> {
        self.me.upgrade()
    }

    /// The next number of the engine's local counter (tool ids, run ids...).
    pub(crate) fn next_n(&self) -> u64 {
        self.counter.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Whether `/exit` asked the session to end.
    pub fn exit_requested(&self) -> bool {
        self.exit.load(Ordering::SeqCst)
    }

    /// Failed `expect` / `wait` checks so far.
    pub fn failures(&self) -> usize {
        self.failures.load(Ordering::SeqCst)
    }

    /// The host mode.
    pub fn mode(&self) -> HostMode {
        self.mode
    }

    /// Records what a user of the host would see (see [`Fanout`]).
    pub(crate) fn observe(&self, o: Observation) {
        self.fanout.observe(o);
    }

    /// A status line.
    pub(crate) fn status(&self, level: &str, text: impl Into<String>) {
        self.fanout.status(level, text);
    }

    /// Emits a lifecycle event with the session's common fields.
    pub(crate) fn emit(&self, ev: LifecycleEvent) {
        self.fanout.emit(ev);
    }

    pub(super) fn fail_check(&self, message: String) {
        self.failures.fetch_add(1, Ordering::SeqCst);
        self.observe(Observation::ExpectFailed { message });
    }

    /// Starts the session (HOST-127..130); a no-op when active or closing.
    pub(crate) fn start_session(&self) {
        if !self.lifecycle.start() {
            return;
        }
        let Place { session_id, cwd } = self.fanout.place();
        self.observe(Observation::Session {
            id: session_id,
            cwd: cwd.display().to_string(),
        });
        self.emit(LifecycleEvent::SessionStart(SessionStartEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
        }));
    }

    pub(super) fn end_session(&self, reason: SessionEndReason) {
        if !self.lifecycle.end() {
            return;
        }
        self.emit(LifecycleEvent::SessionEnd(SessionEndEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
            reason,
        }));
    }

    /// Graceful shutdown: `session_end` first, then every extension (§16.7).
    pub async fn shutdown(&self) {
        self.shutdown_by(crate::process::stop_all::StopBy::Shutdown)
            .await;
    }

    /// Ends the session and stops every extension the given way.
    pub async fn shutdown_by(&self, how: crate::process::stop_all::StopBy) {
        self.clear_notes();
        self.end_session(SessionEndReason::Shutdown);
        self.lifecycle.close();
        self.answers.wake_all();
        let mgr = self.manager();
        mgr.shutdown_by(mgr.cfg().timeouts.shutdown_grace, how)
            .await;
    }

    /// Whether shutdown began.
    pub fn is_closing(&self) -> bool {
        self.lifecycle.is_closing()
    }

    /// Whether a session is active (between start and end).
    pub(crate) fn is_active(&self) -> bool {
        self.lifecycle.is_active()
    }

    /// Runs queued `submit` / `submit_slash` requests while idle.
    pub async fn drain_inbox(&self) {
        loop {
            let follow = self.input.next_followup();
            if let Some((text, from)) = follow {
                self.run_prompt(text, from, 0, true).await;
                continue;
            }
            let next = self.input.next();
            match next {
                Some(Inbox::Submit { ext, text }) => self.run_prompt(text, ext, 0, false).await,
                Some(Inbox::SubmitSlash { text }) => Box::pin(self.run_command(&text)).await,
                None => break,
            }
        }
        let refused = self.input.take_refused();
        if refused > 0 {
            self.observe(Observation::Warning {
                text: format!(
                    "{refused} submits were refused while {MAX_QUEUED_PROMPTS} prompts were queued"
                ),
            });
        }
    }

    /// Restarts one extension; its panel, if shown, is gone with it.
    pub(super) async fn restart_ext(&self, name: &str) {
        match self.manager().restart(name).await {
            Ok(s) => {
                let _ = lock(&self.screen).panels.drop_ext(name);
                self.status(
                    "info",
                    format!(
                        "restarted {name}: {}",
                        if s.ready == 1 {
                            "ready"
                        } else if s.loaded == 1 {
                            "not ready"
                        } else {
                            "failed to load"
                        }
                    ),
                );
            }
            Err(e) => self.status("error", format!("restart: {e}")),
        }
    }

    pub(super) async fn reload(&self) {
        let s = self.manager().reload().await;
        lock(&self.dialogue).prompt = None;
        lock(&self.screen).panels = Panels::default();
        self.observe(Observation::Reload {
            stopped: s.stopped,
            loaded: s.loaded,
            ready: s.ready,
            errors: s.errors,
        });
    }

    /// What the engine holds in memory now (see [`Retained`]).
    pub fn retained(&self) -> Retained {
        let exts = self.manager().extensions();
        let sum = |f: &dyn Fn(&LoadedExtension) -> usize| exts.iter().map(|e| f(e)).sum();
        Retained {
            observations: self.extensions.shared().transcript.retained(),
            wait_frames: self.waits.len(),
            notes: lock(&self.screen).notes.len(),
            queued_prompts: self.input.len(),
            pending_replies: sum(&|e| e.pending_replies()),
            host_calls: sum(&|e| lock(&e.host_calls).len()),
            ext_calls: sum(&|e| lock(&e.ext_calls).len()),
            diagnostics: sum(&|e| e.diagnostic_count()),
            subscriptions: sum(&|e| e.subscription_count()),
            registrations: self.extensions.registrations(),
        }
    }

    /// Queues a `submit` / `submit_slash`, unless [`MAX_QUEUED_PROMPTS`]
    /// wait already: then it is refused (the first refusal is a diagnostic
    /// of `ext`, the count a warning once the queue has run empty).
    pub(crate) fn queue_prompt(&self, ext: &Arc<LoadedExtension>, item: Inbox) {
        if let Err(Refused { first }) = self.input.push(item) {
            if first {
                ext.diagnose(
                    self.extensions.shared(),
                    &format!("{MAX_QUEUED_PROMPTS} prompts are queued; refusing more submits until they ran"),
                );
            }
        }
    }
}
