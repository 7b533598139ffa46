//! The one binding core: the surface the Node (napi) and Python (pyo3)
//! bindings wrap, method for method, with the same names and the same set
//! (camelCase in TypeScript, snake_case in Python). Everything crosses as
//! JSON text, plain strings or numbers; every rule stays in the engine.
//!
//! [`METHODS`] lists the set; a test (`engine/tests/binding_surface.rs`)
//! holds `sdk-node/src/binding.d.ts` and `sdk-python/.../_native.pyi` to
//! it. The only methods a binding adds are its runtime's ([`RUNTIME`]):
//! how it learns that jobs wait (a thread-safe callback for Node, a
//! descriptor or a waiting call for Python's event loops), and for Python
//! the worker lane its plain `def` handlers' threads take jobs from.

pub mod contract;
pub(crate) mod wake;

use std::time::Duration;

use tokio::runtime::Handle;
use zot_protocol::{HostFrame, RawJson, RegisterCommand, RegisterTool};

use crate::binding::contract::{complete_json, CallStart, CallStarted};
use crate::session::registration::{Registrations, SchemaOrigin};
use crate::{
    CallId, CallRequest, Engine, EngineConfig, Job, JobId, Routed, Taken, Transport, Work,
};

/// The methods of the engine object every binding exposes, in snake_case
/// (the constructors `stdio` and `memory` included).
pub const METHODS: &[&str] = &[
    "stdio",
    "memory",
    "name",
    "hello_ack",
    "register_command",
    "register_tool",
    "subscribe",
    "intercept",
    "register_all",
    "bind_panel",
    "unbind_panel",
    "hello_done",
    "take_jobs",
    "complete",
    "is_cancelled",
    "send",
    "start_call",
    "cancel_call",
    "close",
    "log",
];

/// What each binding adds for its runtime: `(binding, methods)`. Node's
/// thread-safe callback; Python's readiness signals, and the worker lane
/// (`engine/src/jobs/workers.rs`) its plain `def` handlers run from, on threads
/// (Node runs every handler on its one thread).
pub const RUNTIME: &[(&str, &[&str])] = &[
    ("node", &["on_jobs"]),
    (
        "python",
        &[
            "wake_fd",
            "wait_jobs",
            "route_to_workers",
            "start_workers",
            "take_work",
            "queue_task",
            "lend_worker",
            "return_worker",
            "wait_workers_idle",
        ],
    ),
];

/// What a worker thread takes ([`BindingEngine::take_work`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkTaken {
    /// A command, tool or interceptor job; `spawn`: start one more thread
    /// first.
    Call {
        /// The job.
        call: WorkerCall,
        /// Start one more thread.
        spawn: bool,
    },
    /// A run of event jobs for one thread: run their handlers in order, one
    /// at a time, and complete each. Each comes as its id, name and frame
    /// rather than a job message, so that a binding parses a frame only for
    /// a handler that reads it.
    Events {
        /// The events, in order.
        events: Vec<RunEvent>,
        /// Start one more thread.
        spawn: bool,
    },
    /// The binding's own work, by the key it queued it with.
    Task {
        /// The key.
        key: u64,
        /// Start one more thread.
        spawn: bool,
    },
    /// The thread exits.
    Exit,
}

/// A command, tool or interceptor job for a worker thread
/// ([`WorkTaken::Call`]): its fields rather than a job message, so that a
/// binding parses only the handler's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCall {
    /// `command`, `tool` or `intercept`.
    pub kind: &'static str,
    /// Answer with this id.
    pub id: u64,
    /// The command's or tool's registered name, or the intercepted event's.
    pub name: String,
    /// The host's request id.
    pub invocation: String,
    /// The handler's input: a command's argument text, a tool's arguments
    /// (a JSON object), an interception's request frame (JSON).
    pub input: String,
    /// Cancelled before it was handed out.
    pub cancelled: bool,
}

impl WorkerCall {
    /// A job of the worker lane (which takes only these three kinds).
    fn of(job: Job) -> Self {
        match job {
            Job::Command(c) => Self {
                kind: "command",
                id: c.id.0,
                name: c.name,
                invocation: c.invocation,
                input: c.args,
                cancelled: c.cancelled,
            },
            Job::Tool(t) => Self {
                kind: "tool",
                id: t.id.0,
                name: t.name,
                invocation: t.invocation,
                input: t.args.get().to_owned(),
                cancelled: t.cancelled,
            },
            Job::Intercept(i) => Self {
                kind: "intercept",
                id: i.id.0,
                name: i.request.name().to_owned(),
                invocation: i.request.id().to_owned(),
                input: crate::binding::contract::intercept_request_json(&i.request),
                cancelled: i.cancelled,
            },
            other => unreachable!("the worker lane takes no {:?} job", other.lane()),
        }
    }
}

/// One event of a run for a worker thread ([`WorkTaken::Events`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEvent {
    /// Complete it with this id.
    pub id: u64,
    /// The event's name.
    pub name: String,
    /// The event's frame, `type` included (JSON; as the host wrote it with
    /// [`crate::EngineConfig::event_frames`]).
    pub frame: String,
}

impl RunEvent {
    /// An event job as a run's event (a run holds only events).
    fn of(job: Job) -> Option<Self> {
        match job {
            Job::Event { id, event, frame } => Some(Self {
                id: id.0,
                name: event.name().to_owned(),
                frame: crate::binding::contract::event_frame_json(&event, frame),
            }),
            _ => None,
        }
    }
}

/// Why a call was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindingError {
    /// The input is not what the method takes (JSON that does not decode):
    /// a bug of the facade (`ValueError` in Python).
    #[error("{0}")]
    Invalid(String),
    /// The engine refused it (a registration, a frame): the author's error.
    #[error("{0}")]
    Refused(String),
}

fn refused(e: impl std::fmt::Display) -> BindingError {
    BindingError::Refused(e.to_string())
}

/// Engine settings a binding may shorten (tests do); `None` keeps the
/// engine's (the spec's) value.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// How long handlers get after shutdown/EOF to send their last frames.
    pub shutdown_grace: Option<Duration>,
    /// The interception deadline.
    pub intercept_timeout: Option<Duration>,
    /// With stdio only: exit this long after shutdown/EOF began; `Some(None)`
    /// disables the watchdog.
    pub exit_watchdog: Option<Option<Duration>>,
}

/// The engine's configuration for a binding: events cross as the host
/// wrote them ([`EngineConfig::event_frames`]).
pub fn config(name: &str, version: &str, options: Options) -> EngineConfig {
    let mut c = EngineConfig::new(name, version);
    c.event_frames = true;
    if let Some(d) = options.shutdown_grace {
        c.shutdown_grace = d;
    }
    if let Some(d) = options.intercept_timeout {
        c.intercept_timeout = d;
    }
    if let Some(w) = options.exit_watchdog {
        c.exit_watchdog = w;
    }
    c
}

/// What `register_all` takes.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AllRegistrations {
    #[serde(default)]
    commands: Vec<RegisterCommand>,
    #[serde(default)]
    tools: Vec<ToolEntry>,
    #[serde(default)]
    events: Vec<String>,
    #[serde(default)]
    intercepts: Vec<String>,
}

/// A tool in `register_all`: the JSON text of its spec, and whether the
/// SDK derived its schema (see [`SchemaOrigin`]).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolEntry {
    spec: String,
    #[serde(default)]
    derived: bool,
}

/// [`SchemaOrigin`] from the bindings' flag.
pub fn schema_origin(derived: bool) -> SchemaOrigin {
    if derived {
        SchemaOrigin::Derived
    } else {
        SchemaOrigin::Given
    }
}

/// One engine session as the bindings see it.
#[derive(Debug, Clone)]
pub struct BindingEngine {
    engine: Engine,
}

impl BindingEngine {
    /// Starts a session on `rt` over `transport` (`stdio` or `memory`; the
    /// binding builds the transport, whose host side it may keep).
    pub fn start(
        rt: &Handle,
        name: &str,
        version: &str,
        options: Options,
        transport: Transport,
    ) -> Result<Self, BindingError> {
        let engine =
            Engine::start_on(rt, config(name, version, options), transport).map_err(refused)?;
        Ok(Self { engine })
    }

    /// The engine, for what only one binding does (its readiness signal).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The extension name.
    pub fn name(&self) -> &str {
        self.engine.name()
    }

    /// The host's `hello_ack` frame (`type` included) as JSON, once received.
    pub fn hello_ack(&self) -> Option<String> {
        let ack = self.engine.hello_ack()?;
        serde_json::to_string(&HostFrame::HelloAck((*ack).clone())).ok()
    }

    /// Registers a slash command.
    pub fn register_command(&self, name: &str, description: &str) -> Result<(), BindingError> {
        self.engine
            .register_command(RegisterCommand {
                name: name.to_owned(),
                description: description.to_owned(),
            })
            .map_err(refused)
    }

    /// Registers a tool given as the fields of `register_tool` (JSON, the
    /// `type` key optional; the schemas' bytes are kept); `derived` says
    /// the SDK derived its schema from the handler's types.
    pub fn register_tool(&self, spec: &str, derived: bool) -> Result<(), BindingError> {
        let tool: RegisterTool = serde_json::from_str(spec)
            .map_err(|e| BindingError::Invalid(format!("register_tool: {e}")))?;
        self.engine
            .register_tool(tool, schema_origin(derived))
            .map_err(refused)
    }

    /// Subscribes to a lifecycle event by name.
    pub fn subscribe(&self, event: &str) -> Result<(), BindingError> {
        self.engine.subscribe(event).map_err(refused)
    }

    /// Registers an interceptor for one of the interceptable events.
    pub fn intercept(&self, event: &str) -> Result<(), BindingError> {
        self.engine.intercept(event).map_err(refused)
    }

    /// Registers everything at once (see [`Engine::register_all`]): a JSON
    /// object `{"commands": [{"name", "description"}], "tools": [{"spec",
    /// "derived"}], "events": [name], "intercepts": [name]}`, each list
    /// optional, where a tool's spec is the JSON text `register_tool` takes
    /// (its schemas' bytes kept) and `derived` (default false) its flag. What the engine refuses is logged, not returned; the
    /// result is how many were refused.
    pub fn register_all(&self, registrations: &str) -> Result<usize, BindingError> {
        let all: AllRegistrations = serde_json::from_str(registrations)
            .map_err(|e| BindingError::Invalid(format!("register_all: {e}")))?;
        let tools = all
            .tools
            .iter()
            .map(|t| serde_json::from_str(&t.spec).map(|tool| (tool, schema_origin(t.derived))))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| BindingError::Invalid(format!("register_all: a tool: {e}")))?;
        Ok(self.engine.register_all(Registrations {
            commands: all.commands,
            tools,
            events: all.events,
            intercepts: all.intercepts,
        }))
    }

    /// Routes input for `panel_id` to the handlers registered as
    /// `registration` (see [`Engine::bind_panel`]).
    pub fn bind_panel(&self, panel_id: &str, registration: u64) {
        self.engine.bind_panel(panel_id, registration);
    }

    /// Forgets `panel_id`'s handlers (see [`Engine::unbind_panel`]).
    pub fn unbind_panel(&self, panel_id: &str) {
        self.engine.unbind_panel(panel_id);
    }

    /// Ends the on-hello phase: the registrations, `subscribe`, `ready`.
    pub fn hello_done(&self) -> Result<(), BindingError> {
        self.engine.hello_done().map_err(refused)
    }

    /// Everything queued right now as a JSON array of the contract's job
    /// messages (possibly `[]`), without waiting: the one pull.
    pub fn take_jobs(&self) -> String {
        Job::batch_to_json(&self.engine.take_jobs())
    }

    /// Answers a batch of jobs (a JSON array of the contract's `Answer`s);
    /// returns what became of each (a JSON array of `Answered`).
    pub fn complete(&self, batch: &str) -> Result<String, BindingError> {
        complete_json(&self.engine, batch).map_err(BindingError::Invalid)
    }

    /// Whether a job was cancelled (or is not open any more).
    pub fn is_cancelled(&self, job: u64) -> bool {
        self.engine.is_cancelled(JobId(job))
    }

    /// Sends a spontaneous frame given as JSON (`notify`, `clear_notes`,
    /// `submit`, `submit_slash`, `open_panel`, `panel_render`,
    /// `panel_close`).
    pub fn send(&self, frame: &str) -> Result<(), BindingError> {
        self.engine.send_json(frame).map_err(refused)
    }

    /// Starts a `call_tool` given as a `CallStart` (JSON); returns a
    /// `CallStarted` (JSON): the call's handle, or why nothing was sent.
    pub fn start_call(&self, request: &str) -> Result<String, BindingError> {
        let req: CallStart = serde_json::from_str(request)
            .map_err(|e| BindingError::Invalid(format!("invalid call request: {e}")))?;
        let timeout = match req.timeout_ms {
            Some(ms) if ms.is_finite() && ms >= 0.0 => Some(Duration::from_secs_f64(ms / 1000.0)),
            Some(ms) => return Err(BindingError::Invalid(format!("invalid timeout {ms} ms"))),
            None => None,
        };
        let call = CallRequest {
            parent: req.parent.map(JobId),
            name: req.name,
            args: req.args.unwrap_or_else(RawJson::empty_object),
            key: req.key,
            timeout,
        };
        Ok(CallStarted::of(self.engine.start_call(call)).to_json())
    }

    /// Gives up on a call (`call_tool_cancel`; its `call_result` carries the
    /// `cancelled` error). Unknown or finished calls are ignored.
    pub fn cancel_call(&self, call: u64) {
        self.engine.cancel_call(CallId(call));
    }

    /// Ends the session from the extension's side (like EOF, without
    /// `shutdown_ack`).
    pub fn close(&self) {
        self.engine.close();
    }

    /// Writes `[<name>] message` to stderr.
    pub fn log(&self, message: &str) {
        self.engine.log(message);
    }

    /// Routes (or stops routing) the jobs of a `command`, `tool`,
    /// `intercept` or `event` handler to the worker lane (see [`Engine::route_to_workers`]).
    pub fn route_to_workers(&self, kind: &str, name: &str, on: bool) -> Result<(), BindingError> {
        let kind = Routed::parse(kind).ok_or_else(|| {
            BindingError::Invalid(format!(
                "route_to_workers: {kind:?} is not `command`, `tool`, `intercept` or `event`"
            ))
        })?;
        self.engine.route_to_workers(kind, name, on);
        Ok(())
    }

    /// See [`Engine::start_workers`].
    pub fn start_workers(&self, max: usize) -> usize {
        self.engine.start_workers(max)
    }

    /// A worker thread's next work (blocks; see [`Engine::take_work`]).
    pub fn take_work(&self, idle_timeout: Duration, finished: bool) -> WorkTaken {
        Self::work_taken(self.engine.take_work(idle_timeout, finished))
    }

    /// [`BindingEngine::take_work`] without waiting (see
    /// [`Engine::try_take_work`]): a binding calls it before it releases its
    /// interpreter lock to wait.
    pub fn try_take_work(&self, finished: bool) -> Option<WorkTaken> {
        self.engine.try_take_work(finished).map(Self::work_taken)
    }

    fn work_taken(taken: Taken) -> WorkTaken {
        match taken {
            Taken::Work {
                work: Work::Job(job),
                spawn,
            } => WorkTaken::Call {
                call: WorkerCall::of(job),
                spawn,
            },
            Taken::Work {
                work: Work::Task(key),
                spawn,
            } => WorkTaken::Task { key, spawn },
            Taken::Work {
                work: Work::Events(run),
                spawn,
            } => WorkTaken::Events {
                events: run.into_iter().filter_map(RunEvent::of).collect(),
                spawn,
            },
            Taken::Exit => WorkTaken::Exit,
        }
    }

    /// See [`Engine::queue_task`].
    pub fn queue_task(&self, key: u64) -> bool {
        self.engine.queue_task(key)
    }

    /// See [`Engine::lend_worker`].
    pub fn lend_worker(&self) -> bool {
        self.engine.lend_worker()
    }

    /// See [`Engine::return_worker`].
    pub fn return_worker(&self) {
        self.engine.return_worker()
    }

    /// See [`Engine::wait_workers_idle`].
    pub fn wait_workers_idle(&self, timeout: Duration) -> bool {
        self.engine.wait_workers_idle(timeout)
    }
}
