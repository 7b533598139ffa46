//! Feeding: a binding that reads the host's pipe on its own event loop
//! (Node's libuv; see `handover`) hands each chunk to [`Engine::feed`], which runs the read
//! loop's per-line logic ([`super::reader::Lines`]) on the caller's thread
//! and returns the jobs at once. No reader thread, no thread hand-off per
//! request.
//!
//! The rules of the read loop hold here too: lines after `hello_ack` are
//! held until the on-hello hook is done (at most 5 s), reading pauses while
//! the serial backlog is full ([`super::SERIAL_READ_AHEAD`]; the caller
//! stops reading and feeds an empty chunk once it answered event jobs or
//! started a call), and the end of the input, `shutdown` or a failed
//! handshake end the session through the same closing path.

use std::sync::Arc;

use zot_protocol::LineSplitter;

use super::reader::{self, Flow, Lines, HELLO_WAIT_OVER, ON_HELLO_WAIT};
use super::shutdown::CloseReason;
use super::task::Fault;
use super::{Engine, Inner, Job, SERIAL_READ_AHEAD};
use crate::lock;

/// What a feed produced.
#[derive(Debug, Default)]
pub struct FeedResult {
    /// The jobs, in order: those the engine had queued (timeouts,
    /// cancellations), those of the lines fed, then those queued while they
    /// were read (call results; the closing after `shutdown`, when it is
    /// quick). Later ones come through the queue.
    pub jobs: Vec<Job>,
    /// Stop reading until an empty feed no longer says so: the on-hello
    /// hook still runs or the serial backlog is full. Bytes fed meanwhile
    /// are kept, not lost.
    pub paused: bool,
    /// Reading is over (end of input, `shutdown`, failed handshake, closed
    /// session): stop reading; later feeds are ignored.
    pub ended: bool,
}

/// The feeding state of an engine started on a fed transport.
#[derive(Default)]
pub(crate) struct FeedState {
    split: LineSplitter,
    lines: Lines,
    /// Bytes taken but not processed yet (held, see [`FeedResult::paused`]).
    pending: Vec<u8>,
    /// The input ended; finish once `pending` is processed.
    eof: bool,
    /// The on-hello wait is over (announced, or 5 s passed).
    hello_passed: bool,
    ended: bool,
    /// Why reading ended, for the closing path.
    end_reason: Option<CloseReason>,
}

impl FeedState {
    /// The read loop hands over: what it buffered, its line state, and
    /// whether the on-hello wait is over.
    pub(crate) fn take_over(&mut self, pending: Vec<u8>, lines: Lines, hello_passed: bool) {
        self.pending = pending;
        self.lines = lines;
        self.hello_passed = hello_passed;
    }

    /// Reading panicked (see `task`): nothing more is read.
    pub(crate) fn end_after_panic(&mut self) {
        self.ended = true;
        self.pending = Vec::new();
    }
}

impl Inner {
    /// Processes `chunk` after the bytes held so far; returns the jobs of
    /// the lines processed and whether reading is held.
    fn feed_locked(self: &Arc<Self>, f: &mut FeedState, chunk: &[u8]) -> (Vec<Job>, bool) {
        let mut batch = Vec::new();
        if f.ended {
            return (batch, false);
        }
        let data = if f.pending.is_empty() {
            std::borrow::Cow::Borrowed(chunk)
        } else {
            let mut all = std::mem::take(&mut f.pending);
            all.extend_from_slice(chunk);
            std::borrow::Cow::Owned(all)
        };
        let mut rest: &[u8] = &data;
        let mut held = false;
        while !rest.is_empty() || f.eof {
            if f.lines.handshaken && !f.hello_passed {
                if !lock(&self.state).announced {
                    held = true;
                    break;
                }
                f.hello_passed = true;
            }
            if batch.len() % (SERIAL_READ_AHEAD / 4) == 0 && reader::backlog_full(self) {
                held = true;
                break;
            }
            if rest.is_empty() {
                // The input ended and everything before it was processed.
                let last = f.split.finish();
                let flow = match last {
                    Some(line) => f.lines.on_line(self, line, &mut batch),
                    None => Flow::Continue,
                };
                let reason = match flow {
                    Flow::End(r) => r,
                    Flow::Continue => f.lines.eof(),
                };
                self.end_feed(f, reason);
                return (batch, false);
            }
            let handshaken = f.lines.handshaken;
            let (used, line) = f.split.push(rest);
            rest = &rest[used..];
            let Some(line) = line else { continue };
            if handshaken && self.fault == Some(Fault::FeedPanic) {
                panic!("injected fault: feeding panics after the handshake (ZOT_EXT_TEST_FAULT)");
            }
            if let Flow::End(reason) = f.lines.on_line(self, line, &mut batch) {
                self.end_feed(f, reason);
                return (batch, false);
            }
            if !handshaken && f.lines.handshaken {
                self.bound_hello_wait();
            }
        }
        if !rest.is_empty() {
            f.pending = rest.to_vec();
        }
        (batch, held)
    }

    fn end_feed(&self, f: &mut FeedState, reason: CloseReason) {
        f.ended = true;
        f.pending = Vec::new();
        f.end_reason = Some(reason);
        // Wakes `supervise`, which closes the session.
        self.stop.cancel();
    }

    /// After 5 s, lines held for the on-hello hook are read anyway.
    fn bound_hello_wait(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        self.spawn(super::task::Task::HelloWait, async move {
            tokio::time::sleep(ON_HELLO_WAIT).await;
            let Some(inner) = weak.upgrade() else { return };
            let Some(feed) = &inner.feed else { return };
            {
                let mut f = lock(feed);
                if f.hello_passed || f.ended || lock(&inner.state).announced {
                    return;
                }
                f.hello_passed = true;
            }
            inner.diag(HELLO_WAIT_OVER);
            inner.resume_feed();
        });
    }

    /// Processes held bytes (the hook finished, or its wait ran out); their
    /// jobs are queued like the read loop's.
    pub(crate) fn resume_feed(self: &Arc<Self>) {
        let Some(feed) = self.feed.as_ref().filter(|_| self.feeding()) else {
            return;
        };
        let jobs = self.reading(|| {
            let mut f = lock(feed);
            if f.pending.is_empty() && !f.eof {
                return None;
            }
            Some(self.feed_locked(&mut f, &[]).0)
        });
        if let Some(Some(jobs)) = jobs {
            self.queue.push_all(jobs);
        }
    }
}

/// Closes the session once feeding ended (or the session was stopped from
/// outside), through the read loop's closing path.
pub(crate) async fn supervise(inner: Arc<Inner>) {
    inner.stop.cancelled().await;
    let reason = inner.feed.as_ref().and_then(|f| lock(f).end_reason.take());
    reader::end(inner, reason, Vec::new()).await;
}

impl Engine {
    /// Hands over bytes read from the host (after [`Engine::take_wire`], or
    /// on [`super::Transport::memory_fed`]): the lines they complete are
    /// read as the engine's own read loop reads them, and their jobs come
    /// back with everything queued before them. An empty chunk processes
    /// what was held (see [`FeedResult::paused`]). While the engine reads by
    /// itself nothing is read and `ended` is set.
    pub fn feed(&self, chunk: &[u8]) -> FeedResult {
        let Some(feed) = self.inner.feed.as_ref().filter(|_| self.inner.feeding()) else {
            return FeedResult {
                ended: true,
                ..FeedResult::default()
            };
        };
        // What was queued before these bytes comes first, then the jobs of
        // the lines, then what was queued meanwhile (a host's call result,
        // the closing after `shutdown`): all from this call, in order, and
        // without waking the consumer's other wait for them.
        let mut jobs = self.inner.queue.take_setting_quiet(true);
        let (batch, paused, ended) = self
            .inner
            .reading(|| {
                let mut f = lock(feed);
                let (batch, paused) = self.inner.feed_locked(&mut f, chunk);
                (batch, paused, f.ended)
            })
            .unwrap_or((Vec::new(), false, true));
        jobs.extend(batch);
        jobs.extend(self.inner.queue.take_setting_quiet(false));
        FeedResult {
            jobs,
            paused,
            ended,
        }
    }

    /// The input ended (or reading it failed with `error`): what is held is
    /// still processed, then the session closes as at EOF.
    pub fn feed_end(&self, error: Option<&str>) -> FeedResult {
        if let Some(feed) = self.inner.feed.as_ref().filter(|_| self.inner.feeding()) {
            let mut f = lock(feed);
            if !f.ended && !f.eof {
                if let Some(e) = error {
                    self.inner
                        .diag(&format!("reading stdin failed: {e}; treating it as EOF"));
                }
                f.eof = true;
            }
        }
        self.feed(&[])
    }
}
