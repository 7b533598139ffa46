//! The build a language needs before its extension can restart: `cargo
//! build` beside a `Cargo.toml` (`--release` when the manifest runs a
//! release binary), `tsc -p .` beside a `tsconfig.json` (the folder's own
//! `node_modules/.bin/tsc`, else the one on `PATH`); nothing otherwise
//! (JavaScript, Python: the restart reads the new sources).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::AsyncReadExt;

/// What a build printed is kept up to this many bytes (its end: a
/// compiler's summary comes last).
pub const MAX_OUTPUT: usize = 64 * 1024;

/// A build to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

impl Build {
    /// How to show it.
    pub fn describe(&self) -> String {
        let name = self
            .program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        std::iter::once(name)
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Finds `name` in the `PATH` directories.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The build `dir` needs (`Ok(None)`: none), or why it cannot be run.
pub fn plan(dir: &Path, colour: bool) -> Result<Option<Build>, String> {
    if dir.join("Cargo.toml").is_file() {
        let release = crate::store::manifest::read_manifest(dir)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|m| m.get("exec")?.as_str().map(|e| e.contains("/release/")))
            .unwrap_or(false);
        let mut args = vec!["build".to_owned()];
        if release {
            args.push("--release".into());
        }
        if colour {
            args.push("--color=always".into());
        }
        let program = on_path("cargo").ok_or("Cargo.toml found, but no cargo on PATH")?;
        return Ok(Some(Build { program, args }));
    }
    if dir.join("tsconfig.json").is_file() {
        let local = dir.join("node_modules/.bin/tsc");
        let program = if local.is_file() {
            local
        } else {
            on_path("tsc").ok_or(
                "tsconfig.json found, but no tsc in node_modules/.bin or on PATH (npm install --save-dev typescript)",
            )?
        };
        let mut args = vec!["-p".to_owned(), ".".into()];
        if colour {
            args.push("--pretty".into());
        }
        return Ok(Some(Build { program, args }));
    }
    Ok(None)
}

/// Keeps the last [`MAX_OUTPUT`] bytes written to it.
#[derive(Default)]
struct Tail(Vec<u8>);

impl Tail {
    fn push(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
        if self.0.len() > MAX_OUTPUT {
            let cut = self.0.len() - MAX_OUTPUT;
            self.0.drain(..cut);
        }
    }
}

async fn drain(
    mut r: impl tokio::io::AsyncRead + Unpin,
    tail: std::sync::Arc<std::sync::Mutex<Tail>>,
) {
    let mut buf = [0u8; 8192];
    while let Ok(n) = r.read(&mut buf).await {
        if n == 0 {
            break;
        }
        tail.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(&buf[..n]);
    }
}

/// Runs `build` in `dir`: `Ok` with what it printed when it succeeded,
/// `Err` with what it printed (its end) and how it ended when it failed.
pub async fn run(build: &Build, dir: &Path) -> Result<String, String> {
    let mut child = tokio::process::Command::new(&build.program)
        .args(&build.args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", build.program.display()))?;
    let tail = std::sync::Arc::new(std::sync::Mutex::new(Tail::default()));
    let out = child.stdout.take().map(|o| drain(o, tail.clone()));
    let err = child.stderr.take().map(|e| drain(e, tail.clone()));
    let (status, _, _) = tokio::join!(
        child.wait(),
        async {
            if let Some(o) = out {
                o.await
            }
        },
        async {
            if let Some(e) = err {
                e.await
            }
        }
    );
    let text = {
        let t = tail.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&t.0).trim_end().to_owned()
    };
    match status {
        Ok(s) if s.success() => Ok(text),
        Ok(s) => Err(format!("{text}\n{} failed ({s})", build.describe())),
        Err(e) => Err(format!("{text}\n{}: {e}", build.describe())),
    }
}
