//! Running `git` for `ext install` and `ext update`.

use std::io::IsTerminal;
use std::path::Path;
use std::process::{Command, Stdio};

/// A failed git invocation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    /// git could not be started.
    #[error("cannot run git ({0}); install git, or install from a local directory instead")]
    NotFound(String),
    /// git ran and failed.
    #[error("`git {args}` failed: {stderr}")]
    Failed {
        /// The arguments.
        args: String,
        /// What git printed on stderr (trimmed).
        stderr: String,
    },
}

/// Runs `git <args>` (in `dir` when given) and returns its trimmed stdout.
/// Without a terminal on stdin, git's credential prompts are turned off so
/// that a scripted install or update never hangs.
pub fn git(dir: Option<&Path>, args: &[&str]) -> Result<String, GitError> {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.arg("-C").arg(d);
    }
    if !std::io::stdin().is_terminal() {
        cmd.env("GIT_TERMINAL_PROMPT", "0");
    }
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = cmd
        .output()
        .map_err(|e| GitError::NotFound(e.to_string()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        Err(GitError::Failed {
            args: args.join(" "),
            stderr: if stderr.is_empty() {
                crate::util::describe_exit(out.status)
            } else {
                stderr
            },
        })
    }
}

/// Whether `git <args>` succeeds (for yes/no questions like `merge-base
/// --is-ancestor`); `Err` only when git cannot run at all.
pub fn git_ok(dir: &Path, args: &[&str]) -> Result<bool, GitError> {
    match git(Some(dir), args) {
        Ok(_) => Ok(true),
        Err(GitError::Failed { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The first 12 hex digits of a commit id, for text output.
pub fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}
