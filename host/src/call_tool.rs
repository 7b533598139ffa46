//! `call_tool` from extensions (§9, HOST-82..102): validation in the order of
//! §9.1 (continuous-mode checks after rule 1, OP-30), parent chains, the
//! execution deadline, `call_tool_cancel`, the observation budget on the
//! reply and `origin_extension` on everything the call causes.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use zot_protocol::limits::MAX_TOOL_CALL_CHAIN;
use zot_protocol::{CallTool, Capability, ContentBlock, HostFrame, HostToolResult, ToolStatus};

use crate::agent::{ProposedArgs, ToolRequest};
use crate::extension::LoadedExtension;
use crate::session::SessionEngine;

/// Error texts of the validation rules (§9.1).
pub mod errors {
    /// Rule 1.
    pub const NOT_OPTED_IN: &str = "extension did not opt in to call_tool";
    /// Rule 2.
    pub const UNKNOWN_PARENT: &str = "unknown or expired parent tool call";
    /// Rule 3.
    pub const PARENT_REQUIRED: &str = "parent_id is required while an extension tool is active";
    /// Rule 4.
    pub const CYCLE: &str = "tool call cycle detected";
    /// Rule 5.
    pub const DEPTH: &str = "tool call depth limit reached";
    /// Rule 6.
    pub const UNAVAILABLE: &str = "host tool calls are unavailable";
    /// Rule 7.
    pub const BAD_REQUEST: &str = "call_tool requires a name and JSON object args";
    /// OP-30: continuous mode without a parent.
    pub const CONTINUOUS_PARENT: &str = "parent_id is required in continuous mode";
    /// OP-30: invalid durable key.
    pub const INVALID_KEY: &str = "invalid call key";
    /// OP-30: a key reused for another tool or other arguments.
    pub const KEY_REUSED: &str = "call key reused with different tool or arguments";
}

fn reply(
    ext: &LoadedExtension,
    id: &str,
    name: &str,
    content: Vec<ContentBlock>,
    is_error: bool,
    truncated: bool,
) {
    let frame = HostFrame::ToolResult(HostToolResult {
        id: id.to_owned(),
        name: name.to_owned(),
        content,
        is_error,
        truncated,
    });
    let _ = ext.outbound.send(&frame);
}

fn refuse(ext: &LoadedExtension, req: &CallTool, text: &str) {
    reply(
        ext,
        &req.id,
        &req.name,
        vec![ContentBlock::text(text)],
        true,
        false,
    );
}

/// Validates a `call_tool` (on the read loop, so rules see a consistent
/// state) and, when accepted, runs it in its own task.
pub fn accept(engine: Arc<SessionEngine>, ext: Arc<LoadedExtension>, req: CallTool) {
    if req.id.is_empty() {
        ext.record("call_tool without id ignored");
        return;
    }
    if ext
        .ext_calls
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains_key(&req.id)
    {
        // OP-27: keep ignoring, log a diagnostic.
        ext.record(&format!(
            "call_tool id {:?} reuses an outstanding id; ignored",
            req.id
        ));
        return;
    }
    // 1.
    if !ext.has_capability(&Capability::CallTool) {
        return refuse(&ext, &req, errors::NOT_OPTED_IN);
    }
    let continuous = engine.mgr.cfg().continuous;
    if continuous {
        if req.parent_id.is_empty() {
            return refuse(&ext, &req, errors::CONTINUOUS_PARENT);
        }
        if !req.key.is_empty() && zot_protocol::validate::validate_call_key(&req.key).is_err() {
            return refuse(&ext, &req, errors::INVALID_KEY);
        }
    }
    let parent = {
        let calls = ext.host_calls.lock().unwrap_or_else(|e| e.into_inner());
        if req.parent_id.is_empty() {
            // 3.
            if !calls.is_empty() {
                drop(calls);
                return refuse(&ext, &req, errors::PARENT_REQUIRED);
            }
            None
        } else {
            // 2. Only outstanding calls to the same extension (OP-26).
            match calls.get(&req.parent_id) {
                Some(p) => Some(p.clone()),
                None => {
                    drop(calls);
                    return refuse(&ext, &req, errors::UNKNOWN_PARENT);
                }
            }
        }
    };
    let chain = match &parent {
        Some(p) => {
            // 4, 5.
            if p.chain.iter().any(|n| n == &req.name) {
                return refuse(&ext, &req, errors::CYCLE);
            }
            if p.chain.len() >= MAX_TOOL_CALL_CHAIN {
                return refuse(&ext, &req, errors::DEPTH);
            }
            let mut c = p.chain.clone();
            c.push(req.name.clone());
            c
        }
        None => vec![req.name.clone()],
    };
    // 6.
    if engine.is_closing() {
        return refuse(&ext, &req, errors::UNAVAILABLE);
    }
    // 7.
    let args = match &req.args {
        Some(a) if a.is_object() && !req.name.is_empty() => a.clone(),
        _ => return refuse(&ext, &req, errors::BAD_REQUEST),
    };
    // Continuous mode: the durable identity of this call (HOST-98..101).
    let entry = match (&parent, continuous) {
        (Some(p), true) => Some(if req.key.is_empty() {
            let n = p.ordinal.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            format!("{}/#{n}", p.scope)
        } else {
            format!("{}/{}", p.scope, req.key)
        }),
        _ => None,
    };
    let cancel = match &parent {
        Some(p) => p.cancel.child_token(),
        None => CancellationToken::new(),
    };
    ext.ext_calls
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(req.id.clone(), cancel.clone());
    tokio::spawn(async move {
        if let (Some(entry), Some(store)) = (&entry, &engine.durable) {
            match store.lookup(entry) {
                Ok(Some(rec)) => {
                    ext.ext_calls
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&req.id);
                    if rec.tool != req.name || rec.args != crate::durable::canonical_args(&args) {
                        return refuse(&ext, &req, errors::KEY_REUSED);
                    }
                    // A replayed parent gets the recorded result; nothing runs.
                    engine.status(
                        "info",
                        format!("call_tool {} replayed from {entry}", req.name),
                    );
                    let (content, truncated) = crate::observe::observe(&rec.content);
                    return reply(&ext, &req.id, &req.name, content, rec.is_error, truncated);
                }
                Ok(None) => {}
                Err(e) => ext.record(&e.to_string()),
            }
        }
        let run_args = args.clone();
        let tool_id = format!("call_{}", engine.next_n());
        let deadline = engine.mgr.cfg().timeouts.call_tool;
        let run = engine
            .run_tool(ToolRequest {
                tool_id,
                name: req.name.clone(),
                args: ProposedArgs::Json(args.clone()),
                origin_extension: ext.name.clone(),
                chain,
                cancel: cancel.clone(),
                confirm: None,
                cancel_on_delivery: false,
                exec_deadline: Some(deadline),
                announce: true,
                via_call_tool: true,
                durable_scope: entry.clone().unwrap_or_default(),
            })
            .await;
        ext.ext_calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&req.id);
        if let (Some(entry), Some(store)) = (&entry, &engine.durable) {
            let done = matches!(
                run.output.status,
                ToolStatus::Completed | ToolStatus::Failed
            );
            if done && run.output.executed {
                let rec = crate::durable::Record {
                    tool: req.name.clone(),
                    args: crate::durable::canonical_args(&run_args),
                    content: run.output.content.clone(),
                    is_error: run.output.is_error,
                };
                if let Err(e) = store.record(entry, &rec) {
                    ext.record(&e.to_string());
                }
            }
        }
        let (content, truncated) = crate::observe::observe(&run.output.content);
        // OP-28: a terminal tool_result even after call_tool_cancel.
        reply(
            &ext,
            &req.id,
            &req.name,
            content,
            run.output.is_error,
            truncated,
        );
    });
}
