//! Which changes in the extension's folder count, and the watcher that
//! reports them.
//!
//! The rules are `ext install`'s ([`crate::cli::select`]), read at each
//! batch of changes so that editing them takes effect at once: `.git`,
//! `node_modules/` and, beside a `Cargo.toml`, `target/` never count; then
//! the folder's `.zotignore` (which wins, so `!path` there brings a path
//! back) and `.gitignore`. Unlike an install, what the manifest names to
//! run is not kept when ignored; and beside a `tsconfig.json`, the folders
//! of the files the manifest runs (`args: ["dist/index.js"]`: `dist/`) are
//! the build's output and never count, ignored or not: tsc rewriting them
//! would restart the extension again and again. Only the folder's
//! top-level ignore files are read.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use notify_debouncer_full::notify::event::{EventKind, ModifyKind};
use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult, Debouncer, RecommendedCache};

use crate::cli::select::ZOTIGNORE;

/// The ignore rules of one folder.
#[derive(Debug)]
pub struct Rules {
    root: PathBuf,
    cargo: bool,
    zot: Gitignore,
    git: Gitignore,
    /// Folders a build writes (relative).
    outputs: Vec<PathBuf>,
}

/// The folders of the files the manifest runs, when a `tsconfig.json`
/// says they are compiled (see the module docs).
fn build_outputs(root: &Path) -> Vec<PathBuf> {
    if !root.join("tsconfig.json").is_file() {
        return Vec::new();
    }
    let Ok((manifest, _)) = crate::manifest::load_manifest(root) else {
        return Vec::new();
    };
    manifest
        .args
        .iter()
        .map(Path::new)
        .filter(|p| p.is_relative())
        .filter_map(|p| p.parent())
        .filter(|p| !p.as_os_str().is_empty() && !p.starts_with(".."))
        .map(Path::to_owned)
        .collect()
}

fn matcher(root: &Path, file: &str) -> Result<Gitignore, String> {
    let mut b = GitignoreBuilder::new(root);
    let path = root.join(file);
    if path.is_file() {
        if let Some(e) = b.add(&path) {
            return Err(format!("{}: {e}", path.display()));
        }
    }
    b.build().map_err(|e| format!("{}: {e}", path.display()))
}

impl Rules {
    /// Reads the rules of `root` (a canonical path).
    pub fn read(root: &Path) -> Result<Self, String> {
        Ok(Self {
            root: root.to_owned(),
            cargo: root.join("Cargo.toml").is_file(),
            zot: matcher(root, ZOTIGNORE)?,
            git: matcher(root, ".gitignore")?,
            outputs: build_outputs(root),
        })
    }

    /// Whether a change of `path` (absolute, under the root) counts.
    pub fn counts(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return false;
        };
        if rel.as_os_str().is_empty() {
            return false;
        }
        if rel.components().any(|c| c.as_os_str() == ".git")
            || rel.starts_with("node_modules")
            || (self.cargo && rel.starts_with("target"))
            || self.outputs.iter().any(|o| rel.starts_with(o))
        {
            return false;
        }
        let is_dir = path.is_dir();
        let z = self.zot.matched_path_or_any_parents(rel, is_dir);
        if z.is_whitelist() {
            return true;
        }
        if z.is_ignore() {
            return false;
        }
        !self
            .git
            .matched_path_or_any_parents(rel, is_dir)
            .is_ignore()
    }
}

/// How long the watcher waits for a burst of changes (an editor's save, a
/// `git checkout`) to end before reporting it as one.
pub const SETTLE: Duration = Duration::from_millis(150);

/// Whether an event can change what runs: files created, written,
/// renamed or removed. Reads (the build's, the extension's own, the rules'
/// here) and metadata changes do not count: each would restart the
/// extension again.
pub fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(m) => !matches!(m, ModifyKind::Metadata(_)),
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// The running watcher; dropping it stops watching.
pub type Watcher = Debouncer<RecommendedWatcher, RecommendedCache>;

/// Watches `root` recursively; `on_change` gets the first path of each
/// batch of changes that counts under the folder's rules.
pub fn watch(
    root: &Path,
    on_change: impl Fn(PathBuf) + Send + 'static,
    on_error: impl Fn(String) + Send + 'static,
) -> Result<Watcher, String> {
    let dir = root.to_owned();
    let mut debouncer = new_debouncer(SETTLE, None, move |r: DebounceEventResult| match r {
        Ok(events) => {
            let rules = match Rules::read(&dir) {
                Ok(r) => r,
                Err(e) => return on_error(format!("cannot read the ignore rules: {e}")),
            };
            let first = events
                .iter()
                .filter(|e| is_change(&e.kind))
                .flat_map(|e| e.paths.iter())
                .find(|p| rules.counts(p));
            if let Some(p) = first {
                on_change(p.clone());
            }
        }
        Err(errors) => {
            for e in errors {
                on_error(format!("watching {}: {e}", dir.display()));
            }
        }
    })
    .map_err(|e| format!("cannot watch {}: {e}", root.display()))?;
    debouncer
        .watch(root, RecursiveMode::Recursive)
        .map_err(|e| format!("cannot watch {}: {e}", root.display()))?;
    Ok(debouncer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify_debouncer_full::notify::event::{AccessKind, CreateKind, DataChange, MetadataKind};

    #[test]
    fn reads_are_not_changes() {
        // inotify reports opens and reads: counting them restarted the
        // extension after every build (the build and the restart read the
        // sources) and again after that.
        assert!(!is_change(&EventKind::Access(AccessKind::Any)));
        assert!(!is_change(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::Any
        ))));
        assert!(is_change(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(is_change(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn install_rules_decide() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::write(root.join("Cargo.toml"), "").unwrap();
        std::fs::write(root.join(".gitignore"), "dist/\n*.log\n").unwrap();
        std::fs::write(root.join(".zotignore"), "!keep.log\nnotes.md\n").unwrap();
        let rules = Rules::read(&root).unwrap();
        for (p, counts) in [
            ("src/main.rs", true),
            ("extension.json", true),
            ("target/debug/x", false),
            (".git/index", false),
            ("node_modules/a/index.js", false),
            ("dist/index.js", false),
            ("x.log", false),
            ("keep.log", true),
            ("notes.md", false),
        ] {
            assert_eq!(rules.counts(&root.join(p)), counts, "{p}");
        }
    }

    #[test]
    fn what_tsc_writes_for_the_manifest_never_counts() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let manifest =
            r#"{"name": "t", "version": "1.0.0", "exec": "node", "args": ["dist/index.js"]}"#;
        std::fs::write(root.join("extension.json"), manifest).unwrap();
        assert!(Rules::read(&root)
            .unwrap()
            .counts(&root.join("dist/index.js")));
        std::fs::write(root.join("tsconfig.json"), "{}").unwrap();
        let rules = Rules::read(&root).unwrap();
        assert!(!rules.counts(&root.join("dist/index.js")));
        assert!(!rules.counts(&root.join("dist/lib/util.js")));
        assert!(rules.counts(&root.join("src/index.ts")));
    }
}
