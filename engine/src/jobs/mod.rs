//! Jobs: the plain-data units of work the engine hands to a dispatcher, and
//! the queue they wait in.
//!
//! The queue is drained a whole batch at a time: everything that was read by
//! the time the dispatcher wakes up comes back from one call, in arrival
//! order, so a burst of frames costs one wake-up, not one per frame.

pub(crate) mod cancel;
mod complete;
pub(crate) mod outcome;
pub(crate) mod serial_order;
pub(crate) mod workers;

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::Notify;
use zot_protocol::events::UnknownEvent;
use zot_protocol::{
    HelloAck, HostToolResult, InterceptRequest, LifecycleEvent, PanelKey, PanelResize, RawJson,
};

#[cfg(unix)]
use crate::binding::wake::WakePipe;
use crate::call_tool::error::CallToolError;
use crate::jobs::serial_order::{Place, SerialCount, SerialOrder};
use crate::jobs::workers::{Routed, Taken, WorkerLane};
use crate::lock;

/// The engine's handle for one request it handed out (a command, a tool call
/// or an interception). Answer it with [`crate::Engine::complete`].
///
/// Ids count up from 1 and never reach 2^53, so they survive a round trip
/// through a JavaScript number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct JobId(pub u64);

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "job#{}", self.0)
    }
}

/// The handle of one outgoing `call_tool` started with
/// [`crate::Engine::start_call`]. Its result arrives as
/// [`Job::CallResult`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct CallId(pub u64);

/// A `command_invoked` for a registered command.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandJob {
    /// Answer with this id.
    pub id: JobId,
    /// The host's request id (`command_invoked.id`).
    pub invocation: String,
    /// The registered spelling of the command.
    pub name: String,
    /// The rest of the user's input.
    pub args: String,
    /// Cancelled before it was handed out: start the handler with its
    /// cancellation already signalled (no [`Job::Cancel`] follows).
    pub cancelled: bool,
}

/// A `tool_call` for a registered tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolJob {
    /// Answer with this id.
    pub id: JobId,
    /// The host's request id (`tool_call.id`); the engine uses it as the
    /// `parent_id` of calls started under this job.
    pub invocation: String,
    /// The registered tool name.
    pub name: String,
    /// The arguments, as their wire text (a JSON object).
    pub args: RawJson,
    /// Whether the tool was registered as interactive.
    pub interactive: bool,
    /// Cancelled before it was handed out: start the handler with its
    /// cancellation already signalled (no [`Job::Cancel`] follows).
    pub cancelled: bool,
}

/// An `event_intercept` for an event with a registered interceptor.
#[derive(Debug, Clone, PartialEq)]
pub struct InterceptJob {
    /// Answer with this id (before the interception deadline).
    pub id: JobId,
    /// The decoded request.
    pub request: InterceptRequest,
    /// Cancelled before it was handed out: start the handler with its
    /// cancellation already signalled (no [`Job::Cancel`] follows).
    pub cancelled: bool,
}

/// A lifecycle event the extension subscribed to.
#[derive(Debug, Clone, PartialEq)]
pub enum EventData {
    /// One of the fourteen documented events, decoded.
    Known(LifecycleEvent),
    /// An event name this protocol version does not know (the extension
    /// subscribed to it by name), kept as its raw frame.
    Unknown(UnknownEvent),
}

impl EventData {
    /// The event name.
    pub fn name(&self) -> &str {
        match self {
            Self::Known(e) => e.name(),
            Self::Unknown(u) => &u.event,
        }
    }

    /// The event as a JSON object (the frame's fields, `event` included).
    pub fn to_json(&self) -> String {
        match self {
            Self::Known(e) => serde_json::to_string(e).expect("events always serialize"),
            Self::Unknown(u) => u.raw.get().to_owned(),
        }
    }
}

impl Serialize for EventData {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Known(e) => e.serialize(s),
            Self::Unknown(u) => u.raw.serialize(s),
        }
    }
}

/// One unit of work for the dispatcher.
///
/// Contract for dispatchers (the Rust SDK's, and the Node and Python
/// bindings'); a dispatcher routes each job by its [`Job::lane`]:
/// - [`Job::Command`], [`Job::Tool`] and [`Job::Intercept`] run
///   concurrently ([`Lane::Concurrent`]), each answered exactly once with
///   `complete` (an outcome, or [`crate::Outcome::Failed`]).
/// - [`Job::Event`], [`Job::PanelKey`], [`Job::PanelClose`] and
///   [`Job::PanelResize`] ([`Lane::Serial`]) run **in the order received,
///   one at a time**
///   (SDK-35: a burst of keys is never reordered). They are answered too
///   (`Outcome::Done`, or `Outcome::Failed(message)`, which logs):
///   the shutdown grace waits for them, so a `session_end` queued just
///   before `shutdown` is still handled. Events whose handler is routed
///   to the worker lane come to a worker thread instead, in runs
///   ([`crate::Work::Events`]); the engine hands a serial job to either
///   place only once those handed to the other were completed.
/// - Every job with an `id` is answered exactly once.
/// - [`Job::Cancel`] asks the handler of a job handed out in an earlier
///   batch to stop: abort the task / set the signal. A job cancelled before
///   it was handed out comes with `cancelled` set instead, and no `Cancel`
///   follows it. The engine already decided what goes on the wire.
/// - [`Job::Hello`] comes first and alone: run the on-hello hook, register
///   more if needed, then call `hello_done`. No other job is handed out
///   until then (they wait in the queue, in order).
/// - After [`Job::Finished`] no more jobs come.
#[derive(Debug, Clone)]
pub enum Job {
    /// The host's `hello_ack`: run the on-hello hook, then call
    /// [`crate::Engine::hello_done`].
    Hello(Arc<HelloAck>),
    /// Run a command handler.
    Command(CommandJob),
    /// Run a tool handler.
    Tool(ToolJob),
    /// Run the event handler (in order, one at a time), then answer with
    /// [`crate::Outcome::Done`] (or [`crate::Outcome::Failed`]).
    Event {
        /// Answer with this id once the handler returned.
        id: JobId,
        /// The event.
        event: Box<EventData>,
        /// The host's frame as it came (`type` included), kept when
        /// [`crate::EngineConfig::event_frames`] is set: a binding hands it
        /// on as is instead of encoding the decoded event again.
        frame: Option<Box<str>>,
    },
    /// Run an interceptor.
    Intercept(Box<InterceptJob>),
    /// A key for a panel (in order, one at a time), for the handlers bound
    /// as `registration` when it arrived ([`crate::Engine::bind_panel`];
    /// input for panels without handlers never becomes a job, SDK-46). Run
    /// it only if that registration is still the panel's current one.
    /// Answer with `Done`.
    PanelKey {
        /// Answer with this id once handled.
        id: JobId,
        /// The key.
        key: PanelKey,
        /// The registration the key is for.
        registration: u64,
    },
    /// The user closed a panel (in order with the keys); the engine already
    /// unbound it. Forget the handlers of `registration` if they are still
    /// the panel's current ones, and run their close handler. Answer with
    /// `Done`.
    PanelClose {
        /// Answer with this id once handled.
        id: JobId,
        /// The panel.
        panel_id: String,
        /// The registration the close is for.
        registration: u64,
    },
    /// A panel was resized (code-only; no stored host sends it); routed
    /// like a key. Answer with `Done`.
    PanelResize {
        /// Answer with this id once handled.
        id: JobId,
        /// The new size.
        resize: PanelResize,
        /// The registration the resize is for.
        registration: u64,
    },
    /// A job handed out earlier was cancelled (`tool_cancel`, interception
    /// deadline, shutdown or EOF). Whatever the handler still answers is
    /// dropped when the protocol says so.
    Cancel {
        /// The cancelled job.
        id: JobId,
    },
    /// The result of a call started with
    /// [`crate::Engine::start_call`]; exactly one per call.
    CallResult {
        /// The call.
        call: CallId,
        /// The host's answer (tool failures are `Ok` with `is_error`), or why
        /// the call itself failed.
        result: Result<HostToolResult, CallToolError>,
    },
    /// The host asked to shut down (or stdin closed): every running job was
    /// cancelled; handlers have a short grace to send their last frames.
    Shutdown,
    /// The session is over; stop pulling. `error` says why when it was not a
    /// normal end (handshake failure, broken transport).
    Finished {
        /// Why the session failed, if it did.
        error: Option<String>,
    },
}

/// How a dispatcher runs a job's handler: the engine decides (SDK-35), so
/// that no dispatcher keeps its own list of what runs in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    /// Alongside the other jobs of this lane (commands, tools,
    /// interceptors).
    Concurrent,
    /// In the order received, one at a time, after the previous job of this
    /// lane was answered (events and panel input).
    Serial,
}

impl Lane {
    /// Every lane.
    pub const ALL: [Lane; 2] = [Lane::Concurrent, Lane::Serial];

    /// The lane's name in the contract.
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Concurrent => "concurrent",
            Lane::Serial => "serial",
        }
    }
}

impl Job {
    /// The lane of a job that runs a handler; `None` for the others
    /// (`Hello`, `Cancel`, `CallResult`, `Shutdown`, `Finished`).
    pub fn lane(&self) -> Option<Lane> {
        match self {
            Job::Command(_) | Job::Tool(_) | Job::Intercept(_) => Some(Lane::Concurrent),
            Job::Event { .. }
            | Job::PanelKey { .. }
            | Job::PanelClose { .. }
            | Job::PanelResize { .. } => Some(Lane::Serial),
            Job::Hello(_)
            | Job::Cancel { .. }
            | Job::CallResult { .. }
            | Job::Shutdown
            | Job::Finished { .. } => None,
        }
    }
}

/// The queue between the engine (producer) and a dispatcher (consumer).
pub(crate) struct JobQueue {
    state: Mutex<QueueState>,
    notify: Notify,
    /// Worker threads wait on it for the lane's work (`workers.rs`).
    work_ready: Condvar,
    /// Signalled when the lane has nothing queued or running.
    work_idle: Condvar,
    /// Answers a job withdrawn from the worker lane.
    withdrawn: OnceLock<Box<dyn Fn(JobId) + Send + Sync>>,
    /// The serial jobs out (see `serial_order`), counted without the lock.
    serial: SerialCount,
}

/// How a consumer that does not await the queue learns that jobs wait: a
/// readable descriptor (asyncio's `add_reader`) or a call (Node's
/// thread-safe function). Woken once per batch: again only after the next
/// take.
enum Waker {
    #[cfg(unix)]
    Pipe(WakePipe),
    Call(Box<dyn Fn() + Send + Sync>),
}

impl Waker {
    fn wake(&self) {
        match self {
            #[cfg(unix)]
            Self::Pipe(p) => p.signal(),
            Self::Call(f) => f(),
        }
    }

    fn drain(&self) {
        #[cfg(unix)]
        if let Self::Pipe(p) = self {
            p.drain();
        }
    }
}

#[derive(Default)]
struct QueueState {
    jobs: VecDeque<Job>,
    /// `Finished` was handed out: later pulls return empty batches at once.
    done: bool,
    /// `Finished` was queued: nothing may be queued after it.
    sealed: bool,
    waker: Option<Arc<Waker>>,
    /// The waker was woken and nothing was taken since.
    signaled: bool,
    /// `Hello` was handed out and `hello_done` not called yet: the rest
    /// waits.
    held: bool,
    /// The jobs that worker threads take (`workers.rs`).
    lane: WorkerLane,
    /// The order of serial jobs between the queue and the worker lane.
    order: SerialOrder,
    /// Threads in `wait_workers_idle`.
    idle_waiters: usize,
}

impl QueueState {
    /// The waker to wake now that jobs wait, unless it already was.
    fn waker_due(&mut self) -> Option<Arc<Waker>> {
        if self.signaled || self.held || self.jobs.is_empty() {
            return None;
        }
        let waker = self.waker.clone()?;
        self.signaled = true;
        Some(waker)
    }

    /// Hands a serial job out to its place (see `serial_order`).
    #[inline]
    fn hand_out(&mut self, job: Job, place: Place) {
        match place {
            Place::Loop => self.jobs.push_back(job),
            Place::Workers => self.lane.push_event(job),
        }
    }

    /// Queues a serial job, or keeps it until the ones before it are
    /// completed (see `serial_order`).
    fn push_serial(&mut self, count: &SerialCount, job: Job, routed: bool) {
        let place = if routed && self.lane.takes_event(&job) {
            Place::Workers
        } else {
            Place::Loop
        };
        if self.order.admits(count, place, self.lane.run_open()) {
            self.hand_out(job, place);
        } else {
            self.order.hold(count, job, place);
            self.release_serial(count);
        }
    }

    /// Hands out the serial jobs that may go now, in order.
    fn release_serial(&mut self, count: &SerialCount) {
        loop {
            let run_open = self.lane.run_open();
            let Some((job, place)) = self.order.release(count, run_open) else {
                break;
            };
            self.hand_out(job, place);
        }
    }
}

impl JobQueue {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::new(QueueState::default()),
            notify: Notify::new(),
            work_ready: Condvar::new(),
            work_idle: Condvar::new(),
            withdrawn: OnceLock::new(),
            serial: SerialCount::default(),
        }
    }

    /// Queues jobs (in order) and wakes the consumer once; the jobs of
    /// handlers routed to worker threads go to the worker lane instead. A
    /// cancel whose job still waits in the queue is folded into it (see
    /// [`Job`]), as into one a worker thread is about to take from the
    /// worker lane; one whose job waits there for a busy thread takes it
    /// out, and the job is answered at once as cancelled, never started
    /// (see [`JobQueue::on_withdrawn`]).
    pub(crate) fn push_all(&self, jobs: impl IntoIterator<Item = Job>) {
        let mut withdrawn = Vec::new();
        let mut st = lock(&self.state);
        if st.sealed {
            return;
        }
        let before = st.jobs.len();
        let routed = st.lane.is_routed();
        for job in jobs {
            match job {
                Job::Finished { .. } => {
                    st.sealed = true;
                    st.lane.close();
                    st.order.clear(&self.serial);
                    self.work_ready.notify_all();
                    self.work_idle.notify_all();
                    st.jobs.push_back(job);
                    break;
                }
                Job::Cancel { id } if fold_cancel(&mut st.jobs, id) => {}
                Job::Cancel { id } => match st.lane.cancel(id) {
                    Some(true) => withdrawn.push(id),
                    Some(false) => {}
                    None => st.jobs.push_back(job),
                },
                job if job.lane() == Some(Lane::Serial) => {
                    st.push_serial(&self.serial, job, routed)
                }
                job => match routed.then(|| st.lane.takes(&job)).flatten() {
                    Some(urgent) => st.lane.push_job(job, urgent),
                    None => st.jobs.push_back(job),
                },
            }
        }
        self.wake_workers(&mut st);
        if !withdrawn.is_empty() {
            self.note_idle(&st);
        }
        if st.jobs.len() != before {
            self.wake(st);
        } else {
            drop(st);
        }
        if let Some(answer) = self.withdrawn.get() {
            withdrawn.into_iter().for_each(answer);
        }
    }

    /// `n` serial jobs were completed: the ones waiting for them are handed
    /// out (see `serial_order`).
    pub(crate) fn serial_completed(&self, n: usize) {
        if !self.serial.completed(n) {
            return;
        }
        let mut st = lock(&self.state);
        if st.sealed {
            return;
        }
        let before = st.jobs.len();
        st.release_serial(&self.serial);
        self.wake_workers(&mut st);
        if st.jobs.len() != before {
            self.wake(st);
        }
    }

    /// Sets how a job taken out of the worker lane by its cancellation is
    /// answered (the engine completes it as failed: `cancelled`).
    pub(crate) fn on_withdrawn(&self, answer: Box<dyn Fn(JobId) + Send + Sync>) {
        let _ = self.withdrawn.set(answer);
    }

    /// Wakes a waiting worker thread if there is work for it (see
    /// `WorkerLane::promise`).
    fn wake_workers(&self, st: &mut QueueState) {
        for _ in 0..st.lane.promise() {
            self.work_ready.notify_one();
        }
    }

    /// After work finished or was taken out: tells `wait_workers_idle` when
    /// nothing is left (a system call, so only then).
    fn note_idle(&self, st: &QueueState) {
        if st.idle_waiters > 0 && st.lane.idle() {
            self.work_idle.notify_all();
        }
    }

    /// Routes (or stops routing) a handler's jobs to the worker lane.
    pub(crate) fn route_to_workers(&self, kind: Routed, name: &str, on: bool) {
        lock(&self.state).lane.route(kind, name, on);
    }

    /// Sets the lane's bound; how many threads to start now (one, the
    /// first time).
    pub(crate) fn start_workers(&self, max: usize) -> usize {
        lock(&self.state).lane.start(max)
    }

    /// Queues a binding's own work for a worker thread; `true`: start a
    /// thread for it.
    pub(crate) fn queue_task(&self, key: u64) -> bool {
        let mut st = lock(&self.state);
        if st.lane.is_closed() {
            return false;
        }
        let spawn = st.lane.push_task(key);
        self.wake_workers(&mut st);
        spawn
    }

    /// What a worker thread does next without waiting: `None` when there
    /// is nothing to take yet (then wait with `take_work`, `finished`
    /// unset). `finished`: it ran work since its last call.
    pub(crate) fn try_take_work(&self, finished: bool) -> Option<Taken> {
        self.next_work(&mut lock(&self.state), finished)
    }

    /// The lane's next step for a thread; then whoever else is due: the
    /// idle waiters, the next waiting thread for work still queued.
    fn next_work(&self, st: &mut QueueState, finished: bool) -> Option<Taken> {
        let next = st.lane.next(finished);
        if finished {
            self.note_idle(st);
        }
        self.wake_workers(st);
        next
    }

    /// A worker thread's wait for work (see `workers.rs`); `finished`: it
    /// ran work since its last call.
    pub(crate) fn take_work(&self, idle_timeout: Duration, finished: bool) -> Taken {
        let mut st = lock(&self.state);
        let mut finished = finished;
        loop {
            if let Some(taken) = self.next_work(&mut st, finished) {
                return taken;
            }
            finished = false;
            st.lane.waiting += 1;
            match self.wait_for_work(st, idle_timeout) {
                (_, Some(taken)) => return taken,
                (again, None) => st = again,
            }
        }
    }

    /// Waits until promised work, the end, or the idle timeout (then the
    /// thread exits unless it is the last one waiting).
    fn wait_for_work<'a>(
        &'a self,
        mut st: MutexGuard<'a, QueueState>,
        idle_timeout: Duration,
    ) -> (MutexGuard<'a, QueueState>, Option<Taken>) {
        let mut deadline = Instant::now() + idle_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (again, wait) = self
                .work_ready
                .wait_timeout(st, left)
                .unwrap_or_else(PoisonError::into_inner);
            st = again;
            if st.lane.woken() {
                return (st, None);
            }
            if st.lane.is_closed() {
                st.lane.waiting -= 1;
                return (st, None);
            }
            if wait.timed_out() {
                if st.lane.timed_out() {
                    return (st, Some(Taken::Exit));
                }
                deadline = Instant::now() + idle_timeout;
            }
        }
    }

    /// A worker thread waits for a `call_tool`: it stops counting; `true`:
    /// start a thread in its place.
    pub(crate) fn lend_worker(&self) -> bool {
        let mut st = lock(&self.state);
        let spawn = st.lane.lend();
        self.wake_workers(&mut st);
        spawn
    }

    /// The thread's `call_tool` is over: it counts again.
    pub(crate) fn return_worker(&self) {
        lock(&self.state).lane.unlend();
    }

    /// Waits (at most `timeout`) until no worker runs or waits for work;
    /// whether it got there.
    pub(crate) fn wait_workers_idle(&self, timeout: Duration) -> bool {
        let mut st = lock(&self.state);
        st.idle_waiters += 1;
        let (mut st, _) = self
            .work_idle
            .wait_timeout_while(st, timeout, |st| !st.lane.idle())
            .unwrap_or_else(PoisonError::into_inner);
        st.idle_waiters -= 1;
        st.lane.idle()
    }

    /// Wakes the consumer (at most once per batch), releasing the lock
    /// first: the queue is not held while another thread (the consumer's)
    /// is being signalled.
    fn wake(&self, mut st: std::sync::MutexGuard<'_, QueueState>) {
        let waker = st.waker_due();
        let sealed = st.sealed;
        let held = st.held;
        drop(st);
        if held {
            return;
        }
        if let Some(w) = waker {
            w.wake();
        }
        // One consumer pulls at a time: a stored permit is enough and cheaper
        // than waking every registered waiter. The end wakes everyone.
        if sealed {
            self.notify.notify_waiters();
        }
        self.notify.notify_one();
    }

    /// Hands out what waited behind `Hello` (the on-hello hook is done).
    pub(crate) fn release_after_hello(&self) {
        let mut st = lock(&self.state);
        if !st.held {
            return;
        }
        st.held = false;
        if !st.jobs.is_empty() || st.sealed {
            self.wake(st);
        }
    }

    pub(crate) fn push(&self, job: Job) {
        self.push_all([job]);
    }

    /// Takes everything queued. `None` when nothing is queued and the
    /// session is not over.
    pub(crate) fn try_take(&self) -> Option<Vec<Job>> {
        let mut st = lock(&self.state);
        if st.signaled {
            if let Some(w) = &st.waker {
                w.drain();
            }
            st.signaled = false;
        }
        if st.held {
            return None;
        }
        if let Some(Job::Hello(_)) = st.jobs.front() {
            // Alone: what follows waits for `hello_done`.
            st.held = true;
            return st.jobs.pop_front().map(|hello| vec![hello]);
        }
        if !st.jobs.is_empty() {
            // Drained, not taken: the queue keeps its capacity.
            let jobs: Vec<Job> = st.jobs.drain(..).collect();
            if matches!(jobs.last(), Some(Job::Finished { .. })) {
                st.done = true;
            }
            return Some(jobs);
        }
        st.done.then(Vec::new)
    }

    /// Waits for the next batch (see [`crate::Engine::next_jobs`]).
    pub(crate) async fn next(&self) -> Vec<Job> {
        loop {
            if let Some(jobs) = self.try_take() {
                return jobs;
            }
            // A push after `try_take` leaves a permit: no wake-up is lost.
            self.notify.notified().await;
        }
    }

    /// Completes once jobs are queued or the session is over (take them
    /// with [`JobQueue::try_take`]).
    pub(crate) async fn ready(&self) {
        loop {
            {
                let st = lock(&self.state);
                if (!st.jobs.is_empty() && !st.held) || st.done {
                    return;
                }
            }
            self.notify.notified().await;
        }
    }

    /// Calls `wake` (from the thread that queues) whenever jobs wait and it
    /// was not called since the last take; `None` stops the calls. Replaces
    /// the wake-up descriptor, if any.
    pub(crate) fn on_jobs(&self, wake: Option<Box<dyn Fn() + Send + Sync>>) {
        let mut st = lock(&self.state);
        st.waker = wake.map(|f| Arc::new(Waker::Call(f)));
        st.signaled = false;
        let waker = st.waker_due();
        drop(st);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// The read end of the wake-up pipe, created on first use.
    #[cfg(unix)]
    pub(crate) fn wake_fd(&self) -> std::io::Result<std::os::fd::RawFd> {
        let mut st = lock(&self.state);
        let fd = match st.waker.as_deref() {
            Some(Waker::Pipe(p)) => p.read_fd(),
            _ => {
                let pipe = WakePipe::new()?;
                let fd = pipe.read_fd();
                st.waker = Some(Arc::new(Waker::Pipe(pipe)));
                st.signaled = false;
                if let Some(w) = st.waker_due() {
                    w.wake();
                }
                fd
            }
        };
        Ok(fd)
    }
}

/// Marks the queued job `id` cancelled; false when it is not queued (it was
/// handed out already, or it has no handler to stop).
fn fold_cancel(queued: &mut VecDeque<Job>, id: JobId) -> bool {
    // A cancel follows its job closely: look from the newest.
    let flag = queued.iter_mut().rev().find_map(|job| match job {
        Job::Command(c) if c.id == id => Some(&mut c.cancelled),
        Job::Tool(t) if t.id == id => Some(&mut t.cancelled),
        Job::Intercept(i) if i.id == id => Some(&mut i.cancelled),
        _ => None,
    });
    match flag {
        Some(flag) => {
            *flag = true;
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn finished() -> Job {
        Job::Finished { error: None }
    }

    fn counting(queue: &JobQueue) -> Arc<AtomicUsize> {
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        queue.on_jobs(Some(Box::new(move || {
            c.fetch_add(1, Ordering::SeqCst);
        })));
        calls
    }

    /// One call per batch: queuing more before the take does not call
    /// again, the take re-arms it.
    #[test]
    fn the_waker_is_called_once_per_batch() {
        let queue = JobQueue::new();
        let calls = counting(&queue);
        assert_eq!(
            calls.load(Ordering::SeqCst),
            0,
            "called with nothing queued"
        );
        queue.push(Job::Cancel { id: JobId(1) });
        queue.push(Job::Cancel { id: JobId(2) });
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(queue.try_take().map(|j| j.len()), Some(2));
        queue.push(finished());
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    /// Jobs queued before the waker was set are announced at once; after
    /// `None`, nothing is called.
    #[test]
    fn the_waker_learns_of_jobs_already_queued_and_can_be_stopped() {
        let queue = JobQueue::new();
        queue.push(Job::Cancel { id: JobId(1) });
        let calls = counting(&queue);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        queue.on_jobs(None);
        queue.try_take();
        queue.push(Job::Cancel { id: JobId(2) });
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
