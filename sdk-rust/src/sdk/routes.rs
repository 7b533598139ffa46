//! Which handler a job runs, with what, and how its result, error or panic
//! reaches the engine: a look-up in the extension's tables. The engine
//! hands out only jobs for names registered from these tables (it answers
//! the others itself, SDK-15/20/38) and binds panel input to the
//! registration it arrived for.

use std::borrow::Cow;
use std::future::Future;

use zot_protocol::values::INTERCEPTABLE_EVENT_NAMES;

use super::builder::{BoxFut, Tables};
use super::ctx::Ctx;
use super::dispatch::Dispatcher;
use super::handle::{ExtHandle, CURRENT_TOOL};
use crate::engine::runtime::panic::{self, CatchPanic};
use crate::engine::{
    CancelToken, CommandJob, CompleteError, Completion, InterceptJob, Job, JobId, Outcome, ToolJob,
};

impl Dispatcher {
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
    fn unrouted(&self, id: JobId, what: &str, name: &str) {
        let msg = format!("internal error: no {what} handler for {name:?} in the Rust SDK");
        self.handle.log(msg.clone());
        report(
            &self.handle,
            what,
            &name,
            self.engine.complete(id, Outcome::Failed(msg)),
        );
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

    pub(super) fn run_command(&self, c: CommandJob) {
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
    }

    /// A tool's call id is the parent of the `call_tool`s it makes (SDK-26).
    pub(super) fn run_tool(&self, t: ToolJob) {
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
    }

    pub(super) fn run_interceptor(&self, i: InterceptJob) {
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
    }
}

/// An event or panel job's handler as a future (`None` for jobs that are
/// not serial). Nothing runs before its first poll, so the lane decides
/// when. Event handlers share the session's token; panel input runs only
/// while its registration is the panel's current one (`panels.rs`).
pub(super) fn serial_job(
    tables: &Tables,
    handle: &ExtHandle,
    session: &CancelToken,
    job: Job,
) -> Option<(JobId, BoxFut<()>)> {
    let h = handle.clone();
    Some(match job {
        Job::Event { id, event, .. } => match tables.events.get(event.name()).cloned() {
            Some(f) => {
                let ctx = Ctx {
                    ext: h,
                    job: None,
                    invocation: String::new(),
                    token: session.clone(),
                };
                (id, Box::pin(run_handler(move || f(*event, ctx))))
            }
            None => (id, Box::pin(std::future::ready(Ok(())))),
        },
        Job::PanelKey {
            id,
            key,
            registration,
        } => (
            id,
            Box::pin(async move { h.dispatch_key(registration, &key) }),
        ),
        Job::PanelClose {
            id,
            panel_id,
            registration,
        } => (
            id,
            Box::pin(async move { h.dispatch_close(registration, &panel_id) }),
        ),
        Job::PanelResize {
            id,
            resize,
            registration,
        } => (
            id,
            Box::pin(async move { h.dispatch_resize(registration, &resize) }),
        ),
        _ => return None,
    })
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
