//! Stopping extensions (§16.7, HOST-168..171): `shutdown` behind the queued
//! frames, stdin closed, a shared grace for the processes to exit, then
//! SIGTERM to the process group and SIGKILL a second later. Every child is
//! reaped: no zombies; and once it exited, whatever it left running is
//! killed before its ending is reported (see [`crate::process::stop`]).

use std::sync::Arc;
use std::time::Duration;

use zot_protocol::HostFrame;

use crate::config::Timeouts;
use crate::deadline::Deadline;
use crate::process::extension::LoadedExtension;
use crate::process::stop::{stop_process, Ending};

/// How the host tells extensions to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopBy {
    /// A `shutdown` frame behind the queued ones, then stdin is closed
    /// (the graceful path, §16.7).
    #[default]
    Shutdown,
    /// Only stdin is closed after the queued frames: the extension sees EOF
    /// (what a host that dies or a broken pipe looks like; SDK-49).
    Eof,
}

/// Stops every extension with one shared `grace` deadline and reports how
/// each process ended (extensions without a process are left out).
pub async fn shutdown_all(
    exts: &[Arc<LoadedExtension>],
    t: &Timeouts,
    grace: Duration,
    how: StopBy,
) -> Vec<Ending> {
    let deadline = Deadline::after(grace);
    let mut tasks = Vec::new();
    for e in exts {
        let e = e.clone();
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            stop_one(&e, &t, deadline, how).await
        }));
    }
    let mut endings = Vec::new();
    for task in tasks {
        if let Ok(Some(ending)) = task.await {
            endings.push(ending);
        }
    }
    endings
}

async fn stop_one(
    ext: &Arc<LoadedExtension>,
    t: &Timeouts,
    mut deadline: Deadline,
    how: StopBy,
) -> Option<Ending> {
    // The stopper owns the process from here: once stdin closes, the
    // extension exits and its read loop's disconnect path would otherwise
    // race us for the child, and the one that lost would not say how the
    // process ended (a restart's `exited` came and went with the timing).
    let child = ext.take_child().await;
    if ext.is_connected() {
        // Behind everything already queued (session_end included), written
        // within the remaining grace; then stdin is closed.
        if how == StopBy::Shutdown {
            if let Ok(ticket) = ext.outbound.request(&HostFrame::Shutdown) {
                let _ = deadline.on(ticket.written).await;
            }
        }
        ext.outbound.finish();
    }
    let mut ending = None;
    if let Some(child) = child {
        let remaining = deadline.remaining();
        let never = tokio_util::sync::CancellationToken::new();
        ending = stop_process(&ext.name, &ext.log, &child, t, remaining, &never).await;
    }
    // Let the read loop see EOF so the wire log holds the last frames.
    let _ = crate::deadline::timeout(t.sigterm_to_sigkill, ext.reader_done().cancelled()).await;
    ext.outbound.close("shutdown");
    ext.log.close();
    ending
}
