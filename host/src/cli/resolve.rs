//! Finding an installed extension by name (remove, enable, disable, logs,
//! update; §16.9, HOST-180).
//!
//! Installs are what discovery finds in the project and global roots; `--ext`
//! paths are not installs. A name matches an install by its manifest name or
//! by its directory name (OP-8: precedence is by manifest name, so one
//! extension may sit in a directory with another basename). Several matches
//! are an error that lists them and changes nothing.

use std::path::PathBuf;

use crate::cli::command_line::ScopeArgs;
use crate::cli::Context;
use crate::store::discovery::{discover, Entry, Source};

/// Which roots to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Project and global installs.
    #[default]
    All,
    /// `<project>/.zot/extensions` only.
    Project,
    /// `$ZOT_HOME/extensions` only.
    Global,
}

impl From<&ScopeArgs> for Scope {
    fn from(a: &ScopeArgs) -> Self {
        if a.global {
            Self::Global
        } else if a.project {
            Self::Project
        } else {
            Self::All
        }
    }
}

impl Scope {
    fn admits(self, s: Source) -> bool {
        match self {
            Self::All => s != Source::Explicit,
            Self::Project => s == Source::Project,
            Self::Global => s == Source::Global,
        }
    }

    fn describe(self, ctx: &Context) -> String {
        match self {
            Self::All => format!(
                "{} or {}",
                ctx.project_root().display(),
                ctx.global_root().display()
            ),
            Self::Project => ctx.project_root().display().to_string(),
            Self::Global => ctx.global_root().display().to_string(),
        }
    }
}

/// Why a name does not identify exactly one install.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Nothing matched.
    #[error("no installed extension named {name:?} in {searched}{}", known_hint(.known))]
    NotFound {
        /// The name asked for.
        name: String,
        /// The roots searched.
        searched: String,
        /// Names that are installed.
        known: Vec<String>,
    },
    /// More than one install matched.
    #[error("{name:?} matches {} installs:{}\nnothing was changed; narrow it down with --global or --project", .matches.len(), list_matches(.matches))]
    Ambiguous {
        /// The name asked for.
        name: String,
        /// `(source, directory)` of each match.
        matches: Vec<(Source, PathBuf)>,
    },
}

fn known_hint(known: &[String]) -> String {
    if known.is_empty() {
        "; nothing is installed there (install one with `zot-host ext install <path|git-url>`)"
            .to_owned()
    } else {
        format!(
            "; installed: {} (see `zot-host ext list`)",
            known.join(", ")
        )
    }
}

fn list_matches(m: &[(Source, PathBuf)]) -> String {
    m.iter()
        .map(|(s, p)| format!("\n  {} {}", s.label(), p.display()))
        .collect()
}

/// The directory basename of an entry.
pub fn dir_name(e: &Entry) -> String {
    e.dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Every install in `scope`, in discovery order (project before global,
/// each by directory name).
pub fn installs(ctx: &Context, scope: Scope) -> Vec<Entry> {
    discover(&ctx.discovery())
        .entries
        .into_iter()
        .filter(|e| scope.admits(e.source))
        .collect()
}

/// Whether `e` answers to `name` (manifest name or directory name).
pub fn matches(e: &Entry, name: &str) -> bool {
    e.manifest.as_ref().is_some_and(|m| m.name == name) || dir_name(e) == name
}

/// The one install in `scope` that answers to `name`.
pub fn find_one(ctx: &Context, name: &str, scope: Scope) -> Result<Entry, ResolveError> {
    let all = installs(ctx, scope);
    let mut found: Vec<Entry> = all.iter().filter(|e| matches(e, name)).cloned().collect();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(not_found(ctx, name, scope, &all)),
        _ => Err(ResolveError::Ambiguous {
            name: name.to_owned(),
            matches: found.into_iter().map(|e| (e.source, e.dir)).collect(),
        }),
    }
}

/// The error for a name that matches none of `all`.
pub fn not_found(ctx: &Context, name: &str, scope: Scope, all: &[Entry]) -> ResolveError {
    let mut known: Vec<String> = all.iter().map(Entry::name).collect();
    known.sort();
    known.dedup();
    ResolveError::NotFound {
        name: name.to_owned(),
        searched: scope.describe(ctx),
        known,
    }
}
