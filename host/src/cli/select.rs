//! What `ext install <folder>` copies: what running the extension needs, not
//! the author's repository and build trees.
//!
//! Left out:
//! - `.git` (a folder or a worktree's file), anywhere: a copied install is
//!   not a git checkout (`ext update` says so), and an empty `.git` that
//!   `cargo new` or `git init` made would only confuse git;
//! - `target/` beside a `Cargo.toml`: Cargo's build tree;
//! - what the folder's `.gitignore` files ignore (git's syntax and
//!   precedence, through the `ignore` crate; only ignore files inside the
//!   folder count, not a parent repository's or the global ones), and what
//!   its `.zotignore` files ignore: same syntax, and they win over
//!   `.gitignore`, so `!dist/` in `.zotignore` keeps an ignored `dist/`.
//!
//! Kept although ignored, because running needs it and the installer never
//! builds or installs dependencies:
//! - what the manifest names: `exec` when it is a path, each of `args`
//!   that names an existing path inside the folder, the `skills`, the theme
//!   files; followed through symlinks. A named file is kept together with
//!   the rest of its folder (a build's other modules sit beside its entry
//!   point, e.g. `dist/`), except inside Cargo's `target/`, where only the
//!   named binary is kept (the rest is build cache);
//! - `node_modules/` at the top (a Node extension's installed dependencies),
//!   unless the top `.zotignore` names it.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use crate::store::manifest::Manifest;

/// The author's own ignore file.
pub const ZOTIGNORE: &str = ".zotignore";

/// The decision for every path of a source folder.
#[derive(Debug)]
pub struct Selection {
    /// Paths (relative) the ignore rules let through.
    walked: HashSet<PathBuf>,
    /// Paths (relative) copied whole, whatever the rules say.
    kept: Vec<PathBuf>,
}

/// Whether to copy one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Copy it (a folder: and look at its entries).
    Copy,
    /// Leave it out (a folder: with everything in it).
    Leave,
}

impl Selection {
    /// Reads the ignore rules of `src` and the paths `manifest` names.
    pub fn new(src: &Path, manifest: &Manifest) -> Result<Self, String> {
        let cargo = src.join("Cargo.toml").is_file();
        let mut wb = ignore::WalkBuilder::new(src);
        wb.hidden(false)
            .parents(false)
            .ignore(false)
            .git_global(false)
            .git_exclude(false)
            .git_ignore(true)
            .require_git(false)
            .follow_links(false)
            .add_custom_ignore_filename(ZOTIGNORE);
        let root = src.to_owned();
        wb.filter_entry(move |e| {
            let rel = e.path().strip_prefix(&root).unwrap_or(e.path());
            !(e.file_name() == ".git"
                || rel == Path::new("node_modules")
                || (cargo && rel == Path::new("target")))
        });
        let mut walked = HashSet::new();
        for r in wb.build() {
            let e = r.map_err(|e| format!("reading the ignore rules of {}: {e}", src.display()))?;
            if let Ok(rel) = e.path().strip_prefix(src) {
                walked.insert(rel.to_owned());
            }
        }
        let mut kept = Vec::new();
        if src.join("node_modules").is_dir() && !zotignore_names(src, "node_modules") {
            kept.push(PathBuf::from("node_modules"));
        }
        for r in references(src, manifest) {
            if walked.contains(&r) {
                continue;
            }
            let is_file = !src.join(&r).is_dir();
            let in_cargo_target = cargo && r.starts_with("target");
            let keep = match r.parent() {
                Some(p) if is_file && !in_cargo_target && !p.as_os_str().is_empty() => p.to_owned(),
                _ => r,
            };
            kept.push(keep);
        }
        Ok(Self { walked, kept })
    }

    /// The decision for `rel` (relative to the source folder).
    pub fn pick(&self, rel: &Path) -> Pick {
        if rel.components().any(|c| c.as_os_str() == ".git") {
            return Pick::Leave;
        }
        let needed = self
            .kept
            .iter()
            .any(|k| rel.starts_with(k) || k.starts_with(rel));
        if needed || self.walked.contains(rel) {
            Pick::Copy
        } else {
            Pick::Leave
        }
    }
}

impl Selection {
    /// The highest folder above `rel` that the rules leave out but that is
    /// copied for what the manifest names in it (`target/` for
    /// `target/release/x`): what a summary names instead of each entry left
    /// out inside it.
    pub fn partly_kept_root(&self, rel: &Path) -> Option<PathBuf> {
        let mut ancestors: Vec<&Path> = rel
            .ancestors()
            .skip(1)
            .filter(|a| !a.as_os_str().is_empty())
            .collect();
        ancestors.reverse();
        ancestors
            .into_iter()
            .find(|a| {
                !self.walked.contains(*a) && self.kept.iter().any(|k| k.starts_with(a) && k != a)
            })
            .map(Path::to_owned)
    }
}

/// Whether the top `.zotignore` of `src` ignores the folder `name`.
fn zotignore_names(src: &Path, name: &str) -> bool {
    let file = src.join(ZOTIGNORE);
    if !file.is_file() {
        return false;
    }
    let mut b = ignore::gitignore::GitignoreBuilder::new(src);
    b.add(&file);
    b.build()
        .map(|g| g.matched(src.join(name), true).is_ignore())
        .unwrap_or(false)
}

/// The paths (relative to `src`, existing, inside it) the manifest names,
/// each also as the path it resolves to through symlinks.
fn references(src: &Path, m: &Manifest) -> Vec<PathBuf> {
    let mut named: Vec<&str> = Vec::new();
    if m.exec.contains('/') || m.exec.contains(std::path::MAIN_SEPARATOR) {
        named.push(&m.exec);
    }
    named.extend(m.args.iter().map(String::as_str));
    named.extend(m.skills.iter().map(String::as_str));
    named.extend([
        "theme.json",
        "themes/theme.json",
        crate::store::manifest::MANIFEST_FILE,
    ]);
    let real_src = dunce::canonicalize(src).unwrap_or_else(|_| src.to_owned());
    let mut out = Vec::new();
    for n in named {
        let Some(rel) = inside(Path::new(n)) else {
            continue;
        };
        let full = src.join(&rel);
        if full.symlink_metadata().is_err() {
            continue;
        }
        if let Ok(real) = dunce::canonicalize(&full) {
            if let Ok(r) = real.strip_prefix(&real_src) {
                if !r.as_os_str().is_empty() && r != rel {
                    out.push(r.to_owned());
                }
            }
        }
        out.push(rel);
    }
    out
}

/// `p` as a normal relative path below the folder, or `None` when it is
/// absolute, empty (the folder itself) or climbs out.
fn inside(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_inside() {
        assert_eq!(inside(Path::new("./a/b")), Some(PathBuf::from("a/b")));
        assert_eq!(inside(Path::new("a/../b")), Some(PathBuf::from("b")));
        assert_eq!(inside(Path::new("../x")), None);
        assert_eq!(inside(Path::new("/abs")), None);
        assert_eq!(inside(Path::new(".")), None);
        assert_eq!(inside(Path::new("--flag")), Some(PathBuf::from("--flag")));
    }
}
