//! The cross-language conformance suite.
//!
//! Runs every session script in `tests/conformance/scripts/` through
//! `zot-host` against the conformance extension of each language
//! (`tests/conformance/<lang>/`), normalises the wire transcripts and checks
//! that they are identical to the committed `tests/conformance/expected/`
//! transcript (hence to each other), that every session ended with the
//! extension exiting 0 by itself, and that no scripted expectation failed.
//!
//! ```text
//! zot-conformance [--host PATH] [--lang rust,node,python] [--only SCRIPT,...] [--bless]
//! ```
//!
//! `--bless` rewrites the expected transcripts from the first language given.

mod normalize;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use normalize::{first_difference, normalize, Context, Transcript};
use serde_json::Value;

struct Options {
    host: PathBuf,
    langs: Vec<String>,
    only: Vec<String>,
    bless: bool,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../..")
        .canonicalize()
        .expect("the repository root exists")
}

fn parse_args() -> Result<Options, String> {
    let root = root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let mut o = Options {
        host: target.join("debug/zot-host"),
        langs: vec!["rust".into(), "node".into(), "python".into()],
        only: Vec::new(),
        bless: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--host" => o.host = PathBuf::from(value("--host")?),
            "--lang" => o.langs = value("--lang")?.split(',').map(str::to_owned).collect(),
            "--only" => o.only = value("--only")?.split(',').map(str::to_owned).collect(),
            "--bless" => o.bless = true,
            "-h" | "--help" => {
                println!("usage: zot-conformance [--host PATH] [--lang rust,node,python] [--only SCRIPT,...] [--bless]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    Ok(o)
}

/// One run of one script against one language.
struct Run {
    transcript: Transcript,
    problems: Vec<String>,
}

fn run_one(o: &Options, script: &Path, lang: &str) -> Result<Run, String> {
    let ext_dir = root().join("tests/conformance").join(lang);
    let ext_dir = ext_dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", ext_dir.display()))?;
    let name = script.file_stem().unwrap().to_string_lossy().into_owned();
    let work = std::env::temp_dir().join(format!(
        "zot-conformance-{}-{lang}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&work);
    let (cwd, home) = (work.join("project"), work.join("zot-home"));
    for d in [&cwd, &home] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let wire = work.join("wire.jsonl");
    let out = Command::new(&o.host)
        .arg("run")
        .arg("--script")
        .arg(script)
        .arg("--ext")
        .arg(&ext_dir)
        .arg("--no-ext")
        .arg("--json")
        .arg("--wire")
        .arg(&wire)
        .arg("--cwd")
        .arg(&cwd)
        .arg("--zot-home")
        .arg(&home)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", o.host.display()))?;
    let mut problems = Vec::new();
    if !out.status.success() {
        problems.push(format!(
            "zot-host exited with {} ({})",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // The JSON transcript: no failed expectation, no load error, and the
    // extension ended by itself with status 0.
    let mut exited = false;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(step) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match step.get("kind").and_then(Value::as_str) {
            Some("expect_failed" | "load_error" | "disconnected") => {
                problems.push(format!("host reported: {line}"))
            }
            Some("exited") => {
                exited = true;
                if step.get("status").and_then(Value::as_str) != Some("exit status 0")
                    || step.get("escalated").is_some()
                {
                    problems.push(format!("the extension did not exit cleanly: {line}"));
                }
            }
            _ => {}
        }
    }
    if !exited {
        problems.push("no `exited` step: the extension process was not seen ending".into());
    }
    let wire_text =
        std::fs::read_to_string(&wire).map_err(|e| format!("{}: {e}", wire.display()))?;
    let (cwd_s, ext_s) = (cwd.to_string_lossy(), ext_dir.to_string_lossy());
    let ctx = Context {
        paths: vec![(&ext_s, "<ext_dir>"), (&cwd_s, "<cwd>")],
    };
    let transcript = normalize(&wire_text, &ctx)?;
    let _ = std::fs::remove_dir_all(&work);
    Ok(Run {
        transcript,
        problems,
    })
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("zot-conformance: {e}");
            return ExitCode::from(2);
        }
    };
    if !o.host.exists() {
        eprintln!(
            "zot-conformance: no host at {} (build it: cargo build -p zot-host)",
            o.host.display()
        );
        return ExitCode::from(2);
    }
    let base = root().join("tests/conformance");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(base.join("scripts"))
        .expect("tests/conformance/scripts exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| {
            o.only.is_empty()
                || o.only
                    .iter()
                    .any(|n| p.file_stem().is_some_and(|s| s == n.as_str()))
        })
        .collect();
    scripts.sort();
    if scripts.is_empty() {
        eprintln!("zot-conformance: no script selected");
        return ExitCode::from(2);
    }

    let mut failures = 0;
    let mut checks = 0;
    for script in &scripts {
        let name = script.file_stem().unwrap().to_string_lossy().into_owned();
        let expected_path = base.join("expected").join(format!("{name}.txt"));
        for (i, lang) in o.langs.iter().enumerate() {
            checks += 1;
            let label = format!("{name:<14} {lang:<7}");
            let run = match run_one(&o, script, lang) {
                Ok(r) => r,
                Err(e) => {
                    failures += 1;
                    println!("✘ {label} {e}");
                    continue;
                }
            };
            if o.bless && i == 0 {
                std::fs::write(&expected_path, run.transcript.render())
                    .expect("expected/ is writable");
            }
            let expected = std::fs::read_to_string(&expected_path)
                .map_err(|e| format!("{}: {e} (run with --bless)", expected_path.display()))
                .and_then(|t| Transcript::parse(&t));
            let mut problems = run.problems;
            match expected {
                Err(e) => problems.push(e),
                Ok(exp) => {
                    if let Some(diff) = first_difference(&exp, &run.transcript) {
                        problems.push(format!(
                            "transcript differs from {}\n{diff}",
                            expected_path
                                .strip_prefix(root())
                                .unwrap_or(&expected_path)
                                .display()
                        ));
                    }
                }
            }
            let frames = run.transcript.host_to_ext.len() + run.transcript.ext_to_host.len();
            if problems.is_empty() {
                println!("✔ {label} {frames} frames identical");
            } else {
                failures += 1;
                println!("✘ {label}");
                for p in problems {
                    for l in p.lines() {
                        println!("    {l}");
                    }
                }
            }
        }
    }
    println!(
        "\n{} of {checks} script runs conform ({} scripts × {})",
        checks - failures,
        scripts.len(),
        o.langs.join(", ")
    );
    if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
