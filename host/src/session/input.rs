//! Input that waits its turn (HOST-159): the `submit` / `submit_slash`
//! requests extensions queue while the session is busy, at most
//! [`MAX_QUEUED_PROMPTS`] (more are refused and counted), and the prompts
//! accepted while a turn runs, which run after it (follow-ups).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Prompts and slash commands extensions may queue with `submit` /
/// `submit_slash` before more are refused (a person does not queue more).
pub const MAX_QUEUED_PROMPTS: usize = 64;

/// Something an extension asked the engine to do later.
#[derive(Debug, Clone)]
pub enum Inbox {
    /// `submit` (interactive only).
    Submit {
        /// Extension.
        ext: String,
        /// Trimmed text.
        text: String,
    },
    /// `submit_slash` (interactive only).
    SubmitSlash {
        /// Trimmed text starting with `/`.
        text: String,
    },
}

/// The queued input, under one lock.
#[derive(Default)]
pub(crate) struct Input {
    queued: Mutex<Queued>,
    /// `submit`s refused since the queue was last below its bound.
    refused: AtomicU64,
}

#[derive(Default)]
struct Queued {
    inbox: VecDeque<Inbox>,
    /// Prompts accepted while a turn ran: (text, from).
    followups: VecDeque<(String, String)>,
}

/// A `submit` refused: the queue is full. `first`: the first refusal since
/// it was last below its bound.
pub(crate) struct Refused {
    pub(crate) first: bool,
}

impl Input {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queued> {
        self.queued.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a request, unless [`MAX_QUEUED_PROMPTS`] wait already.
    pub(crate) fn push(&self, item: Inbox) -> Result<(), Refused> {
        let mut q = self.lock();
        if q.inbox.len() + q.followups.len() >= MAX_QUEUED_PROMPTS {
            let first = self.refused.fetch_add(1, Ordering::SeqCst) == 0;
            return Err(Refused { first });
        }
        q.inbox.push_back(item);
        Ok(())
    }

    /// The oldest queued request.
    pub(crate) fn next(&self) -> Option<Inbox> {
        self.lock().inbox.pop_front()
    }

    /// The oldest queued request if it is a `submit`: its (extension, text).
    pub(crate) fn next_submit(&self) -> Option<(String, String)> {
        let mut q = self.lock();
        match q.inbox.front() {
            Some(Inbox::Submit { .. }) => match q.inbox.pop_front() {
                Some(Inbox::Submit { ext, text }) => Some((ext, text)),
                _ => None,
            },
            _ => None,
        }
    }

    /// A prompt to run after the current turn.
    pub(crate) fn push_followup(&self, text: String, from: String) {
        self.lock().followups.push_back((text, from));
    }

    /// The next follow-up: (text, from).
    pub(crate) fn next_followup(&self) -> Option<(String, String)> {
        self.lock().followups.pop_front()
    }

    /// How many `submit`s were refused since the last call.
    pub(crate) fn take_refused(&self) -> u64 {
        self.refused.swap(0, Ordering::SeqCst)
    }

    /// How many requests and follow-ups wait.
    pub(crate) fn len(&self) -> usize {
        let q = self.lock();
        q.inbox.len() + q.followups.len()
    }
}
