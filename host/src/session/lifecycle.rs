//! Whether the session is active (between `session_start` and
//! `session_end`) and whether shutdown began, in one atomic word: a
//! session starts only when neither holds (HOST-127..130), and the test
//! and the change are one step.

use std::sync::atomic::{AtomicU8, Ordering};

const ACTIVE: u8 = 1;
const CLOSING: u8 = 2;

/// The session's lifecycle flags.
#[derive(Default)]
pub(crate) struct Lifecycle(AtomicU8);

impl Lifecycle {
    /// Marks the session active unless it is active or closing: whether it
    /// was started now.
    pub(crate) fn start(&self) -> bool {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |s| {
                (s == 0).then_some(ACTIVE)
            })
            .is_ok()
    }

    /// Marks the session ended: whether it was active.
    pub(crate) fn end(&self) -> bool {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |s| {
                (s & ACTIVE != 0).then_some(s & !ACTIVE)
            })
            .is_ok()
    }

    /// Shutdown began: no session starts any more.
    pub(crate) fn close(&self) {
        self.0.fetch_or(CLOSING, Ordering::SeqCst);
    }

    /// Whether the session is active.
    pub(crate) fn is_active(&self) -> bool {
        self.0.load(Ordering::SeqCst) & ACTIVE != 0
    }

    /// Whether shutdown began.
    pub(crate) fn is_closing(&self) -> bool {
        self.0.load(Ordering::SeqCst) & CLOSING != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_once_and_never_after_closing() {
        let l = Lifecycle::default();
        assert!(l.start());
        assert!(!l.start(), "already active");
        assert!(l.end());
        assert!(!l.end(), "already ended");
        l.close();
        assert!(!l.start(), "closing");
        assert!(l.is_closing() && !l.is_active());
    }
}
