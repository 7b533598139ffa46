//! `zot-host ext doctor` (HOST-184): the session's discovery and start-up,
//! reported instead of failing soft.
//!
//! Doctor builds a [`Manager`] exactly as a session does and calls
//! [`Manager::load`] (spawn, handshake, readiness wait), then reads what
//! happened: the discovery it acted on, load errors, each extension's ready
//! state and diagnostics, and every registration attempt of the registry. It
//! then shuts the extensions down with the normal procedure (§16.7).

use std::io::Write;
use std::sync::Arc;

use zot_protocol::validate::{command_key, validate_command_name, validate_tool_name};

use crate::cli::command_line::DoctorArgs;
use crate::cli::doctor_refused::{self, LogMarks};
use crate::cli::doctor_report::{
    render, Conflict, ConflictKind, ExtReport, Health, RegistrationReport, Report, Summary, Winner,
};
use crate::cli::staging::sweep;
use crate::cli::style::Style;
use crate::cli::{list, CliError, CliOutcome, Context};
use crate::process::extension::LoadedExtension;
use crate::process::hello::LoadError;
use crate::process::ready::ReadyState;
use crate::process::registry::{
    RegRecord, Registry, BUILTIN_COMMANDS, BUILTIN_TOOLS, DISCONNECTED_NOTE,
};
use crate::store::discovery::{Entry, EntryState};
use crate::store::manifest::ManifestKind;
use crate::store::name::ExtName;
use crate::transcript::{Observation, Transcript};
use crate::{HostConfig, Manager};

/// Diagnostics that the ready state already reports (not repeated as warnings).
const READY_NOTES: [&str; 2] = [
    "no ready frame; auto-ready after idle",
    "timed out waiting for ready frame",
];

/// Runs `ext doctor`.
pub fn run(ctx: &Context, args: &DoctorArgs, out: &mut dyn Write) -> Result<CliOutcome, CliError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    let report = rt.block_on(async {
        // An interrupt while extensions run kills them before exiting.
        let bound = zot_protocol::limits::SIGTERM_TO_SIGKILL;
        if let Err(e) = crate::process::interrupts::watch(None, bound) {
            tracing::warn!("cannot watch for interrupts: {e}");
        }
        diagnose(ctx, &list::options(ctx, &args.discovery)).await
    });
    if args.json {
        let text = serde_json::to_string_pretty(&report).unwrap_or_else(|_| "{}".into());
        writeln!(out, "{text}")?;
    } else {
        render(&report, Style::for_stdout(), out)?;
    }
    Ok(if report.ok {
        CliOutcome::Success
    } else {
        CliOutcome::Failure
    })
}

/// Loads every extension like a session, collects the report, shuts down.
pub async fn diagnose(ctx: &Context, opts: &crate::store::discovery::DiscoveryOptions) -> Report {
    let cleaned = sweep(&ctx.zot_home, &[ctx.global_root(), ctx.project_root()]);
    let cfg = HostConfig::new(ctx.cwd.clone(), ctx.zot_home.clone());
    let transcript = Transcript::new();
    let marks = LogMarks::take(&cfg.log_dir());
    let mgr = Manager::new(cfg.clone(), opts.clone(), None, transcript.clone());
    mgr.load(cfg.timeouts.ready_grace).await;
    let found = mgr.last_discovery();
    let exts = mgr.extensions();
    let errors = mgr.load_errors();
    let (records, conflicts) = {
        let reg = mgr
            .shared()
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        (reg.records().to_vec(), conflicts(&reg))
    };
    let mut extensions: Vec<ExtReport> = found
        .entries
        .iter()
        .map(|e| ext_report(&cfg, e, &exts, &errors, &records))
        .collect();
    mgr.shutdown(cfg.timeouts.shutdown_grace).await;
    // Read once every process is gone: all it wrote is in its log.
    let refused = doctor_refused::apply(&marks, &mut extensions);
    let warnings: Vec<String> = transcript
        .snapshot()
        .into_iter()
        .filter_map(|o| match o {
            Observation::Warning { text } => Some(text),
            _ => None,
        })
        .collect();
    // A staging folder that could not be cleaned needs a look.
    let unclean = cleaned.iter().filter(|c| c.error.is_some()).count();
    let mut summary = Summary {
        warnings: warnings.len() + unclean,
        problems: conflicts.len() + refused,
        ..Summary::default()
    };
    for e in &extensions {
        // Conflicts and refusals are counted once each, above.
        summary.healthy += usize::from(e.health == Health::Ok);
        summary.problems += usize::from(is_broken_state(e.state));
        summary.warnings += e.warnings.len() + usize::from(e.state == "auto_ready");
    }
    Report {
        ok: summary.problems == 0,
        cwd: ctx.cwd.display().to_string(),
        zot_home: ctx.zot_home.display().to_string(),
        summary,
        extensions,
        conflicts,
        warnings,
        cleaned,
    }
}

/// Whether a state means the extension is broken (doctor exits non-zero).
pub fn is_broken_state(state: &str) -> bool {
    matches!(
        state,
        "manifest_error" | "load_error" | "timed_out" | "exited"
    )
}

fn registrations(records: &[RegRecord], ext: &str, kind: &str) -> Vec<RegistrationReport> {
    records
        .iter()
        .filter(|r| r.ext == ext && r.kind == kind)
        .map(|r| RegistrationReport {
            name: r.name.clone(),
            active: r.active,
            note: r.note.clone(),
        })
        .collect()
}

fn is_conflict(r: &RegistrationReport) -> bool {
    !r.active && r.note.as_deref() != Some(DISCONNECTED_NOTE)
}

fn ext_report(
    cfg: &HostConfig,
    e: &Entry,
    exts: &[Arc<LoadedExtension>],
    errors: &[LoadError],
    records: &[RegRecord],
) -> ExtReport {
    let name = e.name();
    let m = e.manifest.as_ref();
    // An invalid manifest has no checked name; its directory's basename may
    // still name an earlier log.
    let checked = m
        .map(|m| m.name.clone())
        .or_else(|| ExtName::new(&name).ok());
    let log_path = checked.as_ref().map(|n| cfg.log_path(n));
    let existing_log = log_path
        .as_ref()
        .filter(|p| p.exists())
        .map(|p| p.display().to_string());
    let mut r = ExtReport {
        name: name.clone(),
        version: m.map(|m| m.version.clone()).unwrap_or_default(),
        language: m.map(|m| m.language.clone()).unwrap_or_default(),
        source: e.source,
        dir: e.dir.display().to_string(),
        state: "",
        health: Health::Info,
        shadowed_by: None,
        error: None,
        exec: m.map(|m| m.exec.clone()).unwrap_or_default(),
        log: None,
        stderr: Vec::new(),
        fix: None,
        commands: Vec::new(),
        tools: Vec::new(),
        warnings: Vec::new(),
        refused: Vec::new(),
    };
    match &e.state {
        EntryState::Invalid(err) => {
            r.state = "manifest_error";
            r.health = Health::Problem;
            r.error = Some(err.to_string());
            r.log = existing_log;
        }
        EntryState::Disabled => {
            r.state = "disabled";
            r.log = existing_log;
        }
        EntryState::Shadowed { by } => {
            // No log: `ext-<name>.log` belongs to the winner.
            r.state = "shadowed";
            r.shadowed_by = Some(by.display().to_string());
        }
        EntryState::Load => match e.kind {
            Some(ManifestKind::ThemeOnly) => {
                r.state = "theme_only";
                r.health = Health::Ok;
            }
            Some(ManifestKind::SkillsOnly) => {
                r.state = "skills_only";
                r.health = Health::Ok;
            }
            _ => loaded_report(&mut r, e, exts, errors, records, log_path),
        },
    }
    r
}

fn loaded_report(
    r: &mut ExtReport,
    e: &Entry,
    exts: &[Arc<LoadedExtension>],
    errors: &[LoadError],
    records: &[RegRecord],
    log_path: Option<std::path::PathBuf>,
) {
    r.log = log_path.map(|p| p.display().to_string());
    let dir = e.dir.display().to_string();
    let Some(ext) = exts.iter().find(|x| x.dir == e.dir) else {
        r.state = "load_error";
        r.health = Health::Problem;
        let err = errors.iter().find(|le| le.dir == dir);
        r.error = Some(
            err.map(|le| le.cause.clone())
                .unwrap_or_else(|| "did not load".into()),
        );
        if let Some(le) = err {
            r.log = le.log.clone();
            r.stderr = le.stderr.clone();
        }
        r.fix = crate::cli::doctor_fix::suggest(&crate::cli::doctor_fix::Failure {
            dir: &e.dir,
            exec: &r.exec,
            error: r.error.as_deref().unwrap_or_default(),
            stderr: &r.stderr,
        });
        return;
    };
    r.commands = registrations(records, &ext.name, "command");
    r.tools = registrations(records, &ext.name, "tool");
    let notes: Vec<&str> = records
        .iter()
        .filter(|x| x.ext == ext.name)
        .filter_map(|x| x.note.as_deref())
        .collect();
    r.warnings = ext
        .diagnostics()
        .into_iter()
        .filter(|d| !notes.contains(&d.as_str()) && !READY_NOTES.contains(&d.as_str()))
        .collect();
    (r.state, r.health) = match ext.ready_state() {
        // A process that went away after becoming ready is broken too.
        _ if !ext.is_connected() => ("exited", Health::Problem),
        ReadyState::Ready => ("ready", Health::Ok),
        ReadyState::AutoReady => ("auto_ready", Health::Warning),
        ReadyState::TimedOut | ReadyState::Pending => ("timed_out", Health::Problem),
        ReadyState::Exited => ("exited", Health::Problem),
    };
    if r.state == "exited" {
        r.error = Some(format!(
            "disconnected during start-up ({}); its log says how it ended",
            ext.disconnect_reason().unwrap_or_default()
        ));
    }
    let conflicted = r.commands.iter().chain(&r.tools).any(is_conflict);
    if conflicted || r.health == Health::Problem {
        r.health = Health::Problem;
    } else if !r.warnings.is_empty() && r.health == Health::Ok {
        r.health = Health::Warning;
    }
}

/// Classifies every inactive registration that lost to another one or to
/// its own name (HOST-35..43).
pub fn conflicts(reg: &Registry) -> Vec<Conflict> {
    let mut out = Vec::new();
    for rec in reg.records() {
        let note = rec.note.clone().unwrap_or_default();
        if rec.active || note == DISCONNECTED_NOTE {
            continue;
        }
        let (kind, winner) = if rec.kind == "command" {
            let key = command_key(&rec.name);
            if validate_command_name(&rec.name).is_err() {
                (ConflictKind::Invalid, None)
            } else if BUILTIN_COMMANDS.contains(&key.as_str()) {
                (ConflictKind::Builtin, Some(builtin(&key)))
            } else {
                match reg.command(&rec.name) {
                    Some(c) if c.name != rec.name => (
                        ConflictKind::CaseClash,
                        Some(Winner {
                            ext: c.ext.clone(),
                            name: c.name.clone(),
                        }),
                    ),
                    Some(c) => (
                        ConflictKind::Duplicate,
                        Some(Winner {
                            ext: c.ext.clone(),
                            name: c.name.clone(),
                        }),
                    ),
                    None => (ConflictKind::Duplicate, None),
                }
            }
        } else if validate_tool_name(&rec.name).is_err() || note.contains("unknown exposure") {
            (ConflictKind::Invalid, None)
        } else if BUILTIN_TOOLS.contains(&rec.name.as_str()) {
            (ConflictKind::Builtin, Some(builtin(&rec.name)))
        } else {
            let winner = reg.tool(&rec.name).map(|t| Winner {
                ext: t.ext.clone(),
                name: t.def.name.clone(),
            });
            (ConflictKind::Duplicate, winner)
        };
        out.push(Conflict {
            kind,
            what: rec.kind,
            ext: rec.ext.clone(),
            name: rec.name.clone(),
            winner,
            message: note,
        });
    }
    out
}

fn builtin(name: &str) -> Winner {
    Winner {
        ext: "built-in".into(),
        name: name.to_owned(),
    }
}
