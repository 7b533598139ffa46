//! Advisory locks for the `ext` commands that change installs, so that two
//! `zot-host` processes never install, update or remove the same extension
//! at once (two installs of one manifest name from different folders could
//! otherwise both pass the "already installed" check and both land).
//!
//! Each lock is an exclusive `flock` (the `fs4` crate) on a file in
//! `$ZOT_HOME/locks/` (created 0700). The kernel drops the lock when the
//! process ends, however it ends, so a killed command never leaves a stale
//! lock behind; the files themselves stay (deleting a lock file while
//! another process opens it would let two holders in).

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use fs4::fs_std::FileExt;

use crate::store::name::is_plain_name;
use crate::store::private_fs::create_private_dir_all;

/// Why a lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds it.
    #[error("another zot-host is installing, updating or removing {name:?} right now (it holds {}); try again when it has finished", .path.display())]
    Busy {
        /// The extension or directory name.
        name: String,
        /// The lock file.
        path: PathBuf,
    },
    /// A lock file or staging directory could not be created or locked.
    #[error("cannot {what} {}: {source}", .path.display())]
    Io {
        /// What was attempted.
        what: &'static str,
        /// On which path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// `$ZOT_HOME/locks`.
pub fn lock_dir(zot_home: &Path) -> PathBuf {
    zot_home.join("locks")
}

/// Held locks; dropping it releases them.
#[derive(Debug)]
pub struct NameLocks {
    _files: Vec<File>,
}

/// Takes the lock of every name in `names` (manifest and directory names of
/// the installs a command touches), without waiting: a busy one fails the
/// command. Names that cannot name a file are skipped: they never reach a
/// path either. Locks are taken in sorted order.
pub fn lock_names<S: AsRef<str>>(zot_home: &Path, names: &[S]) -> Result<NameLocks, LockError> {
    let mut names: Vec<&str> = names
        .iter()
        .map(AsRef::as_ref)
        .filter(|n| is_plain_name(n))
        .collect();
    names.sort_unstable();
    names.dedup();
    let dir = lock_dir(zot_home);
    let mut files = Vec::new();
    for name in names {
        let path = dir.join(format!("ext-{name}.lock"));
        let file = open_lock_file(&dir, &path)?;
        match FileExt::try_lock_exclusive(&file) {
            Ok(true) => files.push(file),
            Ok(false) => {
                return Err(LockError::Busy {
                    name: name.to_owned(),
                    path,
                })
            }
            Err(source) => {
                return Err(LockError::Io {
                    what: "lock",
                    path,
                    source,
                })
            }
        }
    }
    Ok(NameLocks { _files: files })
}

/// Opens (creating) a lock file in `dir`.
pub fn open_lock_file(dir: &Path, path: &Path) -> Result<File, LockError> {
    let err = |source| LockError::Io {
        what: "create",
        path: path.to_owned(),
        source,
    };
    create_private_dir_all(dir).map_err(err)?;
    let mut o = OpenOptions::new();
    o.create(true).truncate(false).read(true).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o.open(path).map_err(err)
}

/// Waits for the exclusive lock of `path` (for short critical sections).
pub fn lock_blocking(dir: &Path, path: &Path) -> Result<File, LockError> {
    let file = open_lock_file(dir, path)?;
    FileExt::lock_exclusive(&file).map_err(|source| LockError::Io {
        what: "lock",
        path: path.to_owned(),
        source,
    })?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_name_is_busy_until_released() {
        let home = tempfile::tempdir().unwrap();
        let first = lock_names(home.path(), &["a", "b"]).unwrap();
        let err = lock_names(home.path(), &["b"]).unwrap_err();
        assert!(
            matches!(err, LockError::Busy { ref name, .. } if name == "b"),
            "{err}"
        );
        drop(first);
        lock_names(home.path(), &["b"]).unwrap();
    }
}
