//! Errors of the `ext` commands. Each message names what went wrong and,
//! where there is one, the next step.

use std::path::PathBuf;

use crate::cli::install_error::InstallError;
use crate::cli::json_edit::EditError;
use crate::cli::resolve::ResolveError;

/// Why an `ext` command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The name did not identify exactly one install.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// `ext install` failed (and was rolled back).
    #[error(transparent)]
    Install(#[from] InstallError),
    /// The name is being changed by another command, or a lock failed.
    #[error(transparent)]
    Lock(#[from] crate::cli::lock::LockError),
    /// zot-host got a signal while git ran (`ext update`); git was stopped.
    #[error("interrupted by signal {signal}; git was stopped and the extension left as it was")]
    Interrupted {
        /// The signal.
        signal: i32,
    },
    /// The manifest could not be read.
    #[error(transparent)]
    Manifest(#[from] crate::store::manifest::ManifestError),
    /// The manifest could not be edited.
    #[error("cannot edit {path}: {source}")]
    Edit {
        /// The manifest.
        path: PathBuf,
        /// Why.
        source: EditError,
    },
    /// `remove` without `--yes` and nobody to ask.
    #[error("refusing to remove {name} without confirmation: stdin is not a terminal; pass --yes (-y) to remove it")]
    NeedsConfirmation {
        /// The extension.
        name: String,
    },
    /// There is no log file.
    #[error("no log for {name} at {path}; the log is created when the extension first starts (run a session or `zot-host ext doctor`)")]
    NoLog {
        /// The name asked for.
        name: String,
        /// Where the log would be.
        path: PathBuf,
    },
    /// A name that cannot name a log file.
    #[error("invalid extension name {name:?}: {reason}")]
    BadName {
        /// The name given.
        name: String,
        /// What is wrong with it.
        reason: crate::store::name::NameError,
    },
    /// A file-system operation failed.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was attempted (`read`, `remove`, ...).
        what: &'static str,
        /// On which path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing the report failed (e.g. a closed pipe).
    #[error("write output: {0}")]
    Output(#[source] std::io::Error),
    /// The async runtime could not start.
    #[error("cannot start the runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

impl CliError {
    /// An I/O error on `path`.
    pub fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            what,
            path: path.into(),
            source,
        }
    }

    /// The signal that interrupted the command, if one did: the exit
    /// status is then 128 + signal, as a shell reports it.
    pub fn interrupted_by(&self) -> Option<i32> {
        match self {
            Self::Interrupted { signal } => Some(*signal),
            Self::Install(InstallError::Git(crate::cli::git::GitError::Interrupted {
                signal,
                ..
            })) => Some(*signal),
            _ => None,
        }
    }

    /// Whether it is a broken pipe while printing (the reader went away:
    /// not worth an error message).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Self::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        Self::Output(e)
    }
}
