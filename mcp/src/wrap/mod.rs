//! `zot-mcp wrap -- COMMAND…`: an MCP server's tools as a zot extension.
//!
//! The MCP session is set up before the zot one: the server is started,
//! initialised and its tools and prompts listed (every page), then the
//! extension is built with one zot tool per MCP tool, a slash command per
//! prompt and one for the resources, and `run` says `hello`. A zot host
//! allows 10 s for that first line, so the MCP set-up gets
//! [`INIT_DEADLINE`]. From then on the server's death ends the extension
//! with one line on stderr and exit status 1, for the host's supervision.

mod commands;
mod prompt_fix;
mod prompts;
mod resources;
mod server;
mod tools;

use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{RoleClient, RunningService};
use rmcp::ServiceExt;
use zot_ext::Extension;

use crate::client::{Client, Shared};
use server::Server;
use tools::ServerMeta;

/// How long the MCP server has to start, initialise and list its tools:
/// inside the 10 s a zot host waits for `hello`.
pub const INIT_DEADLINE: Duration = Duration::from_secs(8);

/// How long the server has to exit once its stdin is closed at the end.
const STOP_GRACE: Duration = Duration::from_millis(500);

/// What `wrap` was asked to do.
pub struct WrapOptions {
    /// The extension's name (`hello.name`); default: the MCP server's name.
    pub name: Option<String>,
    /// The MCP server's command line.
    pub command: Vec<OsString>,
}

/// Runs the bridge until the zot session ends or the MCP server dies.
pub async fn run(opts: WrapOptions) -> ExitCode {
    let (mut server, stdout, stdin) = match Server::spawn(&opts.command) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let shared = Arc::new(Shared::default());
    let setup = tokio::time::timeout(
        INIT_DEADLINE,
        connect(Client(shared.clone()), stdout, stdin),
    );
    let (service, catalog) = tokio::select! {
        done = setup => match done {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => return fail(&format!("the MCP server `{}`: {e}", server.label)),
            Err(_) => return fail(&format!(
                "the MCP server `{}` did not initialise and list its tools and prompts within {} s",
                server.label, INIT_DEADLINE.as_secs()
            )),
        },
        line = server.died() => return fail(&line),
    };
    let ext = build(opts.name.as_deref(), catalog, service.peer(), &shared);
    let code = tokio::select! {
        ended = ext.run() => match ended {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => return fail(&e.to_string()),
        },
        line = server.died() => return fail(&line),
    };
    // Dropping the MCP session closes the server's stdin.
    drop(service);
    server.stop(STOP_GRACE).await;
    code
}

/// What the server offers, listed once at start.
struct Catalog {
    meta: ServerMeta,
    tools: Vec<rmcp::model::Tool>,
    prompts: Vec<rmcp::model::Prompt>,
    /// Whether the server has resources (listed when the command runs).
    resources: bool,
}

type Setup = (RunningService<RoleClient, Client>, Catalog);

/// The extension: a tool per MCP tool, then (under `PREFIX:`) the
/// resources command and a command per prompt.
fn build(
    name: Option<&str>,
    catalog: Catalog,
    peer: &rmcp::service::Peer<RoleClient>,
    shared: &Arc<Shared>,
) -> Extension {
    let meta = &catalog.meta;
    let ext_name = name.map_or_else(|| meta.name.clone(), str::to_owned);
    let ext = Extension::new(ext_name, env!("CARGO_PKG_VERSION"));
    let _ = shared.ext.set(ext.handle());
    shared.log_late_change();
    let mut ext = tools::register(ext, catalog.tools, meta, peer, shared);
    let mut names = commands::CommandNames::new(&commands::prefix(name, &meta.name));
    if catalog.resources {
        ext = resources::register(ext, &mut names, peer);
    }
    prompts::register(ext, catalog.prompts, &mut names, peer, shared)
}

/// `initialize`, `notifications/initialized`, and every page of
/// `tools/list` and (when the server has prompts) `prompts/list`.
async fn connect(
    client: Client,
    stdout: tokio::process::ChildStdout,
    stdin: tokio::process::ChildStdin,
) -> Result<Setup, String> {
    let shared = client.0.clone();
    let service = client
        .serve((prompt_fix::spawn(stdout), stdin))
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    let info = service.peer().peer_info().cloned();
    let caps = info
        .as_ref()
        .map(|i| i.capabilities.clone())
        .unwrap_or_default();
    let meta = ServerMeta {
        name: info
            .as_ref()
            .map(|i| i.server_info.name.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "mcp".into()),
        instructions: info.and_then(|i| i.instructions).filter(|s| !s.is_empty()),
    };
    let (mut tools, mut prompts) = list(service.peer(), &caps).await?;
    // A server that changes its lists while we list them (as servers do
    // that add tools once initialised) is listed once more.
    if shared.take_changed_at_start() {
        (tools, prompts) = list(service.peer(), &caps).await?;
    }
    let catalog = Catalog {
        meta,
        tools,
        prompts,
        resources: caps.resources.is_some(),
    };
    Ok((service, catalog))
}

/// Every page of `tools/list` and `prompts/list`, for what the server has.
async fn list(
    peer: &rmcp::service::Peer<RoleClient>,
    caps: &rmcp::model::ServerCapabilities,
) -> Result<(Vec<rmcp::model::Tool>, Vec<rmcp::model::Prompt>), String> {
    let tools = match caps.tools {
        Some(_) => peer
            .list_all_tools()
            .await
            .map_err(|e| format!("tools/list failed: {e}"))?,
        None => Vec::new(),
    };
    let prompts = match caps.prompts {
        Some(_) => peer
            .list_all_prompts()
            .await
            .map_err(|e| format!("prompts/list failed: {e}"))?,
        None => Vec::new(),
    };
    Ok((tools, prompts))
}

/// One line on stderr and exit status 1.
fn fail(message: &str) -> ExitCode {
    eprintln!("zot-mcp: {message}");
    ExitCode::FAILURE
}
