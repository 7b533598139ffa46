//! Interception chains (§11, HOST-103..123): serial, in load order for all
//! four events (OP-3, OP-5), first block wins, rewrites chain, 5 s deadline
//! per extension; a timeout, a failed write, a malformed reply or a
//! disconnect counts as "allow, unchanged" with a warning.

use std::sync::Arc;
use std::time::Duration;

use zot_protocol::limits::MAX_SYSTEM_PROMPT_BYTES;
use zot_protocol::{
    AssistantMessageIntercept, BeforeAgentStartIntercept, EventInterceptResponse, HostFrame,
    InterceptRequest, RawJson, ToolCallIntercept, TurnStartIntercept,
};

use crate::process::extension::{LoadedExtension, Reply};
use crate::process::manager::Manager;
use crate::process::outbound::Expired;
use crate::transcript::Observation;

/// Outcome of the `tool_call` chain.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallVerdict {
    /// Run with these (possibly rewritten) arguments.
    Allow(RawJson),
    /// Refused; the reason is the tool error the model sees.
    Block(String),
}

/// Outcome of the `assistant_message` chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageVerdict {
    /// Show this (possibly replaced) text.
    Show(String),
    /// Hide the message.
    Hide(String),
}

/// Asks one extension; `Err` is a failure that counts as "allow".
async fn ask(
    mgr: &Manager,
    ext: &Arc<LoadedExtension>,
    req: InterceptRequest,
    deadline: Duration,
    deadline_includes_write: bool,
) -> Result<EventInterceptResponse, String> {
    let id = req.id().to_owned();
    let event = req.name();
    let rx = ext.expect_reply(&id, crate::process::extension::ReplyKind::Intercept);
    let ticket = match ext.outbound.request(&HostFrame::EventIntercept(req)) {
        Ok(t) => t,
        Err(e) => {
            ext.forget_reply(&id);
            return Err(format!("write: {e}"));
        }
    };
    let t = &mgr.cfg().timeouts;
    let ticket_id = ticket.id;
    let result = if deadline_includes_write {
        let mut written = false;
        let r = crate::deadline::timeout(deadline, async {
            ticket
                .written
                .await
                .map_err(|_| "write failed".to_string())?
                .map_err(|e| e.to_string())?;
            written = true;
            rx.await.map_err(|_| "extension disconnected".to_string())
        })
        .await;
        if r.is_err() && !written {
            // The deadline includes the write (N-6): a request still queued
            // or stuck mid-write closes the input pipe to release the writer;
            // one only waiting for room behind the host's own burst is
            // withdrawn and fails alone.
            ext.forget_reply(&id);
            if let Expired::NoRoom(why) = ext.outbound.expire(ticket_id, deadline) {
                return Err(why);
            }
            ext.disconnect(mgr.shared(), &format!("{event} request write timed out"));
        }
        r
    } else {
        match crate::deadline::timeout(t.write, ticket.written).await {
            Ok(Ok(Ok(()))) => {}
            Ok(_) => {
                ext.forget_reply(&id);
                return Err("write failed".into());
            }
            Err(_) => {
                ext.forget_reply(&id);
                if let Expired::NoRoom(why) = ext.outbound.expire(ticket_id, t.write) {
                    return Err(why);
                }
                ext.disconnect(mgr.shared(), "request write timed out");
                return Err("write timed out".into());
            }
        }
        crate::deadline::timeout(deadline, async {
            rx.await.map_err(|_| "extension disconnected".to_string())
        })
        .await
    };
    ext.forget_reply(&id);
    match result {
        Err(_) => {
            ext.log
                .line(&format!("intercept {event} {id} timed out; allowing"));
            Err("timed out".into())
        }
        Ok(Err(e)) => Err(e),
        Ok(Ok(Reply::Intercept(r))) => Ok(r),
        Ok(Ok(Reply::Malformed(e))) => Err(format!("malformed response: {e}")),
        Ok(Ok(other)) => Err(format!("unexpected reply {other:?}")),
    }
}

fn warn(mgr: &Manager, ext: &LoadedExtension, text: String) {
    ext.log.line(&text);
    mgr.shared().transcript.push(Observation::Warning {
        text: format!("[{}] {text}", ext.name),
    });
}

fn subscribers(mgr: &Manager, event: &str) -> Vec<Arc<LoadedExtension>> {
    mgr.connected()
        .into_iter()
        .filter(|e| e.intercepts(event))
        .collect()
}

/// The `tool_call` chain (HOST-105, 108, 109, 110).
pub async fn tool_call(
    mgr: &Manager,
    tool_id: &str,
    tool_name: &str,
    args: RawJson,
    origin_extension: &str,
) -> ToolCallVerdict {
    let mut args = args;
    for ext in subscribers(mgr, "tool_call") {
        let req = InterceptRequest::ToolCall(ToolCallIntercept {
            origin_extension: origin_extension.to_owned(),
            id: mgr.shared().next_id(),
            tool_id: tool_id.to_owned(),
            tool_name: tool_name.to_owned(),
            tool_args: args.clone(),
        });
        match ask(mgr, &ext, req, mgr.cfg().timeouts.intercept, false).await {
            Err(e) => warn(mgr, &ext, format!("intercept tool_call: {e}; allowing")),
            Ok(r) if r.block => return ToolCallVerdict::Block(r.reason),
            Ok(r) => {
                if let Some(m) = r.modified_args {
                    if m.is_object() {
                        args = m;
                    } else {
                        // OP-20: ignore non-objects and record a diagnostic.
                        ext.diagnose(mgr.shared(), "modified_args is not a JSON object; ignored");
                    }
                }
            }
        }
    }
    ToolCallVerdict::Allow(args)
}

/// The `turn_start` chain: `Some(reason)` when blocked (HOST-111).
pub async fn turn_start(mgr: &Manager, step: u32) -> Option<String> {
    for ext in subscribers(mgr, "turn_start") {
        let req = InterceptRequest::TurnStart(TurnStartIntercept {
            id: mgr.shared().next_id(),
            step,
        });
        match ask(mgr, &ext, req, mgr.cfg().timeouts.intercept, false).await {
            Err(e) => warn(mgr, &ext, format!("intercept turn_start: {e}; allowing")),
            Ok(r) if r.block => return Some(r.reason),
            Ok(_) => {}
        }
    }
    None
}

/// The `assistant_message` chain (HOST-112, 113).
pub async fn assistant_message(mgr: &Manager, text: &str) -> MessageVerdict {
    let mut text = text.to_owned();
    for ext in subscribers(mgr, "assistant_message") {
        let req = InterceptRequest::AssistantMessage(AssistantMessageIntercept {
            id: mgr.shared().next_id(),
            text: text.clone(),
        });
        match ask(mgr, &ext, req, mgr.cfg().timeouts.intercept, false).await {
            Err(e) => warn(
                mgr,
                &ext,
                format!("intercept assistant_message: {e}; allowing"),
            ),
            Ok(r) if r.block => return MessageVerdict::Hide(r.reason),
            Ok(r) if !r.replace_text.is_empty() => text = r.replace_text,
            Ok(_) => {}
        }
    }
    MessageVerdict::Show(text)
}

/// Context of one `before_agent_start` pass.
#[derive(Debug, Clone)]
pub struct PromptPass {
    /// Session id.
    pub session_id: String,
    /// Pass id shared by the chain.
    pub agent_run_id: String,
    /// Working directory.
    pub cwd: String,
    /// Provider.
    pub provider: String,
    /// Model.
    pub model: String,
}

/// The `before_agent_start` chain (HOST-114..118): returns the prompt in force
/// after the pass. Failures keep the current prompt, log a diagnostic and
/// warn `before_agent_start: <failure>; keeping current system prompt`.
pub async fn before_agent_start(mgr: &Manager, base: &str, pass: &PromptPass) -> String {
    let mut prompt = base.to_owned();
    for ext in subscribers(mgr, "before_agent_start") {
        let req = InterceptRequest::BeforeAgentStart(BeforeAgentStartIntercept {
            system_prompt: prompt.clone(),
            session_id: pass.session_id.clone(),
            agent_run_id: pass.agent_run_id.clone(),
            cwd: pass.cwd.clone(),
            provider: pass.provider.clone(),
            model: pass.model.clone(),
            id: mgr.shared().next_id(),
        });
        let failure = match ask(mgr, &ext, req, mgr.cfg().timeouts.before_agent_start, true).await {
            Err(e) => Some(e),
            Ok(r) => match r.system_prompt {
                Some(Some(p)) => {
                    let encoded = serde_json::to_string(&p)
                        .map(|s| s.len())
                        .unwrap_or(usize::MAX);
                    if encoded > MAX_SYSTEM_PROMPT_BYTES {
                        Some(format!(
                            "system_prompt is {encoded} bytes encoded, over the {MAX_SYSTEM_PROMPT_BYTES}-byte limit"
                        ))
                    } else {
                        prompt = p;
                        None
                    }
                }
                Some(None) => Some("system_prompt is null".into()),
                None if r.block => Some("startup hooks cannot block".into()),
                None => None,
            },
        };
        if let Some(f) = failure {
            let text = format!("before_agent_start: {f}; keeping current system prompt");
            ext.record(&text);
            mgr.shared().transcript.push(Observation::Warning {
                text: format!("[{}] {text}", ext.name),
            });
        }
    }
    prompt
}
