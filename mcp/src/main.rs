//! The `zot-mcp` command.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("zot-mcp: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let code = match cli.command {
        Cmd::Wrap { name, command } => runtime.block_on(wrap::run(WrapOptions { name, command })),
    };
    // Blocked stdin reads must not delay the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}
