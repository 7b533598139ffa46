//! Turns what a person did in a live session into a session script
//! (`host/SCRIPT.md`) that `zot-host run` replays with the same transcript.
//!
//! Steps are recorded as they ran. Three things make the replay
//! deterministic where the live session depended on timing:
//! - frames an extension sent by itself (notes, panel renders, `submit`...)
//!   after a step began become `wait`s on the last such frame of each
//!   extension, so the replay does not run ahead of them;
//! - keys pressed and a Cancel clicked while a `call` ran become that
//!   call's `keys` and `cancel`;
//! - a hand-typed answer to a stub tool's call goes before the step during
//!   which the call came (the replay queues it before the call waits);
//! - a live model's turns (`--model-url`) go before the step during which
//!   they came, as `replies` the replay's scripted model answers with.
//!
//! Known limit: the replay waits robustly for the frames of at most two
//! extensions per step (one `wait` on the step and one lone `wait` after it;
//! a further lone wait only sees frames that arrive after the previous one
//! began).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use serde_json::{json, Map, Value};

use super::feed::FrameRecord;
use crate::transcript::Observation;

/// Frame types an extension sends on its own, whose observations the replay
/// must wait for.
const SPONTANEOUS: [&str; 9] = [
    "notify",
    "clear_notes",
    "submit",
    "submit_slash",
    "open_panel",
    "panel_render",
    "panel_close",
    "call_tool",
    "call_tool_cancel",
];

/// A field is matched by a wait when its JSON is at most this long (the
/// type, extension and order already pin the frame; this tells apart
/// frames of one type).
const MAX_FIELD_JSON: usize = 256;

/// The last spontaneous frame of each extension in a stretch of time, as
/// the wait that matches it.
type Tail = BTreeMap<String, Value>;

#[derive(Debug, Default)]
struct Recorded {
    step: Map<String, Value>,
    /// Steps that go before it (answers to stub calls made during it).
    before: Vec<Value>,
    tail: Tail,
    /// Keys pressed while this `call` ran, each with what followed it.
    keys: Vec<(Value, Tail)>,
    cancelled: bool,
    /// A live model's turns during it, replayed as scripted `replies`.
    turns: Vec<Value>,
}

/// Where spontaneous frames are attributed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segment {
    Idle,
    Step(usize),
    Key(usize, usize),
}

/// The recording of a live session.
#[derive(Debug)]
pub struct Recorder {
    header: Map<String, Value>,
    steps: Vec<Recorded>,
    segment: Segment,
    running: Option<usize>,
    stubs: BTreeSet<String>,
    /// Stub tool → steps during which a call of it began and is unanswered.
    stub_calls: HashMap<String, VecDeque<usize>>,
}

impl Recorder {
    /// A recording whose script starts with `header` (the top-level
    /// settings).
    pub fn new(header: Map<String, Value>) -> Self {
        Self {
            header,
            steps: Vec::new(),
            segment: Segment::Idle,
            running: None,
            stubs: BTreeSet::new(),
            stub_calls: HashMap::new(),
        }
    }

    /// How many steps were recorded.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// A step begins; returns its index.
    pub fn begin(&mut self, step: Map<String, Value>) -> usize {
        if let Some(Value::String(name)) = step.get("stub") {
            self.stubs.insert(name.clone());
        }
        if let Some(Value::String(name)) = step.get("unstub") {
            self.stubs.remove(name);
        }
        let i = self.steps.len();
        self.steps.push(Recorded {
            step,
            ..Default::default()
        });
        self.segment = Segment::Step(i);
        self.running = Some(i);
        i
    }

    /// The running step ended (its later frames still count for it).
    pub fn end(&mut self, i: usize) {
        if self.running == Some(i) {
            self.running = None;
        }
        self.segment = Segment::Step(i);
    }

    /// The `call` step that runs now, if any.
    pub fn running_call(&self) -> Option<usize> {
        self.running
            .filter(|i| self.steps[*i].step.contains_key("call"))
    }

    /// A key pressed while the running `call` waits.
    pub fn key_in_call(&mut self, key: &str, text: &str) -> bool {
        let Some(i) = self.running_call() else {
            return false;
        };
        let mut k = Map::new();
        k.insert("key".into(), json!(key));
        if !text.is_empty() {
            k.insert("text".into(), json!(text));
        }
        self.steps[i].keys.push((Value::Object(k), Tail::new()));
        self.segment = Segment::Key(i, self.steps[i].keys.len() - 1);
        true
    }

    /// The person cancelled the running `call`.
    pub fn cancelled(&mut self) {
        if let Some(i) = self.running_call() {
            self.steps[i].cancelled = true;
            // What follows the cancel comes after the call in the replay.
            self.segment = Segment::Step(i);
        }
    }

    /// A hand-typed answer to a stub tool (an `answer` step's value).
    /// Returns false when no call of it waits (then it is recorded as a step
    /// of its own: queued ahead for a later call).
    pub fn answered(&mut self, answer: Value) -> bool {
        let tool = answer
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let owner = self.stub_calls.get_mut(&tool).and_then(VecDeque::pop_front);
        match owner {
            Some(i) => {
                self.steps[i].before.push(json!({ "answer": answer }));
                true
            }
            None => false,
        }
    }

    /// A live model answered a turn (its script form): the replay's
    /// scripted model gives the same answer.
    pub fn model_turn(&mut self, turn: Value) {
        if let Some(i) = self.running.or(self.steps.len().checked_sub(1)) {
            self.steps[i].turns.push(turn);
        }
    }

    /// Sees every frame.
    pub fn on_frame(&mut self, f: &FrameRecord) {
        if f.dir != crate::wire::Dir::ExtToHost.as_str() || !SPONTANEOUS.contains(&f.ty.as_str()) {
            return;
        }
        let wait = wait_for(f);
        match self.segment {
            Segment::Idle => {}
            Segment::Step(i) => {
                self.steps[i].tail.insert(f.ext.clone(), wait);
            }
            Segment::Key(i, k) => {
                self.steps[i].keys[k].1.insert(f.ext.clone(), wait);
            }
        }
    }

    /// Sees every observation.
    pub fn on_observation(&mut self, o: &Observation) {
        if let Observation::ToolCall { name, .. } = o {
            if self.stubs.contains(name) {
                let at = self.running.or(self.steps.len().checked_sub(1));
                if let Some(i) = at {
                    self.stub_calls
                        .entry(name.clone())
                        .or_default()
                        .push_back(i);
                }
            }
        }
    }

    /// The session as a script.
    pub fn export(&self) -> Value {
        let mut steps = Vec::new();
        for r in &self.steps {
            steps.extend(r.before.iter().cloned());
            if !r.turns.is_empty() {
                steps.push(json!({ "replies": r.turns }));
            }
            let mut step = r.step.clone();
            if let Some(Value::Object(call)) = step.get_mut("call") {
                if !r.keys.is_empty() {
                    let keys: Vec<Value> = r
                        .keys
                        .iter()
                        .map(|(k, tail)| {
                            let mut k = k.clone();
                            if let Some(w) = tail.values().next() {
                                k["wait"] = w.clone();
                            }
                            k
                        })
                        .collect();
                    call.insert("keys".into(), Value::Array(keys));
                }
                if r.cancelled {
                    // After the keys the person pressed before giving up.
                    let on = if r.keys.is_empty() {
                        "delivered"
                    } else {
                        "keys"
                    };
                    call.insert("cancel".into(), json!({ "on": on }));
                }
            }
            let mut waits = r.tail.values().cloned();
            if !step.contains_key("wait") {
                if let Some(w) = waits.next() {
                    step.insert("wait".into(), w);
                }
            }
            steps.push(Value::Object(step));
            steps.extend(waits.map(|w| json!({ "wait": w })));
        }
        let mut script = self.header.clone();
        script.insert("steps".into(), Value::Array(steps));
        Value::Object(script)
    }
}

/// The wait that matches this frame: its extension, type and small fields.
fn wait_for(f: &FrameRecord) -> Value {
    let mut fields = Map::new();
    if let Some(Value::Object(frame)) = f.json() {
        for (k, v) in frame {
            // Correlation ids are the extension's own choice and may differ
            // from run to run.
            if matches!(k.as_str(), "type" | "id" | "parent_id") {
                continue;
            }
            if serde_json::to_string(&v).is_ok_and(|s| s.len() <= MAX_FIELD_JSON) {
                fields.insert(k, v);
            }
        }
    }
    let mut w = json!({"ext": f.ext, "type": f.ty});
    if !fields.is_empty() {
        w["fields"] = Value::Object(fields);
    }
    w
}
