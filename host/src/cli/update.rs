//! `zot-host update` / `zot-host ext update [name]` (HOST-187, OP-16).
//!
//! OP-16: the sources only have `zot update` (binary and git-installed
//! extensions); the reference host implements its extension part, with
//! `ext update [name]` as an alias following the same rules. Every install
//! (project and global) that is a git checkout of its own (`<dir>/.git`)
//! and enabled is fast-forwarded to its upstream branch; the others are
//! skipped with a note. Unlike the stored `zot update`, local changes are
//! not stashed: an install with changes to tracked files, local commits or a
//! diverged history is refused and left as it is, with a message saying
//! what to do. Untracked files (state an extension writes into its
//! directory) do not count as changes; git itself refuses the merge if the
//! update would overwrite one. Failures do not stop the others. No build
//! step is ever run.
//!
//! An install is a git install when its `.git` is a repository of its own
//! with a commit: a `.git` that `git init` or `cargo new` made and nobody
//! committed to, or a folder inside some other repository, is "not a git
//! install" (skipped, with what to do), never an update of the wrong
//! repository. Each update holds the locks of its names
//! ([`crate::cli::lock`]); git runs contained ([`crate::cli::git`]): a
//! signal to zot-host stops it, and the remaining updates are not started.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::command_line::UpdateArgs;
use crate::cli::git::{git, git_ok, short, GitError};
use crate::cli::lock::lock_names;
use crate::cli::resolve::{dir_name, installs, matches, not_found, Scope};
use crate::cli::staging::sweep;
use crate::cli::style::Style;
use crate::cli::{CliError, CliOutcome, Context};
use crate::store::discovery::{Entry, Source};

/// What happened to one install.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Fast-forwarded.
    Updated,
    /// Already at the upstream commit.
    UpToDate,
    /// Not a git checkout, or disabled.
    Skipped,
    /// Refused or failed; left as it was.
    Failed,
}

/// The outcome for one install.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Update {
    /// Manifest name (directory name when the manifest is unusable).
    pub name: String,
    /// Where it is installed.
    pub source: Source,
    /// The install directory.
    pub dir: PathBuf,
    /// What happened.
    pub status: Status,
    /// The commit before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// The commit after (the upstream commit when up to date or refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    /// Why it was skipped or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Runs the update of every matching install.
pub fn run(ctx: &Context, args: &UpdateArgs, out: &mut dyn Write) -> Result<CliOutcome, CliError> {
    for c in sweep(&ctx.zot_home, &[ctx.global_root(), ctx.project_root()]) {
        // The JSON on stdout stays one array.
        if args.json {
            eprintln!("zot-host: cleaned up: {}", c.describe());
        } else {
            writeln!(out, "Cleaned up: {}.", c.describe())?;
        }
    }
    let all = installs(ctx, Scope::All);
    let targets: Vec<Entry> = match &args.name {
        // A project and a global install of the same name are both updated.
        Some(name) => {
            let hit: Vec<Entry> = all.iter().filter(|e| matches(e, name)).cloned().collect();
            if hit.is_empty() {
                return Err(not_found(ctx, name, Scope::All, &all).into());
            }
            hit
        }
        None => all,
    };
    let mut results: Vec<Update> = Vec::new();
    let mut interrupted = None;
    for e in &targets {
        let (r, signal) = update_one(ctx, e);
        results.push(r);
        if signal.is_some() {
            interrupted = signal;
            break;
        }
    }
    let failed = results
        .iter()
        .filter(|r| r.status == Status::Failed)
        .count();
    if args.json {
        let text = serde_json::to_string_pretty(&results).unwrap_or_else(|_| "[]".into());
        writeln!(out, "{text}")?;
    } else {
        write_text(ctx, &results, failed, Style::for_stdout(), out)?;
    }
    if let Some(signal) = interrupted {
        return Err(CliError::Interrupted { signal });
    }
    Ok(if failed == 0 {
        CliOutcome::Success
    } else {
        CliOutcome::Failure
    })
}

fn write_text(
    ctx: &Context,
    results: &[Update],
    failed: usize,
    style: Style,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if results.is_empty() {
        writeln!(
            out,
            "No extensions installed in {} or {}.",
            ctx.project_root().display(),
            ctx.global_root().display()
        )?;
    }
    for r in results {
        let old = r.old.as_deref().map(short).unwrap_or("?");
        let new = r.new.as_deref().map(short).unwrap_or("?");
        let msg = r.message.as_deref().unwrap_or("");
        let line = match r.status {
            Status::Updated => style.ok(&format!("{}: updated {old} → {new}", r.name)),
            Status::UpToDate => format!("{}: up to date at {old}", r.name),
            Status::Skipped => style.dim(&format!("{}: skipped ({msg})", r.name)),
            Status::Failed => style.bad(&format!("{}: FAILED: {msg}", r.name)),
        };
        writeln!(out, "{line}")?;
    }
    if failed > 0 {
        writeln!(
            out,
            "{failed} update(s) failed; the extensions above were left as they were."
        )?;
    }
    Ok(())
}

/// Updates one install (see the module docs for the rules); the signal
/// that stopped it, if one did.
pub fn update_one(ctx: &Context, e: &Entry) -> (Update, Option<i32>) {
    let mut r = Update {
        name: e.name(),
        source: e.source,
        dir: e.dir.clone(),
        status: Status::Skipped,
        old: None,
        new: None,
        message: None,
    };
    if e.manifest.as_ref().is_some_and(|m| !m.is_enabled()) {
        r.message = Some(format!(
            "disabled; `zot-host ext enable {}` first to update it",
            r.name
        ));
        return (r, None);
    }
    let _locks = match lock_names(&ctx.zot_home, &[r.name.as_str(), &dir_name(e)]) {
        Ok(l) => l,
        Err(err) => {
            r.status = Status::Failed;
            r.message = Some(err.to_string());
            return (r, None);
        }
    };
    match not_a_git_install(&e.dir) {
        Ok(Some(why)) => {
            r.message = Some(format!("not a git install: {why}"));
            return (r, None);
        }
        Ok(None) => {}
        Err(err) => return failed(r, err),
    }
    match fast_forward(&e.dir, &mut r) {
        Ok(status) => r.status = status,
        Err(err) => return failed(r, err),
    }
    (r, None)
}

fn failed(mut r: Update, err: Failure) -> (Update, Option<i32>) {
    r.status = Status::Failed;
    let signal = match &err {
        Failure::Git(GitError::Interrupted { signal, .. }) => Some(*signal),
        _ => None,
    };
    r.message = Some(err.to_string());
    (r, signal)
}

/// Why an update failed: git's own error, or a refusal.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("{0}")]
    Refused(String),
}

/// Why `dir` is not a git install (see the module docs), or `None`.
fn not_a_git_install(dir: &Path) -> Result<Option<String>, Failure> {
    let reinstall =
        "reinstall it from its git URL (`zot-host ext install --force <git-url>`) to update it";
    if dir.join(".git").symlink_metadata().is_err() {
        return Ok(Some(format!(
            "it was copied from a folder (no .git); {reinstall}"
        )));
    }
    let top = match git(Some(dir), &["rev-parse", "--show-toplevel"]) {
        Ok(t) => Some(t),
        Err(GitError::Failed { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let same = |t: &str| {
        let t = dunce::canonicalize(t).ok();
        t.is_some() && t == dunce::canonicalize(dir).ok()
    };
    if !top.as_deref().is_some_and(same) {
        return Ok(Some(format!(
            "{} is not a git repository of its own; {reinstall}",
            dir.join(".git").display()
        )));
    }
    match git(Some(dir), &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]) {
        Ok(_) => Ok(None),
        Err(GitError::Failed { .. }) => Ok(Some(format!(
            "{} has no commits (made by `git init` or `cargo new` and never committed to); {reinstall}",
            dir.join(".git").display()
        ))),
        Err(e) => Err(e.into()),
    }
}

fn fast_forward(dir: &Path, r: &mut Update) -> Result<Status, Failure> {
    let d = Some(dir);
    let old = git(d, &["rev-parse", "HEAD"])?;
    r.old = Some(old.clone());
    let dirty = git(d, &["status", "--porcelain", "--untracked-files=no"])?;
    if !dirty.is_empty() {
        return Err(Failure::Refused(format!(
            "local changes to tracked files; see `git -C {} status`, commit or discard them, then update again",
            dir.display()
        )));
    }
    let upstream = git(
        d,
        &["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"],
    )
    .map_err(|e| match e {
        GitError::Failed { .. } => Failure::Refused(format!(
            "the checked-out branch has no upstream (detached HEAD?); reinstall it with `zot-host ext install --force <git-url>`, or set one with `git -C {} branch --set-upstream-to`",
            dir.display()
        )),
        e => e.into(),
    })?;
    git(d, &["fetch", "--quiet"])?;
    let new = git(d, &["rev-parse", "@{u}"])?;
    r.new = Some(new.clone());
    if new == old {
        return Ok(Status::UpToDate);
    }
    if git_ok(dir, &["merge-base", "--is-ancestor", "HEAD", "@{u}"])? {
        git(d, &["merge", "--ff-only", "--quiet", "@{u}"])?;
        let now = git(d, &["rev-parse", "HEAD"])?;
        r.new = Some(now);
        return Ok(Status::Updated);
    }
    if git_ok(dir, &["merge-base", "--is-ancestor", "@{u}", "HEAD"])? {
        return Err(Failure::Refused(format!(
            "local commits that {upstream} does not have; push or drop them (`git -C {} log {upstream}..`), then update again",
            dir.display()
        )));
    }
    Err(Failure::Refused(format!(
        "history diverged from {upstream} (local commits, or upstream was rewritten); reinstall it with `zot-host ext install --force <git-url>` or reconcile it by hand in {}",
        dir.display()
    )))
}
