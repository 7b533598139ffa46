//! What a live session has seen, for the people and programs watching it:
//! every wire frame (timestamped, with the latency of replies), every
//! observation and the extensions' stderr lines, kept in bounded rings and
//! broadcast as they happen.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::broadcast;

use crate::transcript::Observation;

/// Frames kept for a late look (the newest; older ones are dropped first).
pub const MAX_FRAMES: usize = 20_000;
/// Bytes of frame text kept at most.
pub const MAX_FRAME_BYTES: usize = 64 << 20;
/// Observations kept.
pub const MAX_OBSERVATIONS: usize = 50_000;
/// Stderr lines kept per extension.
pub const MAX_LOG_LINES: usize = 2_000;
/// Requests whose reply is still awaited, for latencies.
const MAX_PENDING: usize = 10_000;
/// Characters of a frame shown in its one-line summary.
const PREVIEW_CHARS: usize = 160;
/// Broadcast backlog per subscriber before it is told it lagged.
const BACKLOG: usize = 4_096;

/// One frame as the host wrote or read it.
#[derive(Debug, Clone, Serialize)]
pub struct FrameRecord {
    /// Position in the feed (from 0).
    pub n: u64,
    /// Milliseconds since the session began.
    pub ts: f64,
    /// The extension.
    pub ext: String,
    /// `host->ext` or `ext->host`.
    pub dir: String,
    /// The frame `type` (`invalid` for a line that is not JSON,
    /// `oversize` for a line over the limit).
    #[serde(rename = "type")]
    pub ty: String,
    /// The frame's `id`, if any.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// `event` of an `event` / `event_intercept` frame.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub event: String,
    /// Size of the line in bytes.
    pub size: usize,
    /// The start of the line, for a one-line view.
    pub preview: String,
    /// For a reply: the position of its request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_to: Option<u64>,
    /// For a reply: milliseconds since its request was written or read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<f64>,
    /// The whole line (JSON text, or the text of an invalid line).
    #[serde(skip)]
    pub text: Arc<str>,
}

impl FrameRecord {
    /// The frame as JSON, when it was one.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.text).ok()
    }
}

/// One observation with its place and time.
#[derive(Debug, Clone, Serialize)]
pub struct ObsRecord {
    /// Position in the transcript (from 0).
    pub n: u64,
    /// Milliseconds since the session began.
    pub ts: f64,
    /// The observation.
    pub o: Observation,
}

/// Something that happened, as broadcast to subscribers.
#[derive(Debug, Clone)]
pub enum FeedEvent {
    /// A frame.
    Frame(Arc<FrameRecord>),
    /// An observation.
    Obs(Arc<ObsRecord>),
    /// A line an extension wrote to stderr.
    Log {
        /// The extension.
        ext: String,
        /// The line.
        text: String,
    },
    /// The session's state changed (registrations, readiness, a step began
    /// or ended): look again.
    State,
    /// A live model's progress, shown as it comes and not kept (the turn's
    /// observation holds the text once the turn ends).
    Model(ModelNote),
}

/// What a live model is doing (see [`crate::model::ModelEvent`]).
#[derive(Debug, Clone)]
pub enum ModelNote {
    /// A piece of the streamed text.
    Text(Arc<str>),
    /// A failed attempt, tried again (why).
    Retrying(Arc<str>),
    /// The request is over.
    End,
}

#[derive(Default)]
struct Inner {
    frames: VecDeque<Arc<FrameRecord>>,
    frame_bytes: usize,
    next_frame: u64,
    obs: VecDeque<Arc<ObsRecord>>,
    next_obs: u64,
    /// Request (extension, direction, id) → (time, position).
    pending: HashMap<(String, bool, String), (f64, u64)>,
    pending_order: VecDeque<(String, bool, String)>,
    hello: HashMap<String, Arc<str>>,
    hello_ack: HashMap<String, Arc<str>>,
    logs: HashMap<String, VecDeque<String>>,
    partial: Vec<u8>,
}

impl Inner {
    /// Pairs a reply with its request (the request's position and the
    /// time between them); a request is remembered for its reply, the
    /// last `MAX_PENDING` at most.
    fn pair(
        &mut self,
        ext: &str,
        host: bool,
        ty: &str,
        id: &str,
        ts: f64,
        n: u64,
    ) -> (Option<u64>, Option<f64>) {
        if !id.is_empty() && is_request(ty, host) {
            let key = (ext.to_owned(), host, id.to_owned());
            self.pending_order.push_back(key.clone());
            self.pending.insert(key, (ts, n));
            if self.pending_order.len() > MAX_PENDING {
                if let Some(k) = self.pending_order.pop_front() {
                    self.pending.remove(&k);
                }
            }
        } else if !id.is_empty() && is_reply(ty, host) {
            let key = (ext.to_owned(), !host, id.to_owned());
            if let Some((t0, req)) = self.pending.remove(&key) {
                return (Some(req), Some(ts - t0));
            }
        }
        (None, None)
    }

    /// Keeps a frame, dropping the oldest beyond [`MAX_FRAMES`] frames or
    /// [`MAX_FRAME_BYTES`] bytes.
    fn keep(&mut self, rec: Arc<FrameRecord>) {
        self.frame_bytes += rec.size;
        self.frames.push_back(rec);
        while self.frames.len() > MAX_FRAMES
            || (self.frame_bytes > MAX_FRAME_BYTES && self.frames.len() > 1)
        {
            if let Some(old) = self.frames.pop_front() {
                self.frame_bytes -= old.size;
            }
        }
    }
}

type FrameHook = Box<dyn Fn(&FrameRecord) + Send>;
type ObsHook = Box<dyn Fn(&Observation) + Send>;

/// The feed of a live session.
pub struct Feed {
    start: Instant,
    inner: Mutex<Inner>,
    tx: broadcast::Sender<FeedEvent>,
    on_frame: Mutex<Option<FrameHook>>,
    on_obs: Mutex<Option<ObsHook>>,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed").finish_non_exhaustive()
    }
}

#[derive(Deserialize)]
struct WireLine<'a> {
    ext: String,
    dir: String,
    #[serde(borrow)]
    frame: Option<&'a RawValue>,
    invalid: Option<String>,
    oversize: Option<usize>,
}

impl WireLine<'_> {
    /// The record's type, id, event and text: a frame's own, or what
    /// stands for a line that is no frame.
    fn tags(&self) -> Option<(String, String, String, Arc<str>)> {
        Some(match (self.frame, &self.invalid, self.oversize) {
            (Some(raw), _, _) => {
                let tags: Tags = serde_json::from_str(raw.get()).unwrap_or_default();
                (
                    tags.ty.unwrap_or_default(),
                    tags.id.unwrap_or_default(),
                    tags.event.unwrap_or_default(),
                    Arc::from(raw.get()),
                )
            }
            (None, Some(t), _) => (
                "invalid".into(),
                String::new(),
                String::new(),
                Arc::from(t.as_str()),
            ),
            (None, None, Some(n)) => (
                "oversize".into(),
                String::new(),
                String::new(),
                Arc::from(format!("(a line of {n} bytes, over the frame limit)")),
            ),
            _ => return None,
        })
    }
}

#[derive(Deserialize, Default)]
struct Tags {
    #[serde(rename = "type", default)]
    ty: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    event: Option<String>,
}

/// Requests whose replies carry the same `id`: (type, sent by the host).
fn is_request(ty: &str, host: bool) -> bool {
    if host {
        matches!(ty, "command_invoked" | "tool_call" | "event_intercept")
    } else {
        ty == "call_tool"
    }
}

fn is_reply(ty: &str, host: bool) -> bool {
    if host {
        ty == "tool_result"
    } else {
        matches!(
            ty,
            "command_response" | "tool_result" | "event_intercept_response"
        )
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn preview(text: &str) -> String {
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

impl Feed {
    /// An empty feed; the session begins now.
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            start: Instant::now(),
            inner: Mutex::default(),
            tx: broadcast::channel(BACKLOG).0,
            on_frame: Mutex::default(),
            on_obs: Mutex::default(),
        })
    }

    /// Milliseconds since the session began.
    pub fn now(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }

    /// Receives everything from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<FeedEvent> {
        self.tx.subscribe()
    }

    /// Calls `f` for every frame, on the thread that logs it.
    pub fn set_frame_hook(&self, f: impl Fn(&FrameRecord) + Send + 'static) {
        *lock(&self.on_frame) = Some(Box::new(f));
    }

    /// Calls `f` for every observation.
    pub fn set_observation_hook(&self, f: impl Fn(&Observation) + Send + 'static) {
        *lock(&self.on_obs) = Some(Box::new(f));
    }

    /// A live model's progress.
    pub fn model_note(&self, note: ModelNote) {
        let _ = self.tx.send(FeedEvent::Model(note));
    }

    /// Tells subscribers to look at the state again.
    pub fn state_changed(&self) {
        let _ = self.tx.send(FeedEvent::State);
    }

    /// A wire log that feeds this feed.
    pub fn wire_log(self: &Arc<Self>) -> crate::wire::WireLog {
        crate::wire::WireLog::new(Box::new(WireTap(self.clone())))
    }

    /// Records an observation.
    pub fn observation(&self, o: &Observation) {
        if let Some(f) = &*lock(&self.on_obs) {
            f(o);
        }
        let rec = {
            let mut inner = lock(&self.inner);
            let rec = Arc::new(ObsRecord {
                n: inner.next_obs,
                ts: self.now(),
                o: o.clone(),
            });
            inner.next_obs += 1;
            inner.obs.push_back(rec.clone());
            if inner.obs.len() > MAX_OBSERVATIONS {
                inner.obs.pop_front();
            }
            rec
        };
        let _ = self.tx.send(FeedEvent::Obs(rec));
        if matches!(
            o,
            Observation::Loaded { .. }
                | Observation::Disconnected { .. }
                | Observation::Reload { .. }
                | Observation::Panel { .. }
                | Observation::PanelClosed { .. }
        ) {
            self.state_changed();
        }
    }

    /// Records a stderr line of an extension.
    pub fn log_line(&self, ext: &str, text: &str) {
        {
            let mut inner = lock(&self.inner);
            let lines = inner.logs.entry(ext.to_owned()).or_default();
            lines.push_back(text.to_owned());
            if lines.len() > MAX_LOG_LINES {
                lines.pop_front();
            }
        }
        let _ = self.tx.send(FeedEvent::Log {
            ext: ext.to_owned(),
            text: text.to_owned(),
        });
    }

    /// The stderr lines kept for `ext`.
    pub fn log(&self, ext: &str) -> Vec<String> {
        lock(&self.inner)
            .logs
            .get(ext)
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Frame summaries from position `from` on (those still kept).
    pub fn frames_from(&self, from: u64) -> Vec<Arc<FrameRecord>> {
        lock(&self.inner)
            .frames
            .iter()
            .filter(|f| f.n >= from)
            .cloned()
            .collect()
    }

    /// The frame at position `n`, while it is kept.
    pub fn frame(&self, n: u64) -> Option<Arc<FrameRecord>> {
        let inner = lock(&self.inner);
        let first = inner.frames.front()?.n;
        let i = usize::try_from(n.checked_sub(first)?).ok()?;
        inner.frames.get(i).cloned()
    }

    /// The position the next frame will get.
    pub fn next_frame(&self) -> u64 {
        lock(&self.inner).next_frame
    }

    /// The position the next observation will get.
    pub fn next_observation(&self) -> u64 {
        lock(&self.inner).next_obs
    }

    /// The observations kept, and how many earlier ones were dropped.
    pub fn observations(&self) -> (Vec<Arc<ObsRecord>>, u64) {
        let inner = lock(&self.inner);
        let dropped = inner.obs.front().map_or(inner.next_obs, |o| o.n);
        (inner.obs.iter().cloned().collect(), dropped)
    }

    /// The `hello` and `hello_ack` lines of an extension's last handshake.
    pub fn handshake(&self, ext: &str) -> (Option<Arc<str>>, Option<Arc<str>>) {
        let inner = lock(&self.inner);
        (
            inner.hello.get(ext).cloned(),
            inner.hello_ack.get(ext).cloned(),
        )
    }

    fn wire_line(&self, line: &[u8]) {
        let Ok(w) = serde_json::from_slice::<WireLine<'_>>(line) else {
            return;
        };
        let host = w.dir == crate::wire::Dir::HostToExt.as_str();
        let Some((ty, id, event, text)) = w.tags() else {
            return;
        };
        let ts = self.now();
        let rec = {
            let mut inner = lock(&self.inner);
            let n = inner.next_frame;
            inner.next_frame += 1;
            let (reply_to, latency) = inner.pair(&w.ext, host, &ty, &id, ts, n);
            if ty == "hello" && !host {
                inner.hello.insert(w.ext.clone(), text.clone());
            } else if ty == "hello_ack" && host {
                inner.hello_ack.insert(w.ext.clone(), text.clone());
            }
            let rec = Arc::new(FrameRecord {
                n,
                ts,
                ext: w.ext,
                dir: w.dir,
                ty,
                id,
                event,
                size: text.len(),
                preview: preview(&text),
                reply_to,
                latency,
                text,
            });
            inner.keep(rec.clone());
            rec
        };
        if let Some(f) = &*lock(&self.on_frame) {
            f(&rec);
        }
        let changes_state = !host
            && matches!(
                rec.ty.as_str(),
                "hello" | "register_command" | "register_tool" | "subscribe" | "ready"
            );
        let _ = self.tx.send(FeedEvent::Frame(rec));
        if changes_state {
            self.state_changed();
        }
    }

    fn wire_bytes(&self, bytes: &[u8]) {
        let lines: Vec<Vec<u8>> = {
            let mut inner = lock(&self.inner);
            inner.partial.extend_from_slice(bytes);
            let mut out = Vec::new();
            while let Some(i) = inner.partial.iter().position(|b| *b == b'\n') {
                let rest = inner.partial.split_off(i + 1);
                let mut line = std::mem::replace(&mut inner.partial, rest);
                line.pop();
                out.push(line);
            }
            out
        };
        for l in lines {
            self.wire_line(&l);
        }
    }
}

/// The host's wire log, written into a feed.
struct WireTap(Arc<Feed>);

impl Write for WireTap {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.wire_bytes(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
