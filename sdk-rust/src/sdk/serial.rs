//! The serial lane: events and panel input run in arrival order, one at a
//! time (SDK-35), each answered once its handler is done so that the
//! shutdown grace knows when they are. Only the dispatcher knows when a
//! handler is done, so the order is kept here (an engine that released them
//! one by one would cost a wake-up per event).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;

use tokio::sync::mpsc;

use super::builder::{BoxFut, Tables};
use super::handle::ExtHandle;
use super::routes::{report, serial_job};
use crate::engine::{CancelToken, Engine, Job, JobId, Outcome};

/// The lane as the dispatcher holds it: jobs run inline while the serial
/// task is idle, or go to that task.
pub(super) struct SerialLane {
    serial: Arc<Serial>,
    /// Jobs whose handlers the serial task runs, after those before them.
    tx: mpsc::UnboundedSender<(JobId, BoxFut<()>)>,
    inline_first_poll: bool,
}

/// What event and panel jobs need, shared by the dispatcher (inline runs)
/// and the serial task.
struct Serial {
    tables: Arc<Tables>,
    /// Serial jobs carry the session token: no lookup per event.
    session: CancelToken,
    engine: Engine,
    handle: ExtHandle,
    /// Jobs handed to the serial task and not finished yet.
    queued: AtomicUsize,
}

impl SerialLane {
    /// Starts the serial task on the engine's runtime: it runs the jobs it
    /// is handed in order, one at a time.
    pub(super) fn start(
        engine: &Engine,
        tables: Arc<Tables>,
        handle: &ExtHandle,
        inline_first_poll: bool,
    ) -> Self {
        let serial = Arc::new(Serial {
            tables,
            session: engine.session_token(),
            engine: engine.clone(),
            handle: handle.clone(),
            queued: AtomicUsize::new(0),
        });
        let (tx, mut rx) = mpsc::unbounded_channel();
        let task = serial.clone();
        engine.spawn_serial_dispatcher(async move {
            while let Some((id, fut)) = rx.recv().await {
                task.finish(id, fut.await);
                task.queued.fetch_sub(1, Ordering::AcqRel);
            }
        });
        Self {
            serial,
            tx,
            inline_first_poll,
        }
    }

    /// Events and panel input, in arrival order, one at a time. While the
    /// serial task has nothing queued (and on a current-thread runtime) a
    /// job is first polled right here: usually it is done at once, before
    /// any job dispatched after it, with no channel or task hop. A job not
    /// done goes to the serial task (which polls it again with its own
    /// waker), and so does everything after it until that task catches up:
    /// a job's future does nothing before its first poll.
    pub(super) fn dispatch(&self, job: Job) {
        let serial = &self.serial;
        let Some((id, mut fut)) = serial_job(&serial.tables, &serial.handle, &serial.session, job)
        else {
            return;
        };
        if self.inline_first_poll && serial.queued.load(Ordering::Acquire) == 0 {
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            if let Poll::Ready(result) = fut.as_mut().poll(&mut cx) {
                return serial.finish(id, result);
            }
        }
        serial.queued.fetch_add(1, Ordering::AcqRel);
        let _ = self.tx.send((id, fut));
    }
}

impl Serial {
    /// Answers a finished job (the engine logs failures, SDK-36).
    fn finish(&self, id: JobId, result: Result<(), String>) {
        let outcome = result.map_or_else(Outcome::Failed, |()| Outcome::Done);
        report(&self.handle, "job", &id, self.engine.complete(id, outcome));
    }
}
