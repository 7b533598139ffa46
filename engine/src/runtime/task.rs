//! The engine's own tasks run supervised.
//!
//! A panic in one (the reader, the writer's flush task, a deadline timer)
//! is a bug in the engine, after
//! which its state cannot be trusted; left alone, tokio would end that task
//! quietly and the session would hang or half-work (a reader that stopped
//! reading, a deadline that never fires). So its supervisor writes one line
//! on stderr naming the task and the panic's message, then:
//!
//! - with the stdio transport (a real extension process, whichever SDK runs
//!   it), flushes what the writer holds and exits the process with status
//!   [`PANIC_EXIT_STATUS`];
//! - with any other transport (in-process tests, an application that
//!   embeds the engine and owns the process), ends the session as failed:
//!   [`crate::Job::Finished`] carries the error, so `run` returns it.
//!
//! User handlers are not engine tasks: the SDKs turn their panics into
//! error results.

use std::any::Any;
use std::future::Future;
use std::sync::{Arc, Weak};

use crate::lock;
use crate::runtime::panic::{self, CatchPanic};
use crate::session::close_reason::CloseReason;
use crate::{Engine, Inner, Phase};

/// The exit status after a panic in an engine task (`EX_SOFTWARE`, an
/// internal software error, in `sysexits.h`).
pub(crate) const PANIC_EXIT_STATUS: i32 = 70;

/// The engine's tasks, named in the line a panic writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Task {
    /// Reads the host's frames (`reader::run`), then closes the session.
    Reader,
    /// Writes what deferred writes buffered.
    Flusher,
    InterceptDeadline,
    CallDeadline,
    /// A client's runner of event and panel handlers (the Rust SDK's).
    SerialDispatcher,
}

impl Task {
    fn name(self) -> &'static str {
        match self {
            Self::Reader => "reader",
            Self::Flusher => "writer's flush task",
            Self::InterceptDeadline => "interception deadline",
            Self::CallDeadline => "call_tool deadline",
            Self::SerialDispatcher => "event dispatcher",
        }
    }

    /// Whether this task is the one that would have closed the session.
    fn closes_session(self) -> bool {
        matches!(self, Self::Reader)
    }
}

impl Inner {
    /// Spawns one of the engine's tasks on its runtime, supervised.
    pub(crate) fn spawn(
        self: &Arc<Self>,
        task: Task,
        fut: impl Future<Output = ()> + Send + 'static,
    ) -> tokio::task::JoinHandle<()> {
        self.rt.spawn(supervised(Arc::downgrade(self), task, fut))
    }

    /// An engine task panicked: the line on stderr, then the exit (stdio)
    /// or the end of the session (see the module docs).
    pub(crate) fn task_panicked(&self, task: Task, payload: &(dyn Any + Send)) {
        let what = panic_line(task, payload);
        let name = &self.config.name;
        if self.stdio {
            crate::runtime::log::line(
                name,
                &format!("internal error: {what}; exiting with status {PANIC_EXIT_STATUS}"),
            );
            self.writer.close();
            std::process::exit(PANIC_EXIT_STATUS);
        }
        crate::runtime::log::line(name, &format!("internal error: {what}; ending the session"));
        self.begin_close(CloseReason::Internal(what), Vec::new());
        self.stop.cancel();
    }
}

impl Engine {
    /// Spawns a client's runner of event and panel handlers (the Rust
    /// SDK's) on the engine's runtime, supervised like the engine's own
    /// tasks: a panic in it ends the session with one line naming it.
    pub fn spawn_serial_dispatcher(&self, fut: impl Future<Output = ()> + Send + 'static) {
        self.inner.spawn(Task::SerialDispatcher, fut);
    }
}

async fn supervised(inner: Weak<Inner>, task: Task, fut: impl Future<Output = ()>) {
    let Err(payload) = CatchPanic::new(fut).await else {
        return;
    };
    let Some(inner) = inner.upgrade() else {
        // The session is over; only the line is left to write.
        crate::runtime::log::line(
            "zot-ext",
            &format!("internal error: {}", panic_line(task, &*payload)),
        );
        return;
    };
    inner.task_panicked(task, &*payload);
    // The task that would have closed the session is gone: close it here.
    if task.closes_session() && lock(&inner.state).phase != Phase::Finished {
        let reason = lock(&inner.state)
            .close_reason
            .clone()
            .unwrap_or(CloseReason::Local);
        inner.finish_close(reason).await;
    }
}

/// `the engine's reader panicked: <message>`, on one line.
fn panic_line(task: Task, payload: &(dyn Any + Send)) -> String {
    let msg = panic::text(payload).unwrap_or_else(|| "(no message)".to_owned());
    let msg = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("the engine's {} panicked: {msg}", task.name())
}

/// A fault injected for tests, from `ZOT_EXT_TEST_FAULT` (read once per
/// engine). Not part of the API: it lets the test suites of all three SDKs
/// show that a panic in the engine ends the process with one clear line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The reader panics on the first frame after `hello_ack`.
    ReaderPanic,
}

impl Fault {
    pub(crate) fn from_env() -> Option<Self> {
        match std::env::var_os("ZOT_EXT_TEST_FAULT")?.to_str()? {
            "reader-panic" => Some(Self::ReaderPanic),
            _ => None,
        }
    }
}
