//! `zot-mcp wrap -- COMMAND…`: an MCP server's tools as a zot extension.
//!
//! The MCP session is set up before the zot one: the server is started,
//! initialised and its tools listed (every page), then the extension is
//! built with one zot tool per MCP tool and `run` says `hello`. A zot host
//! allows 10 s for that first line, so the MCP set-up gets
//! [`INIT_DEADLINE`]. From then on the server's death ends the extension
//! with one line on stderr and exit status 1, for the host's supervision.

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
    let (service, meta, tools) = tokio::select! {
        done = setup => match done {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => return fail(&format!("the MCP server `{}`: {e}", server.label)),
            Err(_) => return fail(&format!(
                "the MCP server `{}` did not initialise and list its tools within {} s",
                server.label, INIT_DEADLINE.as_secs()
            )),
        },
        line = server.died() => return fail(&line),
    };
    let name = opts.name.unwrap_or_else(|| meta.name.clone());
    let ext = Extension::new(name, env!("CARGO_PKG_VERSION"));
    let _ = shared.ext.set(ext.handle());
    let ext = tools::register(ext, tools, &meta, service.peer(), &shared);
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

type Setup = (
    RunningService<RoleClient, Client>,
    ServerMeta,
    Vec<rmcp::model::Tool>,
);

/// `initialize`, `notifications/initialized` and every page of `tools/list`.
async fn connect(
    client: Client,
    stdout: tokio::process::ChildStdout,
    stdin: tokio::process::ChildStdin,
) -> Result<Setup, String> {
    let service = client
        .serve((stdout, stdin))
        .await
        .map_err(|e| format!("initialize failed: {e}"))?;
    let info = service.peer().peer_info().cloned();
    let meta = ServerMeta {
        name: info
            .as_ref()
            .map(|i| i.server_info.name.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "mcp".into()),
        instructions: info.and_then(|i| i.instructions).filter(|s| !s.is_empty()),
    };
    let tools = service
        .peer()
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list failed: {e}"))?;
    Ok((service, meta, tools))
}

/// One line on stderr and exit status 1.
fn fail(message: &str) -> ExitCode {
    eprintln!("zot-mcp: {message}");
    ExitCode::FAILURE
}
