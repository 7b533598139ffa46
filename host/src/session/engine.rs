//! The scripted session engine: the embedded stand-in for the model and the
//! user. It starts and ends the session, runs queued input while idle, and
//! holds the session's parts, each a struct with its own file
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
//! what a person does by hand in [`crate::session::by_hand`], a run's
//! opening and what it retains in [`crate::session::run`]; the tool
//! pipeline ([`crate::session::tools::pipeline`]) sees the engine through
//! its `ToolSession` trait ([`crate::session::tool_session`]).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use zot_protocol::{LifecycleEvent, SessionEndEvent, SessionEndReason, SessionStartEvent};

use crate::config::HostMode;
use crate::process::extension::LoadedExtension;
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
use crate::transcript::Observation;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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
