//! The single writer of extension→host frames.
//!
//! Every frame is encoded by the thread that produced it (outside any lock),
//! then appended under one mutex to a buffer that is flushed to the sink
//! *unless another complete frame is already waiting for the lock*: the last
//! writer of a burst flushes for everyone. An idle extension gets minimal
//! latency (one `write(2)` per frame, from the thread that produced it, no
//! handoff to a writer task), a busy one gets batched writes. Frames never
//! interleave because a frame is appended whole under the lock (SDK-52).
//!
//! With deferred flushing (the Rust SDK's setting, see
//! [`crate::EngineConfig::deferred_flush`]) a write only appends and
//! schedules one flush task on the engine's runtime; every frame appended
//! before that task runs leaves in the same `write(2)`.
//!
//! A batch of answers ([`crate::Engine::complete_all`]) holds its replies:
//! they only append until the batch is done, which flushes them in one
//! `write(2)`. Every other frame (the engine's own replies, spontaneous
//! frames, `call_tool`) still flushes at once, taking held replies along.
//!
//! A host that stops reading (stopped with Ctrl-Z, busy, swapped out) is
//! waited for as long as it keeps the pipe open: the protocol bounds the
//! host's writes, not the extension's, and a reply given up on is a reply
//! lost. While a write waits, the writer is *stalled*: the reader stops
//! taking new requests (see `reader`), so what waits to be written stays
//! bounded by the requests already read. Only a closed pipe (EPIPE) or
//! another write error breaks the transport; every later write then fails
//! at once and the engine shuts the session down. The last flush at close
//! is the one write with a deadline ([`crate::EngineConfig::close_flush_timeout`]).
//!
//! Before the handshake is complete (`ready` written), spontaneous frames
//! (`notify`, panels...) are held back and written right after `ready`, so
//! that `hello` stays the first line and registrations come before anything
//! else (SDK-1, SDK-8).

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::lock;

/// Where encoded frames go: the real stdout descriptor, an in-memory channel
/// in tests, or anything else that can take bytes.
///
/// A sink gets whole frames (one or several, each ending in LF).
pub trait FrameSink: Send {
    /// Writes all of `buf`, or fails. A sink that has to wait for the
    /// reader calls [`WriteWait::stalled`] before it starts waiting, waits
    /// as long as the reader is there, and gives up with
    /// [`io::ErrorKind::TimedOut`] only past [`WriteWait::deadline`].
    fn write_all(&mut self, buf: &[u8], wait: &WriteWait<'_>) -> io::Result<()>;
}

/// How a [`FrameSink`] write may wait for a reader that does not read.
pub struct WriteWait<'a> {
    deadline: Option<Instant>,
    on_stall: &'a (dyn Fn() + Sync),
}

impl<'a> WriteWait<'a> {
    /// Waits as long as the reader keeps the pipe open.
    pub fn open(on_stall: &'a (dyn Fn() + Sync)) -> Self {
        Self {
            deadline: None,
            on_stall,
        }
    }

    /// Gives up at `deadline`.
    pub fn until(deadline: Instant, on_stall: &'a (dyn Fn() + Sync)) -> Self {
        Self {
            deadline: Some(deadline),
            on_stall,
        }
    }

    /// When to give up, if ever.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Says that the write is about to wait for the reader.
    pub fn stalled(&self) {
        (self.on_stall)();
    }
}

/// Why a frame was not written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The encoded frame is over the 4 MiB limit (WIRE-7); nothing was
    /// written.
    #[error("frame of {len} bytes exceeds the {limit}-byte frame limit")]
    TooLarge {
        /// The size of the encoded frame, LF included.
        len: usize,
        /// [`zot_protocol::limits::MAX_FRAME_BYTES`].
        limit: usize,
    },
    /// The transport failed (the host closed the pipe, a write error, or
    /// the last flush at close timed out); the session is ending.
    #[error("transport broken: {0}")]
    Broken(String),
    /// The session is over.
    #[error("the session is closed")]
    Closed,
    /// The frame could not be encoded.
    #[error("cannot encode frame: {0}")]
    Encode(String),
}

/// The write buffer's usual size.
const INITIAL_BUF: usize = 16 * 1024;

/// Flush anyway once this much is buffered, even if more frames wait.
const FLUSH_THRESHOLD: usize = 256 * 1024;

/// Called when a deferred flush breaks the transport.
pub(crate) type OnBroken = Box<dyn Fn(&WriteError) + Send + Sync>;

/// Called when the flush task panics (with the panic's payload).
pub(crate) type OnPanic = Box<dyn Fn(&(dyn std::any::Any + Send)) + Send + Sync>;

pub(crate) struct Writer {
    /// Frames encoded and waiting for the lock.
    waiting: AtomicUsize,
    /// Batches of answers being completed: replies append without flushing.
    holds: AtomicUsize,
    state: Mutex<WriterState>,
    timeout: Duration,
    /// Where deferred flushes run (`None`: flush from the writing thread).
    defer: Option<tokio::runtime::Handle>,
    /// Wakes the flusher task (started on the first deferred write): one
    /// long-lived task instead of a spawn (an allocation) per flush.
    flusher: Arc<tokio::sync::Notify>,
    flusher_started: AtomicBool,
    /// With deferred flushing: whether the engine still has open jobs
    /// (set as each job is answered). A reply to the last one is written at
    /// once: no other reply will join it in the pass, and a flush task would
    /// only add a wake-up to a lone round trip.
    busy: AtomicBool,
    on_broken: OnceLock<OnBroken>,
    on_panic: OnceLock<OnPanic>,
    /// A write is waiting for the host to read (see the module comment).
    stalled: AtomicBool,
    /// Notified when a stalled write completes.
    unstalled: tokio::sync::Notify,
}

struct WriterState {
    sink: Box<dyn FrameSink>,
    buf: Vec<u8>,
    /// `Some` until the handshake is announced: spontaneous frames wait here.
    held: Option<Vec<u8>>,
    broken: Option<String>,
    closed: bool,
    /// A deferred flush task is scheduled and has not run yet.
    flush_scheduled: bool,
}

/// Which frames may pass before the handshake is complete.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum WriteLane {
    /// `hello`, registrations, `ready`, replies: written at once.
    Direct,
    /// Spontaneous frames: held until `ready` has been written.
    Spontaneous,
}

impl Writer {
    pub(crate) fn new(
        sink: Box<dyn FrameSink>,
        timeout: Duration,
        defer: Option<tokio::runtime::Handle>,
    ) -> Arc<Self> {
        Arc::new(Self {
            waiting: AtomicUsize::new(0),
            holds: AtomicUsize::new(0),
            state: Mutex::new(WriterState {
                sink,
                buf: Vec::with_capacity(INITIAL_BUF),
                held: Some(Vec::new()),
                broken: None,
                closed: false,
                flush_scheduled: false,
            }),
            timeout,
            defer,
            flusher: Arc::new(tokio::sync::Notify::new()),
            flusher_started: AtomicBool::new(false),
            busy: AtomicBool::new(true),
            on_broken: OnceLock::new(),
            on_panic: OnceLock::new(),
            stalled: AtomicBool::new(false),
            unstalled: tokio::sync::Notify::new(),
        })
    }

    /// Says whether the engine has open jobs (see `busy`).
    pub(crate) fn set_busy(&self, busy: bool) {
        self.busy.store(busy, Ordering::Release);
    }

    /// Whether a write waits for a host that does not read.
    pub(crate) fn is_stalled(&self) -> bool {
        self.stalled.load(Ordering::Acquire)
    }

    /// Waits until no write waits for the host.
    pub(crate) async fn unstalled(&self) {
        loop {
            let done = self.unstalled.notified();
            tokio::pin!(done);
            done.as_mut().enable();
            if !self.is_stalled() {
                return;
            }
            done.await;
        }
    }

    /// Sets who hears about a transport broken by a deferred flush.
    pub(crate) fn on_broken(&self, f: OnBroken) {
        let _ = self.on_broken.set(f);
    }

    /// Sets who supervises the flush task (see `engine::task`).
    pub(crate) fn on_panic(&self, f: OnPanic) {
        let _ = self.on_panic.set(f);
    }

    /// The deferred flush task: writes everything appended so far.
    fn flush_deferred(&self) {
        let mut st = lock(&self.state);
        st.flush_scheduled = false;
        if st.buf.is_empty() || st.broken.is_some() || st.closed {
            return;
        }
        if let Err(e) = self.flush_locked(&mut st) {
            drop(st);
            if let Some(f) = self.on_broken.get() {
                f(&e);
            }
        }
    }

    /// Replies append without flushing until [`Writer::release`].
    pub(crate) fn hold(&self) {
        self.holds.fetch_add(1, Ordering::AcqRel);
    }

    /// Ends one [`Writer::hold`]; the last one flushes what was held.
    pub(crate) fn release(&self) -> Result<(), WriteError> {
        let prev = self
            .holds
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |h| h.checked_sub(1))
            .unwrap_or(0);
        if prev != 1 {
            return Ok(());
        }
        let mut st = lock(&self.state);
        if st.buf.is_empty() || st.broken.is_some() || st.closed {
            return Ok(());
        }
        let r = self.flush_locked(&mut st);
        drop(st);
        if let (Err(e), Some(f)) = (&r, self.on_broken.get()) {
            f(e);
        }
        r
    }

    /// Writes a reply: like [`Writer::write`], but it only appends while
    /// replies are held.
    pub(crate) fn write_reply(self: &Arc<Self>, lines: &[u8]) -> Result<(), WriteError> {
        if self.holds.load(Ordering::Acquire) == 0 {
            return self.write(lines, WriteLane::Direct, false);
        }
        let mut st = lock(&self.state);
        self.append(&mut st, lines, WriteLane::Direct, false)?;
        if st.buf.len() >= FLUSH_THRESHOLD && st.broken.is_none() {
            self.flush_locked(&mut st)?;
        }
        Ok(())
    }

    /// Writes encoded lines (each ending in LF) as one unit. With
    /// `open_gate`, held spontaneous frames follow them and the gate opens.
    pub(crate) fn write(
        self: &Arc<Self>,
        lines: &[u8],
        lane: WriteLane,
        open_gate: bool,
    ) -> Result<(), WriteError> {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        let mut st = lock(&self.state);
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        let result = self.append(&mut st, lines, lane, open_gate);
        if let Some(rt) = &self.defer {
            // The handshake is written at once (the host is waiting for
            // it), and so is a frame while no job is open; everything else
            // waits for the one scheduled flush.
            if !open_gate
                && st.broken.is_none()
                && st.buf.len() < FLUSH_THRESHOLD
                && self.busy.load(Ordering::Acquire)
            {
                if !st.buf.is_empty() && !st.flush_scheduled {
                    st.flush_scheduled = true;
                    if !self.flusher_started.swap(true, Ordering::AcqRel) {
                        rt.spawn(supervised_flusher(
                            Arc::downgrade(self),
                            self.flusher.clone(),
                        ));
                    }
                    // A stored permit if the flusher is busy or not yet
                    // waiting: it flushes once more, never too few times.
                    self.flusher.notify_one();
                }
                return result;
            }
        }
        // Flush unless another complete frame is already queued behind us:
        // that writer will flush both.
        if !st.buf.is_empty()
            && st.broken.is_none()
            && (self.waiting.load(Ordering::Acquire) == 0 || st.buf.len() >= FLUSH_THRESHOLD)
        {
            self.flush_locked(&mut st)?;
        }
        result
    }

    fn append(
        &self,
        st: &mut WriterState,
        lines: &[u8],
        lane: WriteLane,
        open_gate: bool,
    ) -> Result<(), WriteError> {
        if let Some(e) = &st.broken {
            return Err(WriteError::Broken(e.clone()));
        }
        if st.closed {
            return Err(WriteError::Closed);
        }
        if lane == WriteLane::Spontaneous {
            if let Some(held) = &mut st.held {
                held.extend_from_slice(lines);
                return Ok(());
            }
        }
        if lines.len() >= FLUSH_THRESHOLD && !open_gate {
            // A large frame would be flushed at once anyway: write it
            // straight from the caller's buffer (after what is buffered)
            // instead of copying it into ours first.
            if !st.buf.is_empty() {
                self.flush_locked(st)?;
            }
            return self.sink_write(st, lines);
        }
        st.buf.extend_from_slice(lines);
        if open_gate {
            if let Some(held) = st.held.take() {
                st.buf.extend_from_slice(&held);
            }
        }
        Ok(())
    }

    fn flush_locked(&self, st: &mut WriterState) -> Result<(), WriteError> {
        let mut buf = std::mem::take(&mut st.buf);
        let r = self.sink_write(st, &buf);
        buf.clear();
        // Keep the allocation for the next frames, unless a burst grew it
        // large: that memory would stay resident for good.
        if buf.capacity() > 4 * INITIAL_BUF {
            buf = Vec::with_capacity(INITIAL_BUF);
        }
        st.buf = buf;
        r
    }

    /// Writes `bytes` to the sink, waiting for the host as long as it keeps
    /// the pipe open; a failure marks the transport broken.
    fn sink_write(&self, st: &mut WriterState, bytes: &[u8]) -> Result<(), WriteError> {
        self.sink_write_until(st, bytes, None)
    }

    fn sink_write_until(
        &self,
        st: &mut WriterState,
        bytes: &[u8],
        deadline: Option<Instant>,
    ) -> Result<(), WriteError> {
        let on_stall = || self.stalled.store(true, Ordering::Release);
        let wait = WriteWait {
            deadline,
            on_stall: &on_stall,
        };
        let written = st.sink.write_all(bytes, &wait);
        if self.stalled.load(Ordering::Acquire) {
            self.stalled.store(false, Ordering::Release);
            self.unstalled.notify_waiters();
        }
        match written {
            Ok(()) => Ok(()),
            Err(e) => {
                let msg = match e.kind() {
                    io::ErrorKind::TimedOut => format!(
                        "the host read nothing for {:?} while the session's last frames waited",
                        self.timeout
                    ),
                    _ => e.to_string(),
                };
                st.broken = Some(msg.clone());
                Err(WriteError::Broken(msg))
            }
        }
    }

    /// Flushes whatever is buffered (held frames included if the gate is
    /// open) and refuses every later write.
    pub(crate) fn close(&self) {
        let mut st = lock(&self.state);
        if !st.buf.is_empty() && st.broken.is_none() {
            // The one bounded write: a host that reads nothing more must not
            // keep a closing session alive.
            let buf = std::mem::take(&mut st.buf);
            let _ = self.sink_write_until(&mut st, &buf, Some(Instant::now() + self.timeout));
        }
        st.closed = true;
        // Drop the real sink: an in-memory host then sees the end of the
        // stream.
        st.sink = Box::new(ClosedSink);
        drop(st);
        // Lets the flusher task end.
        self.flusher.notify_one();
    }

    pub(crate) fn is_broken(&self) -> bool {
        lock(&self.state).broken.is_some()
    }
}

/// The deferred flush task: flushes whenever woken, until the writer is
/// closed or gone.
/// The flush task, its panic reported to [`Writer::on_panic`].
async fn supervised_flusher(writer: std::sync::Weak<Writer>, wake: Arc<tokio::sync::Notify>) {
    let Err(payload) = crate::runtime::panic::CatchPanic::new(flusher(writer.clone(), wake)).await
    else {
        return;
    };
    match writer.upgrade().as_ref().and_then(|w| w.on_panic.get()) {
        Some(report) => report(&*payload),
        None => std::panic::resume_unwind(payload),
    }
}

async fn flusher(writer: std::sync::Weak<Writer>, wake: Arc<tokio::sync::Notify>) {
    loop {
        wake.notified().await;
        let Some(w) = writer.upgrade() else { return };
        w.flush_deferred();
        if lock(&w.state).closed {
            return;
        }
    }
}

struct ClosedSink;

impl FrameSink for ClosedSink {
    fn write_all(&mut self, _buf: &[u8], _wait: &WriteWait<'_>) -> io::Result<()> {
        Err(io::ErrorKind::BrokenPipe.into())
    }
}

/// The real stdout, as a private descriptor (see
/// [`crate::Transport::stdio`]), written with a deadline.
#[cfg(unix)]
pub(crate) struct FdSink {
    fd: std::os::fd::OwnedFd,
}

#[cfg(unix)]
impl FdSink {
    /// Takes ownership of `fd`. A pipe or socket is made non-blocking, so
    /// that a write can wait with `poll(2)` and a deadline instead of
    /// blocking forever; a terminal or file (an extension started by hand)
    /// is left as it is, so the mode does not leak into the shell.
    pub(crate) fn new(fd: std::os::fd::OwnedFd) -> io::Result<Self> {
        use std::os::fd::AsRawFd;
        if crate::wire::fd::is_pipe_or_socket(fd.as_raw_fd()) {
            crate::wire::fd::set_nonblocking(fd.as_raw_fd())?;
        }
        Ok(Self { fd })
    }
}

#[cfg(unix)]
impl FrameSink for FdSink {
    fn write_all(&mut self, mut buf: &[u8], wait: &WriteWait<'_>) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let fd = self.fd.as_raw_fd();
        let mut said_stalled = false;
        while !buf.is_empty() {
            // SAFETY: writing from a valid buffer of the given length.
            let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
            if n > 0 {
                buf = &buf[n as usize..];
                continue;
            }
            let err = io::Error::last_os_error();
            match err.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => {
                    if !said_stalled {
                        wait.stalled();
                        said_stalled = true;
                    }
                    wait_writable(fd, wait.deadline())?;
                }
                _ if n == 0 => return Err(io::ErrorKind::WriteZero.into()),
                _ => return Err(err),
            }
        }
        Ok(())
    }
}

/// Waits until `fd` takes more bytes (or the reader is gone, which the
/// next write reports as EPIPE), at most until `deadline`.
#[cfg(unix)]
fn wait_writable(fd: std::os::fd::RawFd, deadline: Option<Instant>) -> io::Result<()> {
    let ms = match deadline {
        None => -1,
        Some(d) => {
            let now = Instant::now();
            if now >= d {
                return Err(io::ErrorKind::TimedOut.into());
            }
            (d - now).as_millis().clamp(1, i32::MAX as u128) as i32
        }
    };
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    let r = unsafe { libc::poll(&mut pfd, 1, ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

/// The real stdout as a duplicated handle (Windows; see
/// [`crate::Transport::stdio`]), written with blocking writes.
#[cfg(windows)]
pub(crate) struct HandleSink {
    file: std::fs::File,
}

#[cfg(windows)]
impl HandleSink {
    pub(crate) fn new(file: std::fs::File) -> Self {
        Self { file }
    }
}

#[cfg(windows)]
impl FrameSink for HandleSink {
    fn write_all(&mut self, buf: &[u8], _wait: &WriteWait<'_>) -> io::Result<()> {
        use std::io::Write;
        self.file.write_all(buf)
    }
}

/// Plain blocking stdout, where neither descriptors nor handles can be set
/// aside.
#[cfg(not(any(unix, windows)))]
pub(crate) struct StdoutSink;

#[cfg(not(any(unix, windows)))]
impl FrameSink for StdoutSink {
    fn write_all(&mut self, buf: &[u8], _wait: &WriteWait<'_>) -> io::Result<()> {
        use std::io::Write;
        let mut out = io::stdout().lock();
        out.write_all(buf)?;
        out.flush()
    }
}

/// A sink into an in-memory channel (the extension side of
/// [`crate::Transport::memory`]).
pub(crate) struct ChannelSink {
    pub(crate) tx: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
}

impl FrameSink for ChannelSink {
    fn write_all(&mut self, buf: &[u8], _wait: &WriteWait<'_>) -> io::Result<()> {
        self.tx
            .send(buf.to_vec())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the host side was dropped"))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::time::{Duration, Instant};

    use super::{FdSink, FrameSink, WriteLane, WriteWait, Writer};

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills two fresh descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both are ours.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    #[test]
    fn a_write_with_a_deadline_gives_up_at_it() {
        let (_read, write) = pipe();
        let mut sink = FdSink::new(write).unwrap();
        let err = sink
            .write_all(
                &vec![b'x'; 4 * 1024 * 1024],
                &WriteWait::until(Instant::now() + Duration::from_millis(50), &|| {}),
            )
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
    }

    #[test]
    fn a_write_waits_for_a_reader_that_comes_back_and_loses_nothing() {
        use std::io::Read;
        let (read, write) = pipe();
        let payload: Vec<u8> = (0..2 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
        let (stalled_tx, stalled_rx) = std::sync::mpsc::channel();
        let sent = payload.clone();
        let writer = std::thread::spawn(move || {
            let mut sink = FdSink::new(write).unwrap();
            let on_stall = move || {
                let _ = stalled_tx.send(());
            };
            sink.write_all(&sent, &WriteWait::open(&on_stall))
        });
        // The pipe is full and nobody reads: the write says so and waits.
        stalled_rx.recv().unwrap();
        assert!(!writer.is_finished());
        let mut got = Vec::new();
        std::fs::File::from(read).read_to_end(&mut got).unwrap();
        writer.join().unwrap().unwrap();
        assert!(got == payload, "every byte arrives, in order");
    }

    #[test]
    fn the_last_flush_at_close_gives_up_at_its_deadline() {
        let (_read, write) = pipe();
        let writer = Writer::new(
            Box::new(FdSink::new(write).unwrap()),
            Duration::from_millis(20),
            None,
        );
        // Held replies stay buffered: more than the pipe holds.
        writer.hold();
        let mut frame = vec![b'x'; 128 * 1024];
        frame.push(b'\n');
        writer.write_reply(&frame).unwrap();
        writer.close();
        assert!(writer.is_broken());
    }

    #[test]
    fn a_closed_reader_is_a_broken_pipe() {
        let (read, write) = pipe();
        drop(read);
        // Writing to a pipe without reader raises SIGPIPE unless ignored
        // (Rust programs ignore it by default).
        let mut sink = FdSink::new(write).unwrap();
        let err = sink
            .write_all(b"x\n", &WriteWait::open(&|| {}))
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
    }

    type Writes = std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>;

    /// Counts the `write_all` calls a sink receives.
    struct Counting(Writes);

    impl FrameSink for Counting {
        fn write_all(&mut self, buf: &[u8], _wait: &WriteWait<'_>) -> std::io::Result<()> {
            self.0.lock().unwrap().push(buf.to_vec());
            Ok(())
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn deferred_flush_writes_a_pass_of_frames_at_once() {
        let (writer, writes) = deferred();
        // The handshake is written at once...
        writer
            .write(b"{\"type\":\"ready\"}\n", WriteLane::Direct, true)
            .unwrap();
        assert_eq!(writes.lock().unwrap().len(), 1);
        // ...then three replies of one pass wait for the single flush task.
        for i in 0..3 {
            writer
                .write(
                    format!("{{\"n\":{i}}}\n").as_bytes(),
                    WriteLane::Direct,
                    false,
                )
                .unwrap();
        }
        assert_eq!(writes.lock().unwrap().len(), 1);
        tokio::task::yield_now().await;
        let w = writes.lock().unwrap();
        assert_eq!(w.len(), 2, "one write for the three frames");
        assert_eq!(w[1], b"{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn with_no_job_open_a_deferred_writer_writes_at_once() {
        let (writer, writes) = deferred();
        writer
            .write(b"{\"type\":\"ready\"}\n", WriteLane::Direct, true)
            .unwrap();
        writer.set_busy(false);
        writer
            .write(b"{\"n\":0}\n", WriteLane::Direct, false)
            .unwrap();
        // Written before the runtime ran anything else.
        assert_eq!(writes.lock().unwrap().len(), 2);
        writer.set_busy(true);
        writer
            .write(b"{\"n\":1}\n", WriteLane::Direct, false)
            .unwrap();
        assert_eq!(writes.lock().unwrap().len(), 2);
        tokio::task::yield_now().await;
        assert_eq!(writes.lock().unwrap().len(), 3);
    }

    /// A writer with deferred flushing on the current runtime, and what its
    /// sink received, write by write.
    fn deferred() -> (std::sync::Arc<Writer>, Writes) {
        let writes = Writes::default();
        let writer = Writer::new(
            Box::new(Counting(writes.clone())),
            Duration::from_secs(5),
            Some(tokio::runtime::Handle::current()),
        );
        (writer, writes)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_large_frame_follows_the_buffered_ones_without_being_copied() {
        let (writer, writes) = deferred();
        writer.write(b"{}\n", WriteLane::Direct, true).unwrap();
        writer
            .write(b"{\"small\":1}\n", WriteLane::Direct, false)
            .unwrap();
        let mut big = vec![b'x'; super::FLUSH_THRESHOLD];
        big.push(b'\n');
        writer.write(&big, WriteLane::Direct, false).unwrap();
        // Written at once, after the buffered frame, as a write of its own.
        let w = writes.lock().unwrap();
        assert_eq!(w.len(), 3);
        assert_eq!(w[1], b"{\"small\":1}\n");
        assert_eq!(w[2], big);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn close_flushes_what_a_deferred_flush_has_not_written_yet() {
        let (writer, writes) = deferred();
        writer.write(b"{}\n", WriteLane::Direct, true).unwrap();
        writer
            .write(b"{\"last\":1}\n", WriteLane::Direct, false)
            .unwrap();
        writer.close();
        assert_eq!(writes.lock().unwrap().concat(), b"{}\n{\"last\":1}\n");
    }
}
