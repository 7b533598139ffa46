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

use std::collections::HashSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use notify::event::{EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

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
    let Ok((manifest, _)) = crate::store::manifest::load_manifest(root) else {
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
        if rel.as_os_str().is_empty() || is_editor_temp(rel) {
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

/// Whether `path` names a file an editor writes beside the one being
/// edited (swap, backup, lock and autosave files, the temporary file of a
/// save): its changes are not the user's, and saving writes it first.
pub fn is_editor_temp(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    name.ends_with('~')
        || [".swp", ".swo", ".swx", "___jb_tmp___", "___jb_old___"]
            .iter()
            .any(|s| name.ends_with(s))
        || name.starts_with(".#")
        || name.starts_with(".goutputstream-")
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
        // vim checks that it may write in a folder by creating this file.
        || name == "4913"
}

/// The path a batch of changes is reported by: the first that counts and
/// still exists (what a save left, not the temporary file renamed over
/// it), else the first that counts (a removal).
fn reported(changes: Vec<PathBuf>, rules: &Rules) -> Option<PathBuf> {
    let counted: Vec<PathBuf> = changes.into_iter().filter(|p| rules.counts(p)).collect();
    let existing = counted.iter().position(|p| p.exists()).unwrap_or(0);
    counted.into_iter().nth(existing)
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

/// The running watcher; dropping it stops watching (and its thread).
pub struct Watcher {
    _watched: Arc<Mutex<Watched>>,
}

/// The OS watcher and the paths it watches: every folder and file that
/// counts, each on its own (not one recursive watch of the root: with
/// kqueue that is a descriptor per file of `node_modules/` and `target/`).
struct Watched {
    os: RecommendedWatcher,
    paths: HashSet<PathBuf>,
}

impl Watched {
    /// Watches what counts under `root` now and stops watching what no
    /// longer does; `touched` (the paths of a batch's events) are watched
    /// anew: a file replaced by a rename (an editor's save) is another file,
    /// and kqueue drops the watch of the one that was there. The first path
    /// that cannot be watched is the error.
    fn sync(&mut self, root: &Path, rules: &Rules, touched: &[PathBuf]) -> Result<(), String> {
        for path in touched {
            if self.paths.remove(path) {
                let _ = self.os.unwatch(path);
            }
        }
        let mut want = HashSet::from([root.to_owned()]);
        counted_under(root, rules, &mut want);
        for gone in self.paths.difference(&want).cloned().collect::<Vec<_>>() {
            // Already gone with its file, for the OS watcher, most often.
            let _ = self.os.unwatch(&gone);
            self.paths.remove(&gone);
        }
        let mut first_error = None;
        for path in want {
            if self.paths.contains(&path) {
                continue;
            }
            match self.os.watch(&path, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.paths.insert(path);
                }
                // Removed since the walk: the next batch sees it.
                Err(e) if matches!(&e.kind, notify::ErrorKind::PathNotFound) => {}
                Err(e) if matches!(&e.kind, notify::ErrorKind::Io(io) if io.kind() == ErrorKind::NotFound) =>
                    {}
                Err(e) => {
                    first_error
                        .get_or_insert_with(|| format!("cannot watch {}: {e}", path.display()));
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// Adds the folders and files under `dir` that count, not descending into
/// those that do not (nor following links).
fn counted_under(dir: &Path, rules: &Rules, into: &mut HashSet<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !rules.counts(&path) {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        into.insert(path.clone());
        if is_dir {
            counted_under(&path, rules, into);
        }
    }
}

/// Watches `root` (a canonical path); `on_change` gets the first path of
/// each batch of changes that counts under the folder's rules, read again
/// for each batch.
pub fn watch(
    root: &Path,
    on_change: impl Fn(PathBuf) + Send + 'static,
    on_error: impl Fn(String) + Send + 'static,
) -> Result<Watcher, String> {
    let cannot = |e: &dyn std::fmt::Display| format!("cannot watch {}: {e}", root.display());
    let (tx, events) = mpsc::channel();
    let os = notify::recommended_watcher(tx).map_err(|e| cannot(&e))?;
    let watched = Arc::new(Mutex::new(Watched {
        os,
        paths: HashSet::new(),
    }));
    let rules = Rules::read(root).map_err(|e| cannot(&e))?;
    lock(&watched).sync(root, &rules, &[])?;
    let batches = Batches {
        root: root.to_owned(),
        events,
        watched: Arc::downgrade(&watched),
    };
    std::thread::Builder::new()
        .name("zot-dev-watch".into())
        .spawn(move || batches.run(on_change, on_error))
        .map_err(|e| cannot(&e))?;
    Ok(Watcher { _watched: watched })
}

fn lock(w: &Mutex<Watched>) -> std::sync::MutexGuard<'_, Watched> {
    w.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The watcher's thread: gathers events into batches that end when none
/// came for [`SETTLE`] (an editor's save, a `git checkout`: one batch).
struct Batches {
    root: PathBuf,
    events: mpsc::Receiver<notify::Result<notify::Event>>,
    /// Weak, so that dropping the [`Watcher`] drops the OS watcher, whose
    /// sender closes `events` and ends the thread.
    watched: Weak<Mutex<Watched>>,
}

impl Batches {
    fn run(self, on_change: impl Fn(PathBuf), on_error: impl Fn(String)) {
        while let Some(batch) = self.next_batch() {
            let mut changes = Vec::new();
            for event in batch {
                match event {
                    Ok(e) if is_change(&e.kind) => changes.extend(e.paths),
                    Ok(_) => {}
                    Err(e) => on_error(format!("watching {}: {e}", self.root.display())),
                }
            }
            // Reads (ours below included) are not changes: no new batch
            // comes of this one.
            if changes.is_empty() {
                continue;
            }
            let rules = match Rules::read(&self.root) {
                Ok(r) => r,
                Err(e) => {
                    on_error(format!("cannot read the ignore rules: {e}"));
                    continue;
                }
            };
            let Some(watched) = self.watched.upgrade() else {
                return;
            };
            // New folders and files are watched from now on; the rules
            // may have changed what counts.
            if let Err(e) = lock(&watched).sync(&self.root, &rules, &changes) {
                on_error(e);
            }
            if let Some(p) = reported(changes, &rules) {
                on_change(p);
            }
        }
    }

    /// The next batch; `None` once the OS watcher is gone.
    fn next_batch(&self) -> Option<Vec<notify::Result<notify::Event>>> {
        let mut batch = vec![self.events.recv().ok()?];
        loop {
            match self.events.recv_timeout(SETTLE) {
                Ok(e) => batch.push(e),
                Err(RecvTimeoutError::Timeout) => return Some(batch),
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, CreateKind, DataChange, MetadataKind};

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

    /// What the watcher reports, as the test sees it.
    fn watching(root: &Path) -> (Watcher, mpsc::Receiver<PathBuf>) {
        let (tx, rx) = mpsc::channel();
        let w = watch(root, move |p| tx.send(p).unwrap(), |e| panic!("{e}")).unwrap();
        (w, rx)
    }

    fn next(rx: &mpsc::Receiver<PathBuf>) -> PathBuf {
        rx.recv_timeout(Duration::from_secs(20))
            .expect("no change reported in 20 s")
    }

    #[test]
    fn only_what_counts_is_watched_and_new_folders_are_watched_too() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::write(root.join("Cargo.toml"), "").unwrap();
        for dir in ["src", "target/debug/deps", "node_modules/a", ".git"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(root.join("src/main.rs"), "").unwrap();
        std::fs::write(root.join("target/debug/deps/x"), "").unwrap();
        let (w, rx) = watching(&root);
        // One watch per path that counts: with kqueue each is a descriptor,
        // so build trees and dependencies must not be among them.
        let mut paths: Vec<_> = lock(&w._watched).paths.iter().cloned().collect();
        paths.sort();
        let expect: Vec<_> = ["", "Cargo.toml", "src", "src/main.rs"]
            .iter()
            .map(|p| {
                if p.is_empty() {
                    root.clone()
                } else {
                    root.join(p)
                }
            })
            .collect();
        assert_eq!(paths, expect);

        std::fs::write(root.join("target/debug/deps/y"), "x").unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        assert_eq!(next(&rx), root.join("src/main.rs"));

        // A new folder counts, and from then on so do the files in it.
        std::fs::create_dir(root.join("src/new")).unwrap();
        assert_eq!(next(&rx), root.join("src/new"));
        std::fs::write(root.join("src/new/lib.rs"), "").unwrap();
        assert_eq!(next(&rx), root.join("src/new/lib.rs"));
        std::fs::write(root.join("src/new/lib.rs"), "pub fn f() {}").unwrap();
        assert_eq!(next(&rx), root.join("src/new/lib.rs"));
        assert!(lock(&w._watched)
            .paths
            .contains(&root.join("src/new/lib.rs")));

        // An editor's save: a new file renamed over the old one. The change
        // is named by the file saved, not the temporary one, and the file
        // at that path is still watched afterwards.
        std::fs::write(root.join("src/main.rs.tmp.1234"), "fn main() { }").unwrap();
        std::fs::rename(root.join("src/main.rs.tmp.1234"), root.join("src/main.rs")).unwrap();
        assert_eq!(next(&rx), root.join("src/main.rs"));
        std::fs::write(root.join("src/main.rs"), "fn main() {  }").unwrap();
        assert_eq!(next(&rx), root.join("src/main.rs"));
        // Editor files beside it are not changes: the next one reported
        // is the save.
        std::fs::write(root.join("src/.main.rs.swp"), "swap").unwrap();
        std::fs::write(root.join("src/main.rs~"), "backup").unwrap();
        std::fs::write(root.join("src/4913"), "").unwrap();
        std::fs::remove_file(root.join("src/4913")).unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {   }").unwrap();
        assert_eq!(next(&rx), root.join("src/main.rs"));
    }

    #[test]
    fn editor_files_are_known_by_name() {
        for temp in [
            ".main.rs.swp",
            "main.rs~",
            ".#main.rs",
            "#main.rs#",
            "4913",
            "main.rs___jb_tmp___",
            ".goutputstream-X1Y2",
        ] {
            assert!(is_editor_temp(Path::new(temp)), "{temp}");
        }
        for real in ["main.rs", "#", "index.ts", "swp", "4914"] {
            assert!(!is_editor_temp(Path::new(real)), "{real}");
        }
    }
}
