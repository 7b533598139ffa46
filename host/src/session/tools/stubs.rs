//! Stub tools: tools a person answers by hand (`stub`, `unstub` and
//! `answer` steps, or the inspector), and the cancel handles of direct
//! calls in flight. The state only; what is done with it is
//! [`crate::session::by_hand`]'s.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

use crate::session::script::StubAnswer;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Stub tools and the hand-typed answers waiting for their calls, and the
/// cancel handles of direct calls in flight.
#[derive(Debug, Default)]
pub struct Direct {
    pub(crate) stubs: Mutex<BTreeSet<String>>,
    pub(crate) answers: Mutex<HashMap<String, VecDeque<StubAnswer>>>,
    pub(crate) running: Mutex<HashMap<u64, CancellationToken>>,
    pub(crate) next_running: std::sync::atomic::AtomicU64,
}

impl Direct {
    /// Whether calls of `name` are answered by hand.
    pub fn is_stub(&self, name: &str) -> bool {
        lock(&self.stubs).contains(name)
    }

    /// The stub tool names.
    pub fn stubs(&self) -> Vec<String> {
        lock(&self.stubs).iter().cloned().collect()
    }
}
