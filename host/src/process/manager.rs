//! The extension manager: loading (discovery → spawn → handshake, in
//! parallel, HOST-18/19), the loaded set in load order, correlation ids,
//! lifecycle notifications with one sequence (see [`crate::session::fanout`]),
//! shutdown and reload.

use std::sync::{Arc, Mutex, RwLock, Weak};

use tokio::io::BufReader;
use zot_protocol::limits::PROTOCOL_VERSION;
use zot_protocol::{Capability, HelloAck, HostFrame, LineReader};

use crate::config::HostConfig;
use crate::process::extension::{FrameHandler, HandlerSlot, LoadedExtension, NewExtension};
use crate::process::hello::{read_hello, LoadError};
use crate::process::outbound::Outbound;
use crate::process::ready::ReadyState;
use crate::process::shared::Shared;
use crate::process::spawn::{spawn, ExtLog};
use crate::process::stop::Ending;
use crate::store::discovery::{discover, Discovery, DiscoveryOptions, Entry};
use crate::store::manifest::ManifestKind;
use crate::transcript::{Observation, Transcript};
use crate::wire::WireLog;

/// Counts of a load or reload.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadStats {
    /// Extensions stopped (reload only).
    pub stopped: usize,
    /// Extensions loaded (processes handshaken, plus theme/skills-only).
    pub loaded: usize,
    /// Extensions that became ready (any way but timing out).
    pub ready: usize,
    /// Load errors.
    pub errors: usize,
}

/// The extension manager.
pub struct Manager {
    shared: Arc<Shared>,
    handler: HandlerSlot,
    exts: RwLock<Vec<Arc<LoadedExtension>>>,
    discovery: Mutex<DiscoveryOptions>,
    load_errors: Mutex<Vec<LoadError>>,
    passive: Mutex<Vec<String>>,
    last_discovery: Mutex<Discovery>,
}

impl Manager {
    /// A manager with no extension loaded yet.
    pub fn new(
        cfg: HostConfig,
        discovery: DiscoveryOptions,
        wire: Option<WireLog>,
        transcript: Transcript,
    ) -> Arc<Self> {
        Arc::new(Self {
            shared: Arc::new(Shared::new(cfg, wire, transcript)),
            handler: HandlerSlot::default(),
            exts: RwLock::default(),
            discovery: Mutex::new(discovery),
            load_errors: Mutex::default(),
            passive: Mutex::default(),
            last_discovery: Mutex::default(),
        })
    }

    /// Installs the frame handler (the session engine).
    pub fn set_handler(&self, h: Weak<dyn FrameHandler>) {
        self.handler.set(h);
    }

    /// Where the read loops find the frame handler (the fuzzing hook's
    /// extension is built outside [`Manager::load`]).
    #[cfg(feature = "fuzzing")]
    pub(crate) fn handler_slot(&self) -> HandlerSlot {
        self.handler.clone()
    }

    /// Shared state.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Configuration.
    pub fn cfg(&self) -> &HostConfig {
        &self.shared.cfg
    }

    /// Adds an extension handshaken elsewhere (the fuzzing hook's, which
    /// has no process) to the loaded set.
    #[cfg(feature = "fuzzing")]
    pub(crate) fn adopt(&self, ext: Arc<LoadedExtension>) {
        self.exts
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(ext);
    }

    /// Loaded extensions (connected or not), in load order.
    pub fn extensions(&self) -> Vec<Arc<LoadedExtension>> {
        self.exts.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Connected extensions in load order.
    pub fn connected(&self) -> Vec<Arc<LoadedExtension>> {
        self.extensions()
            .into_iter()
            .filter(|e| e.is_connected())
            .collect()
    }

    /// An extension by manifest name.
    pub fn get(&self, name: &str) -> Option<Arc<LoadedExtension>> {
        self.extensions().into_iter().find(|e| e.name == name)
    }

    /// Load errors of the last load.
    pub fn load_errors(&self) -> Vec<LoadError> {
        self.load_errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Names of theme-/skills-only extensions (never spawned, ready at once).
    pub fn passive(&self) -> Vec<String> {
        self.passive
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Runs discovery with the manager's options.
    pub fn discover(&self) -> Discovery {
        discover(&self.discovery.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The discovery the last [`Manager::load`] acted on (`ext doctor`
    /// reports it, so that it never runs a second, possibly different, one).
    pub fn last_discovery(&self) -> Discovery {
        self.last_discovery
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Discovers, spawns and handshakes every extension in parallel, waits
    /// for readiness (`grace`) and builds the agent's tool registry.
    pub async fn load(&self, grace: std::time::Duration) -> LoadStats {
        let found = self.discover();
        *self
            .last_discovery
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = found.clone();
        let mut errors = Vec::new();
        for (e, err) in found.errors() {
            // HOST-3: only explicit paths without a manifest are reported;
            // discovered ones never reach here.
            errors.push(LoadError::new(&e.name(), &e.dir, None, err, None));
        }
        let mut tasks = Vec::new();
        let mut passive = Vec::new();
        let mut reports = Vec::new();
        for (rank, entry) in found.to_load().enumerate() {
            if entry.kind != Some(ManifestKind::Process) {
                // Theme-/skills-only: never spawned, ready at once (HOST-11).
                reports.push((rank, passive_observation(entry)));
                passive.push(entry.name());
                continue;
            }
            let shared = self.shared.clone();
            let handler = self.handler.clone();
            let entry = entry.clone();
            tasks.push(tokio::spawn(async move {
                load_one(shared, handler, entry, rank).await
            }));
        }
        let mut loaded = Vec::new();
        for t in tasks {
            match t.await {
                Ok(Ok(ext)) => loaded.push(ext),
                Ok(Err(e)) => errors.push(e),
                Err(e) => tracing::error!("load task failed: {e}"),
            }
        }
        loaded.sort_by_key(|e| e.rank);
        self.report_loads(reports, &loaded, &errors);
        let stats = LoadStats {
            loaded: loaded.len() + passive.len(),
            errors: errors.len(),
            ready: passive.len() + self.await_ready(&loaded, grace).await,
            ..LoadStats::default()
        };
        self.exts
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .extend(loaded);
        *self.load_errors.lock().unwrap_or_else(|e| e.into_inner()) = errors;
        *self.passive.lock().unwrap_or_else(|e| e.into_inner()) = passive;
        self.rebuild_agent_tools();
        stats
    }

    /// What was loaded, in load order (`reports` holds the extensions
    /// that are never spawned), then what failed to.
    fn report_loads(
        &self,
        mut reports: Vec<(usize, Observation)>,
        loaded: &[Arc<LoadedExtension>],
        errors: &[LoadError],
    ) {
        for e in loaded {
            reports.push((e.rank, loaded_observation(e)));
        }
        reports.sort_by_key(|(rank, _)| *rank);
        for (_, o) in reports {
            self.shared.transcript.push(o);
        }
        for e in errors {
            self.shared.transcript.push(Observation::LoadError {
                ext: e.ext.clone(),
                message: e.to_string(),
            });
        }
    }

    /// Waits for the extensions' readiness (at most `grace`), diagnoses
    /// each that timed out, and says how many became ready.
    async fn await_ready(
        &self,
        loaded: &[Arc<LoadedExtension>],
        grace: std::time::Duration,
    ) -> usize {
        wait_ready(loaded, grace).await;
        for e in loaded {
            if e.ready_state() == ReadyState::TimedOut {
                e.diagnose(&self.shared, "timed out waiting for ready frame");
            }
        }
        loaded
            .iter()
            .filter(|e| e.ready_state() != ReadyState::TimedOut)
            .count()
    }

    /// Stops every extension (§16.7 steps 2-4); the caller emits
    /// `session_end` first.
    pub async fn shutdown(&self, grace: std::time::Duration) -> usize {
        self.shutdown_by(grace, crate::process::stop_all::StopBy::Shutdown)
            .await
            .len()
    }

    /// Stops every extension the given way and reports how each process
    /// ended; the endings also go to the transcript.
    pub async fn shutdown_by(
        &self,
        grace: std::time::Duration,
        how: crate::process::stop_all::StopBy,
    ) -> Vec<Ending> {
        self.shared.set_shutting_down(true);
        let exts = self.extensions();
        let endings =
            crate::process::stop_all::shutdown_all(&exts, &self.shared.cfg.timeouts, grace, how)
                .await;
        self.shared.finish_reapers().await;
        self.report_endings(&endings);
        endings
    }

    /// Waits until every connected extension's outbound queue has room for a
    /// burst (`Outbound::room`, stalls bounded by the write bound N-9).
    /// The agent loop calls it before producing notifications in bulk, so
    /// that its own burst never cuts off a reader that keeps reading, while
    /// one that stopped still overflows and is disconnected (N-11).
    pub async fn pace(&self) {
        let stall = self.shared.cfg.timeouts.write;
        for e in self.connected() {
            e.outbound.room(stall).await;
        }
    }

    /// Restarts one extension (the inspector's Restart): stops it, drops
    /// its registrations, starts it again from where it was discovered at
    /// its load rank and waits for its `ready`. The others keep running.
    pub async fn restart(&self, name: &str) -> Result<LoadStats, String> {
        let old = self
            .get(name)
            .ok_or_else(|| format!("no extension {name:?} is loaded"))?;
        let entry = self
            .last_discovery()
            .to_load()
            .find(|e| e.name() == name)
            .cloned()
            .ok_or_else(|| format!("{name} is no longer where it was discovered"))?;
        let t = self.shared.cfg.timeouts.clone();
        let endings = crate::process::stop_all::shutdown_all(
            std::slice::from_ref(&old),
            &t,
            t.reload_stop_grace,
            crate::process::stop_all::StopBy::Shutdown,
        )
        .await;
        self.report_endings(&endings);
        self.exts
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|e| !Arc::ptr_eq(e, &old));
        self.shared
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .forget_ext(name);
        let mut stats = LoadStats {
            stopped: endings.len(),
            ..LoadStats::default()
        };
        match load_one(self.shared.clone(), self.handler.clone(), entry, old.rank).await {
            Ok(ext) => {
                self.shared.transcript.push(loaded_observation(&ext));
                let grace = t.reload_ready_grace.max(t.ready_grace);
                stats.ready = self.await_ready(std::slice::from_ref(&ext), grace).await;
                stats.loaded = 1;
                let mut exts = self.exts.write().unwrap_or_else(|e| e.into_inner());
                exts.push(ext);
                exts.sort_by_key(|e| e.rank);
            }
            Err(e) => {
                self.shared.transcript.push(Observation::LoadError {
                    ext: e.ext.clone(),
                    message: e.to_string(),
                });
                stats.errors = 1;
                self.load_errors
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(e);
            }
        }
        self.rebuild_agent_tools();
        Ok(stats)
    }

    /// The agent's tool registry from the registrations now (HOST-34).
    fn rebuild_agent_tools(&self) {
        self.shared
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .build_agent_tools();
    }

    /// How each stopped process ended, into the transcript.
    fn report_endings(&self, endings: &[Ending]) {
        for e in endings {
            self.shared.transcript.push(Observation::Exited {
                ext: e.ext.clone(),
                status: e.status.clone(),
                escalated: e.escalated.map(str::to_owned),
            });
        }
    }

    /// `/reload-ext` (§16.8): stop all, clear registries, load again (explicit
    /// paths first), wait for readiness, rebuild the tool registry.
    pub async fn reload(&self) -> LoadStats {
        let t = self.shared.cfg.timeouts.clone();
        let stopped = self.shutdown(t.reload_stop_grace).await;
        self.exts.write().unwrap_or_else(|e| e.into_inner()).clear();
        self.shared
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.shared.set_shutting_down(false);
        let grace = t.reload_ready_grace.max(t.ready_grace);
        let mut stats = self.load(grace).await;
        stats.stopped = stopped;
        stats
    }
}

/// The transcript's record of an extension that is never spawned (a theme
/// or skills only).
fn passive_observation(entry: &Entry) -> Observation {
    Observation::Loaded {
        ext: entry.name(),
        version: entry
            .manifest
            .as_ref()
            .map(|m| m.version.clone())
            .unwrap_or_default(),
        source: entry.source.label().to_owned(),
        language: entry
            .manifest
            .as_ref()
            .map(|m| m.language.clone())
            .unwrap_or_default(),
    }
}

/// The transcript's record of a started extension.
fn loaded_observation(e: &LoadedExtension) -> Observation {
    Observation::Loaded {
        ext: e.name.clone(),
        version: e.hello.version.clone(),
        source: e.source.label().to_owned(),
        language: e.manifest.language.clone(),
    }
}

/// Why `exec` could not be started, saying where the host looked: a bare
/// `No such file or directory` does not tell a missing interpreter from a
/// venv that was never created.
fn spawn_error(exec: &str, dir: &std::path::Path, e: &std::io::Error) -> String {
    let path = crate::process::spawn::resolve_exec(dir, exec);
    // HOST-13: a bare name is looked up on PATH, anything else is a path.
    let bare = path.as_path() == std::path::Path::new(exec) && !path.is_absolute();
    match e.kind() {
        std::io::ErrorKind::NotFound if !bare => format!(
            "spawn: {} does not exist; fix `exec` in extension.json, or create it (a venv or \
             a build output is not installed with the extension: docs/ship/)",
            path.display()
        ),
        std::io::ErrorKind::NotFound => {
            format!("spawn: {exec:?} is not on PATH; install it, or give `exec` as a path")
        }
        std::io::ErrorKind::PermissionDenied => format!(
            "spawn: {} is not executable ({e}); `chmod +x` it, or start it through its \
             interpreter (`exec` the interpreter, the file in `args`)",
            path.display()
        ),
        _ => format!("spawn: {}: {e}", path.display()),
    }
}

/// How many of its last stderr lines a failed start shows.
const STDERR_TAIL_LINES: usize = 10;

async fn load_one(
    shared: Arc<Shared>,
    handler: HandlerSlot,
    entry: Entry,
    rank: usize,
) -> Result<Arc<LoadedExtension>, LoadError> {
    let Some(manifest) = entry.manifest.clone() else {
        // Entries to load always carry a (checked) manifest.
        return Err(LoadError::new(
            &entry.name(),
            &entry.dir,
            None,
            "no valid manifest",
            None,
        ));
    };
    let log = Arc::new(ExtLog::open(&shared.cfg.log_path(&manifest.name)));
    let name = manifest.name.to_string();
    let err = |cause: String| LoadError::new(&name, &entry.dir, Some(&manifest), cause, Some(&log));
    let t = &shared.cfg.timeouts;
    let log_start = log.end();
    let sp = spawn(&manifest, &entry.dir, &log, t.sigterm_to_sigkill)
        .map_err(|e| err(spawn_error(&manifest.exec, &entry.dir, &e)))?;
    let mut lines = LineReader::new(BufReader::new(sp.stdout));
    let hello = read_hello(&name, &sp.process, &mut lines, t, shared.wire.as_ref())
        .await
        .map_err(|e| {
            // The process is gone (read_hello reaped it), so everything it
            // wrote to stderr is in the log: its last lines usually say why.
            let mut le = err(e.to_string());
            le.stderr = log.stderr_tail(log_start, STDERR_TAIL_LINES);
            log.line(&format!("handshake failed: {e}"));
            le
        })?;
    let outbound = Outbound::start(&name, sp.stdin, shared.cfg.queue, shared.wire.clone());
    if !write_hello_ack(&shared.cfg, &outbound, &entry.dir).await {
        outbound.close("hello_ack write failed");
        sp.process.kill_and_wait().await;
        return Err(err("could not write hello_ack".into()));
    }
    let ext = LoadedExtension::new(NewExtension {
        name: name.clone(),
        dir: entry.dir.clone(),
        manifest,
        source: entry.source,
        rank,
        hello,
        log,
        outbound,
        process: Some(sp.process),
        handler,
    });
    if ext.hello.name != name {
        // OP-6: the manifest name is the identity; the mismatch is a diagnostic.
        let msg = format!(
            "hello name {:?} differs from manifest name {:?}; using the manifest name",
            ext.hello.name, name
        );
        ext.diagnose(&shared, &msg);
    }
    tokio::spawn(ext.clone().read_loop(shared.clone(), lines));
    Ok(ext)
}

/// Writes `hello_ack` (within the write bound); false when it could not be.
async fn write_hello_ack(cfg: &HostConfig, outbound: &Outbound, dir: &std::path::Path) -> bool {
    let mut caps = vec![Capability::CallTool];
    if cfg.continuous {
        caps.push(Capability::CallToolDurable);
    }
    let dir = dir.display().to_string();
    let ack = HostFrame::HelloAck(HelloAck {
        protocol_version: PROTOCOL_VERSION,
        capabilities: caps,
        zot_version: cfg.zot_version.clone(),
        provider: cfg.provider.clone(),
        model: cfg.model.clone(),
        cwd: cfg.cwd.display().to_string(),
        extension_dir: dir.clone(),
        data_dir: dir,
    });
    let written = match outbound.request(&ack) {
        Ok(t) => crate::deadline::timeout(cfg.timeouts.write, t.written).await,
        Err(e) => Ok(Ok(Err(e))),
    };
    matches!(written, Ok(Ok(Ok(()))))
}

/// Waits for every extension to be ready, at most `grace`; laggards are
/// marked [`ReadyState::TimedOut`] (HOST-32).
async fn wait_ready(exts: &[Arc<LoadedExtension>], grace: std::time::Duration) {
    let watches = exts.iter().map(|e| e.ready_watch()).collect();
    crate::process::ready::wait_all(watches, grace).await;
    for e in exts {
        if e.mark_ready(ReadyState::TimedOut) {
            e.log.line("timed out waiting for ready frame; proceeding");
        }
    }
}
