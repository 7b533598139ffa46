//! The MCP server's process: started with piped stdin/stdout (the MCP
//! wire) and our stderr (its log lands in the extension's log).

use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// A running MCP server.
pub struct Server {
    child: Child,
    /// The command line, for messages.
    pub label: String,
}

impl Server {
    /// Starts `command` (program and arguments) and hands back its stdio.
    pub fn spawn(command: &[OsString]) -> Result<(Self, ChildStdout, ChildStdin), String> {
        let label = command
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        let Some((program, args)) = command.split_first() else {
            return Err("no MCP server command given (zot-mcp wrap -- COMMAND [ARGS…])".into());
        };
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start the MCP server `{label}`: {e}"))?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(format!("the MCP server `{label}` has no stdio pipes"));
        };
        Ok((Self { child, label }, stdout, stdin))
    }

    /// Completes when the server process ends: the one line saying so.
    pub async fn died(&mut self) -> String {
        let status = match self.child.wait().await {
            Ok(status) => describe(status),
            Err(e) => format!("could not be waited for ({e})"),
        };
        format!("the MCP server `{}` {status}", self.label)
    }

    /// Ends the server after the session: its stdin is already closed (the
    /// MCP way to ask a stdio server to exit); it gets `grace` to do so.
    pub async fn stop(mut self, grace: Duration) {
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    format!("ended ({status})")
}
