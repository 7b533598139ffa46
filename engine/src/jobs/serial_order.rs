//! The serial lane's order when its jobs go to two places.
//!
//! Events and panel input are handled in arrival order, one at a time
//! (SDK-35). A binding that runs some event handlers on threads of its own
//! (Python's plain `def` ones: [`crate::jobs::workers`]) and every other handler
//! on its event loop sends each such job to its handler's place, and the
//! order between the two places is kept here: a job is handed out only
//! while every serial job handed out before it and not completed yet is at
//! the same place and can still be ordered there. The loop orders what it
//! holds; the worker lane takes a run of events in one piece, so a job for
//! the workers joins the run only while no thread has taken it. Otherwise
//! the job waits here, and every serial job behind it too, until those are
//! completed.
//!
//! Every SDK completes its serial jobs (the read-ahead bound counts on it
//! as well), so only a binding that routes events to its workers ever
//! waits here. The count of jobs handed out is kept outside the job queue's
//! lock ([`SerialCount`]): completing a job takes the lock only when it
//! was the last one out and jobs wait.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};

use crate::jobs::Job;

/// Where a serial job's handler runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Place {
    /// The binding's event loop, through the job queue.
    #[default]
    Loop,
    /// A worker thread, as part of a run of events.
    Workers,
}

/// The serial jobs handed out and not completed yet, and whether any wait:
/// read and changed without the queue's lock.
#[derive(Default)]
pub(crate) struct SerialCount {
    out: AtomicUsize,
    waiting: AtomicBool,
}

impl SerialCount {
    /// `n` jobs handed out were completed: whether jobs wait that may now
    /// be handed out (then release them under the queue's lock).
    ///
    /// A job is held under the lock before `waiting` is set, and the holder
    /// looks at the count again after setting it, so of a completion that
    /// brings the count to 0 and a job held meanwhile, one sees the other.
    pub(crate) fn completed(&self, n: usize) -> bool {
        self.out.fetch_sub(n, SeqCst) == n && self.waiting.load(SeqCst)
    }
}

/// Where the jobs handed out are, and the jobs waiting for them (under the
/// job queue's lock).
#[derive(Default)]
pub(crate) struct SerialOrder {
    /// Where the jobs handed out are.
    at: Place,
    /// Jobs waiting for those, in arrival order, each with its place.
    held: VecDeque<(Job, Place)>,
}

impl SerialOrder {
    /// Whether a job for `place` could join those handed out;
    /// `run_open`: the worker lane's run can take one more.
    fn fits(&self, count: &SerialCount, place: Place, run_open: bool) -> bool {
        count.out.load(SeqCst) == 0 || (self.at == place && (place == Place::Loop || run_open))
    }

    /// Whether a new job for `place` goes out now (then it is counted);
    /// else [`SerialOrder::hold`] it. `run_open`: the worker lane's run can
    /// take one more. (The job itself is not passed: moving it through
    /// here would cost more than the decision.)
    pub(crate) fn admits(&mut self, count: &SerialCount, place: Place, run_open: bool) -> bool {
        if self.held.is_empty() && self.fits(count, place, run_open) {
            self.hand_out(count, place);
            return true;
        }
        false
    }

    /// Keeps a job until the jobs before it are completed. Then
    /// [`SerialOrder::release`] what may go: the last job out may have been
    /// completed just before `waiting` was set.
    pub(crate) fn hold(&mut self, count: &SerialCount, job: Job, place: Place) {
        self.held.push_back((job, place));
        count.waiting.store(true, SeqCst);
    }

    fn hand_out(&mut self, count: &SerialCount, place: Place) {
        count.out.fetch_add(1, SeqCst);
        self.at = place;
    }

    /// The next waiting job that may be handed out now (counted), if any;
    /// `run_open` as for [`SerialOrder::admits`].
    pub(crate) fn release(&mut self, count: &SerialCount, run_open: bool) -> Option<(Job, Place)> {
        let &(_, place) = self.held.front()?;
        if !self.fits(count, place, run_open) {
            return None;
        }
        self.hand_out(count, place);
        let next = self.held.pop_front();
        if self.held.is_empty() {
            count.waiting.store(false, SeqCst);
        }
        next
    }

    /// The session is over: what waits is dropped (the engine answered it).
    pub(crate) fn clear(&mut self, count: &SerialCount) {
        self.held.clear();
        count.waiting.store(false, SeqCst);
        count.out.store(0, SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::JobId;

    fn panel(id: u64) -> Job {
        Job::PanelClose {
            id: JobId(id),
            panel_id: "p".into(),
            registration: 1,
        }
    }

    /// Admits job `id`, or holds it: whether it went out.
    fn admit_or_hold(
        order: &mut SerialOrder,
        count: &SerialCount,
        id: u64,
        place: Place,
        run_open: bool,
    ) -> bool {
        if order.admits(count, place, run_open) {
            return true;
        }
        order.hold(count, panel(id), place);
        false
    }

    fn id(job: &Job) -> u64 {
        match job {
            Job::PanelClose { id, .. } => id.0,
            _ => unreachable!(),
        }
    }

    #[test]
    fn jobs_for_one_place_are_handed_out_as_they_come() {
        let (mut order, count) = (SerialOrder::default(), SerialCount::default());
        assert!(order.admits(&count, Place::Loop, false));
        assert!(order.admits(&count, Place::Loop, false));
        assert!(order.admits(&count, Place::Loop, true));
        assert!(!count.completed(2), "one is still out");
        assert!(!count.completed(1), "the last one out, but none waits");
    }

    #[test]
    fn a_job_for_the_other_place_waits_for_those_before_it_and_keeps_the_rest_behind() {
        let (mut order, count) = (SerialOrder::default(), SerialCount::default());
        assert!(admit_or_hold(&mut order, &count, 1, Place::Workers, true));
        assert!(!admit_or_hold(&mut order, &count, 2, Place::Loop, true));
        // For the workers like the first, but behind a waiting job.
        assert!(!admit_or_hold(&mut order, &count, 3, Place::Workers, true));
        assert!(order.release(&count, true).is_none());
        assert!(count.completed(1), "jobs wait for the one completed");
        let (job, place) = order.release(&count, true).unwrap();
        assert_eq!((id(&job), place), (2, Place::Loop));
        assert!(order.release(&count, true).is_none());
        assert!(count.completed(1));
        let (job, place) = order.release(&count, true).unwrap();
        assert_eq!((id(&job), place), (3, Place::Workers));
        assert!(!count.completed(1), "none waits any more");
    }

    #[test]
    fn a_job_for_the_workers_waits_once_their_run_was_taken() {
        let (mut order, count) = (SerialOrder::default(), SerialCount::default());
        assert!(admit_or_hold(&mut order, &count, 1, Place::Workers, true));
        assert!(admit_or_hold(&mut order, &count, 2, Place::Workers, true));
        // A thread took the run: the next one starts after it.
        assert!(!admit_or_hold(&mut order, &count, 3, Place::Workers, false));
        assert!(count.completed(2));
        let (job, _) = order.release(&count, false).unwrap();
        assert_eq!(id(&job), 3);
    }

    #[test]
    fn a_job_held_after_the_last_one_out_was_completed_can_go_at_once() {
        // The completion came between the decision to hold and `waiting`:
        // it did not see the job, and the release after holding it does.
        let (mut order, count) = (SerialOrder::default(), SerialCount::default());
        assert!(admit_or_hold(&mut order, &count, 1, Place::Workers, true));
        assert!(!order.admits(&count, Place::Loop, true));
        assert!(!count.completed(1), "nothing waits yet");
        order.hold(&count, panel(2), Place::Loop);
        assert_eq!(order.release(&count, true).map(|(j, _)| id(&j)), Some(2));
    }
}
