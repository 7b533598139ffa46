//! `zot-bench instructions` options.

use std::path::PathBuf;

use crate::config::{Options, Profile};
use crate::error::{Error, Result};
use crate::scenario_id::ScenarioId;

/// The targets counted by default (`go-sdk` is skipped without a checkout).
pub const TARGETS: [&str; 7] = [
    "floor",
    "rust-sdk",
    "node-sdk",
    "raw-node",
    "python-sdk",
    "raw-python",
    "go-sdk",
];

/// The targets that can be counted besides: the twins, each the raw script's
/// (or the floor's) extension written with an SDK.
pub const TWINS: [&str; 3] = ["rust-twin", "node-twin", "python-twin"];

/// The scenarios that can be counted: the two throughput ones.
pub const SCENARIOS: [ScenarioId; 2] = [ScenarioId::Pipelined, ScenarioId::Events];

/// Everything an instruction count needs.
#[derive(Debug, Clone)]
pub struct InstrOptions {
    /// Paths, build profile, `--no-build`, `--go-sdk` and the targets
    /// (`only`), shared with the benchmarks.
    pub base: Options,
    /// Scenarios to count.
    pub scenarios: Vec<ScenarioId>,
    /// `echo` calls of the short and the long run (pipelined).
    pub calls: (u64, u64),
    /// Events of the short and the long run (events).
    pub events: (u64, u64),
    /// Where to write the JSON report.
    pub out: Option<PathBuf>,
    /// Where to keep callgrind's files of every run (for
    /// `callgrind_annotate`); `None` removes them.
    pub keep: Option<PathBuf>,
}

impl InstrOptions {
    /// The frames of the short and the long run of a scenario.
    pub fn frames(&self, s: ScenarioId) -> (u64, u64) {
        if s == ScenarioId::Events {
            self.events
        } else {
            self.calls
        }
    }
}

/// `zot-bench instructions --help`.
pub const INSTR_USAGE: &str = "\
zot-bench instructions: instructions per frame of each target, counted with
callgrind (valgrind), so that the figures repeat on a busy machine

usage: zot-bench instructions [options]

  --targets T1,T2       floor, rust-sdk, node-sdk, raw-node, python-sdk,
                        raw-python, go-sdk (default all; go-sdk needs --go-sdk);
                        also rust-twin, node-twin, python-twin
  --scenarios S1,S2     pipelined (echo calls), events (tool_call events);
                        default both
  --calls N1,N2         echo calls of the short and the long run
                        (default 2000,22000)
  --events N1,N2        events of the short and the long run
                        (default 10000,60000)
  --profile P           release (default) or debug build of the Rust targets
  --no-build            do not build the Rust and Go targets first
  --go-sdk DIR          a local checkout of github.com/patriceckhart/zot (as
                        for the benchmarks)
  --out FILE            also write the results as JSON
  --keep DIR            keep callgrind's file of every run in DIR, named
                        TARGET-SCENARIO-FRAMES.PID, to see where the
                        instructions go (callgrind_annotate FILE)
  -h, --help            this text

Each target runs twice per scenario under valgrind --tool=callgrind, once
with N1 and once with N2 frames; (I(N2) - I(N1)) / (N2 - N1) is its count
per frame, start-up and shutdown cancelling out. The ratio column divides
the baseline's count (the raw script of the same language; the floor for
the Rust and Go SDKs) by the target's: 1 or more means no costlier.
valgrind must be on PATH (nothing is installed); callgrind runs a target
some 50 times slower than natively, so a full count takes minutes.
";

/// Parses `N1,N2` (N1 < N2).
fn pair(flag: &str, v: &str) -> Result<(u64, u64)> {
    let nums: Vec<u64> = v
        .split(',')
        .map(|n| {
            n.trim()
                .parse()
                .map_err(|_| Error::new(format!("{flag}: not a number: `{n}`")))
        })
        .collect::<Result<_>>()?;
    match nums[..] {
        [a, b] if a < b => Ok((a, b)),
        [_, _] => bail!("{flag}: N1 must be smaller than N2 (got {v})"),
        _ => bail!("{flag}: expected N1,N2 (got {v})"),
    }
}

fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

impl InstrOptions {
    /// Parses the arguments after `instructions`; `Ok(None)` for `--help`.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Option<Self>> {
        let mut o = InstrOptions {
            base: Options {
                only: TARGETS.iter().map(|s| (*s).to_owned()).collect(),
                ..Options::default()
            },
            scenarios: SCENARIOS.to_vec(),
            calls: (2_000, 22_000),
            events: (10_000, 60_000),
            out: None,
            keep: None,
        };
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
                _ => (arg.clone(), None),
            };
            let mut value = |name: &str| -> Result<String> {
                inline
                    .clone()
                    .or_else(|| it.next())
                    .ok_or_else(|| Error::new(format!("{name} needs a value")))
            };
            match flag.as_str() {
                "-h" | "--help" => return Ok(None),
                "--targets" => {
                    let targets = list(&value("--targets")?);
                    let known =
                        |t: &&String| TARGETS.contains(&t.as_str()) || TWINS.contains(&t.as_str());
                    if let Some(bad) = targets.iter().find(|t| !known(t)) {
                        bail!(
                            "--targets: unknown target `{bad}` (one of {}, {})",
                            TARGETS.join(", "),
                            TWINS.join(", ")
                        );
                    }
                    o.base.only = targets;
                }
                "--scenarios" => {
                    o.scenarios = list(&value("--scenarios")?)
                        .iter()
                        .map(|s| {
                            ScenarioId::parse(s)
                                .filter(|id| SCENARIOS.contains(id))
                                .ok_or_else(|| {
                                    Error::new(format!(
                                        "--scenarios: `{s}` cannot be counted (pipelined, events)"
                                    ))
                                })
                        })
                        .collect::<Result<_>>()?;
                }
                "--calls" => o.calls = pair("--calls", &value("--calls")?)?,
                "--events" => o.events = pair("--events", &value("--events")?)?,
                "--profile" => {
                    o.base.profile = match value("--profile")?.as_str() {
                        "release" => Profile::Release,
                        "debug" => Profile::Debug,
                        other => bail!("unknown profile `{other}`"),
                    }
                }
                "--no-build" => o.base.build = false,
                "--go-sdk" => {
                    let dir = PathBuf::from(value("--go-sdk")?);
                    o.base.go_sdk = Some(std::path::absolute(&dir).unwrap_or(dir));
                }
                "--out" => o.out = Some(PathBuf::from(value("--out")?)),
                "--keep" => o.keep = Some(PathBuf::from(value("--keep")?)),
                other => bail!("unknown option `{other}` (see zot-bench instructions --help)"),
            }
        }
        if o.base.only.is_empty() || o.scenarios.is_empty() {
            bail!("nothing to count: no target or no scenario given");
        }
        Ok(Some(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<InstrOptions>> {
        InstrOptions::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_targets_scenarios_and_sizes() {
        let o = parse(&[]).unwrap().unwrap();
        assert_eq!(o.base.only, TARGETS);
        assert!(o.keep.is_none(), "callgrind's files are removed by default");
        assert_eq!(o.scenarios, SCENARIOS);
        let o = parse(&[
            "--targets",
            "floor,rust-sdk",
            "--scenarios=events",
            "--events",
            "100,300",
            "--no-build",
            "--keep",
            "/tmp/cg",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(o.keep.as_deref(), Some(std::path::Path::new("/tmp/cg")));
        assert_eq!(o.base.only, ["floor", "rust-sdk"]);
        let twin = parse(&["--targets", "python-twin,raw-python"])
            .unwrap()
            .unwrap();
        assert_eq!(twin.base.only, ["python-twin", "raw-python"]);
        assert_eq!(o.scenarios, [ScenarioId::Events]);
        assert_eq!(o.frames(ScenarioId::Events), (100, 300));
        assert_eq!(o.frames(ScenarioId::Pipelined), (2_000, 22_000));
        assert!(!o.base.build);
        assert!(parse(&["-h"]).unwrap().is_none());
    }

    #[test]
    fn refuses_bad_input() {
        let err = |a: &[&str]| parse(a).unwrap_err().to_string();
        assert!(err(&["--targets", "pipe-cat"]).contains("unknown target `pipe-cat`"));
        assert!(err(&["--scenarios", "echo"]).contains("cannot be counted"));
        assert!(err(&["--calls", "5,5"]).contains("smaller"));
        assert!(err(&["--calls", "5"]).contains("N1,N2"));
        assert!(err(&["--events", "a,9"]).contains("not a number"));
        assert!(err(&["--bogus"]).contains("unknown option"));
    }
}
