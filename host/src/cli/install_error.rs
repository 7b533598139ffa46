//! Why `ext install` failed: every variant means nothing was installed.

use std::path::PathBuf;

use crate::cli::git::GitError;
use crate::cli::lock::LockError;
use crate::cli::tree::TreeError;
use crate::store::manifest::{ManifestError, MANIFEST_FILE};

/// Why an install failed. Every variant means nothing was installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The destination directory name is not a plain name.
    #[error("cannot install as {0:?}: the directory name must be a single plain name (no `/`, `..`, absolute path or leading dot); pass --name <NAME>")]
    BadName(String),
    /// The local source does not exist.
    #[error("{0}: no such directory; pass an extension directory or a git URL (https://, ssh://, git@, file://, or ending in .git)")]
    NoSource(PathBuf),
    /// The local source is not a directory.
    #[error("{0}: not a directory; pass the directory that holds extension.json")]
    NotADirectory(PathBuf),
    /// The local source has no manifest.
    #[error("{0}: no {MANIFEST_FILE}; an extension directory needs one (name, and exec, a theme or skills)")]
    NoManifest(PathBuf),
    /// Copying the source would copy the destination into itself.
    #[error("{source_dir} contains {root}; install from a directory outside $ZOT_HOME/extensions")]
    SourceContainsDestination {
        /// The source.
        source_dir: PathBuf,
        /// The extensions root.
        root: PathBuf,
    },
    /// The name is taken.
    #[error("an extension named {name:?} is already installed at {}; pass --force to replace it, or remove it first with `zot-host ext remove {name}`", show_paths(.paths))]
    Exists {
        /// Directory or manifest name.
        name: String,
        /// The installs in the way.
        paths: Vec<PathBuf>,
    },
    /// The result has no valid manifest.
    #[error("no valid extension.json: {0}; nothing was installed")]
    InvalidManifest(ManifestError),
    /// Copy or symlink check failed.
    #[error("{0}; nothing was installed")]
    Tree(#[from] TreeError),
    /// git failed.
    #[error("{0}; nothing was installed")]
    Git(#[from] GitError),
    /// The name is being changed by another command, or a lock failed.
    #[error("{0}; nothing was installed")]
    Lock(#[from] LockError),
    /// The ignore rules of the source could not be read.
    #[error("{0}; fix the file or remove it; nothing was installed")]
    Ignore(String),
    /// Another file-system failure.
    #[error("{what} {path}: {source}; nothing was installed")]
    Io {
        /// What was attempted.
        what: &'static str,
        /// On which path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn show_paths(p: &[PathBuf]) -> String {
    p.iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
