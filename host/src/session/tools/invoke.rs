//! Invoking an extension tool (§7.4..§7.6, §8; HOST-62..71, HOST-77..81):
//! the reply deadline, interactive rules by host mode, `tool_cancel` only to
//! extensions that advertised it, withdrawal of a still-queued call, late
//! results discarded, result conversion.

use std::sync::Arc;

use base64::Engine as _;
use tokio_util::sync::CancellationToken;
use zot_protocol::{
    Capability, ContentBlock, HostFrame, RawJson, ToolCall, ToolCancel, ToolResult, ToolStatus,
};

use crate::deadline::{self, Deadline};
use crate::process::extension::{HostCall, LoadedExtension, Reply};
use crate::process::outbound::{Expired, Withdraw};
use crate::process::shared::Shared;

/// The outcome of running any tool (built-in or extension).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// Model-facing blocks (never shortened).
    pub content: Vec<ContentBlock>,
    /// Error result.
    pub is_error: bool,
    /// Terminal status.
    pub status: ToolStatus,
    /// Whether the execute step was entered.
    pub executed: bool,
    /// Deferred tools to activate.
    pub activate_tools: Vec<String>,
    /// Structured result, for script callers.
    pub structured_content: Option<RawJson>,
    /// A refusal raised inside the tool (jail, ...): reported as a
    /// `tool_execution` denial and status `blocked` (HOST-141).
    pub local_refusal: Option<String>,
}

impl ToolOutput {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            is_error: false,
            status: ToolStatus::Completed,
            executed: true,
            activate_tools: Vec::new(),
            structured_content: None,
            local_refusal: None,
        }
    }

    /// An error result with a status.
    pub fn error(text: impl Into<String>, status: ToolStatus, executed: bool) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            is_error: true,
            status,
            executed,
            activate_tools: Vec::new(),
            structured_content: None,
            local_refusal: None,
        }
    }

    /// The text blocks joined with newlines (images as `[image <mime>]`).
    pub fn joined_text(&self) -> String {
        self.content
            .iter()
            .map(|b| match b {
                ContentBlock::Text { text } => text.clone(),
                ContentBlock::Image { mime_type, data } => {
                    format!("[image {mime_type}, {} base64 bytes]", data.len())
                }
                ContentBlock::Unknown(u) => format!("[{}]", u.type_name),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One invocation of an extension tool.
pub struct Invocation {
    /// The owning extension.
    pub ext: Arc<LoadedExtension>,
    /// Tool name.
    pub tool: String,
    /// Effective arguments (an object).
    pub args: RawJson,
    /// The tool is registered `interactive`.
    pub interactive: bool,
    /// The host supports interactive tools (interactive TUI).
    pub host_interactive: bool,
    /// The call chain including this tool (§9.3).
    pub chain: Vec<String>,
    /// Cancels the invocation.
    pub cancel: CancellationToken,
    /// Cancel right after the `tool_call` frame was written (scripts).
    pub cancel_on_delivery: bool,
    /// Durable identity (continuous mode).
    pub scope: String,
}

fn fail(ext: &str, tool: &str, reason: &str, status: ToolStatus, executed: bool) -> ToolOutput {
    ToolOutput::error(
        format!("extension {ext}/{tool} failed: {reason}"),
        status,
        executed,
    )
}

/// A `tool_cancel` the host owes an extension for a call it gave up on.
///
/// It is sent when dropped. The pipeline drops it right after it recorded
/// the call's result, so whatever the extension does in reaction to the
/// cancel (a note, a panel) follows that result in the transcript, live and
/// replayed alike.
pub struct CancelNotice {
    ext: Arc<LoadedExtension>,
    id: String,
}

impl Drop for CancelNotice {
    fn drop(&mut self) {
        let id = std::mem::take(&mut self.id);
        // A closed queue already disconnected the extension.
        let _ = self
            .ext
            .outbound
            .send(&HostFrame::ToolCancel(ToolCancel { id }));
    }
}

/// How an invocation ended.
pub struct Invoked {
    pub output: ToolOutput,
    /// Sent once the result is recorded.
    pub cancel_notice: Option<CancelNotice>,
}

impl From<ToolOutput> for Invoked {
    fn from(output: ToolOutput) -> Self {
        Self {
            output,
            cancel_notice: None,
        }
    }
}

/// Runs the invocation to a terminal outcome.
pub async fn invoke(shared: &Arc<Shared>, inv: Invocation) -> Invoked {
    if let Some(refused) = refuse_early(&inv) {
        return refused.into();
    }
    let Invocation {
        ext,
        tool,
        args,
        interactive,
        chain,
        cancel,
        cancel_on_delivery,
        scope,
        ..
    } = inv;
    let ename = ext.name.clone();
    let id = shared.next_id();
    let token = cancel.child_token();
    ext.host_calls
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(
            id.clone(),
            HostCall {
                chain,
                cancel: token.clone(),
                scope,
                ordinal: Arc::default(),
            },
        );
    let mut reply = ext.expect_reply(&id, crate::process::extension::ReplyKind::Tool);
    let frame = HostFrame::ToolCall(ToolCall {
        id: id.clone(),
        name: tool.clone(),
        args,
    });
    let outcome: Invoked = match ext.outbound.request(&frame) {
        Err(e) => fail(&ename, &tool, &e.to_string(), ToolStatus::Failed, false).into(),
        Ok(mut ticket) => {
            let call = Waiting {
                shared,
                ext: &ext,
                token: &token,
                interactive,
                cancel_on_delivery,
            };
            match call.wait(&mut reply, &mut ticket).await {
                Waited::Answered(res) => convert(&ename, &tool, res).into(),
                Waited::GaveUp {
                    status,
                    reason,
                    written,
                    sent,
                } => {
                    let cancel_notice =
                        if matches!(status, ToolStatus::Cancelled | ToolStatus::TimedOut) {
                            abandon(shared, &ext, &id, ticket, written).await
                        } else {
                            None
                        };
                    Invoked {
                        output: fail(&ename, &tool, &reason, status, sent),
                        cancel_notice,
                    }
                }
            }
        }
    };
    ext.forget_reply(&id);
    remove_call(&ext, &id, &token);
    outcome
}

/// The failure of a call that is not sent at all: an interactive tool in a
/// host that is not (HOST-66), an extension already gone, a call already
/// cancelled.
fn refuse_early(inv: &Invocation) -> Option<ToolOutput> {
    let ename = &inv.ext.name;
    if inv.interactive && !inv.host_interactive {
        return Some(ToolOutput::error(
            "interactive extension tools require an interactive host",
            ToolStatus::Failed,
            false,
        ));
    }
    if !inv.ext.is_connected() {
        return Some(fail(
            ename,
            &inv.tool,
            &format!("extension {ename} disconnected"),
            ToolStatus::Failed,
            false,
        ));
    }
    if inv.cancel.is_cancelled() {
        return Some(fail(
            ename,
            &inv.tool,
            "cancelled",
            ToolStatus::Cancelled,
            false,
        ));
    }
    None
}

/// How the wait for a `tool_result` ended.
enum Waited {
    /// The extension answered.
    Answered(ToolResult),
    /// The host stopped waiting: why, whether the call was written, and
    /// whether it was sent at all (one that never left the queue was not).
    GaveUp {
        status: ToolStatus,
        reason: String,
        written: bool,
        sent: bool,
    },
}

/// A sent `tool_call` waiting for its result.
struct Waiting<'a> {
    shared: &'a Arc<Shared>,
    ext: &'a Arc<LoadedExtension>,
    /// Cancels this call (a child of the caller's token).
    token: &'a CancellationToken,
    interactive: bool,
    cancel_on_delivery: bool,
}

impl Waiting<'_> {
    /// Waits for the reply, the write, the write and reply deadlines and
    /// cancellation, whichever settles the call first.
    async fn wait(
        &self,
        reply: &mut tokio::sync::oneshot::Receiver<Reply>,
        ticket: &mut crate::process::outbound::Ticket,
    ) -> Waited {
        let (ext, token) = (self.ext, self.token);
        let ename = &ext.name;
        let t = &self.shared.cfg.timeouts;
        // HOST-65: no reply deadline for interactive tools in the TUI.
        let mut reply_deadline = (!self.interactive).then(|| Deadline::after(t.tool_reply));
        let mut write_deadline = Deadline::after(t.write);
        let mut written = false;
        let mut sent = true;
        let gave_up: Option<(ToolStatus, String)> = loop {
            tokio::select! {
                biased;
                r = &mut *reply => break match r {
                    Ok(Reply::Tool(res)) => return Waited::Answered(res),
                    Ok(Reply::Malformed(e)) => Some((ToolStatus::Failed, format!("malformed tool_result: {e}"))),
                    Ok(other) => Some((ToolStatus::Failed, format!("unexpected reply {other:?}"))),
                    Err(_) => Some((ToolStatus::Failed, format!("extension {ename} disconnected"))),
                },
                w = &mut ticket.written, if !written => match w {
                    Ok(Ok(())) => {
                        written = true;
                        if self.cancel_on_delivery {
                            token.cancel();
                        }
                    }
                    Ok(Err(e)) => break Some((ToolStatus::Failed, e.to_string())),
                    Err(_) => break Some((ToolStatus::Failed, format!("extension {ename} disconnected"))),
                },
                _ = write_deadline.passed(), if !written => {
                    match ext.outbound.expire(ticket.id, t.write) {
                        // Only waiting for room behind the host's own
                        // burst: this call fails alone (never sent).
                        Expired::NoRoom(why) => {
                            sent = false;
                            break Some((ToolStatus::Failed, why));
                        }
                        // HOST-67/152: a write that does not complete in
                        // time disconnects.
                        Expired::Stuck => {
                            ext.disconnect(self.shared, "tool_call write timed out");
                            break Some((ToolStatus::Failed, "write timed out".into()));
                        }
                    }
                }
                _ = deadline::passed(reply_deadline.as_mut()) => {
                    break Some((ToolStatus::TimedOut, format!("timed out after {:?}", t.tool_reply)));
                }
                _ = token.cancelled() => break Some(if ext.is_connected() {
                    (ToolStatus::Cancelled, "cancelled".into())
                } else {
                    (ToolStatus::Failed, format!("extension {ename} disconnected"))
                }),
            }
        };
        let (status, reason) = gave_up.unwrap_or((ToolStatus::Failed, "no reply".into()));
        Waited::GaveUp {
            status,
            reason,
            written,
            sent,
        }
    }
}

fn remove_call(ext: &LoadedExtension, id: &str, token: &CancellationToken) {
    ext.host_calls
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(id);
    // Nested call_tools of this invocation end with it (HOST-89).
    token.cancel();
}

/// Gives up on a call (§8): withdraw it if still queued (HOST-79); if it is
/// mid-write, wait the abandon grace and otherwise close the transport
/// (HOST-80); once written, owe `tool_cancel` only to extensions that
/// advertised it (HOST-77), sent without waiting for an answer (HOST-81).
async fn abandon(
    shared: &Arc<Shared>,
    ext: &Arc<LoadedExtension>,
    id: &str,
    ticket: crate::process::outbound::Ticket,
    written: bool,
) -> Option<CancelNotice> {
    let delivered = if written {
        true
    } else {
        match ext.outbound.withdraw(ticket.id) {
            Withdraw::Withdrawn => false,
            Withdraw::Done => true,
            Withdraw::InFlight => {
                match crate::deadline::timeout(
                    shared.cfg.timeouts.abandon_write_grace,
                    ticket.written,
                )
                .await
                {
                    Ok(Ok(Ok(()))) => true,
                    _ => {
                        ext.disconnect(
                            shared,
                            "cancelled tool_call could not be withdrawn mid-write",
                        );
                        false
                    }
                }
            }
        }
    };
    (delivered && ext.has_capability(&Capability::ToolCancel)).then(|| CancelNotice {
        ext: ext.clone(),
        id: id.to_owned(),
    })
}

/// Converts an extension's result (§7.6, HOST-70/71).
pub fn convert(ext: &str, tool: &str, r: ToolResult) -> ToolOutput {
    let mut content = Vec::new();
    let mut is_error = r.is_error;
    for b in r.content {
        match b {
            ContentBlock::Text { text } if text.is_empty() => {}
            ContentBlock::Text { .. } => content.push(b),
            ContentBlock::Image { mime_type, data } => {
                match base64::engine::general_purpose::STANDARD.decode(data.as_bytes()) {
                    Ok(bytes) => content.push(ContentBlock::image(
                        mime_type,
                        base64::engine::general_purpose::STANDARD.encode(bytes),
                    )),
                    Err(e) => {
                        is_error = true;
                        content.push(ContentBlock::text(format!(
                            "extension {ext}/{tool} returned undecodable image: {e}"
                        )));
                    }
                }
            }
            ContentBlock::Unknown(u) => content.push(ContentBlock::text(format!(
                "[unknown block type {:?} from extension {ext}]",
                u.type_name
            ))),
        }
    }
    if content.is_empty() {
        content.push(ContentBlock::text("(extension returned no content)"));
    }
    ToolOutput {
        content,
        is_error,
        // HOST-137: a custom tool that only sets is_error is `failed`.
        status: if is_error {
            ToolStatus::Failed
        } else {
            ToolStatus::Completed
        },
        executed: true,
        activate_tools: r.activate_tools,
        structured_content: r.structured_content,
        local_refusal: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zot_protocol::UnknownBlock;

    #[test]
    fn conversion_rules() {
        let r = ToolResult {
            id: "1".into(),
            content: vec![
                ContentBlock::text(""),
                ContentBlock::text("ok"),
                ContentBlock::image("image/png", "!!!"),
                ContentBlock::Unknown(UnknownBlock {
                    type_name: "audio".into(),
                }),
            ],
            ..Default::default()
        };
        let out = convert("e", "t", r);
        assert!(out.is_error);
        assert_eq!(out.status, ToolStatus::Failed);
        let texts: Vec<_> = out.content.iter().filter_map(|b| b.as_text()).collect();
        assert_eq!(texts[0], "ok");
        assert!(texts[1].starts_with("extension e/t returned undecodable image"));
        assert_eq!(texts[2], "[unknown block type \"audio\" from extension e]");
        let empty = convert("e", "t", ToolResult::default());
        assert_eq!(
            empty.content,
            vec![ContentBlock::text("(extension returned no content)")]
        );
    }
}
