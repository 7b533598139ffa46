//! One loaded extension: its connection state, the read loop that dispatches
//! its frames, readiness (§5.3, see `crate::process::ready`) and the disconnect path
//! (§16.6, HOST-154).

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock, Weak};

use tokio::io::AsyncBufRead;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;
use zot_protocol::depth::exceeds_depth;
use zot_protocol::limits::MAX_FRAME_DEPTH;
use zot_protocol::{
    Capability, CodecError, CommandResponse, EventInterceptResponse, ExtFrame, Frame, FrameTags,
    Hello, LineReader, ToolResult,
};

use crate::deadline::{self, Deadline};
use crate::process::outbound::Outbound;
use crate::process::ready::ReadyState;
use crate::process::shared::Shared;
use crate::process::spawn::ExtLog;
use crate::process::stop::stop_process;
use crate::process::supervise::Supervised;
use crate::store::discovery::Source;
use crate::store::manifest::Manifest;
use crate::transcript::Observation;
use crate::util::printable;
use crate::wire::Dir;

/// Receives the frames the read loop does not handle itself: spontaneous UI
/// frames, `call_tool`, `call_tool_cancel`; and disconnect notices.
pub trait FrameHandler: Send + Sync {
    /// A frame from `ext` (called on its read loop, in arrival order).
    fn on_frame(&self, ext: &Arc<LoadedExtension>, frame: ExtFrame);
    /// `ext` disconnected.
    fn on_disconnect(&self, ext: &Arc<LoadedExtension>);
    /// Every line read from `ext` after the handshake (for scripted waits).
    fn on_line(&self, _ext: &Arc<LoadedExtension>, _line: &[u8]) {}
}

/// Where the read loops find the frame handler (the session engine), which
/// is installed after the manager is made and held weakly.
#[derive(Clone, Default)]
pub struct HandlerSlot(Arc<RwLock<Option<Weak<dyn FrameHandler>>>>);

impl HandlerSlot {
    /// Installs the handler.
    pub fn set(&self, h: Weak<dyn FrameHandler>) {
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = Some(h);
    }

    /// The handler, if one is installed and alive.
    pub fn get(&self) -> Option<Arc<dyn FrameHandler>> {
        self.0
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .and_then(Weak::upgrade)
    }
}

/// A reply routed to a waiting request by `id`.
#[derive(Debug, Clone)]
pub enum Reply {
    /// `command_response`.
    Command(CommandResponse),
    /// `tool_result` (answer to a host `tool_call`).
    Tool(ToolResult),
    /// `event_intercept_response`.
    Intercept(EventInterceptResponse),
    /// A reply frame that carried a known `id` but could not be decoded.
    Malformed(String),
}

/// Which reply a request waits for; a reply of another type with the same
/// id is not an answer to it (HOST-46).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyKind {
    /// `command_response`.
    Command,
    /// `tool_result`.
    Tool,
    /// `event_intercept_response`.
    Intercept,
}

impl Reply {
    fn kind(&self) -> Option<ReplyKind> {
        match self {
            Self::Command(_) => Some(ReplyKind::Command),
            Self::Tool(_) => Some(ReplyKind::Tool),
            Self::Intercept(_) => Some(ReplyKind::Intercept),
            Self::Malformed(_) => None,
        }
    }
}

/// An outstanding host `tool_call` to this extension (a possible
/// `call_tool` parent, §9.3).
#[derive(Debug, Clone)]
pub struct HostCall {
    /// Tool names of the chain, the invoked tool last.
    pub chain: Vec<String>,
    /// Cancelled when the invocation ends or is abandoned; nested calls use
    /// child tokens (HOST-89).
    pub cancel: CancellationToken,
    /// Durable identity of the invocation (continuous mode, §9.5).
    pub scope: String,
    /// How many key-less nested calls it made so far.
    pub ordinal: Arc<std::sync::atomic::AtomicU64>,
}

/// One loaded extension.
pub struct LoadedExtension {
    /// Manifest name: the extension's identity (HOST-24).
    pub name: String,
    /// Extension directory.
    pub dir: PathBuf,
    /// The manifest.
    pub manifest: Manifest,
    /// Where it was found.
    pub source: Source,
    /// Load rank (OP-3).
    pub rank: usize,
    /// The `hello` it sent.
    pub hello: Hello,
    /// Its stderr log.
    pub log: Arc<ExtLog>,
    /// Its outbound queue.
    pub outbound: Outbound,
    pending: Mutex<HashMap<String, (ReplyKind, oneshot::Sender<Reply>)>>,
    events: Mutex<BTreeSet<String>>,
    intercepts: Mutex<BTreeSet<String>>,
    ready: watch::Sender<ReadyState>,
    gone: CancellationToken,
    reader_done: CancellationToken,
    disconnect_reason: Mutex<Option<String>>,
    /// Outstanding host `tool_call`s by id.
    pub host_calls: Mutex<HashMap<String, HostCall>>,
    /// Outstanding `call_tool`s of this extension by id.
    pub ext_calls: Mutex<HashMap<String, CancellationToken>>,
    /// The process, watched by the read loop for its exit (`None`: the
    /// fuzzing hook's peer, which has none).
    process: Option<Supervised>,
    /// The same, taken by whoever stops it (shutdown or the disconnect reaper).
    child: tokio::sync::Mutex<Option<Supervised>>,
    diagnostics: Mutex<Diagnostics>,
    registrations: std::sync::atomic::AtomicUsize,
    handler: HandlerSlot,
}

/// Diagnostics kept for `ext doctor` per extension at most; later ones are
/// counted (every one is still logged and reported as it happens).
pub const MAX_DIAGNOSTICS: usize = 256;

/// Command and tool registrations accepted per extension at most (active
/// or not); beyond that `register_*` frames are ignored with a diagnostic.
pub const MAX_REGISTRATIONS: usize = 4096;

#[derive(Default)]
struct Diagnostics {
    kept: Vec<String>,
    dropped: u64,
}

impl Diagnostics {
    fn push(&mut self, msg: &str) {
        if self.kept.len() < MAX_DIAGNOSTICS {
            self.kept.push(msg.to_owned());
        } else {
            self.dropped += 1;
        }
    }
}

impl std::fmt::Debug for LoadedExtension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedExtension")
            .field("name", &self.name)
            .finish()
    }
}

fn kind_name(k: ReplyKind) -> &'static str {
    match k {
        ReplyKind::Command => "command_response",
        ReplyKind::Tool => "tool_result",
        ReplyKind::Intercept => "event_intercept_response",
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The pieces [`LoadedExtension::new`] needs.
pub struct NewExtension {
    /// Manifest name.
    pub name: String,
    /// Directory.
    pub dir: PathBuf,
    /// Manifest.
    pub manifest: Manifest,
    /// Source.
    pub source: Source,
    /// Rank.
    pub rank: usize,
    /// `hello`.
    pub hello: Hello,
    /// Log.
    pub log: Arc<ExtLog>,
    /// Outbound queue.
    pub outbound: Outbound,
    /// The process (`None` for a peer without one: the fuzzing hook's).
    pub process: Option<Supervised>,
    /// Where its read loop finds the frame handler.
    pub handler: HandlerSlot,
}

impl LoadedExtension {
    /// Wraps a handshaken extension.
    pub fn new(n: NewExtension) -> Arc<Self> {
        Arc::new(Self {
            name: n.name,
            dir: n.dir,
            manifest: n.manifest,
            source: n.source,
            rank: n.rank,
            hello: n.hello,
            log: n.log,
            outbound: n.outbound,
            pending: Mutex::default(),
            events: Mutex::default(),
            intercepts: Mutex::default(),
            ready: watch::Sender::new(ReadyState::Pending),
            gone: CancellationToken::new(),
            reader_done: CancellationToken::new(),
            disconnect_reason: Mutex::default(),
            host_calls: Mutex::default(),
            ext_calls: Mutex::default(),
            child: tokio::sync::Mutex::new(n.process.clone()),
            process: n.process,
            diagnostics: Mutex::default(),
            registrations: Default::default(),
            handler: n.handler,
        })
    }

    /// Whether `hello.capabilities` holds exactly `cap` (HOST-29).
    pub fn has_capability(&self, cap: &Capability) -> bool {
        self.hello.capabilities.contains(cap)
    }

    /// Whether the extension is still connected.
    pub fn is_connected(&self) -> bool {
        !self.gone.is_cancelled()
    }

    /// Cancelled when the extension disconnects.
    pub fn gone_token(&self) -> CancellationToken {
        self.gone.clone()
    }

    /// Cancelled when the read loop has ended.
    pub fn reader_done(&self) -> CancellationToken {
        self.reader_done.clone()
    }

    /// Why it disconnected.
    pub fn disconnect_reason(&self) -> Option<String> {
        lock(&self.disconnect_reason).clone()
    }

    /// Whether it subscribed to the observational event `name`.
    pub fn subscribed(&self, name: &str) -> bool {
        lock(&self.events).contains(name)
    }

    /// Whether it intercepts `name`.
    pub fn intercepts(&self, name: &str) -> bool {
        lock(&self.intercepts).contains(name)
    }

    /// The readiness state.
    pub fn ready_state(&self) -> ReadyState {
        *self.ready.borrow()
    }

    /// A receiver of readiness changes.
    pub fn ready_watch(&self) -> watch::Receiver<ReadyState> {
        self.ready.subscribe()
    }

    /// Sets the readiness state if still pending (first trigger wins).
    pub fn mark_ready(&self, state: ReadyState) -> bool {
        self.ready.send_if_modified(|s| {
            if *s == ReadyState::Pending {
                *s = state;
                true
            } else {
                false
            }
        })
    }

    /// Takes a `subscribe` frame. Unknown names never fire (§4.3.4): only
    /// the known ones are kept, so a subscription cannot grow without
    /// bound; the others are diagnosed (a typo would otherwise go unseen,
    /// in the log and in `ext doctor`).
    fn subscribe(&self, shared: &Shared, s: zot_protocol::Subscribe) {
        let (known, unknown): (Vec<String>, Vec<String>) = s
            .events
            .into_iter()
            .partition(|e| zot_protocol::values::LIFECYCLE_EVENT_NAMES.contains(&e.as_str()));
        lock(&self.events).extend(known);
        if !unknown.is_empty() {
            let names = quoted_list(&unknown);
            self.diagnose(
                shared,
                &format!("subscribe: unknown events never fire: {names}"),
            );
        }
        let (interceptable, ignored): (Vec<String>, Vec<String>) = s
            .intercept
            .into_iter()
            .partition(|e| zot_protocol::InterceptRequest::EVENTS.contains(&e.as_str()));
        lock(&self.intercepts).extend(interceptable);
        if !ignored.is_empty() {
            let names = quoted_list(&ignored);
            let can = zot_protocol::InterceptRequest::EVENTS.join(", ");
            self.diagnose(
                shared,
                &format!("subscribe: not interceptable, ignored: {names} (interceptable: {can})"),
            );
        }
    }

    /// Records a diagnostic (kept for `ext doctor`), logs it, and reports it.
    /// Control characters in it are escaped (one line, nothing a terminal
    /// acts on: it may quote the extension's text).
    pub fn diagnose(&self, shared: &Shared, msg: &str) {
        let msg = printable(msg);
        lock(&self.diagnostics).push(&msg);
        self.log.line(&msg);
        shared.transcript.push(Observation::Diagnostic {
            ext: self.name.clone(),
            message: msg.into_owned(),
        });
    }

    /// Records a diagnostic (doctor + log) without reporting it; escaped as
    /// [`Self::diagnose`] does.
    pub fn record(&self, msg: &str) {
        let msg = printable(msg);
        lock(&self.diagnostics).push(&msg);
        self.log.line(&msg);
    }

    /// Diagnostics recorded so far.
    /// Diagnostics recorded so far (the first [`MAX_DIAGNOSTICS`], then
    /// how many more there were).
    pub fn diagnostics(&self) -> Vec<String> {
        let d = lock(&self.diagnostics);
        let mut v = d.kept.clone();
        if d.dropped > 0 {
            v.push(format!(
                "... and {} more diagnostics (see the log)",
                d.dropped
            ));
        }
        v
    }

    /// How many diagnostics are kept in memory.
    pub fn diagnostic_count(&self) -> usize {
        lock(&self.diagnostics).kept.len()
    }

    /// How many event and interception names it subscribed to.
    pub fn subscription_count(&self) -> usize {
        lock(&self.events).len() + lock(&self.intercepts).len()
    }

    /// How many requests wait for a reply.
    pub fn pending_replies(&self) -> usize {
        lock(&self.pending).len()
    }

    /// Counts a `register_*` frame; false (with one diagnostic) once
    /// [`MAX_REGISTRATIONS`] were accepted.
    fn admit_registration(&self, shared: &Shared) -> bool {
        let n = self
            .registrations
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if n == MAX_REGISTRATIONS {
            self.diagnose(
                shared,
                &format!("more than {MAX_REGISTRATIONS} commands and tools registered; ignoring the rest"),
            );
        }
        n < MAX_REGISTRATIONS
    }

    /// Registers a waiter for the reply with `id`.
    pub fn expect_reply(&self, id: &str, kind: ReplyKind) -> oneshot::Receiver<Reply> {
        let (tx, rx) = oneshot::channel();
        // Checked under the lock that `disconnect` clears with, so a request
        // either fails at once or is failed by the disconnect.
        let mut pending = lock(&self.pending);
        if self.is_connected() {
            pending.insert(id.to_owned(), (kind, tx));
        }
        rx
    }

    /// Forgets a waiter (late replies are then ignored, HOST-69).
    pub fn forget_reply(&self, id: &str) {
        lock(&self.pending).remove(id);
    }

    fn deliver(&self, id: &str, reply: Reply, ty: &str) -> bool {
        let mut pending = lock(&self.pending);
        let matches = pending.get(id).is_some_and(|(kind, _)| {
            reply.kind().is_none_or(|k| k == *kind)
                && (reply.kind().is_some() || kind_name(*kind) == ty)
        });
        if !matches {
            return false;
        }
        match pending.remove(id) {
            Some((_, tx)) => tx.send(reply).is_ok(),
            None => false,
        }
    }

    /// Takes the child process (for shutdown / reaping).
    pub async fn take_child(&self) -> Option<Supervised> {
        self.child.lock().await.take()
    }

    /// The disconnect path (§16.6): cancel in-flight `call_tool`s, close
    /// stdin, remove commands and tools, fail pending requests, mark ready,
    /// log. Idempotent.
    pub fn disconnect(self: &Arc<Self>, shared: &Arc<Shared>, reason: &str) {
        {
            let mut r = lock(&self.disconnect_reason);
            if r.is_some() {
                return;
            }
            *r = Some(reason.to_owned());
        }
        // No new request may register from here on.
        self.gone.cancel();
        for (_, tok) in lock(&self.ext_calls).drain() {
            tok.cancel();
        }
        self.outbound.close(reason);
        lock(&shared.registry).remove_extension(&self.name);
        self.mark_ready(ReadyState::Exited);
        self.log.line(&format!(
            "extension {} read loop exited at {} ({reason})",
            self.name,
            crate::util::rfc3339_now()
        ));
        // Report before failing the pending requests, so that observers see
        // the disconnect before its consequences.
        let shutting_down = shared.is_shutting_down();
        if !shutting_down {
            shared.transcript.push(Observation::Disconnected {
                ext: self.name.clone(),
                reason: reason.to_owned(),
                log: self.log.path().display().to_string(),
            });
        }
        if let Some(h) = self.handler.get() {
            h.on_disconnect(self);
        }
        lock(&self.pending).clear();
        for (_, call) in lock(&self.host_calls).iter() {
            call.cancel.cancel();
        }
        if !shutting_down {
            // Reap the process in the background: a crashed one exits by
            // itself; one that lingers gets the shutdown escalation.
            let me = self.clone();
            let t = shared.cfg.timeouts.clone();
            let hurry = shared.hurry_token();
            shared.add_reaper(tokio::spawn(async move {
                if let Some(child) = me.take_child().await {
                    let grace = t.shutdown_grace;
                    let _ = stop_process(&me.name, &me.log, &child, &t, grace, &hurry).await;
                }
            }));
        }
    }

    /// Runs the read loop over the extension's stdout (after `hello`) until
    /// EOF, the process's exit, an oversize line, an I/O error or a
    /// disconnect, then takes the disconnect path.
    pub async fn read_loop<R: AsyncBufRead + Unpin>(
        self: Arc<Self>,
        shared: Arc<Shared>,
        mut lines: LineReader<R>,
    ) {
        let idle = shared.cfg.timeouts.auto_ready_idle;
        let closed = self.outbound.closed_token();
        let mut idle_deadline = Deadline::after(idle);
        // Set once the process exited: what it wrote before is still read,
        // until EOF or this deadline (something it started may hold stdout
        // open; the same grace as the mirror case, N-18).
        let mut exited: Option<(String, Deadline)> = None;
        let reason = loop {
            let pending = self.ready_state() == ReadyState::Pending;
            tokio::select! {
                biased;
                _ = closed.cancelled() => {
                    break self.outbound.close_reason().unwrap_or_else(|| "outbound queue closed".into());
                }
                _ = self.gone.cancelled() => break "disconnected".into(),
                status = died(self.process.as_ref()), if exited.is_none() => {
                    let why = status.map_or_else(|| "process exited".into(), exit_reason);
                    let until = Deadline::after(shared.cfg.timeouts.exit_before_hello);
                    exited = Some((why, until));
                }
                r = lines.next_line() => match r {
                    Ok(Some(line)) => {
                        idle_deadline = Deadline::after(idle);
                        if let Some(w) = &shared.wire {
                            w.line(&self.name, Dir::ExtToHost, line);
                        }
                        let line = line.to_vec();
                        self.handle_line(&shared, &line);
                        if let Some(h) = self.handler.get() {
                            h.on_line(&self, &line);
                        }
                    }
                    Ok(None) => break match exited {
                        Some((why, _)) => why,
                        None => self.reason_at_eof(shared.cfg.timeouts.exit_before_hello).await,
                    },
                    Err(CodecError::FrameTooLarge { len, limit }) => {
                        if let Some(w) = &shared.wire {
                            w.oversize(&self.name, len);
                        }
                        let msg = format!("line of {len} bytes exceeds the {limit}-byte frame limit; disconnecting");
                        self.diagnose(&shared, &msg);
                        break msg;
                    }
                    Err(e) => break format!("read error: {e}"),
                },
                _ = deadline::passed(exited.as_mut().map(|(_, d)| d)) => {
                    let why = exited.take().map(|(w, _)| w).unwrap_or_default();
                    break format!("{why}; its stdout is still held open by another process");
                }
                _ = idle_deadline.passed(), if pending => {
                    if self.mark_ready(ReadyState::AutoReady) {
                        lock(&self.diagnostics).push("no ready frame; auto-ready after idle");
                        self.log.line("no ready frame; auto-readying after idle (legacy SDK?)");
                    }
                }
            }
        };
        self.disconnect(&shared, &reason);
        self.reader_done.cancel();
    }

    /// Why the extension is gone when its stdout reached EOF first. A
    /// process's stdout closes as it exits, and the host may see either
    /// first: its exit status is waited for (up to `grace`, the bound of
    /// the same wait before `hello`, N-18), so that one exit is always
    /// reported the same way; "stdout closed" only when it lives on.
    async fn reason_at_eof(&self, grace: std::time::Duration) -> String {
        let Some(process) = self.process.as_ref() else {
            return "stdout closed".into();
        };
        let overflowed = self.outbound.overflowed();
        tokio::select! {
            biased;
            // The host may drop it meanwhile (its queue overflowed, N-11):
            // that is why it is gone, not the exit its closed stdin causes.
            // (A write failing as it exits still reports the exit.)
            _ = overflowed.cancelled() => self.outbound.close_reason().unwrap_or_else(|| "outbound queue overflow".into()),
            _ = self.gone.cancelled() => "disconnected".into(),
            status = crate::deadline::timeout(grace, process.died()) => match status {
                Ok(Some(status)) => exit_reason(status),
                Ok(None) => "process exited".into(),
                Err(_) => "stdout closed".into(),
            },
        }
    }

    /// A line that is no frame: one diagnostic quoting its start, and a
    /// reply whose `type` and `id` can still be read (without decoding the
    /// rest: it may be nested too deeply, or hold a lone surrogate escape a
    /// `serde_json::Value` cannot) fails its request at once instead of
    /// leaving it to wait out its deadline.
    fn malformed(self: &Arc<Self>, shared: &Arc<Shared>, line: &[u8], problem: String) {
        self.diagnose(
            shared,
            &format!(
                "malformed json from extension: {problem}: {}",
                crate::util::excerpt(line, 200)
            ),
        );
        if let Ok(tags) = FrameTags::read(line) {
            let ty = tags.frame_type.as_str();
            if matches!(
                ty,
                "command_response" | "tool_result" | "event_intercept_response"
            ) {
                if let Some(id) = &tags.id {
                    self.deliver(id, Reply::Malformed(problem), ty);
                }
            }
        }
    }

    fn report_registration(
        &self,
        shared: &Shared,
        own: Option<String>,
        displaced: Vec<(String, String)>,
    ) {
        if let Some(d) = own {
            self.diagnose(shared, &d);
        }
        for (ext, message) in displaced {
            shared
                .transcript
                .push(Observation::Diagnostic { ext, message });
        }
    }

    fn handle_line(self: &Arc<Self>, shared: &Arc<Shared>, line: &[u8]) {
        // Too deep is malformed, and not decoded: a typed decode stops at
        // that depth anyway, with a less clear error.
        if exceeds_depth(line, MAX_FRAME_DEPTH) {
            let problem = format!(
                "frame nested deeper than {MAX_FRAME_DEPTH} levels, the most a frame may have"
            );
            self.malformed(shared, line, problem);
            return;
        }
        let frame = match ExtFrame::decode(line) {
            Ok(f) => f,
            Err(e) => {
                self.malformed(shared, line, e.to_string());
                return;
            }
        };
        match frame {
            ExtFrame::Hello(_) => self.diagnose(shared, "duplicate hello ignored"),
            ExtFrame::RegisterCommand(_) | ExtFrame::RegisterTool(_)
                if !self.admit_registration(shared) => {}
            ExtFrame::RegisterCommand(c) => {
                let (d, displaced) = {
                    let mut reg = lock(&shared.registry);
                    let d = reg.register_command(&self.name, self.rank, &c.name, &c.description);
                    (d, reg.take_displaced())
                };
                self.report_registration(shared, d, displaced);
            }
            ExtFrame::RegisterTool(t) => {
                let (d, displaced) = {
                    let mut reg = lock(&shared.registry);
                    let d = reg.register_tool(&self.name, self.rank, t);
                    (d, reg.take_displaced())
                };
                self.report_registration(shared, d, displaced);
            }
            ExtFrame::Subscribe(s) => self.subscribe(shared, s),
            ExtFrame::Ready => {
                self.mark_ready(ReadyState::Ready);
            }
            ExtFrame::CommandResponse(r) => {
                let id = r.id.clone();
                self.deliver(&id, Reply::Command(r), "");
            }
            ExtFrame::ToolResult(r) => {
                let id = r.id.clone();
                self.deliver(&id, Reply::Tool(r), "");
            }
            ExtFrame::EventInterceptResponse(r) => {
                let id = r.id.clone();
                self.deliver(&id, Reply::Intercept(r), "");
            }
            ExtFrame::ShutdownAck => self.log.line("shutdown_ack received"),
            ExtFrame::Unknown(u) => {
                self.diagnose(shared, &format!("unknown frame type {:?}", u.type_name));
            }
            other => {
                if let Some(h) = self.handler.get() {
                    h.on_frame(self, other);
                }
            }
        }
    }
}

/// Waits for the process's exit; never resolves without a process.
async fn died(process: Option<&Supervised>) -> Option<std::process::ExitStatus> {
    match process {
        Some(p) => p.died().await,
        None => std::future::pending().await,
    }
}

/// `"a", "b"`: the first names of a list, then how many more.
fn quoted_list(names: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut out: Vec<String> = names.iter().take(SHOWN).map(|n| format!("{n:?}")).collect();
    if names.len() > SHOWN {
        out.push(format!("and {} more", names.len() - SHOWN));
    }
    out.join(", ")
}

fn exit_reason(status: std::process::ExitStatus) -> String {
    format!("process exited ({})", crate::util::describe_exit(status))
}
