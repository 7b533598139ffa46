//! The `extension.json` parser of `zot-host` ([`parse_manifest`]).
//!
//! The input is the file's bytes. `load_manifest` reads the file as UTF-8
//! (a file that is not is a read error, before parsing), so only UTF-8
//! inputs reach the parser. Properties:
//! - what parses is valid: a plain `name` (one the host may build a path
//!   from, [`zot_host::store::name::check_plain_name`]), and a kind that matches
//!   (`exec` → process, else `skills` → skills-only; the directory does not
//!   exist, so it has no theme);
//! - a parsed manifest written back as JSON (as `ext list --json` does)
//!   parses to the same manifest and kind;
//! - an error is one line that names the directory.
//!
//! An input whose first byte is 0xF8 or above (never UTF-8, so never a
//! manifest text) is a file shape instead ([`SHAPES`], by that byte) with
//! the rest as its content: `load_manifest` reads it from a temporary
//! directory. Properties: it returns (a FIFO or `/dev/zero` must not block
//! or be read to the end: a hang is a libFuzzer timeout, an endless read
//! runs out of memory); any shape but a regular file within 1 MiB is an
//! error of one line naming the directory and, where the shape has one,
//! the refusal's words.

use std::path::Path;

use zot_host::store::manifest::{load_manifest, parse_manifest, ManifestKind, MAX_MANIFEST_BYTES};

/// The file shapes of `extension.json`, with the words their refusal has.
pub const SHAPES: &[(&str, &str)] = &[
    ("regular", ""),
    ("fifo", "is a FIFO, not a regular file"),
    ("dev-zero", "is a character device, not a regular file"),
    ("dev-null", "is a character device, not a regular file"),
    ("directory", "is a directory, not a regular file"),
    ("oversize", "is larger than 1 MiB"),
    ("dangling", "no extension.json"),
    ("loop", ""),
];

/// The first byte of a file-shape input.
pub const SHAPE_BYTE: u8 = 0xF8;

/// Checks the input (see the module docs); panics on a violation.
pub fn check(data: &[u8]) {
    if let Some((&first, rest)) = data.split_first() {
        if first >= SHAPE_BYTE {
            return check_shape(usize::from(first - SHAPE_BYTE), rest);
        }
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = Path::new("/nonexistent/zot-fuzz/extension");
    match parse_manifest(dir, text) {
        Ok((m, kind)) => {
            assert!(
                zot_host::store::name::is_plain_name(m.name.as_str()),
                "accepted a name that is not plain: {m:?}"
            );
            let expected = if !m.exec.is_empty() {
                ManifestKind::Process
            } else {
                assert!(!m.skills.is_empty(), "accepted nothing to run: {m:?}");
                ManifestKind::SkillsOnly
            };
            assert_eq!(kind, expected, "{m:?}");
            let written = serde_json::to_string(&m).expect("a manifest serializes");
            let again = parse_manifest(dir, &written)
                .unwrap_or_else(|e| panic!("a written manifest does not parse: {e}\n  {written}"));
            assert_eq!(
                again,
                (m, kind),
                "a written manifest reads back differently"
            );
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "a multi-line error: {msg:?}");
            assert!(
                msg.starts_with(&dir.display().to_string()),
                "the error does not name the directory: {msg:?}"
            );
        }
    }
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir() -> TempDir {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("zot-fuzz-manifest-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir(&dir).expect("a temporary directory");
    TempDir(dir)
}

/// `extension.json` of shape `SHAPES[shape]` holding `content`, through
/// `load_manifest`.
fn check_shape(shape: usize, content: &[u8]) {
    let Some(&(name, words)) = SHAPES.get(shape) else {
        return;
    };
    let dir = temp_dir();
    let path = dir.0.join("extension.json");
    make(name, &path, content);
    let result = load_manifest(&dir.0);
    if name == "regular" {
        // The parser's properties hold for what is read (UTF-8 within the
        // bound); the rest is a read error, checked below.
        if let Ok(text) = std::str::from_utf8(content) {
            let parsed = parse_manifest(&dir.0, text);
            assert_eq!(result, parsed, "read and parsed differ");
            return;
        }
    }
    let e = match result {
        Ok(m) => panic!("{name}: a manifest from what is not a regular file: {m:?}"),
        Err(e) => e.to_string(),
    };
    assert!(!e.contains('\n'), "{name}: a multi-line error: {e:?}");
    assert!(
        e.starts_with(&dir.0.display().to_string()),
        "{name}: the error does not name the directory: {e:?}"
    );
    assert!(e.contains(words), "{name}: {e:?} does not say {words:?}");
}

fn make(shape: &str, path: &Path, content: &[u8]) {
    use std::os::unix::fs::symlink;
    match shape {
        "regular" => std::fs::write(path, content).expect("write"),
        "fifo" => {
            let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("no NUL");
            // SAFETY: mkfifo with a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        }
        "dev-zero" => symlink("/dev/zero", path).expect("symlink"),
        "dev-null" => symlink("/dev/null", path).expect("symlink"),
        "directory" => std::fs::create_dir(path).expect("mkdir"),
        "oversize" => {
            let fill = if content.is_empty() {
                &b" "[..]
            } else {
                content
            };
            let over = MAX_MANIFEST_BYTES as usize + 1;
            let bytes: Vec<u8> = fill.iter().copied().cycle().take(over).collect();
            std::fs::write(path, bytes).expect("write");
        }
        "dangling" => symlink("missing.json", path).expect("symlink"),
        "loop" => symlink("extension.json", path).expect("symlink"),
        _ => unreachable!("every shape is made"),
    }
}
