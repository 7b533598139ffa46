//! `zot-mcp serve EXT_DIR`: a zot extension's tools served to MCP clients
//! over stdio, or over Streamable HTTP with `--http ADDR` (`http`).
//!
//! The extension is loaded by the zot host library (spawn, handshake,
//! supervision, readiness) into a session without a model; MCP requests
//! become calls through the host's tool pipeline. stdout is the MCP wire,
//! so everything else (the host's warnings, the extension's notes) goes to
//! stderr; the extension's own stderr goes to its log file, as under any
//! zot host.

mod convert;
mod guard;
mod handler;
pub mod http;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use rmcp::ServiceExt;
use zot_host::config::HostMode;
use zot_host::embed::{EmbedOptions, Embedded};
use zot_host::transcript::Observation;

use handler::Bridge;
use http::HttpServer;

/// What `serve` was asked to do.
pub struct ServeOptions {
    /// The extension's directory.
    pub ext_dir: PathBuf,
    /// Streamable HTTP on this loopback address instead of stdio.
    pub http: Option<SocketAddr>,
}

/// Serves the extension until the client closes the connection (stdio) or
/// a signal stops the server (HTTP): exit 0; or until the extension
/// disconnects: one line on stderr, exit 1.
pub async fn run(opts: ServeOptions) -> ExitCode {
    // The socket first: a taken port or a refused address fails before the
    // extension is started.
    let http = match opts.http {
        Some(addr) => match HttpServer::bind(addr).await {
            Ok(server) => Some(server),
            Err(e) => return fail(&e),
        },
        None => None,
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let embed = EmbedOptions {
        ext_dir: opts.ext_dir,
        cwd,
        zot_home: zot_host::store::discovery::zot_home_from_env(),
        mode: HostMode::Rpc,
        observe: Arc::new(log_observation),
    };
    let ext = match Embedded::open(embed).await {
        Ok(e) => Arc::new(e),
        Err(e) => return fail(&e),
    };
    let bridge = Bridge { ext: ext.clone() };
    let code = match http {
        Some(server) => server.serve(bridge, ext.gone()).await,
        None => serve_stdio(bridge, &ext).await,
    };
    ext.close().await;
    code
}

async fn serve_stdio(bridge: Bridge, ext: &Embedded) -> ExitCode {
    let service = match bridge.serve(rmcp::transport::stdio()).await {
        Ok(s) => s,
        Err(e) => return fail(&format!("MCP initialize failed: {e}")),
    };
    tokio::select! {
        _ = service.waiting() => ExitCode::SUCCESS,
        line = ext.gone() => {
            eprintln!("zot-mcp: {line}");
            ExitCode::FAILURE
        }
    }
}

/// What the host observes that a person serving the extension should see.
fn log_observation(o: &Observation) {
    match o {
        Observation::Note { ext, level, text } => eprintln!("[{ext}] {level}: {text}"),
        // In rpc mode, an extension's notes arrive as `ext_notify` events.
        Observation::Rpc { event } if event["type"] == "ext_notify" => eprintln!(
            "[{}] {}: {}",
            event["extension"].as_str().unwrap_or_default(),
            event["level"].as_str().unwrap_or_default(),
            event["message"].as_str().unwrap_or_default()
        ),
        Observation::Warning { text } => eprintln!("zot-mcp: warning: {text}"),
        Observation::Status { level, text } if level == "error" => {
            eprintln!("zot-mcp: {text}")
        }
        Observation::Diagnostic { ext, message } => eprintln!("zot-mcp: {ext}: {message}"),
        _ => {}
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("zot-mcp: {message}");
    ExitCode::FAILURE
}
