//! Stopping one extension process: its grace to exit, then SIGTERM, then
//! SIGKILL to its process group (HOST-170, HOST-171); always reaped, whatever it
//! left running killed (see [`crate::process::supervise`]). Shutdown stops
//! the loaded set through it, the disconnect path a process that lingers.

use std::time::Duration;

use crate::config::Timeouts;
use crate::process::spawn::ExtLog;
use crate::process::supervise::{Supervised, SIGKILL, SIGTERM};

/// How one extension process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ending {
    /// Manifest name.
    pub ext: String,
    /// `exit status N` or `signal: ...`.
    pub status: String,
    /// `SIGTERM` / `SIGKILL` when the grace ran out and the host had to
    /// signal it; `None` when it exited by itself in time.
    pub escalated: Option<&'static str>,
}

/// Waits for the process to exit within `grace` (at least the minimum exit
/// wait; cut short by `hurry`), then SIGTERM, then SIGKILL, to its group;
/// always reaped, its leftovers killed. Returns how it ended (`None` only if
/// the exit status could not be read).
pub async fn stop_process(
    name: &str,
    log: &ExtLog,
    child: &Supervised,
    t: &Timeouts,
    grace: Duration,
    hurry: &tokio_util::sync::CancellationToken,
) -> Option<Ending> {
    let ended = |status: std::process::ExitStatus, escalated| {
        let status = crate::util::describe_exit(status);
        log.line(&format!("exited: {status}"));
        Some(Ending {
            ext: name.to_owned(),
            status,
            escalated,
        })
    };
    let wait = grace.max(t.min_exit_wait);
    let exited = tokio::select! {
        r = crate::deadline::timeout(wait, child.exited()) => r.ok().flatten(),
        _ = hurry.cancelled() => child.try_exited(),
    };
    if let Some(status) = exited {
        return ended(status, None);
    }
    log.line("did not exit in time; sending SIGTERM");
    child.signal(SIGTERM);
    if let Ok(Some(status)) = crate::deadline::timeout(t.sigterm_to_sigkill, child.exited()).await {
        return ended(status, Some("SIGTERM"));
    }
    log.line("still running; sending SIGKILL");
    child.signal(SIGKILL);
    child.exited().await.and_then(|s| ended(s, Some("SIGKILL")))
}
