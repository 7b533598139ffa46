//! `zot-bench soak`: the host's soak and fault benchmark (issue 13).
//!
//! For each SDK, one long session through the reference host with that
//! SDK's conformance extension (`tests/conformance/<lang>`): 200,000 tool
//! calls, 1,000,000 lifecycle events in all, 100,000 notes ([`plan`]); and
//! a notify flood of 100,000 frames from the floor extension. Each run
//! reads the host's transcript (every tool result checked against its
//! call), counts its wire log (every request has its reply) and samples the
//! RSS of host and extension from `/proc` ([`mod@run`]). Targets: host RSS at
//! the end within 1.5× its RSS after the first 1,000 calls, extension RSS
//! after warm-up within 1.2× of its RSS at the end of the warm-up, no reply
//! lost. See `bench/README.md` ("Soak").

pub mod options;
pub mod plan;
pub mod report;
pub mod run;
pub mod wire;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

pub use options::{SoakOptions, SoakSizes, SOAK_USAGE};
pub use report::{SdkSoak, SoakReport};

use crate::error::{Error, Result};
use crate::spawn::resolve_exec;

/// Runs the soak: builds (unless `--no-build`), runs each SDK and the
/// flood, and returns the report (its `ok` says whether every target was
/// met).
pub fn run(opts: &SoakOptions) -> Result<SoakReport> {
    if opts.base.build {
        crate::prebuild::build(&opts.base)?;
        crate::prebuild::build_host(&opts.base)?;
    }
    let bin = opts.base.bin_dir();
    let host = bin.join("zot-host");
    if !host.is_file() {
        bail!("{} not built", host.display());
    }
    let s = &opts.sizes;
    let plan = plan::Plan::new(s);
    let mut report = SoakReport::new(opts, &plan);
    for sdk in &opts.sdks {
        let dir = run::run_dir(&opts.base.target_dir, sdk);
        std::fs::create_dir_all(&dir)?;
        let result = extension_dir(opts, sdk, &dir).and_then(|ext| {
            let script = dir.join("script.json");
            std::fs::write(&script, serde_json::to_vec_pretty(&plan.script(s))?)?;
            eprintln!(
                "zot-bench soak: {sdk}: {} calls, {} events, {} notes",
                plan.calls, plan.events, plan.notes
            );
            run::HostRun {
                host: &host,
                ext: &ext,
                script: &script,
                dir: &dir,
                baseline_calls: s.baseline_calls as u64,
                warmup_calls: s.warmup_calls as u64,
                sample: Duration::from_millis(s.sample_ms),
                timeout: Duration::from_secs(s.timeout_s),
                final_notes: plan.notes as u64,
                total_calls: (plan.calls + plan.composes) as u64,
                progress: Some(sdk.clone()),
                pause: Duration::from_secs(s.pause_s),
            }
            .run()
        });
        report.push_sdk(sdk, result);
    }
    if s.flood > 0 {
        let dir = run::run_dir(&opts.base.target_dir, "flood");
        std::fs::create_dir_all(&dir)?;
        let result = flood_extension(&bin, &dir).and_then(|ext| {
            let script = dir.join("script.json");
            std::fs::write(
                &script,
                serde_json::to_vec_pretty(&plan::flood_script(s.flood))?,
            )?;
            eprintln!("zot-bench soak: flood: {} notes", s.flood);
            run::HostRun {
                host: &host,
                ext: &ext,
                script: &script,
                dir: &dir,
                baseline_calls: 0,
                warmup_calls: 0,
                sample: Duration::from_millis(s.sample_ms),
                timeout: Duration::from_secs(s.timeout_s),
                final_notes: s.flood,
                total_calls: 1,
                progress: Some("flood".into()),
                pause: Duration::ZERO,
            }
            .run()
        });
        report.push_flood(result);
    }
    report.check();
    Ok(report)
}

/// The conformance extension of `sdk`: Node and Python as they are in the
/// repository; Rust through a manifest that starts the binary of the chosen
/// profile (the committed one points at the debug build).
fn extension_dir(opts: &SoakOptions, sdk: &str, dir: &Path) -> Result<PathBuf> {
    let root = &opts.base.root;
    let lang = sdk.trim_end_matches("-sdk");
    let src = root.join("tests/conformance").join(lang);
    if lang != "rust" {
        // Fails early, with the reason, when the runtime or launcher is missing.
        let m = crate::spawn::Manifest::read(&src)?;
        resolve_exec(&m.exec, &src).map_err(|e| e.context(sdk))?;
        return Ok(src);
    }
    let exe = opts.base.bin_dir().join("conformance-rust");
    if !exe.is_file() {
        bail!("{} not built", exe.display());
    }
    let ext = dir.join("ext");
    std::fs::create_dir_all(&ext)?;
    let manifest = json!({
        "name": "conformance",
        "version": "1.0.0",
        "language": "rust",
        "exec": exe,
    });
    std::fs::write(
        ext.join("extension.json"),
        serde_json::to_vec_pretty(&manifest)?,
    )?;
    Ok(ext)
}

/// The floor with its `flood` tool.
fn flood_extension(bin: &Path, dir: &Path) -> Result<PathBuf> {
    let exe = bin.join("bench-floor");
    if !exe.is_file() {
        return Err(Error::new(format!("{} not built", exe.display())));
    }
    let ext = dir.join("ext");
    std::fs::create_dir_all(&ext)?;
    let manifest = json!({
        "name": "floor-flood",
        "version": "1.0.0",
        "exec": exe,
        "args": ["--name", "floor-flood", "--flood"],
    });
    std::fs::write(
        ext.join("extension.json"),
        serde_json::to_vec_pretty(&manifest)?,
    )?;
    Ok(ext)
}
