//! Deadlines on a peer (an extension, the model server), counted while the
//! host runs.
//!
//! A deadline that passes while the host itself is not running (stopped by
//! Ctrl-Z or SIGSTOP, or starved of CPU) would otherwise expire the moment
//! the host resumes, before it has read the answer the peer sent meanwhile,
//! and the peer would be blamed for the host's absence: a reply counted as
//! timed out, an extension disconnected for a write that had completed. So a
//! timer that fires more than [`LATE`] after its time moves on by as long as
//! it was late (at most its own length) before it counts as passed: the
//! host gets to read what arrived while it was away.

use std::future::IntoFuture;
use std::time::Duration;

use tokio::time::Instant;

/// How late a timer may fire and still count: later than this, the host was
/// not running when the deadline passed.
pub(crate) const LATE: Duration = Duration::from_millis(200);

/// A deadline did pass while the host was running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Elapsed;

/// A point in time `span` after a start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: Instant,
    span: Duration,
}

impl Deadline {
    /// `span` from now.
    pub(crate) fn after(span: Duration) -> Self {
        Self::at(Instant::now() + span, span)
    }

    /// At `at`, for a wait `span` long (the most it moves on by).
    pub(crate) fn at(at: Instant, span: Duration) -> Self {
        Self { at, span }
    }

    /// What is left of it.
    pub(crate) fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// Resolves once the deadline has passed while the host was running.
    /// Cancel-safe: polled again (in a `select!` loop), it keeps the time
    /// it moved on to.
    pub(crate) async fn passed(&mut self) {
        loop {
            tokio::time::sleep_until(self.at).await;
            let now = Instant::now();
            let late = now.saturating_duration_since(self.at);
            if late <= LATE {
                return;
            }
            self.at = now + late.min(self.span);
        }
    }

    /// `fut`'s output, or [`Elapsed`] once the deadline has passed (where
    /// it moved on to is kept for the next wait on it).
    pub(crate) async fn on<F: IntoFuture>(&mut self, fut: F) -> Result<F::Output, Elapsed> {
        let fut = fut.into_future();
        tokio::pin!(fut);
        tokio::select! {
            biased;
            v = &mut fut => Ok(v),
            () = self.passed() => Err(Elapsed),
        }
    }
}

/// `fut`'s output, or [`Elapsed`] once `span` has passed while the host ran.
pub(crate) async fn timeout<F: IntoFuture>(span: Duration, fut: F) -> Result<F::Output, Elapsed> {
    Deadline::after(span).on(fut).await
}

/// Sleeps until `deadline` (if any) has passed; never returns for `None`.
pub(crate) async fn passed(deadline: Option<&mut Deadline>) {
    match deadline {
        Some(d) => d.passed().await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::{advance, sleep};

    const SPAN: Duration = Duration::from_millis(100);
    /// The host stopped while a wait runs: the clock moves on, nothing runs.
    const AWAY: Duration = Duration::from_millis(600);

    #[tokio::test(start_paused = true)]
    async fn a_reply_read_just_after_the_host_resumes_counts() {
        let reply = async {
            advance(AWAY).await;
            // The reply sat in the pipe; the reader takes a moment to run.
            sleep(Duration::from_millis(20)).await;
            "reply"
        };
        assert_eq!(timeout(SPAN, reply).await, Ok("reply"));
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_peer_still_times_out_after_the_host_resumes() {
        let start = Instant::now();
        let silent = async {
            advance(AWAY).await;
            std::future::pending::<()>().await
        };
        assert_eq!(timeout(SPAN, silent).await, Err(Elapsed));
        // Moved on once, by at most its own length.
        assert_eq!(Instant::now() - start, AWAY + SPAN);
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_on_time_passes_on_time() {
        let start = Instant::now();
        let silent = std::future::pending::<()>();
        assert_eq!(timeout(SPAN, silent).await, Err(Elapsed));
        assert_eq!(Instant::now() - start, SPAN);
    }

    #[tokio::test(start_paused = true)]
    async fn in_a_select_loop_the_deadline_keeps_where_it_moved_to() {
        let start = Instant::now();
        let mut d = Deadline::after(SPAN);
        advance(AWAY).await;
        let mut wakes = 0;
        loop {
            tokio::select! {
                () = d.passed() => break,
                () = sleep(Duration::from_millis(30)) => wakes += 1,
            }
        }
        assert_eq!(wakes, 3, "woken at +30, +60 and +90 ms");
        assert_eq!(Instant::now() - start, AWAY + SPAN);
    }
}
