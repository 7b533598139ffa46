//! The engine ↔ binding contract: every JSON message the Node and Python
//! bindings exchange with the engine, in one place.
//!
//! Jobs go out as [`JobMessage`]s (a batch is a JSON array of them,
//! [`crate::Job::batch_to_json`]); answers come back as a batch too, a JSON
//! array of [`Answer`]s, each carrying a [`CommandOutcome`], a
//! [`ToolOutcome`], an [`InterceptOutcome`], a tool's one text, a failure,
//! or nothing (an event or panel job done) ([`complete_json`]); what became
//! of each answer is an [`Answered`] (a [`CompletionStatus`] or an error); a `call_tool` starts from a
//! [`CallStart`] and is answered by a [`CallStarted`]. [`schema`] is the
//! JSON Schema of all of them: `zot-codegen` writes it to
//! `engine/schema/contract.json` and renders the TypeScript
//! (`sdk-node/src/generated/contract.ts`) and Python
//! (`sdk-python/python/zot_ext/_contract.py`) types from it, checked for
//! drift like the protocol's. The bindings declare none of these shapes
//! themselves.
//!
//! Protocol frames travel whole, `type` included (the host's `hello_ack`,
//! an `event_intercept`, an `event`, the host's `tool_result`), so the
//! generated contract refers to the generated protocol types instead of
//! declaring look-alikes. In the schema such a reference is a `$ref` to
//! `zot-protocol#/<Name>`, the name of the type in the generated protocol
//! modules.
//!
//! **Errors.** A refusal that is part of the protocol (a `call_tool` the
//! host does not support, an invalid durable key, a session that ended) is
//! data: the `error` of a [`CallStarted`] and the `error` of a `call_result` job,
//! each with a [`CallToolErrorKind`], which the facade turns into its
//! language's `CallToolError`. Both bindings return it the same way, so
//! the facades handle both places a call can fail with one code path. A
//! binding raises (throws) only for misuse or a broken runtime: a job id
//! that is not one, a message that does not decode, the runtime gone.

use std::marker::PhantomData;

use schemars::generate::SchemaSettings;
use schemars::transform::ReplaceConstValue;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::json;
use zot_protocol::{HelloAck, HostToolResult, InterceptRequest, PanelKeyName, RawJson};

use crate::call_tool::error::CallToolError;
use crate::jobs::outcome::{CommandOutcome, InterceptOutcome, Outcome, ToolOutcome};
use crate::jobs::{EventData, Job, Lane};
use crate::{Engine, JobId};

/// The schema of arguments: a JSON object (they travel as their wire text).
type JsonObject = serde_json::Map<String, serde_json::Value>;

/// For `skip_serializing_if`: a flag that is off is left out.
fn is_false(b: &bool) -> bool {
    !*b
}

/// Where a reference to a generated protocol type points (`$ref`).
pub const PROTOCOL_REF: &str = "zot-protocol#/";

/// A protocol type the contract carries as a whole frame.
pub trait ProtocolType {
    /// The frame's `type`.
    const TYPE: &'static str;
    /// The name of the type in the generated protocol modules.
    const NAME: &'static str;
}

impl ProtocolType for HelloAck {
    const TYPE: &'static str = "hello_ack";
    const NAME: &'static str = "HelloAck";
}

impl ProtocolType for InterceptRequest {
    const TYPE: &'static str = "event_intercept";
    const NAME: &'static str = "InterceptRequest";
}

impl ProtocolType for HostToolResult {
    const TYPE: &'static str = "tool_result";
    const NAME: &'static str = "HostToolResult";
}

/// The lifecycle events (`{"type":"event","event":…}`); an event's object
/// is written by the engine's own fast path, this is its schema.
pub struct LifecycleEventFrame;

impl ProtocolType for LifecycleEventFrame {
    const TYPE: &'static str = "event";
    const NAME: &'static str = "LifecycleEvent";
}

/// `value` serialized as its protocol frame: `{"type": T::TYPE, …its fields}`.
pub struct Framed<'a, T>(pub &'a T);

#[derive(Serialize)]
struct WithType<'a, T> {
    #[serde(rename = "type")]
    ty: &'static str,
    #[serde(flatten)]
    inner: &'a T,
}

impl<T: ProtocolType + Serialize> Serialize for Framed<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WithType {
            ty: T::TYPE,
            inner: self.0,
        }
        .serialize(s)
    }
}

/// An event as its frame (`{"type":"event","event":…}`); an unknown event
/// is the host's frame as it came.
pub struct EventFrame<'a>(pub &'a EventData);

impl Serialize for EventFrame<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            EventData::Known(e) => WithType {
                ty: LifecycleEventFrame::TYPE,
                inner: e,
            }
            .serialize(s),
            EventData::Unknown(u) => u.raw.serialize(s),
        }
    }
}

impl JsonSchema for EventFrame<'_> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        ProtocolRef::<LifecycleEventFrame>::schema_name()
    }

    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        ProtocolRef::<LifecycleEventFrame>::json_schema(g)
    }
}

/// The schema of a protocol type: a reference to its generated name.
pub struct ProtocolRef<T>(PhantomData<T>);

impl<T: ProtocolType> JsonSchema for ProtocolRef<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("protocol::{}", T::NAME).into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::try_from(json!({ "$ref": format!("{PROTOCOL_REF}{}", T::NAME) }))
            .expect("an object")
    }
}

impl<T: ProtocolType> JsonSchema for Framed<'_, T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        ProtocolRef::<T>::schema_name()
    }

    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        ProtocolRef::<T>::json_schema(g)
    }
}

/// One job as the bindings receive it (a batch is a JSON array of them).
///
/// Answer `command`, `tool` and `intercept` jobs (concurrently) with their
/// outcome or a failure; run `event` and panel jobs in order, one at a
/// time, and acknowledge each; `cancel` asks a running job to stop;
/// `finished` is the last job of a session.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobMessage<'a> {
    /// The host's `hello_ack`: run the on-hello hooks, register more, then
    /// end the handshake (`hello_done`).
    Hello {
        /// The frame as the host sent it.
        hello_ack: Framed<'a, HelloAck>,
    },
    /// Run a command handler.
    Command {
        /// Answer with this id.
        id: u64,
        /// `concurrent` (see [`Lane`]).
        lane: Lane,
        /// The host's request id (`command_invoked.id`).
        invocation: &'a str,
        /// The registered spelling of the command.
        name: &'a str,
        /// The rest of the user's input.
        args: &'a str,
        /// Cancelled before it was handed out: start the handler with its
        /// cancellation already signalled.
        #[serde(default, skip_serializing_if = "is_false")]
        cancelled: bool,
    },
    /// Run a tool handler.
    Tool {
        /// Answer with this id.
        id: u64,
        /// `concurrent` (see [`Lane`]).
        lane: Lane,
        /// The host's request id (`tool_call.id`).
        invocation: &'a str,
        /// The registered tool name.
        name: &'a str,
        /// The arguments (a JSON object).
        #[schemars(with = "JsonObject")]
        args: &'a RawJson,
        /// Whether the tool was registered as interactive.
        interactive: bool,
        /// Cancelled before it was handed out: start the handler with its
        /// cancellation already signalled.
        #[serde(default, skip_serializing_if = "is_false")]
        cancelled: bool,
    },
    /// Run the event handler (in order, one at a time), then acknowledge.
    Event {
        /// Acknowledge with this id once the handler returned.
        id: u64,
        /// `serial` (see [`Lane`]).
        lane: Lane,
        /// The event name.
        name: &'a str,
        /// The event frame, `type` included.
        event: EventFrame<'a>,
    },
    /// Run an interceptor; answer before the interception deadline.
    Intercept {
        /// Answer with this id.
        id: u64,
        /// `concurrent` (see [`Lane`]).
        lane: Lane,
        /// The intercepted event's name.
        name: &'a str,
        /// The `event_intercept` frame, `type` included.
        request: Framed<'a, InterceptRequest>,
        /// Cancelled before it was handed out (its deadline passed): start
        /// the handler with its cancellation already signalled.
        #[serde(default, skip_serializing_if = "is_false")]
        cancelled: bool,
    },
    /// A key for a panel (in order with the other serial jobs).
    PanelKey {
        /// Acknowledge with this id once handled.
        id: u64,
        /// `serial` (see [`Lane`]).
        lane: Lane,
        /// The panel.
        panel_id: &'a str,
        /// The key name (`up`, `enter`, `rune`, …; the protocol's set).
        key: &'a PanelKeyName,
        /// The typed text, for `rune`.
        text: &'a str,
        /// The registration of the panel's handlers the key is for: run it
        /// only while that registration is the panel's current one.
        registration: u64,
    },
    /// The user closed a panel (in order with the other serial jobs).
    PanelClose {
        /// Acknowledge with this id once handled.
        id: u64,
        /// `serial` (see [`Lane`]).
        lane: Lane,
        /// The panel.
        panel_id: &'a str,
        /// The registration of the panel's handlers the close is for (the
        /// engine already unbound it): forget them if they are still the
        /// panel's current ones, and run their close handler.
        registration: u64,
    },
    /// A panel was resized (in order with the other serial jobs).
    PanelResize {
        /// Acknowledge with this id once handled.
        id: u64,
        /// `serial` (see [`Lane`]).
        lane: Lane,
        /// The panel.
        panel_id: &'a str,
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
        /// The registration of the panel's handlers the resize is for.
        registration: u64,
    },
    /// A job handed out earlier was cancelled: stop its handler. The engine
    /// already decided what goes on the wire.
    Cancel {
        /// The cancelled job.
        id: u64,
    },
    /// The end of a `call_tool` started with `start_call`: exactly one per
    /// call, with either `result` or `error`.
    CallResult {
        /// The call.
        call: u64,
        /// The host's answer (a failing tool is a result with `is_error`).
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Framed<'a, HostToolResult>>,
        /// Why the call itself failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The kind of that failure.
        #[serde(skip_serializing_if = "Option::is_none")]
        error_kind: Option<CallToolErrorKind>,
    },
    /// The host asked to shut down (or stdin closed): every running job was
    /// cancelled; handlers have a short grace to send their last frames.
    Shutdown,
    /// The session is over: stop pulling.
    Finished {
        /// Why, when it was not a normal end.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a str>,
    },
}

// How a job crosses to a binding: as one JSON object of the contract.
impl Job {
    /// The job as one JSON object, a [`JobMessage`] (the contract the
    /// bindings' types are generated from): a `kind` discriminator
    /// (`hello`, `command`, `tool`, `event`, `intercept`, `panel_key`,
    /// `panel_close`, `panel_resize`, `cancel`, `call_result`, `shutdown`,
    /// `finished`); protocol frames (`hello_ack`, an event, an
    /// interception request, a call's result) whole, `type` included.
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        self.write_json(&mut out);
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// A batch of jobs as one JSON array of [`Job::to_json`] objects: what
    /// the bindings hand across the FFI per wake-up.
    pub fn batch_to_json(jobs: &[Job]) -> String {
        let mut out = Vec::with_capacity(64 * jobs.len() + 2);
        out.push(b'[');
        for (i, job) in jobs.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            job.write_json(&mut out);
        }
        out.push(b']');
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// The job as its contract message; one piece: an arm per job kind,
    /// each a plain field-by-field mapping.
    fn write_json(&self, out: &mut Vec<u8>) {
        // Unused by the jobs without a handler.
        let lane = self.lane().unwrap_or(Lane::Concurrent);
        let j = match self {
            Job::Hello(ack) => JobMessage::Hello {
                hello_ack: Framed(ack),
            },
            Job::Command(c) => JobMessage::Command {
                id: c.id.0,
                lane,
                invocation: &c.invocation,
                name: &c.name,
                args: &c.args,
                cancelled: c.cancelled,
            },
            // Written by hand too: one per call (a test keeps it equal to
            // `JobMessage::Tool`).
            Job::Tool(t) => return write_tool_json(t, out),
            // Written by hand: bindings take events by the hundred thousand
            // (a test keeps it equal to `JobMessage::Event`).
            Job::Event { id, event, frame } => {
                return write_event_json(id.0, event, frame.as_deref(), out)
            }
            Job::Intercept(i) => JobMessage::Intercept {
                id: i.id.0,
                lane,
                name: i.request.name(),
                request: Framed(&i.request),
                cancelled: i.cancelled,
            },
            Job::PanelKey {
                id,
                key,
                registration,
            } => JobMessage::PanelKey {
                id: id.0,
                lane,
                panel_id: &key.panel_id,
                key: &key.key,
                text: &key.text,
                registration: *registration,
            },
            Job::PanelClose {
                id,
                panel_id,
                registration,
            } => JobMessage::PanelClose {
                id: id.0,
                lane,
                panel_id,
                registration: *registration,
            },
            Job::PanelResize {
                id,
                resize,
                registration,
            } => JobMessage::PanelResize {
                id: id.0,
                lane,
                panel_id: &resize.panel_id,
                width: resize.width,
                height: resize.height,
                registration: *registration,
            },
            Job::Cancel { id } => JobMessage::Cancel { id: id.0 },
            Job::CallResult { call, result } => match result {
                Ok(r) => JobMessage::CallResult {
                    call: call.0,
                    result: Some(Framed(r)),
                    error: None,
                    error_kind: None,
                },
                Err(e) => JobMessage::CallResult {
                    call: call.0,
                    result: None,
                    error: Some(e.to_string()),
                    error_kind: Some(e.error_kind()),
                },
            },
            Job::Shutdown => JobMessage::Shutdown,
            Job::Finished { error } => JobMessage::Finished {
                error: error.as_deref(),
            },
        };
        serde_json::to_writer(out, &j).expect("jobs always serialize");
    }
}

/// `{"kind":"tool","id":…,"lane":"concurrent","invocation":…,"name":…,"args":…,"interactive":…}`
/// (and `"cancelled":true` when it is): the keys as literals, the two
/// strings escaped, the arguments as the host wrote them.
fn write_tool_json(t: &crate::ToolJob, out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"kind":"tool","id":"#);
    serde_json::to_writer(&mut *out, &t.id.0).expect("numbers serialize");
    out.extend_from_slice(br#","lane":"concurrent","invocation":"#);
    serde_json::to_writer(&mut *out, &t.invocation).expect("strings serialize");
    out.extend_from_slice(br#","name":"#);
    serde_json::to_writer(&mut *out, &t.name).expect("strings serialize");
    out.extend_from_slice(br#","args":"#);
    out.extend_from_slice(t.args.get().as_bytes());
    out.extend_from_slice(if t.interactive {
        br#","interactive":true"#
    } else {
        br#","interactive":false"#
    });
    if t.cancelled {
        out.extend_from_slice(br#","cancelled":true"#);
    }
    out.push(b'}');
}

/// `{"kind":"event","id":…,"lane":"serial","name":…,"event":{"type":"event",…}}`: the event
/// object is the frame as handlers see it, `type` included, so that bindings
/// need not copy every event to add it.
fn write_event_json(id: u64, event: &EventData, frame: Option<&str>, out: &mut Vec<u8>) {
    // Written piecewise into `out`: no formatting machinery, no temporary
    // string per event (bindings take events by the hundred thousand).
    out.extend_from_slice(br#"{"kind":"event","id":"#);
    serde_json::to_writer(&mut *out, &id).expect("numbers serialize");
    out.extend_from_slice(br#","lane":"serial","name":"#);
    serde_json::to_writer(&mut *out, event.name()).expect("strings serialize");
    out.extend_from_slice(br#","event":"#);
    write_event_frame(event, frame, out);
    out.push(b'}');
}

/// An interception job's request frame alone, as [`Job::to_json`] writes
/// it under `request` ([`crate::binding::WorkerCall`]).
pub(crate) fn intercept_request_json(request: &InterceptRequest) -> String {
    serde_json::to_string(&Framed(request)).expect("interception requests serialize")
}

/// An event job's frame alone, as [`Job::to_json`] writes it under
/// `event`: what a worker thread's run of events carries
/// ([`crate::binding::RunEvent`]).
pub(crate) fn event_frame_json(event: &EventData, frame: Option<Box<str>>) -> String {
    if let Some(text) = frame {
        return text.into_string();
    }
    let mut out = Vec::new();
    write_event_frame(event, None, &mut out);
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

fn write_event_frame(event: &EventData, frame: Option<&str>, out: &mut Vec<u8>) {
    match (frame, event) {
        // The host's frame as it came: no second encoding (see
        // `EngineConfig::event_frames`).
        (Some(text), _) => out.extend_from_slice(text.as_bytes()),
        (None, EventData::Known(e)) => {
            let start = out.len();
            serde_json::to_writer(&mut *out, e).expect("events always serialize");
            // A known event serializes as `{"event":…}` without `type`.
            const TYPE: &[u8] = br#""type":"event","#;
            out.splice(start + 1..start + 1, TYPE.iter().copied());
        }
        // The host's frame as it came, `type` and all.
        (None, EventData::Unknown(u)) => out.extend_from_slice(u.raw.get().as_bytes()),
    }
}

impl CallToolError {
    /// A stable name for the kind of error: `unsupported`, `not_ready`,
    /// `invalid_key`, `invalid_request`, `timeout`, `cancelled`, `closed`,
    /// `write`.
    pub fn kind(&self) -> &'static str {
        self.error_kind().as_str()
    }

    /// The kind of error, as the bindings receive it.
    pub fn error_kind(&self) -> CallToolErrorKind {
        match self {
            Self::Unsupported => CallToolErrorKind::Unsupported,
            Self::NotReady => CallToolErrorKind::NotReady,
            Self::InvalidKey(_) => CallToolErrorKind::InvalidKey,
            Self::InvalidRequest => CallToolErrorKind::InvalidRequest,
            Self::Timeout { .. } => CallToolErrorKind::Timeout,
            Self::Cancelled => CallToolErrorKind::Cancelled,
            Self::Closed => CallToolErrorKind::Closed,
            Self::Write(_) => CallToolErrorKind::Write,
        }
    }
}

/// Why a `call_tool` failed as a call (not as a tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallToolErrorKind {
    /// The host did not advertise `call_tool`; nothing was sent (SDK-27).
    Unsupported,
    /// Called before the handshake completed.
    NotReady,
    /// The durable key breaks the rules of §9.5; nothing was sent.
    InvalidKey,
    /// The arguments are not a JSON object, or the name is empty.
    InvalidRequest,
    /// No answer within the deadline; `call_tool_cancel` was sent.
    Timeout,
    /// The caller (or the parent job) gave up; `call_tool_cancel` was sent.
    Cancelled,
    /// The session ended before the answer came.
    Closed,
    /// Writing the request failed.
    Write,
}

impl CallToolErrorKind {
    /// Every kind.
    pub const ALL: [Self; 8] = [
        Self::Unsupported,
        Self::NotReady,
        Self::InvalidKey,
        Self::InvalidRequest,
        Self::Timeout,
        Self::Cancelled,
        Self::Closed,
        Self::Write,
    ];

    /// The kind as its JSON string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unsupported => "unsupported",
            Self::NotReady => "not_ready",
            Self::InvalidKey => "invalid_key",
            Self::InvalidRequest => "invalid_request",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Closed => "closed",
            Self::Write => "write",
        }
    }
}

/// A `call_tool` to start (`start_call`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CallStart {
    /// The job the call is made from (its `parent_id`; cancelling that job
    /// cancels the call).
    #[serde(default)]
    pub parent: Option<u64>,
    /// The tool.
    pub name: String,
    /// Its arguments (a JSON object; `{}` when absent).
    #[serde(default)]
    #[schemars(with = "Option<JsonObject>")]
    pub args: Option<RawJson>,
    /// A durable key (sent only to hosts that support them).
    #[serde(default)]
    pub key: Option<String>,
    /// The deadline in milliseconds (60 s when absent).
    #[serde(default)]
    pub timeout_ms: Option<f64>,
}

/// What `start_call` answers: `call` (the request was sent; its
/// `call_result` job carries this `call`), or `error` and `error_kind`
/// (nothing was sent).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CallStarted {
    /// The call's handle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<u64>,
    /// Why nothing was sent, for people.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Why nothing was sent, for code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<CallToolErrorKind>,
}

/// What became of an accepted answer (`complete`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CompletionStatus {
    /// The reply frame was written.
    #[serde(rename = "sent")]
    Sent,
    /// An event or panel job was acknowledged (nothing to send).
    #[serde(rename = "done")]
    Done,
    /// The tool job was cancelled: no `tool_result` for it (SDK-23).
    #[serde(rename = "dropped:cancelled")]
    DroppedCancelled,
    /// The interception deadline passed: the host already moved on.
    #[serde(rename = "dropped:expired")]
    DroppedExpired,
    /// The session is over.
    #[serde(rename = "dropped:closed")]
    DroppedClosed,
}

impl CompletionStatus {
    /// Every status.
    pub const ALL: [Self; 5] = [
        Self::Sent,
        Self::Done,
        Self::DroppedCancelled,
        Self::DroppedExpired,
        Self::DroppedClosed,
    ];

    /// The status as its JSON string.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sent => "sent",
            Self::Done => "done",
            Self::DroppedCancelled => "dropped:cancelled",
            Self::DroppedExpired => "dropped:expired",
            Self::DroppedClosed => "dropped:closed",
        }
    }
}

impl From<crate::Completion> for CompletionStatus {
    fn from(c: crate::Completion) -> Self {
        use crate::{Completion, DropReason};
        match c {
            Completion::Sent => Self::Sent,
            Completion::Done => Self::Done,
            Completion::Dropped(DropReason::Cancelled) => Self::DroppedCancelled,
            Completion::Dropped(DropReason::Expired) => Self::DroppedExpired,
            Completion::Dropped(DropReason::Closed) => Self::DroppedClosed,
        }
    }
}

impl CallStarted {
    /// The answer to `start_call` for the engine's result.
    pub fn of(r: Result<crate::CallId, crate::CallToolError>) -> Self {
        match r {
            Ok(c) => Self {
                call: Some(c.0),
                error: None,
                error_kind: None,
            },
            Err(e) => Self {
                call: None,
                error: Some(e.to_string()),
                error_kind: Some(e.error_kind()),
            },
        }
    }

    /// As JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("call answers serialize")
    }
}

/// One answer of a batch (`complete`): the job, and at most one of its
/// outcomes. Without any, an event or panel job is done (its handler
/// returned). The outcome must fit the job's kind: anything else is
/// answered as a failure and reported.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Answer {
    /// The job answered.
    pub job: u64,
    /// A command handler's result.
    #[serde(default)]
    pub command: Option<CommandOutcome>,
    /// A tool handler's result.
    #[serde(default)]
    pub tool: Option<ToolOutcome>,
    /// A tool handler's result that is one text block (the common case,
    /// short for `tool` with that one block).
    #[serde(default)]
    pub text: Option<String>,
    /// An interceptor's verdict.
    #[serde(default)]
    pub intercept: Option<InterceptOutcome>,
    /// The handler failed (error, exception): an error reply where one is
    /// due, a log line for event and panel jobs ([`Outcome::Failed`]).
    #[serde(default)]
    pub error: Option<String>,
}

impl Answer {
    /// The engine's form of the answer; `Err` names what is wrong with it.
    pub fn into_outcome(self) -> (JobId, Result<Outcome, String>) {
        let job = JobId(self.job);
        let mut outcomes = Vec::with_capacity(1);
        if let Some(c) = self.command {
            outcomes.push(Outcome::Command(c));
        }
        if let Some(t) = self.tool {
            outcomes.push(Outcome::Tool(t));
        }
        if let Some(text) = self.text {
            outcomes.push(Outcome::Tool(ToolOutcome {
                content: vec![zot_protocol::ContentBlock::text(text)],
                ..ToolOutcome::default()
            }));
        }
        if let Some(i) = self.intercept {
            outcomes.push(Outcome::Intercept(i));
        }
        if let Some(e) = self.error {
            outcomes.push(Outcome::Failed(e));
        }
        match outcomes.len() {
            0 => (job, Ok(Outcome::Done)),
            1 => (job, Ok(outcomes.pop().expect("one"))),
            n => (
                job,
                Err(format!("an answer carries {n} outcomes; one at most")),
            ),
        }
    }
}

/// What became of one answer of a batch, in the batch's order: `status`
/// when the engine accepted it, `error` when it refused it (it then sent
/// an error reply if one was due).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Answered {
    /// What became of the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<CompletionStatus>,
    /// Why the engine refused it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Completes a batch of answers given as JSON (an array of [`Answer`]s)
/// with [`Engine::complete_all`]; returns what became of each as JSON (an
/// array of [`Answered`], in the batch's order). An answer that does not
/// decode fails its job when its `job` can be read (the host gets an error
/// reply) and is reported; a batch that is not a JSON array is an `Err`.
/// The one implementation behind both bindings' `complete`.
pub fn complete_json(engine: &Engine, batch: &str) -> Result<String, String> {
    // A batch whose every answer decodes (all but a binding's bug) is
    // parsed once; only a batch with a bad answer is taken apart answer
    // by answer to find and report it.
    let mut answers = Vec::new();
    let items: Vec<Item> = match serde_json::from_str::<Vec<Answer>>(batch) {
        Ok(decoded) => {
            answers.reserve(decoded.len());
            decoded
                .into_iter()
                .map(|a| checked(a, &mut answers))
                .collect()
        }
        Err(_) => each_answer(batch, &mut answers)?,
    };
    let mut results = engine.complete_all(answers).into_iter();
    let mut out = String::with_capacity(items.len() * 20 + 2);
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let refusal = match item {
            Item::Completed(None) => match results.next() {
                Some(Ok(status)) => {
                    // The common answer, written without the serializer.
                    out.push_str(r#"{"status":""#);
                    out.push_str(CompletionStatus::from(status).as_str());
                    out.push_str(r#""}"#);
                    continue;
                }
                Some(Err(e)) => e.to_string(),
                None => "not completed".to_owned(),
            },
            Item::Completed(Some(message)) => {
                results.next();
                message
            }
            Item::Unnamed(message) => message,
        };
        let answered = Answered {
            status: None,
            error: Some(refusal),
        };
        out.push_str(&serde_json::to_string(&answered).expect("answers serialize"));
    }
    out.push(']');
    Ok(out)
}

/// One answer of a batch: completed (with why it was refused already, if
/// it was), or not completed (it named no job).
enum Item {
    Completed(Option<String>),
    Unnamed(String),
}

/// An answer that decoded, checked for its number of outcomes and added to
/// `answers`.
fn checked(answer: Answer, answers: &mut Vec<(JobId, Outcome)>) -> Item {
    match answer.into_outcome() {
        (job, Ok(outcome)) => {
            answers.push((job, outcome));
            Item::Completed(None)
        }
        (job, Err(message)) => {
            answers.push((job, Outcome::Failed(message.clone())));
            Item::Completed(Some(message))
        }
    }
}

/// A batch with an answer that does not decode, answer by answer: one
/// that still names its job fails it (the host is owed a reply).
fn each_answer(batch: &str, answers: &mut Vec<(JobId, Outcome)>) -> Result<Vec<Item>, String> {
    #[derive(Deserialize)]
    struct JobOnly {
        job: u64,
    }
    let raw: Vec<&serde_json::value::RawValue> =
        serde_json::from_str(batch).map_err(|e| format!("invalid batch of answers: {e}"))?;
    Ok(raw
        .into_iter()
        .map(|r| match serde_json::from_str::<Answer>(r.get()) {
            Ok(answer) => checked(answer, answers),
            Err(e) => {
                let message = format!("invalid answer: {e}");
                match serde_json::from_str::<JobOnly>(r.get()) {
                    Ok(j) => {
                        answers.push((JobId(j.job), Outcome::Failed(message.clone())));
                        Item::Completed(Some(message))
                    }
                    Err(_) => Item::Unnamed(message),
                }
            }
        })
        .collect())
}

/// A closed set of strings, as the generators read it (one `enum`; the
/// values' own docs stay in the Rust docs).
macro_rules! string_set_schema {
    ($ty:ty, $doc:literal) => {
        impl JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                let values: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
                Schema::try_from(json!({ "description": $doc, "type": "string", "enum": values }))
                    .expect("an object")
            }
        }
    };
}

string_set_schema!(
    CallToolErrorKind,
    "Why a `call_tool` failed as a call (not as a tool)."
);
string_set_schema!(
    Lane,
    "How to run a job's handler: `concurrent` (commands, tools, interceptors) or `serial` (events and panel input: in the order received, one at a time, each after the previous one was answered)."
);
string_set_schema!(
    CompletionStatus,
    "What became of an accepted answer: `sent` (the reply was written), `done` (an event or panel job was acknowledged), `dropped:cancelled` (no `tool_result` for a cancelled tool, SDK-23), `dropped:expired` (the interception deadline passed), `dropped:closed` (the session is over)."
);

/// The JSON Schema of the contract (draft-07, `definitions`): the root is
/// the `oneOf` of [`JobMessage`]; every other message is a definition.
pub fn schema() -> Schema {
    let mut generator = SchemaSettings::draft07()
        .with_transform(ReplaceConstValue::default())
        .into_generator();
    let mut root = generator.root_schema_for::<JobMessage<'static>>();
    // Named (not inlined) so that each becomes a definition.
    generator.subschema_for::<CommandOutcome>();
    generator.subschema_for::<ToolOutcome>();
    generator.subschema_for::<InterceptOutcome>();
    generator.subschema_for::<CompletionStatus>();
    generator.subschema_for::<Answer>();
    generator.subschema_for::<Answered>();
    generator.subschema_for::<CallStart>();
    generator.subschema_for::<CallStarted>();
    let definitions = generator.take_definitions(true);
    let obj = root.ensure_object();
    let defs = obj
        .entry("definitions")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("definitions are an object");
    for (k, v) in definitions {
        defs.entry(k).or_insert(v);
    }
    obj.insert(
        "title".to_owned(),
        "zot-ext engine ↔ binding contract".into(),
    );
    obj.insert(
        "$comment".to_owned(),
        "Generated by zot-codegen from engine/src/binding/contract.rs; do not edit by hand.".into(),
    );
    // The committed protocol schemas' form; among others, an absent field is
    // omitted, never `null`.
    let mut value = root.to_value();
    zot_protocol::schema::normalise(&mut value);
    Schema::try_from(value).expect("a root schema is an object")
}

/// The committed file: (path relative to `engine/`, pretty JSON text).
pub fn file() -> (&'static str, String) {
    let mut s = serde_json::to_string_pretty(schema().as_value()).expect("schemas serialize");
    s.push('\n');
    ("schema/contract.json", s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Completion, DropReason, Job, JobId};
    use zot_protocol::events::UnknownEvent;
    use zot_protocol::{Frame, HostFrame};

    fn event_job(event: EventData) -> (String, String) {
        let fast = Job::Event {
            id: JobId(7),
            event: Box::new(event.clone()),
            frame: None,
        }
        .to_json();
        let message = JobMessage::Event {
            id: 7,
            lane: Lane::Serial,
            name: event.name(),
            event: EventFrame(&event),
        };
        (fast, serde_json::to_string(&message).unwrap())
    }

    #[test]
    fn every_job_with_a_handler_says_its_lane() {
        let command = Job::Command(crate::CommandJob {
            id: JobId(1),
            invocation: "c1".into(),
            name: "note".into(),
            args: String::new(),
            cancelled: false,
        });
        let line = r#"{"type":"event","event":"turn_start","step":2}"#;
        let HostFrame::Event(e) = HostFrame::decode_str(line).unwrap() else {
            panic!("an event")
        };
        let event = Job::Event {
            id: JobId(2),
            event: Box::new(EventData::Known(e)),
            frame: Some(line.into()),
        };
        let close = Job::PanelClose {
            id: JobId(3),
            panel_id: "p".into(),
            registration: 1,
        };
        let cancel = Job::Cancel { id: JobId(1) };
        let lanes: Vec<serde_json::Value> = [command, event, close, cancel]
            .iter()
            .map(|j| {
                serde_json::from_str::<serde_json::Value>(&j.to_json()).unwrap()["lane"].clone()
            })
            .collect();
        assert_eq!(
            lanes,
            [
                json!("concurrent"),
                json!("serial"),
                json!("serial"),
                json!(null)
            ]
        );
    }

    #[test]
    fn the_event_fast_path_writes_the_contract_message() {
        let line = r#"{"type":"event","event":"turn_start","step":2}"#;
        let HostFrame::Event(e) = HostFrame::decode_str(line).unwrap() else {
            panic!("an event")
        };
        let (fast, message) = event_job(EventData::Known(e));
        assert_eq!(fast, message);
        assert!(
            fast.contains(r#""event":{"type":"event","event":"turn_start""#),
            "{fast}"
        );

        let raw =
            RawJson::from_string(r#"{"type":"event","event":"new_one","x":1}"#.into()).unwrap();
        let unknown = UnknownEvent {
            event: "new_one".into(),
            id: String::new(),
            raw,
        };
        let (fast, message) = event_job(EventData::Unknown(unknown));
        assert_eq!(fast, message);
    }

    #[test]
    fn the_tool_fast_path_writes_the_contract_message() {
        for (interactive, cancelled) in [(false, false), (true, true)] {
            let job = crate::ToolJob {
                id: JobId(9),
                invocation: "c\"1\u{e9}".into(),
                name: "ns.echo".into(),
                args: RawJson::from_string(r#"{"text":"h\u00e9"}"#.into()).unwrap(),
                interactive,
                cancelled,
            };
            let message = JobMessage::Tool {
                id: 9,
                lane: Lane::Concurrent,
                invocation: &job.invocation,
                name: &job.name,
                args: &job.args,
                interactive,
                cancelled,
            };
            assert_eq!(
                Job::Tool(job.clone()).to_json(),
                serde_json::to_string(&message).unwrap()
            );
        }
    }

    #[test]
    fn frames_travel_whole() {
        let ack: HelloAck = serde_json::from_str(r#"{"protocol_version":1,"cwd":"/"}"#).unwrap();
        let json = Job::Hello(ack.into()).to_json();
        assert!(
            json.starts_with(
                r#"{"kind":"hello","hello_ack":{"type":"hello_ack","protocol_version":1"#
            ),
            "{json}"
        );
    }

    #[test]
    fn string_forms_agree_with_serde() {
        use crate::CallToolError as E;
        for e in [
            E::Unsupported,
            E::NotReady,
            E::InvalidRequest,
            E::Cancelled,
            E::Closed,
        ] {
            let json = serde_json::to_string(&e.error_kind()).unwrap();
            assert_eq!(json, format!("\"{}\"", e.kind()));
        }
        for k in CallToolErrorKind::ALL {
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.as_str())
            );
        }
        for c in [
            Completion::Sent,
            Completion::Done,
            Completion::Dropped(DropReason::Cancelled),
            Completion::Dropped(DropReason::Expired),
            Completion::Dropped(DropReason::Closed),
        ] {
            let s = CompletionStatus::from(c);
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.as_str())
            );
        }
    }

    #[test]
    fn a_refused_call_carries_its_kind() {
        let r = CallStarted::of(Err(crate::CallToolError::Unsupported));
        assert_eq!(
            r.to_json(),
            r#"{"error":"the host does not support call_tool","error_kind":"unsupported"}"#
        );
        assert_eq!(
            CallStarted::of(Ok(crate::CallId(3))).to_json(),
            r#"{"call":3}"#
        );
    }
}
