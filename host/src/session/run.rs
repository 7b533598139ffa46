//! A scripted run from the outside: its options ([`RunOptions`]), the
//! session opened for a script's settings ([`open_session`]), the steps run
//! to the end ([`run_script`]), and what comes out ([`RunOutcome`], with
//! what the engine held in memory, [`Retained`]).

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::{HostConfig, HostMode, QueueLimits, Timeouts};
use crate::process::extension::{FrameHandler, LoadedExtension};
use crate::process::manager::Manager;
use crate::session::engine::SessionEngine;
use crate::session::script::Script;
use crate::store::discovery::DiscoveryOptions;
use crate::transcript::{Observation, Transcript};
use crate::wire::WireLog;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
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
}
