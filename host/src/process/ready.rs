//! Readiness (§5.3, HOST-30..34): `ready`, auto-ready after 250 ms idle, the
//! 3 s startup grace, and "the read loop ended".
//!
//! The `ready` frame and the idle rule are applied by the read loop
//! (the extension's read loop); this module holds the states
//! and the parallel wait with its grace.

use std::time::Duration;

use tokio::sync::watch;

/// How an extension became ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadyState {
    /// Not yet.
    Pending,
    /// It sent `ready`.
    Ready,
    /// No frame for the idle window (legacy SDK).
    AutoReady,
    /// The host's readiness wait expired.
    TimedOut,
    /// Its read loop ended.
    Exited,
}

/// Waits, in parallel, for every watched extension to leave
/// [`ReadyState::Pending`], at most `grace` (the caller marks laggards
/// [`ReadyState::TimedOut`], HOST-32).
pub async fn wait_all(watches: Vec<watch::Receiver<ReadyState>>, grace: Duration) {
    let deadline = tokio::time::Instant::now() + grace;
    let waits = watches.into_iter().map(|mut rx| async move {
        let wait = rx.wait_for(|s| *s != ReadyState::Pending);
        let _ = crate::deadline::Deadline::at(deadline, grace)
            .on(wait)
            .await;
    });
    futures_join_all(waits).await;
}

/// Joins futures without an extra dependency.
pub(crate) async fn futures_join_all<F: std::future::Future<Output = ()>>(
    futs: impl IntoIterator<Item = F>,
) {
    let mut set = Vec::new();
    for f in futs {
        set.push(Box::pin(f));
    }
    for f in set {
        f.await;
    }
}
