//! Reading `extension.json` safely: a manifest comes from any folder the
//! host looks at (a cloned project's `.zot/extensions` among them), so it
//! may be a FIFO, a device or a symlink to one. It is opened without
//! blocking, checked on the opened descriptor to be a regular file, and read
//! up to a bound; anything else is refused with one line naming the path.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::{ManifestError, MANIFEST_FILE};

/// The largest `extension.json` the host reads (1 MiB): a manifest is a few
/// hundred bytes; the bound keeps a hostile one from exhausting memory.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// The text of `<dir>/extension.json`; every reader of a manifest goes
/// through here.
pub fn read_manifest(dir: &Path) -> Result<String, ManifestError> {
    let path = dir.join(MANIFEST_FILE);
    let read_error = |message: String| ManifestError::Read {
        dir: dir.to_owned(),
        message,
    };
    let file = match open_nonblocking(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ManifestError::Missing {
                dir: dir.to_owned(),
            })
        }
        Err(e) => return Err(read_error(e.to_string())),
    };
    // fstat of the opened file: what was checked is what gets read.
    let meta = file.metadata().map_err(|e| read_error(e.to_string()))?;
    if !meta.is_file() {
        return Err(ManifestError::NotAFile {
            dir: dir.to_owned(),
            kind: kind_of(&meta.file_type()),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| read_error(e.to_string()))?;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(ManifestError::TooLarge {
            dir: dir.to_owned(),
        });
    }
    String::from_utf8(bytes).map_err(|e| read_error(format!("not UTF-8 text: {}", e.utf8_error())))
}

/// Opens for reading without waiting for a writer (a FIFO) and without
/// becoming the controlling terminal (a tty). On a regular file
/// `O_NONBLOCK` changes nothing.
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

/// What a file that is not a regular file is, for the error.
fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_small_regular_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let path = dir.join(MANIFEST_FILE);
        std::os::unix::fs::symlink("/dev/null", &path).unwrap();
        let e = read_manifest(dir).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is a character device, not a regular file",
                path.display()
            )
        );
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let e = read_manifest(dir).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("is a directory, not a regular file"),
            "{e}"
        );
        std::fs::remove_dir(&path).unwrap();

        std::fs::write(&path, vec![b' '; MAX_MANIFEST_BYTES as usize]).unwrap();
        assert_eq!(
            read_manifest(dir).unwrap().len(),
            1 << 20,
            "the bound itself is read"
        );
        std::fs::write(&path, vec![b' '; MAX_MANIFEST_BYTES as usize + 1]).unwrap();
        assert_eq!(
            read_manifest(dir).unwrap_err().to_string(),
            format!(
                "{} is larger than 1 MiB, the limit for a manifest",
                path.display()
            )
        );
        std::fs::write(&path, b"{\"name\": \"\xff\"}").unwrap();
        assert!(read_manifest(dir)
            .unwrap_err()
            .to_string()
            .contains("not UTF-8 text"));
    }
}
