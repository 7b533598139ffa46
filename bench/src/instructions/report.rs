//! The instruction counts as a table and as JSON.

use std::fmt::Write;

use serde::Serialize;

use super::count::{ratio, short, Run};
use crate::meta::Meta;
use crate::report::TargetStatus;
use crate::scenario_id::ScenarioId;
use crate::targets::{Role, FLOOR};

/// One target in one scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Target name.
    pub target: String,
    /// `pipelined` or `events`.
    pub scenario: ScenarioId,
    /// The short and the long run.
    pub runs: [Run; 2],
    /// Instructions per frame.
    pub per_frame: f64,
    /// The target it is compared with.
    pub baseline: Option<String>,
    /// Baseline ÷ this target, per frame (≥ 1: no costlier).
    pub ratio: Option<f64>,
}

/// A count that failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// Target name.
    pub target: String,
    /// Scenario, when it got that far.
    pub scenario: Option<ScenarioId>,
    /// What went wrong.
    pub message: String,
}

/// The whole count.
#[derive(Debug, Clone, Serialize)]
pub struct InstrReport {
    /// Machine, date, commit.
    pub meta: Meta,
    /// `valgrind --version`.
    pub valgrind: String,
    /// Every count, in target order.
    pub rows: Vec<Row>,
    /// Targets or scenarios not counted, and why.
    pub skipped: Vec<Failure>,
    /// Counts that failed.
    pub errors: Vec<Failure>,
}

/// The baseline of a target: its raw script, else the floor for an SDK.
pub fn baseline_of(t: &TargetStatus) -> Option<String> {
    t.raw_baseline
        .clone()
        .or_else(|| matches!(t.role, Role::Sdk | Role::Upstream).then(|| FLOOR.to_owned()))
}

/// Fills in each row's ratio to its baseline's row of the same scenario.
pub fn set_ratios(rows: &mut [Row]) {
    let per_frame: Vec<(String, ScenarioId, f64)> = rows
        .iter()
        .map(|r| (r.target.clone(), r.scenario, r.per_frame))
        .collect();
    for r in rows.iter_mut() {
        r.ratio = r.baseline.as_ref().and_then(|b| {
            per_frame
                .iter()
                .find(|(t, s, _)| t == b && *s == r.scenario)
                .and_then(|&(_, _, base)| ratio(base, r.per_frame))
        });
    }
}

fn scenario_label(s: ScenarioId) -> &'static str {
    if s == ScenarioId::Events {
        "event absorbed"
    } else {
        "`echo` call"
    }
}

impl InstrReport {
    /// The Markdown table, then what was skipped or failed.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "Instructions per frame ({}, {}, {}, commit {})\n\n\
             | target | frame | instructions per frame | frames (N1, N2) | ratio (baseline ÷ target) |\n\
             | --- | --- | ---: | ---: | ---: |\n",
            self.meta.date, self.valgrind, self.meta.cpu, self.meta.commit
        );
        for r in &self.rows {
            let ratio = match (&r.baseline, r.ratio) {
                (Some(b), Some(x)) => format!("{x:.2}× {b}"),
                (Some(b), None) => format!("— ({b} not counted)"),
                _ => "—".to_owned(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {}, {} | {} |",
                r.target,
                scenario_label(r.scenario),
                short(r.per_frame),
                r.runs[0].frames,
                r.runs[1].frames,
                ratio
            );
        }
        for (title, list) in [("Not counted", &self.skipped), ("Failed", &self.errors)] {
            if !list.is_empty() {
                let _ = writeln!(out, "\n{title}:\n");
            }
            for f in list {
                let what = f
                    .scenario
                    .map_or(String::new(), |s| format!(" {}", s.name()));
                let _ = writeln!(out, "- {}{what}: {}", f.target, f.message);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(target: &str, scenario: ScenarioId, per_frame: f64, baseline: Option<&str>) -> Row {
        let run = Run {
            frames: 1,
            instructions: 1,
        };
        Row {
            target: target.into(),
            scenario,
            runs: [run, run],
            per_frame,
            baseline: baseline.map(String::from),
            ratio: None,
        }
    }

    #[test]
    fn ratios_pair_rows_of_the_same_scenario() {
        let (e, p) = (ScenarioId::Events, ScenarioId::Pipelined);
        let mut rows = vec![
            row("raw-node", e, 16_500.0, None),
            row("node-sdk", e, 33_000.0, Some("raw-node")),
            row("node-sdk", p, 80_000.0, Some("raw-node")),
            row("raw-node", p, 40_000.0, None),
            row("rust-sdk", e, 1.0, Some("floor")),
        ];
        set_ratios(&mut rows);
        let ratios: Vec<Option<f64>> = rows.iter().map(|r| r.ratio).collect();
        assert_eq!(ratios, [None, Some(0.5), Some(0.5), None, None]);
    }
}
