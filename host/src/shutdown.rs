//! Stopping extensions (§16.7, HOST-168..171): `shutdown` behind the queued
//! frames, stdin closed, a shared grace for the processes to exit, then
//! SIGTERM to the process group and SIGKILL a second later. Every child is
//! reaped: no zombies.

use std::sync::Arc;
use std::time::Duration;

use tokio::process::Child;
use tokio::time::Instant;
use zot_protocol::HostFrame;

use crate::config::Timeouts;
use crate::extension::Extension;
use crate::spawn::{signal_group, SIGKILL, SIGTERM};

/// Stops every extension with one shared `grace` deadline.
pub async fn shutdown_all(exts: &[Arc<Extension>], t: &Timeouts, grace: Duration) {
    let deadline = Instant::now() + grace;
    let mut tasks = Vec::new();
    for e in exts {
        let e = e.clone();
        let t = t.clone();
        tasks.push(tokio::spawn(
            async move { stop_one(&e, &t, deadline).await },
        ));
    }
    for task in tasks {
        let _ = task.await;
    }
}

async fn stop_one(ext: &Arc<Extension>, t: &Timeouts, deadline: Instant) {
    if ext.is_connected() {
        // Behind everything already queued (session_end included), written
        // within the remaining grace; then stdin is closed.
        if let Ok(ticket) = ext.outbound.request(&HostFrame::Shutdown) {
            let _ = tokio::time::timeout_at(deadline, ticket.written).await;
        }
        ext.outbound.finish();
    }
    if let Some(mut child) = ext.take_child().await {
        let remaining = deadline.saturating_duration_since(Instant::now());
        let never = tokio_util::sync::CancellationToken::new();
        stop_process(ext, &mut child, t, remaining, &never).await;
    }
    // Let the read loop see EOF so the wire log holds the last frames.
    let _ = tokio::time::timeout(t.sigterm_to_sigkill, ext.reader_done().cancelled()).await;
    ext.outbound.close("shutdown");
    ext.log.close();
}

/// Waits for the process to exit within `grace` (at least the minimum exit
/// wait; cut short by `hurry`), then SIGTERM, then SIGKILL; always reaps.
pub async fn stop_process(
    ext: &Extension,
    child: &mut Child,
    t: &Timeouts,
    grace: Duration,
    hurry: &tokio_util::sync::CancellationToken,
) {
    let wait = grace.max(t.min_exit_wait);
    let exited = tokio::select! {
        r = tokio::time::timeout(wait, child.wait()) => r.ok().and_then(Result::ok),
        _ = hurry.cancelled() => child.try_wait().ok().flatten(),
    };
    if let Some(status) = exited {
        ext.log
            .line(&format!("exited: {}", crate::util::describe_exit(status)));
        return;
    }
    let Some(pid) = child.id() else {
        let _ = child.wait().await;
        return;
    };
    ext.log.line("did not exit in time; sending SIGTERM");
    signal_group(pid, SIGTERM);
    if let Ok(Ok(status)) = tokio::time::timeout(t.sigterm_to_sigkill, child.wait()).await {
        ext.log
            .line(&format!("exited: {}", crate::util::describe_exit(status)));
        return;
    }
    ext.log.line("still running; sending SIGKILL");
    signal_group(pid, SIGKILL);
    let _ = child.start_kill();
    if let Ok(status) = child.wait().await {
        ext.log
            .line(&format!("exited: {}", crate::util::describe_exit(status)));
    }
}
