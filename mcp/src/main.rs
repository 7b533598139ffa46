//! The `zot-mcp` command.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use zot_mcp::serve::{self, ServeOptions};
use zot_mcp::wrap::{self, WrapOptions};

/// Bridges zot extensions and MCP servers.
#[derive(Parser)]
#[command(name = "zot-mcp", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run an MCP server (over stdio) as a zot extension: its tools become
    /// zot tools. A zot host starts this from an extension.json:
    /// {"name": "everything", "exec": "zot-mcp", "args": ["wrap", "--", "npx", "-y", "@modelcontextprotocol/server-everything"]}
    Wrap {
        /// The extension's name in `hello` (default: the MCP server's name).
        #[arg(long)]
        name: Option<String>,
        /// The MCP server's command line, after `--`.
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<OsString>,
    },
    /// Serve a zot extension's tools to MCP clients over stdio (or Streamable
    /// HTTP with --http): the zot host library loads the extension; its
    /// commands are offered as prompts.
    /// For a client's configuration: {"command": "zot-mcp", "args": ["serve", "/path/to/extension"]}
    Serve {
        /// The extension's folder (the one holding extension.json).
        #[arg(value_name = "EXT_DIR")]
        ext_dir: PathBuf,
        /// Serve over Streamable HTTP at http://ADDR/mcp instead of stdio.
        /// ADDR is a loopback address (127.0.0.1:PORT, [::1]:PORT or
        /// localhost:PORT; port 0 picks a free one); others are refused.
        /// Clients send "Authorization: Bearer TOKEN": the token is printed
        /// on stderr, or set with the ZOT_MCP_TOKEN environment variable.
        #[arg(long, value_name = "ADDR", value_parser = serve::http::parse_addr)]
        http: Option<SocketAddr>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // `serve` runs a zot host (supervision, the extension's queues) beside
    // the MCP server: two worker threads; `wrap` is one bridge loop.
    let builder = match cli.command {
        Cmd::Serve { .. } => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(2);
            b
        }
        Cmd::Wrap { .. } => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match { builder }.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("zot-mcp: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = match cli.command {
        Cmd::Wrap { name, command } => runtime.block_on(wrap::run(WrapOptions { name, command })),
        Cmd::Serve { ext_dir, http } => {
            runtime.block_on(serve::run(ServeOptions { ext_dir, http }))
        }
    };
    // Blocked stdin reads must not delay the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}
