//! The run's report: the JSON document and the Markdown tables printed at
//! the end (the same tables go into bench/README.md).

use std::fmt::Write;

use serde::Serialize;

use crate::affinity::{CpuPlan, Placement};
use crate::config::Sizes;
use crate::goals::GoalCheck;
use crate::handshake::ExtInfo;
use crate::meta::Meta;
use crate::results::Cell;
use crate::scenarios::host::HOST_TARGET;
use crate::scenarios::{Metric, ScenarioId};
use crate::targets::Role;

/// A target and whether it was measured.
#[derive(Debug, Clone, Serialize)]
pub struct TargetStatus {
    /// Name.
    pub name: String,
    /// Description.
    pub what: String,
    /// Role.
    pub role: Role,
    /// Raw script its ratios also refer to.
    pub raw_baseline: Option<String>,
    /// Selected for this run (`--only`).
    pub selected: bool,
    /// Measured in this run.
    pub measured: bool,
    /// Why not, or other remarks.
    pub note: Option<String>,
    /// The program run.
    pub program: Option<String>,
    /// What the extension announced.
    pub info: Option<ExtInfo>,
}

/// A scenario that does not apply to a target.
#[derive(Debug, Clone, Serialize)]
pub struct NotApplicable {
    /// Target.
    pub target: String,
    /// Scenario.
    pub scenario: ScenarioId,
    /// Why.
    pub reason: String,
}

/// A scenario run that failed.
#[derive(Debug, Clone, Serialize)]
pub struct RunError {
    /// Round (0-based).
    pub round: usize,
    /// Placement.
    pub placement: Placement,
    /// Scenario.
    pub scenario: ScenarioId,
    /// Target.
    pub target: String,
    /// What went wrong.
    pub message: String,
}

/// Everything a run produced.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Machine and date.
    pub meta: Meta,
    /// Rounds run.
    pub rounds: usize,
    /// Smoke-test sizes were used.
    pub quick: bool,
    /// Workload sizes.
    pub sizes: Sizes,
    /// Cores used.
    pub cpus: CpuPlan,
    /// Placements measured.
    pub placements: Vec<Placement>,
    /// Every target in the catalog (measured or not).
    pub targets: Vec<TargetStatus>,
    /// Every figure's definition.
    pub metrics: Vec<Metric>,
    /// Medians and ratios.
    pub cells: Vec<Cell>,
    /// Scenario/target pairs that do not apply.
    pub not_applicable: Vec<NotApplicable>,
    /// Failed scenario runs.
    pub errors: Vec<RunError>,
    /// The issues' speed targets (8 and 15), checked.
    pub goals: Vec<GoalCheck>,
    /// Remarks (skipped parts, TODOs).
    pub notes: Vec<String>,
}

impl Report {
    /// The cell of a figure.
    pub fn cell(&self, placement: Placement, target: &str, metric: &str) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.placement == placement && c.target == target && c.metric == metric)
    }

    fn measured(&self) -> Vec<&TargetStatus> {
        self.targets.iter().filter(|t| t.measured).collect()
    }

    /// The whole report as Markdown.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let m = &self.meta;
        let _ = writeln!(
            out,
            "zot-bench, {} — {} ({} CPUs online), {}, kernel {}; {} round{}{}; medians over rounds\n",
            m.date,
            if m.cpu.is_empty() { "unknown CPU" } else { &m.cpu },
            m.cpus_online,
            m.hostname,
            m.kernel,
            self.rounds,
            if self.rounds == 1 { "" } else { "s" },
            if self.quick { ", QUICK sizes (smoke run, not a measurement)" } else { "" },
        );
        for &p in &self.placements {
            self.placement_tables(&mut out, p);
        }
        self.host_table(&mut out);
        self.goal_tables(&mut out);
        self.trailer(&mut out);
        out
    }

    fn placement_tables(&self, out: &mut String, p: Placement) {
        let targets = self.measured();
        let cores = self
            .cpus
            .cores(p)
            .map(|(h, e)| format!("harness cpu {h}, extension cpu {e}"))
            .unwrap_or_default();
        let _ = writeln!(out, "### {} — {}; {cores}\n", p.name(), p.describe());
        let mut rows = vec![{
            let mut h = vec!["figure".to_owned(), "unit".to_owned()];
            h.extend(targets.iter().map(|t| t.name.clone()));
            h
        }];
        for metric in &self.metrics {
            let cells: Vec<String> = targets
                .iter()
                .map(|t| match self.cell(p, &t.name, &metric.id) {
                    None => "—".to_owned(),
                    Some(c) => match c.vs_floor {
                        Some(r) if t.role != Role::Floor => {
                            format!("{} ({})", fmt_value(c.median), fmt_ratio(r))
                        }
                        _ => fmt_value(c.median),
                    },
                })
                .collect();
            if cells.iter().all(|c| c == "—") {
                continue;
            }
            let mut row = vec![metric.label.clone(), metric.unit.to_owned()];
            row.extend(cells);
            rows.push(row);
        }
        table(out, &rows, 2);
        let _ = writeln!(
            out,
            "\nIn parentheses: ÷ floor (same placement, same round set).\n"
        );

        let sdk: Vec<&&TargetStatus> = targets
            .iter()
            .filter(|t| t.raw_baseline.is_some())
            .collect();
        if sdk.is_empty() {
            return;
        }
        let mut rows = vec![{
            let mut h = vec!["figure".to_owned()];
            h.extend(sdk.iter().map(|t| {
                format!(
                    "{} ÷ {}",
                    t.name,
                    t.raw_baseline.as_deref().unwrap_or_default()
                )
            }));
            h
        }];
        for metric in &self.metrics {
            let cells: Vec<String> = sdk
                .iter()
                .map(|t| {
                    self.cell(p, &t.name, &metric.id)
                        .and_then(|c| c.vs_raw)
                        .map_or_else(|| "—".to_owned(), fmt_ratio)
                })
                .collect();
            if cells.iter().all(|c| c == "—") {
                continue;
            }
            let mut row = vec![metric.label.clone()];
            row.extend(cells);
            rows.push(row);
        }
        if rows.len() > 1 {
            let _ = writeln!(out, "SDK vs raw script ({}):\n", p.name());
            table(out, &rows, 1);
            out.push('\n');
        }
    }

    fn host_table(&self, out: &mut String) {
        let host: Vec<&Metric> = self
            .metrics
            .iter()
            .filter(|m| m.scenario == ScenarioId::Host)
            .collect();
        if host.is_empty() {
            return;
        }
        let mut rows = vec![{
            let mut h = vec!["host-side figure".to_owned(), "unit".to_owned()];
            h.extend(self.placements.iter().map(|p| match p {
                Placement::Split => "all cores".to_owned(),
                Placement::Shared => "one core".to_owned(),
            }));
            h
        }];
        for m in host {
            let mut row = vec![m.label.clone(), m.unit.to_owned()];
            row.extend(self.placements.iter().map(|&p| {
                self.cell(p, HOST_TARGET, &m.id)
                    .map_or_else(|| "—".to_owned(), |c| fmt_value(c.median))
            }));
            rows.push(row);
        }
        let _ = writeln!(
            out,
            "Host side (`zot-host run --script`, copies of the floor as extensions; \
             per-call figures are (D(K+1 calls) − D(1 call)) / K, D = prompt → final answer in the host's transcript):\n"
        );
        table(out, &rows, 2);
        out.push('\n');
    }

    fn goal_tables(&self, out: &mut String) {
        let mut issues: Vec<u32> = self.goals.iter().map(|g| g.issue).collect();
        issues.dedup();
        for issue in issues {
            for &p in &self.placements {
                self.goal_table(out, issue, p);
            }
        }
    }

    /// One issue's targets in one placement; nothing when none applies.
    fn goal_table(&self, out: &mut String, issue: u32, p: Placement) {
        let sdks = ["rust-sdk", "node-sdk", "python-sdk"];
        let checks: Vec<&GoalCheck> = self
            .goals
            .iter()
            .filter(|g| g.issue == issue && g.placement == p)
            .collect();
        let mut rows = vec![vec![
            format!("issue {issue} target"),
            sdks[0].to_owned(),
            sdks[1].to_owned(),
            sdks[2].to_owned(),
        ]];
        let mut row_names: Vec<&str> = Vec::new();
        for g in &checks {
            if !row_names.contains(&g.row) {
                row_names.push(g.row);
            }
        }
        for name in row_names {
            let mut row = vec![name.to_owned()];
            for sdk in sdks {
                let cell = checks
                    .iter()
                    .find(|g| g.row == name && crate::targets::sdk_column(g.target) == sdk)
                    .map_or_else(String::new, |g| goal_cell(g));
                row.push(cell);
            }
            if row[1..]
                .iter()
                .any(|c| !c.is_empty() && !c.starts_with("n/a"))
            {
                rows.push(row);
            }
        }
        if rows.len() == 1 {
            return;
        }
        let _ = writeln!(out, "Issue {issue} targets ({}):\n", p.name());
        table(out, &rows, 1);
        out.push('\n');
    }

    fn trailer(&self, out: &mut String) {
        for t in self.targets.iter().filter(|t| t.selected && !t.measured) {
            let _ = writeln!(
                out,
                "- skipped `{}`: {}",
                t.name,
                t.note.as_deref().unwrap_or("not measured")
            );
        }
        for n in &self.not_applicable {
            let _ = writeln!(
                out,
                "- `{}` not run on `{}`: {}",
                n.scenario.name(),
                n.target,
                n.reason
            );
        }
        for e in &self.errors {
            let _ = writeln!(
                out,
                "- ERROR round {} {} `{}` on `{}`: {}",
                e.round + 1,
                e.placement.name(),
                e.scenario.name(),
                e.target,
                e.message
            );
        }
        for n in &self.notes {
            let _ = writeln!(out, "- {n}");
        }
    }
}

fn goal_cell(g: &GoalCheck) -> String {
    let mark = match g.met {
        Some(true) => "✓",
        Some(false) => "✗",
        None => return format!("n/a ({})", g.rule_text),
    };
    let shown = match (g.value, g.baseline) {
        (Some(v), Some(b)) if matches!(g.rule, crate::goals::Rule::AtMostPlus { .. }) => {
            format!("{} vs {}", fmt_value(v), fmt_value(b))
        }
        (Some(v), Some(b)) => fmt_ratio(v / b),
        (Some(v), None) => fmt_value(v),
        _ => String::new(),
    };
    if crate::targets::sdk_column(g.target) == g.target {
        format!("{mark} {shown} ({})", g.rule_text)
    } else {
        format!("{mark} {shown} ({}; {})", g.rule_text, g.target)
    }
}

/// A value with a precision suited to its size.
pub fn fmt_value(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A ratio, e.g. `1.08×`.
pub fn fmt_ratio(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}×")
    } else if r >= 10.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.2}×")
    }
}

/// Writes a padded Markdown table; the columns from `first_numeric` on are
/// right-aligned.
fn table(out: &mut String, rows: &[Vec<String>], first_numeric: usize) {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |i: usize| {
        rows.iter()
            .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
            .max()
            .unwrap_or(0)
            .max(3)
    };
    let widths: Vec<usize> = (0..cols).map(width).collect();
    for (n, row) in rows.iter().enumerate() {
        out.push('|');
        for (i, w) in widths.iter().enumerate() {
            let c = row.get(i).map_or("", String::as_str);
            let pad = w - c.chars().count();
            if i >= first_numeric && n > 0 {
                let _ = write!(out, " {}{c} |", " ".repeat(pad));
            } else {
                let _ = write!(out, " {c}{} |", " ".repeat(pad));
            }
        }
        out.push('\n');
        if n == 0 {
            out.push('|');
            for (i, w) in widths.iter().enumerate() {
                if i >= first_numeric {
                    let _ = write!(out, " {}: |", "-".repeat(w - 1));
                } else {
                    let _ = write!(out, " {} |", "-".repeat(*w));
                }
            }
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_twins_check_names_the_twin() {
        let check = |target| GoalCheck {
            issue: 33,
            row: "spawn → ready",
            metric: "startup.ready_ms".into(),
            placement: Placement::Split,
            target,
            rule: crate::goals::Rule::AtMostPlus {
                baseline: "raw-node",
                plus: 5.0,
            },
            rule_text: "≤ raw-node + 5 ms".into(),
            value: Some(89.6),
            baseline: Some(87.0),
            met: Some(true),
        };
        assert_eq!(
            goal_cell(&check("node-twin")),
            "✓ 89.6 vs 87.0 (≤ raw-node + 5 ms; node-twin)"
        );
        assert_eq!(
            goal_cell(&check("node-sdk")),
            "✓ 89.6 vs 87.0 (≤ raw-node + 5 ms)"
        );
        assert_eq!(crate::targets::sdk_column("python-twin"), "python-sdk");
        assert_eq!(crate::targets::sdk_column("rust-twin"), "rust-sdk");
    }

    #[test]
    fn formats_numbers_and_tables() {
        assert_eq!(fmt_value(1.234), "1.23");
        assert_eq!(fmt_value(12.34), "12.3");
        assert_eq!(fmt_value(123.4), "123");
        assert_eq!(fmt_value(12_345.0), "12.3k");
        assert_eq!(fmt_value(1_234_567.0), "1.23M");
        assert_eq!(fmt_ratio(1.084), "1.08×");
        let mut s = String::new();
        table(
            &mut s,
            &[vec!["a".into(), "b".into()], vec!["xx".into(), "1".into()]],
            1,
        );
        assert_eq!(s, "| a   | b   |\n| --- | --: |\n| xx  |   1 |\n");
    }
}
