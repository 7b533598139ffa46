//! `ext remove`, `ext enable`, `ext disable` (HOST-180..182).
//!
//! All three find one install by manifest or directory name across project
//! and global installs ([`crate::cli::resolve`]); an ambiguous name changes
//! nothing. `remove` asks for confirmation unless `--yes`/`-y` and has the
//! alias `rm` (OP-18: kept from the older CLI); without a terminal on stdin
//! and without `--yes` it refuses.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use crate::cli::command_line::{NameArgs, RemoveArgs};
use crate::cli::json_edit::{get_bool, set_bool};
use crate::cli::lock::lock_names;
use crate::cli::resolve::{dir_name, find_one, Scope};
use crate::cli::staging::{sweep, Staging, REMOVE_PREFIX};
use crate::cli::{CliError, CliOutcome, Context};
use crate::store::discovery::{discover, EntryState};
use crate::store::manifest::MANIFEST_FILE;

/// Runs `ext remove`.
pub fn remove(
    ctx: &Context,
    args: &RemoveArgs,
    out: &mut dyn Write,
) -> Result<CliOutcome, CliError> {
    for c in sweep(&ctx.zot_home, &[ctx.global_root(), ctx.project_root()]) {
        writeln!(out, "Cleaned up: {}.", c.describe())?;
    }
    let entry = find_one(ctx, &args.name, Scope::from(&args.scope))?;
    let name = entry.name();
    let what = format!(
        "{name} ({}) at {}",
        entry.source.label(),
        entry.dir.display()
    );
    if !args.yes {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return Err(CliError::NeedsConfirmation { name });
        }
        eprint!("Remove {what} and everything in it? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        stdin
            .lock()
            .read_line(&mut answer)
            .map_err(|e| CliError::io("read the answer from", "stdin", e))?;
        if !matches!(answer.trim().to_lowercase().as_str(), "y" | "yes") {
            writeln!(out, "Nothing removed.")?;
            return Ok(CliOutcome::Failure);
        }
    }
    let _locks = lock_names(&ctx.zot_home, &[name.as_str(), &dir_name(&entry)])?;
    if entry.dir.symlink_metadata().is_err() {
        // Another command removed it while we asked.
        writeln!(out, "{what} is already gone.")?;
        return Ok(CliOutcome::Success);
    }
    delete_install(&ctx.zot_home, &entry.dir)?;
    writeln!(out, "Removed {what}.")?;
    Ok(CliOutcome::Success)
}

/// Deletes an install: a symlinked install loses only its link; a directory
/// is first renamed into a staging directory beside it (so a half-deleted
/// tree is never discovered, and one a killed command left is swept away
/// later), then deleted.
fn delete_install(zot_home: &Path, dir: &Path) -> Result<(), CliError> {
    let meta = dir
        .symlink_metadata()
        .map_err(|e| CliError::io("inspect", dir, e))?;
    if meta.file_type().is_symlink() {
        return std::fs::remove_file(dir).map_err(|e| CliError::io("remove", dir, e));
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    let doomed = Staging::new(zot_home, parent, REMOVE_PREFIX)
        .ok()
        .and_then(|t| {
            let target = t.path().join(dir_basename(dir));
            std::fs::rename(dir, &target).ok().map(|_| t)
        });
    match doomed {
        // Dropping the staging directory deletes the install inside it.
        Some(t) => t.close().map_err(|e| CliError::io("remove", dir, e)),
        None => std::fs::remove_dir_all(dir).map_err(|e| CliError::io("remove", dir, e)),
    }
}

fn dir_basename(dir: &Path) -> std::ffi::OsString {
    dir.file_name().map(ToOwned::to_owned).unwrap_or_default()
}

/// Runs `ext enable` (`value` true) or `ext disable` (false).
pub fn set_enabled(
    ctx: &Context,
    args: &NameArgs,
    value: bool,
    out: &mut dyn Write,
) -> Result<CliOutcome, CliError> {
    let entry = find_one(ctx, &args.name, Scope::from(&args.scope))?;
    let name = entry.name();
    let path = entry.dir.join(MANIFEST_FILE);
    let text = crate::store::manifest::read_manifest(&entry.dir)?;
    let word = if value { "enabled" } else { "disabled" };
    // Absent means enabled (§16.2): enabling then changes nothing.
    let absent =
        serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| v.get("enabled").is_none());
    if get_bool(&text, "enabled") == Some(value) || (value && absent) {
        writeln!(out, "{name} is already {word} ({}).", path.display())?;
        return Ok(CliOutcome::Success);
    }
    let edited = set_bool(&text, "enabled", value).map_err(|source| CliError::Edit {
        path: path.clone(),
        source,
    })?;
    write_keeping_mode(&path, &edited)?;
    writeln!(out, "{name} is now {word} ({}).", path.display())?;
    if value {
        let found = discover(&ctx.discovery());
        let state = found
            .entries
            .iter()
            .find(|e| e.dir == entry.dir)
            .map(|e| &e.state);
        if let Some(EntryState::Shadowed { by }) = state {
            writeln!(
                out,
                "Note: {} has the same name and wins over it here; see `zot-host ext list`.",
                by.display()
            )?;
        }
    }
    Ok(CliOutcome::Success)
}

/// Replaces the file's content through a temporary file in the same
/// directory and a rename (readers never see half a manifest), keeping its
/// permissions. A symlinked manifest is written through the link.
fn write_keeping_mode(path: &Path, text: &str) -> Result<(), CliError> {
    let meta = path
        .symlink_metadata()
        .map_err(|e| CliError::io("inspect", path, e))?;
    if meta.file_type().is_symlink() {
        return std::fs::write(path, text).map_err(|e| CliError::io("write", path, e));
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".extension.json.")
        .tempfile_in(dir)
        .map_err(|e| CliError::io("create a temporary file in", dir, e))?;
    tmp.write_all(text.as_bytes())
        .map_err(|e| CliError::io("write", tmp.path().to_owned(), e))?;
    std::fs::set_permissions(tmp.path(), meta.permissions())
        .map_err(|e| CliError::io("set permissions of", tmp.path().to_owned(), e))?;
    tmp.persist(path)
        .map_err(|e| CliError::io("replace", path, e.error))?;
    Ok(())
}
