//! `zot-bench soak` options and workload sizes.

use std::path::PathBuf;

use serde::Serialize;

use crate::config::{Options, Profile};
use crate::error::{Error, Result};

/// The SDK targets a soak runs by default (their conformance extensions).
pub const SDKS: [&str; 3] = ["rust-sdk", "node-sdk", "python-sdk"];

/// How much work one soak run does, and when it samples.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SoakSizes {
    /// Tool calls the model makes (each one an `echo`, or every
    /// `compose_every`-th a `compose`, which makes one more through
    /// `call_tool`).
    pub calls: usize,
    /// Tool calls per model turn (one prompt per batch).
    pub batch: usize,
    /// Every n-th call is a `compose`.
    pub compose_every: usize,
    /// Lifecycle events the host sends in all (the text-only prompts that
    /// follow the calls top the count up to this).
    pub events: u64,
    /// `/note` commands (one `notify` each) after the events.
    pub notes: usize,
    /// `notify` frames of the flood (one tool call of the floor), 0: none.
    pub flood: u64,
    /// The host's reference RSS is taken after this many calls.
    pub baseline_calls: usize,
    /// The extension's reference RSS is taken after this many calls (its
    /// warm-up: JIT, caches, pools; V8's heap reaches its working size
    /// only after some 40,000 calls of this session).
    pub warmup_calls: usize,
    /// RSS sampling period, ms.
    pub sample_ms: u64,
    /// Kill a run that takes longer, s.
    pub timeout_s: u64,
    /// Seconds the host is stopped (SIGSTOP, as Ctrl-Z in its terminal
    /// does) once the notes phase began: longer than the 5 s an extension's
    /// write used to get. 0: no pause.
    pub pause_s: u64,
}

impl SoakSizes {
    /// The soak: 200,000 calls, 1,000,000 events, 100,000 notes, a
    /// 100,000-note flood.
    pub fn full() -> Self {
        SoakSizes {
            calls: 200_000,
            batch: 200,
            compose_every: 4,
            events: 1_000_000,
            notes: 100_000,
            flood: 100_000,
            baseline_calls: 1_000,
            warmup_calls: 50_000,
            sample_ms: 1_000,
            timeout_s: 4 * 3600,
            pause_s: 6,
        }
    }

    /// A representative run that takes seconds (smoke test).
    pub fn quick() -> Self {
        SoakSizes {
            calls: 2_000,
            events: 12_000,
            notes: 500,
            flood: 2_000,
            baseline_calls: 200,
            warmup_calls: 1_000,
            sample_ms: 200,
            timeout_s: 600,
            ..Self::full()
        }
    }
}

/// Everything a soak needs.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Paths, build profile and `--no-build`, shared with the benchmarks.
    pub base: Options,
    /// SDK targets to run.
    pub sdks: Vec<String>,
    /// Workload.
    pub sizes: SoakSizes,
    /// Where to write the JSON report.
    pub out: Option<PathBuf>,
}

/// `zot-bench soak --help`.
pub const SOAK_USAGE: &str = "\
zot-bench soak: a long session through zot-host with each SDK's conformance
extension, a notify flood, and the RSS of host and extension over time

usage: zot-bench soak [options]

  --sdks S1,S2          rust-sdk, node-sdk, python-sdk (default all three)
  --calls N             model tool calls (default 200000; every 4th is a
                        compose, which makes one more through call_tool)
  --batch N             tool calls per model turn (default 200)
  --events N            lifecycle events in all (default 1000000)
  --notes N             /note commands, one notify each (default 100000)
  --flood N             notify frames of the flood (floor extension; default
                        100000; 0: no flood)
  --quick               a small representative run (seconds)
  --profile P           release (default) or debug builds of zot-host and
                        the Rust extensions
  --no-build            do not run cargo build first
  --out FILE            also write the report as JSON
  -h, --help            this text

Targets: host RSS at the end within 1.5x its RSS after the first 1,000 calls;
extension RSS after warm-up (50,000 calls) within 1.2x; no reply lost.
Exit status 1 when a target is missed or a run failed.
";

impl SoakOptions {
    /// Parses the arguments after `soak`; `Ok(None)` for `--help`.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Option<Self>> {
        let mut base = Options::default();
        let mut sdks: Vec<String> = SDKS.iter().map(|s| (*s).to_owned()).collect();
        let mut sizes = SoakSizes::full();
        let mut overrides: Vec<(String, u64)> = Vec::new();
        let mut out = None;
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
                "--sdks" => {
                    sdks = value("--sdks")?
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect();
                    if let Some(bad) = sdks.iter().find(|s| !SDKS.contains(&s.as_str())) {
                        bail!(
                            "--sdks: unknown SDK target `{bad}` (one of {})",
                            SDKS.join(", ")
                        );
                    }
                }
                "--calls" | "--batch" | "--events" | "--notes" | "--flood" => {
                    let v = value(&flag)?;
                    let n: u64 = v
                        .parse()
                        .map_err(|_| Error::new(format!("{flag}: not a number: {v}")))?;
                    overrides.push((flag.clone(), n));
                }
                "--quick" => sizes = SoakSizes::quick(),
                "--profile" => {
                    base.profile = match value("--profile")?.as_str() {
                        "release" => Profile::Release,
                        "debug" => Profile::Debug,
                        other => bail!("unknown profile `{other}`"),
                    }
                }
                "--no-build" => base.build = false,
                "--out" => out = Some(PathBuf::from(value("--out")?)),
                other => bail!("unknown option `{other}` (see zot-bench soak --help)"),
            }
        }
        // Sizes given on the command line win over --quick, wherever it is.
        for (flag, n) in overrides {
            match flag.as_str() {
                "--calls" => sizes.calls = n as usize,
                "--batch" => sizes.batch = n as usize,
                "--events" => sizes.events = n,
                "--notes" => sizes.notes = n as usize,
                _ => sizes.flood = n,
            }
        }
        if sizes.batch == 0 || sizes.calls % sizes.batch != 0 {
            bail!(
                "--calls ({}) must be a multiple of --batch ({})",
                sizes.calls,
                sizes.batch
            );
        }
        if sdks.is_empty() && sizes.flood == 0 {
            bail!("nothing to run: no SDK and no flood");
        }
        Ok(Some(SoakOptions {
            base,
            sdks,
            sizes,
            out,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<SoakOptions>> {
        SoakOptions::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_sizes_and_sdks() {
        let o = parse(&[]).unwrap().unwrap();
        assert_eq!(o.sizes, SoakSizes::full());
        assert_eq!(o.sdks, SDKS);
        let o = parse(&[
            "--calls=400",
            "--quick",
            "--sdks",
            "node-sdk",
            "--flood",
            "0",
        ])
        .unwrap()
        .unwrap();
        assert_eq!((o.sizes.calls, o.sizes.flood), (400, 0));
        assert_eq!(o.sizes.notes, SoakSizes::quick().notes);
        assert_eq!(o.sdks, ["node-sdk"]);
        assert!(parse(&["--help"]).unwrap().is_none());
        assert!(parse(&["--sdks", "go-sdk"]).is_err());
        assert!(parse(&["--calls", "201"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
    }
}
