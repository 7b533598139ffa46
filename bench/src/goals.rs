//! The speed targets of the issues that set them (issue 8, then issue 33,
//! whose table replaced issue 15's), checked against a run: each SDK row against an absolute bound, the
//! floor, its raw script or the Go SDK target, in the same run.

use serde::Serialize;

use crate::affinity::Placement;
use crate::results::Cell;
use crate::scenarios::events;
use crate::targets::FLOOR;

/// The Go SDK target's name (issue 33 compares the Python SDK with it).
pub const GO_SDK: &str = "go-sdk";

/// A bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Rule {
    /// `value ≤ max`.
    AtMost {
        /// Bound.
        max: f64,
    },
    /// `value ≤ baseline + plus`.
    AtMostPlus {
        /// Baseline target.
        baseline: &'static str,
        /// Allowance.
        plus: f64,
    },
    /// `value ≤ ratio × baseline`.
    AtMostTimes {
        /// Baseline target.
        baseline: &'static str,
        /// Factor.
        ratio: f64,
    },
    /// `value ≥ ratio × baseline`.
    AtLeastTimes {
        /// Baseline target.
        baseline: &'static str,
        /// Factor.
        ratio: f64,
    },
}

impl Rule {
    /// Short text, e.g. `≤ raw-node + 5`.
    pub fn describe(&self, unit: &str) -> String {
        match *self {
            Rule::AtMost { max } => format!("≤ {max} {unit}"),
            Rule::AtMostPlus { baseline, plus } => format!("≤ {baseline} + {plus} {unit}"),
            Rule::AtMostTimes { baseline, ratio } => format!("≤ {ratio}× {baseline}"),
            Rule::AtLeastTimes { baseline, ratio } => format!("≥ {ratio}× {baseline}"),
        }
    }

    /// The target the bound refers to, if any.
    pub fn baseline(&self) -> Option<&'static str> {
        match *self {
            Rule::AtMost { .. } => None,
            Rule::AtMostPlus { baseline, .. }
            | Rule::AtMostTimes { baseline, .. }
            | Rule::AtLeastTimes { baseline, .. } => Some(baseline),
        }
    }
}

/// One row of an issue's table.
#[derive(Debug, Clone)]
pub struct Goal {
    /// The issue that set it.
    pub issue: u32,
    /// Row text.
    pub row: &'static str,
    /// Metric id.
    pub metric: String,
    /// Unit shown with absolute bounds.
    pub unit: &'static str,
    /// Only checked in this placement (`None`: both).
    pub only: Option<Placement>,
    /// `(SDK target, rule)`.
    pub rules: Vec<(&'static str, Rule)>,
}

/// Every issue's rows, with the events rows on the largest burst of the
/// run.
pub fn goals(event_bursts: &[usize]) -> Vec<Goal> {
    let largest = event_bursts.iter().copied().max().unwrap_or(100_000);
    let mut all = issue8(largest);
    all.extend(issue33(largest));
    all
}

/// Issue 8's table.
fn issue8(largest: usize) -> Vec<Goal> {
    use Rule::*;
    let g = |row, metric: &str, unit, only, rules| Goal {
        issue: 8,
        row,
        metric: metric.to_owned(),
        unit,
        only,
        rules,
    };
    vec![
        g(
            "spawn → ready",
            "startup.ready_ms",
            "ms",
            None,
            vec![
                ("rust-sdk", AtMost { max: 1.2 }),
                (
                    "node-sdk",
                    AtMostPlus {
                        baseline: "raw-node",
                        plus: 5.0,
                    },
                ),
                (
                    "python-sdk",
                    AtMostPlus {
                        baseline: "raw-python",
                        plus: 2.0,
                    },
                ),
            ],
        ),
        g(
            "RSS after start-up",
            "startup.rss_mib",
            "MiB",
            None,
            vec![
                ("rust-sdk", AtMost { max: 3.0 }),
                (
                    "node-sdk",
                    AtMostPlus {
                        baseline: "raw-node",
                        plus: 5.0,
                    },
                ),
                (
                    "python-sdk",
                    AtMostPlus {
                        baseline: "raw-python",
                        plus: 3.0,
                    },
                ),
            ],
        ),
        g(
            "echo round trip p50, one core",
            "echo.p50_us",
            "µs",
            Some(Placement::Shared),
            vec![
                (
                    "rust-sdk",
                    AtMostTimes {
                        baseline: FLOOR,
                        ratio: 1.25,
                    },
                ),
                (
                    "node-sdk",
                    AtMostTimes {
                        baseline: FLOOR,
                        ratio: 1.5,
                    },
                ),
                (
                    "python-sdk",
                    AtMostTimes {
                        baseline: FLOOR,
                        ratio: 1.5,
                    },
                ),
            ],
        ),
        g(
            "pipelined calls/s",
            "pipelined.calls_per_s",
            "calls/s",
            None,
            vec![
                (
                    "rust-sdk",
                    AtLeastTimes {
                        baseline: FLOOR,
                        ratio: 0.75,
                    },
                ),
                (
                    "node-sdk",
                    AtLeastTimes {
                        baseline: "raw-node",
                        ratio: 2.0,
                    },
                ),
                (
                    "python-sdk",
                    AtLeastTimes {
                        baseline: "raw-python",
                        ratio: 4.0,
                    },
                ),
            ],
        ),
        g(
            "events/s (largest burst)",
            &events::metric_id(largest),
            "events/s",
            None,
            vec![
                (
                    "rust-sdk",
                    AtLeastTimes {
                        baseline: FLOOR,
                        ratio: 0.75,
                    },
                ),
                (
                    "node-sdk",
                    AtLeastTimes {
                        baseline: "raw-node",
                        ratio: 2.5,
                    },
                ),
                (
                    "python-sdk",
                    AtLeastTimes {
                        baseline: "raw-python",
                        ratio: 5.0,
                    },
                ),
            ],
        ),
        g(
            "1 MiB event in, MB/s",
            "payload.event_in_mb_s",
            "MB/s",
            None,
            vec![
                (
                    "rust-sdk",
                    AtLeastTimes {
                        baseline: FLOOR,
                        ratio: 0.9,
                    },
                ),
                (
                    "node-sdk",
                    AtLeastTimes {
                        baseline: "raw-node",
                        ratio: 2.7,
                    },
                ),
                (
                    "python-sdk",
                    AtLeastTimes {
                        baseline: "raw-python",
                        ratio: 1.6,
                    },
                ),
            ],
        ),
        g(
            "1 MiB echo, MB/s",
            "payload.echo_mb_s",
            "MB/s",
            None,
            vec![
                (
                    "rust-sdk",
                    AtLeastTimes {
                        baseline: FLOOR,
                        ratio: 0.9,
                    },
                ),
                (
                    "node-sdk",
                    AtLeastTimes {
                        baseline: "raw-node",
                        ratio: 1.8,
                    },
                ),
                (
                    "python-sdk",
                    AtLeastTimes {
                        baseline: "raw-python",
                        ratio: 1.25,
                    },
                ),
            ],
        ),
        g(
            "peak RSS after 1 MiB payloads",
            "payload.peak_rss_mib",
            "MiB",
            None,
            vec![
                (
                    "rust-sdk",
                    AtMostTimes {
                        baseline: FLOOR,
                        ratio: 1.5,
                    },
                ),
                ("node-sdk", AtMost { max: 80.0 }),
                ("python-sdk", AtMost { max: 20.0 }),
            ],
        ),
    ]
}

/// Issue 33's table (its "Speed" item, which replaced issue 15's): the
/// Node and Python SDKs at least as fast as their raw scripts, the Rust SDK
/// close to the floor, the Python SDK ahead of the Go SDK target (rows
/// `n/a` in a run without it).
fn issue33(largest: usize) -> Vec<Goal> {
    use Rule::*;
    let g = |row, metric: &str, unit, rules| Goal {
        issue: 33,
        row,
        metric: metric.to_owned(),
        unit,
        only: None,
        rules,
    };
    let throughput = || {
        vec![
            (
                "rust-sdk",
                AtLeastTimes {
                    baseline: FLOOR,
                    ratio: 0.75,
                },
            ),
            (
                "node-sdk",
                AtLeastTimes {
                    baseline: "raw-node",
                    ratio: 1.0,
                },
            ),
            (
                "python-sdk",
                AtLeastTimes {
                    baseline: "raw-python",
                    ratio: 1.0,
                },
            ),
        ]
    };
    let ahead_of_go = |rule: Rule| vec![("python-sdk", rule)];
    let events = events::metric_id(largest);
    vec![
        g(
            "pipelined calls/s",
            "pipelined.calls_per_s",
            "calls/s",
            throughput(),
        ),
        g(
            "events/s (largest burst)",
            &events,
            "events/s",
            throughput(),
        ),
        // What the SDK adds to an extension's start-up: the raw script's
        // own extension written with the SDK (the conformance extension
        // registers and loads much more than the raw script).
        g(
            "spawn → ready",
            "startup.ready_ms",
            "ms",
            vec![
                (
                    "rust-twin",
                    AtMostTimes {
                        baseline: FLOOR,
                        ratio: 1.5,
                    },
                ),
                (
                    "node-twin",
                    AtMostPlus {
                        baseline: "raw-node",
                        plus: 5.0,
                    },
                ),
                (
                    "python-twin",
                    AtMostPlus {
                        baseline: "raw-python",
                        plus: 10.0,
                    },
                ),
            ],
        ),
        g(
            "echo round trip p50",
            "echo.p50_us",
            "µs",
            vec![(
                "rust-sdk",
                AtMostTimes {
                    baseline: FLOOR,
                    ratio: 1.1,
                },
            )],
        ),
        g(
            "RSS after start-up",
            "startup.rss_mib",
            "MiB",
            vec![(
                "rust-twin",
                AtMostPlus {
                    baseline: FLOOR,
                    plus: 2.0,
                },
            )],
        ),
        g(
            "echo p50 vs the Go SDK",
            "echo.p50_us",
            "µs",
            ahead_of_go(AtMostTimes {
                baseline: GO_SDK,
                ratio: 1.0,
            }),
        ),
        g(
            "pipelined vs the Go SDK",
            "pipelined.calls_per_s",
            "calls/s",
            ahead_of_go(AtLeastTimes {
                baseline: GO_SDK,
                ratio: 1.0,
            }),
        ),
        g(
            "events vs the Go SDK",
            &events,
            "events/s",
            ahead_of_go(AtLeastTimes {
                baseline: GO_SDK,
                ratio: 1.0,
            }),
        ),
    ]
}

/// The outcome of one rule in one placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GoalCheck {
    /// The issue that set it.
    pub issue: u32,
    /// Row text.
    pub row: &'static str,
    /// Metric id.
    pub metric: String,
    /// Placement.
    pub placement: Placement,
    /// SDK target.
    pub target: &'static str,
    /// The bound.
    pub rule: Rule,
    /// The bound as text.
    pub rule_text: String,
    /// The target's median.
    pub value: Option<f64>,
    /// The baseline's median.
    pub baseline: Option<f64>,
    /// `Some(true)` met, `Some(false)` missed, `None` not measurable in this run.
    pub met: Option<bool>,
}

/// Checks every goal in every measured placement.
pub fn check(goals: &[Goal], placements: &[Placement], cells: &[Cell]) -> Vec<GoalCheck> {
    let median = |p: Placement, t: &str, m: &str| {
        cells
            .iter()
            .find(|c| c.placement == p && c.target == t && c.metric == m)
            .map(|c| c.median)
    };
    let mut out = Vec::new();
    for goal in goals {
        for &p in placements {
            if goal.only.is_some_and(|o| o != p) {
                continue;
            }
            for &(target, rule) in &goal.rules {
                let value = median(p, target, &goal.metric);
                let baseline = rule.baseline().and_then(|b| median(p, b, &goal.metric));
                let met = match (rule, value, baseline) {
                    (Rule::AtMost { max }, Some(v), _) => Some(v <= max),
                    (Rule::AtMostPlus { plus, .. }, Some(v), Some(b)) => Some(v <= b + plus),
                    (Rule::AtMostTimes { ratio, .. }, Some(v), Some(b)) => Some(v <= b * ratio),
                    (Rule::AtLeastTimes { ratio, .. }, Some(v), Some(b)) => Some(v >= b * ratio),
                    _ => None,
                };
                out.push(GoalCheck {
                    issue: goal.issue,
                    row: goal.row,
                    metric: goal.metric.clone(),
                    placement: p,
                    target,
                    rule,
                    rule_text: rule.describe(goal.unit),
                    value,
                    baseline,
                    met,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(target: &str, metric: &str, median: f64) -> Cell {
        Cell {
            placement: Placement::Shared,
            target: target.into(),
            metric: metric.into(),
            rounds: vec![median],
            median,
            vs_floor: None,
            vs_raw: None,
        }
    }

    #[test]
    fn checks_each_kind_of_rule() {
        let cells = vec![
            cell("rust-sdk", "startup.ready_ms", 1.0),
            cell("node-sdk", "startup.ready_ms", 60.0),
            cell("raw-node", "startup.ready_ms", 50.0),
            cell("floor", "echo.p50_us", 10.0),
            cell("rust-sdk", "echo.p50_us", 13.0),
        ];
        let checks = check(&goals(&[1000]), &[Placement::Shared], &cells);
        let find = |row: &str, t: &str| {
            checks
                .iter()
                .find(|c| c.issue == 8 && c.row.starts_with(row) && c.target == t)
                .unwrap()
                .met
        };
        assert_eq!(find("spawn", "rust-sdk"), Some(true));
        assert_eq!(find("spawn", "node-sdk"), Some(false));
        assert_eq!(find("spawn", "python-sdk"), None);
        assert_eq!(find("echo", "rust-sdk"), Some(false));
        assert!(checks.iter().any(|c| c.metric == "events.burst_1000_per_s"));
    }

    #[test]
    fn issue_33_checks_its_own_bounds_and_the_go_sdk_only_when_measured() {
        let cells = vec![
            cell("raw-python", "pipelined.calls_per_s", 10_000.0),
            cell("python-sdk", "pipelined.calls_per_s", 9_000.0),
            cell("raw-node", "startup.ready_ms", 50.0),
            cell("node-twin", "startup.ready_ms", 54.0),
            cell("node-sdk", "startup.ready_ms", 70.0),
            cell("floor", "echo.p50_us", 10.0),
            cell("rust-sdk", "echo.p50_us", 12.0),
            cell("floor", "startup.rss_mib", 2.0),
            cell("rust-twin", "startup.rss_mib", 3.5),
            cell("rust-sdk", "startup.rss_mib", 6.5),
        ];
        let checks = check(&goals(&[100_000]), &[Placement::Shared], &cells);
        let find = |row: &str, t: &str| {
            checks
                .iter()
                .find(|c| c.issue == 33 && c.row == row && c.target == t)
                .unwrap()
                .met
        };
        // 0.9x its raw script: the SDK is the slow way.
        assert_eq!(find("pipelined calls/s", "python-sdk"), Some(false));
        // The raw script's twin + 4 ms: within + 5 (the conformance
        // extension's start-up is not held to it).
        assert_eq!(find("spawn → ready", "node-twin"), Some(true));
        assert!(!checks
            .iter()
            .any(|c| c.issue == 33 && c.row == "spawn → ready" && c.target == "node-sdk"));
        // 1.2x the floor: past 1.1x.
        assert_eq!(find("echo round trip p50", "rust-sdk"), Some(false));
        // The floor's twin at floor + 1.5 MiB: within + 2 (the conformance
        // extension's start-up is reported, not checked).
        assert_eq!(find("RSS after start-up", "rust-twin"), Some(true));
        assert!(!checks
            .iter()
            .any(|c| c.issue == 33 && c.row == "RSS after start-up" && c.target == "rust-sdk"));
        // No go-sdk cells in this run: not measurable, not missed.
        assert_eq!(find("events vs the Go SDK", "python-sdk"), None);
        // Only the Python SDK is held to the Go SDK target.
        assert!(!checks
            .iter()
            .any(|c| c.issue == 33 && c.row.contains("Go SDK") && c.target != "python-sdk"));
        // Issue 15's table is gone: issue 33 replaced it.
        assert!(checks.iter().all(|c| c.issue != 15));
    }
}
