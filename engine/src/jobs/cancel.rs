//! Cancellation tokens: one per job, plus one for the whole session.
//!
//! A token is a flag and a [`Notify`]. It is created when the engine *reads*
//! the request (docs/protocol.md §8: record cancellation state before the handler
//! starts), so a `tool_cancel` that overtakes the handler is never lost.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// A cancellation flag that can be awaited.
///
/// Cheap to clone; all clones share the state. Cancelling is one-way.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use zot_ext_engine::CancelToken;
///
/// let token = CancelToken::new();
/// let waiter = token.clone();
/// assert!(!waiter.is_cancelled());
/// token.cancel();
/// waiter.cancelled().await; // returns at once
/// assert!(waiter.is_cancelled());
/// # });
/// ```
#[derive(Clone, Default)]
pub struct CancelToken(Arc<Inner>);

#[derive(Default)]
struct Inner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// A token that is already cancelled.
    pub fn cancelled_token() -> Self {
        let t = Self::new();
        t.cancel();
        t
    }

    /// Cancels the token and wakes every waiter. Returns `true` when this
    /// call did it (`false` if it was already cancelled).
    pub fn cancel(&self) -> bool {
        let first = !self.0.cancelled.swap(true, Ordering::AcqRel);
        if first {
            self.0.notify.notify_waiters();
        }
        first
    }

    /// Whether the token was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::Acquire)
    }

    /// Completes once the token is cancelled (at once if it already is).
    /// Usable in `tokio::select!`.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.0.notify.notified();
            tokio::pin!(notified);
            // Register before checking the flag, so a cancel between the
            // check and the await still wakes us.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
