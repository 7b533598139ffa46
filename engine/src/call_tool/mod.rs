//! `call_tool` (docs/protocol.md §9): asking the host to run a tool, with ids,
//! parent chains, durable keys, deadlines and cancellation owned here.
//!
//! Two forms share one table of outstanding calls:
//! - [`Engine::call_tool`] returns a future (the Rust SDK); dropping the
//!   future before it completes sends `call_tool_cancel`.
//! - [`Engine::start_call`] returns a [`CallId`] at once and delivers the
//!   result later as a [`Job::CallResult`] through the same job queue
//!   (bindings): no foreign future has to be driven, the result arrives with
//!   the same wake-up mechanism as everything else, and
//!   [`Engine::cancel_call`] gives up on it.
//!
//! Either way: ids are unique (`c1`, `c2`, ...), `parent_id` is filled from
//! the parent job, the key is validated and sent only to hosts advertising
//! `call_tool_durable`, a host without `call_tool` fails the call at once
//! without sending anything, the deadline sends `call_tool_cancel` and fails
//! the call, cancelling the parent job cancels its calls, unmatched host
//! results are ignored, and shutdown/EOF fail every outstanding call (OP-29).

pub(crate) mod error;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::AbortHandle;
use zot_protocol::limits::CALL_TOOL_TIMEOUT;
use zot_protocol::validate::validate_call_key;
use zot_protocol::{
    CallTool, CallToolCancel, Capability, ExtFrame, HelloAck, HostToolResult, RawJson,
};

use crate::call_tool::error::CallToolError;
use crate::jobs::{CallId, Job, JobId};
use crate::lock;
use crate::wire::writer::{WriteError, WriteLane};
use crate::{Engine, Inner, OpenKind, Phase};

/// One `call_tool` request.
///
/// ```
/// use std::time::Duration;
/// use zot_ext_engine::CallRequest;
/// use zot_protocol::RawJson;
///
/// let req = CallRequest::new("echo", RawJson::from_value(&serde_json::json!({"text": "hi"})).unwrap())
///     .key("first-echo")
///     .timeout(Duration::from_secs(20));
/// assert_eq!(req.name, "echo");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CallRequest {
    /// The job the call is made for: a tool job's invocation becomes the
    /// `parent_id`, and cancelling the job cancels the call.
    pub parent: Option<JobId>,
    /// Tool name in the host's active registry.
    pub name: String,
    /// Arguments (a JSON object).
    pub args: RawJson,
    /// Durable key (sent only to hosts advertising `call_tool_durable`).
    pub key: Option<String>,
    /// Deadline; [`CALL_TOOL_TIMEOUT`] (60 s) when `None`.
    pub timeout: Option<Duration>,
}

impl CallRequest {
    /// A call without parent, key or custom deadline.
    pub fn new(name: impl Into<String>, args: RawJson) -> Self {
        Self {
            parent: None,
            name: name.into(),
            args,
            key: None,
            timeout: None,
        }
    }

    /// Sets the parent job.
    pub fn parent(mut self, job: JobId) -> Self {
        self.parent = Some(job);
        self
    }

    /// Sets the durable key.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Sets the deadline.
    pub fn timeout(mut self, after: Duration) -> Self {
        self.timeout = Some(after);
        self
    }
}

type CallResult = Result<HostToolResult, CallToolError>;

/// Where the result of a pending call goes.
pub(crate) enum CallSink {
    Future(oneshot::Sender<CallResult>),
    Job(CallId),
}

pub(crate) struct PendingCall {
    pub(crate) name: String,
    pub(crate) parent: Option<u64>,
    pub(crate) sink: CallSink,
    pub(crate) timer: Option<AbortHandle>,
}

impl PendingCall {
    /// Hands the result to whoever waits (a future or the job queue).
    fn resolve(self, inner: &Inner, result: CallResult) {
        if let Some(t) = &self.timer {
            t.abort();
        }
        match self.sink {
            CallSink::Future(tx) => {
                let _ = tx.send(result);
            }
            CallSink::Job(call) => inner.queue.push(Job::CallResult { call, result }),
        }
    }
}

/// The durable key a call carries: checked, and left out for hosts without
/// durable calls (SDK-29: older hosts receive unchanged requests).
fn durable_key(ack: &HelloAck, key: Option<String>) -> Result<String, CallToolError> {
    let Some(k) = key else {
        return Ok(String::new());
    };
    validate_call_key(&k).map_err(CallToolError::InvalidKey)?;
    Ok(if ack.has(&Capability::CallToolDurable) {
        k
    } else {
        String::new()
    })
}

/// Links a call to the job that makes it, if that job is still open: the
/// job's id (for `parent_id`, when it is a tool call) and its children
/// (cancelled with it). A cancelled job makes no more calls.
fn link_to_parent(
    st: &mut crate::State,
    parent: Option<JobId>,
    wire: &str,
) -> Result<(Option<u64>, String), CallToolError> {
    let Some(job) = parent.and_then(|p| st.jobs.get_mut(&p.0)) else {
        return Ok((None, String::new()));
    };
    if job.token.is_cancelled() {
        return Err(CallToolError::Cancelled);
    }
    let parent_id = match job.kind {
        OpenKind::Tool => job.invocation.clone(),
        _ => String::new(),
    };
    job.children.push(wire.to_owned());
    Ok((parent.map(|p| p.0), parent_id))
}

impl Inner {
    /// Validates and sends a call; registers where its result goes.
    fn begin_call(
        self: &Arc<Self>,
        req: CallRequest,
        sink: impl FnOnce(u64) -> CallSink,
    ) -> Result<String, CallToolError> {
        let ack = self.hello_ack.get().ok_or(CallToolError::NotReady)?;
        if !ack.has(&Capability::CallTool) {
            return Err(CallToolError::Unsupported);
        }
        if req.name.is_empty() || !req.args.is_object() {
            return Err(CallToolError::InvalidRequest);
        }
        let key = durable_key(ack, req.key)?;
        let n = self.next_call();
        let wire = format!("c{n}");
        let timeout = req.timeout.unwrap_or(CALL_TOOL_TIMEOUT);
        let mut st = lock(&self.state);
        if matches!(st.phase, Phase::Closing | Phase::Finished) {
            return Err(CallToolError::Closed);
        }
        let (parent, parent_id) = link_to_parent(&mut st, req.parent, &wire)?;
        let frame = ExtFrame::CallTool(CallTool {
            id: wire.clone(),
            name: req.name.clone(),
            args: Some(req.args),
            parent_id,
            key,
        });
        let line = match zot_protocol::encode_frame(&frame) {
            Ok(l) => l,
            Err(e) => {
                self.unlink_child(&mut st, parent, &wire);
                return Err(CallToolError::Write(crate::codec_to_write(e)));
            }
        };
        let timer = self.start_deadline(wire.clone(), timeout);
        st.calls.insert(
            wire.clone(),
            PendingCall {
                name: req.name,
                parent,
                sink: sink(n),
                timer: Some(timer),
            },
        );
        // Registered before the frame is written, so the host's answer always
        // finds it; written outside the lock, so a slow pipe never stalls
        // the reader.
        drop(st);
        // A reader paused for the serial backlog must read the answer.
        self.read_room.notify_waiters();
        if let Err(e) = self.writer.write(&line, WriteLane::Direct, false) {
            self.withdraw_call(&wire, &e);
            return Err(CallToolError::Write(e));
        }
        Ok(wire)
    }

    /// The call's deadline: past it, the call fails with a timeout.
    fn start_deadline(self: &Arc<Self>, wire: String, timeout: Duration) -> AbortHandle {
        let weak = Arc::downgrade(self);
        self.spawn(crate::runtime::task::Task::CallDeadline, async move {
            tokio::time::sleep(timeout).await;
            if let Some(inner) = weak.upgrade() {
                inner.time_out_call(&wire, timeout);
            }
        })
        .abort_handle()
    }

    /// A call whose frame could not be written is forgotten, its deadline
    /// stopped.
    fn withdraw_call(&self, wire: &str, e: &WriteError) {
        let call = {
            let mut st = lock(&self.state);
            self.take_call(&mut st, wire)
        };
        if let Some(t) = call.and_then(|c| c.timer) {
            t.abort();
        }
        self.on_write_error(e);
    }

    fn unlink_child(&self, st: &mut crate::State, parent: Option<u64>, wire: &str) {
        if let Some(job) = parent.and_then(|p| st.jobs.get_mut(&p)) {
            job.children.retain(|c| c != wire);
        }
    }

    /// Removes a pending call (if still pending) and unlinks it from its
    /// parent.
    pub(crate) fn take_call(&self, st: &mut crate::State, wire: &str) -> Option<PendingCall> {
        let call = st.calls.remove(wire)?;
        self.unlink_child(st, call.parent, wire);
        Some(call)
    }

    /// Routes a host `tool_result` to its caller; unknown ids are ignored
    /// (SDK-31, OP-28: the host answers even cancelled calls).
    pub(crate) fn on_host_result(&self, result: HostToolResult) {
        let call = {
            let mut st = lock(&self.state);
            self.take_call(&mut st, &result.id)
        };
        match call {
            Some(c) => c.resolve(self, Ok(result)),
            None => {
                tracing::debug!(id = %result.id, "host tool_result for no outstanding call; ignored")
            }
        }
    }

    /// Gives up on a call: `call_tool_cancel` is sent and the caller gets
    /// `error` (unless `notify` is false: a dropped future has no caller).
    pub(crate) fn abandon_call(&self, wire: &str, error: CallToolError, notify: bool) {
        let call = {
            let mut st = lock(&self.state);
            self.take_call(&mut st, wire)
        };
        let Some(call) = call else { return };
        self.send_call_cancel(wire);
        if notify {
            call.resolve(self, Err(error));
        } else if let Some(t) = &call.timer {
            t.abort();
        }
    }

    fn send_call_cancel(&self, wire: &str) {
        let frame = ExtFrame::CallToolCancel(CallToolCancel {
            id: wire.to_owned(),
        });
        if let Err(e) = self.write_frame(&frame, WriteLane::Direct) {
            tracing::debug!(error = %e, "call_tool_cancel not sent");
        }
    }

    fn time_out_call(&self, wire: &str, after: Duration) {
        let name = {
            let st = lock(&self.state);
            match st.calls.get(wire) {
                Some(c) => c.name.clone(),
                None => return,
            }
        };
        self.abandon_call(wire, CallToolError::Timeout { name, after }, true);
    }

    /// Fails every outstanding call with [`CallToolError::Closed`] (OP-29).
    pub(crate) fn fail_all_calls(&self, st: &mut crate::State) -> Vec<PendingCall> {
        let calls: Vec<PendingCall> = st.calls.drain().map(|(_, c)| c).collect();
        for job in st.jobs.values_mut() {
            job.children.clear();
        }
        calls
    }

    pub(crate) fn resolve_closed(&self, calls: Vec<PendingCall>) {
        for c in calls {
            c.resolve(self, Err(CallToolError::Closed));
        }
    }
}

impl Engine {
    /// Calls a host tool and waits for its result.
    ///
    /// Fails at once (nothing sent) when the host lacks `call_tool`, the
    /// key is invalid or the args are not an object. Dropping the future
    /// before it completes sends `call_tool_cancel`.
    pub fn call_tool(&self, req: CallRequest) -> CallToolFuture {
        let (tx, rx) = oneshot::channel();
        match self.inner.begin_call(req, |_| CallSink::Future(tx)) {
            Ok(wire) => CallToolFuture {
                inner: Arc::downgrade(&self.inner),
                wire: Some(wire),
                state: FutState::Waiting(rx),
            },
            Err(e) => CallToolFuture {
                inner: Weak::new(),
                wire: None,
                state: FutState::Ready(Some(Err(e))),
            },
        }
    }

    /// Starts a call and returns its handle at once; the result arrives as
    /// exactly one [`Job::CallResult`]. Errors that prevent sending are
    /// returned here instead (and no job follows).
    pub fn start_call(&self, req: CallRequest) -> Result<CallId, CallToolError> {
        let mut id = None;
        self.inner.begin_call(req, |n| {
            id = Some(CallId(n));
            CallSink::Job(CallId(n))
        })?;
        Ok(id.expect("sink was created"))
    }

    /// Gives up on a call started with [`Engine::start_call`]: sends
    /// `call_tool_cancel`; its [`Job::CallResult`] carries
    /// [`CallToolError::Cancelled`]. Unknown or finished calls are ignored.
    pub fn cancel_call(&self, call: CallId) {
        self.inner
            .abandon_call(&format!("c{}", call.0), CallToolError::Cancelled, true);
    }
}

enum FutState {
    Waiting(oneshot::Receiver<CallResult>),
    Ready(Option<CallResult>),
}

/// The pending result of [`Engine::call_tool`]. Dropping it before it
/// completes gives up on the call (`call_tool_cancel` is sent).
#[must_use = "a call_tool future does nothing unless awaited; dropping it cancels the call"]
pub struct CallToolFuture {
    inner: Weak<Inner>,
    wire: Option<String>,
    state: FutState,
}

impl CallToolFuture {
    /// The wire id of the call (`None` when it failed before sending).
    pub fn wire_id(&self) -> Option<&str> {
        self.wire.as_deref()
    }
}

impl Future for CallToolFuture {
    type Output = CallResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CallResult> {
        let this = &mut *self;
        match &mut this.state {
            FutState::Ready(r) => Poll::Ready(r.take().unwrap_or(Err(CallToolError::Closed))),
            FutState::Waiting(rx) => match Pin::new(rx).poll(cx) {
                Poll::Pending => Poll::Pending,
                Poll::Ready(r) => {
                    this.wire = None;
                    this.state = FutState::Ready(None);
                    Poll::Ready(r.unwrap_or(Err(CallToolError::Closed)))
                }
            },
        }
    }
}

impl Drop for CallToolFuture {
    fn drop(&mut self) {
        if let (Some(wire), Some(inner)) = (self.wire.take(), self.inner.upgrade()) {
            inner.abandon_call(&wire, CallToolError::Cancelled, false);
        }
    }
}

impl std::fmt::Debug for CallToolFuture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallToolFuture")
            .field("wire", &self.wire)
            .finish_non_exhaustive()
    }
}
