//! The serial lane's order when its jobs go to two places.
//!
//! Events and panel input are handled in arrival order, one at a time
//! (SDK-35). A binding that runs some event handlers on threads of its own
//! (Python's plain `def` ones: [`crate::workers`]) and every other handler
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
//! waits here; for the others this is one count per job.

use std::collections::VecDeque;

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

/// The serial jobs handed out and not completed yet, and those waiting.
#[derive(Default)]
pub(crate) struct SerialOrder {
    /// Where the jobs handed out are.
    at: Place,
    /// How many were handed out and are not completed yet.
    out: usize,
    /// Jobs waiting for those, in arrival order, each with its place.
    held: VecDeque<(Job, Place)>,
}

impl SerialOrder {
    /// Whether a job for `place` could join those handed out;
    /// `run_open`: the worker lane's run can take one more.
    fn fits(&self, place: Place, run_open: bool) -> bool {
        self.out == 0 || (self.at == place && (place == Place::Loop || run_open))
    }

    /// A new job for `place`: handed back to be handed out now (counted),
    /// or kept until the jobs before it are completed.
    pub(crate) fn admit(&mut self, job: Job, place: Place, run_open: bool) -> Option<Job> {
        if !self.held.is_empty() || !self.fits(place, run_open) {
            self.held.push_back((job, place));
            return None;
        }
        self.hand_out(place);
        Some(job)
    }

    fn hand_out(&mut self, place: Place) {
        self.out += 1;
        self.at = place;
    }

    /// `n` jobs handed out were completed.
    pub(crate) fn completed(&mut self, n: usize) {
        self.out = self.out.saturating_sub(n);
    }

    /// The next waiting job that may be handed out now (counted), if any;
    /// `run_open` as for [`SerialOrder::admit`].
    pub(crate) fn release(&mut self, run_open: bool) -> Option<(Job, Place)> {
        let &(_, place) = self.held.front()?;
        if !self.fits(place, run_open) {
            return None;
        }
        self.hand_out(place);
        self.held.pop_front()
    }

    /// Whether jobs wait here.
    pub(crate) fn holds(&self) -> bool {
        !self.held.is_empty()
    }

    /// The session is over: what waits is dropped (the engine answered it).
    pub(crate) fn clear(&mut self) {
        self.held.clear();
        self.out = 0;
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

    fn id(job: &Job) -> u64 {
        match job {
            Job::PanelClose { id, .. } => id.0,
            _ => unreachable!(),
        }
    }

    #[test]
    fn jobs_for_one_place_are_handed_out_as_they_come() {
        let mut order = SerialOrder::default();
        assert!(order.admit(panel(1), Place::Loop, false).is_some());
        assert!(order.admit(panel(2), Place::Loop, false).is_some());
        assert!(order.admit(panel(3), Place::Loop, true).is_some());
    }

    #[test]
    fn a_job_for_the_other_place_waits_for_those_before_it_and_keeps_the_rest_behind() {
        let mut order = SerialOrder::default();
        assert!(order.admit(panel(1), Place::Workers, true).is_some());
        assert!(order.admit(panel(2), Place::Loop, true).is_none());
        // For the workers like the first, but behind a waiting job.
        assert!(order.admit(panel(3), Place::Workers, true).is_none());
        assert!(order.release(true).is_none());
        order.completed(1);
        let (job, place) = order.release(true).unwrap();
        assert_eq!((id(&job), place), (2, Place::Loop));
        assert!(order.release(true).is_none());
        order.completed(1);
        let (job, place) = order.release(true).unwrap();
        assert_eq!((id(&job), place), (3, Place::Workers));
        assert!(!order.holds());
    }

    #[test]
    fn a_job_for_the_workers_waits_once_their_run_was_taken() {
        let mut order = SerialOrder::default();
        assert!(order.admit(panel(1), Place::Workers, true).is_some());
        assert!(order.admit(panel(2), Place::Workers, true).is_some());
        // A thread took the run: the next one starts after it.
        assert!(order.admit(panel(3), Place::Workers, false).is_none());
        order.completed(2);
        let (job, _) = order.release(false).unwrap();
        assert_eq!(id(&job), 3);
    }
}
