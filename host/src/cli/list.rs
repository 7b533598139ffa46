//! `zot-host ext list` (HOST-177): every discovered extension with its
//! name, version, language, description, state, source and path.

use std::io::Write;

use serde::Serialize;

use crate::cli::command_line::{DiscoveryArgs, ListArgs};
use crate::cli::style::{table, Style};
use crate::cli::{explicit_paths, CliError, CliOutcome, Context};
use crate::store::discovery::{discover, DiscoveryOptions, Entry, EntryState, Source};
use crate::store::manifest::ManifestKind;

/// One row of `ext list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// Manifest name (directory name when the manifest is unusable).
    pub name: String,
    /// Manifest `version`.
    pub version: String,
    /// Manifest `language`.
    pub language: String,
    /// Manifest `description`.
    pub description: String,
    /// `enabled`, `disabled`, `shadowed`, `theme-only`, `skills-only` or `error`.
    pub state: &'static str,
    /// `process`, `theme_only` or `skills_only`; absent when the manifest is unusable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<ManifestKind>,
    /// The directory of the extension that wins, when shadowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<String>,
    /// Why the manifest is unusable, when `state` is `error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `explicit`, `project` or `global`.
    pub source: Source,
    /// The extension directory.
    pub path: String,
}

/// The state word of an entry.
pub fn state_word(e: &Entry) -> &'static str {
    match (&e.state, e.kind) {
        (EntryState::Invalid(_), _) => "error",
        (EntryState::Disabled, _) => "disabled",
        (EntryState::Shadowed { .. }, _) => "shadowed",
        (EntryState::Load, Some(ManifestKind::ThemeOnly)) => "theme-only",
        (EntryState::Load, Some(ManifestKind::SkillsOnly)) => "skills-only",
        (EntryState::Load, _) => "enabled",
    }
}

/// The rows for a discovery.
pub fn items(entries: &[Entry]) -> Vec<Item> {
    entries
        .iter()
        .map(|e| {
            let m = e.manifest.as_ref();
            let field = |f: fn(&crate::store::manifest::Manifest) -> &String| {
                m.map(|m| f(m).clone()).unwrap_or_default()
            };
            Item {
                name: e.name(),
                version: field(|m| &m.version),
                language: field(|m| &m.language),
                description: field(|m| &m.description),
                state: state_word(e),
                kind: e.kind,
                shadowed_by: match &e.state {
                    EntryState::Shadowed { by } => Some(by.display().to_string()),
                    _ => None,
                },
                error: match &e.state {
                    EntryState::Invalid(err) => Some(err.to_string()),
                    _ => None,
                },
                source: e.source,
                path: e.dir.display().to_string(),
            }
        })
        .collect()
}

/// Discovery options for list / doctor: the context plus `--ext` / `--no-ext`.
pub fn options(ctx: &Context, d: &DiscoveryArgs) -> DiscoveryOptions {
    DiscoveryOptions {
        explicit: explicit_paths(&d.ext),
        no_discovery: d.no_ext,
        ..ctx.discovery()
    }
}

/// Runs `ext list`.
pub fn run(ctx: &Context, args: &ListArgs, out: &mut dyn Write) -> Result<CliOutcome, CliError> {
    let found = discover(&options(ctx, &args.discovery));
    let rows = items(&found.entries);
    if args.json {
        let text = serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".into());
        writeln!(out, "{text}")?;
        return Ok(CliOutcome::Success);
    }
    let style = Style::for_stdout();
    if rows.is_empty() {
        writeln!(
            out,
            "No extensions found in {} or {}.\nInstall one with `zot-host ext install <path|git-url>`.",
            ctx.project_root().display(),
            ctx.global_root().display()
        )?;
        return Ok(CliOutcome::Success);
    }
    write_table(&rows, style, out)?;
    Ok(CliOutcome::Success)
}

fn dash(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.to_owned()
    }
}

fn write_table(rows: &[Item], style: Style, out: &mut dyn Write) -> std::io::Result<()> {
    let mut cells = vec![["NAME", "VERSION", "LANGUAGE", "STATE", "SOURCE", "PATH"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect::<Vec<_>>()];
    for r in rows {
        cells.push(vec![
            r.name.clone(),
            dash(&r.version),
            dash(&r.language),
            r.state.to_owned(),
            r.source.label().to_owned(),
            r.path.clone(),
        ]);
    }
    let lines = table(&cells);
    let indent = " ".repeat(2);
    writeln!(out, "{}", style.bold(&lines[0]))?;
    for (r, line) in rows.iter().zip(&lines[1..]) {
        let line = match r.state {
            "error" => style.bad(line),
            "disabled" | "shadowed" => style.dim(line),
            _ => line.clone(),
        };
        writeln!(out, "{line}")?;
        if !r.description.is_empty() {
            writeln!(out, "{indent}{}", style.dim(&r.description))?;
        }
        if let Some(by) = &r.shadowed_by {
            let winner = rows
                .iter()
                .find(|w| &w.path == by)
                .map(|w| format!(" ({})", w.source.label()))
                .unwrap_or_default();
            writeln!(out, "{indent}shadowed by {by}{winner}")?;
        }
        if let Some(err) = &r.error {
            writeln!(out, "{indent}{}", style.bad(err))?;
        }
    }
    Ok(())
}
