//! Handing the host's pipe over to a binding ([`Transport::with_handover`]):
//! the engine reads the handshake itself; once the binding asks
//! ([`Engine::take_wire`]), the read loop stops between two reads and the
//! pipe, the bytes it had buffered and its line state move to feeding
//! ([`Engine::feed`]). Starting this way keeps the binding's own reader off
//! the start-up path (Node needs ~2.5 ms to load `net` and open a socket).
//!
//! [`Transport::with_handover`]: super::Transport::with_handover

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use super::cancel::CancelToken;
use super::{Engine, Inner};
use crate::lock;

/// How long [`Engine::take_wire`] waits for the read loop (it answers
/// within microseconds unless the runtime is stuck).
const TAKE_WIRE_WAIT: Duration = Duration::from_secs(5);

#[derive(Default)]
pub(crate) struct Handover {
    /// Cancelled when the binding asks; the read loop watches it.
    pub(crate) asked: CancelToken,
    step: Mutex<Step>,
    changed: Condvar,
    /// The binding reads now (feeding is allowed).
    handed: std::sync::atomic::AtomicBool,
}

#[derive(Default)]
enum Step {
    #[default]
    Reading,
    /// The binding waits for the read loop.
    Asked,
    /// Handed over (the descriptor, until taken).
    #[cfg(unix)]
    Done(Option<std::os::fd::OwnedFd>),
    /// The read loop reads on (no pipe to hand over, or reading is over),
    /// or the binding gave up waiting.
    Declined,
}

impl Handover {
    /// For a transport whose source can be handed over (a pipe or socket
    /// descriptor); any other starts declined, so that `take_wire` answers
    /// at once.
    pub(crate) fn for_source(source: &super::transport::Source) -> Self {
        let h = Self::default();
        #[cfg(unix)]
        let possible = matches!(source, super::transport::Source::Fd(fd)
            if super::transport::is_pipe_or_socket(std::os::fd::AsRawFd::as_raw_fd(fd)));
        #[cfg(not(unix))]
        let possible = false;
        if !possible {
            h.decline();
        }
        h
    }

    /// Reading can never be handed over (not a pipe, or it ended).
    pub(crate) fn decline(&self) {
        *lock(&self.step) = Step::Declined;
        self.changed.notify_all();
    }

    /// Runs `hand_over` if the binding still waits for it; `hand_over`
    /// returns the descriptor, or `None` if it could not.
    #[cfg(unix)]
    pub(crate) fn complete(
        &self,
        hand_over: impl FnOnce() -> Option<std::os::fd::OwnedFd>,
    ) -> bool {
        let mut step = lock(&self.step);
        if !matches!(*step, Step::Asked) {
            return false;
        }
        let fd = hand_over();
        let handed = fd.is_some();
        self.handed
            .store(handed, std::sync::atomic::Ordering::Release);
        *step = match fd {
            Some(fd) => Step::Done(Some(fd)),
            None => Step::Declined,
        };
        self.changed.notify_all();
        handed
    }
}

impl Inner {
    pub(crate) fn handover(&self) -> Option<&Handover> {
        self.handover.as_ref()
    }

    /// Whether bytes may be fed: a fed transport, or the pipe was handed
    /// over (before that the engine reads, and feeding would mix streams).
    pub(crate) fn feeding(&self) -> bool {
        self.feed.is_some()
            && self
                .handover
                .as_ref()
                .is_none_or(|h| h.handed.load(std::sync::atomic::Ordering::Acquire))
    }
}

impl Engine {
    /// Takes over reading the host's pipe (an engine started on a transport
    /// [`with_handover`](super::Transport::with_handover)): returns the
    /// descriptor to read from now on, every chunk read going to
    /// [`Engine::feed`], the end of input to [`Engine::feed_end`]. `None`
    /// when reading cannot be handed over (another transport, stdin is not
    /// a pipe or socket, reading is over, or it was taken already): the
    /// engine then goes on reading itself. Blocks until the read loop
    /// stopped between two reads (microseconds).
    #[cfg(unix)]
    pub fn take_wire(&self) -> Option<std::os::fd::OwnedFd> {
        let h = self.inner.handover()?;
        let mut step = lock(&h.step);
        match &mut *step {
            Step::Reading => *step = Step::Asked,
            Step::Done(fd) => return fd.take(),
            Step::Declined => return None,
            Step::Asked => {}
        }
        h.asked.cancel();
        let (mut step, _) = h
            .changed
            .wait_timeout_while(step, TAKE_WIRE_WAIT, |s| matches!(s, Step::Asked))
            .unwrap_or_else(|e| e.into_inner());
        match &mut *step {
            Step::Done(fd) => fd.take(),
            Step::Asked => {
                // The read loop did not answer: it keeps the pipe.
                *step = Step::Declined;
                None
            }
            _ => None,
        }
    }
}
