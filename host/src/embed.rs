//! The host as a library for a program that offers one extension's tools
//! and commands elsewhere (`zot-mcp serve` serves them to MCP clients).
//!
//! [`Embedded::open`] loads one extension directory the way `zot-host run
//! --ext DIR --no-ext` does (spawn, handshake, supervision, readiness) and
//! starts a session without a model. Calls go through the host's tool
//! pipeline (interception, deadlines, `tool_cancel`, result conversion), so
//! the extension sees exactly what a zot host sends it.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use zot_protocol::{ContentBlock, RawJson, ToolStatus};

use crate::config::HostMode;
use crate::session::agent::{ProposedArgs, ToolRequest};
use crate::session::engine::SessionEngine;
use crate::session::run::{open_session, RunOptions};
use crate::session::script::Script;
use crate::transcript::{Observation, Transcript};

/// What to load and where.
pub struct EmbedOptions {
    /// The extension's directory (its `extension.json`).
    pub ext_dir: PathBuf,
    /// The project directory the extension is told about.
    pub cwd: PathBuf,
    /// `$ZOT_HOME` (logs, data directories).
    pub zot_home: PathBuf,
    /// The host mode the extension is told (`rpc` suits a program).
    pub mode: HostMode,
    /// Sees every observation (notes, warnings, disconnection...).
    pub observe: Arc<dyn Fn(&Observation) + Send + Sync>,
}

/// A registered tool, as the extension registered it.
#[derive(Debug, Clone)]
pub struct ToolInfo {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// JSON Schema of the arguments.
    pub schema: RawJson,
    /// JSON Schema of `structured_content`.
    pub output_schema: Option<RawJson>,
    /// The tool waits for a person (not callable without one).
    pub interactive: bool,
}

/// A registered slash command.
#[derive(Debug, Clone)]
pub struct CommandInfo {
    /// Name as registered.
    pub name: String,
    /// Description.
    pub description: String,
}

/// A tool call's outcome.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    /// Content blocks.
    pub content: Vec<ContentBlock>,
    /// Error result.
    pub is_error: bool,
    /// Structured result.
    pub structured_content: Option<RawJson>,
    /// How the call ended.
    pub status: ToolStatus,
}

/// One extension loaded into a session without a model.
pub struct Embedded {
    engine: Arc<SessionEngine>,
    name: String,
}

impl Embedded {
    /// Loads the extension and waits for it to be ready. `Err`: why it did
    /// not load (the host's load error, log path included).
    pub async fn open(opts: EmbedOptions) -> Result<Self, String> {
        let script = Script {
            mode: Some(opts.mode),
            ..Script::default()
        };
        let mut run = RunOptions::new(opts.cwd, opts.zot_home);
        run.explicit = vec![opts.ext_dir.clone()];
        run.no_discovery = true;
        let observe = opts.observe.clone();
        run.transcript = Transcript::streaming(move |o| observe(o));
        let engine = open_session(&script, &run).await;
        if let Some(e) = engine.manager().load_errors().into_iter().next() {
            engine.shutdown().await;
            return Err(e.to_string());
        }
        let Some(ext) = engine.manager().connected().into_iter().next() else {
            engine.shutdown().await;
            return Err(format!(
                "no extension loaded from {}",
                opts.ext_dir.display()
            ));
        };
        let name = ext.name.clone();
        Ok(Self { engine, name })
    }

    /// The extension's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The extension's active tools the session may call, by name.
    pub fn tools(&self) -> Vec<ToolInfo> {
        let reg = self
            .engine
            .manager()
            .shared()
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        reg.tools()
            .filter(|t| t.ext == self.name && reg.in_agent(&t.def.name))
            .map(|t| ToolInfo {
                name: t.def.name.clone(),
                description: t.def.description.clone(),
                schema: t.def.schema.clone(),
                output_schema: t.def.output_schema.clone(),
                interactive: t.def.interactive,
            })
            .collect()
    }

    /// The extension's active slash commands.
    pub fn commands(&self) -> Vec<CommandInfo> {
        let reg = self
            .engine
            .manager()
            .shared()
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        reg.commands()
            .filter(|c| c.ext == self.name)
            .map(|c| CommandInfo {
                name: c.name.clone(),
                description: c.description.clone(),
            })
            .collect()
    }

    /// Calls a tool through the host's pipeline; `cancel` cancels it (the
    /// extension gets `tool_cancel` when it advertised the capability).
    pub async fn call(&self, tool: &str, args: RawJson, cancel: CancellationToken) -> CallOutcome {
        let n = self.engine.next_n();
        let run = self
            .engine
            .run_tool(ToolRequest {
                tool_id: format!("toolu_{n}"),
                name: tool.to_owned(),
                args: ProposedArgs::Json(args),
                origin_extension: String::new(),
                chain: Vec::new(),
                cancel,
                confirm: None,
                cancel_on_delivery: false,
                exec_deadline: None,
                announce: true,
                via_call_tool: true,
                durable_scope: String::new(),
            })
            .await;
        let out = run.output;
        CallOutcome {
            content: out.content,
            is_error: out.is_error,
            structured_content: out.structured_content,
            status: out.status,
        }
    }

    /// Runs one of the extension's slash commands and hands back its
    /// response (nothing is applied: no prompt runs, no note is shown).
    pub async fn command(
        &self,
        name: &str,
        args: &str,
    ) -> Result<zot_protocol::CommandResponse, String> {
        let shared = self.engine.manager().shared();
        let reg = {
            let reg = shared.registry.lock().unwrap_or_else(|e| e.into_inner());
            reg.command(name).cloned()
        };
        let reg = reg
            .filter(|r| r.ext == self.name)
            .ok_or_else(|| format!("unknown command /{name}"))?;
        let ext = self
            .engine
            .manager()
            .get(&reg.ext)
            .ok_or_else(|| format!("unknown command /{name}"))?;
        crate::session::commands::invoke(shared, &ext, &reg.name, args).await
    }

    /// Resolves when the extension has disconnected (it exited, crashed or
    /// broke the protocol): the host's reason.
    pub async fn gone(&self) -> String {
        let Some(ext) = self.engine.manager().get(&self.name) else {
            return format!("extension {} is not loaded", self.name);
        };
        ext.gone_token().cancelled().await;
        let reason = ext
            .disconnect_reason()
            .unwrap_or_else(|| "disconnected".into());
        format!("extension {} disconnected: {reason}", self.name)
    }

    /// Ends the session (`session_end`, then `shutdown`) and stops the
    /// extension.
    pub async fn close(&self) {
        self.engine.shutdown().await;
    }
}
