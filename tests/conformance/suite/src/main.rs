//! The cross-language conformance suite.
//!
//! Runs every session script in `tests/conformance/scripts/` through
//! `zot-host` against the conformance extension of each language
//! (`tests/conformance/<lang>/`), normalises the wire transcripts and checks
//! that they are identical to the committed `tests/conformance/expected/`
//! transcript (hence to each other), that every session ended with the
//! extension exiting 0 by itself, and that no scripted expectation failed.
//! Then two checks that talk to each extension directly: `events-limit`
//! (see `events_limit`) and `hello-ack` (see `hello_ack`).
//!
//! ```text
//! zot-conformance [--host PATH] [--lang rust,node,python] [--only SCRIPT,...] [--ext LANG=DIR] [--bless]
//! ```
//!
//! `--ext rust=DIR` runs another build of a language's extension (the
//! directory holds its `extension.json`): the release checks run the
//! aarch64 builds under qemu that way (`scripts/test.d/70-dist.sh`).
//!
//! `--only` also takes `events-limit` and `hello-ack`.
//!
//! `--bless` rewrites the expected transcripts from the first language given.
//!
//! `--wine-paths` is for a Windows build of the host run under Wine (`--host`
//! a script that starts it): the paths it reports are read as Wine's
//! drive-`Z:` forms of the suite's (`./dev test windows`).
//!
//! `--differential [--seed N] [--cases N]` runs the differential test
//! instead (see `differential`): the regression cases of issue 18 and `N`
//! random frame sequences (30 by default, seed 1) straight into every
//! language's conformance extension, outputs compared.
//!
//! `--examples` checks the examples' parity instead: each language's
//! `quickstart` (the README's), `weather`, `guard`, `ask-user` and `composer`
//! (`examples/<lang>/<name>/`) run their shared `session.json` and must show
//! the user the same session as the first language given.

mod differential;
mod events_limit;
mod hello_ack;
mod normalize;
mod process;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use normalize::{
    first_difference, first_difference_in, normalize, normalize_value, Context, Transcript,
};
use serde_json::Value;

struct Options {
    host: PathBuf,
    langs: Vec<String>,
    only: Vec<String>,
    bless: bool,
    examples: bool,
    /// Extension directories that replace `tests/conformance/<lang>`.
    ext_dirs: Vec<(String, PathBuf)>,
    differential: bool,
    seed: u64,
    cases: usize,
    /// The host is a Windows program under Wine: the paths it reports are
    /// Wine's drive `Z:` forms of the ones given to it.
    wine_paths: bool,
}

/// The examples every language implements alike (issue 7); `quickstart` is
/// the README's code, kept identical to it by `tests/readme.rs`.
const PARITY_EXAMPLES: [&str; 5] = ["quickstart", "weather", "guard", "ask-user", "composer"];

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
        examples: false,
        ext_dirs: Vec::new(),
        differential: false,
        seed: 1,
        cases: 30,
        wine_paths: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--host" => o.host = PathBuf::from(value("--host")?),
            "--lang" => o.langs = value("--lang")?.split(',').map(str::to_owned).collect(),
            "--only" => o.only = value("--only")?.split(',').map(str::to_owned).collect(),
            "--ext" => {
                let v = value("--ext")?;
                let (lang, dir) = v
                    .split_once('=')
                    .ok_or(format!("--ext needs LANG=DIR, not {v:?}"))?;
                o.ext_dirs.push((lang.to_owned(), PathBuf::from(dir)));
            }
            "--bless" => o.bless = true,
            "--wine-paths" => o.wine_paths = true,
            "--examples" => o.examples = true,
            "--differential" => o.differential = true,
            "--seed" => {
                let v = value("--seed")?;
                o.seed = v
                    .parse()
                    .map_err(|_| format!("--seed needs a number, not {v:?}"))?;
            }
            "--cases" => {
                let v = value("--cases")?;
                o.cases = v
                    .parse()
                    .map_err(|_| format!("--cases needs a number, not {v:?}"))?;
            }
            "-h" | "--help" => {
                println!("usage: zot-conformance [--host PATH] [--lang rust,node,python] [--only SCRIPT,...] [--ext LANG=DIR] [--bless] [--examples] [--differential [--seed N] [--cases N]] [--wine-paths]");
                #[allow(clippy::exit, reason = "--help ends the run after printing the usage")]
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    Ok(o)
}

/// Wine's names for a Unix path (drive `Z:` is `/`): with backslashes, and
/// as a Windows program makes it absolute on that drive.
fn wine_paths(unix: &str) -> [String; 2] {
    [
        format!("Z:{}", unix.replace('/', "\\")),
        format!("Z:{unix}"),
    ]
}

/// One run of one script against one language.
struct Run {
    transcript: Transcript,
    /// The host's `--json` steps (what a user sees), normalised; the
    /// declared `language` of each extension is left out.
    steps: Vec<String>,
    problems: Vec<String>,
}

fn run_one(o: &Options, script: &Path, ext_dir: &Path, label: &str) -> Result<Run, String> {
    let ext_dir = ext_dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", ext_dir.display()))?;
    let work = std::env::temp_dir().join(format!(
        "zot-conformance-{}-{}",
        std::process::id(),
        label.replace(['/', ' '], "-")
    ));
    let _ = std::fs::remove_dir_all(&work);
    let (cwd, home) = (work.join("project"), work.join("zot-home"));
    for d in [&cwd, &home] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    // The same project files for every language (the composer examples
    // read `extension.json` from the project through the host's `read`).
    std::fs::write(
        cwd.join("extension.json"),
        "{\n  \"name\": \"project-fixture\"\n}\n",
    )
    .map_err(|e| format!("{}: {e}", cwd.display()))?;
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
    let mut steps = Vec::new();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    for line in stdout.lines() {
        let Ok(step) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        steps.push(step.clone());
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
    let (cwd_w, ext_w) = (wine_paths(&cwd_s), wine_paths(&ext_s));
    let mut paths = vec![(&*ext_s, "<ext_dir>"), (&*cwd_s, "<cwd>")];
    if o.wine_paths {
        let wine = ext_w.iter().map(|p| (&**p, "<ext_dir>"));
        let wine = wine.chain(cwd_w.iter().map(|p| (&**p, "<cwd>")));
        paths.splice(0..0, wine);
    }
    let ctx = Context { paths };
    let transcript = normalize(&wire_text, &ctx)?;
    let steps = steps
        .into_iter()
        .map(|mut s| {
            if let Some(o) = s.as_object_mut() {
                o.remove("language");
            }
            normalize_value(&mut s, &ctx);
            serde_json::to_string(&s).expect("a Value serializes")
        })
        .collect();
    let _ = std::fs::remove_dir_all(&work);
    Ok(Run {
        transcript,
        steps,
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
    if o.examples {
        return examples_parity(&o);
    }
    if o.differential {
        let d = differential::DiffOptions {
            seed: o.seed,
            cases: o.cases,
            langs: o.langs.clone(),
            ext_dirs: o.ext_dirs.clone(),
        };
        let ok = differential::run(&d, &root().join("tests/conformance"));
        return if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let base = root().join("tests/conformance");
    let selected = |name: &str| o.only.is_empty() || o.only.iter().any(|n| n == name);
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(base.join("scripts"))
        .expect("tests/conformance/scripts exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| {
            p.file_stem()
                .is_some_and(|s| selected(&s.to_string_lossy()))
        })
        .collect();
    scripts.sort();
    let direct: Vec<&Direct> = DIRECT.iter().filter(|d| selected(d.0)).collect();
    if scripts.is_empty() && direct.is_empty() {
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
            let ext_dir = ext_dir(&o, &base, lang);
            let run = match run_one(&o, script, &ext_dir, &format!("{lang}-{name}")) {
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
            if !report(&label, &format!("{frames} frames identical"), &problems) {
                failures += 1;
            }
        }
    }
    for (name, check, ok) in &direct {
        for lang in &o.langs {
            checks += 1;
            let label = format!("{name:<14} {lang:<7}");
            let problems = match process::Launch::new(lang, &ext_dir(&o, &base, lang)) {
                Ok(l) => check(&l),
                Err(e) => vec![e],
            };
            if !report(&label, ok, &problems) {
                failures += 1;
            }
        }
    }
    let names: Vec<&str> = direct.iter().map(|d| d.0).collect();
    println!(
        "\n{} of {checks} script runs conform ({} scripts{}{} × {})",
        checks - failures,
        scripts.len(),
        if names.is_empty() { "" } else { " and " },
        names.join(", "),
        o.langs.join(", ")
    );
    if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// A check that talks to each extension directly: its name (for
/// `--only`), the check, what it proves when it passes.
type Direct = (
    &'static str,
    fn(&process::Launch) -> Vec<String>,
    &'static str,
);

const DIRECT: [Direct; 2] = [
    (
        "events-limit",
        events_limit::check,
        "count and last names as the contract says",
    ),
    (
        "hello-ack",
        hello_ack::check,
        "a wrongly typed field fails the handshake, named; an absent one does not",
    ),
];

/// The directory of a language's conformance extension (`--ext` or the
/// repository's).
fn ext_dir(o: &Options, base: &Path, lang: &str) -> PathBuf {
    o.ext_dirs
        .iter()
        .find(|(l, _)| l == lang)
        .map_or_else(|| base.join(lang), |(_, d)| d.clone())
}

/// Runs each parity example's `session.json` against every language's copy
/// and compares what the user sees (the host's `--json` steps) with the first
/// language's. The wire may differ where each SDK is idiomatic: a Python
/// schema derived from type hints is not byte-equal to a schemars one.
fn examples_parity(o: &Options) -> ExitCode {
    let base = root().join("examples");
    let (mut failures, mut checks) = (0, 0);
    for name in PARITY_EXAMPLES {
        let mut reference: Option<(String, Vec<String>)> = None;
        for lang in &o.langs {
            checks += 1;
            let label = format!("{name:<14} {lang:<7}");
            let dir = base.join(lang).join(name);
            let run = match run_one(
                o,
                &dir.join("session.json"),
                &dir,
                &format!("ex-{lang}-{name}"),
            ) {
                Ok(r) => r,
                Err(e) => {
                    failures += 1;
                    println!("✘ {label} {e}");
                    continue;
                }
            };
            let mut problems = run.problems;
            match &reference {
                None => reference = Some((lang.clone(), run.steps.clone())),
                Some((ref_lang, exp)) => {
                    if let Some(diff) = first_difference_in(&[("session", exp, &run.steps)]) {
                        problems.push(format!("differs from the {ref_lang} example\n{diff}"));
                    }
                }
            }
            let ok = format!("{} session steps identical", run.steps.len());
            if !report(&label, &ok, &problems) {
                failures += 1;
            }
        }
    }
    // Every other example runs its own session cleanly too.
    let mut others: Vec<PathBuf> = o
        .langs
        .iter()
        .filter_map(|lang| std::fs::read_dir(base.join(lang)).ok())
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|d| d.join("session.json").exists())
        .filter(|d| {
            !PARITY_EXAMPLES
                .iter()
                .any(|p| d.file_name().is_some_and(|n| n == *p))
        })
        .collect();
    others.sort();
    for dir in others {
        checks += 1;
        let rel = dir
            .strip_prefix(&base)
            .unwrap_or(&dir)
            .display()
            .to_string();
        let label = format!("{rel:<22}");
        match run_one(o, &dir.join("session.json"), &dir, &format!("ex-{rel}")) {
            Ok(run) => {
                let ok = format!("{} session steps, clean exit", run.steps.len());
                if !report(&label, &ok, &run.problems) {
                    failures += 1;
                }
            }
            Err(e) => {
                failures += 1;
                println!("✘ {label} {e}");
            }
        }
    }
    println!(
        "\n{} of {checks} example runs pass ({} examples compared across {}, the others run alone)",
        checks - failures,
        PARITY_EXAMPLES.len(),
        o.langs.join(", ")
    );
    if failures > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints one run's verdict: `✔ label ok` or `✘ label` with its problems
/// indented. Returns whether the run passed.
fn report(label: &str, ok: &str, problems: &[String]) -> bool {
    if problems.is_empty() {
        println!("✔ {label} {ok}");
        return true;
    }
    println!("✘ {label}");
    for l in problems.iter().flat_map(|p| p.lines()) {
        println!("    {l}");
    }
    false
}
