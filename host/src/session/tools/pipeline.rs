//! One tool call through the pipeline (§12.3, HOST-131..148), step by step
//! in the order the host runs them:
//!
//! validate → resolve → intercept → confirm → execute → observe.
//!
//! A step that ends the call early returns the output the call ends with
//! (`Err(ToolOutput)`); every way out goes through [`ToolRun`]'s one
//! `tool_result` event and observation.
//!
//! The pipeline sees the session it runs in only through [`ToolSession`]:
//! the extensions, the fan-out, the answers part, and the scripted user's
//! waits and keys.

use std::time::Duration;

use tokio_util::sync::CancellationToken;
use zot_protocol::{
    ContentBlock, Decision, DecisionSource, DecisionStage, EventResult, LifecycleEvent,
    PermissionDecisionEvent, RawJson, ToolCallEvent, ToolConfirmationRequestedEvent,
    ToolResultEvent, ToolStatus,
};

use crate::process::registry::ToolReg;
use crate::session::extensions::Extensions;
use crate::session::fanout::Fanout;
use crate::session::interception::{self, ToolCallVerdict};
use crate::session::script::{ConfirmAnswer, ConfirmPolicy, KeyPress, WaitSpec};
use crate::session::tools::answers::Answers;
use crate::session::tools::invoke::{CancelNotice, Invocation, Invoked, ToolOutput};
use crate::session::tools::request::{ProposedArgs, ToolRequest, ToolRun, WhileRunning};
use crate::transcript::Observation;

/// The session as the tool pipeline sees it: what a call needs from around
/// it and nothing more. The session engine is the one implementation.
pub(crate) trait ToolSession: Sync {
    /// The extensions: the registry a name resolves in, the interceptors,
    /// the tool's owner.
    fn extensions(&self) -> &Extensions;
    /// Where the call's observations and events go (and the session's id
    /// and cwd).
    fn fanout(&self) -> &Fanout;
    /// The confirmation policy and answers, and the stub tools.
    fn answers(&self) -> &Answers;
    /// Whether the host has a user to ask (the tool is told too).
    fn interactive(&self) -> bool;
    /// Shutdown began: no answer comes any more.
    fn is_closing(&self) -> bool;
    /// The position of the next frame read.
    fn seen_mark(&self) -> u64;
    /// Waits for a frame at or after `from` (a failed wait is a failed
    /// check); whether it came.
    async fn wait_for(&self, w: &WaitSpec, from: u64) -> bool;
    /// Presses the scripted keys in the panel `ext` opens.
    async fn press_keys(&self, keys: &[KeyPress], ext: &str, from: u64);
}

/// A step either lets the call go on with a value or ends it with an output.
type Step<T> = Result<T, ToolOutput>;

/// Who answers the call.
enum Target {
    /// A tool an extension registered.
    Extension(Box<ToolReg>),
    /// A stub answered by hand (`answer` steps).
    Stub,
    /// One of the host's built-in tools.
    Builtin,
}

/// Runs one tool call through the whole pipeline while the scripted user
/// works its panel.
pub(crate) async fn run<S: ToolSession>(
    session: &S,
    req: ToolRequest,
    user: WhileRunning,
) -> ToolRun {
    let wait_from = session.seen_mark();
    // Each call emits a few events; calls run back to back (or many at
    // once through call_tool): keep pace with the subscribers.
    session.extensions().pace().await;
    if req.announce {
        announce(
            session.fanout(),
            &req.tool_id,
            &req.name,
            &req.args,
            &req.origin_extension,
        );
    }
    let call = Call { session, req: &req };
    let (args, target) = match call.validate().and_then(|args| Ok((args, call.resolve()?))) {
        Ok(found) => found,
        Err(out) => return call.finish(&req.args, out),
    };
    let args = match call.intercept(args).await {
        Ok(args) => args,
        Err(out) => return call.finish(&req.args, out),
    };
    let then_wait = user.then_wait.clone();
    let invoked = match call.confirm(&args).await {
        Ok(host_interactive) => {
            call.execute(target, &args, host_interactive, user, wait_from)
                .await
        }
        Err(out) => out.into(),
    };
    let run = call.observe(ProposedArgs::Json(args), invoked);
    // The scripted user waits for the extension's reaction to a cancel,
    // which the result recorded above comes before.
    if let Some(w) = &then_wait {
        session.wait_for(w, wait_from).await;
    }
    run
}

/// The `tool_call` event and observation of a call about to run.
pub(crate) fn announce(fanout: &Fanout, id: &str, name: &str, args: &ProposedArgs, origin: &str) {
    let (tool_args, tool_args_raw, shown) = match args {
        ProposedArgs::Json(j) => (Some(j.clone()), None, j.to_value()),
        ProposedArgs::Raw(r) => (None, Some(r.clone()), serde_json::Value::String(r.clone())),
    };
    fanout.observe(Observation::ToolCall {
        tool_id: id.to_owned(),
        name: name.to_owned(),
        args: shown,
        origin_extension: origin.to_owned(),
    });
    fanout.emit(LifecycleEvent::ToolCall(ToolCallEvent {
        session_id: String::new(),
        cwd: String::new(),
        sequence: 0,
        origin_extension: origin.to_owned(),
        tool_id: id.to_owned(),
        tool_name: name.to_owned(),
        tool_args,
        tool_args_raw,
    }));
}

/// One call on its way through the steps.
struct Call<'a, S> {
    session: &'a S,
    req: &'a ToolRequest,
}

impl<S: ToolSession> Call<'_, S> {
    /// Not cancelled already, and arguments that are a JSON object.
    fn validate(&self) -> Step<RawJson> {
        if self.req.cancel.is_cancelled() {
            return Err(ToolOutput::error(
                "tool call cancelled",
                ToolStatus::Cancelled,
                false,
            ));
        }
        match &self.req.args {
            ProposedArgs::Json(j) => Ok(j.clone()),
            ProposedArgs::Raw(r) => Err(ToolOutput::error(
                format!(
                    "invalid tool arguments (not a JSON object): {}",
                    crate::util::ellipsize(r, 200)
                ),
                ToolStatus::Failed,
                false,
            )),
        }
    }

    /// A built-in, then a stub (it shadows an extension tool of the same
    /// name, never a built-in), then an extension tool the caller may see.
    fn resolve(&self) -> Step<Target> {
        let name = &self.req.name;
        if crate::session::tools::builtin::is_builtin(name) {
            return Ok(Target::Builtin);
        }
        if self.session.answers().is_stub(name) {
            return Ok(Target::Stub);
        }
        let found = self
            .session
            .extensions()
            .callable_tool(name, self.req.via_call_tool);
        match found {
            Some(t) => Ok(Target::Extension(Box::new(t))),
            None => Err(ToolOutput::error(
                format!("unknown tool {name:?}"),
                ToolStatus::Failed,
                false,
            )),
        }
    }

    /// The interception chain (HOST-91, 104..110): the arguments it lets
    /// through, maybe rewritten.
    async fn intercept(&self, args: RawJson) -> Step<RawJson> {
        let req = self.req;
        let verdict = interception::tool_call(
            self.session.extensions().manager(),
            &req.tool_id,
            &req.name,
            args,
            &req.origin_extension,
        )
        .await;
        match verdict {
            ToolCallVerdict::Allow(args) => Ok(args),
            ToolCallVerdict::Block(reason) => {
                let reason = if reason.is_empty() {
                    "blocked by an extension".to_owned()
                } else {
                    reason
                };
                self.decision(
                    Decision::Denied,
                    DecisionSource::Policy,
                    DecisionStage::PreExecution,
                    &reason,
                );
                Err(ToolOutput::error(reason, ToolStatus::Blocked, false))
            }
        }
    }

    /// Confirmation and permission (HOST-140, 141): the decision, and
    /// whether the host is interactive (the tool is told).
    async fn confirm(&self, args: &RawJson) -> Step<bool> {
        let req = self.req;
        let (policy, remembered) = self.session.answers().rule_for(&req.name);
        let interactive = self.session.interactive();
        let approve =
            |source| self.decision(Decision::Approved, source, DecisionStage::PreExecution, "");
        if policy == ConfirmPolicy::Yolo {
            approve(DecisionSource::Yolo);
        } else if !crate::session::tools::builtin::needs_confirmation(&req.name) {
            approve(DecisionSource::Policy);
        } else if remembered {
            approve(DecisionSource::Remembered);
        } else if !interactive {
            let reason = "no confirmer available";
            self.decision(
                Decision::Denied,
                DecisionSource::Policy,
                DecisionStage::PreExecution,
                reason,
            );
            return Err(ToolOutput::error(reason, ToolStatus::Blocked, false));
        } else {
            match self.ask_user(args).await {
                ConfirmAnswer::Deny => {
                    self.decision(
                        Decision::Denied,
                        DecisionSource::User,
                        DecisionStage::PreExecution,
                        "denied by the user",
                    );
                    return Err(ToolOutput::error(
                        "the user denied this tool call",
                        ToolStatus::Blocked,
                        false,
                    ));
                }
                ConfirmAnswer::Remember => {
                    self.session.answers().remember(&req.name);
                    approve(DecisionSource::User);
                }
                ConfirmAnswer::Approve => approve(DecisionSource::User),
            }
        }
        Ok(interactive)
    }

    /// Shows the preview and takes the user's answer (scripted on the call,
    /// or the next `answer` step).
    async fn ask_user(&self, args: &RawJson) -> ConfirmAnswer {
        let req = self.req;
        let preview = crate::session::tools::builtin::preview(&req.name, args);
        let fanout = self.session.fanout();
        fanout.emit(LifecycleEvent::ToolConfirmationRequested(
            ToolConfirmationRequestedEvent {
                session_id: String::new(),
                cwd: String::new(),
                sequence: 0,
                origin_extension: req.origin_extension.clone(),
                tool_id: req.tool_id.clone(),
                tool_name: req.name.clone(),
                tool_preview: preview.clone(),
            },
        ));
        let answer = match req.confirm {
            Some(a) => a,
            None => {
                let s = self.session;
                s.answers().next_confirm(|| s.is_closing()).await
            }
        };
        fanout.observe(Observation::Confirmation {
            tool_id: req.tool_id.clone(),
            name: req.name.clone(),
            preview,
            answer: answer.as_str().into(),
        });
        answer
    }

    /// Runs the call where it lives, under its deadline.
    async fn execute(
        &self,
        target: Target,
        args: &RawJson,
        host_interactive: bool,
        user: WhileRunning,
        wait_from: u64,
    ) -> Invoked {
        let cancel = self.req.cancel.child_token();
        match target {
            Target::Extension(tool) => {
                self.execute_in_extension(tool, args, host_interactive, &cancel, &user, wait_from)
                    .await
            }
            Target::Stub => {
                let s = self.session;
                s.answers()
                    .stub_call(&self.req.name, &cancel, self.req.exec_deadline, || {
                        s.is_closing()
                    })
                    .await
                    .into()
            }
            Target::Builtin => self.execute_builtin(args, &cancel).await.into(),
        }
    }

    async fn execute_in_extension(
        &self,
        tool: Box<ToolReg>,
        args: &RawJson,
        host_interactive: bool,
        cancel: &CancellationToken,
        user: &WhileRunning,
        wait_from: u64,
    ) -> Invoked {
        let (session, req) = (self.session, self.req);
        let Some(ext) = session.extensions().get(&tool.ext) else {
            return ToolOutput::error(
                format!("extension {} is not loaded", tool.ext),
                ToolStatus::Failed,
                false,
            )
            .into();
        };
        let mut chain = req.chain.clone();
        if chain.last() != Some(&req.name) {
            chain.push(req.name.clone());
        }
        let scope = if req.durable_scope.is_empty() {
            crate::store::durable::top_scope(&session.fanout().session_id(), &req.tool_id)
        } else {
            req.durable_scope.clone()
        };
        let invocation = crate::session::tools::invoke::invoke(
            session.extensions().shared(),
            Invocation {
                ext: ext.clone(),
                tool: req.name.clone(),
                args: args.clone(),
                interactive: tool.def.interactive,
                host_interactive,
                chain,
                cancel: cancel.clone(),
                cancel_on_delivery: req.cancel_on_delivery,
                scope,
            },
        );
        let run = with_deadline(invocation, req.exec_deadline, cancel);
        if user.keys.is_empty() {
            return run.await;
        }
        // The user works the tool's panel while it waits.
        tokio::pin!(run);
        let keys = session.press_keys(&user.keys, &ext.name, wait_from);
        tokio::pin!(keys);
        let mut pressed = false;
        loop {
            tokio::select! {
                out = &mut run => return out,
                _ = &mut keys, if !pressed => {
                    pressed = true;
                    if user.cancel_after_keys {
                        cancel.cancel();
                    }
                }
            }
        }
    }

    async fn execute_builtin(&self, args: &RawJson, cancel: &CancellationToken) -> ToolOutput {
        let cwd = self.session.fanout().cwd();
        let run = crate::session::tools::builtin::run(&self.req.name, args, &cwd, cancel);
        let Some(d) = self.req.exec_deadline else {
            return run.await;
        };
        crate::deadline::timeout(d, run).await.unwrap_or_else(|_| {
            ToolOutput::error(
                format!("{} timed out after {d:?}", self.req.name),
                ToolStatus::TimedOut,
                true,
            )
        })
    }

    /// What the run did besides its output: a refusal the tool decided
    /// itself, tools it activated; then the result.
    fn observe(&self, args: ProposedArgs, invoked: Invoked) -> ToolRun {
        let Invoked {
            mut output,
            cancel_notice,
        } = invoked;
        if let Some(reason) = output.local_refusal.clone() {
            self.decision(
                Decision::Denied,
                DecisionSource::Policy,
                DecisionStage::ToolExecution,
                &reason,
            );
        }
        if !output.activate_tools.is_empty() {
            let names = std::mem::take(&mut output.activate_tools);
            self.session.extensions().activate(&names);
        }
        self.finish_then(&args, output, cancel_notice)
    }

    /// The one `tool_result` event and observation of every call.
    fn finish(&self, args: &ProposedArgs, output: ToolOutput) -> ToolRun {
        self.finish_then(args, output, None)
    }

    /// [`Call::finish`], sending the `tool_cancel` owed to the extension
    /// right after the result is recorded and before the event goes out.
    fn finish_then(
        &self,
        args: &ProposedArgs,
        output: ToolOutput,
        cancel_notice: Option<CancelNotice>,
    ) -> ToolRun {
        let req = self.req;
        let (observed, truncated) = crate::session::observe::observe(&output.content);
        let (tool_args, tool_args_raw) = match args {
            ProposedArgs::Json(j) => (Some(j.clone()), None),
            ProposedArgs::Raw(r) => (None, Some(r.clone())),
        };
        let fanout = self.session.fanout();
        fanout.observe(Observation::ToolResult {
            tool_id: req.tool_id.clone(),
            name: req.name.clone(),
            status: output.status.to_string(),
            is_error: output.is_error,
            text: crate::util::ellipsize(&output.joined_text(), 2000),
        });
        drop(cancel_notice);
        fanout.emit(LifecycleEvent::ToolResult(ToolResultEvent {
            session_id: String::new(),
            cwd: String::new(),
            sequence: 0,
            status: output.status.clone(),
            result: Some(EventResult {
                content: observed,
                is_error: output.is_error,
                truncated,
            }),
            executed: Some(output.executed),
            origin_extension: req.origin_extension.clone(),
            tool_id: req.tool_id.clone(),
            tool_name: req.name.clone(),
            tool_args,
            tool_args_raw,
        }));
        ToolRun { output }
    }

    fn decision(
        &self,
        decision: Decision,
        source: DecisionSource,
        stage: DecisionStage,
        reason: &str,
    ) {
        let req = self.req;
        self.session
            .fanout()
            .emit(LifecycleEvent::PermissionDecision(
                PermissionDecisionEvent {
                    session_id: String::new(),
                    cwd: String::new(),
                    sequence: 0,
                    reason: reason.to_owned(),
                    source,
                    decision,
                    stage,
                    origin_extension: req.origin_extension.clone(),
                    tool_id: req.tool_id.clone(),
                    tool_name: req.name.clone(),
                },
            ));
    }
}

/// Runs an extension invocation under an optional deadline: when it passes,
/// the invocation is cancelled (so `tool_cancel` / withdrawal still happen)
/// and the outcome becomes `timed_out`.
async fn with_deadline(
    inv: impl std::future::Future<Output = Invoked>,
    deadline: Option<Duration>,
    cancel: &CancellationToken,
) -> Invoked {
    let Some(d) = deadline else {
        return inv.await;
    };
    tokio::pin!(inv);
    tokio::select! {
        out = &mut inv => out,
        _ = tokio::time::sleep(d) => {
            cancel.cancel();
            let mut invoked = inv.await;
            let out = &mut invoked.output;
            if out.status == ToolStatus::Cancelled {
                out.status = ToolStatus::TimedOut;
                out.content = vec![ContentBlock::text(format!("tool call timed out after {d:?}"))];
            }
            invoked
        }
    }
}
