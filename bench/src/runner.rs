//! The run: prepare the targets (build, resolve, probe), then the rounds —
//! every placement, every scenario, every target in a fresh process, with
//! the target order rotated each round so that drifting machine noise hits
//! every target alike — and finally the report.

use std::path::PathBuf;

use crate::affinity::{self, CpuPlan, Placement};
use crate::config::Options;
use crate::error::{Error, Result};
use crate::goals;
use crate::handshake::ExtInfo;
use crate::meta::Meta;
use crate::report::{NotApplicable, Report, RunError, TargetStatus};
use crate::results::{cells, Samples};
use crate::scenarios::host::{self, HostSetup, HOST_TARGET};
use crate::scenarios::{Figure, ScenarioId};
use crate::session::{Session, StartParams};
use crate::spawn::LaunchSpec;
use crate::targets::{catalog, Target, FLOOR};

/// A target ready to be measured.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The target.
    pub target: Target,
    /// How to start it.
    pub spec: LaunchSpec,
    /// What it announced when probed (`None` for the pipe).
    pub info: Option<ExtInfo>,
    /// Its stderr log.
    pub log: PathBuf,
}

/// Resolves and probes every selected target: a missing or broken target
/// is returned as a skipped status instead. The probe (one spawn,
/// handshake, one `echo`, shutdown) also warms the page cache.
pub fn prepare(opts: &Options, plan: &CpuPlan) -> Result<(Vec<Prepared>, Vec<TargetStatus>)> {
    let all = catalog(opts);
    for name in &opts.only {
        if name != HOST_TARGET && !all.iter().any(|t| t.name == name) {
            let names: Vec<&str> = all.iter().map(|t| t.name).collect();
            return Err(Error::new(format!(
                "unknown target `{name}` (known: {})",
                names.join(", ")
            )));
        }
    }
    let log_dir = opts.target_dir.join("zot-bench");
    std::fs::create_dir_all(&log_dir)
        .map_err(|e| Error::new(format!("{}: {e}", log_dir.display())))?;
    let (hc, ec) = plan
        .cores(Placement::Split)
        .or_else(|| plan.cores(Placement::Shared))
        .ok_or_else(|| Error::new("no usable core"))?;
    let mut ready = Vec::new();
    let mut statuses = Vec::new();
    for target in all {
        let mut status = TargetStatus {
            name: target.name.to_owned(),
            what: target.what.to_owned(),
            role: target.role,
            raw_baseline: target.raw_baseline.map(str::to_owned),
            selected: opts.only.is_empty() || opts.only.iter().any(|n| n == target.name),
            measured: false,
            note: None,
            program: None,
            info: None,
        };
        if !status.selected {
            status.note = Some("not selected (--only)".into());
            statuses.push(status);
            continue;
        }
        let log = log_dir.join(format!("{}.stderr.log", target.name));
        let built = match &target.go_build {
            Some(b) if opts.build => crate::prebuild::build_go(b),
            Some(b) if !b.binary_path().is_file() => Err(Error::new(format!(
                "{} is not built (--no-build; --go-sdk DIR builds it)",
                b.binary_path().display()
            ))),
            _ => Ok(()),
        };
        // A build failure is the whole reason: the stderr log is older.
        let built_ok = built.is_ok();
        let spec = built.and_then(|()| target.launch_spec(&opts.root));
        let probed = spec.and_then(|spec| {
            status.program = Some(spec.program.display().to_string());
            let params = StartParams {
                target_cpu: ec,
                harness_cpu: hc,
                log: &log,
                handshake_timeout: opts.sizes.handshake_timeout,
            };
            let mut s = Session::start(&spec, !target.is_extension(), params)
                .map_err(|e| e.context("probe"))?;
            s.conn.arm(opts.sizes.handshake_timeout);
            let echoed = s.echo(&opts.sizes.echo_text);
            let info = s.info.clone();
            s.finish();
            echoed.map_err(|e| e.context("probe echo"))?;
            Ok((spec, info))
        });
        match probed {
            Ok((spec, info)) => {
                let info = target.is_extension().then_some(info);
                status.measured = true;
                status.info = info.clone();
                ready.push(Prepared {
                    target,
                    spec,
                    info,
                    log,
                });
            }
            Err(e) => {
                let tail = last_line(&log)
                    .filter(|_| built_ok)
                    .map_or_else(String::new, |l| format!("; stderr: {l}"));
                status.note = Some(format!("{e}{tail}"));
            }
        }
        statuses.push(status);
    }
    affinity::pin_current_thread(&plan.allowed)?;
    Ok((ready, statuses))
}

/// The last non-empty line of a log file.
fn last_line(path: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().rev().find(|l| !l.trim().is_empty())?;
    Some(line.chars().take(300).collect())
}

/// Runs one scenario on one target in a fresh process.
pub fn run_one(
    p: &Prepared,
    scenario: ScenarioId,
    (harness_cpu, target_cpu): (usize, usize),
    opts: &Options,
) -> Result<Vec<Figure>> {
    let params = StartParams {
        target_cpu,
        harness_cpu,
        log: &p.log,
        handshake_timeout: opts.sizes.handshake_timeout,
    };
    let mut s = Session::start(&p.spec, !p.target.is_extension(), params)?;
    s.conn.arm(opts.sizes.scenario_timeout);
    let result = if scenario.warms_up() {
        s.warm_up(opts.sizes.warmup_echoes, &opts.sizes.echo_text)
            .map_err(|e| e.context("warm-up"))
            .and_then(|()| scenario.run(&mut s, &opts.sizes))
    } else {
        scenario.run(&mut s, &opts.sizes)
    };
    s.finish();
    result
}

/// The whole run.
pub fn run(opts: &Options) -> Result<Report> {
    let plan = CpuPlan::detect()?;
    let mut notes = Vec::new();
    let placements: Vec<Placement> = opts
        .placements
        .iter()
        .copied()
        .filter(|&p| {
            let ok = plan.cores(p).is_some();
            if !ok {
                notes.push(format!("placement `{}` needs two cores; skipped", p.name()));
            }
            ok
        })
        .collect();
    let want_host = opts.wants(ScenarioId::Host)
        && (opts.only.is_empty() || opts.only.iter().any(|n| n == HOST_TARGET));
    if opts.build {
        eprintln!(
            "zot-bench: building the Rust targets ({})",
            opts.profile.dir_name()
        );
        if let Err(e) = crate::prebuild::build(opts) {
            notes.push(e.to_string());
        }
        if want_host {
            if let Err(e) = crate::prebuild::build_host(opts) {
                notes.push(e.to_string());
            }
        }
    }
    let (prepared, statuses) = prepare(opts, &plan)?;
    let host_setup = if want_host {
        let found = HostSetup::find(opts).and_then(|setup| {
            host::warm_up(&setup, &plan, &opts.sizes)
                .map(|()| setup)
                .map_err(|e| format!("warm-up run failed: {e}"))
        });
        match found {
            Ok(setup) => Some(setup),
            Err(why) => {
                eprintln!("zot-bench: host-side scenarios skipped: {why}");
                notes.push(format!("host-side scenarios skipped: {why}"));
                None
            }
        }
    } else {
        None
    };
    for t in statuses.iter().filter(|t| t.selected && !t.measured) {
        eprintln!(
            "zot-bench: skipping {}: {}",
            t.name,
            t.note.as_deref().unwrap_or("")
        );
    }
    let scenarios: Vec<ScenarioId> = ScenarioId::PER_TARGET
        .into_iter()
        .filter(|&s| opts.wants(s))
        .collect();

    let mut not_applicable = Vec::new();
    for p in &prepared {
        for &s in &scenarios {
            if let Err(reason) = s.applies(&p.target, p.info.as_ref()) {
                not_applicable.push(NotApplicable {
                    target: p.target.name.to_owned(),
                    scenario: s,
                    reason,
                });
            }
        }
    }

    let mut samples = Samples::default();
    let mut errors = Vec::new();
    let n = prepared.len();
    for round in 0..opts.rounds {
        for &placement in &placements {
            let cores = plan.cores(placement).expect("filtered above");
            affinity::pin_current_thread(&[cores.0])?;
            eprint!(
                "zot-bench: round {}/{} {}:",
                round + 1,
                opts.rounds,
                placement.name()
            );
            for &scenario in &scenarios {
                eprint!(" {}", scenario.name());
                for k in 0..n {
                    let p = &prepared[(k + round) % n];
                    if scenario.applies(&p.target, p.info.as_ref()).is_err() {
                        continue;
                    }
                    match run_one(p, scenario, cores, opts) {
                        Ok(figures) => {
                            for f in figures {
                                if opts.verbose {
                                    eprint!(
                                        "\n  {} {} {} = {:.3}",
                                        placement.name(),
                                        p.target.name,
                                        f.metric,
                                        f.value
                                    );
                                }
                                samples.push(placement, p.target.name, &f.metric, f.value);
                            }
                        }
                        Err(e) => {
                            eprint!(" [{} failed]", p.target.name);
                            errors.push(RunError {
                                round,
                                placement,
                                scenario,
                                target: p.target.name.to_owned(),
                                message: e.to_string(),
                            });
                        }
                    }
                }
            }
            if let Some(setup) = &host_setup {
                eprint!(" host");
                for (metric, e) in
                    host::run_round(setup, &plan, placement, &opts.sizes, &mut samples)
                {
                    eprint!(" [{metric} failed]");
                    errors.push(RunError {
                        round,
                        placement,
                        scenario: ScenarioId::Host,
                        target: HOST_TARGET.to_owned(),
                        message: format!("{metric}: {e}"),
                    });
                }
                affinity::pin_current_thread(&[cores.0])?;
            }
            eprintln!();
        }
    }
    affinity::pin_current_thread(&plan.allowed)?;

    let raw_of = |t: &str| {
        prepared
            .iter()
            .find(|p| p.target.name == t)
            .and_then(|p| p.target.raw_baseline.map(str::to_owned))
    };
    let cells = cells(&samples, FLOOR, raw_of);
    let mut metrics = Vec::new();
    for s in scenarios
        .iter()
        .copied()
        .chain(host_setup.is_some().then_some(ScenarioId::Host))
    {
        metrics.extend(s.metrics(&opts.sizes));
    }
    let goals = goals::check(&goals::goals(&opts.sizes.event_bursts), &placements, &cells);
    Ok(Report {
        meta: Meta::collect(&opts.root),
        rounds: opts.rounds,
        quick: opts.quick,
        sizes: opts.sizes.clone(),
        cpus: plan,
        placements,
        targets: statuses,
        metrics,
        cells,
        not_applicable,
        errors,
        goals,
        notes,
    })
}
