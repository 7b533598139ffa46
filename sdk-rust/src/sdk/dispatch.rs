//! The Rust SDK's dispatcher: the same pull loop a binding runs, with Rust
//! handlers.
//!
//! Commands, tools and interceptors are spawned as tasks (concurrent;
//! SDK-13, SDK-19, SDK-39); the jobs the engine puts in the serial lane
//! (events and panel input) go through `serial.rs` (SDK-35). Every handler runs under
//! `catch_unwind`; its result, error or panic is handed to the engine, which
//! decides what goes on the wire.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use zot_protocol::values::INTERCEPTABLE_EVENT_NAMES;

use super::builder::{BoxFut, Extension, Registrar, Tables};
use super::ctx::Ctx;
use super::handle::{ExtHandle, HostInfo, CURRENT_TOOL};
use super::serial::SerialLane;
use super::RunError;
use crate::engine::panic::{self, CatchPanic};
use crate::engine::registration::Registrations;
use crate::engine::{
    CancelToken, CommandJob, CompleteError, Completion, Engine, InterceptJob, Job, JobId, Lane,
    Outcome, ToolJob,
};

pub(crate) async fn serve(
    ext: Extension,
    transport: crate::engine::Transport,
) -> Result<(), RunError> {
    let Extension {
        mut handlers,
        hello_hooks,
        handle,
        config,
    } = ext;
    if !handlers.errors.is_empty() {
        return Err(RunError::Register(handlers.errors.join("; ")));
    }
    let engine = Engine::start(config, transport).map_err(RunError::Engine)?;
    if handle.shared.engine.set(engine.clone()).is_err() {
        return Err(RunError::AlreadyRunning);
    }
    handle.bind_panels(&engine);

    // Until hello_ack: nothing else can arrive.
    let mut pending: VecDeque<Job> = VecDeque::new();
    'hello: loop {
        let mut batch = engine.next_jobs().await.into_iter();
        while let Some(job) = batch.next() {
            match job {
                Job::Hello(ack) => {
                    let info = HostInfo(ack);
                    let _ = handle.shared.host.set(info.clone());
                    let mut reg = Registrar {
                        handlers: &mut handlers,
                        handle: &handle,
                    };
                    for hook in hello_hooks {
                        if let Err(msg) = panic::call(|| hook(&info, &mut reg)) {
                            handle.log(format!("on_hello hook panicked: {msg}"));
                        }
                    }
                    for e in &handlers.errors {
                        handle.log(format!("registration refused: {e}"));
                    }
                    announce(&engine, &handlers, &handle);
                    pending.extend(batch);
                    break 'hello;
                }
                Job::Finished { error } => return finish(error),
                _ => {}
            }
        }
    }

    let tables = Arc::new(handlers.tables());
    let inline_first_poll = tokio::runtime::Handle::current().runtime_flavor()
        == tokio::runtime::RuntimeFlavor::CurrentThread;
    let serial = SerialLane::start(&engine, tables.clone(), &handle, inline_first_poll);
    let d = Dispatcher {
        engine,
        tables,
        handle,
        serial,
        inline_first_poll,
    };
    loop {
        for job in pending.drain(..) {
            if let Some(result) = d.dispatch(job) {
                return result;
            }
        }
        pending.extend(d.engine.next_jobs().await);
    }
}

fn finish(error: Option<String>) -> Result<(), RunError> {
    match error {
        None => Ok(()),
        Some(e) => Err(RunError::Session(e)),
    }
}

/// Registers everything with the engine, then announces it.
fn announce(engine: &Engine, handlers: &super::builder::Handlers, handle: &ExtHandle) {
    // The engine logs what it refuses (the same line in every SDK).
    engine.register_all(Registrations {
        commands: handlers.commands.iter().map(|(c, _)| c.clone()).collect(),
        tools: handlers
            .tools
            .iter()
            .map(|(t, _)| (t.reg.clone(), t.schema_origin()))
            .collect(),
        events: handlers.events.iter().map(|(e, _)| e.clone()).collect(),
        intercepts: INTERCEPTABLE_EVENT_NAMES
            .iter()
            .zip(&handlers.intercepts)
            .filter(|(_, f)| f.is_some())
            .map(|(name, _)| (*name).to_owned())
            .collect(),
    });
    if let Err(e) = engine.hello_done() {
        handle.log(format!("handshake not completed: {e}"));
    }
}

struct Dispatcher {
    engine: Engine,
    tables: Arc<Tables>,
    handle: ExtHandle,
    serial: SerialLane,
    inline_first_poll: bool,
}

impl Dispatcher {
    /// On a current-thread runtime (`run_blocking`), polls a job's future
    /// once right here and spawns it as a task only if it is not done: most
    /// tool, command and interceptor handlers answer without waiting, and a
    /// task (an aligned allocation, a schedule and a poll) is a tenth of a
    /// small call's cost. The first poll uses a no-op waker; a future left
    /// pending re-registers with its task's waker on the task's first poll
    /// (which spawning schedules at once), so no wake-up is lost. On a
    /// multi-thread runtime every job is a task, so handlers run in parallel.
    fn run_or_spawn(&self, fut: impl Future<Output = ()> + Send + 'static) {
        if !self.inline_first_poll {
            tokio::spawn(fut);
            return;
        }
        let mut fut = Box::pin(fut);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        if fut.as_mut().poll(&mut cx).is_pending() {
            tokio::spawn(fut);
        }
    }

    fn ctx(&self, job: Option<JobId>, invocation: String, token: CancelToken) -> Ctx {
        Ctx {
            ext: self.handle.clone(),
            job,
            invocation,
            token,
        }
    }

    /// A job the engine routed to a handler this dispatcher does not have.
    /// The engine hands out only what was registered with it, and this SDK
    /// registers exactly its tables, so this is a bug, not a protocol case
    /// (the engine itself answers requests with no handler, SDK-15/20/38):
    /// the job is failed, so it is still answered once, and logged.
    fn unrouted(&self, id: JobId, what: &str, name: &str) -> Option<Result<(), RunError>> {
        let msg = format!("internal error: no {what} handler for {name:?} in the Rust SDK");
        self.handle.log(msg.clone());
        report(
            &self.handle,
            what,
            &name,
            self.engine.complete(id, Outcome::Failed(msg)),
        );
        None
    }

    /// The future that runs a command, tool or interceptor handler and
    /// answers its job with what it returned, its error or its panic (a
    /// failure is logged unless the job was cancelled, as in every SDK).
    fn answer<T: Send + 'static>(
        &self,
        id: JobId,
        invocation: String,
        what: Label,
        call: impl FnOnce(Ctx) -> BoxFut<T> + Send + 'static,
        outcome: fn(T) -> Outcome,
    ) -> impl Future<Output = ()> + Send + 'static {
        let token = self.engine.cancel_token(id);
        let ctx = self.ctx(Some(id), invocation, token.clone());
        let (engine, handle) = (self.engine.clone(), self.handle.clone());
        async move {
            let done = match run_handler(|| call(ctx)).await {
                Ok(r) => engine.complete(id, outcome(r)),
                Err(msg) => {
                    if !token.is_cancelled() {
                        handle.log(format!("{what} failed: {msg}"));
                    }
                    engine.complete(id, Outcome::Failed(msg))
                }
            };
            report(&handle, what.kind, &what.name, done);
        }
    }

    fn run_command(&self, c: CommandJob) -> Option<Result<(), RunError>> {
        let Some(f) = self.tables.commands.get(&c.name).cloned() else {
            return self.unrouted(c.id, "command", &c.name);
        };
        let what = Label::new("command", c.name);
        let args = c.args;
        self.run_or_spawn(self.answer(
            c.id,
            c.invocation,
            what,
            move |ctx| f(args, ctx),
            |r| Outcome::Command(r.into_outcome()),
        ));
        None
    }

    /// A tool's call id is the parent of the `call_tool`s it makes (SDK-26).
    fn run_tool(&self, t: ToolJob) -> Option<Result<(), RunError>> {
        let Some(f) = self.tables.tools.get(&t.name).cloned() else {
            return self.unrouted(t.id, "tool", &t.name);
        };
        let what = Label::new("tool", t.name);
        let args = t.args;
        let run = self.answer(
            t.id,
            t.invocation,
            what,
            move |ctx| f(args, ctx),
            |r| Outcome::Tool(r.into_outcome()),
        );
        self.run_or_spawn(CURRENT_TOOL.scope(t.id, run));
        None
    }

    fn run_interceptor(&self, i: InterceptJob) -> Option<Result<(), RunError>> {
        let name = i.request.name();
        let idx = INTERCEPTABLE_EVENT_NAMES.iter().position(|e| *e == name);
        let Some(f) = idx.and_then(|i| self.tables.intercepts[i].clone()) else {
            return self.unrouted(i.id, "interceptor", name);
        };
        let invocation = i.request.id().to_owned();
        let request = i.request;
        let what = Label::new("interceptor", name);
        self.run_or_spawn(self.answer(
            i.id,
            invocation,
            what,
            move |ctx| f(request, ctx),
            Outcome::Intercept,
        ));
        None
    }

    /// Starts one job; `Some` when the session is over.
    fn dispatch(&self, job: Job) -> Option<Result<(), RunError>> {
        if job.lane() == Some(Lane::Serial) {
            self.serial.dispatch(job);
            return None;
        }
        match job {
            Job::Command(c) => return self.run_command(c),
            Job::Tool(t) => return self.run_tool(t),
            Job::Intercept(i) => return self.run_interceptor(*i),
            // In the serial lane (above).
            Job::Event { .. }
            | Job::PanelKey { .. }
            | Job::PanelClose { .. }
            | Job::PanelResize { .. } => {}
            // Tokens were cancelled by the engine; handlers observe them.
            Job::Cancel { .. } | Job::Shutdown | Job::Hello(_) => {}
            // The Rust SDK awaits its calls as futures.
            Job::CallResult { .. } => {}
            Job::Finished { error } => return Some(finish(error)),
        }
        None
    }
}

/// What a job's handler is, for the log: `command /name`, `tool name`,
/// `name interceptor`.
struct Label {
    kind: &'static str,
    name: Cow<'static, str>,
}

impl Label {
    fn new(kind: &'static str, name: impl Into<Cow<'static, str>>) -> Self {
        Self {
            kind,
            name: name.into(),
        }
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            "command" => write!(f, "command /{}", self.name),
            "interceptor" => write!(f, "{} interceptor", self.name),
            kind => write!(f, "{kind} {}", self.name),
        }
    }
}

/// Runs a handler, turning a panic (when called or while polled) into an
/// error.
pub(super) async fn run_handler<T>(call: impl FnOnce() -> BoxFut<T>) -> Result<T, String> {
    match panic::call(call) {
        Ok(fut) => match CatchPanic::new(fut).await {
            Ok(r) => r,
            Err(p) => Err(panic::message(&*p)),
        },
        Err(msg) => Err(msg),
    }
}

/// `name` is formatted only when there is something to log (finishing an
/// event job used to format its id each time: 4% of an event's cost).
pub(super) fn report(
    handle: &ExtHandle,
    what: &str,
    name: &dyn std::fmt::Display,
    r: Result<Completion, CompleteError>,
) {
    if let Err(e) = r {
        handle.log(format!("{what} {name}: {e}"));
    }
}
