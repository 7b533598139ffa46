//! The readable form of the `ext doctor` report.

use std::io::{self, Write};

use crate::cli::doctor::{Conflict, ConflictKind, ExtReport, Health, Registration, Report};
use crate::cli::style::{table, Style};

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

fn registrations(rows: &mut Vec<Vec<String>>, what: &str, regs: &[Registration], prefix: &str) {
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
