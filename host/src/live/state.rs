//! A snapshot of a live session for a person: each extension's handshake,
//! capabilities, registrations, subscriptions, readiness and diagnostics;
//! the tools and commands in force; the open panel; what runs now.

use serde_json::{json, Value};
use zot_protocol::values::{INTERCEPTABLE_EVENT_NAMES, LIFECYCLE_EVENT_NAMES};

use super::Live;
use crate::process::extension::LoadedExtension;
use crate::process::ready::ReadyState;
use crate::process::registry::{RegRecord, BUILTIN_COMMANDS, BUILTIN_TOOLS};

fn ready_name(s: ReadyState) -> &'static str {
    match s {
        ReadyState::Pending => "pending",
        ReadyState::Ready => "ready",
        ReadyState::AutoReady => "auto-ready",
        ReadyState::TimedOut => "timed out",
        ReadyState::Exited => "exited",
    }
}

fn parsed(line: Option<std::sync::Arc<str>>) -> Value {
    line.and_then(|l| serde_json::from_str(&l).ok())
        .unwrap_or(Value::Null)
}

impl Live {
    /// The session now, as JSON.
    pub fn state(&self) -> Value {
        let mgr = self.engine.manager();
        let (records, tools, commands) = self.registrations();
        let exts: Vec<Value> = mgr
            .extensions()
            .iter()
            .map(|e| self.extension(e, &records))
            .collect();
        let errors: Vec<Value> = mgr
            .load_errors()
            .iter()
            .map(|e| json!({"ext": e.ext, "message": e.to_string(), "log": e.log}))
            .collect();
        let panel = self.engine.current_panel().map(|p| {
            json!({"ext": p.ext, "id": p.id, "title": p.shown_title(), "lines": p.lines, "footer": p.footer})
        });
        let st = self.engine.session_info();
        json!({
            "session": st,
            "extensions": exts,
            "passive": mgr.passive(),
            "load_errors": errors,
            "tools": tools,
            "builtin_tools": BUILTIN_TOOLS,
            "commands": commands,
            "builtin_commands": BUILTIN_COMMANDS,
            "panel": panel,
            "stubs": self.engine.answers.stubs(),
            "running": self.running(),
            "steps": self.steps(),
            "closed": self.is_closed(),
            "events": LIFECYCLE_EVENT_NAMES,
            "intercepts": INTERCEPTABLE_EVENT_NAMES,
        })
    }

    /// Every registration record, the tools in force and the commands, read
    /// under one lock of the registry.
    fn registrations(&self) -> (Vec<RegRecord>, Vec<Value>, Vec<Value>) {
        let reg = self
            .engine
            .manager()
            .shared()
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let tools: Vec<Value> = reg
            .tools()
            .map(|t| {
                json!({
                    "name": t.def.name,
                    "ext": t.ext,
                    "description": t.def.description,
                    "schema": t.def.schema.to_value(),
                    "output_schema": t.def.output_schema.as_ref().map(|s| s.to_value()),
                    "exposure": t.exposure,
                    "interactive": t.def.interactive,
                    "deferred": t.def.deferred,
                    "namespace": t.def.namespace,
                    "model_callable": reg.model_callable(&t.def.name),
                    "stub": self.engine.answers.is_stub(&t.def.name),
                })
            })
            .collect();
        let commands: Vec<Value> = reg
            .commands()
            .map(|c| json!({"name": c.name, "ext": c.ext, "description": c.description}))
            .collect();
        (reg.records().to_vec(), tools, commands)
    }

    /// One loaded extension: its handshake, registrations, subscriptions,
    /// readiness and diagnostics.
    fn extension(&self, e: &LoadedExtension, records: &[RegRecord]) -> Value {
        let (hello, ack) = self.feed.handshake(&e.name);
        let mine = |kind: &str| -> Vec<Value> {
            records
                .iter()
                .filter(|r| r.ext == e.name && r.kind == kind)
                .map(|r| json!(r))
                .collect()
        };
        json!({
            "name": e.name,
            "version": e.hello.version,
            "language": e.manifest.language,
            "source": e.source.label(),
            "dir": e.dir.display().to_string(),
            "log": e.log.path().display().to_string(),
            "connected": e.is_connected(),
            "ready": ready_name(e.ready_state()),
            "disconnect_reason": e.disconnect_reason(),
            "capabilities": e.hello.capabilities,
            "hello": parsed(hello),
            "hello_ack": parsed(ack),
            "commands": mine("command"),
            "tools": mine("tool"),
            "events": LIFECYCLE_EVENT_NAMES.iter().filter(|n| e.subscribed(n)).collect::<Vec<_>>(),
            "intercepts": INTERCEPTABLE_EVENT_NAMES.iter().filter(|n| e.intercepts(n)).collect::<Vec<_>>(),
            "diagnostics": e.diagnostics(),
        })
    }
}
