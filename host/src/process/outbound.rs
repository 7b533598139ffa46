//! The per-extension outbound queue (§13, HOST-149..152, HOST-79..81).
//!
//! Every host→extension frame goes through one FIFO with one writer task.
//! Notifications are enqueued without waiting; requests get a [`Ticket`]
//! whose completion says when their own bytes were written. At most
//! [`QueueLimits::frames`] frames and [`QueueLimits::bytes`] bytes may wait
//! (the frame being written is not counted); a notification beyond either
//! closes the queue, which disconnects the extension (N-11): that is the
//! cut-off for an extension that stopped reading.
//!
//! The host's own bursts must not trip it. A request that finds the queue
//! full waits for room in a FIFO of its own (outside the bound: each such
//! request has a caller waiting on it, so the host's own concurrency bounds
//! them, and its write bound N-9 runs meanwhile); the writer admits waiting
//! requests first whenever a frame leaves the queue. When a request's write
//! bound passes while it still waits for room, [`Outbound::expire`] tells the
//! caller whether the extension is slow (the writer made progress: the one
//! request fails, the extension stays connected) or stuck (the frame being
//! written has been blocked for the bound: disconnect, HOST-152). Producers
//! of notification bursts (the agent loop) pace themselves with
//! [`Outbound::room`] before producing more. A queued or waiting request can
//! be withdrawn before the writer takes it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{oneshot, Notify};
use tokio::time::Instant;
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

/// Result of [`Outbound::expire`]: why a request's write bound passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expired {
    /// It was still waiting for room while the writer kept writing: it was
    /// withdrawn and only it fails (the text says how full the queue is).
    NoRoom(String),
    /// It was queued or being written, or the writer is blocked: the
    /// extension does not read (HOST-152 disconnects it).
    Stuck,
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
    /// Requests waiting for room (not counted in the bound).
    waiting: VecDeque<Item>,
    in_flight: Option<u64>,
    /// When the frame in flight was taken (stall detection).
    in_flight_since: Option<Instant>,
    next_id: u64,
    closed: Option<String>,
    finishing: bool,
}

impl State {
    fn fits(&self, limits: &QueueLimits, len: usize) -> bool {
        self.queue.len() < limits.frames && self.bytes + len <= limits.bytes
    }

    fn push(&mut self, item: Item) {
        self.bytes += item.line.len();
        self.queue.push_back(item);
    }

    /// Moves waiting requests into the queue while they fit (oldest first).
    fn admit(&mut self, limits: &QueueLimits) {
        while let Some(len) = self.waiting.front().map(|i| i.line.len()) {
            if !self.fits(limits, len) {
                break;
            }
            if let Some(item) = self.waiting.pop_front() {
                self.push(item);
            }
        }
    }

    /// Room for a burst: at most half full, no request waiting for room.
    fn has_room(&self, limits: &QueueLimits) -> bool {
        self.waiting.is_empty()
            && self.queue.len() * 2 <= limits.frames
            && self.bytes * 2 <= limits.bytes
    }

    fn stalled(&self, bound: Duration) -> bool {
        self.in_flight_since.is_some_and(|t| t.elapsed() >= bound)
    }
}

/// "N frames / M bytes waiting, limit ..." for messages.
fn describe(limits: &QueueLimits, frames: usize, bytes: usize) -> String {
    format!(
        "{frames} frames / {bytes} bytes waiting, limit {} frames / {} bytes",
        limits.frames, limits.bytes
    )
}

struct Inner {
    ext: String,
    limits: QueueLimits,
    state: Mutex<State>,
    wake: Notify,
    /// Notified when [`State::has_room`] becomes true or the queue closes
    /// (only then: many producers may be pacing on it).
    room: Notify,
    /// Cancelled when the queue closes for good (disconnect).
    closed: CancellationToken,
    /// Cancelled when the writer task has ended (stdin dropped).
    writer_done: CancellationToken,
    /// Cancelled when an overflow closed the queue (the host's decision, as
    /// opposed to a failed write or a disconnect).
    overflowed: CancellationToken,
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
            room: Notify::new(),
            closed: CancellationToken::new(),
            writer_done: CancellationToken::new(),
            overflowed: CancellationToken::new(),
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
        let limits = &self.inner.limits;
        let overflow = {
            let mut st = self.lock();
            if let Some(r) = &st.closed {
                return Err(OutboundError::Closed(r.clone()));
            }
            if st.finishing {
                return Err(OutboundError::Closed("stdin closed".into()));
            }
            st.next_id += 1;
            let id = st.next_id;
            let request = done.is_some();
            let len = line.len();
            let item = Item { id, line, done };
            if st.waiting.is_empty() && st.fits(limits, len) {
                st.push(item);
                self.inner.wake.notify_one();
                return Ok(id);
            }
            if request {
                // The host's own request: it waits for room (see the module
                // docs), bounded by its caller's write bound.
                st.waiting.push_back(item);
                return Ok(id);
            }
            describe(limits, st.queue.len() + 1, st.bytes + len)
        };
        if self.shut(&format!("outbound queue overflow: {overflow}")) {
            self.inner.overflowed.cancel();
        }
        Err(OutboundError::Overflow(overflow))
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

    /// Wakes pacing producers if a withdrawal made room.
    fn room_changed(&self, st: &State) {
        if st.has_room(&self.inner.limits) {
            self.inner.room.notify_waiters();
        }
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
            st.admit(&self.inner.limits);
            self.room_changed(&st);
            return Withdraw::Withdrawn;
        }
        if let Some(pos) = st.waiting.iter().position(|i| i.id == id) {
            st.waiting.remove(pos);
            self.room_changed(&st);
            return Withdraw::Withdrawn;
        }
        Withdraw::Done
    }

    /// The write bound `bound` of request `id` passed before it was written:
    /// withdraws it if it was only waiting for room while the writer made
    /// progress ([`Expired::NoRoom`]); otherwise the extension is not reading
    /// ([`Expired::Stuck`], the request is left for the disconnect to fail).
    pub fn expire(&self, id: u64, bound: Duration) -> Expired {
        let mut st = self.lock();
        if st.stalled(bound) {
            return Expired::Stuck;
        }
        match st.waiting.iter().position(|i| i.id == id) {
            Some(pos) => {
                st.waiting.remove(pos);
                self.room_changed(&st);
                let detail = describe(&self.inner.limits, st.queue.len(), st.bytes);
                Expired::NoRoom(format!(
                    "outbound queue full for {bound:?} ({detail}; {} more request(s) waiting): \
                     the extension reads slower than the host writes; not sent",
                    st.waiting.len()
                ))
            }
            None => Expired::Stuck,
        }
    }

    /// Waits until the queue is at most half full with no request waiting
    /// for room, so that a producer of a burst of notifications (the agent
    /// loop) never overflows a reader that keeps reading. Returns at once when
    /// the queue is closed, and when the frame being written has been blocked
    /// for `stall` (the reader is stuck: the caller goes on, and the bound
    /// cuts the extension off as N-11 says).
    pub async fn room(&self, stall: Duration) {
        loop {
            let notified = self.inner.room.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let stall_at = {
                let st = self.lock();
                if st.closed.is_some() || st.has_room(&self.inner.limits) || st.stalled(stall) {
                    return;
                }
                st.in_flight_since.map(|t| t + stall)
            };
            match stall_at {
                Some(at) => {
                    let _ = tokio::time::timeout_at(at, notified).await;
                }
                None => notified.await,
            }
        }
    }

    /// Closes the queue for good: queued frames are dropped, their waiters
    /// fail, the writer stops (dropping stdin). Idempotent.
    pub fn close(&self, reason: &str) {
        self.shut(reason);
    }

    /// [`Self::close`]; `true` when this call closed it.
    fn shut(&self, reason: &str) -> bool {
        let dropped: Vec<Item> = {
            let mut st = self.lock();
            if st.closed.is_some() {
                return false;
            }
            st.closed = Some(reason.to_owned());
            st.bytes = 0;
            let waiting: Vec<Item> = st.waiting.drain(..).collect();
            st.queue.drain(..).chain(waiting).collect()
        };
        for item in dropped {
            if let Some(done) = item.done {
                let _ = done.send(Err(OutboundError::Closed(reason.to_owned())));
            }
        }
        self.inner.closed.cancel();
        self.inner.wake.notify_one();
        self.inner.room.notify_waiters();
        true
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

    /// Cancelled when an overflow closed the queue.
    pub fn overflowed(&self) -> CancellationToken {
        self.inner.overflowed.clone()
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

    /// Requests waiting for room (outside the bound).
    pub fn waiting_for_room(&self) -> usize {
        self.lock().waiting.len()
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
            let had_room = st.has_room(&inner.limits);
            match st.queue.pop_front() {
                Some(item) => {
                    st.bytes -= item.line.len();
                    st.in_flight = Some(item.id);
                    st.in_flight_since = Some(Instant::now());
                    st.admit(&inner.limits);
                    if !had_room && st.has_room(&inner.limits) {
                        inner.room.notify_waiters();
                    }
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
        {
            let mut st = inner.state.lock().unwrap_or_else(|e| e.into_inner());
            st.in_flight = None;
            st.in_flight_since = None;
        }
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

    // Issue 13.5: requests beyond the bound (the host's own burst) wait for
    // room instead of overflowing, and are written in order once the reader
    // reads.
    #[tokio::test]
    async fn requests_wait_for_room_and_are_written_in_order() {
        let (w, mut r) = tokio::io::duplex(16);
        let limits = QueueLimits {
            frames: 2,
            bytes: 1 << 20,
        };
        let q = Outbound::start("t", w, limits, None);
        one_in_flight(&q).await;
        let tickets: Vec<Ticket> = (1..=5).map(|i| q.request(&frame(i)).unwrap()).collect();
        assert_eq!((q.queued(), q.waiting_for_room()), (2, 3));
        assert!(!q.closed_token().is_cancelled(), "no overflow");
        q.finish();
        let mut out = String::new();
        r.read_to_string(&mut out).await.unwrap();
        let steps: Vec<u64> = out
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["step"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        assert_eq!(steps, vec![0, 1, 2, 3, 4, 5]);
        for t in tickets {
            assert_eq!(t.written.await.unwrap(), Ok(()));
        }
    }

    // N-11: requests never overflow, but a notification beyond the bound
    // still does, also while requests wait for room.
    #[tokio::test]
    async fn a_notification_beyond_the_bound_overflows_while_requests_wait() {
        let (w, _r) = tokio::io::duplex(16);
        let limits = QueueLimits {
            frames: 1,
            bytes: 1 << 20,
        };
        let q = Outbound::start("t", w, limits, None);
        one_in_flight(&q).await;
        let queued = q.request(&frame(1)).unwrap();
        let waiting = q.request(&frame(2)).unwrap();
        assert!(matches!(q.send(&frame(3)), Err(OutboundError::Overflow(_))));
        assert!(q.closed_token().is_cancelled());
        for t in [queued, waiting] {
            assert!(matches!(t.written.await, Ok(Err(OutboundError::Closed(_)))));
        }
    }

    // A request whose write bound passed while it waited for room fails
    // alone when the writer keeps writing (a slow reader); when the frame in
    // flight has been blocked for the bound (a stuck reader), or the request
    // was already queued, the extension is to be disconnected (HOST-152).
    #[tokio::test]
    async fn expire_tells_a_slow_reader_from_a_stuck_one() {
        let (w, _r) = tokio::io::duplex(16);
        let limits = QueueLimits {
            frames: 1,
            bytes: 1 << 20,
        };
        let q = Outbound::start("t", w, limits, None);
        one_in_flight(&q).await;
        let queued = q.request(&frame(1)).unwrap();
        let waiting = q.request(&frame(2)).unwrap();
        let long = Duration::from_secs(3600);
        match q.expire(waiting.id, long) {
            Expired::NoRoom(why) => assert!(
                why.contains("1 frames / ") && why.contains("not sent"),
                "{why}"
            ),
            Expired::Stuck => panic!("the writer is not stalled for an hour"),
        }
        assert_eq!(q.waiting_for_room(), 0, "withdrawn");
        assert!(waiting.written.await.is_err(), "never written");
        assert!(!q.closed_token().is_cancelled(), "still connected");
        assert_eq!(q.expire(queued.id, long), Expired::Stuck, "already queued");
        let another = q.request(&frame(3)).unwrap();
        assert_eq!(
            q.expire(another.id, Duration::ZERO),
            Expired::Stuck,
            "the frame in flight is blocked for longer than the bound"
        );
    }

    // The pace of a burst producer: room() waits while the queue is more
    // than half full, returns once the reader drained it, and returns at once
    // when the reader is stuck (the frame in flight blocked for `stall`).
    #[tokio::test]
    async fn room_follows_the_reader_and_gives_up_on_a_stuck_one() {
        let (w, mut r) = tokio::io::duplex(16);
        let limits = QueueLimits {
            frames: 4,
            bytes: 1 << 20,
        };
        let q = Outbound::start("t", w, limits, None);
        one_in_flight(&q).await;
        for i in 1..=4 {
            q.send(&frame(i)).unwrap();
        }
        q.room(Duration::ZERO).await;
        use std::future::Future;
        let room = q.room(Duration::from_secs(3600));
        tokio::pin!(room);
        let first =
            std::future::poll_fn(|cx| std::task::Poll::Ready(room.as_mut().poll(cx).is_pending()))
                .await;
        assert!(first, "full and nobody reads: no room");
        let reader = tokio::spawn(async move {
            let mut sink = Vec::new();
            let _ = r.read_to_end(&mut sink).await;
        });
        room.await;
        assert!(q.queued() <= 2);
        q.finish();
        reader.await.unwrap();
    }
}
