//! A panic anywhere in a check fails it, not only one on the checking
//! thread: tokio catches the unwind of a panicking task (the engine's
//! reader, a host read loop), so under `cargo test` such a panic would
//! otherwise pass unseen. Under libFuzzer its own panic hook (kept: it runs
//! after the count) aborts the process at once.

use std::cell::Cell;
use std::sync::Once;

thread_local! {
    static PANICS: Cell<usize> = const { Cell::new(0) };
}

/// Counts the panics of this thread from now on (every check runs its
/// tasks on a current-thread runtime, i.e. on the calling thread).
pub(crate) struct Watch {
    before: usize,
}

pub(crate) fn watch() -> Watch {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANICS.with(|p| p.set(p.get() + 1));
            previous(info);
        }));
    });
    Watch {
        before: PANICS.with(Cell::get),
    }
}

impl Watch {
    /// Fails if anything panicked since [`watch`] (the panic's message was
    /// printed by the hook).
    pub(crate) fn check(self, what: &str) {
        let now = PANICS.with(Cell::get);
        assert_eq!(
            now,
            self.before,
            "{what}: {} panic(s) in a task (message above)",
            now - self.before
        );
    }
}
