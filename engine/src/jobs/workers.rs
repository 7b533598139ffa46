//! The worker lane: the jobs of handlers that a binding runs on threads of
//! its own (Python's plain `def` handlers), handed by the engine's reader
//! straight to a thread that waits here, so that such a call does not pass
//! through the binding's event loop first (one thread wake-up per call, not
//! two).
//!
//! The engine keeps the pool's rules; the binding only starts a thread when
//! told to, and runs what each thread takes:
//!
//! - Which handlers' jobs come here: the binding routes them by name
//!   ([`crate::Engine::route_to_workers`]); every other job goes to the
//!   job queue as before. Events come as runs: the events queued one after
//!   another go to one thread together, to be handled in order, and the
//!   next run (or serial job for the loop) waits until they are completed
//!   ([`crate::jobs::serial_order`]).
//! - At most `max` threads count at once. A thread that takes work while no
//!   other thread waits is told to start one more (while under the bound),
//!   so a job that arrives finds a waiting thread, or the pool is full.
//! - Interceptions go first: the host stops waiting for them after 5 s.
//! - A job cancelled while it waits for a busy thread is taken out and
//!   answered at once, never started; one a free thread is about to take
//!   starts with its cancellation signalled, as any job cancelled before it
//!   was handed out.
//! - A thread blocked in a `call_tool` does not count meanwhile
//!   ([`crate::Engine::lend_worker`]): the tool it calls may be one of the
//!   same extension's, which must not queue behind its caller.
//! - A thread idle for the binding's timeout exits, except the last one
//!   waiting; every thread exits once the session is over.
//! - The binding may queue work of its own (a key it maps to a function,
//!   [`crate::Engine::queue_task`]): the same threads, the same bound.

use std::collections::VecDeque;

use crate::jobs::{Job, JobId};
use crate::runtime::fast_hash::FastSet;

/// Something for a worker thread to run.
#[derive(Debug)]
pub enum Work {
    /// A command, tool or interceptor job routed to the workers.
    Job(Job),
    /// Work the binding queued itself, by its key.
    Task(u64),
    /// A run of event jobs routed to the workers: handle them in order, one
    /// at a time, and complete each.
    Events(Vec<Job>),
}

/// The most events one run holds: their answers keep the read-ahead moving.
const MAX_RUN: usize = 256;

/// What [`crate::Engine::take_work`] returns.
#[derive(Debug)]
pub enum Taken {
    /// Run `work`; when `spawn` is set, start one more thread first (no
    /// other thread waits, and the pool may grow).
    Work {
        /// What to run.
        work: Work,
        /// Start one more thread.
        spawn: bool,
    },
    /// Nothing came within the timeout, or the session is over, or the pool
    /// is over its bound: the thread exits.
    Exit,
}

/// The lane's state; it lives under the job queue's lock.
#[derive(Default)]
pub(crate) struct WorkerLane {
    urgent: VecDeque<Work>,
    queued: VecDeque<Work>,
    /// The names whose jobs come here, by kind.
    commands: FastSet<String>,
    tools: FastSet<String>,
    intercepts: FastSet<String>,
    events: FastSet<String>,
    /// The events of the run queued and not taken yet (none: no such run).
    run_len: usize,
    /// Threads blocked in `take` that were not promised work.
    pub(crate) waiting: usize,
    /// Work promised to woken threads and not taken yet.
    promised: usize,
    /// Threads counted against the bound: running, waiting, or asked to
    /// start; not those lent out.
    alive: usize,
    /// Threads running work (lent ones included).
    busy: usize,
    /// Threads lent out: blocked in a `call_tool`, not counted.
    lent: usize,
    max: usize,
    closed: bool,
}

/// The kinds of handler a binding can route to the workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routed {
    /// A slash command.
    Command,
    /// A tool.
    Tool,
    /// An interceptor.
    Intercept,
    /// An event handler.
    Event,
}

impl Routed {
    /// `command`, `tool` or `intercept`.
    pub fn parse(kind: &str) -> Option<Self> {
        match kind {
            "command" => Some(Self::Command),
            "tool" => Some(Self::Tool),
            "intercept" => Some(Self::Intercept),
            "event" => Some(Self::Event),
            _ => None,
        }
    }
}

impl WorkerLane {
    pub(crate) fn route(&mut self, kind: Routed, name: &str, on: bool) {
        let set = match kind {
            Routed::Command => &mut self.commands,
            Routed::Tool => &mut self.tools,
            Routed::Intercept => &mut self.intercepts,
            Routed::Event => &mut self.events,
        };
        if on {
            set.insert(name.to_owned());
        } else {
            set.remove(name);
        }
    }

    /// Whether `job` is for a worker thread: `Some(urgent)` if so.
    pub(crate) fn takes(&self, job: &Job) -> Option<bool> {
        if self.closed {
            return None;
        }
        let (urgent, routed) = match job {
            Job::Command(c) => (false, self.commands.contains(&c.name)),
            Job::Tool(t) => (false, self.tools.contains(&t.name)),
            Job::Intercept(i) => (true, self.intercepts.contains(i.request.name())),
            _ => return None,
        };
        routed.then_some(urgent)
    }

    /// Queues a job [`WorkerLane::takes`].
    pub(crate) fn push_job(&mut self, job: Job, urgent: bool) {
        let work = Work::Job(job);
        if urgent {
            self.urgent.push_back(work);
        } else {
            self.queued.push_back(work);
        }
    }

    /// Whether any handler is routed here (none: nothing to look up).
    pub(crate) fn is_routed(&self) -> bool {
        !(self.commands.is_empty()
            && self.tools.is_empty()
            && self.intercepts.is_empty()
            && self.events.is_empty())
    }

    /// Whether a serial job is for the workers (an event routed here).
    pub(crate) fn takes_event(&self, job: &Job) -> bool {
        match job {
            Job::Event { event, .. } => !self.closed && self.events.contains(event.name()),
            _ => false,
        }
    }

    /// Whether the queued run of events can take one more.
    pub(crate) fn run_open(&self) -> bool {
        self.run_len > 0 && self.run_len < MAX_RUN
    }

    /// Adds an event job to the queued run, or queues a new run with it.
    pub(crate) fn push_event(&mut self, job: Job) {
        if self.run_len > 0 {
            let run = self.queued.iter_mut().rev().find_map(|w| match w {
                Work::Events(run) => Some(run),
                _ => None,
            });
            if let Some(run) = run {
                run.push(job);
                self.run_len += 1;
                return;
            }
        }
        self.queued.push_back(Work::Events(vec![job]));
        self.run_len = 1;
    }

    /// Queues `job` if it is for a worker thread, else hands it back.
    #[cfg(test)]
    fn divert(&mut self, job: Job) -> Option<Job> {
        match self.takes(&job) {
            Some(urgent) => {
                self.push_job(job, urgent);
                None
            }
            None => Some(job),
        }
    }

    /// Queues the binding's own work; `true`: start a thread for it.
    pub(crate) fn push_task(&mut self, key: u64) -> bool {
        if self.closed {
            return false;
        }
        self.queued.push_back(Work::Task(key));
        self.free() == 0 && self.grow()
    }

    /// Threads not running work: waiting, woken, or starting.
    fn free(&self) -> usize {
        (self.alive + self.lent).saturating_sub(self.busy)
    }

    /// A cancel for a job queued here: `None` when it is not here. A job a
    /// thread will take at once starts with its cancellation signalled, as
    /// any job cancelled before it was handed out (`Some(false)`); one
    /// that would wait for a busy thread is taken out, to be answered at
    /// once without starting (`Some(true)`).
    pub(crate) fn cancel(&mut self, id: JobId) -> Option<bool> {
        fn flag(w: &mut Work, id: JobId) -> Option<&mut bool> {
            match w {
                Work::Job(Job::Command(c)) if c.id == id => Some(&mut c.cancelled),
                Work::Job(Job::Tool(t)) if t.id == id => Some(&mut t.cancelled),
                Work::Job(Job::Intercept(i)) if i.id == id => Some(&mut i.cancelled),
                _ => None,
            }
        }
        let threads_now = self.free();
        let ahead = self.urgent.len();
        for (q, before) in [(&mut self.urgent, 0), (&mut self.queued, ahead)] {
            let Some(at) = q.iter_mut().rposition(|w| flag(w, id).is_some()) else {
                continue;
            };
            if before + at < threads_now {
                if let Some(cancelled) = flag(&mut q[at], id) {
                    *cancelled = true;
                }
                return Some(false);
            }
            q.remove(at);
            return Some(true);
        }
        None
    }

    /// How many waiting threads to wake (they are promised work): one when
    /// work waits and no woken thread is still on its way to take it. The
    /// woken thread wakes the next one as it takes its work (see
    /// `JobQueue::take_work`), so a burst wakes threads one after another
    /// rather than all at once to fight over one interpreter lock.
    pub(crate) fn promise(&mut self) -> usize {
        let queued = self.urgent.len() + self.queued.len();
        if self.promised > 0 || self.waiting == 0 || queued == 0 {
            return 0;
        }
        self.waiting -= 1;
        self.promised += 1;
        1
    }

    /// Counts one more thread if the bound allows it.
    fn grow(&mut self) -> bool {
        if self.alive >= self.max || self.closed {
            return false;
        }
        self.alive += 1;
        true
    }

    pub(crate) fn start(&mut self, max: usize) -> usize {
        self.max = max.max(1);
        if self.alive > 0 || self.closed {
            return 0;
        }
        self.alive = 1;
        1
    }

    /// A thread that finished its work (`finished`) comes back for more:
    /// what it does next, or `None` to wait.
    pub(crate) fn next(&mut self, finished: bool) -> Option<Taken> {
        if finished {
            self.busy -= 1;
        }
        if self.closed || self.alive > self.max {
            self.alive -= 1;
            return Some(Taken::Exit);
        }
        let work = self
            .urgent
            .pop_front()
            .or_else(|| self.queued.pop_front())?;
        if matches!(work, Work::Events(_)) {
            self.run_len = 0;
        }
        self.busy += 1;
        let spawn = self.free() == 0 && self.grow();
        Some(Taken::Work { work, spawn })
    }

    /// A waiting thread was woken: whether it was promised work (else the
    /// wake-up was spurious, or came from `close`).
    pub(crate) fn woken(&mut self) -> bool {
        if self.promised > 0 {
            self.promised -= 1;
            return true;
        }
        false
    }

    /// A waiting thread timed out without a promise: whether it exits
    /// (not the last one waiting) or waits on.
    pub(crate) fn timed_out(&mut self) -> bool {
        if self.waiting == 1 && !self.closed {
            return false;
        }
        self.waiting -= 1;
        self.alive -= 1;
        true
    }

    /// A thread stops counting while it waits for a `call_tool`; `true`:
    /// start one in its place (work is queued, or none waits).
    pub(crate) fn lend(&mut self) -> bool {
        self.alive -= 1;
        self.lent += 1;
        self.free() == 0 && self.grow()
    }

    pub(crate) fn unlend(&mut self) {
        self.lent -= 1;
        self.alive += 1;
    }

    pub(crate) fn idle(&self) -> bool {
        self.busy == 0 && self.urgent.is_empty() && self.queued.is_empty()
    }

    /// The session is over: queued work is dropped (the engine answered
    /// its jobs), every thread exits.
    pub(crate) fn close(&mut self) {
        self.closed = true;
        self.urgent.clear();
        self.queued.clear();
        self.run_len = 0;
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::{InterceptJob, ToolJob};
    use zot_protocol::RawJson;

    fn tool(id: u64, name: &str) -> Job {
        Job::Tool(ToolJob {
            id: JobId(id),
            invocation: format!("t{id}"),
            name: name.to_owned(),
            args: RawJson::from_string("{}".to_owned()).unwrap(),
            interactive: false,
            cancelled: false,
        })
    }

    fn lane(max: usize) -> WorkerLane {
        let mut lane = WorkerLane::default();
        lane.route(Routed::Tool, "slow", true);
        assert_eq!(lane.start(max), 1);
        lane
    }

    fn job_id(t: Option<Taken>) -> (u64, bool) {
        match t {
            Some(Taken::Work {
                work: Work::Job(Job::Tool(t)),
                spawn,
            }) => (t.id.0, spawn),
            other => panic!("expected a tool job, got {other:?}"),
        }
    }

    #[test]
    fn only_routed_jobs_are_diverted() {
        let mut lane = lane(4);
        assert!(lane.divert(tool(1, "fast")).is_some());
        assert!(lane.divert(tool(2, "slow")).is_none());
        lane.route(Routed::Tool, "slow", false);
        assert!(lane.divert(tool(3, "slow")).is_some());
    }

    /// A thread that takes work while none other waits starts one more,
    /// until the bound; past it, work waits for a thread that finishes.
    #[test]
    fn the_pool_grows_by_one_per_take_up_to_its_bound() {
        let mut lane = lane(2);
        for id in 1..=3 {
            assert!(lane.divert(tool(id, "slow")).is_none());
        }
        assert_eq!(job_id(lane.next(false)), (1, true));
        assert_eq!(job_id(lane.next(false)), (2, false), "the bound is 2");
        // Both busy; the third job waits for one of them.
        assert_eq!(job_id(lane.next(true)), (3, false));
        assert!(lane.next(true).is_none());
        assert!(!lane.idle(), "one thread still runs job 3");
        assert!(lane.next(true).is_none());
        assert!(lane.idle());
    }

    /// Waiting threads are woken one after another, each for one piece of
    /// work, never more than there is.
    #[test]
    fn each_piece_of_work_wakes_one_waiting_thread() {
        let mut lane = lane(4);
        lane.waiting = 3;
        assert!(lane.divert(tool(1, "slow")).is_none());
        assert!(lane.divert(tool(2, "slow")).is_none());
        assert_eq!(lane.promise(), 1);
        assert_eq!(lane.promise(), 0, "one on its way");
        assert!(lane.woken() && !lane.woken());
        assert_eq!(job_id(lane.next(false)).0, 1);
        assert_eq!(lane.promise(), 1, "the next one, for job 2");
        assert_eq!(lane.waiting, 1);
    }

    #[test]
    fn interceptions_go_first_and_cancelled_jobs_are_taken_out() {
        use zot_protocol::{Frame, HostFrame};
        let mut lane = lane(4);
        lane.route(Routed::Intercept, "tool_call", true);
        let line = r#"{"type":"event_intercept","id":"i","event":"tool_call","tool_name":"x","tool_args":{}}"#;
        let Ok(HostFrame::EventIntercept(request)) = HostFrame::decode_str(line) else {
            panic!("not an interception");
        };
        let intercept = Job::Intercept(Box::new(InterceptJob {
            id: JobId(9),
            request,
            cancelled: false,
        }));
        assert!(lane.divert(tool(1, "slow")).is_none());
        assert!(lane.divert(tool(2, "slow")).is_none());
        assert!(lane.divert(intercept).is_none());
        assert_eq!(lane.cancel(JobId(1)), Some(true), "no thread free");
        assert_eq!(lane.cancel(JobId(1)), None, "taken out once");
        assert!(matches!(
            lane.next(false),
            Some(Taken::Work { work: Work::Job(Job::Intercept(i)), .. }) if i.id == JobId(9)
        ));
        assert_eq!(job_id(lane.next(false)).0, 2);
    }

    /// The last waiting thread stays; a lent thread is replaced, and the
    /// pool shrinks back to its bound once it returns.
    #[test]
    fn idle_threads_exit_but_the_last_and_lent_ones_are_replaced() {
        let mut lane = lane(1);
        lane.waiting = 1;
        assert!(!lane.timed_out(), "the last waiting thread stays");
        lane.waiting = 0;
        assert!(lane.divert(tool(1, "slow")).is_none());
        assert_eq!(job_id(lane.next(false)), (1, false));
        assert!(lane.lend(), "a thread takes the lent one's place");
        lane.unlend();
        assert!(
            matches!(lane.next(true), Some(Taken::Exit)),
            "over the bound: exits"
        );
        assert!(lane.next(false).is_none(), "the other one waits");
    }

    /// A job a waiting thread will take starts with its cancellation
    /// signalled; behind busy threads it is taken out.
    #[test]
    fn a_cancelled_job_starts_cancelled_only_when_a_thread_is_free() {
        let mut lane = lane(4); // one thread, starting
        assert!(lane.divert(tool(1, "slow")).is_none());
        assert!(lane.divert(tool(2, "slow")).is_none());
        assert_eq!(lane.cancel(JobId(2)), Some(true), "second in line");
        lane.waiting = 1;
        assert_eq!(lane.cancel(JobId(1)), Some(false));
        assert_eq!(lane.promise(), 1);
        assert!(matches!(
            lane.next(false),
            Some(Taken::Work { work: Work::Job(Job::Tool(t)), .. }) if t.id == JobId(1) && t.cancelled
        ));
    }

    #[test]
    fn the_end_drops_queued_work_and_every_thread_exits() {
        let mut lane = lane(2);
        assert!(lane.divert(tool(1, "slow")).is_none());
        lane.close();
        assert!(lane.divert(tool(2, "slow")).is_some(), "closed: not taken");
        assert!(!lane.push_task(7), "no thread starts after the end");
        assert!(matches!(lane.next(false), Some(Taken::Exit)));
    }
}
