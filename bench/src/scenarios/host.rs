//! Host-side scenarios, measured through the reference host
//! (`zot-host run --script`) with copies of the floor as extensions:
//!
//! - start-up: from spawning `zot-host` to its report that every one of N
//!   extensions is ready (the `tools` step, which runs after the readiness
//!   wait), N = 1, 10, 50;
//! - per tool call routed through the host: a prompt answered with K+1
//!   `echo` calls (in model turns of at most 100 calls) against one with 1, `(D(K+1) − D(1)) / K` where `D` is the time
//!   between the host's transcript lines for the prompt and for the final
//!   answer, so that start-up, shutdown and the model turns cancel out; and
//!   that figure minus the floor's direct `echo` p50 (the host's own
//!   overhead);
//! - the same per-call figure with 1 and 10 `tool_call` interceptors, and
//!   with 10 subscribers of `tool_call`/`tool_result` events (fan-out).
//!
//! Placements: `shared` pins the host and its extensions to one core; in
//! `split` they may use every allowed core (the host spawns the extensions,
//! so they cannot be pinned apart without a wrapper that would distort the
//! start-up figure).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use super::{Better, Metric, ScenarioId};
use crate::affinity::{CpuPlan, Placement};
use crate::config::{Options, Sizes};
use crate::conn::Conn;
use crate::error::{Error, Result};
use crate::results::Samples;
use crate::spawn::LaunchSpec;
use crate::stats::median;

/// The target name host figures are filed under.
pub const HOST_TARGET: &str = "zot-host";

/// The figures.
pub fn metrics(sizes: &Sizes) -> Vec<Metric> {
    let m = |id: String, label: String, unit| {
        Metric::new(ScenarioId::Host, id, label, unit, Better::Lower)
    };
    let mut v: Vec<Metric> = sizes
        .host_startup_counts
        .iter()
        .map(|n| {
            m(
                startup_id(*n),
                format!("zot-host start → {n} extension(s) ready"),
                "ms",
            )
        })
        .collect();
    v.push(m(
        "host.per_call_us".into(),
        "tool call routed through the host".into(),
        "µs",
    ));
    v.push(m(
        "host.overhead_us".into(),
        "… minus the floor's direct echo p50".into(),
        "µs",
    ));
    for n in &sizes.host_interceptors {
        v.push(m(
            intercept_id(*n),
            format!("tool call with {n} tool_call interceptor(s)"),
            "µs",
        ));
    }
    v.push(m(
        fanout_id(sizes.host_subscribers),
        format!(
            "tool call with events fanned out to {} subscribers",
            sizes.host_subscribers
        ),
        "µs",
    ));
    v
}

fn startup_id(n: usize) -> String {
    format!("host.startup_{n}_ms")
}

fn intercept_id(n: usize) -> String {
    format!("host.intercept_{n}_per_call_us")
}

fn fanout_id(n: usize) -> String {
    format!("host.fanout_{n}_per_call_us")
}

/// Where the host scenarios find their binaries and keep their files.
#[derive(Debug, Clone)]
pub struct HostSetup {
    /// `zot-host`.
    pub host: PathBuf,
    /// `bench-floor` (absolute).
    pub floor: PathBuf,
    /// Working directory: generated extensions, scripts, `ZOT_HOME`, logs.
    pub dir: PathBuf,
}

impl HostSetup {
    /// Finds a `zot-host` with `run --script` next to the floor binary; the
    /// error says why the host scenarios cannot run.
    pub fn find(opts: &Options) -> std::result::Result<Self, String> {
        let bin = opts.bin_dir();
        let host = bin.join("zot-host");
        let floor = bin.join("bench-floor");
        if !host.is_file() {
            return Err(format!("{} not built", host.display()));
        }
        if !floor.is_file() {
            return Err(format!("{} not built", floor.display()));
        }
        let help = Command::new(&host)
            .args(["run", "--help"])
            .output()
            .map_err(|e| format!("{}: {e}", host.display()))?;
        if !String::from_utf8_lossy(&help.stdout).contains("--script") {
            return Err("`zot-host run` has no --script option".into());
        }
        let dir = opts.target_dir.join("zot-bench").join("host");
        for sub in ["ext", "home", "cwd", "scripts"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
        }
        Ok(HostSetup { host, floor, dir })
    }

    /// Writes the directory of one floor copy named `name` with `args`.
    fn extension(&self, name: &str, args: &[&str]) -> Result<PathBuf> {
        let dir = self.dir.join("ext").join(name);
        std::fs::create_dir_all(&dir)?;
        let mut argv = vec!["--name", name];
        argv.extend_from_slice(args);
        let manifest = json!({
            "name": name,
            "version": "1.0.0",
            "exec": self.floor,
            "args": argv,
        });
        std::fs::write(
            dir.join("extension.json"),
            serde_json::to_vec_pretty(&manifest)?,
        )?;
        Ok(dir)
    }

    /// The tool provider (no events) plus `extra` copies with `args`.
    fn extensions(&self, prefix: &str, extra: usize, args: &[&str]) -> Result<Vec<PathBuf>> {
        let mut v = vec![self.extension("floor-provider", &["--no-events"])?];
        for i in 0..extra {
            v.push(self.extension(&format!("{prefix}-{i}"), args)?);
        }
        Ok(v)
    }

    /// A script: the `tools` step (after the readiness wait), then, with
    /// `calls > 0`, one prompt answered by model turns of at most `batch`
    /// `echo` calls each, then a final text turn. (A turn announces all its
    /// calls as `tool_call` events at once; more than the host's outbound
    /// queue holds (256 frames) would disconnect every subscriber.)
    fn script(&self, calls: usize, batch: usize) -> Result<PathBuf> {
        let mut steps = vec![json!({ "tools": true })];
        if calls > 0 {
            let ids: Vec<usize> = (0..calls).collect();
            let mut replies: Vec<_> = ids
                .chunks(batch.max(1))
                .map(|chunk| {
                    let tool_calls: Vec<_> = chunk
                        .iter()
                        .map(|i| json!({ "name": "echo", "args": { "text": format!("call {i}") } }))
                        .collect();
                    json!({ "tool_calls": tool_calls })
                })
                .collect();
            replies.push(json!({ "text": "done" }));
            steps.push(json!({ "prompt": "go", "replies": replies }));
        }
        let script = json!({ "mode": "print", "confirm": "yolo", "steps": steps });
        let path = self.dir.join("scripts").join(format!("calls-{calls}.json"));
        std::fs::write(&path, serde_json::to_vec(&script)?)?;
        Ok(path)
    }

    /// Runs `zot-host` once with these extensions and script, on `cpus`.
    fn run(
        &self,
        exts: &[PathBuf],
        script: &Path,
        cpus: &[usize],
        harness: &[usize],
        within: Duration,
    ) -> Result<HostTimes> {
        let mut args: Vec<String> = vec!["run".into(), "--script".into()];
        args.push(script.display().to_string());
        args.extend(["--json", "--no-ext"].map(String::from));
        args.push("--zot-home".into());
        args.push(self.dir.join("home").display().to_string());
        args.push("--cwd".into());
        args.push(self.dir.join("cwd").display().to_string());
        for e in exts {
            args.push("-e".into());
            args.push(e.display().to_string());
        }
        let spec = LaunchSpec {
            program: self.host.clone(),
            args,
            cwd: self.dir.clone(),
        };
        let (child, t0) = spec.spawn(cpus, harness, &self.dir.join("zot-host.stderr.log"))?;
        let mut conn = Conn::new(child)?;
        conn.arm(within);
        let (mut ready, mut prompt, mut done, mut loaded) = (None, None, None, 0);
        loop {
            let line = match conn.recv_line() {
                Ok(l) => l,
                Err(e) if e.0.contains("closed stdout") && !e.0.contains("watchdog") => break,
                Err(e) => return Err(e),
            };
            let at = t0.elapsed();
            let v: serde_json::Value = serde_json::from_slice(line)?;
            match v["kind"].as_str().unwrap_or_default() {
                "tools" if ready.is_none() => ready = Some(at),
                "user" if prompt.is_none() => prompt = Some(at),
                "assistant" if v["text"] == "done" => done = Some(at),
                "loaded" => loaded += 1,
                "load_error" | "expect_failed" | "disconnected" => {
                    return Err(Error::new(format!("zot-host reported {v}")));
                }
                _ => {}
            }
        }
        let status = conn.finish(None);
        if !status.is_some_and(|s| s.success()) {
            bail!("zot-host exited with {status:?}");
        }
        if loaded != exts.len() {
            bail!("zot-host loaded {loaded} of {} extensions", exts.len());
        }
        Ok(HostTimes {
            ready: ready.ok_or_else(|| Error::new("zot-host printed no `tools` step"))?,
            turns: match (prompt, done) {
                (Some(p), Some(d)) => Some(d.saturating_sub(p)),
                _ => None,
            },
        })
    }

    /// Per-call time with these extensions: `(D(K+1) − D(1)) / K` in µs,
    /// where `D` runs from the host's `user` line to the final `assistant`
    /// line (the prompt's two model turns and its tool calls).
    fn per_call(
        &self,
        exts: &[PathBuf],
        sizes: &Sizes,
        cpus: &[usize],
        harness: &[usize],
    ) -> Result<f64> {
        let (k, within) = (sizes.host_calls, sizes.scenario_timeout);
        let one = self.script(1, sizes.host_batch)?;
        let many = self.script(k + 1, sizes.host_batch)?;
        let turns = |script: &Path| -> Result<Duration> {
            self.run(exts, script, cpus, harness, within)?
                .turns
                .ok_or_else(|| Error::new("zot-host printed no `user`/`assistant` lines"))
        };
        let d1 = turns(&one)?;
        let dk = turns(&many)?;
        Ok((dk.as_secs_f64() - d1.as_secs_f64()) * 1e6 / k.max(1) as f64)
    }
}

/// What one `zot-host` run took.
#[derive(Debug, Clone, Copy)]
struct HostTimes {
    /// Spawn → the `tools` step (every extension ready).
    ready: Duration,
    /// The prompt's `user` line → its final `assistant` line.
    turns: Option<Duration>,
}

/// The cores of the host (and its extensions) and of the harness.
fn cores(plan: &CpuPlan, p: Placement) -> (Vec<usize>, Vec<usize>) {
    match p {
        Placement::Shared => (vec![plan.harness], vec![plan.harness]),
        Placement::Split => (plan.allowed.clone(), plan.allowed.clone()),
    }
}

/// One warm-up run (page cache, first-run costs); an error means the host
/// cannot be used.
pub fn warm_up(setup: &HostSetup, plan: &CpuPlan, sizes: &Sizes) -> Result<()> {
    let exts = setup.extensions("warm", 1, &["--no-tools"])?;
    let script = setup.script(2, sizes.host_batch)?;
    setup.run(
        &exts,
        &script,
        &plan.allowed,
        &plan.allowed,
        sizes.scenario_timeout,
    )?;
    Ok(())
}

/// One round of the host scenarios in one placement. Failures are returned
/// per figure (`(metric, error)`); successes go into `samples`.
pub fn run_round(
    setup: &HostSetup,
    plan: &CpuPlan,
    p: Placement,
    sizes: &Sizes,
    samples: &mut Samples,
) -> Vec<(String, Error)> {
    let (cpus, harness) = cores(plan, p);
    let within = sizes.scenario_timeout;
    let mut errors = Vec::new();
    let mut record = |id: String, r: Result<f64>, samples: &mut Samples| match r {
        Ok(v) => samples.push(p, HOST_TARGET, &id, v),
        Err(e) => errors.push((id, e)),
    };

    for &n in &sizes.host_startup_counts {
        let r = setup
            .extensions("start", n.saturating_sub(1), &["--no-tools", "--no-events"])
            .and_then(|exts| {
                let script = setup.script(0, sizes.host_batch)?;
                let times = setup.run(&exts, &script, &cpus, &harness, within)?;
                Ok(times.ready.as_secs_f64() * 1e3)
            });
        record(startup_id(n), r, samples);
    }

    let base = setup
        .extensions("plain", 0, &[])
        .and_then(|exts| setup.per_call(&exts, sizes, &cpus, &harness));
    if let Ok(per_call) = &base {
        // The floor's direct echo p50 in this placement, so far.
        if let Some(direct) = samples
            .get(p, crate::targets::FLOOR, "echo.p50_us")
            .and_then(median)
        {
            samples.push(p, HOST_TARGET, "host.overhead_us", per_call - direct);
        }
    }
    record("host.per_call_us".into(), base, samples);

    for &m in &sizes.host_interceptors {
        let r = setup
            .extensions("icpt", m, &["--no-tools", "--no-events", "--intercept"])
            .and_then(|exts| setup.per_call(&exts, sizes, &cpus, &harness));
        record(intercept_id(m), r, samples);
    }

    let n = sizes.host_subscribers;
    let r = setup
        .extensions("sub", n, &["--no-tools"])
        .and_then(|exts| setup.per_call(&exts, sizes, &cpus, &harness));
    record(fanout_id(n), r, samples);
    errors
}
