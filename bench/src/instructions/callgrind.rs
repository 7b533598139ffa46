//! Running a target under `valgrind --tool=callgrind` and reading back how
//! many instructions it executed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::spawn::{resolve_exec, LaunchSpec};

/// What to tell a user without valgrind (nothing is installed for them).
pub const INSTALL_HINT: &str =
    "valgrind is needed to count instructions and was not found on PATH; \
install it with the system's package manager (e.g. `sudo apt-get install valgrind`, \
`sudo dnf install valgrind`); zot-bench installs nothing";

/// The valgrind on `PATH` and its version line (`valgrind-3.19.0`).
pub fn find_valgrind() -> Result<(PathBuf, String)> {
    let program = resolve_exec("valgrind", Path::new("/")).map_err(|_| Error::new(INSTALL_HINT))?;
    let out = Command::new(&program)
        .arg("--version")
        .output()
        .map_err(|e| Error::new(format!("{}: {e}", program.display())))?;
    if !out.status.success() {
        bail!("`{} --version` failed ({})", program.display(), out.status);
    }
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Ok((program, version))
}

/// `spec` started under callgrind, each process of its tree writing its
/// count to `<out_stem>.<pid>`. Children are traced because a launcher
/// may be a shell script that `exec`s the interpreter (the Python SDK's
/// `run`): with `--trace-children=no` the exec'd interpreter runs
/// uncounted and the file stays empty.
pub fn wrap(spec: &LaunchSpec, valgrind: &Path, out_stem: &Path) -> LaunchSpec {
    let mut args = vec![
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={}.%p", out_stem.display()),
        "--trace-children=yes".to_owned(),
        "--quiet".to_owned(),
        spec.program.display().to_string(),
    ];
    args.extend(spec.args.iter().cloned());
    LaunchSpec {
        program: valgrind.to_path_buf(),
        args,
        cwd: spec.cwd.clone(),
    }
}

/// The files a run with `out_stem` wrote (`<stem>.<pid>`), sorted.
pub fn out_files(out_stem: &Path) -> Result<Vec<PathBuf>> {
    let dir = out_stem.parent().unwrap_or(Path::new("."));
    let prefix = format!(
        "{}.",
        out_stem.file_name().unwrap_or_default().to_string_lossy()
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::new(format!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix(&prefix))
                .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Copies the files a run with `out_stem` wrote into `dir` (created if
/// need be), under their own names.
pub fn copy(out_stem: &Path, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::new(format!("{}: {e}", dir.display())))?;
    for f in out_files(out_stem)? {
        let to = dir.join(f.file_name().unwrap_or_default());
        std::fs::copy(&f, &to)
            .map_err(|e| Error::new(format!("{} -> {}: {e}", f.display(), to.display())))?;
    }
    Ok(())
}

/// Removes what an earlier run with `out_stem` left.
pub fn clear(out_stem: &Path) -> Result<()> {
    for f in out_files(out_stem)? {
        std::fs::remove_file(&f).map_err(|e| Error::new(format!("{}: {e}", f.display())))?;
    }
    Ok(())
}

/// The instructions counted by every file of a run, summed (one file per
/// process of the target's tree).
pub fn total_of_run(out_stem: &Path) -> Result<u64> {
    let files = out_files(out_stem)?;
    if files.is_empty() {
        bail!(
            "callgrind wrote no {}.<pid> file (did the target exit by itself?)",
            out_stem.display()
        );
    }
    let mut sum = 0u64;
    for f in &files {
        let text =
            std::fs::read_to_string(f).map_err(|e| Error::new(format!("{}: {e}", f.display())))?;
        let n = parse_total(&text).map_err(|e| e.context(f.display()))?;
        sum = sum
            .checked_add(n)
            .ok_or_else(|| Error::new("instruction count overflows"))?;
    }
    Ok(sum)
}

/// The `Ir` (instructions executed) total of one callgrind output: the
/// column of `Ir` in its `events:` line, read from its `totals:` line, or
/// its `summary:` line when there is no `totals:`.
pub fn parse_total(text: &str) -> Result<u64> {
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .map(str::split_whitespace)
    };
    if text.is_empty() {
        // callgrind creates the file at start and fills it at the exit.
        bail!("empty: the process was killed before it exited");
    }
    let Some(mut events) = field("events:") else {
        bail!("no `events:` line (not a callgrind output)");
    };
    let Some(column) = events.position(|e| e == "Ir") else {
        bail!("the `events:` line has no `Ir` column");
    };
    let Some(mut values) = field("totals:").or_else(|| field("summary:")) else {
        bail!("no `totals:` or `summary:` line (the run did not finish)");
    };
    let Some(value) = values.nth(column) else {
        bail!("the totals line has no value for `Ir`");
    };
    value
        .parse()
        .map_err(|_| Error::new(format!("`Ir` total is not a count: `{value}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_ir_total() {
        let out = "# callgrind format\nversion: 1\ncmd: node ext.js\nevents: Ir\n\
                   fl=(1) a.c\nfn=(1) main\n3 10\nsummary: 157246933\ntotals: 157246933\n";
        assert_eq!(parse_total(out).unwrap(), 157_246_933);
        // Another event first: the Ir column is the one read.
        let out = "events: Dr Ir Dw\nsummary: 5 42 7\n";
        assert_eq!(parse_total(out).unwrap(), 42);
        // totals wins over summary when both are there.
        let out = "events: Ir\ntotals: 9\nsummary: 8\n";
        assert_eq!(parse_total(out).unwrap(), 9);
    }

    #[test]
    fn refuses_what_is_not_a_finished_output() {
        let err = |t: &str| parse_total(t).unwrap_err().to_string();
        assert!(err("").contains("killed before it exited"));
        assert!(err("fn=main\n").contains("no `events:`"));
        assert!(err("events: Dr\nsummary: 1\n").contains("no `Ir`"));
        assert!(err("events: Ir\nfn=main\n").contains("did not finish"));
        assert!(err("events: Dr Ir\nsummary: 1\n").contains("no value"));
        assert!(err("events: Ir\nsummary: 1.5\n").contains("not a count"));
    }

    #[test]
    fn sums_the_files_of_a_run() {
        let dir = std::env::temp_dir().join(format!("zot-bench-cg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stem = dir.join("t-events-1");
        std::fs::write(dir.join("t-events-1.100"), "events: Ir\nsummary: 5\n").unwrap();
        std::fs::write(dir.join("t-events-1.101"), "events: Ir\nsummary: 7\n").unwrap();
        std::fs::write(dir.join("t-events-10.102"), "events: Ir\nsummary: 1000\n").unwrap();
        assert_eq!(total_of_run(&stem).unwrap(), 12);
        clear(&stem).unwrap();
        assert!(total_of_run(&stem).unwrap_err().to_string().contains("no "));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn wraps_the_launch() {
        let spec = LaunchSpec {
            program: "/usr/bin/node".into(),
            args: vec!["ext.js".into()],
            cwd: "/ext".into(),
        };
        let w = wrap(&spec, Path::new("/usr/bin/valgrind"), Path::new("/o/x"));
        assert_eq!(w.program, Path::new("/usr/bin/valgrind"));
        assert_eq!(w.cwd, spec.cwd);
        assert!(w.args.contains(&"--callgrind-out-file=/o/x.%p".to_owned()));
        assert_eq!(w.args[w.args.len() - 2..], ["/usr/bin/node", "ext.js"]);
    }
}
