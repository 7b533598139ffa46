//! `zot-bench instructions`: instructions per frame of each target,
//! counted with callgrind instead of timed, so that the figures repeat on
//! a machine whose other load makes wall-clock rates spread. Each target
//! runs twice per scenario under `valgrind --tool=callgrind`, with N1 and
//! N2 frames; `(I(N2) − I(N1)) / (N2 − N1)` is its count per frame
//! ([`count::per_frame`]). See `bench/README.md` ("Instructions per frame").

pub mod callgrind;
pub mod count;
pub mod options;
pub mod report;
pub mod workload;

use std::path::Path;
use std::time::Duration;

pub use options::{InstrOptions, INSTR_USAGE};
pub use report::InstrReport;

use crate::affinity::{CpuPlan, Placement};
use crate::error::{Error, Result};
use crate::frames;
use crate::meta::Meta;
use crate::runner::{self, Prepared};
use crate::scenario_id::ScenarioId;
use crate::session::{Session, StartParams};
use count::Run;
use report::{Failure, Row};

/// Small `echo` round trips before the workload (as in the timed runs).
const WARMUP_ECHOES: usize = 200;
/// Start-up under callgrind: a runtime's start is some 50 times slower.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(600);
/// One whole counted run.
const RUN_TIMEOUT: Duration = Duration::from_secs(3600);
/// From `shutdown` to the exit, when callgrind writes its count.
const EXIT_GRACE: Duration = Duration::from_secs(120);

/// Where one counted run happens.
struct Bench<'a> {
    valgrind: &'a Path,
    dir: &'a Path,
    keep: Option<&'a Path>,
    cores: (usize, usize),
    text: &'a str,
}

/// Counts every selected target in every selected scenario. Fails at once
/// (nothing counted) when valgrind is missing.
pub fn run(o: &InstrOptions) -> Result<InstrReport> {
    let (valgrind, version) = callgrind::find_valgrind()?;
    let meta = Meta::collect(&o.base.root);
    let plan = CpuPlan::detect()?;
    let mut skipped = Vec::new();
    if o.base.build {
        eprintln!(
            "zot-bench: building the Rust targets ({})",
            o.base.profile.dir_name()
        );
        if let Err(e) = crate::prebuild::build(&o.base) {
            skipped.push(failure("rust targets", None, e.to_string()));
        }
    }
    let (prepared, statuses) = runner::prepare(&o.base, &plan)?;
    for t in statuses.iter().filter(|t| t.selected && !t.measured) {
        skipped.push(failure(&t.name, None, t.note.clone().unwrap_or_default()));
    }
    let dir = o.base.target_dir.join("zot-bench/callgrind");
    std::fs::create_dir_all(&dir).map_err(|e| Error::new(format!("{}: {e}", dir.display())))?;
    let cores = plan
        .cores(Placement::Split)
        .or_else(|| plan.cores(Placement::Shared))
        .ok_or_else(|| Error::new("no usable core"))?;
    let text = o.base.sizes.echo_text.clone();
    let bench = Bench {
        valgrind: &valgrind,
        dir: &dir,
        keep: o.keep.as_deref(),
        cores,
        text: &text,
    };
    let (mut rows, mut errors) = (Vec::new(), Vec::new());
    for p in &prepared {
        let status = statuses.iter().find(|t| t.name == p.target.name);
        for &s in &o.scenarios {
            if let Err(why) = s.applies(&p.target, p.info.as_ref()) {
                skipped.push(failure(p.target.name, Some(s), why));
                continue;
            }
            let (n1, n2) = o.frames(s);
            eprintln!(
                "zot-bench: counting {} {} ({n1} and {n2} frames)",
                p.target.name,
                s.name()
            );
            let counted = bench
                .count(p, s, n1)
                .and_then(|short| Ok((short, bench.count(p, s, n2)?)))
                .and_then(|(short, long)| Ok((short, long, count::per_frame(short, long)?)));
            match counted {
                Ok((short, long, per_frame)) => {
                    eprintln!("zot-bench:   {} per frame", count::short(per_frame));
                    rows.push(Row {
                        target: p.target.name.to_owned(),
                        scenario: s,
                        runs: [short, long],
                        per_frame,
                        baseline: status.and_then(report::baseline_of),
                        ratio: None,
                    });
                }
                Err(e) => errors.push(failure(p.target.name, Some(s), e.to_string())),
            }
        }
    }
    report::set_ratios(&mut rows);
    Ok(InstrReport {
        meta,
        valgrind: version,
        rows,
        skipped,
        errors,
    })
}

fn failure(target: &str, scenario: Option<ScenarioId>, message: String) -> Failure {
    Failure {
        target: target.to_owned(),
        scenario,
        message,
    }
}

impl Bench<'_> {
    /// One counted run: start under callgrind, handshake, warm-up, `n`
    /// frames, shutdown, and the count callgrind wrote at the exit. Its
    /// files are removed whether it succeeded or not.
    fn count(&self, p: &Prepared, s: ScenarioId, n: u64) -> Result<Run> {
        // The harness's pid keeps two counts running at once apart.
        let stem = self.dir.join(format!(
            "{}-{}-{n}-{}",
            p.target.name,
            s.name(),
            std::process::id()
        ));
        callgrind::clear(&stem)?;
        let counted = self.count_into(p, s, n, &stem);
        let kept = self.keep.map_or(Ok(()), |dir| callgrind::copy(&stem, dir));
        let cleared = callgrind::clear(&stem);
        kept?;
        let instructions = counted?;
        cleared?;
        Ok(Run {
            frames: n,
            instructions,
        })
    }

    fn count_into(&self, p: &Prepared, s: ScenarioId, n: u64, stem: &Path) -> Result<u64> {
        let spec = callgrind::wrap(&p.spec, self.valgrind, stem);
        let params = StartParams {
            harness_cpu: self.cores.0,
            target_cpu: self.cores.1,
            log: &p.log,
            handshake_timeout: HANDSHAKE_TIMEOUT,
        };
        let mut session = Session::start(&spec, false, params)?;
        session.conn.arm(RUN_TIMEOUT);
        let fed = session
            .warm_up(WARMUP_ECHOES, self.text)
            .and_then(|()| workload::feed(&mut session, s, n, self.text));
        let exited = session
            .conn
            .finish_within(Some(frames::SHUTDOWN), EXIT_GRACE);
        fed?;
        if exited.is_none() {
            bail!(
                "the target did not exit within {} s of `shutdown` (killed: callgrind writes its count only at a clean exit)",
                EXIT_GRACE.as_secs()
            );
        }
        callgrind::total_of_run(stem)
    }
}
