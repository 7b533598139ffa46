//! The frames scripted waits look for (SCRIPT.md, "Waiting for frames").
//!
//! A wait matches frames read since a reference point, so frames have to be
//! kept until no wait can reach them any more; but only those a wait could
//! match. So this keeps:
//! - only frames whose `type` some wait of the script names (the set is
//!   known before the session starts; none at all for a script without
//!   waits);
//! - only frames read since the oldest reference point a later wait can
//!   use (the engine forgets older ones at every step);
//! - at most [`MAX_FRAMES`] frames and [`MAX_BYTES`] bytes of lines: beyond
//!   that (an extension flooding a waited-for type within one step) the
//!   oldest go, are counted, and a wait that then times out says so.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use tokio::sync::Notify;

use crate::session::script::{Script, WaitSpec};

/// Frames kept for waits at most.
pub const MAX_FRAMES: usize = 4096;
/// Bytes (of the lines as read) kept for waits at most.
pub const MAX_BYTES: usize = 16 << 20;

struct Kept {
    ext: String,
    frame: serde_json::Value,
    consumed: bool,
    size: usize,
}

/// Frames read from extensions that a wait may still match.
#[derive(Default)]
pub struct WaitFrames {
    types: HashSet<String>,
    frames: VecDeque<Kept>,
    /// Position of `frames[0]`; positions count every frame ever kept.
    base: u64,
    bytes: usize,
    dropped: u64,
}

/// The session's waits for extension frames: the frames a wait may still
/// match, the wake-up of waiting steps when one arrives, and where the last
/// step began. The read loops offer lines; the steps wait.
pub(crate) struct Waits {
    frames: Mutex<WaitFrames>,
    arrived: Notify,
    last_step: Mutex<u64>,
}

/// Why a wait gave up: how many frames went unmatched because at most
/// [`MAX_FRAMES`] are kept.
pub(crate) struct NotSeen {
    pub(crate) dropped: u64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Waits {
    /// Waits for the frame types `script` names.
    pub(crate) fn for_script(script: &Script) -> Self {
        Self {
            frames: Mutex::new(WaitFrames::for_script(script)),
            arrived: Notify::new(),
            last_step: Mutex::default(),
        }
    }

    /// A line read from `ext`, for the waits.
    pub(crate) fn offer(&self, ext: &str, line: &[u8]) {
        lock(&self.frames).offer(ext, line);
        self.arrived.notify_waiters();
    }

    /// The position of the next frame read (a reference point for a wait).
    pub(crate) fn mark(&self) -> u64 {
        lock(&self.frames).mark()
    }

    /// A step begins: where its wait looks from. A wait attached to a step
    /// matches frames that arrived since the step began; a lone wait
    /// (`lone`), since the previous step began. Nothing older is kept.
    pub(crate) fn begin_step(&self, lone: bool) -> u64 {
        let mark = self.mark();
        let from = {
            let mut last = lock(&self.last_step);
            let from = if lone { *last } else { mark };
            *last = mark;
            from
        };
        // No wait of this step or a later one looks further back.
        lock(&self.frames).forget_before(from);
        from
    }

    /// How many frames are kept.
    pub(crate) fn len(&self) -> usize {
        lock(&self.frames).len()
    }

    /// Waits for (and consumes) the first frame matching `w` at or after
    /// position `from` that no earlier wait consumed, until `deadline`.
    pub(crate) async fn wait(
        &self,
        w: &WaitSpec,
        from: u64,
        mut deadline: crate::deadline::Deadline,
    ) -> Result<(), NotSeen> {
        lock(&self.frames).watch(Some(w));
        loop {
            let notified = self.arrived.notified();
            if lock(&self.frames).take(w, from) {
                return Ok(());
            }
            if deadline.on(notified).await.is_err() {
                let dropped = lock(&self.frames).dropped();
                return Err(NotSeen { dropped });
            }
        }
    }
}

#[derive(serde::Deserialize)]
struct TypeOnly<'a> {
    #[serde(borrow, rename = "type")]
    ty: std::borrow::Cow<'a, str>,
}

impl WaitFrames {
    /// A buffer for the frame types `script` waits for.
    pub fn for_script(script: &Script) -> Self {
        let mut w = Self::default();
        for step in &script.steps {
            w.watch(step.wait.as_ref());
            for turn in step.replies.iter().flatten() {
                for call in &turn.tool_calls {
                    if !call.keys.is_empty() {
                        // The keys wait for the tool's panel to open first.
                        w.types.insert("open_panel".to_owned());
                    }
                    for k in &call.keys {
                        w.watch(k.wait.as_ref());
                    }
                    w.watch(call.cancel.as_ref().and_then(|c| c.then_wait.as_ref()));
                }
            }
        }
        w
    }

    /// Keeps frames of `spec`'s type from now on.
    pub fn watch(&mut self, spec: Option<&WaitSpec>) {
        if let Some(s) = spec {
            if !self.types.contains(&s.frame_type) {
                self.types.insert(s.frame_type.clone());
            }
        }
    }

    /// The position the next kept frame will have (a reference point).
    pub fn mark(&self) -> u64 {
        self.base + self.frames.len() as u64
    }

    /// Offers one line read from `ext`; kept if a wait may want it.
    pub fn offer(&mut self, ext: &str, line: &[u8]) {
        if self.types.is_empty() {
            return;
        }
        let wanted = serde_json::from_slice::<TypeOnly<'_>>(line)
            .is_ok_and(|t| self.types.contains(t.ty.as_ref()));
        if !wanted {
            return;
        }
        let Ok(frame) = serde_json::from_slice::<serde_json::Value>(line) else {
            return;
        };
        self.bytes += line.len();
        self.frames.push_back(Kept {
            ext: ext.to_owned(),
            frame,
            consumed: false,
            size: line.len(),
        });
        while self.frames.len() > MAX_FRAMES || self.bytes > MAX_BYTES {
            if let Some(k) = self.pop_front() {
                self.dropped += u64::from(!k.consumed);
            }
        }
    }

    fn pop_front(&mut self) -> Option<Kept> {
        let k = self.frames.pop_front()?;
        self.base += 1;
        self.bytes -= k.size;
        Some(k)
    }

    /// Consumes the first frame at or after position `from` that matches
    /// `w` and that no earlier wait consumed; whether there was one.
    pub fn take(&mut self, w: &WaitSpec, from: u64) -> bool {
        let skip = from.saturating_sub(self.base) as usize;
        let hit = self.frames.iter_mut().skip(skip).find(|k| {
            !k.consumed
                && w.ext.as_deref().is_none_or(|e| e == k.ext)
                && k.frame.get("type").and_then(|t| t.as_str()) == Some(w.frame_type.as_str())
                && w.fields
                    .iter()
                    .all(|(f, want)| k.frame.get(f) == Some(want))
        });
        match hit {
            Some(k) => {
                k.consumed = true;
                true
            }
            None => false,
        }
    }

    /// Forgets every frame before position `from` (no wait can start
    /// earlier any more).
    pub fn forget_before(&mut self, from: u64) {
        while self.base < from && self.pop_front().is_some() {}
    }

    /// Frames held now.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Frames that went unmatched because the bounds were reached.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(ty: &str) -> WaitSpec {
        WaitSpec {
            ext: None,
            frame_type: ty.into(),
            fields: Default::default(),
            timeout_ms: None,
        }
    }

    #[test]
    fn keeps_only_waited_for_types_and_forgets_what_no_wait_can_reach() {
        let mut w = WaitFrames::default();
        w.offer("e", br#"{"type":"notify","message":"x"}"#);
        assert!(w.is_empty(), "nothing is kept without a wait");
        w.watch(Some(&spec("notify")));
        w.offer("e", br#"{"type":"tool_result","id":"1"}"#);
        w.offer("e", br#"{"type":"notify","message":"a"}"#);
        let mid = w.mark();
        w.offer("e", br#"{"type":"notify","message":"b"}"#);
        assert_eq!(w.len(), 2);
        assert!(w.take(&spec("notify"), mid));
        assert!(!w.take(&spec("notify"), mid), "consumed once");
        assert!(w.take(&spec("notify"), 0));
        w.forget_before(mid);
        assert_eq!(w.len(), 1);
        assert_eq!(w.mark(), mid + 1, "positions survive forgetting");
    }

    #[test]
    fn a_flood_keeps_the_newest_frames_and_counts_the_rest() {
        let mut w = WaitFrames::default();
        w.watch(Some(&spec("notify")));
        for i in 0..MAX_FRAMES + 10 {
            w.offer(
                "e",
                format!(r#"{{"type":"notify","message":"{i}"}}"#).as_bytes(),
            );
        }
        assert_eq!(w.len(), MAX_FRAMES);
        assert_eq!(w.dropped(), 10);
        let mut last = spec("notify");
        last.fields
            .insert("message".into(), serde_json::json!("10"));
        assert!(w.take(&last, 0), "the oldest kept frame is the 11th");
    }
}
