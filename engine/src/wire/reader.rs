//! The read loop: host frames in, jobs and automatic replies out.
//!
//! Each line is decoded into its typed frame (in one pass for the canonical
//! form, `type` first; see `zot_protocol::Frame`). Jobs produced while more
//! complete lines are already buffered are collected and queued together,
//! so a burst costs the dispatcher a single wake-up; event and panel jobs
//! are read at most [`crate::SERIAL_READ_AHEAD`] ahead of their handlers.

use std::borrow::Cow;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};
use zot_protocol::depth::exceeds_depth;
use zot_protocol::events::UnknownEvent;
use zot_protocol::limits::{MAX_FRAME_DEPTH, PROTOCOL_VERSION};
use zot_protocol::{
    CodecError, CommandAction, CommandResponse, DecodeError, EventInterceptResponse, ExtFrame,
    Frame, HostFrame, LineReader,
};

use crate::jobs::{CommandJob, EventData, InterceptJob, Job, JobId, ToolJob};
use crate::lock;
use crate::requests::intercept::InterceptKind;
use crate::requests::request_ids::IdKind;
use crate::runtime::task::{Fault, Task};
use crate::session::close_reason::CloseReason;
use crate::wire::diagnostics::Repeated;
use crate::wire::reject::refuse_tool;
use crate::wire::transport::{into_reader, Source};
use crate::{CancelToken, Inner, OpenJob, OpenKind, Phase, SerialWhat, SERIAL_READ_AHEAD};

/// A buffered reader that tells whether another complete line is already
/// buffered after each `consume` (the line codec consumes line by line).
struct BatchReader {
    inner: Box<dyn AsyncRead + Send + Unpin>,
    buf: Box<[u8]>,
    pos: usize,
    filled: usize,
    line_ready: Arc<AtomicBool>,
}

impl BatchReader {
    fn new(inner: Box<dyn AsyncRead + Send + Unpin>, line_ready: Arc<AtomicBool>) -> Self {
        Self {
            inner,
            buf: vec![0; zot_protocol::limits::INITIAL_LINE_BUFFER].into_boxed_slice(),
            pos: 0,
            filled: 0,
            line_ready,
        }
    }
}

impl AsyncRead for BatchReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let chunk = match self.as_mut().poll_fill_buf(cx) {
            Poll::Ready(Ok(c)) => c,
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending => return Poll::Pending,
        };
        let n = chunk.len().min(out.remaining());
        out.put_slice(&chunk[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for BatchReader {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        if this.pos >= this.filled {
            let mut rb = ReadBuf::new(&mut this.buf);
            match Pin::new(&mut this.inner).poll_read(cx, &mut rb) {
                Poll::Ready(Ok(())) => {
                    this.filled = rb.filled().len();
                    this.pos = 0;
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(&this.buf[this.pos..this.filled]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let this = self.get_mut();
        this.pos = (this.pos + amt).min(this.filled);
        let more = has_frame_line(&this.buf[this.pos..this.filled]);
        this.line_ready.store(more, Ordering::Relaxed);
    }
}

/// Whether `buf` holds a whole line the codec will return. Blank lines do
/// not count: the codec skips them and then waits for input, so counting
/// them kept the read batch from the dispatcher until more input came (or
/// EOF cancelled it unseen).
fn has_frame_line(buf: &[u8]) -> bool {
    let mut rest = buf;
    // memchr's vector search: a byte-by-byte scan of every next line cost
    // about 3 instructions a byte.
    while let Some(end) = memchr::memchr(b'\n', rest) {
        if !rest[..end].iter().all(u8::is_ascii_whitespace) {
            return true;
        }
        rest = &rest[end + 1..];
    }
    false
}

/// What reading does after a frame.
pub(crate) enum Flow {
    Continue,
    End(CloseReason),
}

pub(crate) async fn run(inner: Arc<Inner>, source: Source) {
    let mut batch = Vec::new();
    let reason = match into_reader(source) {
        Ok(reader) => read_loop(&inner, reader, &mut batch).await,
        Err(e) => Some(CloseReason::Handshake(format!("cannot read stdin: {e}"))),
    };
    end(inner, reason, batch).await;
}

/// After the last line: hand over what was read, then close the session.
/// `reason` is `None` when reading was stopped from outside, which recorded
/// its own reason.
pub(crate) async fn end(inner: Arc<Inner>, reason: Option<CloseReason>, batch: Vec<Job>) {
    inner.queue.push_all(batch);
    let reason = reason
        .or_else(|| lock(&inner.state).close_reason.clone())
        .unwrap_or(CloseReason::Local);
    // A failed handshake is not logged here: it is the session's error,
    // which every SDK's `run` reports (logging it too printed it twice).
    inner.begin_close(reason.clone(), Vec::new());
    inner.finish_close(reason).await;
}

/// Whether the serial backlog is full (see [`crate::SERIAL_READ_AHEAD`]).
pub(crate) fn backlog_full(inner: &Inner) -> bool {
    lock(&inner.state).serial_open >= SERIAL_READ_AHEAD
}

/// Whether a `call_tool` waits for its answer.
fn call_pending(inner: &Inner) -> bool {
    !lock(&inner.state).calls.is_empty()
}

/// Waits until the serial backlog has room, or (unless `parked` is full)
/// a `call_tool` is pending, whose answer must be read past the backlog.
async fn backlog_room(inner: &Inner, parked: &Parked) {
    loop {
        let room = inner.read_room.notified();
        tokio::pin!(room);
        room.as_mut().enable();
        if !backlog_full(inner) || (!parked.is_full() && call_pending(inner)) {
            return;
        }
        room.await;
    }
}

/// How long the reader waits for the on-hello hook before reading on.
pub(crate) const ON_HELLO_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// At most this many bytes of host lines are held unread past a full serial
/// backlog while a `call_tool` waits (the answer to the call overtakes
/// them): two frames of the largest size.
pub const PARKED_READ_AHEAD_BYTES: usize = 2 * zot_protocol::limits::MAX_FRAME_BYTES;

/// Host lines read past a full serial backlog, kept as bytes in arrival
/// order.
///
/// While a `call_tool` waits, its answer may sit behind a burst of events
/// that a handler (perhaps the one waiting) has not consumed. The reader
/// then reads on, answering `tool_result` (and obeying `shutdown`) at once,
/// and parks every other line here undecoded, bounded by
/// [`PARKED_READ_AHEAD_BYTES`]; parked lines are handled, in order, before
/// anything read after them, as soon as the backlog has room.
#[derive(Default)]
struct Parked {
    lines: std::collections::VecDeque<Box<[u8]>>,
    bytes: usize,
}

impl Parked {
    fn is_full(&self) -> bool {
        self.bytes >= PARKED_READ_AHEAD_BYTES
    }

    fn push(&mut self, line: &[u8]) {
        self.bytes += line.len();
        self.lines.push_back(line.into());
    }

    fn pop(&mut self) -> Option<Box<[u8]>> {
        let line = self.lines.pop_front()?;
        self.bytes -= line.len();
        if self.lines.is_empty() {
            // A burst's worth of queue capacity is not kept for good.
            self.lines = Default::default();
        }
        Some(line)
    }
}

/// Whether a line read past a full backlog is handled at once rather than
/// parked: the answer to a `call_tool`, and `shutdown`.
fn overtakes(line: &[u8]) -> bool {
    matches!(
        zot_protocol::FrameTags::read(line).map(|t| t.frame_type),
        Ok(t) if t == "tool_result" || t == "shutdown"
    )
}

/// Reads until the session closes; `None` when stopped from outside.
async fn read_loop(
    inner: &Arc<Inner>,
    reader: Box<dyn AsyncRead + Send + Unpin>,
    batch: &mut Vec<Job>,
) -> Option<CloseReason> {
    let line_ready = Arc::new(AtomicBool::new(false));
    let mut reader = LineReader::new(BatchReader::new(reader, line_ready.clone()));
    let mut lines = Lines::default();
    let mut parked = Parked::default();
    // Reading goes on past a full backlog (for a `call_tool`'s answer).
    let mut past_backlog = false;
    let mut announced = false;
    // One stop future for the whole loop: a fresh one per line would
    // register and unregister a waiter for every frame.
    let stop = inner.stop.cancelled();
    tokio::pin!(stop);
    loop {
        if lines.handshaken && !announced {
            if !wait_for_announce(inner, &mut stop).await {
                return None;
            }
            announced = true;
        }
        // Hand over what was read when the buffer has no whole line left
        // (or the batch grew large), and look at the backlogs then.
        if !line_ready.load(Ordering::Relaxed)
            || batch.len() >= SERIAL_READ_AHEAD / 4
            || !parked.lines.is_empty()
        {
            match hand_over(inner, &mut lines, &mut parked, batch, &mut stop).await {
                HandOver::Read { past_full_backlog } => past_backlog = past_full_backlog,
                HandOver::Unpark => {
                    past_backlog = false;
                    continue;
                }
                HandOver::Stopped => return None,
                HandOver::End(reason) => return Some(reason),
            }
        }
        let next = tokio::select! {
            biased;
            _ = &mut stop => return None,
            r = reader.next_line() => r,
        };
        if lines.handshaken && inner.fault == Some(Fault::ReaderPanic) {
            panic!("injected fault: the reader panics after the handshake (ZOT_EXT_TEST_FAULT)");
        }
        let next = match next {
            Ok(Some(line)) if (past_backlog || !parked.lines.is_empty()) && !overtakes(line) => {
                parked.push(line);
                continue;
            }
            Ok(Some(line)) => Ok(line),
            Ok(None) => {
                // Nothing parked is lost at EOF: it is handed over first.
                let _ = unpark(inner, &mut lines, &mut parked, batch, true);
                return Some(lines.eof());
            }
            Err(e) => Err(e),
        };
        if let Flow::End(reason) = lines.on_line(inner, next, batch) {
            return Some(reason);
        }
    }
}

/// Frames after `hello_ack` wait for the on-hello hook: a request the host
/// sends early must meet the registry that hook builds, and EOF must not
/// end the session before `ready` is written. Bounded, so a hook that never
/// returns cannot wedge reading. `false`: stopped from outside.
async fn wait_for_announce<F: Future<Output = ()>>(inner: &Inner, stop: &mut Pin<&mut F>) -> bool {
    tokio::select! {
        biased;
        _ = stop.as_mut() => false,
        _ = inner.announced.cancelled() => true,
        _ = tokio::time::sleep(ON_HELLO_WAIT) => {
            inner.diag(HELLO_WAIT_OVER);
            true
        }
    }
}

/// What the read loop does after handing a batch over.
enum HandOver {
    /// Read the next line; past a full backlog, only an overtaking line is
    /// handled and the rest parked.
    Read { past_full_backlog: bool },
    /// The backlog has room again and lines are parked: hand those over
    /// first.
    Unpark,
    /// Stopped from outside.
    Stopped,
    /// The session ended.
    End(CloseReason),
}

/// Hands the batch (and parked lines the backlog has room for) to the
/// queue, then waits while the host does not read our replies or the
/// serial backlog is full.
async fn hand_over<F: Future<Output = ()>>(
    inner: &Arc<Inner>,
    lines: &mut Lines,
    parked: &mut Parked,
    batch: &mut Vec<Job>,
    stop: &mut Pin<&mut F>,
) -> HandOver {
    if let Flow::End(reason) = unpark(inner, lines, parked, batch, false) {
        return HandOver::End(reason);
    }
    if !batch.is_empty() {
        inner.queue.push_all(batch.drain(..));
    }
    // Backpressure: no new requests while a reply waits for a host that
    // does not read (see `writer`).
    if inner.writer.is_stalled() {
        tokio::select! {
            biased;
            _ = stop.as_mut() => return HandOver::Stopped,
            _ = inner.writer.unstalled() => {}
        }
    }
    if !backlog_full(inner) {
        return HandOver::Read {
            past_full_backlog: false,
        };
    }
    tokio::select! {
        biased;
        _ = stop.as_mut() => return HandOver::Stopped,
        _ = backlog_room(inner, parked) => {}
    }
    let past_full_backlog = backlog_full(inner);
    if !past_full_backlog && !parked.lines.is_empty() {
        return HandOver::Unpark;
    }
    HandOver::Read { past_full_backlog }
}

/// Handles parked lines, in order, while the serial backlog has room (or,
/// with `all`, every one of them: the input ended).
fn unpark(
    inner: &Arc<Inner>,
    lines: &mut Lines,
    parked: &mut Parked,
    batch: &mut Vec<Job>,
    all: bool,
) -> Flow {
    while !parked.lines.is_empty() && (all || !backlog_full(inner)) {
        if let Flow::End(reason) = unpark_one(inner, lines, parked, batch) {
            return Flow::End(reason);
        }
    }
    Flow::Continue
}

fn unpark_one(
    inner: &Arc<Inner>,
    lines: &mut Lines,
    parked: &mut Parked,
    batch: &mut Vec<Job>,
) -> Flow {
    let Some(line) = parked.pop() else {
        return Flow::Continue;
    };
    let flow = lines.on_line(inner, Ok(&line), batch);
    // Serial jobs count against the backlog only once queued.
    if batch.len() >= SERIAL_READ_AHEAD / 4 {
        inner.queue.push_all(batch.drain(..));
    }
    flow
}

/// Said when the on-hello hook outlives [`ON_HELLO_WAIT`].
pub(crate) const HELLO_WAIT_OVER: &str = "the on-hello hook has not finished after 5 s; reading on";

/// The per-line part of reading: the handshake, decoding, and what each
/// frame does.
#[derive(Default)]
pub(crate) struct Lines {
    /// `hello_ack` was read.
    pub(crate) handshaken: bool,
}

impl Lines {
    /// Why the session ends when the input ends now.
    pub(crate) fn eof(&self) -> CloseReason {
        if self.handshaken {
            CloseReason::Eof
        } else {
            CloseReason::Handshake("stdin closed before hello_ack".into())
        }
    }

    /// One line (or the codec's error for it).
    pub(crate) fn on_line(
        &mut self,
        inner: &Arc<Inner>,
        next: Result<&[u8], CodecError>,
        batch: &mut Vec<Job>,
    ) -> Flow {
        // The line as read, kept for events (see `handle`).
        let text = next.as_ref().map_or(&[][..], |line| *line);
        let frame = match next {
            // Bounded before anything parses it: see `reject`.
            Ok(line) if exceeds_depth(line, MAX_FRAME_DEPTH) => {
                if !self.handshaken {
                    return Flow::End(CloseReason::Handshake(format!(
                        "first host line: {}",
                        crate::wire::reject::too_deep_message()
                    )));
                }
                crate::wire::reject::too_deep(inner, line);
                return Flow::Continue;
            }
            Ok(line) => match HostFrame::decode(line) {
                // SDK-50: logged and skipped, but a request whose id can be
                // read still gets its one reply (see `reject`).
                Err(e) if self.handshaken => {
                    crate::wire::reject::undecodable(inner, line, &e);
                    return Flow::Continue;
                }
                other => other,
            },
            Err(CodecError::Io(e)) if self.handshaken => {
                inner.diag(&format!("reading stdin failed: {e}; treating it as EOF"));
                return Flow::End(CloseReason::Eof);
            }
            Err(e @ CodecError::Io(_)) => {
                return Flow::End(CloseReason::Handshake(format!(
                    "reading hello_ack failed: {e}"
                )))
            }
            Err(e) => {
                // An oversize line was skipped (SDK-51 bounds it at 4 MiB).
                if !self.handshaken {
                    return Flow::End(CloseReason::Handshake(format!("first host line: {e}")));
                }
                inner.diag_repeated(Repeated::OversizeLine, || format!("host line skipped: {e}"));
                return Flow::Continue;
            }
        };
        if !self.handshaken {
            return self.on_first_frame(inner, frame);
        }
        match frame {
            Ok(frame) => handle(inner, frame, text, batch),
            // Answered above.
            Err(_) => Flow::Continue,
        }
    }

    /// The first host frame, which must be `hello_ack` (SDK-4).
    fn on_first_frame(
        &mut self,
        inner: &Arc<Inner>,
        frame: Result<HostFrame, DecodeError>,
    ) -> Flow {
        match frame {
            Ok(HostFrame::HelloAck(ack)) => {
                if ack.protocol_version != PROTOCOL_VERSION {
                    inner.diag(&format!(
                        "the host speaks protocol_version {}, this SDK {PROTOCOL_VERSION}; going on, but frames may be misread",
                        ack.protocol_version
                    ));
                }
                let ack = Arc::new(ack);
                let _ = inner.hello_ack.set(ack.clone());
                lock(&inner.state).phase = Phase::Hello;
                inner.queue.push(Job::Hello(ack));
                self.handshaken = true;
                Flow::Continue
            }
            Ok(other) => Flow::End(CloseReason::Handshake(format!(
                "expected hello_ack as the first host frame, got {:?}",
                other.type_name()
            ))),
            Err(e) => Flow::End(CloseReason::Handshake(format!("first host line: {e}"))),
        }
    }
}

/// `line` is the frame's text (kept for events, see
/// [`crate::EngineConfig::event_frames`]).
fn handle(inner: &Arc<Inner>, frame: HostFrame, line: &[u8], batch: &mut Vec<Job>) -> Flow {
    match frame {
        // SDK-5.
        HostFrame::HelloAck(_) => inner.diag_repeated(Repeated::DuplicateHelloAck, || {
            "a second hello_ack was ignored (only the first one counts)".to_owned()
        }),
        HostFrame::CommandInvoked(c) => on_command(inner, c, batch),
        HostFrame::ToolCall(t) => on_tool(inner, t, batch),
        HostFrame::ToolCancel(c) => on_tool_cancel(inner, &c.id, batch),
        HostFrame::ToolResult(r) => inner.on_host_result(r),
        HostFrame::Event(ev) => on_event(inner, EventData::Known(ev), line, batch),
        HostFrame::UnknownEvent(u) => on_event(inner, EventData::Unknown(u), line, batch),
        HostFrame::EventIntercept(req) => on_intercept(inner, req, batch),
        HostFrame::UnknownIntercept(u) => allow_unknown_intercept(inner, &u),
        HostFrame::PanelKey(key) => {
            if let Some(registration) = panel_input(inner, &key.panel_id, "key") {
                let id = serial(inner, panel(&key.panel_id, "key"));
                batch.push(Job::PanelKey {
                    id,
                    key,
                    registration,
                });
            }
        }
        HostFrame::PanelClose(c) => {
            if let Some(registration) = panel_input(inner, &c.panel_id, "close") {
                let id = serial(inner, panel(&c.panel_id, "close"));
                batch.push(Job::PanelClose {
                    id,
                    panel_id: c.panel_id,
                    registration,
                });
            }
        }
        HostFrame::PanelResize(resize) => {
            // SDK-54: accepted and surfaced.
            if let Some(registration) = panel_input(inner, &resize.panel_id, "resize") {
                let id = serial(inner, panel(&resize.panel_id, "resize"));
                batch.push(Job::PanelResize {
                    id,
                    resize,
                    registration,
                });
            }
        }
        HostFrame::Shutdown => return Flow::End(CloseReason::Shutdown),
        HostFrame::Unknown(u) => inner.diag_repeated(Repeated::UnknownFrame, || {
            format!("unknown host frame type {:?} ignored", u.type_name)
        }),
    }
    Flow::Continue
}

/// `tool_cancel`: the running tool job with that host id is cancelled, and
/// the `call_tool` calls it made are abandoned.
fn on_tool_cancel(inner: &Inner, host_id: &str, batch: &mut Vec<Job>) {
    let children = {
        let mut st = lock(&inner.state);
        match st.ids.tool(host_id) {
            Some(id) => inner.cancel_job(&mut st, id, batch),
            None => {
                // SDK-22: unknown or finished ids are ignored.
                tracing::debug!(id = %host_id, "tool_cancel for no running tool; ignored");
                Vec::new()
            }
        }
    };
    if !children.is_empty() {
        // The Cancel job must reach the queue before the results of
        // the child calls it causes.
        inner.queue.push_all(batch.drain(..));
        inner.abandon_children(children);
    }
}

fn open(inner: &Inner, kind: OpenKind, invocation: String) -> (u64, OpenJob) {
    (
        inner.next_job(),
        OpenJob {
            kind,
            invocation,
            token: CancelToken::new(),
            children: Vec::new(),
            timer: None,
        },
    )
}

/// The registration of `panel_id`'s handlers that input arriving now goes
/// to (`panels.rs`); `None`: no handlers, the input is ignored (SDK-46).
fn panel_input(inner: &Inner, panel_id: &str, what: &'static str) -> Option<u64> {
    let mut st = lock(&inner.state);
    let registration = if what == "close" {
        st.panels.close(panel_id)
    } else {
        st.panels.input(panel_id)
    };
    if registration.is_none() {
        tracing::debug!(panel = %panel_id, what, "panel input for a panel without handlers; ignored");
    }
    registration
}

fn panel(panel_id: &str, what: &'static str) -> SerialWhat {
    SerialWhat::Panel {
        panel_id: panel_id.to_owned(),
        what,
    }
}

/// Opens an event or panel job; its token is the session token.
fn serial(inner: &Inner, what: SerialWhat) -> JobId {
    let id = inner.next_job();
    let job = OpenJob {
        kind: OpenKind::Serial(what),
        invocation: String::new(),
        token: inner.session.clone(),
        children: Vec::new(),
        timer: None,
    };
    let mut st = lock(&inner.state);
    st.jobs.insert(id, job);
    st.serial_open += 1;
    JobId(id)
}

fn on_event(inner: &Inner, event: EventData, line: &[u8], batch: &mut Vec<Job>) {
    // SDK-37: events without a handler are ignored.
    if !lock(&inner.state).registry.subscribed(event.name()) {
        return;
    }
    let what = match &event {
        EventData::Known(e) => Cow::Borrowed(e.name()),
        EventData::Unknown(u) => Cow::Owned(u.event.clone()),
    };
    // The line decoded as a frame, so it is JSON; only its bytes outside
    // strings were not checked to be UTF-8 (a non-ASCII byte there fails
    // decoding), hence the check is cheap and never fails in practice.
    let frame = if inner.config.event_frames {
        std::str::from_utf8(line.trim_ascii()).ok().map(Box::from)
    } else {
        None
    };
    let id = serial(inner, SerialWhat::Event(what));
    batch.push(Job::Event {
        id,
        event: Box::new(event),
        frame,
    });
}

fn on_command(inner: &Arc<Inner>, c: zot_protocol::CommandInvoked, batch: &mut Vec<Job>) {
    let mut st = lock(&inner.state);
    if st.ids.running(IdKind::Command, &c.id, &st.jobs) {
        drop(st);
        let mut resp = CommandResponse::new(&c.id, CommandAction::Noop);
        resp.error = duplicate(inner, "command_invoked", &c.id);
        return inner.reply(ExtFrame::CommandResponse(resp));
    }
    let Some(name) = st.registry.command(&c.name).map(|r| r.name.clone()) else {
        drop(st);
        // SDK-15.
        let mut resp = CommandResponse::new(c.id, CommandAction::Noop);
        resp.error = format!("no handler for /{}", c.name);
        return inner.reply(ExtFrame::CommandResponse(resp));
    };
    let (id, job) = open(inner, OpenKind::Command, c.id.clone());
    st.ids.insert(IdKind::Command, c.id.clone(), id);
    st.jobs.insert(id, job);
    batch.push(Job::Command(CommandJob {
        id: JobId(id),
        invocation: c.id,
        name,
        args: c.args,
        cancelled: false,
    }));
}

fn on_tool(inner: &Arc<Inner>, t: zot_protocol::ToolCall, batch: &mut Vec<Job>) {
    let mut st = lock(&inner.state);
    if st.ids.running(IdKind::Tool, &t.id, &st.jobs) {
        drop(st);
        let text = duplicate(inner, "tool_call", &t.id);
        return refuse_tool(inner, t.id, text);
    }
    let Some((interactive, check)) = st
        .registry
        .tool(&t.name)
        .map(|r| (r.interactive, st.registry.checks.get(&r.name).cloned()))
    else {
        drop(st);
        // SDK-20.
        return refuse_tool(inner, t.id, format!("no handler for tool {:?}", t.name));
    };
    // The arguments are checked once, here, for every SDK (see `args`).
    let mut args = t.args;
    if let Some(check) = check {
        match check.check(&args) {
            Ok(Some(normalised)) => args = normalised,
            Ok(None) => {}
            Err(text) => {
                drop(st);
                return refuse_tool(inner, t.id, text);
            }
        }
    }
    // The token exists from here on, before any handler runs (§8), so a
    // tool_cancel that overtakes the dispatcher is recorded.
    let (id, job) = open(inner, OpenKind::Tool, t.id.clone());
    st.ids.insert(IdKind::Tool, t.id.clone(), id);
    st.jobs.insert(id, job);
    batch.push(Job::Tool(ToolJob {
        id: JobId(id),
        invocation: t.id,
        name: t.name,
        args,
        interactive,
        cancelled: false,
    }));
}

fn on_intercept(inner: &Arc<Inner>, req: zot_protocol::InterceptRequest, batch: &mut Vec<Job>) {
    let mut st = lock(&inner.state);
    if st.ids.running(IdKind::Intercept, req.id(), &st.jobs) {
        drop(st);
        // As for a failed handler: the host may apply this answer to the
        // running request, so a guard must not open the gate (SDK-45).
        let msg = duplicate(inner, "event_intercept", req.id());
        let resp = crate::requests::intercept::failure(req.id(), &InterceptKind::of(&req), &msg);
        return inner.reply(ExtFrame::EventInterceptResponse(resp));
    }
    if let Some(problem) = crate::wire::reject::bad_intercept_field(&req) {
        let guarded = st.registry.intercepts(req.name());
        drop(st);
        return crate::wire::reject::refuse_intercept(inner, &req, guarded, &problem);
    }
    if !st.registry.intercepts(req.name()) {
        drop(st);
        // SDK-40: no handler, allow unchanged.
        return inner.reply(ExtFrame::EventInterceptResponse(
            EventInterceptResponse::allow(req.id()),
        ));
    }
    let (id, mut job) = open(
        inner,
        OpenKind::Intercept(InterceptKind::of(&req)),
        req.id().to_owned(),
    );
    st.ids.insert(IdKind::Intercept, req.id().to_owned(), id);
    let weak = Arc::downgrade(inner);
    let after = inner.config.intercept_timeout;
    job.timer = Some(
        inner
            .spawn(Task::InterceptDeadline, async move {
                tokio::time::sleep(after).await;
                if let Some(inner) = weak.upgrade() {
                    inner.expire_intercept(id);
                }
            })
            .abort_handle(),
    );
    st.jobs.insert(id, job);
    batch.push(Job::Intercept(Box::new(InterceptJob {
        id: JobId(id),
        request: req,
        cancelled: false,
    })));
}

/// A request with the id of one still running is answered at once with an
/// error and not run (see `request_ids`); returns the error text.
fn duplicate(inner: &Inner, frame: &str, id: &str) -> String {
    let msg = format!(
        "duplicate {frame} id {id:?}: a request with this id is still running; this one was not run"
    );
    inner.diag(&msg);
    msg
}

fn allow_unknown_intercept(inner: &Inner, u: &UnknownEvent) {
    if u.id.is_empty() {
        return inner.diag_repeated(Repeated::InterceptWithoutId, || {
            format!("event_intercept {:?} without id ignored", u.event)
        });
    }
    inner.reply(ExtFrame::EventInterceptResponse(
        EventInterceptResponse::allow(&u.id),
    ));
}
