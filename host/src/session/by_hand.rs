//! What a person does to a session besides prompting: call a tool directly,
//! fire a lifecycle event or an interception chain with a payload of their
//! own, and answer calls of stub tools by hand. `zot-host inspect` does these
//! live; the `call`, `emit`, `intercept`, `stub`, `unstub` and `answer`
//! script steps replay them. Each goes through the host's one path for it:
//! the tool pipeline of [`crate::session::tools::pipeline`], the fan-out of
//! [`crate::session::fanout`] and the chains of [`crate::session::interception`];
//! stubs and their replies are kept by [`crate::session::tools::answers`].

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use zot_protocol::InterceptRequest;

use crate::session::engine::SessionEngine;
use crate::session::interception::{self, MessageVerdict, PromptPass, ToolCallVerdict};
use crate::session::payload::{decode_event, decode_intercept, Verdict};
use crate::session::script::{StubAnswer, ToolCallSpec};
use crate::session::tools::request::{ProposedArgs, ToolRequest, ToolRun, WhileRunning};
use crate::transcript::Observation;

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
        let (user, on_delivery) = WhileRunning::of(spec, &cancel);
        let key = self.answers.track(cancel.clone());
        let run = self
            .run_tool_while(
                ToolRequest {
                    tool_id,
                    name: spec.name.clone(),
                    args: ProposedArgs::of(spec),
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
                user,
            )
            .await;
        self.answers.untrack(key);
        run
    }

    /// Cancels every direct call in flight (the inspector's Cancel button);
    /// whether any was running.
    pub fn cancel_direct_calls(&self) -> bool {
        self.answers.cancel_direct_calls()
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
                match interception::tool_call(
                    self.manager(),
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
                (interception::turn_start(self.manager(), r.step).await, None)
            }
            InterceptRequest::AssistantMessage(r) => {
                match interception::assistant_message(self.manager(), &r.text).await {
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
                    interception::before_agent_start(self.manager(), &r.system_prompt, &pass).await;
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
        self.answers.set_stub(name, on);
    }

    /// Queues the reply to the next call of a stub tool and wakes a call
    /// that waits for it.
    pub fn queue_answer(&self, a: StubAnswer) {
        self.answers.queue_reply(a);
    }
}
