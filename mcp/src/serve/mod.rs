//! `zot-mcp serve EXT_DIR`: a zot extension's tools served to MCP clients
//! over stdio.
//!
//! The extension is loaded by the zot host library (spawn, handshake,
//! supervision, readiness) into a session without a model; MCP requests
//! become calls through the host's tool pipeline. stdout is the MCP wire,
//! so everything else (the host's warnings, the extension's notes) goes to
//! stderr; the extension's own stderr goes to its log file, as under any
//! zot host.

mod convert;
mod handler;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use rmcp::ServiceExt;
use zot_host::config::HostMode;
use zot_host::embed::{EmbedOptions, Embedded};
use zot_host::transcript::Observation;

use handler::Bridge;

/// What `serve` was asked to do.
pub struct ServeOptions {
    /// The extension's directory.
    pub ext_dir: PathBuf,
}

/// Serves the extension until the client closes the connection (exit 0) or
/// the extension disconnects (one line on stderr, exit 1).
pub async fn run(opts: ServeOptions) -> ExitCode {
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
    let service = match bridge.serve(rmcp::transport::stdio()).await {
        Ok(s) => s,
        Err(e) => {
            ext.close().await;
            return fail(&format!("MCP initialize failed: {e}"));
        }
    };
    let code = tokio::select! {
        _ = service.waiting() => ExitCode::SUCCESS,
        line = ext.gone() => {
            eprintln!("zot-mcp: {line}");
            ExitCode::FAILURE
        }
    };
    ext.close().await;
    code
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
