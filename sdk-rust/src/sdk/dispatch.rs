//! The Rust SDK's dispatcher: the same pull loop a binding runs, with Rust
//! handlers.
//!
//! After the session's start (`handshake.rs`), commands, tools and interceptors
//! are spawned as tasks (concurrent; SDK-13, SDK-19, SDK-39) and the jobs
//! the engine puts in the serial lane (events and panel input) go through
//! `serial.rs` (SDK-35); `routes.rs` says which handler a job runs. Every
//! handler runs under `catch_unwind`; its result, error or panic is handed
//! to the engine, which decides what goes on the wire.

use std::future::Future;
use std::sync::Arc;

use super::builder::{Extension, Tables};
use super::handle::ExtHandle;
use super::handshake::{ended, start, Started};
use super::serial::SerialLane;
use super::RunError;
use crate::engine::{Engine, Job, Lane};

pub(crate) async fn serve(
    ext: Extension,
    transport: crate::engine::Transport,
) -> Result<(), RunError> {
    let Some(started) = start(ext, transport).await? else {
        return Ok(()); // the host ended the session before `hello_ack`
    };
    let inline_first_poll = tokio::runtime::Handle::current().runtime_flavor()
        == tokio::runtime::RuntimeFlavor::CurrentThread;
    let Started {
        engine,
        tables,
        handle,
        mut pending,
    } = started;
    let d = Dispatcher {
        serial: SerialLane::start(&engine, tables.clone(), &handle, inline_first_poll),
        engine,
        tables,
        handle,
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

pub(super) struct Dispatcher {
    pub(super) engine: Engine,
    pub(super) tables: Arc<Tables>,
    pub(super) handle: ExtHandle,
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
    pub(super) fn run_or_spawn(&self, fut: impl Future<Output = ()> + Send + 'static) {
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

    /// Starts one job; `Some` when the session is over.
    fn dispatch(&self, job: Job) -> Option<Result<(), RunError>> {
        match job {
            job if job.lane() == Some(Lane::Serial) => self.serial.dispatch(job),
            Job::Command(c) => self.run_command(c),
            Job::Tool(t) => self.run_tool(t),
            Job::Intercept(i) => self.run_interceptor(*i),
            Job::Finished { error } => return Some(ended(error)),
            // Event and panel jobs come in the serial lane (above); tokens
            // were cancelled by the engine (handlers observe them); calls
            // are awaited as futures.
            Job::Event { .. }
            | Job::PanelKey { .. }
            | Job::PanelClose { .. }
            | Job::PanelResize { .. }
            | Job::Cancel { .. }
            | Job::Shutdown
            | Job::Hello(_)
            | Job::CallResult { .. } => {}
        }
        None
    }
}
