//! `zot-bench`: runs the benchmarks, prints the tables, writes the JSON.

use std::process::ExitCode;

use zot_bench::config::{Options, USAGE};
use zot_bench::runner;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("soak") {
        args.next();
        return soak(args);
    }
    if args.peek().map(String::as_str) == Some("instructions") {
        args.next();
        return instructions(args);
    }
    let opts = match Options::parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("zot-bench: {e}");
            return ExitCode::from(2);
        }
    };
    if opts.list {
        return list(&opts);
    }
    let report = match runner::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("zot-bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", report.to_markdown());
    if let Some(path) = &opts.out {
        let json = serde_json::to_string_pretty(&report).expect("report serializes");
        if let Err(e) = std::fs::write(path, json + "\n") {
            eprintln!("zot-bench: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("zot-bench: wrote {}", path.display());
    }
    if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!("zot-bench: {} scenario run(s) failed", report.errors.len());
        ExitCode::FAILURE
    }
}

/// `--list`: probes every target and prints what it supports.
fn list(opts: &Options) -> ExitCode {
    let plan = match zot_bench::affinity::CpuPlan::detect() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("zot-bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (prepared, statuses) = match runner::prepare(opts, &plan) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("zot-bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    for t in &statuses {
        let state = if t.measured { "ok" } else { "skipped" };
        println!("{:<11} {:<8} {}", t.name, state, t.what);
        if let Some(note) = &t.note {
            println!("{:<11}          {note}", "");
        }
        if let Some(p) = prepared.iter().find(|p| p.target.name == t.name) {
            println!("{:<11}          {}", "", p.spec.program.display());
            for s in zot_bench::scenarios::ScenarioId::PER_TARGET {
                if let Err(why) = s.applies(&p.target, p.info.as_ref()) {
                    println!("{:<11}          no {}: {why}", "", s.name());
                }
            }
        }
    }
    ExitCode::SUCCESS
}

/// `zot-bench soak`: the host's soak benchmark.
fn soak(args: impl Iterator<Item = String>) -> ExitCode {
    let opts = match zot_bench::soak::SoakOptions::parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{}", zot_bench::soak::SOAK_USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("zot-bench soak: {e}");
            return ExitCode::from(2);
        }
    };
    let report = match zot_bench::soak::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("zot-bench soak: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", report.to_markdown());
    if let Some(path) = &opts.out {
        let json = serde_json::to_string_pretty(&report).expect("report serializes");
        if let Err(e) = std::fs::write(path, json + "\n") {
            eprintln!("zot-bench soak: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("zot-bench soak: wrote {}", path.display());
    }
    if report.ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("zot-bench soak: a target was missed or a run failed (see above)");
        ExitCode::FAILURE
    }
}

/// `zot-bench instructions`: instructions per frame, counted with callgrind.
fn instructions(args: impl Iterator<Item = String>) -> ExitCode {
    use zot_bench::instructions::{self, InstrOptions, INSTR_USAGE};
    let opts = match InstrOptions::parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{INSTR_USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("zot-bench instructions: {e}");
            return ExitCode::from(2);
        }
    };
    let report = match instructions::run(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("zot-bench instructions: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", report.to_markdown());
    if let Some(path) = &opts.out {
        let json = serde_json::to_string_pretty(&report).expect("report serializes");
        if let Err(e) = std::fs::write(path, json + "\n") {
            eprintln!("zot-bench instructions: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("zot-bench instructions: wrote {}", path.display());
    }
    if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "zot-bench instructions: {} count(s) failed",
            report.errors.len()
        );
        ExitCode::FAILURE
    }
}
