//! `zot_ext._native`: the pyo3 binding of the zot-ext engine.
//!
//! This module is deliberately thin. Every protocol decision (handshake,
//! ids, dispatch, deadlines, cancellation, `call_tool` correlation, the
//! interception rules, writing, shutdown) stays in the Rust engine
//! ([`zot_ext_engine`]); the Python facade (`zot_ext`) only runs user
//! handlers. The two sides talk through a *pull model*:
//!
//! - the engine reads the host's pipe itself (the one read path);
//! - the facade pulls every queued job at once with `Engine.take_jobs()`,
//!   woken by `Engine.wake_fd()` through `loop.add_reader`, or, where the
//!   event loop has no `add_reader` (Windows' proactor), by a thread
//!   blocking in `Engine.wait_jobs()` with the GIL released; each job is one
//!   JSON object (`zot_ext_engine::Job::to_json`);
//! - and answers them in batches with `Engine.complete()` (a JSON array of
//!   the contract's answers; a failure is one of them).
//!
//! The GIL is held only to copy strings in and out; nothing in this module
//! ever calls back into Python, so no Rust thread attaches to the
//! interpreter (which makes interpreter finalization safe).
//!
//! # The runtime
//!
//! The module owns one tokio runtime (multi-thread, one worker), started on
//! first use and stopped by `shutdown_runtime()`, which the facade registers
//! with `atexit` so that it runs before the interpreter finalizes. After
//! `fork()` the runtime's threads do not exist in the child: every entry
//! point compares the process id with the one the runtime was started in
//! and raises `RuntimeError` instead of hanging.
//!
//! # Panics
//!
//! A Rust panic must never reach Python as `PanicException` (a
//! `BaseException` that escapes `except Exception`): every entry point runs
//! under `guard`, which turns a panic into `RuntimeError`.

#![warn(missing_docs)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyRuntimeError, PyTimeoutError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;
use zot_ext_engine::binding::{
    BindingEngine, BindingError, Options, RunEvent, WorkTaken, WorkerCall,
};
use zot_ext_engine::testing::{default_hello_ack, HostHarness, StderrMode, TestError};
use zot_ext_engine::Transport;
use zot_protocol::{CallTool, ExtFrame, HelloAck, RawJson, RegisterTool};

create_exception!(
    _native,
    EngineError,
    PyException,
    "The engine refused an operation (a registration, a frame, an answer)."
);
create_exception!(
    _native,
    HarnessError,
    PyException,
    "The in-process test harness could not do what was asked."
);

// ---------------------------------------------------------------------------
// Panics and the runtime

/// Runs `f`, turning a Rust panic into a Python `RuntimeError`.
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(PyRuntimeError::new_err(format!(
                "zot_ext internal error (Rust panic): {msg}"
            )))
        }
    }
}

/// Runs `f` with the GIL released (for calls that may write to the host,
/// which can block for up to the engine's write timeout), under [`guard`].
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> PyResult<T> + Send) -> PyResult<T> {
    py.detach(|| guard(f))
}

enum RtState {
    NotStarted,
    Running {
        runtime: tokio::runtime::Runtime,
        pid: u32,
    },
    Stopped,
}

static RUNTIME: Mutex<RtState> = Mutex::new(RtState::NotStarted);

fn lock_rt() -> std::sync::MutexGuard<'static, RtState> {
    RUNTIME.lock().unwrap_or_else(|e| e.into_inner())
}

fn forked_error() -> PyErr {
    PyRuntimeError::new_err(
        "zot_ext: this process was forked after the engine's runtime started; \
         the runtime and the engine do not survive fork(). Start the extension \
         in the child process instead",
    )
}

/// The module's runtime handle, starting the runtime on first use.
fn runtime() -> PyResult<Handle> {
    let mut st = lock_rt();
    match &*st {
        RtState::Running { runtime, pid } => {
            if *pid != std::process::id() {
                return Err(forked_error());
            }
            Ok(runtime.handle().clone())
        }
        RtState::Stopped => Err(PyRuntimeError::new_err(
            "zot_ext: the runtime was shut down (the interpreter is exiting)",
        )),
        RtState::NotStarted => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .max_blocking_threads(4)
                .thread_name("zot-ext-rt")
                // Ctrl-C and the like must reach CPython's main thread.
                .on_thread_start(zot_ext_engine::runtime::signals::block_in_this_thread)
                .enable_all()
                .build()
                .map_err(|e| PyRuntimeError::new_err(format!("cannot start the runtime: {e}")))?;
            let handle = runtime.handle().clone();
            *st = RtState::Running {
                runtime,
                pid: std::process::id(),
            };
            Ok(handle)
        }
    }
}

/// Stops the module's runtime and joins its threads (at most about half a
/// second). Registered with `atexit` by the facade, so it runs before the
/// interpreter finalizes; later uses of the engine raise `RuntimeError`.
/// Safe to call more than once, and in a forked child (where the runtime's
/// threads do not exist: it is then abandoned, not joined).
#[pyfunction]
fn shutdown_runtime(py: Python<'_>) -> PyResult<()> {
    guard(|| {
        let old = std::mem::replace(&mut *lock_rt(), RtState::Stopped);
        if let RtState::Running { runtime, pid } = old {
            if pid == std::process::id() {
                py.detach(move || runtime.shutdown_timeout(Duration::from_millis(500)));
            } else {
                // The threads belong to the parent: nothing to join here.
                #[allow(
                    clippy::mem_forget,
                    reason = "dropping would join threads that exist only in the parent"
                )]
                std::mem::forget(runtime);
            }
        }
        Ok(())
    })
}

/// Protects stdout before the session: the wire is set aside for the engine
/// and descriptor 1 points at stderr from now on (see
/// `Transport::protect_stdio`). Safe to call more than once.
#[pyfunction]
fn protect_stdout() -> PyResult<()> {
    guard(|| {
        Transport::protect_stdio()
            .map_err(|e| PyOSError::new_err(format!("cannot protect stdout: {e}")))
    })
}

/// Checks a command name against the protocol's rules (raises
/// `EngineError` if invalid), before any session exists.
#[pyfunction]
fn check_command(name: &str) -> PyResult<()> {
    guard(|| zot_ext_engine::session::registration::check_command(name).map_err(register_err))
}

/// Checks a tool registration given as the JSON of a `register_tool` frame:
/// name, exposure and schemas, a schema written as JSON against the JSON
/// Schema meta-schema unless `derived` (raises `EngineError` if invalid).
#[pyfunction]
#[pyo3(signature = (tool_json, derived))]
fn check_tool(tool_json: &str, derived: bool) -> PyResult<()> {
    guard(|| {
        let tool: RegisterTool = serde_json::from_str(tool_json)
            .map_err(|e| PyValueError::new_err(format!("register_tool: {e}")))?;
        let origin = zot_ext_engine::binding::schema_origin(derived);
        zot_ext_engine::session::registration::check_tool(&tool, origin).map_err(register_err)
    })
}

/// Checks that `event` is a lifecycle event (raises, listing them, if not).
#[pyfunction]
fn check_event(event: &str) -> PyResult<()> {
    guard(|| zot_ext_engine::session::registration::check_event(event).map_err(register_err))
}

/// Checks that `event` can be intercepted (raises if not).
#[pyfunction]
fn check_intercept(event: &str) -> PyResult<()> {
    guard(|| zot_ext_engine::session::registration::check_intercept(event).map_err(register_err))
}

/// Whether the runtime is running (started and not shut down).
#[pyfunction]
fn runtime_running() -> bool {
    matches!(&*lock_rt(), RtState::Running { pid, .. } if *pid == std::process::id())
}

/// The `hello_ack` the test harness sends by default, as JSON (see
/// `zot_ext_engine::testing::default_hello_ack`).
#[pyfunction]
fn default_hello_ack_json() -> PyResult<String> {
    guard(|| {
        serde_json::to_string(&zot_protocol::HostFrame::HelloAck(default_hello_ack()))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    })
}

fn seconds(timeout: Option<f64>) -> PyResult<Option<Duration>> {
    match timeout {
        None => Ok(None),
        Some(t) if t.is_finite() && t >= 0.0 => Ok(Some(Duration::from_secs_f64(t))),
        Some(t) => Err(PyValueError::new_err(format!("invalid timeout {t}"))),
    }
}

// ---------------------------------------------------------------------------
// The engine

/// One engine session: the engine's binding core
/// ([`zot_ext_engine::binding::BindingEngine`]), method for method as the
/// Node binding wraps it, plus the readiness signals of Python's event
/// loops (`wake_fd`, `wait_jobs`) and the worker lane of plain `def`
/// handlers' threads (`route_to_workers` … `wait_workers_idle`).
///
/// Created with `Engine.stdio(name, version)` (the real stdin/stdout, stdout
/// protected) or `Engine.memory(name, version, hello_ack_json)` (in-process,
/// with the test harness as its host).
#[pyclass(frozen, name = "Engine", module = "zot_ext._native")]
pub struct NativeEngine {
    core: BindingEngine,
    handle: Handle,
    pid: u32,
}

impl NativeEngine {
    fn check(&self) -> PyResult<()> {
        if self.pid != std::process::id() {
            return Err(forked_error());
        }
        Ok(())
    }

    fn start(name: &str, version: &str, transport: Transport, handle: Handle) -> PyResult<Self> {
        let core = BindingEngine::start(&handle, name, version, Options::default(), transport)
            .map_err(binding_err)?;
        Ok(Self {
            core,
            handle,
            pid: std::process::id(),
        })
    }
}

fn register_err(e: impl std::fmt::Display) -> PyErr {
    EngineError::new_err(e.to_string())
}

/// Input that does not decode is the facade's bug (`ValueError`); a refusal
/// is the author's (`EngineError`).
fn binding_err(e: BindingError) -> PyErr {
    match e {
        BindingError::Invalid(m) => PyValueError::new_err(m),
        BindingError::Refused(m) => EngineError::new_err(m),
    }
}

#[pymethods]
impl NativeEngine {
    /// Starts a session over the process's stdin/stdout and writes `hello`.
    ///
    /// stdout is the wire: the engine keeps private duplicates of
    /// descriptors 0 and 1 and points descriptor 1 at stderr, so stray
    /// prints land in the extension's log. Once per process.
    #[staticmethod]
    fn stdio(name: &str, version: &str) -> PyResult<Self> {
        guard(|| {
            let handle = runtime()?;
            let transport = Transport::stdio()
                .map_err(|e| EngineError::new_err(format!("stdio transport: {e}")))?;
            Self::start(name, version, transport, handle)
        })
    }

    /// Starts a session over an in-memory transport whose host side is the
    /// returned harness; the harness sends `hello_ack_json` (a `hello_ack`
    /// frame) and reads the registrations up to `ready` in the background.
    #[staticmethod]
    fn memory(name: &str, version: &str, hello_ack_json: &str) -> PyResult<(Self, Harness)> {
        guard(|| {
            let ack = parse_ack(hello_ack_json)?;
            let handle = runtime()?;
            let (transport, host) = Transport::memory();
            let engine = Self::start(name, version, transport, handle.clone())?;
            let connect = handle.spawn(HostHarness::connect(host, ack));
            let harness = Harness {
                state: Arc::new(tokio::sync::Mutex::new(HarnessState::Connecting(connect))),
                handle,
                pid: std::process::id(),
            };
            Ok((engine, harness))
        })
    }

    /// The extension name.
    #[getter]
    fn name(&self) -> String {
        self.core.name().to_owned()
    }

    /// The host's `hello_ack` frame as JSON, once received.
    fn hello_ack(&self) -> PyResult<Option<String>> {
        guard(|| {
            self.check()?;
            Ok(self.core.hello_ack())
        })
    }

    /// Registers a slash command (announced by `hello_done`, or written at
    /// once after it).
    fn register_command(&self, py: Python<'_>, name: &str, description: &str) -> PyResult<()> {
        detached(py, || {
            self.check()?;
            self.core
                .register_command(name, description)
                .map_err(binding_err)
        })
    }

    /// Registers a tool given as the JSON of a `register_tool` frame (the
    /// `type` key may be omitted). The schema texts are kept byte for byte.
    /// `derived`: the SDK derived the schema from the handler's types (its
    /// check is built on the first call).
    fn register_tool(&self, py: Python<'_>, tool_json: &str, derived: bool) -> PyResult<()> {
        detached(py, || {
            self.check()?;
            self.core
                .register_tool(tool_json, derived)
                .map_err(binding_err)
        })
    }

    /// Subscribes to a lifecycle event by name.
    fn subscribe(&self, py: Python<'_>, event: &str) -> PyResult<()> {
        detached(py, || {
            self.check()?;
            self.core.subscribe(event).map_err(binding_err)
        })
    }

    /// Registers an interceptor for one of the four interceptable events.
    fn intercept(&self, py: Python<'_>, event: &str) -> PyResult<()> {
        detached(py, || {
            self.check()?;
            self.core.intercept(event).map_err(binding_err)
        })
    }

    /// Registers everything at once (JSON: `commands`, `tools` as spec
    /// texts, `events`, `intercepts`); what the engine refuses is logged.
    /// Returns how many registrations were refused.
    fn register_all(&self, py: Python<'_>, registrations: &str) -> PyResult<usize> {
        detached(py, || {
            self.check()?;
            self.core.register_all(registrations).map_err(binding_err)
        })
    }

    /// Routes input for `panel_id` to the handlers the facade registered as
    /// `registration`; input jobs carry the registration bound when their
    /// frame arrived.
    fn bind_panel(&self, panel_id: &str, registration: u64) {
        self.core.bind_panel(panel_id, registration);
    }

    /// Forgets `panel_id`'s handlers: its input is ignored from now on.
    fn unbind_panel(&self, panel_id: &str) {
        self.core.unbind_panel(panel_id);
    }

    /// Ends the on-hello phase: writes the registrations, one `subscribe`
    /// and `ready`.
    fn hello_done(&self, py: Python<'_>) -> PyResult<()> {
        detached(py, || {
            self.check()?;
            self.core.hello_done().map_err(binding_err)
        })
    }

    /// Every queued job, as a JSON array (possibly `[]`), without waiting:
    /// the one pull (events as the host wrote them). Also re-arms
    /// `wake_fd`.
    fn take_jobs(&self) -> PyResult<String> {
        guard(|| {
            self.check()?;
            Ok(self.core.take_jobs())
        })
    }

    /// Waits (with the GIL released) until jobs are queued or the session is
    /// over, at most `timeout` seconds (`None`: no limit), without taking
    /// them; `False` on timeout. The readiness signal of event loops without
    /// `add_reader` (a thread waits here, the loop then calls `take_jobs`).
    #[pyo3(signature = (timeout=None))]
    fn wait_jobs(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<bool> {
        guard(|| {
            self.check()?;
            let limit = seconds(timeout)?;
            let engine = self.core.engine().clone();
            let handle = self.handle.clone();
            py.detach(move || {
                guard(|| {
                    Ok(handle.block_on(async move {
                        match limit {
                            Some(d) => tokio::time::timeout(d, engine.jobs_ready()).await.is_ok(),
                            None => {
                                engine.jobs_ready().await;
                                true
                            }
                        }
                    }))
                })
            })
        })
    }

    /// A descriptor that is readable while jobs are queued (for
    /// `loop.add_reader`); drain it with `take_jobs`. Owned by the
    /// engine: do not close it.
    fn wake_fd(&self) -> PyResult<i32> {
        guard(|| {
            self.check()?;
            #[cfg(unix)]
            {
                self.core
                    .engine()
                    .wake_fd()
                    .map_err(|e| EngineError::new_err(format!("wake_fd: {e}")))
            }
            #[cfg(not(unix))]
            {
                Err(pyo3::exceptions::PyNotImplementedError::new_err(
                    "wake_fd is only available on Unix",
                ))
            }
        })
    }

    /// Answers a batch of jobs: a JSON array of the contract's `Answer`s
    /// (`{"job", "command" | "tool" | "text" | "intercept" | "error"}`;
    /// none of them: an event or panel job is done). Their replies leave
    /// in one write. Returns what became of each, in order, as a JSON array
    /// of `Answered` (`{"status"}`, or `{"error"}` when the engine refused
    /// it and sent an error reply if one was due). Raises `ValueError` only
    /// when `batch` is not a JSON array.
    fn complete(&self, py: Python<'_>, batch: &str) -> PyResult<String> {
        detached(py, || {
            self.check()?;
            self.core.complete(batch).map_err(binding_err)
        })
    }

    /// Whether a job was cancelled (or is not open any more).
    fn is_cancelled(&self, job: u64) -> PyResult<bool> {
        guard(|| {
            self.check()?;
            Ok(self.core.is_cancelled(job))
        })
    }

    /// Sends a spontaneous frame given as JSON (`notify`, `clear_notes`,
    /// `submit`, `submit_slash`, `open_panel`, `panel_render`,
    /// `panel_close`).
    fn send(&self, py: Python<'_>, frame_json: &str) -> PyResult<()> {
        detached(py, || {
            self.check()?;
            self.core.send(frame_json).map_err(register_err)
        })
    }

    /// Starts a `call_tool` given as a `CallStart` (JSON) and answers a
    /// `CallStarted` (JSON) at once: `{"call": n}` (the result arrives as
    /// one `call_result` job) or `{"error", "error_kind"}` when nothing was
    /// sent (the same answer as the Node binding's; see
    /// `zot_ext_engine::binding::contract`). Raises `ValueError` only when `request`
    /// is not a `CallStart`.
    fn start_call(&self, py: Python<'_>, request: &str) -> PyResult<String> {
        detached(py, || {
            self.check()?;
            self.core.start_call(request).map_err(binding_err)
        })
    }

    /// Gives up on a call: `call_tool_cancel` is sent and its `call_result`
    /// carries the `cancelled` error. Unknown or finished calls are ignored.
    fn cancel_call(&self, py: Python<'_>, call: u64) -> PyResult<()> {
        detached(py, || {
            self.check()?;
            self.core.cancel_call(call);
            Ok(())
        })
    }

    /// Ends the session from the extension's side (like EOF, without
    /// `shutdown_ack`).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        detached(py, || {
            self.check()?;
            self.core.close();
            Ok(())
        })
    }

    /// Writes `[<name>] message` to stderr.
    fn log(&self, message: &str) -> PyResult<()> {
        guard(|| {
            self.core.log(message);
            Ok(())
        })
    }

    // -- the worker lane: the threads of plain `def` handlers --------------

    /// Routes (`on`) the jobs of a `command`, `tool` or `intercept`
    /// handler to the worker threads, or back to `take_jobs`.
    fn route_to_workers(&self, kind: &str, name: &str, on: bool) -> PyResult<()> {
        guard(|| {
            self.check()?;
            self.core
                .route_to_workers(kind, name, on)
                .map_err(binding_err)
        })
    }

    /// Sets the bound on worker threads; how many to start now.
    fn start_workers(&self, max_threads: usize) -> PyResult<usize> {
        guard(|| {
            self.check()?;
            Ok(self.core.start_workers(max_threads))
        })
    }

    /// A worker thread's next work, waiting for it with the GIL released:
    /// `(spawn, (kind, id, name, invocation, input, cancelled))` for a
    /// command, tool or interceptor job, `(spawn, [(id, name, frame_json),
    /// ...])` for a run of events, `(spawn, key)` for a task queued with
    /// `queue_task`, or `None`: the thread exits. `spawn`: start one more
    /// thread first. `finished`: this thread ran work since its last call.
    fn take_work(
        &self,
        py: Python<'_>,
        idle_timeout: f64,
        finished: bool,
    ) -> PyResult<Option<(bool, Py<PyAny>)>> {
        self.check()?;
        let idle = seconds(Some(idle_timeout))?.unwrap_or(Duration::ZERO);
        // Work already queued is taken with the GIL held: releasing it per
        // job would hand it to another thread and wait to get it back.
        let taken = match guard(|| Ok(self.core.try_take_work(finished)))? {
            Some(taken) => taken,
            None => detached(py, || Ok(self.core.take_work(idle, false)))?,
        };
        Ok(match taken {
            WorkTaken::Call { call, spawn } => Some((spawn, call_of(py, &call)?)),
            WorkTaken::Events { events, spawn } => Some((spawn, run_of(py, &events)?)),
            WorkTaken::Task { key, spawn } => {
                Some((spawn, key.into_pyobject(py)?.into_any().unbind()))
            }
            WorkTaken::Exit => None,
        })
    }

    /// Queues a task (by its key) for a worker thread; `True`: start a
    /// thread for it.
    fn queue_task(&self, key: u64) -> PyResult<bool> {
        guard(|| {
            self.check()?;
            Ok(self.core.queue_task(key))
        })
    }

    /// A worker thread is about to block in `call_tool_sync`; `True`: start
    /// a thread in its place.
    fn lend_worker(&self) -> PyResult<bool> {
        guard(|| {
            self.check()?;
            Ok(self.core.lend_worker())
        })
    }

    /// The lent worker thread's call is over.
    fn return_worker(&self) -> PyResult<()> {
        guard(|| {
            self.check()?;
            self.core.return_worker();
            Ok(())
        })
    }

    /// Waits (GIL released, at most `timeout` seconds) until no worker
    /// thread runs or has work queued; whether it got there.
    fn wait_workers_idle(&self, py: Python<'_>, timeout: f64) -> PyResult<bool> {
        self.check()?;
        let limit = seconds(Some(timeout))?.unwrap_or(Duration::ZERO);
        detached(py, || Ok(self.core.wait_workers_idle(limit)))
    }
}

// ---------------------------------------------------------------------------
// The test harness

enum HarnessState {
    Connecting(JoinHandle<Result<HostHarness, TestError>>),
    Ready(Box<HostHarness>),
    Failed(TestError),
}

impl HarnessState {
    /// Finishes the handshake if it is still running.
    async fn connect(&mut self) -> Result<&mut HostHarness, TestError> {
        if let HarnessState::Connecting(jh) = self {
            let next = match jh.await {
                Ok(Ok(host)) => HarnessState::Ready(Box::new(host)),
                Ok(Err(e)) => HarnessState::Failed(e),
                Err(e) => HarnessState::Failed(TestError::Handshake(format!(
                    "handshake task failed: {e}"
                ))),
            };
            *self = next;
        }
        match self {
            HarnessState::Ready(h) => Ok(h),
            HarnessState::Failed(e) => Err(e.clone()),
            HarnessState::Connecting(_) => unreachable!("resolved above"),
        }
    }
}

type Shared = Arc<tokio::sync::Mutex<HarnessState>>;

/// The host side of an in-process session (wraps
/// [`zot_ext_engine::testing::HostHarness`]). Every method waits with the GIL
/// released, at most `timeout` seconds (default 10; `math.inf`: no limit),
/// and raises `TimeoutError` when that passes.
#[pyclass(frozen, name = "Harness", module = "zot_ext._native")]
pub struct Harness {
    state: Shared,
    handle: Handle,
    pid: u32,
}

fn test_err(e: TestError) -> PyErr {
    HarnessError::new_err(e.to_string())
}

impl Harness {
    /// Runs `op` on the connected host, with the GIL released.
    fn run<T, F, Fut>(&self, py: Python<'_>, timeout: f64, op: F) -> PyResult<T>
    where
        T: Send,
        F: FnOnce(tokio::sync::OwnedMutexGuard<HarnessState>) -> Fut + Send,
        Fut: std::future::Future<Output = Result<T, TestError>> + Send,
    {
        if self.pid != std::process::id() {
            return Err(forked_error());
        }
        let limit = if timeout.is_infinite() && timeout > 0.0 {
            None
        } else {
            seconds(Some(timeout))?
        };
        let state = self.state.clone();
        let handle = self.handle.clone();
        py.detach(move || {
            guard(move || {
                handle.block_on(async move {
                    let work = async move {
                        let mut g = state.lock_owned().await;
                        g.connect().await?;
                        op(g).await
                    };
                    let r = match limit {
                        Some(d) => tokio::time::timeout(d, work).await.map_err(|_| {
                            PyTimeoutError::new_err(format!(
                                "the extension did not answer within {d:?}"
                            ))
                        })?,
                        None => work.await,
                    };
                    r.map_err(test_err)
                })
            })
        })
    }
}

/// A process's exit status as Python's `subprocess` shows it: the exit
/// code, or minus the signal that ended it.
fn returncode(status: std::process::ExitStatus) -> i32 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return -signal;
        }
    }
    status.code().unwrap_or(-1)
}

fn parse_ack(hello_ack_json: &str) -> PyResult<HelloAck> {
    match serde_json::from_str(hello_ack_json) {
        Ok(zot_protocol::HostFrame::HelloAck(a)) => Ok(a),
        Ok(_) => Err(PyValueError::new_err("not a hello_ack frame")),
        Err(e) => Err(PyValueError::new_err(format!("hello_ack: {e}"))),
    }
}

fn host(g: &mut HarnessState) -> &mut HostHarness {
    match g {
        HarnessState::Ready(h) => h,
        _ => unreachable!("connected before use"),
    }
}

fn json_err(e: impl std::fmt::Display) -> TestError {
    TestError::Json(e.to_string())
}

fn raw(json: String) -> Result<RawJson, TestError> {
    RawJson::from_string(json).map_err(json_err)
}

fn encode(frame: &ExtFrame) -> Result<String, TestError> {
    serde_json::to_string(frame).map_err(json_err)
}

fn encode_all(frames: &[ExtFrame]) -> Result<Vec<String>, TestError> {
    frames.iter().map(encode).collect()
}

#[pymethods]
impl Harness {
    /// Starts `program` with `args` as an extension process (stdin and
    /// stdout are the transport) and does the handshake with
    /// `hello_ack_json` in the background. `env`, when given, is the whole
    /// environment; `stderr` is `"pipe"` (captured) or `"inherit"`.
    #[staticmethod]
    #[pyo3(signature = (program, args, hello_ack_json, cwd=None, env=None, stderr="pipe"))]
    fn spawn(
        program: &str,
        args: Vec<String>,
        hello_ack_json: &str,
        cwd: Option<String>,
        env: Option<std::collections::HashMap<String, String>>,
        stderr: &str,
    ) -> PyResult<Self> {
        guard(|| {
            let ack = parse_ack(hello_ack_json)?;
            let stderr = match stderr {
                "pipe" => StderrMode::Capture,
                "inherit" => StderrMode::Inherit,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "stderr: {other:?} is neither \"pipe\" nor \"inherit\""
                    )))
                }
            };
            let mut cmd = std::process::Command::new(program);
            cmd.args(args);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            if let Some(env) = env {
                cmd.env_clear().envs(env);
            }
            let handle = runtime()?;
            let connect = handle.spawn(HostHarness::spawn_with(cmd, ack, stderr));
            Ok(Harness {
                state: Arc::new(tokio::sync::Mutex::new(HarnessState::Connecting(connect))),
                handle,
                pid: std::process::id(),
            })
        })
    }

    /// What a spawned process wrote on its stderr so far (`None`
    /// in-process or when inherited).
    #[pyo3(signature = (timeout=10.0))]
    fn stderr(&self, py: Python<'_>, timeout: f64) -> PyResult<Option<String>> {
        self.run(
            py,
            timeout,
            |mut g| async move { Ok(host(&mut g).stderr()) },
        )
    }

    /// Waits for a spawned process to exit and returns its exit code
    /// (minus the signal that ended it, as `subprocess` shows it); `None`
    /// in-process.
    #[pyo3(signature = (timeout=10.0))]
    fn wait(&self, py: Python<'_>, timeout: f64) -> PyResult<Option<i32>> {
        self.run(py, timeout, |mut g| async move {
            let exited = host(&mut g).exited();
            drop(g);
            Ok(exited.await.map(returncode))
        })
    }

    /// Ends the session now: a spawned process is killed and reaped (an
    /// in-process extension sees its stdin close). Later calls raise
    /// `HarnessError`.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        if self.pid != std::process::id() {
            return Err(forked_error());
        }
        let state = self.state.clone();
        let handle = self.handle.clone();
        py.detach(move || {
            guard(move || {
                handle.block_on(async move {
                    let mut g = state.lock().await;
                    if let HarnessState::Connecting(jh) = &*g {
                        jh.abort();
                    }
                    *g = HarnessState::Failed(TestError::Io("the test host is closed".into()));
                });
                Ok(())
            })
        })
    }

    /// Waits for the handshake and returns what the extension registered,
    /// as JSON: `{"hello", "commands", "tools", "events", "intercepts",
    /// "subscribe_frames"}` (frames with their `type`).
    #[pyo3(signature = (timeout=10.0))]
    fn registration(&self, py: Python<'_>, timeout: f64) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            let r = host(&mut g).registration();
            let commands: Vec<ExtFrame> = r
                .commands
                .iter()
                .cloned()
                .map(ExtFrame::RegisterCommand)
                .collect();
            let tools: Vec<ExtFrame> = r
                .tools
                .iter()
                .cloned()
                .map(ExtFrame::RegisterTool)
                .collect();
            let v = serde_json::json!({
                "hello": ExtFrame::Hello(r.hello.clone()),
                "commands": commands,
                "tools": tools,
                "events": r.events,
                "intercepts": r.intercepts,
                "subscribe_frames": r.subscribe_frames,
            });
            serde_json::to_string(&v).map_err(json_err)
        })
    }

    /// Every line the extension wrote so far, in order (`hello` first).
    #[pyo3(signature = (timeout=10.0))]
    fn transcript(&self, py: Python<'_>, timeout: f64) -> PyResult<Vec<String>> {
        self.run(py, timeout, |mut g| async move {
            Ok(host(&mut g).transcript().to_vec())
        })
    }

    /// Sends one line to the extension as is.
    #[pyo3(signature = (line, timeout=10.0))]
    fn send_json(&self, py: Python<'_>, line: String, timeout: f64) -> PyResult<()> {
        self.run(py, timeout, |mut g| async move {
            host(&mut g).send_json(&line).await
        })
    }

    /// The next frame the extension wrote (frames skipped by the waiting
    /// helpers first), as its JSON line.
    #[pyo3(signature = (timeout=10.0))]
    fn next_frame(&self, py: Python<'_>, timeout: f64) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            host(&mut g).next_frame_json().await
        })
    }

    /// The next frame if one was already written, else `None`.
    #[pyo3(signature = (timeout=10.0))]
    fn try_next_frame(&self, py: Python<'_>, timeout: f64) -> PyResult<Option<String>> {
        self.run(py, timeout, |mut g| async move {
            host(&mut g)
                .try_next_frame()
                .as_ref()
                .map(encode)
                .transpose()
        })
    }

    /// Invokes a command and waits for its `command_response` (JSON).
    #[pyo3(signature = (name, args, timeout=10.0))]
    fn command(
        &self,
        py: Python<'_>,
        name: String,
        args: String,
        timeout: f64,
    ) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            let r = host(&mut g).command(&name, &args).await?;
            encode(&ExtFrame::CommandResponse(r))
        })
    }

    /// Waits for the `command_response` to `id` (JSON).
    #[pyo3(signature = (id, timeout=10.0))]
    fn command_response(&self, py: Python<'_>, id: String, timeout: f64) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            let r = host(&mut g).command_response(&id).await?;
            encode(&ExtFrame::CommandResponse(r))
        })
    }

    /// Sends a `tool_call` (`args_json`: a JSON object) without waiting;
    /// returns its id (`id`, or a fresh one).
    #[pyo3(signature = (name, args_json, id=None, timeout=10.0))]
    fn start_tool(
        &self,
        py: Python<'_>,
        name: String,
        args_json: String,
        id: Option<String>,
        timeout: f64,
    ) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            let args = raw(args_json)?;
            let h = host(&mut g);
            match id {
                Some(id) => {
                    h.start_tool_with_id(&id, &name, &args).await?;
                    Ok(id)
                }
                None => h.start_tool(&name, &args).await,
            }
        })
    }

    /// Waits for the `tool_result` to `id` (JSON).
    #[pyo3(signature = (id, timeout=10.0))]
    fn tool_result(&self, py: Python<'_>, id: String, timeout: f64) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            let r = host(&mut g).tool_result(&id).await?;
            encode(&ExtFrame::ToolResult(r))
        })
    }

    /// Sends `tool_cancel` for `id`.
    #[pyo3(signature = (id, timeout=10.0))]
    fn cancel_tool(&self, py: Python<'_>, id: String, timeout: f64) -> PyResult<()> {
        self.run(py, timeout, |mut g| async move {
            host(&mut g).cancel_tool(&id).await
        })
    }

    /// Sends an `event_intercept` line and waits for its response (JSON).
    #[pyo3(signature = (line, timeout=10.0))]
    fn intercept(&self, py: Python<'_>, line: String, timeout: f64) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            let r = host(&mut g).intercept_json(&line).await?;
            encode(&ExtFrame::EventInterceptResponse(r))
        })
    }

    /// Waits for the `event_intercept_response` to `id` (JSON).
    #[pyo3(signature = (id, timeout=10.0))]
    fn intercept_response(&self, py: Python<'_>, id: String, timeout: f64) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            let r = host(&mut g).intercept_response(&id).await?;
            encode(&ExtFrame::EventInterceptResponse(r))
        })
    }

    /// Sends a `panel_key`.
    #[pyo3(signature = (panel_id, key, text="", timeout=10.0))]
    fn panel_key(
        &self,
        py: Python<'_>,
        panel_id: String,
        key: String,
        text: &str,
        timeout: f64,
    ) -> PyResult<()> {
        self.run(py, timeout, |mut g| async move {
            host(&mut g).panel_key(&panel_id, &key, text).await
        })
    }

    /// Sends the host's `panel_close`.
    #[pyo3(signature = (panel_id, timeout=10.0))]
    fn panel_close(&self, py: Python<'_>, panel_id: String, timeout: f64) -> PyResult<()> {
        self.run(py, timeout, |mut g| async move {
            host(&mut g).panel_close(&panel_id).await
        })
    }

    /// Waits for the extension's next `call_tool` (JSON).
    #[pyo3(signature = (timeout=10.0))]
    fn expect_call_tool(&self, py: Python<'_>, timeout: f64) -> PyResult<String> {
        self.run(py, timeout, |mut g| async move {
            let c = host(&mut g).expect_call_tool().await?;
            encode(&ExtFrame::CallTool(c))
        })
    }

    /// Answers the `call_tool` `id` (for tool `name`) with one text block.
    #[pyo3(signature = (id, name, text, is_error=false, timeout=10.0))]
    fn answer_call(
        &self,
        py: Python<'_>,
        id: String,
        name: String,
        text: String,
        is_error: bool,
        timeout: f64,
    ) -> PyResult<()> {
        self.run(py, timeout, |mut g| async move {
            let call = CallTool {
                id,
                name,
                ..CallTool::default()
            };
            host(&mut g).answer_call(&call, &text, is_error).await
        })
    }

    /// Sends `shutdown` and returns every frame the extension still wrote
    /// until its output closed (JSON lines; `shutdown_ack` last).
    #[pyo3(signature = (timeout=10.0))]
    fn shutdown(&self, py: Python<'_>, timeout: f64) -> PyResult<Vec<String>> {
        self.run(py, timeout, |mut g| async move {
            let frames = host(&mut g).shutdown().await?;
            encode_all(&frames)
        })
    }

    /// Closes the extension's stdin (EOF) and returns every frame it still
    /// wrote until its output closed.
    #[pyo3(signature = (timeout=10.0))]
    fn close_stdin(&self, py: Python<'_>, timeout: f64) -> PyResult<Vec<String>> {
        self.run(py, timeout, |mut g| async move {
            let frames = host(&mut g).close_stdin().await?;
            encode_all(&frames)
        })
    }

    /// Every remaining frame until the extension's output closes.
    #[pyo3(signature = (timeout=10.0))]
    fn drain(&self, py: Python<'_>, timeout: f64) -> PyResult<Vec<String>> {
        self.run(py, timeout, |mut g| async move {
            let frames = host(&mut g).drain().await?;
            encode_all(&frames)
        })
    }
}

// ---------------------------------------------------------------------------
// The module

/// The native half of `zot_ext` (private: use the `zot_ext` package).
#[pymodule]
#[pyo3(name = "_native")]
fn native_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<NativeEngine>()?;
    m.add_class::<Harness>()?;
    m.add("EngineError", py.get_type::<EngineError>())?;
    m.add("HarnessError", py.get_type::<HarnessError>())?;
    m.add_function(wrap_pyfunction!(shutdown_runtime, m)?)?;
    m.add_function(wrap_pyfunction!(runtime_running, m)?)?;
    m.add_function(wrap_pyfunction!(protect_stdout, m)?)?;
    m.add_function(wrap_pyfunction!(default_hello_ack_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_command, m)?)?;
    m.add_function(wrap_pyfunction!(check_tool, m)?)?;
    m.add_function(wrap_pyfunction!(check_event, m)?)?;
    m.add_function(wrap_pyfunction!(check_intercept, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// A worker's job as `(kind, id, name, invocation, input, cancelled)`: no
/// job message to parse, only the handler's input (see [`WorkerCall`]).
fn call_of(py: Python<'_>, call: &WorkerCall) -> PyResult<Py<PyAny>> {
    let items = [
        PyString::new(py, call.kind).into_any(),
        call.id.into_pyobject(py)?.into_any(),
        PyString::new(py, &call.name).into_any(),
        PyString::new(py, &call.invocation).into_any(),
        PyString::new(py, &call.input).into_any(),
        pyo3::types::PyBool::new(py, call.cancelled)
            .to_owned()
            .into_any(),
    ];
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// A run of events as a list of `(id, name, frame_json)` tuples: no job
/// message to parse, and the frame parsed only by a handler that reads it.
fn run_of(py: Python<'_>, events: &[RunEvent]) -> PyResult<Py<PyAny>> {
    let items = events
        .iter()
        .map(|e| {
            let id = e.id.into_pyobject(py)?.into_any();
            let name = PyString::new(py, &e.name).into_any();
            let frame = PyString::new(py, &e.frame).into_any();
            PyTuple::new(py, [id, name, frame])
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, items)?.into_any().unbind())
}
