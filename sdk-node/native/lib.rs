//! napi-rs binding of the zot-ext engine: the native half of the npm package
//! `zot-ext`.
//!
//! This module is private to the package: users import the TypeScript facade
//! (`sdk-node/src/*.ts`), never these classes. [`NativeEngine`] wraps the
//! engine's binding core ([`zot_ext_engine::binding::BindingEngine`]) method
//! for method, as the Python binding does, and keeps the engine's pull
//! model:
//!
//! - The engine reads the host's pipe itself (the one read path).
//! - [`NativeEngine::on_jobs`] sets the readiness signal: a thread-safe
//!   function the engine calls from the thread that queued jobs (once per
//!   batch), so that JavaScript takes every queued job with
//!   [`NativeEngine::take_jobs`] (a JSON array of
//!   [`zot_ext_engine::Job::to_json`] objects) on its own thread: one hop from the engine's reader to the
//!   JavaScript thread. While it is set it keeps Node's event loop alive;
//!   once a batch ends with `finished` the dispatcher removes it and the
//!   process can exit on its own.
//! - Jobs are answered in batches with [`NativeEngine::complete`] (a JSON
//!   array of the contract's answers, see
//!   [`zot_ext_engine::binding::contract::complete_json`]; a failure is one of them).
//! - `call_tool` uses the job form ([`zot_ext_engine::Engine::start_call`]): the result comes
//!   back as a `call_result` job, so the readiness callback is the only
//!   JavaScript function Rust ever calls.
//!
//! Everything crosses the boundary as JSON text or plain numbers; every
//! protocol decision (ids, deadlines, cancellation, call matching, writing)
//! stays in the engine. [`NativeTestHost`] exposes the engine's in-process
//! harness ([`zot_ext_engine::testing::HostHarness`]) for `zot-ext/testing`.

#![deny(clippy::all)]
#![warn(missing_docs)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use napi::bindgen_prelude::{within_runtime_if_available, Function};
use napi::threadsafe_function::ThreadsafeFunctionCallMode;
use napi::{Error, Result, Status};
use napi_derive::napi;
use zot_ext_engine::binding::{schema_origin, BindingEngine, BindingError, Options};
use zot_ext_engine::session::registration;
use zot_ext_engine::testing::{default_hello_ack, HostHarness, StderrMode, TestError};
use zot_ext_engine::{JobId, MemoryHost, Transport};
use zot_protocol::{ExtFrame, Frame, HelloAck, RawJson, RegisterTool};

fn err(msg: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, msg.to_string())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A job id from JavaScript (a non-negative integral number).
fn job_id(id: f64) -> Result<JobId> {
    if id.is_finite() && id >= 0.0 && id.fract() == 0.0 && id <= 9_007_199_254_740_991.0 {
        Ok(JobId(id as u64))
    } else {
        Err(err(format!("invalid job id {id}")))
    }
}

fn millis(ms: Option<f64>) -> Option<Duration> {
    ms.filter(|m| m.is_finite() && *m >= 0.0)
        .map(|m| Duration::from_secs_f64(m / 1000.0))
}

fn binding_err(e: BindingError) -> Error {
    err(e)
}

/// Engine settings that tests may shorten; every field defaults to the
/// engine's (the spec's) value.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// How long handlers get after shutdown/EOF to send their last frames.
    pub shutdown_grace_ms: Option<f64>,
    /// The interception deadline.
    pub intercept_timeout_ms: Option<f64>,
    /// With stdio only: exit the process this long after shutdown/EOF began,
    /// whatever still runs; a negative value disables the watchdog.
    pub exit_watchdog_ms: Option<f64>,
}

fn options(opts: Option<EngineOptions>) -> Options {
    let opts = opts.unwrap_or_default();
    Options {
        shutdown_grace: millis(opts.shutdown_grace_ms),
        intercept_timeout: millis(opts.intercept_timeout_ms),
        exit_watchdog: match opts.exit_watchdog_ms {
            Some(ms) if ms < 0.0 => Some(None),
            other => millis(other).map(Some),
        },
    }
}

/// Starts an engine on napi-rs's tokio runtime.
fn start(
    name: &str,
    version: &str,
    opts: Option<EngineOptions>,
    transport: Transport,
) -> Result<BindingEngine> {
    within_runtime_if_available(|| {
        let rt = tokio::runtime::Handle::try_current().map_err(err)?;
        BindingEngine::start(&rt, name, version, options(opts), transport).map_err(binding_err)
    })
}

/// One running engine (one extension session): the engine's binding core
/// (`zot_ext_engine::binding`), method for method, plus Node's readiness
/// signal (`onJobs`).
#[napi]
pub struct NativeEngine {
    core: BindingEngine,
    /// The host side of the memory transport, until a test host takes it.
    memory: Mutex<Option<MemoryHost>>,
}

#[napi]
impl NativeEngine {
    /// Starts a session on the process's stdin/stdout (stdout protected:
    /// descriptor 1 then points at stderr). Writes `hello` at once.
    #[napi(factory, catch_unwind)]
    pub fn stdio(name: String, version: String, options: Option<EngineOptions>) -> Result<Self> {
        let transport = Transport::stdio().map_err(err)?;
        Ok(Self {
            core: start(&name, &version, options, transport)?,
            memory: Mutex::new(None),
        })
    }

    /// Calls `callback` (with no arguments, on the JavaScript thread) when
    /// jobs are queued and it was not called since the last `takeJobs`:
    /// the readiness signal. Take them with `takeJobs`, in the order taken.
    /// While a callback is set it keeps Node's event loop alive; `null`
    /// removes it (after the `finished` job), so the process can exit on
    /// its own.
    #[napi(catch_unwind, ts_args_type = "callback: (() => void) | null")]
    pub fn on_jobs(&self, callback: Option<Function<'_, (), ()>>) -> Result<()> {
        let engine = self.core.engine();
        let Some(callback) = callback else {
            engine.on_jobs(None);
            return Ok(());
        };
        let wake = callback
            .build_threadsafe_function::<()>()
            .callee_handled::<false>()
            .build()?;
        engine.on_jobs(Some(Box::new(move || {
            // Fails only while Node is shutting down: nobody is waiting.
            let _ = wake.call((), ThreadsafeFunctionCallMode::NonBlocking);
        })));
        Ok(())
    }

    /// Starts a session on an in-memory transport, for tests; the host side
    /// is taken by a [`NativeTestHost`].
    #[napi(factory, catch_unwind)]
    pub fn memory(name: String, version: String, options: Option<EngineOptions>) -> Result<Self> {
        let (transport, host) = Transport::memory();
        Ok(Self {
            core: start(&name, &version, options, transport)?,
            memory: Mutex::new(Some(host)),
        })
    }

    /// The extension name.
    #[napi(getter, catch_unwind)]
    pub fn name(&self) -> String {
        self.core.name().to_owned()
    }

    /// Everything queued right now (possibly `[]`), without waiting: a JSON
    /// array of the contract's jobs (events as the host wrote them).
    #[napi(catch_unwind)]
    pub fn take_jobs(&self) -> String {
        self.core.take_jobs()
    }

    /// Answers a batch of jobs: a JSON array of the contract's `Answer`s
    /// (`{job, command | tool | text | intercept | error}`; none of them: an
    /// event or panel job is done). Their replies leave in one write.
    /// Returns what became of each, in order, as a JSON array of
    /// `Answered` (`{status}`, or `{error}` when the engine refused it and
    /// sent an error reply if one was due). Throws only when `batch` is not
    /// a JSON array.
    #[napi(catch_unwind)]
    pub fn complete(&self, batch: String) -> Result<String> {
        self.core.complete(&batch).map_err(binding_err)
    }

    /// Whether a job was cancelled (or is not open any more).
    #[napi(catch_unwind)]
    pub fn is_cancelled(&self, job: f64) -> Result<bool> {
        Ok(self.core.is_cancelled(job_id(job)?.0))
    }

    /// The host's `hello_ack` frame (`type` included) as JSON, once received.
    #[napi(catch_unwind)]
    pub fn hello_ack(&self) -> Option<String> {
        self.core.hello_ack()
    }

    /// Registers a slash command.
    #[napi(catch_unwind)]
    pub fn register_command(&self, name: String, description: String) -> Result<()> {
        self.core
            .register_command(&name, &description)
            .map_err(binding_err)
    }

    /// Registers a tool given as the fields of `register_tool` (JSON; key
    /// order of the schemas is kept byte for byte). `derived`: the SDK
    /// derived the schema from a zod schema (its check is built on the
    /// first call).
    #[napi(catch_unwind)]
    pub fn register_tool(&self, spec: String, derived: bool) -> Result<()> {
        self.core.register_tool(&spec, derived).map_err(binding_err)
    }

    /// Subscribes to a lifecycle event by name.
    #[napi(catch_unwind)]
    pub fn subscribe(&self, event: String) -> Result<()> {
        self.core.subscribe(&event).map_err(binding_err)
    }

    /// Registers an interceptor for one of the four interceptable events.
    #[napi(catch_unwind)]
    pub fn intercept(&self, event: String) -> Result<()> {
        self.core.intercept(&event).map_err(binding_err)
    }

    /// Registers everything at once (JSON: `commands`, `tools` as spec
    /// texts, `events`, `intercepts`); what the engine refuses is logged.
    /// Returns how many registrations were refused.
    #[napi(catch_unwind)]
    pub fn register_all(&self, registrations: String) -> Result<u32> {
        let refused = self
            .core
            .register_all(&registrations)
            .map_err(binding_err)?;
        Ok(u32::try_from(refused).unwrap_or(u32::MAX))
    }

    /// Routes input for `panelId` to the handlers the facade registered as
    /// `registration`; input jobs carry the registration bound when their
    /// frame arrived.
    #[napi(catch_unwind)]
    pub fn bind_panel(&self, panel_id: String, registration: i64) -> Result<()> {
        let registration = u64::try_from(registration).map_err(|_| {
            Error::new(
                Status::InvalidArg,
                format!("bindPanel: registration {registration} is negative"),
            )
        })?;
        self.core.bind_panel(&panel_id, registration);
        Ok(())
    }

    /// Forgets `panelId`'s handlers: its input is ignored from now on.
    #[napi(catch_unwind)]
    pub fn unbind_panel(&self, panel_id: String) {
        self.core.unbind_panel(&panel_id);
    }

    /// Ends the on-hello phase: every registration, `subscribe`, `ready`.
    #[napi(catch_unwind)]
    pub fn hello_done(&self) -> Result<()> {
        self.core.hello_done().map_err(binding_err)
    }

    /// Sends a spontaneous frame given as JSON (`notify`, `clear_notes`,
    /// `submit`, `submit_slash`, `open_panel`, `panel_render`,
    /// `panel_close`).
    #[napi(catch_unwind)]
    pub fn send(&self, frame: String) -> Result<()> {
        self.core.send(&frame).map_err(binding_err)
    }

    /// Starts a `call_tool` given as a `CallStart` (JSON). Returns a
    /// `CallStarted` (JSON): `{"call": n}` (the result arrives as a
    /// `call_result` job) or `{"error", "error_kind"}` when nothing was
    /// sent; throws only when `request` is not a `CallStart`.
    #[napi(catch_unwind)]
    pub fn start_call(&self, request: String) -> Result<String> {
        self.core.start_call(&request).map_err(binding_err)
    }

    /// Gives up on a call: `call_tool_cancel` is sent and its `call_result`
    /// carries the `cancelled` error. Unknown or finished calls are ignored.
    #[napi(catch_unwind)]
    pub fn cancel_call(&self, call: f64) -> Result<()> {
        self.core.cancel_call(job_id(call)?.0);
        Ok(())
    }

    /// Ends the session from the extension's side (like EOF, without
    /// `shutdown_ack`).
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.core.close();
    }

    /// Writes `[<name>] message` to stderr.
    #[napi(catch_unwind)]
    pub fn log(&self, message: String) {
        self.core.log(&message);
    }
}

/// Writes `[<name>] message` to stderr, one prefixed line per line of
/// `message` (the engine's format), for logging before a session runs.
#[napi(catch_unwind)]
pub fn log_line(name: String, message: String) {
    use std::io::Write;
    let mut out = std::io::stderr().lock();
    if message.is_empty() {
        let _ = writeln!(out, "[{name}] ");
    }
    for l in message.lines() {
        let _ = writeln!(out, "[{name}] {l}");
    }
}

/// Protects stdout before the session: the wire is set aside for the engine
/// and descriptor 1 points at stderr from now on (see
/// `Transport::protect_stdio`). Safe to call more than once.
#[napi(catch_unwind)]
pub fn protect_stdout() -> Result<()> {
    Transport::protect_stdio()
        .map_err(|e| Error::from_reason(format!("cannot protect stdout: {e}")))
}

/// Checks a command name against the protocol's rules (throws if invalid).
#[napi(catch_unwind)]
pub fn check_command(name: String) -> Result<()> {
    registration::check_command(&name).map_err(err)
}

/// Checks a tool registration (the fields of `register_tool` as JSON):
/// name, exposure and schemas, a schema written as JSON against the JSON
/// Schema meta-schema unless `derived` (throws if invalid).
#[napi(catch_unwind)]
pub fn check_tool(spec: String, derived: bool) -> Result<()> {
    let tool: RegisterTool = serde_json::from_str(&spec).map_err(err)?;
    registration::check_tool(&tool, schema_origin(derived)).map_err(err)
}

/// Checks that `event` is a lifecycle event (throws, listing them, if not).
#[napi(catch_unwind)]
pub fn check_event(event: String) -> Result<()> {
    registration::check_event(&event).map_err(err)
}

/// Checks that `event` can be intercepted (throws if not).
#[napi(catch_unwind)]
pub fn check_intercept(event: String) -> Result<()> {
    registration::check_intercept(&event).map_err(err)
}

fn test_err(e: TestError) -> Error {
    err(e)
}

fn frame_json(frame: &ExtFrame) -> Result<String> {
    serde_json::to_string(frame).map_err(err)
}

fn frames_json(frames: &[ExtFrame]) -> Result<String> {
    serde_json::to_string(frames).map_err(err)
}

type Shared = Arc<tokio::sync::Mutex<Option<HostHarness>>>;

/// How [`NativeTestHost::spawn`] starts an extension process.
#[napi(object)]
pub struct SpawnOptions {
    /// The working directory (the current one by default).
    pub cwd: Option<String>,
    /// The whole environment of the process (the current one by default).
    pub env: Option<std::collections::HashMap<String, String>>,
    /// `"pipe"` (captured, the default) or `"inherit"`.
    pub stderr: Option<String>,
}

/// How a spawned extension process ended.
#[napi(object)]
pub struct ProcessExit {
    /// Its exit code; absent when a signal ended it.
    pub code: Option<i32>,
}

/// What the handshake will connect to.
enum Pending {
    Memory(MemoryHost),
    Process(std::process::Command, StderrMode),
}

/// The host side of a session, in-memory or with an extension process:
/// [`HostHarness`] for `zot-ext/testing`. Frames cross as JSON text.
#[napi]
pub struct NativeTestHost {
    pending: Mutex<Option<Pending>>,
    host: Shared,
    /// How a spawned process ended, once it did (`Some(None)` in-process),
    /// sent by a task started with the session, so that it is known even
    /// after `close` dropped the harness.
    exit: tokio::sync::watch::Receiver<Exit>,
    exit_tx: Mutex<Option<tokio::sync::watch::Sender<Exit>>>,
}

/// How the session's extension ended, as far as known.
#[derive(Clone, Copy, PartialEq)]
enum Exit {
    Running,
    InProcess,
    /// The exit code (`None`: a signal ended it).
    Exited(Option<i32>),
}

impl NativeTestHost {
    fn with(pending: Pending) -> Self {
        let (exit_tx, exit) = tokio::sync::watch::channel(Exit::Running);
        Self {
            pending: Mutex::new(Some(pending)),
            host: Arc::default(),
            exit,
            exit_tx: Mutex::new(Some(exit_tx)),
        }
    }
}

/// The connected [`HostHarness`], locked for one operation.
struct Connected(tokio::sync::OwnedMutexGuard<Option<HostHarness>>);

impl std::ops::Deref for Connected {
    type Target = HostHarness;
    fn deref(&self) -> &HostHarness {
        self.0.as_ref().expect("checked when locked")
    }
}

impl std::ops::DerefMut for Connected {
    fn deref_mut(&mut self) -> &mut HostHarness {
        self.0.as_mut().expect("checked when locked")
    }
}

async fn connected(shared: &Shared) -> Result<Connected> {
    let guard = shared.clone().lock_owned().await;
    if guard.is_none() {
        return Err(err("the test host is not connected (call handshake first)"));
    }
    Ok(Connected(guard))
}

#[napi]
impl NativeTestHost {
    /// Takes the host side of a memory engine's transport.
    #[napi(constructor, catch_unwind)]
    pub fn new(engine: &NativeEngine) -> Result<Self> {
        let host = lock(&engine.memory)
            .take()
            .ok_or_else(|| err("this engine has no unclaimed memory transport"))?;
        Ok(Self::with(Pending::Memory(host)))
    }

    /// An extension process to start: `command` with `args` (started by
    /// `handshake`, killed when the test host is closed or collected).
    #[napi(factory, catch_unwind)]
    pub fn spawn(
        command: String,
        args: Vec<String>,
        options: Option<SpawnOptions>,
    ) -> Result<Self> {
        let mut cmd = std::process::Command::new(command);
        cmd.args(args);
        let mut stderr = StderrMode::Capture;
        if let Some(o) = options {
            if let Some(cwd) = o.cwd {
                cmd.current_dir(cwd);
            }
            if let Some(env) = o.env {
                cmd.env_clear().envs(env);
            }
            stderr = match o.stderr.as_deref() {
                None | Some("pipe") => StderrMode::Capture,
                Some("inherit") => StderrMode::Inherit,
                Some(other) => {
                    return Err(err(format!(
                        "stderr: {other:?} is neither \"pipe\" nor \"inherit\""
                    )))
                }
            };
        }
        Ok(Self::with(Pending::Process(cmd, stderr)))
    }

    /// Reads `hello`, sends `hello_ack` (the harness default with the
    /// fields of `ack`, a JSON object, laid over it) and reads the
    /// registrations up to `ready`. Returns the registration as JSON.
    #[napi(catch_unwind)]
    pub async fn handshake(&self, ack: String) -> Result<String> {
        let mut merged = serde_json::to_value(default_hello_ack()).map_err(err)?;
        let overrides: serde_json::Value = serde_json::from_str(&ack).map_err(err)?;
        if let (Some(base), Some(extra)) = (merged.as_object_mut(), overrides.as_object()) {
            for (k, v) in extra {
                base.insert(k.clone(), v.clone());
            }
        }
        let ack: HelloAck = serde_json::from_value(merged).map_err(err)?;
        let pending = lock(&self.pending)
            .take()
            .ok_or_else(|| err("handshake was already done"))?;
        let host = match pending {
            Pending::Memory(memory) => HostHarness::connect(memory, ack).await,
            Pending::Process(cmd, stderr) => HostHarness::spawn_with(cmd, ack, stderr).await,
        }
        .map_err(test_err)?;
        let reg = host.registration();
        // Written field by field: the frames keep their wire key order (and
        // the schemas their bytes), which a `json!` map would sort.
        let json = format!(
            r#"{{"hello":{},"commands":{},"tools":{},"events":{},"intercepts":{},"subscribe_frames":{}}}"#,
            serde_json::to_string(&reg.hello).map_err(err)?,
            serde_json::to_string(&reg.commands).map_err(err)?,
            serde_json::to_string(&reg.tools).map_err(err)?,
            serde_json::to_string(&reg.events).map_err(err)?,
            serde_json::to_string(&reg.intercepts).map_err(err)?,
            reg.subscribe_frames,
        );
        if let Some(tx) = lock(&self.exit_tx).take() {
            let exited = host.exited();
            tokio::spawn(async move {
                let _ = tx.send(match exited.await {
                    Some(status) => Exit::Exited(status.code()),
                    None => Exit::InProcess,
                });
            });
        }
        *self.host.lock().await = Some(host);
        Ok(json)
    }

    /// Every line the extension wrote so far, as a JSON array of strings.
    #[napi(catch_unwind)]
    pub async fn transcript(&self) -> Result<String> {
        let h = connected(&self.host).await?;
        serde_json::to_string(h.transcript()).map_err(err)
    }

    /// Sends one line as is.
    #[napi(catch_unwind)]
    pub async fn send_json(&self, line: String) -> Result<()> {
        let mut h = connected(&self.host).await?;
        h.send_json(&line).await.map_err(test_err)
    }

    /// Invokes a command and waits for its `command_response` (JSON).
    #[napi(catch_unwind)]
    pub async fn command(&self, name: String, args: String) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let r = h.command(&name, &args).await.map_err(test_err)?;
        frame_json(&ExtFrame::CommandResponse(r))
    }

    /// Waits for the `command_response` to `id` (JSON).
    #[napi(catch_unwind)]
    pub async fn command_response(&self, id: String) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let r = h.command_response(&id).await.map_err(test_err)?;
        frame_json(&ExtFrame::CommandResponse(r))
    }

    /// Sends a `tool_call` (args as JSON) without waiting; returns its id.
    /// `id` chooses the id (generated otherwise).
    #[napi(catch_unwind)]
    pub async fn start_tool(
        &self,
        name: String,
        args: String,
        id: Option<String>,
    ) -> Result<String> {
        let args = RawJson::from_string(args).map_err(err)?;
        let mut h = connected(&self.host).await?;
        match id {
            Some(id) => h
                .start_tool_with_id(&id, &name, args)
                .await
                .map(|()| id)
                .map_err(test_err),
            None => h.start_tool(&name, args).await.map_err(test_err),
        }
    }

    /// Waits for the `tool_result` to `id` (JSON).
    #[napi(catch_unwind)]
    pub async fn tool_result(&self, id: String) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let r = h.tool_result(&id).await.map_err(test_err)?;
        frame_json(&ExtFrame::ToolResult(r))
    }

    /// Sends `tool_cancel` for `id`.
    #[napi(catch_unwind)]
    pub async fn cancel_tool(&self, id: String) -> Result<()> {
        let mut h = connected(&self.host).await?;
        h.cancel_tool(&id).await.map_err(test_err)
    }

    /// Sends an `event_intercept` (JSON) and waits for its response (JSON).
    #[napi(catch_unwind)]
    pub async fn intercept(&self, request: String) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let r = h.intercept_json(&request).await.map_err(test_err)?;
        frame_json(&ExtFrame::EventInterceptResponse(r))
    }

    /// Sends a `panel_key`.
    #[napi(catch_unwind)]
    pub async fn panel_key(&self, panel_id: String, key: String, text: String) -> Result<()> {
        let mut h = connected(&self.host).await?;
        h.panel_key(&panel_id, &key, &text).await.map_err(test_err)
    }

    /// Sends the host's `panel_close`.
    #[napi(catch_unwind)]
    pub async fn panel_close(&self, panel_id: String) -> Result<()> {
        let mut h = connected(&self.host).await?;
        h.panel_close(&panel_id).await.map_err(test_err)
    }

    /// Waits for the extension's next `call_tool` (JSON).
    #[napi(catch_unwind)]
    pub async fn expect_call_tool(&self) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let c = h.expect_call_tool().await.map_err(test_err)?;
        frame_json(&ExtFrame::CallTool(c))
    }

    /// Answers a `call_tool` (given as the JSON `expectCallTool` returned)
    /// with one text block.
    #[napi(catch_unwind)]
    pub async fn answer_call(&self, call: String, text: String, is_error: bool) -> Result<()> {
        let call = match ExtFrame::decode_str(&call).map_err(err)? {
            ExtFrame::CallTool(c) => c,
            other => return Err(err(format!("not a call_tool frame: {}", other.type_name()))),
        };
        let mut h = connected(&self.host).await?;
        h.answer_call(&call, &text, is_error)
            .await
            .map_err(test_err)
    }

    /// The next frame the extension wrote (frames skipped by the waiting
    /// helpers first), as its JSON line.
    #[napi(catch_unwind)]
    pub async fn next_frame(&self) -> Result<String> {
        let mut h = connected(&self.host).await?;
        h.next_frame_json().await.map_err(test_err)
    }

    /// The next frame if one was already written (never waits), as JSON.
    #[napi(catch_unwind)]
    pub async fn try_next_frame(&self) -> Result<Option<String>> {
        let mut h = connected(&self.host).await?;
        h.try_next_frame().as_ref().map(frame_json).transpose()
    }

    /// Reads until a frame of type `frame_type` comes (others stay queued
    /// for `nextFrame`); returns it as JSON.
    #[napi(catch_unwind)]
    pub async fn wait_for_type(&self, frame_type: String) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let f = h
            .wait_for(|f| (f.type_name() == frame_type).then(|| f.clone()))
            .await
            .map_err(test_err)?;
        frame_json(&f)
    }

    /// Sends `shutdown`; returns every remaining frame (JSON array) once the
    /// extension's output closed (`shutdown_ack` last).
    #[napi(catch_unwind)]
    pub async fn shutdown(&self) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let frames = h.shutdown().await.map_err(test_err)?;
        frames_json(&frames)
    }

    /// Closes the extension's stdin (EOF); returns every remaining frame.
    #[napi(catch_unwind)]
    pub async fn close_stdin(&self) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let frames = h.close_stdin().await.map_err(test_err)?;
        frames_json(&frames)
    }

    /// Every remaining frame until the extension's output closes.
    #[napi(catch_unwind)]
    pub async fn drain(&self) -> Result<String> {
        let mut h = connected(&self.host).await?;
        let frames = h.drain().await.map_err(test_err)?;
        frames_json(&frames)
    }

    /// What a spawned process wrote on its stderr so far (`null`
    /// in-process or when inherited).
    #[napi(catch_unwind)]
    pub async fn stderr(&self) -> Result<Option<String>> {
        let h = connected(&self.host).await?;
        Ok(h.stderr())
    }

    /// Resolves once a spawned process exited: `{ code }` (no `code`
    /// when a signal ended it); `null` at once in-process. Holds no lock
    /// while it waits, and still answers after `close`.
    #[napi(catch_unwind)]
    pub async fn exited(&self) -> Result<Option<ProcessExit>> {
        let mut rx = self.exit.clone();
        let exit = match rx.wait_for(|e| *e != Exit::Running).await {
            Ok(exit) => *exit,
            Err(_) => return Err(err("the extension did not start")),
        };
        Ok(match exit {
            Exit::Exited(code) => Some(ProcessExit { code }),
            _ => None,
        })
    }

    /// Ends the session now: a spawned process is killed and reaped (an
    /// in-process extension sees its stdin close). Waits for the operation
    /// in progress, if any.
    #[napi(catch_unwind)]
    pub async fn close(&self) -> Result<()> {
        lock(&self.pending).take();
        let harness = self.host.lock().await.take();
        drop(harness);
        Ok(())
    }
}
