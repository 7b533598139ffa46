//! The per-extension outbound queue (§13, HOST-149..152, HOST-79..81).
//!
//! Every host→extension frame goes through one FIFO with one writer task.
//! Notifications are enqueued without waiting; requests get a [`Ticket`]
//! whose completion says when their own bytes were written. At most
//! [`QueueLimits::frames`] frames and [`QueueLimits::bytes`] bytes may wait
//! (the frame being written is not counted); exceeding either closes the
//! queue, which disconnects the extension. A queued request can be withdrawn
//! before the writer takes it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{oneshot, Notify};
use tokio_util::sync::CancellationToken;

use crate::config::QueueLimits;
use crate::wire::{Dir, WireLog};

/// Why a frame could not be queued or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutboundError {
    /// The queue is closed (the extension disconnected).
    #[error("extension disconnected: {0}")]
    Closed(String),
    /// The queue bound was exceeded; the queue is now closed.
    #[error("outbound queue overflow ({0}); extension disconnected")]
    Overflow(String),
    /// The frame could not be encoded (e.g. over 4 MiB).
    #[error("cannot encode frame: {0}")]
    Encode(String),
    /// The write failed.
    #[error("write: {0}")]
    Write(String),
}

/// Result of [`Outbound::withdraw`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withdraw {
    /// Still queued: removed, never written.
    Withdrawn,
    /// The writer is writing it right now.
    InFlight,
    /// Already written (or failed).
    Done,
}

/// A queued request: its id and the completion of its write.
#[derive(Debug)]
pub struct Ticket {
    /// Queue-local id, for [`Outbound::withdraw`].
    pub id: u64,
    /// Resolves when the frame was written (`Ok`) or failed / was dropped.
    pub written: oneshot::Receiver<Result<(), OutboundError>>,
}

struct Item {
    id: u64,
    line: Vec<u8>,
    done: Option<oneshot::Sender<Result<(), OutboundError>>>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Item>,
    bytes: usize,
    in_flight: Option<u64>,
    next_id: u64,
    closed: Option<String>,
    finishing: bool,
}

struct Inner {
    ext: String,
    limits: QueueLimits,
    state: Mutex<State>,
    wake: Notify,
    /// Cancelled when the queue closes for good (disconnect).
    closed: CancellationToken,
    /// Cancelled when the writer task has ended (stdin dropped).
    writer_done: CancellationToken,
    wire: Option<WireLog>,
}

/// Handle to one extension's outbound queue. Cheap to clone.
#[derive(Clone)]
pub struct Outbound {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbound")
            .field("ext", &self.inner.ext)
            .finish()
    }
}

impl Outbound {
    /// Starts the writer task over `sink` and returns the queue handle.
    pub fn start<W>(ext: &str, sink: W, limits: QueueLimits, wire: Option<WireLog>) -> Self
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let inner = Arc::new(Inner {
            ext: ext.to_owned(),
            limits,
            state: Mutex::new(State::default()),
            wake: Notify::new(),
            closed: CancellationToken::new(),
            writer_done: CancellationToken::new(),
            wire,
        });
        tokio::spawn(writer(inner.clone(), sink));
        Self { inner }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn enqueue<F: Serialize + ?Sized>(
        &self,
        frame: &F,
        done: Option<oneshot::Sender<Result<(), OutboundError>>>,
    ) -> Result<u64, OutboundError> {
        let line =
            zot_protocol::encode_frame(frame).map_err(|e| OutboundError::Encode(e.to_string()))?;
        let overflow = {
            let mut st = self.lock();
            if let Some(r) = &st.closed {
                return Err(OutboundError::Closed(r.clone()));
            }
            if st.finishing {
                return Err(OutboundError::Closed("stdin closed".into()));
            }
            let frames = st.queue.len() + 1;
            let bytes = st.bytes + line.len();
            if frames > self.inner.limits.frames || bytes > self.inner.limits.bytes {
                Some(format!(
                    "{frames} frames / {bytes} bytes waiting, limit {} frames / {} bytes",
                    self.inner.limits.frames, self.inner.limits.bytes
                ))
            } else {
                st.next_id += 1;
                let id = st.next_id;
                st.bytes = bytes;
                st.queue.push_back(Item { id, line, done });
                self.inner.wake.notify_one();
                return Ok(id);
            }
        };
        let reason = overflow.unwrap_or_default();
        self.close(&format!("outbound queue overflow: {reason}"));
        Err(OutboundError::Overflow(reason))
    }

    /// Enqueues a notification without waiting (HOST-150).
    pub fn send<F: Serialize + ?Sized>(&self, frame: &F) -> Result<(), OutboundError> {
        self.enqueue(frame, None).map(|_| ())
    }

    /// Enqueues a request; the ticket resolves when it was written.
    pub fn request<F: Serialize + ?Sized>(&self, frame: &F) -> Result<Ticket, OutboundError> {
        let (tx, rx) = oneshot::channel();
        let id = self.enqueue(frame, Some(tx))?;
        Ok(Ticket { id, written: rx })
    }

    /// Removes a queued frame that the writer has not taken yet (HOST-79).
    pub fn withdraw(&self, id: u64) -> Withdraw {
        let mut st = self.lock();
        if st.in_flight == Some(id) {
            return Withdraw::InFlight;
        }
        if let Some(pos) = st.queue.iter().position(|i| i.id == id) {
            if let Some(item) = st.queue.remove(pos) {
                st.bytes -= item.line.len();
            }
            return Withdraw::Withdrawn;
        }
        Withdraw::Done
    }

    /// Closes the queue for good: queued frames are dropped, their waiters
    /// fail, the writer stops (dropping stdin). Idempotent.
    pub fn close(&self, reason: &str) {
        let dropped: Vec<Item> = {
            let mut st = self.lock();
            if st.closed.is_some() {
                return;
            }
            st.closed = Some(reason.to_owned());
            st.bytes = 0;
            st.queue.drain(..).collect()
        };
        for item in dropped {
            if let Some(done) = item.done {
                let _ = done.send(Err(OutboundError::Closed(reason.to_owned())));
            }
        }
        self.inner.closed.cancel();
        self.inner.wake.notify_one();
    }

    /// Lets the writer drain what is queued, then close stdin (graceful; the
    /// queue accepts nothing more).
    pub fn finish(&self) {
        self.lock().finishing = true;
        self.inner.wake.notify_one();
    }

    /// Cancelled when the queue closes for good.
    pub fn closed_token(&self) -> CancellationToken {
        self.inner.closed.clone()
    }

    /// Cancelled once the writer has dropped stdin.
    pub fn writer_done(&self) -> CancellationToken {
        self.inner.writer_done.clone()
    }

    /// The close reason, if closed.
    pub fn close_reason(&self) -> Option<String> {
        self.lock().closed.clone()
    }

    /// Frames waiting (not counting the one in flight).
    pub fn queued(&self) -> usize {
        self.lock().queue.len()
    }
}

async fn writer<W: AsyncWrite + Unpin>(inner: Arc<Inner>, mut sink: W) {
    loop {
        let notified = inner.wake.notified();
        let item = {
            let mut st = inner.state.lock().unwrap_or_else(|e| e.into_inner());
            if st.closed.is_some() {
                break;
            }
            match st.queue.pop_front() {
                Some(item) => {
                    st.bytes -= item.line.len();
                    st.in_flight = Some(item.id);
                    Some(item)
                }
                None if st.finishing => break,
                None => None,
            }
        };
        let Some(mut item) = item else {
            tokio::select! {
                _ = notified => {}
                _ = inner.closed.cancelled() => break,
            }
            continue;
        };
        if let Some(w) = &inner.wire {
            w.line(
                &inner.ext,
                Dir::HostToExt,
                &item.line[..item.line.len() - 1],
            );
        }
        let res = tokio::select! {
            r = async {
                sink.write_all(&item.line).await?;
                sink.flush().await
            } => r.map_err(|e| OutboundError::Write(e.to_string())),
            _ = inner.closed.cancelled() => Err(OutboundError::Closed("closed while writing".into())),
        };
        inner
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .in_flight = None;
        let failed = res.as_ref().err().map(ToString::to_string);
        if let Some(done) = item.done.take() {
            let _ = done.send(res);
        }
        if let Some(reason) = failed {
            Outbound {
                inner: inner.clone(),
            }
            .close(&reason);
            break;
        }
    }
    let _ = sink.shutdown().await;
    drop(sink);
    inner.writer_done.cancel();
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn frame(n: usize) -> serde_json::Value {
        serde_json::json!({"type": "event", "event": "turn_start", "step": n})
    }

    #[tokio::test]
    async fn writes_in_order_and_withdraws_queued() {
        // A pipe nobody reads: the writer blocks on the first large frame.
        let (w, mut r) = tokio::io::duplex(64);
        let q = Outbound::start("t", w, QueueLimits::default(), None);
        let big = serde_json::json!({"type": "x", "pad": "p".repeat(1000)});
        let first = q.request(&big).unwrap();
        let second = q.request(&frame(2)).unwrap();
        // Wait until the first one is in flight (the writer picked it up).
        while q.queued() != 1 {
            tokio::task::yield_now().await;
        }
        assert_eq!(q.withdraw(first.id), Withdraw::InFlight);
        assert_eq!(q.withdraw(second.id), Withdraw::Withdrawn);
        q.send(&frame(3)).unwrap();
        q.finish();
        let mut out = String::new();
        r.read_to_string(&mut out).await.unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[1].contains("\"step\":3"));
        assert!(first.written.await.unwrap().is_ok());
        assert!(second.written.await.is_err(), "withdrawn: sender dropped");
    }

    #[tokio::test]
    async fn overflow_closes_the_queue() {
        let (w, _r) = tokio::io::duplex(16);
        let limits = QueueLimits {
            frames: 4,
            bytes: 1 << 20,
        };
        let q = Outbound::start("t", w, limits, None);
        let mut err = None;
        for i in 0..10 {
            if let Err(e) = q.send(&frame(i)) {
                err = Some(e);
                break;
            }
        }
        assert!(matches!(err, Some(OutboundError::Overflow(_))));
        assert!(q.closed_token().is_cancelled());
        assert!(matches!(q.send(&frame(0)), Err(OutboundError::Closed(_))));
    }

    /// Sends one frame and waits until the writer holds it (in flight,
    /// blocked on a pipe nobody reads).
    async fn one_in_flight(q: &Outbound) {
        q.send(&frame(0)).unwrap();
        while q.queued() != 0 {
            tokio::task::yield_now().await;
        }
    }

    // N-11 / HOST-151: the byte bound alone trips: plenty of frames allowed,
    // room for two frames' bytes. The frame in flight is not counted.
    #[tokio::test]
    async fn byte_bound_alone_overflows() {
        let (w, _r) = tokio::io::duplex(16);
        let len = zot_protocol::encode_frame(&frame(1)).unwrap().len();
        let limits = QueueLimits {
            frames: 1000,
            bytes: 2 * len,
        };
        let q = Outbound::start("t", w, limits, None);
        one_in_flight(&q).await;
        q.send(&frame(1)).unwrap();
        q.send(&frame(2)).unwrap();
        assert_eq!(q.queued(), 2, "two frames' bytes fit exactly");
        let err = q.send(&frame(3)).unwrap_err();
        assert_eq!(
            err,
            OutboundError::Overflow(format!(
                "3 frames / {} bytes waiting, limit 1000 frames / {} bytes",
                3 * len,
                2 * len
            ))
        );
        assert!(q.closed_token().is_cancelled(), "overflow disconnects");
        assert!(q
            .close_reason()
            .unwrap()
            .starts_with("outbound queue overflow: "));
    }

    // N-11 / HOST-151: "256 frames ... + 1 in flight": with a bound of N
    // frames, N may wait while one is being written; the next overflows.
    #[tokio::test]
    async fn frame_bound_allows_one_more_in_flight() {
        let (w, _r) = tokio::io::duplex(16);
        let limits = QueueLimits {
            frames: 3,
            bytes: 1 << 20,
        };
        let q = Outbound::start("t", w, limits, None);
        one_in_flight(&q).await;
        for i in 1..=3 {
            q.send(&frame(i))
                .unwrap_or_else(|e| panic!("frame {i} refused: {e}"));
        }
        assert_eq!(q.queued(), 3);
        assert!(!q.closed_token().is_cancelled());
        assert!(matches!(
            q.send(&frame(4)),
            Err(OutboundError::Overflow(r)) if r.starts_with("4 frames / ")
        ));
        assert!(q.closed_token().is_cancelled(), "overflow disconnects");
    }
}
