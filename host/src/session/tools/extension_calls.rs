//! `call_tool` from extensions (§9, HOST-82..102): validation in the order of
//! §9.1 (continuous-mode checks after rule 1, OP-30), parent chains, the
//! execution deadline, `call_tool_cancel`, the observation budget on the
//! reply and `origin_extension` on everything the call causes.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};

use tokio_util::sync::CancellationToken;
use zot_protocol::limits::MAX_TOOL_CALL_CHAIN;
use zot_protocol::{
    CallTool, Capability, ContentBlock, HostFrame, HostToolResult, RawJson, ToolStatus,
};

use crate::process::extension::{HostCall, LoadedExtension};
use crate::session::engine::SessionEngine;
use crate::session::tools::request::{ProposedArgs, ToolRequest};

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
    if !has_fresh_id(&ext, &req) {
        return;
    }
    let call = match admit(&engine, &ext, &req) {
        Ok(call) => call,
        Err(reason) => return refuse(&ext, &req, reason),
    };
    ext_calls(&ext).insert(req.id.clone(), call.cancel.clone());
    tokio::spawn(run_and_reply(engine, ext, req, call));
}

/// A call that passed the rules of §9.1.
struct Admitted {
    /// The tool names from the top-level call down to this one.
    chain: Vec<String>,
    args: RawJson,
    /// Continuous mode: the durable identity of the call (HOST-98..101).
    entry: Option<String>,
    /// A child of the parent's token: cancelling the parent cancels it.
    cancel: CancellationToken,
}

fn ext_calls(ext: &LoadedExtension) -> MutexGuard<'_, HashMap<String, CancellationToken>> {
    ext.ext_calls.lock().unwrap_or_else(|e| e.into_inner())
}

/// A call needs an id, and one not in use by another outstanding call
/// (OP-27: keep ignoring it, log a diagnostic).
fn has_fresh_id(ext: &LoadedExtension, req: &CallTool) -> bool {
    if req.id.is_empty() {
        ext.record("call_tool without id ignored");
        return false;
    }
    if ext_calls(ext).contains_key(&req.id) {
        ext.record(&format!(
            "call_tool id {:?} reuses an outstanding id; ignored",
            req.id
        ));
        return false;
    }
    true
}

/// The validation rules in the order of §9.1 (the continuous-mode checks
/// right after rule 1, OP-30); the first that fails names the refusal.
fn admit(
    engine: &SessionEngine,
    ext: &LoadedExtension,
    req: &CallTool,
) -> Result<Admitted, &'static str> {
    if !ext.has_capability(&Capability::CallTool) {
        return Err(errors::NOT_OPTED_IN);
    }
    let continuous = engine.manager().cfg().continuous;
    if continuous {
        if req.parent_id.is_empty() {
            return Err(errors::CONTINUOUS_PARENT);
        }
        if !req.key.is_empty() && zot_protocol::validate::validate_call_key(&req.key).is_err() {
            return Err(errors::INVALID_KEY);
        }
    }
    let parent = find_parent(ext, req)?;
    let chain = chain_below(parent.as_ref(), &req.name)?;
    if engine.is_closing() {
        return Err(errors::UNAVAILABLE);
    }
    let args = match &req.args {
        Some(a) if a.is_object() && !req.name.is_empty() => a.clone(),
        _ => return Err(errors::BAD_REQUEST),
    };
    let entry = match (&parent, continuous) {
        (Some(p), true) => Some(durable_entry(p, &req.key)),
        _ => None,
    };
    let cancel = match &parent {
        Some(p) => p.cancel.child_token(),
        None => CancellationToken::new(),
    };
    Ok(Admitted {
        chain,
        args,
        entry,
        cancel,
    })
}

/// Rules 2 and 3: the parent is an outstanding call to the same extension
/// (OP-26), and required while any is outstanding.
fn find_parent(ext: &LoadedExtension, req: &CallTool) -> Result<Option<HostCall>, &'static str> {
    let calls = ext.host_calls.lock().unwrap_or_else(|e| e.into_inner());
    if req.parent_id.is_empty() {
        return if calls.is_empty() {
            Ok(None)
        } else {
            Err(errors::PARENT_REQUIRED)
        };
    }
    calls
        .get(&req.parent_id)
        .cloned()
        .map(Some)
        .ok_or(errors::UNKNOWN_PARENT)
}

/// Rules 4 and 5: no tool twice in a chain, and chains bounded.
fn chain_below(parent: Option<&HostCall>, name: &str) -> Result<Vec<String>, &'static str> {
    let Some(p) = parent else {
        return Ok(vec![name.to_owned()]);
    };
    if p.chain.iter().any(|n| n == name) {
        return Err(errors::CYCLE);
    }
    if p.chain.len() >= MAX_TOOL_CALL_CHAIN {
        return Err(errors::DEPTH);
    }
    let mut chain = p.chain.clone();
    chain.push(name.to_owned());
    Ok(chain)
}

/// The durable identity below the parent's scope: the call's key, or its
/// ordinal among the parent's keyless calls (two spaces that never meet).
fn durable_entry(parent: &HostCall, key: &str) -> String {
    if key.is_empty() {
        let n = parent.ordinal.fetch_add(1, Ordering::SeqCst) + 1;
        crate::store::durable::keyless_entry(&parent.scope, n)
    } else {
        crate::store::durable::keyed_entry(&parent.scope, key)
    }
}

/// Replays a recorded call or runs it through the pipeline, records a
/// finished durable call, and answers with one terminal `tool_result`
/// (OP-28: even after `call_tool_cancel`).
async fn run_and_reply(
    engine: Arc<SessionEngine>,
    ext: Arc<LoadedExtension>,
    req: CallTool,
    call: Admitted,
) {
    if replay(&engine, &ext, &req, &call) {
        return;
    }
    let run = engine
        .run_tool(ToolRequest {
            tool_id: format!("call_{}", engine.next_n()),
            name: req.name.clone(),
            args: ProposedArgs::Json(call.args.clone()),
            origin_extension: ext.name.clone(),
            chain: call.chain.clone(),
            cancel: call.cancel.clone(),
            confirm: None,
            cancel_on_delivery: false,
            exec_deadline: Some(engine.manager().cfg().timeouts.call_tool),
            announce: true,
            via_call_tool: true,
            durable_scope: call.entry.clone().unwrap_or_default(),
        })
        .await;
    ext_calls(&ext).remove(&req.id);
    record(&engine, &ext, &req, &call, &run.output);
    let (content, truncated) = crate::session::observe::observe(&run.output.content);
    reply(
        &ext,
        &req.id,
        &req.name,
        content,
        run.output.is_error,
        truncated,
    );
}

/// Continuous mode: a call whose durable entry is recorded gets the
/// recorded result and nothing runs (or a refusal when its key was reused
/// for another tool or other arguments). Whether it answered.
fn replay(engine: &SessionEngine, ext: &LoadedExtension, req: &CallTool, call: &Admitted) -> bool {
    let (Some(entry), Some(store)) = (&call.entry, &engine.durable) else {
        return false;
    };
    let rec = match store.lookup(entry) {
        Ok(Some(rec)) => rec,
        Ok(None) => return false,
        Err(e) => {
            ext.record(&e.to_string());
            return false;
        }
    };
    ext_calls(ext).remove(&req.id);
    if rec.tool != req.name || rec.args != crate::store::durable::canonical_args(&call.args) {
        refuse(ext, req, errors::KEY_REUSED);
        return true;
    }
    engine.status(
        "info",
        format!("call_tool {} replayed from {entry}", req.name),
    );
    let (content, truncated) = crate::session::observe::observe(&rec.content);
    reply(ext, &req.id, &req.name, content, rec.is_error, truncated);
    true
}

/// Continuous mode: a call that ran to completion or failure is recorded
/// under its durable entry for replay.
fn record(
    engine: &SessionEngine,
    ext: &LoadedExtension,
    req: &CallTool,
    call: &Admitted,
    output: &crate::session::tools::invoke::ToolOutput,
) {
    let (Some(entry), Some(store)) = (&call.entry, &engine.durable) else {
        return;
    };
    let done = matches!(output.status, ToolStatus::Completed | ToolStatus::Failed);
    if !(done && output.executed) {
        return;
    }
    let rec = crate::store::durable::Record {
        tool: req.name.clone(),
        args: crate::store::durable::canonical_args(&call.args),
        content: output.content.clone(),
        is_error: output.is_error,
    };
    if let Err(e) = store.record(entry, &rec) {
        ext.record(&e.to_string());
    }
}
