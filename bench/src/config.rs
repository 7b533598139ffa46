//! Run options (the command line) and the workload sizes they imply.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::affinity::Placement;
use crate::error::{Error, Result};
use crate::scenario_id::ScenarioId;

/// How big each workload is. [`Sizes::full`] is the measurement;
/// [`Sizes::quick`] only proves the harness works.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sizes {
    /// Small `echo` round trips sent to every fresh process before measuring.
    pub warmup_echoes: usize,
    /// Sequential `echo` round trips measured.
    pub echo_calls: usize,
    /// Text of the small `echo` calls.
    pub echo_text: String,
    /// Pipelined calls measured.
    pub pipelined_calls: usize,
    /// Calls kept in flight.
    pub pipelined_depth: usize,
    /// Event burst sizes (the largest is the one the targets refer to).
    pub event_bursts: Vec<usize>,
    /// Payload size in bytes (1 MiB).
    pub payload_bytes: usize,
    /// Payload round trips per kind.
    pub payload_reps: usize,
    /// Cancellations measured.
    pub cancel_reps: usize,
    /// `call_tool` round trips measured.
    pub call_tool_reps: usize,
    /// Host-side start-up: numbers of extensions loaded at once.
    pub host_startup_counts: Vec<usize>,
    /// Host-side: tool calls per measured script.
    pub host_calls: usize,
    /// Host-side: tool calls per model turn at most.
    pub host_batch: usize,
    /// Host-side: interceptor chain lengths.
    pub host_interceptors: Vec<usize>,
    /// Host-side: subscribers of the fan-out scenario.
    pub host_subscribers: usize,
    /// Deadline of one scenario in one process.
    pub scenario_timeout: Duration,
    /// Deadline of the handshake.
    pub handshake_timeout: Duration,
}

impl Sizes {
    /// The measurement sizes.
    pub fn full() -> Self {
        Sizes {
            warmup_echoes: 200,
            echo_calls: 2000,
            echo_text: "hello, bench!".into(),
            pipelined_calls: 20_000,
            pipelined_depth: 64,
            event_bursts: vec![1_000, 10_000, 100_000],
            payload_bytes: 1 << 20,
            payload_reps: 10,
            cancel_reps: 20,
            call_tool_reps: 200,
            host_startup_counts: vec![1, 10, 50],
            host_calls: 500,
            host_batch: 100,
            host_interceptors: vec![1, 10],
            host_subscribers: 10,
            scenario_timeout: Duration::from_secs(180),
            handshake_timeout: Duration::from_secs(30),
        }
    }

    /// Smoke-test sizes: every figure, little work.
    pub fn quick() -> Self {
        Sizes {
            warmup_echoes: 10,
            echo_calls: 50,
            pipelined_calls: 500,
            event_bursts: vec![100, 1_000, 2_000],
            payload_reps: 2,
            cancel_reps: 2,
            call_tool_reps: 5,
            host_calls: 20,
            scenario_timeout: Duration::from_secs(60),
            ..Self::full()
        }
    }
}

/// Which build of the Rust targets to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// `target/release` (measurements).
    Release,
    /// `target/debug` (smoke tests).
    Debug,
}

impl Profile {
    /// The directory name under the target dir.
    pub fn dir_name(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Debug => "debug",
        }
    }
}

/// Everything a run needs to know.
#[derive(Debug, Clone)]
pub struct Options {
    /// Rounds; each figure is the median over them.
    pub rounds: usize,
    /// Where to write the JSON report.
    pub out: Option<PathBuf>,
    /// Smoke-test sizes.
    pub quick: bool,
    /// Only these targets (all when empty).
    pub only: Vec<String>,
    /// Only these scenarios (all when empty).
    pub scenarios: Vec<ScenarioId>,
    /// Placements to measure.
    pub placements: Vec<Placement>,
    /// Build profile of the Rust targets.
    pub profile: Profile,
    /// Run `cargo build` for the Rust targets first.
    pub build: bool,
    /// Workload sizes.
    pub sizes: Sizes,
    /// Workspace root.
    pub root: PathBuf,
    /// Cargo target directory.
    pub target_dir: PathBuf,
    /// Print every figure as it is measured.
    pub verbose: bool,
    /// Only list the targets and what they support.
    pub list: bool,
    /// A local checkout of zot (`github.com/patriceckhart/zot`) whose Go
    /// SDK the `go-sdk` target is built against (`--go-sdk DIR`, else
    /// `ZOT_GO_SDK`); `None` skips that target.
    pub go_sdk: Option<PathBuf>,
}

/// The workspace root (the parent of this crate).
pub fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

impl Default for Options {
    fn default() -> Self {
        let root = workspace_root();
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .map(|p| if p.is_absolute() { p } else { root.join(p) })
            .unwrap_or_else(|| root.join("target"));
        Options {
            rounds: 5,
            out: None,
            quick: false,
            only: Vec::new(),
            scenarios: Vec::new(),
            placements: Placement::ALL.to_vec(),
            profile: Profile::Release,
            build: true,
            sizes: Sizes::full(),
            root,
            target_dir,
            verbose: false,
            list: false,
            go_sdk: std::env::var_os(GO_SDK_ENV)
                .filter(|v| !v.is_empty())
                .map(|v| absolute(PathBuf::from(v))),
        }
    }
}

/// The environment variable naming the Go SDK checkout (like `--go-sdk`).
pub const GO_SDK_ENV: &str = "ZOT_GO_SDK";

/// `p` made absolute against the current directory (it ends up in a
/// generated `go.mod` elsewhere).
fn absolute(p: PathBuf) -> PathBuf {
    std::path::absolute(&p).unwrap_or(p)
}

/// The `--help` text.
pub const USAGE: &str = "\
zot-bench: plays the host against extensions and measures them against a floor

usage: zot-bench [options]
       zot-bench soak [options]   the host's soak benchmark (see soak --help)
       zot-bench instructions [options]
                                  instructions per frame, counted with callgrind
                                  (see instructions --help)

  --rounds N            rounds (default 5); every figure is the median over them
  --out FILE            also write the results as JSON
  --quick               smoke run: 1 round (unless --rounds), small workloads
  --only T1,T2          only these targets (see --list)
  --scenarios S1,S2     only these scenarios: startup, echo, pipelined, events,
                        payloads, cancel, call_tool, host
  --placements P1,P2    split (different cores), shared (one core); default both
  --profile P           release (default) or debug build of the Rust targets
  --no-build            do not build the Rust and Go targets first
  --go-sdk DIR          a local checkout of github.com/patriceckhart/zot: the
                        `go-sdk` target is built against its Go SDK (default:
                        $ZOT_GO_SDK; without either, go-sdk is skipped)
  --list                list the targets and what they support, then exit
  -v, --verbose         print every figure as it is measured
  -h, --help            this text
";

impl Options {
    /// Parses the command line (without the program name). `Ok(None)` means
    /// `--help` was asked for.
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Option<Self>> {
        let mut o = Options::default();
        let mut rounds = None;
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
                "--rounds" => {
                    let v = value("--rounds")?;
                    let n: usize = v
                        .parse()
                        .map_err(|_| Error::new(format!("--rounds: not a number: {v}")))?;
                    if n == 0 {
                        return Err(Error::new("--rounds must be at least 1"));
                    }
                    rounds = Some(n);
                }
                "--out" => o.out = Some(PathBuf::from(value("--out")?)),
                "--quick" => o.quick = true,
                "--only" => o.only = split_list(&value("--only")?),
                "--scenarios" => {
                    o.scenarios = split_list(&value("--scenarios")?)
                        .iter()
                        .map(|s| {
                            ScenarioId::parse(s)
                                .ok_or_else(|| Error::new(format!("unknown scenario `{s}`")))
                        })
                        .collect::<Result<_>>()?;
                }
                "--placements" => {
                    o.placements = split_list(&value("--placements")?)
                        .iter()
                        .map(|s| {
                            Placement::parse(s)
                                .ok_or_else(|| Error::new(format!("unknown placement `{s}`")))
                        })
                        .collect::<Result<_>>()?;
                }
                "--profile" => {
                    o.profile = match value("--profile")?.as_str() {
                        "release" => Profile::Release,
                        "debug" => Profile::Debug,
                        other => return Err(Error::new(format!("unknown profile `{other}`"))),
                    }
                }
                "--no-build" => o.build = false,
                "--go-sdk" => o.go_sdk = Some(absolute(PathBuf::from(value("--go-sdk")?))),
                "--list" => o.list = true,
                "-v" | "--verbose" => o.verbose = true,
                other => return Err(Error::new(format!("unknown option `{other}` (see --help)"))),
            }
        }
        if o.quick {
            o.sizes = Sizes::quick();
        }
        o.rounds = rounds.unwrap_or(if o.quick { 1 } else { 5 });
        if o.placements.is_empty() {
            return Err(Error::new("--placements: none given"));
        }
        Ok(Some(o))
    }

    /// Directory of the Rust targets' binaries.
    pub fn bin_dir(&self) -> PathBuf {
        self.target_dir.join(self.profile.dir_name())
    }

    /// Whether a scenario is selected.
    pub fn wants(&self, s: ScenarioId) -> bool {
        self.scenarios.is_empty() || self.scenarios.contains(&s)
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Options>> {
        Options::parse(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn parses_the_documented_command() {
        let o = parse(&[
            "--rounds",
            "7",
            "--out=bench/results.json",
            "--only",
            "floor,rust-sdk",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(o.rounds, 7);
        assert_eq!(o.out.unwrap(), PathBuf::from("bench/results.json"));
        assert_eq!(o.only, ["floor", "rust-sdk"]);
        assert_eq!(o.sizes, Sizes::full());
        let q = parse(&["--quick", "--placements", "shared"])
            .unwrap()
            .unwrap();
        assert_eq!(q.rounds, 1);
        assert_eq!(q.sizes, Sizes::quick());
        assert_eq!(q.placements, [Placement::Shared]);
        let g = parse(&["--go-sdk", "/src/zot"]).unwrap().unwrap();
        assert_eq!(g.go_sdk.unwrap(), PathBuf::from("/src/zot"));
        let g = parse(&["--go-sdk=rel/zot"]).unwrap().unwrap();
        assert!(g.go_sdk.unwrap().is_absolute());
        assert!(parse(&["--help"]).unwrap().is_none());
        assert!(parse(&["--rounds", "0"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
        assert!(parse(&["--scenarios", "nope"]).is_err());
    }
}
