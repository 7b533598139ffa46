//! `zot-host ext install <path|git-url>` (HOST-178, HOST-179).
//!
//! The source is copied (directory: what running needs, see
//! [`crate::cli::select`]) or shallow-cloned (git URL) into a staging
//! directory created inside `$ZOT_HOME/extensions` (a dot-named directory
//! with the copy one level below, so discovery never sees it), checked (no
//! symlink leaving the tree, a valid `extension.json` with a usable name),
//! and then renamed into place. Any failure drops the staging directory:
//! nothing is left behind and nothing is ever written outside
//! `$ZOT_HOME/extensions`. `--force` moves the installs it replaces into the
//! staging directory first, so they come back if the final rename fails.
//!
//! A command that is killed cannot roll back; the next install, remove,
//! update or doctor cleans up after it ([`crate::cli::staging`]). From the
//! "already installed?" check to the final rename the command holds the
//! locks of the manifest and directory names ([`crate::cli::lock`]), so of
//! two installs of one name exactly one lands.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::command_line::InstallArgs;
use crate::cli::git::git;
use crate::cli::install_error::InstallError;
use crate::cli::lock::lock_names;
use crate::cli::resolve::{installs, Scope};
use crate::cli::select::Selection;
use crate::cli::staging::{
    human_bytes, sweep, tree_bytes, Cleaned, Staging, ATTIC, INSTALL_PREFIX,
};
use crate::cli::test_hook::pause;
use crate::cli::tree::{check_symlinks, copy_tree, LeftOut};
use crate::cli::{CliError, CliOutcome, Context};
use crate::store::discovery::{discover, EntryState};
use crate::store::manifest::{load_manifest, ManifestError, MANIFEST_FILE};
use crate::store::name::{is_plain_name, ExtName};

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> InstallError {
    let path = path.to_owned();
    move |source| InstallError::Io { what, path, source }
}

/// Where an install comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A local directory, copied.
    Dir(PathBuf),
    /// A git URL, shallow-cloned.
    Git(String),
}

const GIT_PREFIXES: [&str; 6] = ["https://", "http://", "ssh://", "git://", "file://", "git@"];

impl Origin {
    /// Classifies a source argument: URL prefixes and a `.git` suffix mean
    /// git (§16.9), unless the path is a local directory with a manifest.
    pub fn parse(s: &str) -> Self {
        if GIT_PREFIXES.iter().any(|p| s.starts_with(p)) {
            return Self::Git(s.to_owned());
        }
        let p = Path::new(s);
        if p.join(MANIFEST_FILE).symlink_metadata().is_ok() {
            return Self::Dir(p.to_owned());
        }
        if s.trim_end_matches('/').ends_with(".git") {
            return Self::Git(s.to_owned());
        }
        Self::Dir(p.to_owned())
    }

    /// The default directory name: the source directory's basename, or the
    /// repository's basename without `.git`.
    pub fn basename(&self) -> String {
        match self {
            Self::Dir(p) => {
                let p = dunce::canonicalize(p).unwrap_or_else(|_| p.clone());
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            }
            Self::Git(url) => {
                let u = url.trim_end_matches('/');
                let u = u.strip_suffix(".git").unwrap_or(u);
                u.rsplit(['/', ':']).next().unwrap_or("").to_owned()
            }
        }
    }
}

/// A finished install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// Manifest name.
    pub name: String,
    /// Manifest version.
    pub version: String,
    /// Where it now lives.
    pub dir: PathBuf,
    /// Installs it replaced (`--force`).
    pub replaced: Vec<PathBuf>,
    /// What a folder install left out, relative to the source.
    pub left_out: Vec<LeftOut>,
    /// The same, as the summary line names it: a folder copied only for
    /// what the manifest names in it stands for everything left out inside.
    pub left_out_names: Vec<String>,
    /// The size of what was left out, in bytes.
    pub left_out_bytes: u64,
    /// What was cleaned up after earlier, interrupted commands.
    pub cleaned: Vec<Cleaned>,
}

/// Runs `ext install`.
pub fn run(ctx: &Context, args: &InstallArgs, out: &mut dyn Write) -> Result<CliOutcome, CliError> {
    let done = install(ctx, &args.source, args.name.as_deref(), args.force)?;
    for c in &done.cleaned {
        writeln!(out, "Cleaned up: {}.", c.describe())?;
    }
    if let Some(line) = left_out_line(&done) {
        writeln!(out, "{line}")?;
    }
    let version = if done.version.is_empty() {
        String::new()
    } else {
        format!(" {}", done.version)
    };
    for old in &done.replaced {
        writeln!(out, "Replaced {}", old.display())?;
    }
    writeln!(
        out,
        "Installed {}{version} into {}",
        done.name,
        done.dir.display()
    )?;
    let found = discover(&ctx.discovery());
    if let Some(EntryState::Shadowed { by }) = found
        .entries
        .iter()
        .find(|e| e.dir == done.dir)
        .map(|e| &e.state)
    {
        writeln!(
            out,
            "Note: {} has the same name and wins over it in {}.",
            by.display(),
            ctx.cwd.display()
        )?;
    }
    writeln!(out, "Check that it starts with `zot-host ext doctor`.")?;
    Ok(CliOutcome::Success)
}

/// The summary of what a folder install left out, if anything.
fn left_out_line(done: &Installed) -> Option<String> {
    const SHOWN: usize = 8;
    if done.left_out_names.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = done
        .left_out_names
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect();
    let more = format!(
        "and {} more",
        done.left_out_names.len().saturating_sub(SHOWN)
    );
    if done.left_out_names.len() > SHOWN {
        names.push(&more);
    }
    Some(format!(
        "Left out {} not needed to run: {}. (.git, build trees, and what .gitignore and .zotignore match; a `!<path>` line in .zotignore keeps one.)",
        human_bytes(done.left_out_bytes),
        names.join(", "),
    ))
}

/// The names a summary shows for what was left out: each path, or the
/// folder it is in when that folder was copied only for what the manifest
/// names in it.
fn left_out_names(select: &Selection, left_out: &[LeftOut]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for l in left_out {
        let name = match select.partly_kept_root(&l.path) {
            Some(root) => format!("{}/ (all but what {MANIFEST_FILE} names)", root.display()),
            None if l.dir => format!("{}/", l.path.display()),
            None => l.path.display().to_string(),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// Installs `source` into `$ZOT_HOME/extensions/<name>` (see the module docs).
pub fn install(
    ctx: &Context,
    source: &str,
    name: Option<&str>,
    force: bool,
) -> Result<Installed, InstallError> {
    let origin = Origin::parse(source);
    let dir_name = name.map_or_else(|| origin.basename(), str::to_owned);
    if !is_plain_name(&dir_name) {
        return Err(InstallError::BadName(dir_name));
    }
    let select = match &origin {
        Origin::Dir(src) => Some(selection(src)?),
        Origin::Git(_) => None,
    };
    let root = ctx.global_root();
    let dest = root.join(&dir_name);
    if !force && dest.symlink_metadata().is_ok() {
        return Err(InstallError::Exists {
            name: dir_name,
            paths: vec![dest],
        });
    }
    crate::store::private_fs::create_private_dir_all(&root).map_err(io("create", &root))?;
    if let Origin::Dir(src) = &origin {
        let s = dunce::canonicalize(src).map_err(io("resolve", src))?;
        let r = dunce::canonicalize(&root).map_err(io("resolve", &root))?;
        if r.starts_with(&s) {
            return Err(InstallError::SourceContainsDestination {
                source_dir: src.clone(),
                root,
            });
        }
    }
    let cleaned = sweep(&ctx.zot_home, &[root.clone(), ctx.project_root()]);
    // Dropping `staging` deletes it with whatever is inside: the rollback.
    let staging = Staging::new(&ctx.zot_home, &root, INSTALL_PREFIX)?;
    let staged = staging.path().join(&dir_name);
    let (left_out, left_out_names, left_out_bytes) = fetch(&origin, &staged, select.as_ref())?;
    check_symlinks(&staged)?;
    let (manifest, _) = load_manifest(&staged).map_err(|e| {
        // Report the directory the user knows, not the staging one.
        InstallError::InvalidManifest(relocate(e, &staged, &PathBuf::from(source)))
    })?;
    let _locks = lock_names(&ctx.zot_home, &[manifest.name.as_str(), &dir_name])?;
    let in_the_way = in_the_way_of(ctx, &dest, &manifest.name);
    if !in_the_way.is_empty() && !force {
        return Err(InstallError::Exists {
            name: manifest.name.to_string(),
            paths: in_the_way,
        });
    }
    commit(&staging, &dir_name, &dest, &in_the_way)?;
    Ok(Installed {
        name: manifest.name.to_string(),
        version: manifest.version,
        dir: dest,
        replaced: in_the_way,
        left_out,
        left_out_names,
        left_out_bytes,
        cleaned,
    })
}

/// What of the folder `src` an install takes: it must exist, be a folder
/// and hold a valid manifest.
fn selection(src: &Path) -> Result<Selection, InstallError> {
    if !src.exists() {
        return Err(InstallError::NoSource(src.to_owned()));
    }
    if !src.is_dir() {
        return Err(InstallError::NotADirectory(src.to_owned()));
    }
    if src.join(MANIFEST_FILE).symlink_metadata().is_err() {
        return Err(InstallError::NoManifest(src.to_owned()));
    }
    let (m, _) = load_manifest(src).map_err(InstallError::InvalidManifest)?;
    Selection::new(src, &m).map_err(InstallError::Ignore)
}

/// Copies the folder (its selection) or clones the repository into
/// `staged`; what a copy left out, its names and its size.
fn fetch(
    origin: &Origin,
    staged: &Path,
    select: Option<&Selection>,
) -> Result<(Vec<LeftOut>, Vec<String>, u64), InstallError> {
    match origin {
        Origin::Dir(src) => {
            let left_out = copy_tree(src, staged, select)?;
            let names = select.map_or_else(Vec::new, |s| left_out_names(s, &left_out));
            let bytes = left_out
                .iter()
                .map(|l| {
                    let p = src.join(&l.path);
                    if l.dir {
                        tree_bytes(&p)
                    } else {
                        p.symlink_metadata().map(|m| m.len()).unwrap_or(0)
                    }
                })
                .sum();
            Ok((left_out, names, bytes))
        }
        Origin::Git(url) => {
            let target = staged.to_string_lossy().into_owned();
            git(
                None,
                &["clone", "--depth", "1", "--quiet", "--", url, &target],
            )?;
            Ok((Vec::new(), Vec::new(), 0))
        }
    }
}

/// What an install of `name` at `dest` replaces: whatever is at `dest`,
/// and every other global install of the same manifest name.
fn in_the_way_of(ctx: &Context, dest: &Path, name: &ExtName) -> Vec<PathBuf> {
    let mut in_the_way: Vec<PathBuf> = Vec::new();
    if dest.symlink_metadata().is_ok() {
        in_the_way.push(dest.to_owned());
    }
    for e in installs(ctx, Scope::Global) {
        if e.dir != dest && e.manifest.as_ref().is_some_and(|m| m.name == *name) {
            in_the_way.push(e.dir);
        }
    }
    in_the_way
}

/// Moves what is in the way into the staging folder's attic (journaled
/// first, so a killed command's sweep moves it back), then the staged copy
/// into place; on a failure what was moved goes back.
fn commit(
    staging: &Staging,
    dir_name: &str,
    dest: &Path,
    in_the_way: &[PathBuf],
) -> Result<(), InstallError> {
    let staged = staging.path().join(dir_name);
    let attic = staging.path().join(ATTIC);
    if !in_the_way.is_empty() {
        std::fs::create_dir(&attic).map_err(io("create", &attic))?;
    }
    let mut moved: Vec<(PathBuf, PathBuf)> = Vec::new();
    let restore = |moved: &[(PathBuf, PathBuf)]| {
        for (from, to) in moved.iter().rev() {
            let _ = std::fs::rename(to, from);
        }
    };
    let mut journal: Vec<(usize, PathBuf)> = Vec::new();
    for (i, p) in in_the_way.iter().enumerate() {
        let to = attic.join(i.to_string());
        // Written before the move: a killed command's sweep moves it back.
        journal.push((i, p.clone()));
        if let Err(e) = staging.journal_move(dir_name, &journal) {
            restore(&moved);
            return Err(io("write the journal in", staging.path())(e));
        }
        if let Err(e) = std::fs::rename(p, &to) {
            restore(&moved);
            return Err(io("move aside", p)(e));
        }
        moved.push((p.clone(), to));
    }
    pause("commit");
    if let Err(e) = std::fs::rename(&staged, dest) {
        restore(&moved);
        return Err(io("rename into place", dest)(e));
    }
    Ok(())
}

/// Rewrites the directory a manifest error names.
fn relocate(mut e: ManifestError, from: &Path, to: &Path) -> ManifestError {
    let dir = e.dir_mut();
    if dir == from {
        *dir = to.to_owned();
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_and_basenames() {
        let g = |s: &str| Origin::parse(s);
        assert_eq!(g("https://h/u/repo.git").basename(), "repo");
        assert_eq!(g("git@host:u/repo.git").basename(), "repo");
        assert_eq!(g("file:///tmp/x/repo.git/").basename(), "repo");
        assert_eq!(g("https://h/u/plain").basename(), "plain");
        assert!(matches!(g("/no/such/thing.git"), Origin::Git(_)));
        assert!(matches!(g("/no/such/dir"), Origin::Dir(_)));
    }
}
