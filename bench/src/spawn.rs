//! Starting an extension the way a host does: read its `extension.json`,
//! resolve `exec`, run it in its own directory and process group with stdin
//! and stdout piped, pinned to the placement's core.

use std::fs::OpenOptions;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use serde::Deserialize;

use crate::affinity;
use crate::error::{Error, Result};

/// The fields of `extension.json` the harness uses.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    /// Extension name.
    pub name: String,
    /// Program to run (see [`resolve_exec`]).
    #[serde(default)]
    pub exec: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
}

impl Manifest {
    /// Reads `<dir>/extension.json`.
    pub fn read(dir: &Path) -> Result<Self> {
        let path = dir.join("extension.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| Error::new(format!("{}: {e}", path.display())))
    }
}

/// Resolves a manifest `exec` as hosts do (docs/protocol.md §16.3): an absolute
/// path as is; a path containing `/` relative to the extension directory; a
/// bare name on `PATH`. The result must be an executable file.
pub fn resolve_exec(exec: &str, dir: &Path) -> Result<PathBuf> {
    if exec.is_empty() {
        return Err(Error::new("manifest has no exec"));
    }
    let p = Path::new(exec);
    let candidate = if p.is_absolute() {
        p.to_path_buf()
    } else if exec.contains('/') {
        dir.join(p)
    } else {
        let path = std::env::var_os("PATH").unwrap_or_default();
        return std::env::split_paths(&path)
            .map(|d| d.join(exec))
            .find(|c| is_executable(c))
            .map(|found| unshim(&found, dir))
            .ok_or_else(|| Error::new(format!("`{exec}` not found on PATH")));
    };
    if is_executable(&candidate) {
        Ok(candidate)
    } else {
        Err(Error::new(format!(
            "{} does not exist or is not executable",
            candidate.display()
        )))
    }
}

/// Replaces a pyenv shim (a bash script that looks up and execs the real
/// interpreter, adding tens of milliseconds to every start) by the
/// interpreter it would run from `dir`, so that interpreter start-up is
/// compared like for like (the SDK launchers run the interpreter directly).
/// Anything else is returned unchanged.
pub fn unshim(found: &Path, dir: &Path) -> PathBuf {
    let is_pyenv_shim = found
        .parent()
        .is_some_and(|p| p.ends_with(".pyenv/shims") || p.ends_with("pyenv/shims"));
    let Some(name) = found.file_name().filter(|_| is_pyenv_shim) else {
        return found.to_path_buf();
    };
    Command::new("pyenv")
        .arg("which")
        .arg(name)
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| is_executable(p))
        .unwrap_or_else(|| found.to_path_buf())
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Everything needed to start one target process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    /// Resolved program.
    pub program: PathBuf,
    /// Arguments.
    pub args: Vec<String>,
    /// Working directory (the extension directory).
    pub cwd: PathBuf,
}

impl LaunchSpec {
    /// The launch of the extension in `dir`; `exec_override` replaces the
    /// manifest's `exec` (used to run release builds of Rust extensions whose
    /// manifests point at debug builds).
    pub fn for_extension(dir: &Path, exec_override: Option<&Path>) -> Result<Self> {
        let manifest = Manifest::read(dir)?;
        let program = match exec_override {
            Some(p) if is_executable(p) => p.to_path_buf(),
            Some(p) => bail!("{} does not exist or is not executable", p.display()),
            None => resolve_exec(&manifest.exec, dir)?,
        };
        Ok(LaunchSpec {
            program,
            args: manifest.args,
            cwd: dir.to_path_buf(),
        })
    }

    /// A plain program (the OS floor), found on `PATH`.
    pub fn program(name: &str, cwd: &Path) -> Result<Self> {
        Ok(LaunchSpec {
            program: resolve_exec(name, cwd)?,
            args: Vec::new(),
            cwd: cwd.to_path_buf(),
        })
    }

    /// Spawns the process on the cores `cpus` (the harness thread is pinned
    /// there for the duration of the spawn, so the child inherits the mask,
    /// then pinned back to `harness_cpus`). stderr is appended to `log`.
    /// Returns the child and the instant just before the spawn.
    pub fn spawn(
        &self,
        cpus: &[usize],
        harness_cpus: &[usize],
        log: &Path,
    ) -> Result<(Child, Instant)> {
        let stderr = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(|e| Error::new(format!("{}: {e}", log.display())))?;
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .current_dir(&self.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0);
        affinity::pin_current_thread(cpus)?;
        let t0 = Instant::now();
        let spawned = cmd.spawn();
        affinity::pin_current_thread(harness_cpus)?;
        let child =
            spawned.map_err(|e| Error::new(format!("spawn {}: {e}", self.program.display())))?;
        Ok((child, t0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_resolution() {
        let dir = Path::new("/");
        assert!(resolve_exec("sh", dir).is_ok());
        assert!(resolve_exec("/bin/sh", Path::new("/nonexistent")).is_ok());
        assert!(resolve_exec("./bin/sh", dir).is_ok());
        assert!(resolve_exec("bin/sh", dir).is_ok());
        assert!(resolve_exec("no-such-program-zot-bench", dir).is_err());
        assert!(resolve_exec("", dir).is_err());
    }
}
