//! # zot-ext-engine
//!
//! The zot extension engine: one implementation of every extension-side
//! rule of the zot extension protocol (docs/protocol.md), shared by three equal
//! clients: the Rust SDK (crate `zot-ext`), the Node SDK's napi binding and
//! the Python SDK's pyo3 binding. Extension authors use one of those SDKs;
//! this crate is for SDK and binding authors.
//!
//! # Shape: a pull model
//!
//! The engine owns the transport, the handshake, ids, dispatch decisions,
//! deadlines, cancellation, `call_tool` correlation, the writer and shutdown.
//! It never calls user code. A dispatcher (the Rust SDK's `Extension`, or a
//! binding's loop) *pulls* plain-data [`Job`]s in batches: everything
//! waiting at once, with [`Engine::take_jobs`] (never blocks) after a
//! readiness signal of its runtime, or with [`Engine::next_jobs`], the
//! async form of the same pull. It answers each with [`Engine::complete`]
//! (a batch with [`Engine::complete_all`]; a failed handler is
//! [`Outcome::Failed`]). Cancellation is one more job ([`Job::Cancel`]).
//!
//! There is one read path: the engine reads the host's pipe itself, on its
//! own runtime, whichever client runs it. (Bindings once read the pipe on
//! their own event loop and fed the bytes in, to save one thread hand-off
//! per request; that second path is where the reader panic of the
//! reliability issue lived, and it doubled every reading rule.)
//!
//! Why: pushing into a foreign runtime (calling JavaScript or Python
//! callbacks from Rust threads) is where hangs, processes that never exit
//! and lost cancellations come from (Temporal's sdk-core made the same
//! choice). With the pull model a hung, crashed or slow handler in any
//! language cannot wedge the protocol: the engine has already decided what
//! a late, cancelled or failed answer means, and it keeps reading, replying
//! to unknown requests and enforcing deadlines on its own.
//!
//! # Costs
//!
//! Each frame is decoded straight into its typed struct (one pass when the
//! line starts with its `type`, as hosts write it; bench/README.md measures
//! the cost). Everything read by the time the dispatcher wakes up is
//! handed over as one batch. The reply is encoded and written on the thread
//! that produced it (see `writer`), so there is at most one thread handoff
//! between reading a frame and running its handler: none at all with a
//! current-thread tokio runtime (the Rust SDK), one into the JavaScript or
//! Python thread for bindings.
//!
//! # Layout
//!
//! The crate's folders are its parts. Public: [`binding`] (the surface the
//! Node and Python bindings wrap, and the JSON contract they exchange),
//! [`session`] (the handshake, the registration rules, the end of a
//! session), [`runtime`] (supervised tasks, panics, signals, logging) and
//! [`testing`] (driving an extension as its host). Inside: `wire` (the
//! transport, the read loop, the single writer, refused lines), `jobs`
//! (the queue, the serial order, the worker lane, cancellation, completing
//! a job), `requests` (tool arguments, ids in flight, panel input,
//! interception answers) and `call_tool`. This file holds the [`Engine`]
//! and its state.
//!
//! # When something goes wrong
//!
//! A request with the id of a request of its kind still running
//! (`tool_call`, `command_invoked`, `event_intercept`) is answered at once
//! with an error (an `is_error` tool result, a `noop` command response with
//! `error`, a `block`) and never run; the running request keeps its reply
//! and its `tool_cancel` (running both would give the host two replies
//! with one id, and a `tool_cancel` could reach only one of them).
//!
//! A panic inside the engine's own tasks is a bug: the extension writes
//! one line on stderr naming the task and the message and exits with
//! status 70 (with the stdio transport; on any other the session ends with
//! that error in [`Job::Finished`]), rather than hang or half-work.
//!
//! # Waking a non-tokio event loop
//!
//! One pull, [`Engine::take_jobs`], and one readiness signal per runtime:
//! [`Engine::jobs_ready`] is an `async fn` for tokio callers. A runtime
//! that can be called from any thread (Node, through a thread-safe
//! function) sets a callback with [`Engine::on_jobs`]: the engine calls it
//! from the thread that queued the jobs, once per batch. A loop that
//! watches descriptors (Python's asyncio) calls [`Engine::wake_fd`] once,
//! watches it for readability (`loop.add_reader(fd, cb)`) and calls
//! [`Engine::take_jobs`] from the callback. Either way the next batch's
//! signal is re-armed by `take_jobs`.
//!
//! # Example
//!
//! A complete dispatcher over the in-memory transport, acting as its own
//! host:
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use zot_ext_engine::{CommandOutcome, Engine, EngineConfig, Job, Outcome, Transport};
//! use zot_protocol::{CommandAction, RegisterCommand};
//!
//! let (transport, mut host) = Transport::memory();
//! let engine = Engine::start(EngineConfig::new("demo", "1.0.0"), transport).unwrap();
//! engine.register_command(RegisterCommand { name: "hi".into(), description: String::new() }).unwrap();
//!
//! assert!(host.recv_line().await.unwrap().starts_with(r#"{"type":"hello""#));
//! host.send_line(r#"{"type":"hello_ack","protocol_version":1,"zot_version":"","provider":"","model":"","cwd":"/"}"#).await.unwrap();
//! host.send_line(r#"{"type":"command_invoked","id":"1","name":"hi","args":"there"}"#).await.unwrap();
//!
//! 'session: loop {
//!     for job in engine.next_jobs().await {
//!         match job {
//!             Job::Hello(_) => engine.hello_done().unwrap(),
//!             Job::Command(c) => {
//!                 let out = CommandOutcome { action: CommandAction::Display, display: c.args, ..Default::default() };
//!                 engine.complete(c.id, Outcome::Command(out)).unwrap();
//!                 host.close_input(); // EOF: the session ends
//!             }
//!             Job::Finished { .. } => break 'session,
//!             _ => {}
//!         }
//!     }
//! }
//! let mut lines = Vec::new();
//! while let Some(l) = host.recv_line().await {
//!     lines.push(l);
//! }
//! assert_eq!(lines, [
//!     r#"{"type":"register_command","name":"hi"}"#,
//!     r#"{"type":"ready"}"#,
//!     r#"{"type":"command_response","id":"1","action":"display","display":"there"}"#,
//! ]);
//! # });
//! ```

#![warn(missing_docs)]

pub mod binding;
mod call_tool;
mod jobs;
mod requests;
pub mod runtime;
pub mod session;
pub mod testing;
mod wire;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::Notify;
use tokio::task::AbortHandle;
use zot_protocol::limits::{INTERCEPT_TIMEOUT, WRITE_TIMEOUT};
use zot_protocol::values::SDK_CAPABILITIES;
use zot_protocol::{encode_frame, Capability, CodecError, ContentBlock, ExtFrame, Hello, HelloAck};

pub use call_tool::error::CallToolError;
pub use call_tool::{CallRequest, CallToolFuture};
pub use jobs::cancel::CancelToken;
pub use jobs::outcome::{
    CommandOutcome, CompleteError, Completion, DropReason, InterceptOutcome, Outcome, ToolOutcome,
};
pub use jobs::workers::{Routed, Taken, Work};
pub use jobs::{CallId, CommandJob, EventData, InterceptJob, Job, JobId, Lane, ToolJob};
pub use requests::args::MAX_EXACT_INTEGER;
pub use session::registration::{RegisterError, SchemaOrigin};
pub use wire::diagnostics::RepeatLimit;
pub use wire::reader::PARKED_READ_AHEAD_BYTES;
pub use wire::transport::{MemoryHost, Transport};
pub use wire::writer::{FrameSink, WriteError, WriteWait};

use jobs::JobQueue;
use requests::intercept::InterceptKind;
use runtime::fast_hash::{FastMap, FastSet};
use session::close_reason::CloseReason;
use session::handshake::Registry;
use wire::writer::{WriteLane, Writer};

/// At most this many event and panel jobs are read ahead of their handlers.
///
/// Events are one-way, so a burst would otherwise be read and decoded
/// whole before the first handler runs: a 100k `tool_call` burst held
/// 100k open jobs (74 MB) and ran out of cache. Past the bound the reader
/// pauses until half of them are answered; the pipe and the host's own
/// bounded queue (256 frames) then hold the rest. While a `call_tool` is
/// pending (a handler may be waiting for its answer) it reads on, answers
/// `tool_result` at once and holds the other lines undecoded, at most
/// [`PARKED_READ_AHEAD_BYTES`] of them, handing them over in order once
/// the backlog has room. A serial handler that waits for something only a later frame brings
/// (shutdown, a panel key) behind a full backlog delays reading until its
/// own deadline, exactly like a synchronous handler would.
pub const SERIAL_READ_AHEAD: usize = 1024;

/// Locks a mutex, ignoring poisoning: the engine's state stays consistent
/// across a panicking user handler because handlers never hold its locks.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How an engine behaves; the defaults are the spec's.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// `hello.name` (should equal the manifest name).
    pub name: String,
    /// `hello.version`.
    pub version: String,
    /// `hello.capabilities`; the six of SDK-2 by default (`tool_cancel` and
    /// `call_tool` included, since the engine implements both).
    pub capabilities: Vec<Capability>,
    /// How long handlers get after shutdown/EOF to send their last frames;
    /// shorter when every open job completes first. 500 ms by default, well
    /// within the host's 2 s grace.
    pub shutdown_grace: Duration,
    /// How long the last flush, when the session closes, waits for a host
    /// that reads nothing ([`WRITE_TIMEOUT`] by default). Every other write
    /// waits for the host as long as the pipe is open (see
    /// [`FrameSink`]); meanwhile the engine reads no new requests.
    pub close_flush_timeout: Duration,
    /// After this long an interception answer is dropped: the host has
    /// moved on ([`INTERCEPT_TIMEOUT`]).
    pub intercept_timeout: Duration,
    /// With the stdio transport only: once shutdown or EOF begins, exit the
    /// process after this long whatever still runs, so a stuck handler
    /// cannot outlive the host's 2 s grace. `None` disables it.
    pub exit_watchdog: Option<Duration>,
    /// Flush once per scheduler pass instead of after every frame: a write
    /// appends to the buffer and a flush task on the engine's runtime writes
    /// everything appended until it runs. On a current-thread runtime (the
    /// Rust SDK) replies produced in one pass leave in one `write(2)`, for
    /// the cost of one task hop when idle. Bindings keep it off: their
    /// replies come from the JavaScript or Python thread, where a flush task
    /// would add a wake-up of another thread per reply.
    pub deferred_flush: bool,
    /// How often a diagnostic the host can repeat at will (a malformed or
    /// oversize line, an unknown frame type...) is written verbatim before
    /// the rest are counted (10 per kind every 10 s by default).
    pub repeat_limit: RepeatLimit,
    /// Keep each event's frame text in [`Job::Event`] (`frame`). The
    /// bindings set it: the event then crosses into JavaScript or Python
    /// as the host wrote it, parsed once there, instead of being encoded
    /// again from its decoded form. Off by default (the Rust SDK uses the
    /// decoded event and would only pay for the copy).
    pub event_frames: bool,
}

impl EngineConfig {
    /// The defaults for an extension `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            capabilities: SDK_CAPABILITIES
                .iter()
                .map(|c| Capability::from(*c))
                .collect(),
            shutdown_grace: Duration::from_millis(500),
            close_flush_timeout: WRITE_TIMEOUT,
            intercept_timeout: INTERCEPT_TIMEOUT,
            exit_watchdog: Some(Duration::from_millis(1500)),
            deferred_flush: false,
            repeat_limit: RepeatLimit::default(),
            event_frames: false,
        }
    }
}

/// Why the engine could not start or go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// [`Engine::start`] was called outside a tokio runtime.
    #[error("the engine must be started inside a tokio runtime")]
    NoRuntime,
    /// `hello.name` must not be empty.
    #[error("the extension name must not be empty")]
    EmptyName,
    /// A frame could not be written.
    #[error("write failed: {0}")]
    Write(String),
    /// [`Engine::hello_done`] before [`Job::Hello`].
    #[error("hello_done called before hello_ack was received")]
    NoHelloYet,
}

/// Why a spontaneous frame was not sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SendError {
    /// Only `notify`, `clear_notes`, `submit`, `submit_slash`,
    /// `open_panel`, `panel_render` and `panel_close` may be sent freely;
    /// the engine writes every other frame itself.
    #[error("{0:?} frames are written by the engine, not sent freely")]
    NotSpontaneous(String),
    /// The JSON is not a valid extension frame.
    #[error("invalid frame: {0}")]
    Invalid(String),
    /// The frame could not be written (too large, transport broken, closed).
    #[error(transparent)]
    Write(#[from] WriteError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// `hello` written, waiting for `hello_ack`.
    AwaitingAck,
    /// `Job::Hello` handed out, waiting for `hello_done`.
    Hello,
    /// Announced; normal operation.
    Running,
    /// Shutdown, EOF or a broken transport: jobs cancelled, grace running.
    Closing,
    /// Over.
    Finished,
}

#[derive(Debug, Clone)]
pub(crate) enum OpenKind {
    Command,
    Tool,
    Intercept(InterceptKind),
    /// An event or panel job (what it is, for diagnostics).
    Serial(SerialWhat),
}

/// What a serial job is, for the log line when its handler fails. Kept
/// cheap: events are the hot path (no `format!` per event).
#[derive(Debug, Clone)]
pub(crate) enum SerialWhat {
    /// A lifecycle event (documented names are static).
    Event(std::borrow::Cow<'static, str>),
    /// Panel input: `key`, `close` or `resize` for this panel.
    Panel {
        panel_id: String,
        what: &'static str,
    },
}

impl std::fmt::Display for SerialWhat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Event(name) => write!(f, "event {name}"),
            Self::Panel { panel_id, what } => write!(f, "panel {panel_id} {what}"),
        }
    }
}

impl OpenKind {
    fn name(&self) -> &'static str {
        match self {
            Self::Command => "command",
            Self::Tool => "tool",
            Self::Intercept(_) => "intercept",
            Self::Serial(_) => "event/panel",
        }
    }
}

/// A job handed out (or queued) and not yet answered.
pub(crate) struct OpenJob {
    pub(crate) kind: OpenKind,
    /// The host's request id.
    pub(crate) invocation: String,
    pub(crate) token: CancelToken,
    /// Wire ids of `call_tool`s started under this job.
    pub(crate) children: Vec<String>,
    /// The interception deadline.
    pub(crate) timer: Option<AbortHandle>,
}

pub(crate) struct State {
    pub(crate) phase: Phase,
    /// Whether the registrations and `ready` were written. Separate from the
    /// phase: a session can start closing (EOF right after `hello_ack`)
    /// before the binding finished its on-hello hook, and the announcement
    /// must still precede the replies to jobs read meanwhile.
    pub(crate) announced: bool,
    pub(crate) registry: Registry,
    /// Which registration of each panel's handlers input goes to.
    pub(crate) panels: requests::panels::PanelBindings,
    pub(crate) jobs: FastMap<u64, OpenJob>,
    /// The host's ids of the requests in flight → job (for `tool_cancel`,
    /// and to refuse duplicates).
    pub(crate) ids: requests::request_ids::RequestIds,
    /// Interceptions whose deadline passed while their handler still runs.
    pub(crate) expired: FastSet<u64>,
    /// Jobs the engine answered itself when the session began closing
    /// (their handlers' answers are dropped).
    pub(crate) answered_at_close: FastSet<u64>,
    pub(crate) calls: FastMap<String, call_tool::PendingCall>,
    pub(crate) close_reason: Option<CloseReason>,
    /// Event and panel jobs read but not answered yet (see
    /// [`SERIAL_READ_AHEAD`]).
    pub(crate) serial_open: usize,
}

pub(crate) struct Inner {
    pub(crate) config: EngineConfig,
    pub(crate) writer: Arc<Writer>,
    pub(crate) queue: JobQueue,
    pub(crate) state: Mutex<State>,
    pub(crate) hello_ack: OnceLock<Arc<HelloAck>>,
    /// Cancelled when shutdown/EOF begins: the session-wide token.
    pub(crate) session: CancelToken,
    /// Cancelled to make the reader stop (broken transport, local close).
    pub(crate) stop: CancelToken,
    /// Cancelled when the session is over.
    pub(crate) done: CancelToken,
    /// Cancelled once the registrations and `ready` were written: the
    /// reader holds frames that follow `hello_ack` until then, so that a
    /// request read early is dispatched against the final registry.
    pub(crate) announced: CancelToken,
    /// Notified whenever the last open job is answered.
    pub(crate) idle: Notify,
    /// Notified when the reader may go on reading after pausing for the
    /// serial backlog (it drained, or a `call_tool` started).
    pub(crate) read_room: Notify,
    pub(crate) rt: Handle,
    pub(crate) stdio: bool,
    /// A fault injected for tests (see `task::Fault`).
    pub(crate) fault: Option<runtime::task::Fault>,
    /// Rate-limits what the host can make the engine say over and over.
    diags: Arc<wire::diagnostics::Diagnostics>,
    next_job: AtomicU64,
    next_call: AtomicU64,
}

impl Inner {
    pub(crate) fn next_job(&self) -> u64 {
        self.next_job.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn next_call(&self) -> u64 {
        self.next_call.fetch_add(1, Ordering::Relaxed)
    }

    /// A diagnostic line on stderr, prefixed with the extension name.
    pub(crate) fn diag(&self, msg: &str) {
        crate::runtime::log::diag(&self.config.name, msg);
    }

    /// A diagnostic of a kind the host can repeat at will: written
    /// verbatim a few times, then counted ([`RepeatLimit`]).
    pub(crate) fn diag_repeated(
        &self,
        kind: wire::diagnostics::Repeated,
        msg: impl FnOnce() -> String,
    ) {
        self.diags.say(&self.rt, kind, msg);
    }

    /// Encodes and writes one frame; a broken transport ends the session.
    pub(crate) fn write_frame(&self, frame: &ExtFrame, lane: WriteLane) -> Result<(), WriteError> {
        let line = encode_frame(frame).map_err(codec_to_write)?;
        self.writer
            .write(&line, lane, false)
            .inspect_err(|e| self.on_write_error(e))
    }

    /// Writes a reply the engine gives by itself (a refusal, the verdict of
    /// an interception without a handler, `shutdown_ack`): a frame that
    /// cannot be sent is a diagnostic, there is no caller to tell.
    pub(crate) fn reply(&self, frame: ExtFrame) {
        if let Err(e) = self.write_frame(&frame, WriteLane::Direct) {
            self.diag(&format!("{} not sent: {e}", frame.type_name()));
        }
    }

    /// Encodes and writes a reply to a job (held while a batch of answers
    /// is completed, see [`Engine::complete_all`]).
    fn write_reply(&self, frame: &ExtFrame) -> Result<(), WriteError> {
        // Sized up front: growing a megabyte result by doubling would copy
        // it several times and hold two copies at once (peak RSS).
        let mut line = Vec::with_capacity(reply_size_hint(frame));
        zot_protocol::codec::encode_frame_into(frame, &mut line).map_err(codec_to_write)?;
        self.writer
            .write_reply(&line)
            .inspect_err(|e| self.on_write_error(e))
    }

    pub(crate) fn on_write_error(&self, e: &WriteError) {
        if let WriteError::Broken(msg) = e {
            if self.begin_close(CloseReason::Broken(msg.clone()), Vec::new()) {
                self.diag(&format!("transport broken ({msg}); ending the session"));
            }
            self.stop.cancel();
        }
    }

    /// Removes an open job; wakes the shutdown grace when none is left.
    fn take_job(&self, st: &mut State, id: u64) -> Option<OpenJob> {
        let job = st.jobs.remove(&id)?;
        if let Some(t) = &job.timer {
            t.abort();
        }
        match requests::request_ids::IdKind::of(&job.kind) {
            Some(kind) => st.ids.remove(kind, &job.invocation, id),
            None => {
                st.serial_open -= 1;
                if st.serial_open == SERIAL_READ_AHEAD / 2 {
                    self.read_room.notify_waiters();
                }
            }
        }
        if st.jobs.is_empty() {
            self.idle.notify_waiters();
        }
        // Before the reply is written: a deferred writer writes the reply to
        // the last open job at once.
        self.writer.set_busy(!st.jobs.is_empty());
        Some(job)
    }

    /// Cancels an open job: its token, a [`Job::Cancel`] into `out`, and its
    /// outstanding calls. Returns the calls to abandon (outside the lock).
    fn cancel_job(&self, st: &mut State, id: u64, out: &mut Vec<Job>) -> Vec<String> {
        match st.jobs.get_mut(&id) {
            Some(job) if job.token.cancel() => {
                out.push(Job::Cancel { id: JobId(id) });
                std::mem::take(&mut job.children)
            }
            _ => Vec::new(),
        }
    }

    fn abandon_children(&self, children: Vec<String>) {
        for wire in children {
            self.abandon_call(&wire, CallToolError::Cancelled, true);
        }
    }

    /// The interception deadline passed: the late answer will be dropped.
    fn expire_intercept(&self, id: u64) {
        let mut cancels = Vec::new();
        let children = {
            let mut st = lock(&self.state);
            if !st.jobs.contains_key(&id) {
                return;
            }
            let children = self.cancel_job(&mut st, id, &mut cancels);
            if let Some(job) = self.take_job(&mut st, id) {
                st.expired.insert(id);
                self.diag(&format!(
                    "intercept {} (id {}) not answered within {:?}; the host allows it, a late answer will be dropped",
                    match &job.kind {
                        OpenKind::Intercept(k) => k.name(),
                        _ => "?",
                    },
                    job.invocation,
                    self.config.intercept_timeout
                ));
            }
            children
        };
        self.queue.push_all(cancels);
        self.abandon_children(children);
    }
}

/// Roughly the encoded size of a reply: its payload strings plus room for
/// the rest.
fn reply_size_hint(frame: &ExtFrame) -> usize {
    let payload = match frame {
        ExtFrame::ToolResult(r) => {
            r.content
                .iter()
                .map(|b| match b {
                    ContentBlock::Text { text } => text.len(),
                    ContentBlock::Image { mime_type, data } => mime_type.len() + data.len(),
                    ContentBlock::Unknown(_) => 0,
                })
                .sum::<usize>()
                + r.structured_content.as_ref().map_or(0, |v| v.get().len())
        }
        ExtFrame::CommandResponse(c) => c.prompt.len() + c.display.len() + c.insert.len(),
        _ => 0,
    };
    payload + 256
}

pub(crate) fn codec_to_write(e: CodecError) -> WriteError {
    match e {
        CodecError::FrameTooLarge { len, limit } => WriteError::TooLarge { len, limit },
        other => WriteError::Encode(other.to_string()),
    }
}

impl Inner {
    /// The engine's state for a session that has not started yet.
    fn new(rt: &Handle, config: EngineConfig, sink: Box<dyn FrameSink>, stdio: bool) -> Arc<Inner> {
        Arc::new(Inner {
            writer: Writer::new(
                sink,
                config.close_flush_timeout,
                config.deferred_flush.then(|| rt.clone()),
            ),
            diags: wire::diagnostics::Diagnostics::new(&config.name, config.repeat_limit),
            config,
            queue: JobQueue::new(),
            state: Mutex::new(State {
                phase: Phase::AwaitingAck,
                announced: false,
                registry: Registry::default(),
                panels: requests::panels::PanelBindings::default(),
                jobs: FastMap::default(),
                ids: requests::request_ids::RequestIds::default(),
                expired: FastSet::default(),
                answered_at_close: FastSet::default(),
                calls: FastMap::default(),
                close_reason: None,
                serial_open: 0,
            }),
            hello_ack: OnceLock::new(),
            session: CancelToken::new(),
            stop: CancelToken::new(),
            done: CancelToken::new(),
            announced: CancelToken::new(),
            idle: Notify::new(),
            read_room: Notify::new(),
            rt: rt.clone(),
            stdio,
            fault: runtime::task::Fault::from_env(),
            next_job: AtomicU64::new(1),
            next_call: AtomicU64::new(1),
        })
    }

    /// A deferred flush that fails reports here, as a failed write would to
    /// its caller.
    fn report_broken_flushes(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        self.writer.on_broken(Box::new(move |e| {
            if let Some(inner) = weak.upgrade() {
                inner.on_write_error(e);
            }
        }));
    }

    /// A worker-lane job cancelled before a thread took it never starts:
    /// answered here, as its handler would answer it.
    fn answer_withdrawn_jobs(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        self.queue.on_withdrawn(Box::new(move |id| {
            if let Some(inner) = weak.upgrade() {
                let _ = Engine { inner }.complete(id, Outcome::Failed("cancelled".into()));
            }
        }));
    }

    /// A panic in the writer's flush task is reported like one in any
    /// other engine task.
    fn report_flusher_panics(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        self.writer.on_panic(Box::new(move |payload| {
            if let Some(inner) = weak.upgrade() {
                inner.task_panicked(runtime::task::Task::Flusher, payload);
            }
        }));
    }
}

/// A running engine. Cheap to clone; every clone drives the same session.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("name", &self.inner.config.name)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// Starts a session on the current tokio runtime: writes `hello` (the
    /// first line on the wire, SDK-1) and starts reading. Register
    /// commands, tools, events and interceptors before or while handling
    /// [`Job::Hello`]; they are announced by [`Engine::hello_done`].
    pub fn start(config: EngineConfig, transport: Transport) -> Result<Engine, EngineError> {
        let rt = Handle::try_current().map_err(|_| EngineError::NoRuntime)?;
        Self::start_on(&rt, config, transport)
    }

    /// Like [`Engine::start`], on the given runtime (callable from any
    /// thread, e.g. a binding's own runtime).
    pub fn start_on(
        rt: &Handle,
        config: EngineConfig,
        transport: Transport,
    ) -> Result<Engine, EngineError> {
        if config.name.is_empty() {
            return Err(EngineError::EmptyName);
        }
        let hello = ExtFrame::Hello(Hello {
            name: config.name.clone(),
            version: config.version.clone(),
            capabilities: config.capabilities.clone(),
        });
        let inner = Inner::new(rt, config, transport.sink, transport.stdio);
        inner.report_broken_flushes();
        inner.answer_withdrawn_jobs();
        inner
            .write_frame(&hello, WriteLane::Direct)
            .map_err(|e| EngineError::Write(e.to_string()))?;
        inner.report_flusher_panics();
        inner.spawn(
            runtime::task::Task::Reader,
            wire::reader::run(inner.clone(), transport.source),
        );
        Ok(Engine { inner })
    }

    /// The extension name.
    pub fn name(&self) -> &str {
        &self.inner.config.name
    }

    /// The host's `hello_ack`, once received (SDK-6).
    pub fn hello_ack(&self) -> Option<Arc<HelloAck>> {
        self.inner.hello_ack.get().cloned()
    }

    /// Waits for the next batch of jobs: everything queued, in arrival
    /// order. Returns a batch ending in [`Job::Finished`] once, then empty
    /// batches at once.
    pub async fn next_jobs(&self) -> Vec<Job> {
        self.inner.queue.next().await
    }

    /// Completes once jobs are queued or the session is over, without
    /// taking them: the readiness signal for a tokio dispatcher that takes
    /// every batch with [`Engine::take_jobs`] (the Python binding's thread
    /// for loops without `add_reader`).
    pub async fn jobs_ready(&self) {
        self.inner.queue.ready().await
    }

    /// Everything queued right now, without waiting (possibly nothing):
    /// the one pull of every client. Also re-arms [`Engine::wake_fd`].
    pub fn take_jobs(&self) -> Vec<Job> {
        self.inner.queue.try_take().unwrap_or_default()
    }

    /// Calls `wake` when jobs wait and it was not called since the last
    /// [`Engine::take_jobs`]: the readiness signal of a runtime that can be
    /// called from any thread (Node's thread-safe function). It runs on
    /// the thread that queued the jobs, so it must only hand the news over
    /// (never take the jobs itself or block). `None` stops the calls; one
    /// waker at a time (this replaces [`Engine::wake_fd`]'s).
    pub fn on_jobs(&self, wake: Option<Box<dyn Fn() + Send + Sync>>) {
        self.inner.queue.on_jobs(wake);
    }

    /// A descriptor that is readable while jobs are queued, for event loops
    /// that are not tokio (e.g. `asyncio`'s `loop.add_reader`); drain it
    /// with [`Engine::take_jobs`]. Created on first call; owned by the
    /// engine (do not close it).
    #[cfg(unix)]
    pub fn wake_fd(&self) -> std::io::Result<std::os::fd::RawFd> {
        self.inner.queue.wake_fd()
    }

    /// The cancellation token of an open job (an already cancelled one if
    /// the job is not open any more).
    pub fn cancel_token(&self, job: JobId) -> CancelToken {
        lock(&self.inner.state)
            .jobs
            .get(&job.0)
            .map(|j| j.token.clone())
            .unwrap_or_else(CancelToken::cancelled_token)
    }

    /// Routes the jobs of a command, tool or interceptor (`name`) to the
    /// worker lane (`on`), or back to the job queue: the handlers a binding
    /// runs on threads of its own. See [`Engine::take_work`].
    pub fn route_to_workers(&self, kind: Routed, name: &str, on: bool) {
        self.inner.queue.route_to_workers(kind, name, on);
    }

    /// Sets the worker lane's bound (at least one thread); returns how many
    /// threads to start now: one the first time, then none (the lane asks
    /// for more as work comes, see [`Taken::Work`]).
    pub fn start_workers(&self, max: usize) -> usize {
        self.inner.queue.start_workers(max)
    }

    /// What a worker thread does next: run work, or exit. Blocks until
    /// there is work, the session ends, or `idle_timeout` passes (then the
    /// thread exits, unless it is the last one waiting: the call waits on).
    /// `finished`: the thread ran work since its last call.
    pub fn take_work(&self, idle_timeout: Duration, finished: bool) -> Taken {
        self.inner.queue.take_work(idle_timeout, finished)
    }

    /// [`Engine::take_work`] without waiting: `None` when there is nothing
    /// to take yet (then wait with `take_work`, `finished` unset). Lets a
    /// binding skip releasing its interpreter lock when work is queued.
    pub fn try_take_work(&self, finished: bool) -> Option<Taken> {
        self.inner.queue.try_take_work(finished)
    }

    /// Queues work of the binding's own (`key` names it) for a worker
    /// thread; `true`: start a thread for it.
    pub fn queue_task(&self, key: u64) -> bool {
        self.inner.queue.queue_task(key)
    }

    /// A worker thread is about to wait for a `call_tool`: it stops counting
    /// against the bound meanwhile; `true`: start a thread in its place.
    pub fn lend_worker(&self) -> bool {
        self.inner.queue.lend_worker()
    }

    /// The `call_tool` of a lent worker thread is over.
    pub fn return_worker(&self) {
        self.inner.queue.return_worker()
    }

    /// Waits (at most `timeout`) until no worker thread runs work and none
    /// is queued; whether that happened.
    pub fn wait_workers_idle(&self, timeout: Duration) -> bool {
        self.inner.queue.wait_workers_idle(timeout)
    }

    /// Whether a job was cancelled (or is not open any more).
    pub fn is_cancelled(&self, job: JobId) -> bool {
        lock(&self.inner.state)
            .jobs
            .get(&job.0)
            .is_none_or(|j| j.token.is_cancelled())
    }

    /// The session token: cancelled when shutdown, EOF or a transport
    /// failure begins the end of the session.
    pub fn session_token(&self) -> CancelToken {
        self.inner.session.clone()
    }

    /// Completes once the session is over (after [`Job::Finished`] was
    /// queued).
    pub async fn finished(&self) {
        self.inner.done.cancelled().await
    }

    /// Ends the session from the extension's side: like EOF (jobs
    /// cancelled, grace, [`Job::Finished`]) but without `shutdown_ack`.
    pub fn close(&self) {
        self.inner.begin_close(CloseReason::Local, Vec::new());
        self.inner.stop.cancel();
    }

    /// Writes a line to stderr prefixed with `[<name>] ` (stdout is the
    /// wire).
    pub fn log(&self, message: &str) {
        crate::runtime::log::line(&self.inner.config.name, message);
    }
}

#[cfg(test)]
mod tests {
    /// Bindings move these across threads (napi-rs and pyo3 runtimes).
    #[test]
    fn the_binding_surface_is_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        fn send<T: Send>() {}
        send_sync::<super::Engine>();
        send_sync::<super::Job>();
        send_sync::<super::CancelToken>();
        send::<super::CallToolFuture>();
        send::<super::MemoryHost>();
        send::<super::Transport>();
    }
}
