//! The `ext doctor` report: what it holds (serialized as is by `--json`)
//! and its readable form. `doctor` gathers it.

use std::io::{self, Write};

use serde::Serialize;

use crate::cli::staging::Cleaned;
use crate::cli::style::{table, Style};
use crate::store::discovery::Source;

/// How an extension fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    /// Loaded and ready, nothing to say.
    Ok,
    /// Works, with something to look at.
    Warning,
    /// Broken: doctor exits non-zero.
    Problem,
    /// Not loaded on purpose (disabled, shadowed).
    Info,
}

/// One registration attempt of an extension.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegistrationReport {
    /// Name as registered.
    pub name: String,
    /// Whether it is the active registration.
    pub active: bool,
    /// Why not, when inactive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What doctor found out about one discovered directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtReport {
    /// Manifest name (directory name when the manifest is unusable).
    pub name: String,
    /// Manifest version.
    pub version: String,
    /// Manifest language.
    pub language: String,
    /// Where it was found.
    pub source: Source,
    /// The extension directory.
    pub dir: String,
    /// `ready`, `auto_ready`, `timed_out`, `exited`, `load_error`,
    /// `manifest_error`, `disabled`, `shadowed`, `theme_only`, `skills_only`.
    pub state: &'static str,
    /// Overall verdict.
    pub health: Health,
    /// The winner's directory, when shadowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadowed_by: Option<String>,
    /// The manifest or load error (exit status or signal included).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The configured `exec`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub exec: String,
    /// The stderr log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// The last stderr lines of a process that failed to start.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
    /// What to run to fix a failed start, when doctor knows
    /// ([`crate::cli::doctor_fix`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// Command registrations.
    pub commands: Vec<RegistrationReport>,
    /// Tool registrations.
    pub tools: Vec<RegistrationReport>,
    /// Diagnostics recorded by the host (malformed frames, name mismatch, ...).
    pub warnings: Vec<String>,
    /// Registrations refused after start-up, as its log says
    /// ([`crate::cli::doctor_refused`]): each one is a problem.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
}

/// What kind of registration conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConflictKind {
    /// A command that differs only in case from an active one.
    CaseClash,
    /// A command or tool named like a built-in one.
    Builtin,
    /// The same command or tool name as an active registration.
    Duplicate,
    /// An invalid name or unknown exposure: skipped.
    Invalid,
}

/// The registration that won a conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Winner {
    /// Its extension (`built-in` for built-ins).
    pub ext: String,
    /// Its spelling.
    pub name: String,
}

/// A registration that is not active because of another one (or its name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    /// Kind.
    pub kind: ConflictKind,
    /// `command` or `tool`.
    #[serde(rename = "type")]
    pub what: &'static str,
    /// The extension whose registration lost.
    pub ext: String,
    /// The name it registered.
    pub name: String,
    /// What holds the name, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<Winner>,
    /// The host's diagnostic.
    pub message: String,
}

/// Counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Summary {
    /// Extensions loaded and ready without remarks.
    pub healthy: usize,
    /// Things to look at.
    pub warnings: usize,
    /// Broken things.
    pub problems: usize,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// No problem found.
    pub ok: bool,
    /// The project directory.
    pub cwd: String,
    /// `$ZOT_HOME`.
    pub zot_home: String,
    /// Counts.
    pub summary: Summary,
    /// Every discovered directory, in load order.
    pub extensions: Vec<ExtReport>,
    /// Registration conflicts.
    pub conflicts: Vec<Conflict>,
    /// Host warnings not tied to one extension.
    pub warnings: Vec<String>,
    /// What was cleaned up after interrupted installs and removals.
    pub cleaned: Vec<Cleaned>,
}

fn marker(h: Health, style: Style) -> String {
    match h {
        Health::Ok => style.ok("✓"),
        Health::Warning => style.warn("!"),
        Health::Problem => style.bad("✗"),
        Health::Info => style.dim("-"),
    }
}

fn state_text(e: &ExtReport) -> String {
    match e.state {
        "ready" => "ready".into(),
        "auto_ready" => "auto-ready: sent no `ready` frame and was idle for 250 ms (legacy SDK?); \
             send `ready` after registering"
            .into(),
        "timed_out" => "timed out: not ready within the 3 s start-up grace".into(),
        "exited" => "exited during start-up".into(),
        "load_error" => "failed to start".into(),
        "manifest_error" => "manifest error".into(),
        "disabled" => format!(
            "disabled (turn it on with `zot-host ext enable {}`)",
            e.name
        ),
        "shadowed" => "shadowed".into(),
        "theme_only" => "theme-only (not spawned, ready at once)".into(),
        "skills_only" => "skills-only (not spawned, ready at once)".into(),
        other => other.to_owned(),
    }
}

fn title(e: &ExtReport, style: Style) -> String {
    let mut t = style.bold(&e.name);
    if !e.version.is_empty() {
        t.push(' ');
        t.push_str(&e.version);
    }
    format!("{t} ({})", e.source.label())
}

fn registrations(
    rows: &mut Vec<Vec<String>>,
    what: &str,
    regs: &[RegistrationReport],
    prefix: &str,
) {
    for r in regs {
        let state = if r.active {
            "active".to_owned()
        } else {
            format!("inactive: {}", r.note.as_deref().unwrap_or("-"))
        };
        rows.push(vec![what.to_owned(), format!("{prefix}{}", r.name), state]);
    }
}

fn write_ext(e: &ExtReport, style: Style, out: &mut dyn Write) -> io::Result<()> {
    let ind = "    ";
    writeln!(
        out,
        "{} {}: {}",
        marker(e.health, style),
        title(e, style),
        state_text(e)
    )?;
    if let Some(by) = &e.shadowed_by {
        writeln!(out, "{ind}by {by} (the same name wins there)")?;
    }
    if let Some(err) = &e.error {
        for line in err.lines() {
            writeln!(out, "{ind}{}", style.bad(line))?;
        }
    }
    if e.health != Health::Info || e.state == "manifest_error" {
        writeln!(out, "{ind}{}", style.dim(&format!("dir  {}", e.dir)))?;
    }
    if !e.exec.is_empty() && matches!(e.state, "load_error" | "exited" | "timed_out") {
        let lang = if e.language.is_empty() {
            String::new()
        } else {
            format!(" ({})", e.language)
        };
        writeln!(out, "{ind}exec {}{lang}", e.exec)?;
    }
    if let Some(log) = &e.log {
        let hint = if e.health == Health::Problem {
            format!("  (`zot-host ext logs {}`)", e.name)
        } else {
            String::new()
        };
        writeln!(out, "{ind}{}{hint}", style.dim(&format!("log  {log}")))?;
    }
    if !e.stderr.is_empty() {
        writeln!(out, "{ind}stderr, last lines:")?;
        for line in &e.stderr {
            writeln!(out, "{ind}  {}", style.bad(line))?;
        }
    }
    if let Some(fix) = &e.fix {
        writeln!(out, "{ind}fix: {fix}")?;
    }
    let mut rows = Vec::new();
    registrations(&mut rows, "command", &e.commands, "/");
    registrations(&mut rows, "tool", &e.tools, "");
    for line in table(&rows) {
        let line = if line.contains("inactive: ") {
            style.bad(&line)
        } else {
            line
        };
        writeln!(out, "{ind}{line}")?;
    }
    for r in &e.refused {
        writeln!(out, "{ind}{}", style.bad(&format!("refused: {r}")))?;
    }
    for w in &e.warnings {
        writeln!(out, "{ind}{}", style.warn(&format!("warning: {w}")))?;
    }
    Ok(())
}

fn conflict_text(c: &Conflict) -> String {
    let slash = if c.what == "command" { "/" } else { "" };
    let who = format!("{} {slash}{} of {}", c.what, c.name, c.ext);
    let winner = c
        .winner
        .as_ref()
        .map(|w| format!("{slash}{} of {}", w.name, w.ext));
    match (c.kind, winner) {
        (ConflictKind::CaseClash, Some(w)) => {
            format!("{who}: case clash with {w} (command names are case-insensitive)")
        }
        (ConflictKind::Builtin, _) => {
            format!(
                "{who}: shadowed by the built-in {}; pick another name",
                c.what
            )
        }
        (ConflictKind::Duplicate, Some(w)) => {
            format!("{who}: duplicate of {w}, which loads first")
        }
        (ConflictKind::Invalid, _) => format!("{who}: skipped: {}", c.message),
        (_, None) => format!("{who}: {}", c.message),
    }
}

/// Writes the readable report.
pub fn render(r: &Report, style: Style, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "{}",
        style.dim(&format!("project {}  ZOT_HOME {}", r.cwd, r.zot_home))
    )?;
    if r.extensions.is_empty() {
        writeln!(
            out,
            "No extensions found. Install one with `zot-host ext install <path|git-url>`."
        )?;
    }
    for e in &r.extensions {
        write_ext(e, style, out)?;
    }
    if !r.conflicts.is_empty() {
        writeln!(out, "\n{}", style.bold("Conflicts"))?;
        for c in &r.conflicts {
            writeln!(out, "{} {}", style.bad("✗"), conflict_text(c))?;
        }
    }
    if !r.warnings.is_empty() {
        writeln!(out, "\n{}", style.bold("Warnings"))?;
        for w in &r.warnings {
            writeln!(out, "{} {w}", style.warn("!"))?;
        }
    }
    if !r.cleaned.is_empty() {
        writeln!(out, "\n{}", style.bold("Cleaned up"))?;
        for c in &r.cleaned {
            writeln!(out, "- {}", c.describe())?;
        }
    }
    let s = r.summary;
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let line = format!(
        "\n{}, {}, {}.",
        plural(s.healthy, "healthy", "healthy"),
        plural(s.warnings, "warning", "warnings"),
        plural(s.problems, "problem", "problems")
    );
    if r.ok {
        writeln!(out, "{}", style.ok(&line))?;
    } else {
        writeln!(out, "{}", style.bad(&line))?;
        writeln!(
            out,
            "Fix the problems above, then run `zot-host ext doctor` again."
        )?;
    }
    Ok(())
}
