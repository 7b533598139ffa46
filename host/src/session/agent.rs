//! The agent loop (§12.3 order, HOST-131..148); each tool call goes
//! through the pipeline of [`crate::session::tools::pipeline`].
//!
//! One user input runs: `user_prompt_submit`, then per step `turn_start`
//! (event, then the interception chain), the scripted model reply
//! (`assistant_message` interception + event, `tool_call` events for the
//! whole batch), `turn_end`, then each tool call through the pipeline:
//! interception, confirmation, `permission_decision`, execution,
//! `tool_result`. The loop continues while the model calls tools.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use zot_protocol::{
    LifecycleEvent, RawJson, ToolStatus, TurnEndEvent, TurnStartEvent, UserPromptSubmitEvent,
};

use crate::process::extension::LoadedExtension;
use crate::session::engine::SessionEngine;
use crate::session::interception::{self, MessageVerdict, PromptPass};
use crate::session::message::Message;
use crate::session::script::{ToolCallSpec, Turn};
use crate::session::tools::request::WhileRunning;
pub(crate) use crate::session::tools::request::{ProposedArgs, ToolRequest};
use crate::transcript::Observation;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SessionEngine {
    /// Presses the scripted keys of a running tool call, once its extension
    /// has opened a panel; each key may wait for a frame before the next.
    pub(crate) async fn press_keys(
        &self,
        keys: &[crate::session::script::KeyPress],
        ext: &str,
        from: u64,
    ) {
        let opened = crate::session::script::WaitSpec {
            ext: Some(ext.to_owned()),
            frame_type: "open_panel".to_owned(),
            fields: Default::default(),
            timeout_ms: None,
        };
        if !self.wait_for(&opened, from).await {
            return;
        }
        for k in keys {
            let mark = self.seen_mark();
            self.panel_key(&k.key, &k.text);
            if let Some(w) = &k.wait {
                self.wait_for(w, mark).await;
            }
        }
    }

    /// Accepts model input and runs the agent loop (HOST-131), then the
    /// prompts queued meanwhile, one after the other.
    pub async fn run_prompt(
        &self,
        text: String,
        from: String,
        images: u32,
        already_announced: bool,
    ) {
        self.run_one_prompt(text, from, images, already_announced)
            .await;
        // Queued follow-ups run after the turn that was running (HOST-159),
        // in a loop: a chain of prompts, each queued by the one before,
        // must not nest (it would grow the stack without bound).
        loop {
            let next = self.input.next_followup();
            let Some((text, from)) = next else { break };
            self.run_one_prompt(text, from, 0, true).await;
        }
    }

    async fn run_one_prompt(
        &self,
        text: String,
        from: String,
        images: u32,
        already_announced: bool,
    ) {
        self.start_session();
        // Notes are one-shot: they go when the next prompt is sent (HOST-157).
        self.clear_notes();
        if !already_announced {
            self.observe(Observation::User {
                text: text.clone(),
                queued: false,
                from: from.clone(),
            });
            self.emit(LifecycleEvent::UserPromptSubmit(UserPromptSubmitEvent {
                session_id: String::new(),
                cwd: String::new(),
                sequence: 0,
                text: text.clone(),
                queued: false,
                image_count: images,
            }));
        }
        lock(&self.dialogue).converse(Message::User(text));
        self.agent_loop().await;
    }

    /// `tool_prompt` (§10.3, HOST-55..59): user message, the tool through the
    /// usual path, the paired call/result recorded, then the model turn.
    pub async fn run_tool_prompt(
        &self,
        ext: &Arc<LoadedExtension>,
        prompt: String,
        tool: String,
        args: RawJson,
    ) {
        self.start_session();
        self.clear_notes();
        self.observe(Observation::User {
            text: prompt.clone(),
            queued: false,
            from: ext.name.clone(),
        });
        self.emit(LifecycleEvent::UserPromptSubmit(UserPromptSubmitEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
            text: prompt.clone(),
            queued: false,
            image_count: 0,
        }));
        lock(&self.dialogue).converse(Message::User(prompt));
        let tool_id = format!("toolu_{}", self.next_n());
        let run = self
            .run_tool(ToolRequest {
                tool_id: tool_id.clone(),
                name: tool.clone(),
                args: ProposedArgs::Json(args.clone()),
                origin_extension: ext.name.clone(),
                chain: Vec::new(),
                cancel: CancellationToken::new(),
                confirm: None,
                cancel_on_delivery: false,
                exec_deadline: None,
                announce: true,
                via_call_tool: true,
                durable_scope: String::new(),
            })
            .await;
        {
            let mut st = lock(&self.dialogue);
            st.converse(Message::Assistant {
                text: String::new(),
                tool_calls: vec![(
                    tool_id.clone(),
                    tool,
                    args.get().to_owned(),
                    ext.name.clone(),
                )],
            });
            // The complete output counts, not the observed one (HOST-59).
            st.converse(Message::ToolResult {
                tool_id,
                text: run.output.joined_text(),
                is_error: run.output.is_error,
            });
        }
        if run.output.status == ToolStatus::Cancelled {
            return; // HOST-58: stop before the model turn.
        }
        self.agent_loop().await;
    }

    /// Makes sure the `before_agent_start` pass ran for the current
    /// session/model (HOST-114..120).
    async fn ensure_prompt(&self) {
        let place = self.fanout.place();
        let (base, pass) = {
            let st = lock(&self.dialogue);
            if st.prompt.is_some() {
                return;
            }
            (
                st.base_prompt.clone(),
                PromptPass {
                    session_id: place.session_id,
                    agent_run_id: String::new(),
                    cwd: place.cwd.display().to_string(),
                    provider: st.provider.clone(),
                    model: st.model.clone(),
                },
            )
        };
        let pass = PromptPass {
            agent_run_id: format!("run-{}", self.next_n()),
            ..pass
        };
        let prompt = interception::before_agent_start(self.manager(), &base, &pass).await;
        lock(&self.dialogue).prompt = Some(prompt.clone());
        self.observe(Observation::SystemPrompt {
            agent_run_id: pass.agent_run_id,
            text: prompt,
        });
    }

    async fn agent_loop(&self) {
        let mut step: u32 = self.replies.take_first_step();
        let first = step;
        loop {
            self.ensure_prompt().await;
            self.emit(LifecycleEvent::TurnStart(TurnStartEvent {
                session_id: String::new(),
                cwd: String::new(),
                sequence: 0,
                step,
            }));
            if let Some(reason) = interception::turn_start(self.manager(), step).await {
                self.status("error", format!("turn blocked: {reason}"));
                break;
            }
            let Some(turn) = self.model_turn(step, first).await else {
                break;
            };
            self.show_assistant_text(&turn.text).await;
            let calls = self.propose_calls(&turn).await;
            self.end_turn(&turn, calls.is_empty());
            if calls.is_empty() || !turn.error.is_empty() {
                break;
            }
            for (id, c, args) in calls {
                self.run_model_call(id, c, args).await;
            }
            step += 1;
        }
    }

    /// The model's reply for `step` (the live model's, or the script's
    /// next); `None` once the live model has taken the most steps one
    /// prompt may take.
    async fn model_turn(&self, step: u32, first: u32) -> Option<Turn> {
        Some(match self.replies.live() {
            Some(model) if step > first + model.max_steps() - 1 => {
                self.status(
                    "error",
                    format!(
                        "the model took {} steps for one prompt, the most --model-max-steps allows; stopping",
                        model.max_steps()
                    ),
                );
                return None;
            }
            Some(model) => self.live_turn(model.clone()).await,
            None => self.replies.next_scripted(),
        })
    }

    /// The assistant's text, through `assistant_message` interception:
    /// shown (and announced) or hidden.
    async fn show_assistant_text(&self, text: &str) {
        if text.is_empty() {
            return;
        }
        match interception::assistant_message(self.manager(), text).await {
            MessageVerdict::Show(text) => {
                self.observe(Observation::Assistant { text: text.clone() });
                self.emit(LifecycleEvent::AssistantMessage(
                    zot_protocol::AssistantMessageEvent {
                        session_id: String::new(),
                        cwd: String::new(),
                        sequence: 0,
                        text,
                    },
                ));
            }
            MessageVerdict::Hide(reason) => self.observe(Observation::AssistantHidden { reason }),
        }
    }

    /// The turn's tool calls with their ids, each announced (`tool_call`
    /// events for the whole batch), and the assistant's message with them
    /// added to the conversation.
    async fn propose_calls(&self, turn: &Turn) -> Vec<(String, ToolCallSpec, ProposedArgs)> {
        let calls: Vec<_> = turn
            .tool_calls
            .iter()
            .map(|c| {
                let id =
                    c.id.clone()
                        .unwrap_or_else(|| format!("toolu_{}", self.next_n()));
                (id, c.clone(), ProposedArgs::of(c))
            })
            .collect();
        for (id, c, args) in &calls {
            // One reply may hold hundreds of calls: their events go out
            // at the pace the subscribers read them (N-11).
            self.extensions.pace().await;
            crate::session::tools::pipeline::announce(&self.fanout, id, &c.name, args, "");
        }
        lock(&self.dialogue).converse(Message::Assistant {
            text: turn.text.clone(),
            tool_calls: calls
                .iter()
                .map(|(id, c, a)| (id.clone(), c.name.clone(), a.text(), String::new()))
                .collect(),
        });
        calls
    }

    /// `turn_end`, with the turn's stop reason (by default `tool_use` when
    /// it called tools, else `end_turn`) and error.
    fn end_turn(&self, turn: &Turn, no_calls: bool) {
        let stop = turn
            .stop
            .clone()
            .unwrap_or_else(|| if no_calls { "end_turn" } else { "tool_use" }.to_owned());
        self.emit(LifecycleEvent::TurnEnd(TurnEndEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
            stop,
            error: turn.error.clone(),
        }));
    }

    /// One tool call of the model through the pipeline; its result joins
    /// the conversation, then queued input is taken in.
    async fn run_model_call(&self, id: String, c: ToolCallSpec, args: ProposedArgs) {
        let cancel = CancellationToken::new();
        let (user, on_delivery) = WhileRunning::of(&c, &cancel);
        let run = self
            .run_tool_while(
                ToolRequest {
                    tool_id: id.clone(),
                    name: c.name.clone(),
                    args,
                    origin_extension: String::new(),
                    chain: Vec::new(),
                    cancel,
                    confirm: c.confirm,
                    cancel_on_delivery: on_delivery,
                    exec_deadline: None,
                    announce: false,
                    via_call_tool: false,
                    durable_scope: String::new(),
                },
                user,
            )
            .await;
        lock(&self.dialogue).converse(Message::ToolResult {
            tool_id: id,
            text: run.output.joined_text(),
            is_error: run.output.is_error,
        });
        self.accept_queued();
    }

    /// The live model's next turn; a failed request is a turn with an error
    /// (the loop ends there, `turn_end` carries it) and a status line.
    async fn live_turn(&self, model: Arc<crate::model::LiveModel>) -> Turn {
        let (system, history) = {
            let st = lock(&self.dialogue);
            (
                st.prompt.clone().unwrap_or_default(),
                st.history.clone().unwrap_or_default(),
            )
        };
        let tools = self.extensions.offered_tools();
        match model.next_turn(&system, &history, &tools).await {
            Ok(t) => {
                let hook = self.replies.live_turn_hook();
                if let Some(hook) = hook {
                    hook(&t.script);
                }
                t.turn
            }
            Err(e) => {
                self.status("error", e.clone());
                Turn {
                    error: e,
                    ..Turn::default()
                }
            }
        }
    }

    /// Accepts `submit`s that arrived while a turn runs: announced now with
    /// `queued: true`, run after the current one.
    fn accept_queued(&self) {
        while let Some((ext, text)) = self.input.next_submit() {
            self.observe(Observation::User {
                text: text.clone(),
                queued: true,
                from: ext.clone(),
            });
            self.emit(LifecycleEvent::UserPromptSubmit(UserPromptSubmitEvent {
                session_id: String::new(),
                cwd: String::new(),
                sequence: 0,
                text: text.clone(),
                queued: true,
                image_count: 0,
            }));
            self.input.push_followup(text, ext);
        }
    }

    /// A tool called the way a codemode script calls it (§7.3, HOST-73,
    /// HOST-75): `model-only` tools are not callable; the script gets
    /// `structured_content` when the tool declared an `output_schema` and
    /// returned one (failures as data), otherwise the joined text, and a
    /// failed call rejects.
    pub async fn codemode_call(&self, c: &crate::session::script::CodemodeCall) {
        let reg = self.extensions.tool(&c.name);
        if reg
            .as_ref()
            .is_some_and(|t| t.exposure == zot_protocol::Exposure::ModelOnly)
        {
            return self.observe(Observation::Codemode {
                name: c.name.clone(),
                value: None,
                error: Some(format!(
                    "tool {} is not callable from scripts (model-only)",
                    c.name
                )),
            });
        }
        let args = ProposedArgs::of_value(c.args.as_ref());
        let tool_id = format!("code_{}", self.next_n());
        let run = self
            .run_tool(ToolRequest::announced(tool_id, c.name.clone(), args))
            .await;
        let declared = reg.is_some_and(|t| t.def.output_schema.is_some());
        let (value, error) = match (&run.output.structured_content, declared) {
            (Some(v), true) => (Some(v.to_value()), None),
            _ if run.output.is_error => (None, Some(run.output.joined_text())),
            _ => (
                Some(serde_json::Value::String(run.output.joined_text())),
                None,
            ),
        };
        self.observe(Observation::Codemode {
            name: c.name.clone(),
            value,
            error,
        });
    }
}
