//! Spawning an extension process (§16.3, §16.4; HOST-13..17).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use tokio::process::{ChildStdin, ChildStdout};

use crate::process::supervise::Supervised;
use crate::store::manifest::Manifest;

/// An extension's stderr log file, shared by the child (its stderr) and the
/// host (its `[zot] ...` marker lines).
#[derive(Debug)]
pub struct ExtLog {
    path: PathBuf,
    file: Mutex<Option<File>>,
}

impl ExtLog {
    /// Opens (creating `logs/` with mode 0700 and the file with mode 0600,
    /// see [`crate::store::private_fs`]) `path` for appending. Failure is not fatal: the extension then runs
    /// without a log.
    pub fn open(path: &Path) -> Self {
        let file = crate::store::private_fs::open_private_log(path)
            .map_err(|e| tracing::warn!("cannot open extension log {}: {e}", path.display()))
            .ok();
        Self {
            path: path.to_owned(),
            file: Mutex::new(file),
        }
    }

    /// A log that keeps nothing: for a peer without a process (the fuzzing
    /// hook's, which must not write a file per input).
    pub fn discard(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            file: Mutex::new(None),
        }
    }

    /// The log path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file could be opened.
    pub fn is_open(&self) -> bool {
        self.file.lock().map(|f| f.is_some()).unwrap_or(false)
    }

    /// Appends one host line (`[zot] ...`).
    pub fn line(&self, text: &str) {
        if let Ok(mut guard) = self.file.lock() {
            if let Some(f) = guard.as_mut() {
                let _ = writeln!(f, "[zot] {text}");
            }
        }
    }

    /// A handle for the child's stderr (or null when the log is unavailable).
    pub fn stderr(&self) -> Stdio {
        match self
            .file
            .lock()
            .ok()
            .and_then(|f| f.as_ref().and_then(|f| f.try_clone().ok()))
        {
            Some(f) => Stdio::from(f),
            None => Stdio::null(),
        }
    }

    /// The log's current length: where what happens next starts.
    pub fn end(&self) -> u64 {
        std::fs::metadata(&self.path).map_or(0, |m| m.len())
    }

    /// The last `max` lines the extension wrote to stderr after `from` (an
    /// [`ExtLog::end`] taken before it was spawned), without the host's own
    /// `[zot]` lines: what a load error shows, so that a
    /// `ModuleNotFoundError` is seen where the failure is reported. Reads
    /// at most the last 8 KiB; lines are cut at 300 characters.
    pub fn stderr_tail(&self, from: u64, max: usize) -> Vec<String> {
        use std::io::{Read, Seek, SeekFrom};
        const WINDOW: u64 = 8 * 1024;
        const LINE: usize = 300;
        if !self.is_open() {
            return Vec::new();
        }
        let Ok(mut f) = File::open(&self.path) else {
            return Vec::new();
        };
        let end = f.metadata().map_or(0, |m| m.len());
        let start = from.max(end.saturating_sub(WINDOW)).min(end);
        let mut bytes = Vec::new();
        if f.seek(SeekFrom::Start(start)).is_err()
            || f.take(end - start).read_to_end(&mut bytes).is_err()
        {
            return Vec::new();
        }
        let text = String::from_utf8_lossy(&bytes);
        let mut lines: Vec<&str> = text.lines().collect();
        if start > from && !lines.is_empty() {
            // The window began mid-line.
            lines.remove(0);
        }
        let kept: Vec<String> = lines
            .into_iter()
            .filter(|l| !l.starts_with("[zot] ") && !l.trim().is_empty())
            .map(|l| match l.char_indices().nth(LINE) {
                Some((cut, _)) => format!("{}…", &l[..cut]),
                None => l.to_owned(),
            })
            .collect();
        kept[kept.len().saturating_sub(max)..].to_vec()
    }

    /// Closes the host's handle (§16.7 step 4).
    pub fn close(&self) {
        if let Ok(mut f) = self.file.lock() {
            *f = None;
        }
    }
}

/// Resolves `exec` (HOST-13): absolute as is; with a path separator (e.g.
/// `./x`, `../x`, `bin/x`) relative to the extension directory; a bare name
/// is left for the `PATH` lookup of the OS.
pub fn resolve_exec(dir: &Path, exec: &str) -> PathBuf {
    let p = Path::new(exec);
    if p.is_absolute() {
        p.to_owned()
    } else if exec.contains('/') || exec.contains(std::path::MAIN_SEPARATOR) {
        dir.join(p)
    } else {
        p.to_owned()
    }
}

/// Environment variables extensions do not inherit: the host's own secrets
/// (the live model's API key, `--hide-env`). Process-wide, like the
/// environment itself; names are only ever added.
static WITHHELD_ENV: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Keeps `name` out of the environment of every extension spawned from now
/// on.
pub fn withhold_env(name: &str) {
    let mut names = WITHHELD_ENV.lock().unwrap_or_else(|e| e.into_inner());
    if !name.is_empty() && !names.iter().any(|n| n == name) {
        names.push(name.to_owned());
    }
}

/// A running extension process with its pipes.
#[derive(Debug)]
pub struct Spawned {
    /// The supervised process (own process group on Unix, marked tree).
    pub process: Supervised,
    /// Its stdin (host → extension frames).
    pub stdin: ChildStdin,
    /// Its stdout (extension → host frames).
    pub stdout: ChildStdout,
}

/// Spawns the extension: cwd = `dir`, argv = exec + args, stderr appended to
/// the log, own process group (HOST-14..17), supervised (see
/// [`crate::process::supervise`]; `sweep_bound` bounds the wait for its leftovers to
/// die). The start marker is written before spawning.
pub fn spawn(
    manifest: &Manifest,
    dir: &Path,
    log: &ExtLog,
    sweep_bound: std::time::Duration,
) -> std::io::Result<Spawned> {
    log.line(&format!(
        "starting {}/{} at {}",
        manifest.name,
        manifest.version,
        crate::util::rfc3339_now()
    ));
    let exec = resolve_exec(dir, &manifest.exec);
    let mut cmd = Command::new(&exec);
    cmd.args(&manifest.args)
        .current_dir(dir)
        .stderr(log.stderr());
    for name in WITHHELD_ENV
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
    {
        cmd.env_remove(name);
    }
    let (process, pipes) = Supervised::spawn(cmd, sweep_bound)?;
    Ok(Spawned {
        process,
        stdin: pipes.stdin,
        stdout: pipes.stdout,
    })
}
