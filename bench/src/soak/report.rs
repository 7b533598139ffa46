//! The soak report: per SDK (and the flood), the counts, the RSS
//! milestones and series, and the targets met or missed.

use serde::Serialize;

use super::options::{SoakOptions, SoakSizes};
use super::plan::{Plan, EVENTS_KEPT};
use super::run::RunReport;
use crate::error::Result;
use crate::memory::mib;
use crate::meta::Meta;

/// Host RSS at the end over its RSS after the first calls, at most.
pub const HOST_GROWTH_MAX: f64 = 1.5;
/// Extension RSS after warm-up over its RSS at the end of it, at most.
pub const EXT_GROWTH_MAX: f64 = 1.2;

/// One target, checked.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// What.
    pub what: String,
    /// Measured.
    pub value: Option<f64>,
    /// Bound.
    pub bound: f64,
    /// Met (`None`: not measurable in this run).
    pub met: Option<bool>,
}

impl Check {
    fn at_most(what: &str, value: Option<f64>, bound: f64) -> Self {
        Check {
            what: what.to_owned(),
            value,
            bound,
            met: value.map(|v| v <= bound),
        }
    }
}

/// One SDK's run (or the flood's).
#[derive(Debug, Clone, Serialize)]
pub struct SdkSoak {
    /// `rust-sdk`, `node-sdk`, `python-sdk` or `flood`.
    pub name: String,
    /// The run, or why it could not start.
    pub run: std::result::Result<RunReport, String>,
    /// The targets.
    pub checks: Vec<Check>,
}

/// The whole soak.
#[derive(Debug, Clone, Serialize)]
pub struct SoakReport {
    /// Machine and build facts.
    pub meta: Meta,
    /// Sizes.
    pub sizes: SoakSizes,
    /// What the script makes the host do.
    pub plan: Plan,
    /// Per SDK.
    pub sdks: Vec<SdkSoak>,
    /// The flood.
    pub flood: Option<SdkSoak>,
    /// Every target met and every run clean.
    pub ok: bool,
}

fn ratio(a: Option<u64>, b: Option<u64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0 => Some(a as f64 / b as f64),
        _ => None,
    }
}

impl SoakReport {
    /// An empty report.
    pub fn new(opts: &SoakOptions, plan: &Plan) -> Self {
        SoakReport {
            meta: Meta::collect(&opts.base.root),
            sizes: opts.sizes.clone(),
            plan: plan.clone(),
            sdks: Vec::new(),
            flood: None,
            ok: false,
        }
    }

    /// Adds an SDK run.
    pub fn push_sdk(&mut self, name: &str, run: Result<RunReport>) {
        self.sdks.push(SdkSoak {
            name: name.to_owned(),
            run: run.map_err(|e| e.to_string()),
            checks: Vec::new(),
        });
    }

    /// Adds the flood run.
    pub fn push_flood(&mut self, run: Result<RunReport>) {
        self.flood = Some(SdkSoak {
            name: "flood".into(),
            run: run.map_err(|e| e.to_string()),
            checks: Vec::new(),
        });
    }

    /// Checks every target and sets `ok`.
    pub fn check(&mut self) {
        let plan = self.plan.clone();
        let mut ok = true;
        for s in &mut self.sdks {
            s.checks = match &s.run {
                Ok(r) => {
                    let m = &r.milestones;
                    let expected = (plan.calls + plan.composes) as u64;
                    vec![
                        Check::at_most(
                            "host RSS at the end ÷ after the first calls",
                            ratio(m.host_end, m.host_baseline),
                            HOST_GROWTH_MAX,
                        ),
                        Check::at_most(
                            "extension RSS after warm-up, largest ÷ at its end",
                            ratio(m.ext_max_after_warmup, m.ext_warm),
                            EXT_GROWTH_MAX,
                        ),
                        Check::at_most("replies lost", Some(r.wire.lost.total() as f64), 0.0),
                        Check::at_most(
                            "tool calls not completed as expected",
                            Some(expected.abs_diff(r.transcript.completed) as f64),
                            0.0,
                        ),
                        Check::at_most(
                            "notes not printed",
                            Some((plan.notes as u64).abs_diff(r.transcript.notes) as f64),
                            0.0,
                        ),
                        Check::at_most(
                            "`/events` count off from the events sent before it",
                            r.wire
                                .events_shown
                                .as_ref()
                                .and_then(|e| Some(e.count?.abs_diff(e.sent_before) as f64)),
                            0.0,
                        ),
                        Check::at_most(
                            "`/events` names listed off from the last 10,000",
                            r.wire.events_shown.as_ref().and_then(|e| {
                                Some(e.listed?.abs_diff(e.sent_before.min(EVENTS_KEPT)) as f64)
                            }),
                            0.0,
                        ),
                    ]
                }
                Err(_) => Vec::new(),
            };
            ok &= s.run.as_ref().is_ok_and(|r| r.error.is_none())
                && s.checks.iter().all(|c| c.met == Some(true));
        }
        if let Some(f) = &mut self.flood {
            f.checks = match &f.run {
                Ok(r) => vec![
                    Check::at_most(
                        "host RSS after the flood ÷ before",
                        ratio(r.milestones.host_end, r.milestones.host_ready),
                        HOST_GROWTH_MAX,
                    ),
                    Check::at_most(
                        "notes not printed",
                        Some(self.sizes.flood.abs_diff(r.transcript.notes) as f64),
                        0.0,
                    ),
                ],
                Err(_) => Vec::new(),
            };
            ok &= f.run.as_ref().is_ok_and(|r| r.error.is_none())
                && f.checks.iter().all(|c| c.met == Some(true));
        }
        self.ok = ok;
    }

    /// The report as Markdown tables.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let p = &self.plan;
        out.push_str(&format!(
            "Soak ({}, {}, {} CPUs, commit {}): {} model tool calls ({} of them `compose`, each one more call through `call_tool`), {} lifecycle events planned, {} notes; a flood of {} notes.\n\n",
            self.meta.date,
            self.meta.cpu,
            self.meta.cpus_online,
            self.meta.commit,
            p.calls,
            p.composes,
            p.events,
            p.notes,
            self.sizes.flood
        ));
        let runs: Vec<&SdkSoak> = self.sdks.iter().chain(&self.flood).collect();
        if runs.is_empty() {
            return out;
        }
        out.push_str("| figure |");
        for r in &runs {
            out.push_str(&format!(" {} |", r.name));
        }
        out.push_str("\n| --- |");
        for _ in &runs {
            out.push_str(" ---: |");
        }
        out.push('\n');
        type Cell = fn(&RunReport) -> String;
        let rows: Vec<(&str, Cell)> = vec![
            ("duration (s)", |r| format!("{:.0}", r.duration_s)),
            ("tool calls completed as expected / not", |r| {
                format!("{} / {}", r.transcript.completed, r.transcript.failed)
            }),
            ("events sent (wire)", |r| r.wire.events.to_string()),
            ("interceptions / commands (wire)", |r| {
                format!("{} / {}", r.wire.intercepts, r.wire.commands)
            }),
            (
                "notes sent / printed / reported dropped from the notes area",
                |r| {
                    format!(
                        "{} / {} / {}",
                        r.wire.notes, r.transcript.notes, r.transcript.notes_dropped
                    )
                },
            ),
            ("replies lost", |r| r.wire.lost.total().to_string()),
            ("`/events`: count / names listed", |r| {
                r.wire.events_shown.as_ref().map_or("—".into(), |e| {
                    let n = |v: Option<u64>| v.map_or("—".into(), |v| v.to_string());
                    format!("{} / {}", n(e.count), n(e.listed))
                })
            }),
            ("host stopped mid-session (SIGSTOP, s)", |r| {
                r.milestones
                    .host_paused_s
                    .map_or("—".into(), |s| format!("{s:.1}"))
            }),
            ("host RSS when ready (MiB)", |r| {
                r.milestones
                    .host_ready
                    .map_or("—".into(), |k| format!("{:.1}", mib(k)))
            }),
            ("host RSS after the first calls (MiB)", |r| {
                r.milestones
                    .host_baseline
                    .map_or("—".into(), |k| format!("{:.1}", mib(k)))
            }),
            ("host RSS at the end (MiB)", |r| {
                r.milestones
                    .host_end
                    .map_or("—".into(), |k| format!("{:.1}", mib(k)))
            }),
            ("host peak RSS (MiB)", |r| {
                r.milestones
                    .host_peak
                    .map_or("—".into(), |k| format!("{:.1}", mib(k)))
            }),
            ("extension RSS after warm-up (MiB)", |r| {
                r.milestones
                    .ext_warm
                    .map_or("—".into(), |k| format!("{:.1}", mib(k)))
            }),
            ("extension RSS after warm-up, largest (MiB)", |r| {
                r.milestones
                    .ext_max_after_warmup
                    .map_or("—".into(), |k| format!("{:.1}", mib(k)))
            }),
            ("extension RSS at the end (MiB)", |r| {
                r.milestones
                    .ext_end
                    .map_or("—".into(), |k| format!("{:.1}", mib(k)))
            }),
        ];
        for (label, cell) in rows {
            out.push_str(&format!("| {label} |"));
            for r in &runs {
                let c = match &r.run {
                    Ok(run) => cell(run),
                    Err(_) => "—".into(),
                };
                out.push_str(&format!(" {c} |"));
            }
            out.push('\n');
        }
        out.push_str("\nTargets:\n\n");
        for r in &runs {
            for c in &r.checks {
                let mark = match c.met {
                    Some(true) => "✓",
                    Some(false) => "✗",
                    None => "n/a",
                };
                let value = c.value.map_or("—".into(), |v| format!("{v:.2}"));
                out.push_str(&format!(
                    "- {} {}: {} {value} (at most {})\n",
                    r.name, c.what, mark, c.bound
                ));
            }
            match &r.run {
                Err(e) => out.push_str(&format!("- {} did not run: {e}\n", r.name)),
                Ok(run) => {
                    if let Some(e) = &run.error {
                        out.push_str(&format!("- {} failed: {e}\n", r.name));
                    }
                    for f in &run.transcript.failures {
                        out.push_str(&format!("- {} failed call: {f}\n", r.name));
                    }
                    for p in &run.transcript.problems {
                        out.push_str(&format!("- {} host reported: {p}\n", r.name));
                    }
                }
            }
        }
        out.push_str("\nRSS over time (MiB, host / extension; every tenth of the run):\n\n");
        for r in &runs {
            let Ok(run) = &r.run else { continue };
            let n = run.samples.len();
            let picks: Vec<String> = (0..=10)
                .filter_map(|i| run.samples.get((i * n.saturating_sub(1)) / 10))
                .map(|s| {
                    format!(
                        "{:.0}s {} {}/{}",
                        s.t_s,
                        serde_json::to_value(s.phase)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_owned))
                            .unwrap_or_default(),
                        s.host_kib.map_or("—".into(), |k| format!("{:.1}", mib(k))),
                        s.ext_kib.map_or("—".into(), |k| format!("{:.1}", mib(k)))
                    )
                })
                .collect();
            out.push_str(&format!("- {}: {}\n", r.name, picks.join(", ")));
        }
        out
    }
}
