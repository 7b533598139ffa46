//! What a person does to a session besides prompting: call a tool directly,
//! fire a lifecycle event or an interception chain with a payload of their
//! own, and answer calls of stub tools by hand. `zot-host inspect` does these
//! live; the `call`, `emit`, `intercept`, `stub`, `unstub` and `answer`
//! script steps replay them. Each goes through the host's one path for it:
//! the tool pipeline of [`crate::session::agent`], [`crate::session::events::emit`] and the
//! chains of [`crate::session::intercept`].

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use zot_protocol::{
    Frame, HostFrame, InterceptRequest, LifecycleEvent, RawJson, ToolResult, ToolStatus,
};

use crate::session::agent::{ToolRequest, ToolRun};
use crate::session::engine::SessionEngine;
use crate::session::intercept::{self, MessageVerdict, PromptPass, ToolCallVerdict};
use crate::session::script::{CancelOn, StubAnswer, ToolCallSpec};
use crate::session::tools::invoke::ToolOutput;
use crate::session::tools::pipeline::WhileRunning;
use crate::transcript::Observation;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Decodes the payload of an `emit` step (an `event` frame without `type`)
/// with the protocol's own decoder; errors say what is wrong.
pub fn decode_event(payload: &Map<String, Value>) -> Result<LifecycleEvent, String> {
    match decode_host_frame("event", payload, "emit")? {
        HostFrame::Event(ev) => Ok(ev),
        _ => Err(format!(
            "emit: unknown event {}; one of {}",
            payload.get("event").unwrap_or(&Value::Null),
            zot_protocol::values::LIFECYCLE_EVENT_NAMES.join(", ")
        )),
    }
}

/// Decodes the payload of an `intercept` step (an `event_intercept` frame
/// without `type` and `id`, which the host assigns).
pub fn decode_intercept(payload: &Map<String, Value>) -> Result<InterceptRequest, String> {
    let mut payload = payload.clone();
    payload
        .entry("id")
        .or_insert_with(|| Value::String("0".into()));
    match decode_host_frame("event_intercept", &payload, "intercept")? {
        HostFrame::EventIntercept(InterceptRequest::ToolCall(r)) if !r.tool_args.is_object() => {
            Err("intercept: tool_args must be a JSON object".into())
        }
        HostFrame::EventIntercept(r) => Ok(r),
        _ => Err(format!(
            "intercept: unknown event {}; one of {}",
            payload.get("event").unwrap_or(&Value::Null),
            InterceptRequest::EVENTS.join(", ")
        )),
    }
}

fn decode_host_frame(
    ty: &str,
    payload: &Map<String, Value>,
    step: &str,
) -> Result<HostFrame, String> {
    let mut frame = Map::new();
    frame.insert("type".into(), Value::String(ty.into()));
    for (k, v) in payload {
        if k != "type" {
            frame.insert(k.clone(), v.clone());
        }
    }
    let line = serde_json::to_string(&frame).map_err(|e| format!("{step}: {e}"))?;
    HostFrame::decode_str(&line).map_err(|e| format!("{step}: {e}"))
}

/// Stub tools and the hand-typed answers waiting for their calls, and the
/// cancel handles of direct calls in flight.
#[derive(Debug, Default)]
pub struct Direct {
    stubs: Mutex<BTreeSet<String>>,
    answers: Mutex<HashMap<String, VecDeque<StubAnswer>>>,
    running: Mutex<HashMap<u64, CancellationToken>>,
    next_running: std::sync::atomic::AtomicU64,
}

impl Direct {
    /// Whether calls of `name` are answered by hand.
    pub fn is_stub(&self, name: &str) -> bool {
        lock(&self.stubs).contains(name)
    }

    /// The stub tool names.
    pub fn stubs(&self) -> Vec<String> {
        lock(&self.stubs).iter().cloned().collect()
    }
}

/// The outcome of an `intercept` step.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The intercepted event.
    pub event: String,
    /// The block reason, when the chain blocked.
    pub blocked: Option<String>,
    /// What the chain let through (arguments, text or system prompt).
    pub result: Option<Value>,
}

impl SessionEngine {
    /// Runs a direct tool call through the whole pipeline (interception,
    /// confirmation, execution, `tool_result`), announced like a call that
    /// is not part of a model turn. It does not enter the conversation.
    pub async fn direct_call(&self, spec: &ToolCallSpec) -> ToolRun {
        let tool_id = spec
            .id
            .clone()
            .unwrap_or_else(|| format!("toolu_{}", self.next_n()));
        let cancel = CancellationToken::new();
        let (on_delivery, then_wait) = match &spec.cancel {
            Some(c) => {
                if c.on == CancelOn::Before {
                    cancel.cancel();
                }
                (c.on == CancelOn::Delivered, c.then_wait.clone())
            }
            None => (false, None),
        };
        let key = self
            .direct
            .next_running
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        lock(&self.direct.running).insert(key, cancel.clone());
        let run = self
            .run_tool_while(
                ToolRequest {
                    tool_id,
                    name: spec.name.clone(),
                    args: crate::session::agent::proposed_args(spec),
                    origin_extension: String::new(),
                    chain: Vec::new(),
                    cancel: cancel.clone(),
                    confirm: spec.confirm,
                    cancel_on_delivery: on_delivery,
                    exec_deadline: None,
                    announce: true,
                    // Any registered tool, as `call_tool` may reach it: the
                    // person at the inspector tests codemode-only and
                    // deferred tools too.
                    via_call_tool: true,
                    durable_scope: String::new(),
                },
                WhileRunning {
                    keys: spec.keys.clone(),
                    cancel_after_keys: spec.cancel.as_ref().is_some_and(|c| c.on == CancelOn::Keys),
                    then_wait,
                },
            )
            .await;
        lock(&self.direct.running).remove(&key);
        run
    }

    /// Cancels every direct call in flight (the inspector's Cancel button);
    /// whether any was running.
    pub fn cancel_direct_calls(&self) -> bool {
        let running = std::mem::take(&mut *lock(&self.direct.running));
        for t in running.values() {
            t.cancel();
        }
        !running.is_empty()
    }

    /// Emits a lifecycle event with a payload of the user's (an `emit` step).
    pub fn fire_event(&self, payload: &Map<String, Value>) -> Result<(), String> {
        let ev = decode_event(payload)?;
        self.observe(Observation::Event {
            event: ev.name().to_owned(),
        });
        self.emit(ev);
        Ok(())
    }

    /// Sends an interception request through its chain (in load order, as
    /// the agent loop does) and reports the verdict.
    pub async fn fire_intercept(&self, payload: &Map<String, Value>) -> Result<Verdict, String> {
        let req = decode_intercept(payload)?;
        let event = req.name().to_owned();
        let (blocked, result) = match req {
            InterceptRequest::ToolCall(r) => {
                match intercept::tool_call(
                    &self.mgr,
                    &r.tool_id,
                    &r.tool_name,
                    r.tool_args,
                    &r.origin_extension,
                )
                .await
                {
                    ToolCallVerdict::Allow(args) => (None, Some(args.to_value())),
                    ToolCallVerdict::Block(reason) => (Some(reason), None),
                }
            }
            InterceptRequest::TurnStart(r) => {
                (intercept::turn_start(&self.mgr, r.step).await, None)
            }
            InterceptRequest::AssistantMessage(r) => {
                match intercept::assistant_message(&self.mgr, &r.text).await {
                    MessageVerdict::Show(text) => (None, Some(Value::String(text))),
                    MessageVerdict::Hide(reason) => (Some(reason), None),
                }
            }
            InterceptRequest::BeforeAgentStart(r) => {
                let pass = PromptPass {
                    session_id: r.session_id,
                    agent_run_id: r.agent_run_id,
                    cwd: r.cwd,
                    provider: r.provider,
                    model: r.model,
                };
                let prompt =
                    intercept::before_agent_start(&self.mgr, &r.system_prompt, &pass).await;
                (None, Some(Value::String(prompt)))
            }
        };
        let verdict = Verdict {
            event,
            blocked,
            result,
        };
        self.observe(Observation::Verdict {
            event: verdict.event.clone(),
            verdict: if verdict.blocked.is_some() {
                "block"
            } else {
                "allow"
            }
            .into(),
            reason: verdict.blocked.clone().unwrap_or_default(),
            result: verdict.result.clone(),
        });
        Ok(verdict)
    }

    /// Declares (or withdraws) a stub tool.
    pub fn set_stub(&self, name: &str, on: bool) {
        let mut stubs = lock(&self.direct.stubs);
        if on {
            stubs.insert(name.to_owned());
        } else {
            stubs.remove(name);
        }
    }

    /// Queues the reply to the next call of a stub tool and wakes a call
    /// that waits for it.
    pub fn queue_answer(&self, a: StubAnswer) {
        lock(&self.direct.answers)
            .entry(a.tool.clone())
            .or_default()
            .push_back(a);
        self.answers_notify.notify_waiters();
    }

    /// Executes a call of a stub tool: the first queued answer for it, or
    /// the next one queued, unless the call is cancelled, its deadline
    /// passes or the session shuts down first.
    pub(crate) async fn stub_call(
        &self,
        name: &str,
        cancel: &CancellationToken,
        deadline: Option<Duration>,
    ) -> ToolOutput {
        let wait = async {
            loop {
                let notified = self.answers_notify.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                let next = lock(&self.direct.answers)
                    .get_mut(name)
                    .and_then(VecDeque::pop_front);
                if let Some(a) = next {
                    return Some(a);
                }
                if self.is_closing() {
                    return None;
                }
                notified.await;
            }
        };
        let sleep = async {
            match deadline {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            a = wait => match a {
                Some(a) => answer_output(name, a),
                None => ToolOutput::error(format!("stub {name}: the session ended before an answer"), ToolStatus::Failed, false),
            },
            _ = cancel.cancelled() => ToolOutput::error(format!("stub {name}: cancelled"), ToolStatus::Cancelled, true),
            _ = sleep => ToolOutput::error(format!("stub {name}: timed out after {deadline:?}"), ToolStatus::TimedOut, true),
        }
    }
}

/// Converts a hand-typed answer the way an extension's result is converted.
fn answer_output(name: &str, a: StubAnswer) -> ToolOutput {
    let mut content = Vec::new();
    if let Some(t) = a.text {
        content.push(zot_protocol::ContentBlock::text(t));
    }
    content.extend(a.content);
    crate::session::tools::invoke::convert(
        "stub",
        name,
        ToolResult {
            id: String::new(),
            content,
            is_error: a.is_error,
            activate_tools: Vec::new(),
            structured_content: a.structured_content.map(RawJson::from),
        },
    )
}
