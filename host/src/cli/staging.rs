//! Staging directories of `ext install` and `ext remove`, and the sweep that
//! cleans up after a command that was killed (SIGKILL, power loss) before it
//! could roll back.
//!
//! A staging directory is a dot-named directory inside an extensions root
//! (`.zot-install-XXXXXX`, `.zot-remove-XXXXXX`; discovery never looks at
//! dot names). While its command runs, the command holds an exclusive
//! `flock` on the file `.zot-owner` inside it; the kernel releases that lock
//! when the process ends, however it ends. A staging directory whose owner
//! lock can be taken is therefore stale. Creation (directory + owner lock)
//! and the sweep's decision both happen under one short lock,
//! `$ZOT_HOME/locks/staging.lock`, so the sweep never sees a live staging
//! directory before its owner holds it. Only directories with one of the
//! two prefixes, in the roots the command knows, are ever touched, and
//! symlinks never.
//!
//! `ext install --force` moves the installs it replaces into the staging
//! directory (`.replaced/<i>`) before the final rename, writing a journal
//! (`.zot-journal`, replaced atomically) of where each came from. When the
//! command died before the final rename (its new copy is still in staging),
//! the sweep moves them back; after it, they are what was replaced, and go.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;
use serde::{Deserialize, Serialize};

use crate::cli::lock::{lock_blocking, lock_dir, open_lock_file, LockError};

/// Prefix of install staging directories.
pub const INSTALL_PREFIX: &str = ".zot-install-";
/// Prefix of the directories a removal renames an install into.
pub const REMOVE_PREFIX: &str = ".zot-remove-";
/// The owner lock inside a staging directory.
const OWNER_FILE: &str = ".zot-owner";
/// The journal of installs moved aside by `--force`.
const JOURNAL_FILE: &str = ".zot-journal";
/// Where `--force` moves replaced installs.
pub const ATTIC: &str = ".replaced";

/// A staging directory owned by this process; dropping it deletes it.
#[derive(Debug)]
pub struct Staging {
    dir: tempfile::TempDir,
    _owner: File,
}

/// Where each replaced install came from (see the module docs).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Journal {
    /// The name of the new copy inside the staging directory.
    staged: String,
    /// `(index in .replaced, original path)`.
    moved: Vec<(usize, PathBuf)>,
}

fn io_err<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> LockError + 'a {
    move |source| LockError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

impl Staging {
    /// Creates a staging directory with `prefix` in `root` and takes its
    /// owner lock.
    pub fn new(zot_home: &Path, root: &Path, prefix: &str) -> Result<Self, LockError> {
        let _guard = sweep_lock(zot_home)?;
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir_in(root)
            .map_err(io_err("create a staging directory in", root))?;
        let owner_path = dir.path().join(OWNER_FILE);
        let owner = open_lock_file(dir.path(), &owner_path)?;
        FileExt::try_lock_exclusive(&owner).map_err(io_err("lock", &owner_path))?;
        Ok(Self { dir, _owner: owner })
    }

    /// The staging directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Records that the install at `from` is about to move to
    /// `.replaced/<index>`, before it moves.
    pub fn journal_move(&self, staged: &str, moved: &[(usize, PathBuf)]) -> std::io::Result<()> {
        let j = Journal {
            staged: staged.to_owned(),
            moved: moved.to_vec(),
        };
        let text = serde_json::to_vec(&j).map_err(std::io::Error::other)?;
        let tmp = self.path().join(".zot-journal.tmp");
        let mut f = File::create(&tmp)?;
        f.write_all(&text)?;
        f.sync_all()?;
        fs::rename(&tmp, self.path().join(JOURNAL_FILE))
    }

    /// Deletes the staging directory now.
    pub fn close(self) -> std::io::Result<()> {
        self.dir.close()
    }
}

fn sweep_lock(zot_home: &Path) -> Result<File, LockError> {
    let dir = lock_dir(zot_home);
    let path = dir.join("staging.lock");
    lock_blocking(&dir, &path)
}

/// What the sweep did about one stale staging directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cleaned {
    /// The staging directory.
    pub path: PathBuf,
    /// What it held, in bytes (what was freed, restored installs not counted).
    pub bytes: u64,
    /// Installs moved back to where an interrupted `--force` took them from.
    pub restored: Vec<PathBuf>,
    /// Set when something could not be cleaned (left in place).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Cleaned {
    /// One line for people.
    pub fn describe(&self) -> String {
        let what = if self.path_has(REMOVE_PREFIX) {
            "an interrupted `ext remove`"
        } else {
            "an interrupted `ext install`"
        };
        let mut s = match &self.error {
            Some(e) => format!(
                "could not clean up {} left by {what}: {e}",
                self.path.display()
            ),
            None => format!(
                "removed {} ({}) left by {what}",
                self.path.display(),
                human_bytes(self.bytes)
            ),
        };
        for r in &self.restored {
            s.push_str(&format!(
                "; restored {} (it was being replaced)",
                r.display()
            ));
        }
        s
    }

    fn path_has(&self, prefix: &str) -> bool {
        self.path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
    }
}

/// Bytes as `12.3 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Cleans up the stale staging directories in `roots` (see the module
/// docs); live ones (their command still runs) are left alone.
pub fn sweep(zot_home: &Path, roots: &[PathBuf]) -> Vec<Cleaned> {
    let mut claimed: Vec<(PathBuf, Option<File>)> = Vec::new();
    {
        // Decide under the creation lock; delete outside it.
        let Ok(_guard) = sweep_lock(zot_home) else {
            return Vec::new();
        };
        for root in roots {
            let Ok(rd) = fs::read_dir(root) else {
                continue;
            };
            for entry in rd.filter_map(Result::ok) {
                let name = entry.file_name().to_string_lossy().into_owned();
                let ours = name.starts_with(INSTALL_PREFIX) || name.starts_with(REMOVE_PREFIX);
                // `file_type` does not follow symlinks.
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if !ours || !is_dir {
                    continue;
                }
                let path = entry.path();
                match claim(&path) {
                    Claim::Live => {}
                    Claim::Stale(owner) => claimed.push((path, owner)),
                }
            }
        }
    }
    claimed
        .into_iter()
        .map(|(path, owner)| clean(&path, owner))
        .collect()
}

enum Claim {
    /// Its command still runs.
    Live,
    /// Nobody owns it; the owner lock (when there is one) is now ours.
    Stale(Option<File>),
}

fn claim(dir: &Path) -> Claim {
    let owner = dir.join(OWNER_FILE);
    match fs::OpenOptions::new().read(true).write(true).open(&owner) {
        // Created under the sweep lock together with its directory: a
        // missing owner file means a command from before owner files, or
        // one that died between the two steps of an older version.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Claim::Stale(None),
        Err(_) => Claim::Live,
        Ok(f) => match FileExt::try_lock_exclusive(&f) {
            Ok(true) => Claim::Stale(Some(f)),
            _ => Claim::Live,
        },
    }
}

/// Restores what the staging directory moved aside, then deletes it: all
/// but the owner file while its lock is held, then (the lock released) the
/// rest. Windows cannot delete a file that is still open.
fn clean(dir: &Path, owner: Option<File>) -> Cleaned {
    let mut c = Cleaned {
        path: dir.to_owned(),
        bytes: 0,
        restored: Vec::new(),
        error: None,
    };
    if let Err(e) = restore_replaced(dir, &mut c.restored) {
        c.error = Some(e);
        return c;
    }
    c.bytes = tree_bytes(dir);
    let removed = remove_all_but_owner(dir).and_then(|()| {
        drop(owner);
        fs::remove_dir_all(dir)
    });
    if let Err(e) = removed {
        c.error = Some(e.to_string());
    }
    c
}

fn remove_all_but_owner(dir: &Path) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name() == OWNER_FILE {
            continue;
        }
        // `file_type` does not follow symlinks: a link is removed, not
        // what it points to.
        if entry.file_type()?.is_dir() {
            fs::remove_dir_all(entry.path())?;
        } else {
            fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Moves back what an interrupted `--force` moved aside, when its new copy
/// never took their place. Errors leave the directory in place.
fn restore_replaced(dir: &Path, restored: &mut Vec<PathBuf>) -> Result<(), String> {
    let attic = dir.join(ATTIC);
    if !attic.is_dir() {
        return Ok(());
    }
    let journal: Journal = match fs::read(dir.join(JOURNAL_FILE)) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "its journal is unreadable ({e}); the installs it replaced are in {}",
                attic.display()
            )
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Journal::default(),
        Err(e) => return Err(format!("read its journal: {e}")),
    };
    let committed = journal.staged.is_empty() || !dir.join(&journal.staged).exists();
    if committed {
        // The new copy is in place: what was moved aside was replaced.
        return Ok(());
    }
    for (i, from) in &journal.moved {
        let held = attic.join(i.to_string());
        if held.symlink_metadata().is_err() {
            continue;
        }
        if from.symlink_metadata().is_ok() {
            return Err(format!(
                "{} is back in use; the install that was there is in {}",
                from.display(),
                held.display()
            ));
        }
        fs::rename(&held, from).map_err(|e| format!("move {} back: {e}", from.display()))?;
        restored.push(from.clone());
    }
    Ok(())
}

/// The size of the regular files under `dir` (links not followed).
pub fn tree_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.filter_map(Result::ok) {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => total += e.metadata().map(|m| m.len()).unwrap_or(0),
                _ => {}
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_staging_is_kept_and_dead_staging_goes() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join("extensions");
        fs::create_dir_all(&root).unwrap();
        let live = Staging::new(home.path(), &root, INSTALL_PREFIX).unwrap();
        // A staging directory of a process that is gone: no lock on its owner.
        let dead = root.join(".zot-install-dead");
        fs::create_dir_all(dead.join("x")).unwrap();
        fs::write(dead.join(OWNER_FILE), "").unwrap();
        fs::write(dead.join("x/f"), "12345").unwrap();
        // Not ours: another prefix, or a symlink with our prefix.
        fs::create_dir_all(root.join(".other")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&dead, root.join(".zot-install-link")).unwrap();
        let cleaned = sweep(home.path(), std::slice::from_ref(&root));
        assert_eq!(cleaned.len(), 1, "{cleaned:?}");
        assert_eq!(cleaned[0].path, dead);
        assert_eq!(cleaned[0].bytes, 5);
        assert!(!dead.exists());
        assert!(live.path().exists());
        assert!(root.join(".other").exists());
        assert_eq!(human_bytes(5), "5 bytes");
        assert_eq!(human_bytes(3 * 1024 * 1024 / 2), "1.5 MiB");
    }
}
