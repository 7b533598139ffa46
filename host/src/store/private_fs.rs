//! What the host creates under `$ZOT_HOME` is the user's alone: folders
//! 0700, log files 0600 (an extension's stderr may hold tokens or other
//! secrets it printed).
//!
//! Existing log files and an existing `logs/` folder that an older host
//! created with 0644 / 0755 are tightened when they are next opened: they
//! are the host's own and hold the same secrets. Other existing folders
//! (`$ZOT_HOME` itself, `extensions/`, `state/`) are left as the user set
//! them; only the ones the host creates are made 0700.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::path::Path;

/// Permission bits of the folders the host creates (Unix; elsewhere the
/// platform's defaults apply).
#[cfg(unix)]
pub const PRIVATE_DIR_MODE: u32 = zot_protocol::limits::LOG_DIR_MODE;

/// Creates `dir` and its missing parents, each with mode 0700 (folders
/// that exist keep their mode).
pub fn create_private_dir_all(dir: &Path) -> io::Result<()> {
    let mut b = DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(PRIVATE_DIR_MODE);
    }
    b.create(dir)
}

/// Opens a log file for appending: its folder is created 0700 (or
/// tightened, see the module docs), the file is created 0600 or tightened.
pub fn open_private_log(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        create_private_dir_all(dir)?;
        tighten_dir(dir);
    }
    let mut o = OpenOptions::new();
    o.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(zot_protocol::limits::LOG_FILE_MODE);
    }
    let file = o.open(path)?;
    tighten_file(&file);
    Ok(file)
}

/// Removes the group and other bits of an open file (through its
/// descriptor: no race with a replaced path).
#[cfg(unix)]
fn tighten_file(file: &File) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = file.metadata() {
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o077 != 0 {
            let _ = file.set_permissions(std::fs::Permissions::from_mode(mode & !0o077));
        }
    }
}

#[cfg(not(unix))]
fn tighten_file(_file: &File) {}

/// Removes the group and other bits of a real folder the user owns (a
/// symlinked `logs/` points where the user chose: left alone).
#[cfg(unix)]
fn tighten_dir(dir: &Path) {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let Ok(meta) = dir.symlink_metadata() else {
        return;
    };
    // SAFETY: geteuid has no preconditions and touches no memory.
    let me = unsafe { libc::geteuid() };
    let mode = meta.permissions().mode() & 0o7777;
    if meta.is_dir() && meta.uid() == me && mode & 0o077 != 0 {
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode & !0o077));
    }
}

#[cfg(not(unix))]
fn tighten_dir(_dir: &Path) {}
