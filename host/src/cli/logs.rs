//! `zot-host ext logs <name> [-f]` (HOST-183): print or follow
//! `$ZOT_HOME/logs/ext-<name>.log` (§16.4). `--follow` is kept from the
//! older CLI (OP-18).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Duration;

use crate::cli::command_line::LogsArgs;
use crate::cli::resolve::{dir_name, installs, Scope};
use crate::cli::{CliError, CliOutcome, Context};
use crate::store::name::ExtName;

/// How often a followed log is checked for new lines.
const POLL: Duration = Duration::from_millis(200);

/// The manifest name whose log to show: the name itself when an install has
/// that manifest name (or none matches), else the manifest name of the one
/// install whose directory is called so.
pub fn log_name(ctx: &Context, name: &str) -> Result<ExtName, CliError> {
    let checked = ExtName::new(name).map_err(|reason| CliError::BadName {
        name: name.to_owned(),
        reason,
    })?;
    let all = installs(ctx, Scope::All);
    if all
        .iter()
        .any(|e| e.manifest.as_ref().is_some_and(|m| m.name == name))
    {
        return Ok(checked);
    }
    let by_dir: Vec<ExtName> = all
        .iter()
        .filter(|e| dir_name(e) == name)
        .filter_map(|e| e.manifest.as_ref().map(|m| m.name.clone()))
        .collect();
    Ok(match by_dir.as_slice() {
        [one] => one.clone(),
        _ => checked,
    })
}

/// Runs `ext logs`.
pub fn run(ctx: &Context, args: &LogsArgs, out: &mut dyn Write) -> Result<CliOutcome, CliError> {
    let name = log_name(ctx, &args.name)?;
    let path = ctx.log_path(&name);
    if !path.is_file() {
        return Err(CliError::NoLog {
            name: args.name.clone(),
            path,
        });
    }
    let mut file = File::open(&path).map_err(|e| CliError::io("open", &path, e))?;
    if !args.follow {
        std::io::copy(&mut file, out).map_err(CliError::Output)?;
        out.flush()?;
        return Ok(CliOutcome::Success);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    rt.block_on(follow(&path, file, out))?;
    Ok(CliOutcome::Success)
}

/// The inode-like identity of a file, to notice a replaced log.
fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

/// Prints the log, then whatever is appended, until Ctrl-C. A truncated or
/// replaced log is read again from its start.
async fn follow(path: &Path, mut file: File, out: &mut dyn Write) -> Result<(), CliError> {
    let mut interrupt = Interrupt::new().map_err(CliError::Runtime)?;
    let mut id = file.metadata().ok().as_ref().and_then(identity);
    let mut pos = copy_from(&mut file, 0, out)?;
    loop {
        tokio::select! {
            _ = interrupt.recv() => return Ok(()),
            _ = tokio::time::sleep(POLL) => {}
        }
        let now = std::fs::metadata(path).ok();
        let replaced = now.as_ref().and_then(identity) != id;
        let shorter = now.as_ref().is_some_and(|m| m.len() < pos);
        if replaced || shorter {
            match File::open(path) {
                Ok(f) => {
                    file = f;
                    id = file.metadata().ok().as_ref().and_then(identity);
                    pos = 0;
                }
                // Gone for now (rotated away): wait for it to come back.
                Err(_) => continue,
            }
        }
        pos = copy_from(&mut file, pos, out)?;
    }
}

/// Copies `file` from `pos` to its current end; returns the new position.
fn copy_from(file: &mut File, pos: u64, out: &mut dyn Write) -> Result<u64, CliError> {
    file.seek(SeekFrom::Start(pos))
        .map_err(|e| CliError::io("read", "the log", e))?;
    let mut buf = Vec::new();
    file.read_to_end(&mut buf)
        .map_err(|e| CliError::io("read", "the log", e))?;
    if !buf.is_empty() {
        out.write_all(&buf)?;
        out.flush()?;
    }
    Ok(pos + buf.len() as u64)
}

/// Ctrl-C (SIGINT), registered before anything is printed so that an
/// interrupt right after the first lines is never missed.
struct Interrupt {
    #[cfg(unix)]
    sig: tokio::signal::unix::Signal,
}

impl Interrupt {
    #[cfg(unix)]
    fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Self {
            sig: signal(SignalKind::interrupt())?,
        })
    }

    #[cfg(not(unix))]
    fn new() -> std::io::Result<Self> {
        Ok(Self {})
    }

    #[cfg(unix)]
    async fn recv(&mut self) {
        self.sig.recv().await;
    }

    #[cfg(not(unix))]
    async fn recv(&mut self) {
        let _ = tokio::signal::ctrl_c().await;
    }
}
