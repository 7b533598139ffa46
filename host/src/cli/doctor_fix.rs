//! What to run when an extension failed to start for a reason `ext doctor`
//! recognises: a Python that cannot import the SDK, `uv` missing, a Node
//! project without its `node_modules/` or build, a Rust binary not built.
//! One line, with the commands spelt out for the extension's own folder.

use std::path::Path;

use crate::scaffold::sdk::LocalSdk;

/// What the failed start looked like.
#[derive(Debug, Clone, Copy)]
pub struct Failure<'a> {
    /// The extension directory.
    pub dir: &'a Path,
    /// The manifest's `exec`.
    pub exec: &'a str,
    /// The load error.
    pub error: &'a str,
    /// The last lines the process wrote to stderr.
    pub stderr: &'a [String],
}

/// The shell the suggested commands are written for: a POSIX shell, or
/// PowerShell on Windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shell {
    Posix,
    PowerShell,
}

impl Shell {
    /// The shell of the platform this binary runs on.
    const HOST: Shell = if cfg!(windows) {
        Shell::PowerShell
    } else {
        Shell::Posix
    };

    /// `s` as one word, quoted when it needs it (single quotes in both
    /// shells: PowerShell doubles a quote inside, POSIX closes and escapes).
    fn word(self, s: &str) -> String {
        // PowerShell reads `,` `@` `=` `+` in a bare word as operators.
        let safe = match self {
            Shell::Posix => "-_./=:@+,",
            Shell::PowerShell => "-_./\\:",
        };
        let plain = !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || safe.contains(c));
        match self {
            _ if plain => s.to_owned(),
            Shell::Posix => format!("'{}'", s.replace('\'', r"'\''")),
            Shell::PowerShell => format!("'{}'", s.replace('\'', "''")),
        }
    }

    /// `rel` (written with `/`) inside `dir`, as one word.
    fn path(self, dir: &Path, rel: &str) -> String {
        let dir = dir.to_string_lossy();
        match self {
            Shell::Posix => self.word(&format!("{dir}/{rel}")),
            Shell::PowerShell => self.word(&format!("{dir}\\{}", rel.replace('/', "\\"))),
        }
    }

    /// A command word that is a path: PowerShell runs a quoted one only
    /// after its call operator.
    fn program(self, word: String) -> String {
        if self == Shell::PowerShell && word.starts_with('\'') {
            format!("& {word}")
        } else {
            word
        }
    }

    /// A virtual environment's interpreter, relative to its parent.
    fn venv_python(self) -> &'static str {
        match self {
            Shell::Posix => ".venv/bin/python",
            Shell::PowerShell => ".venv/Scripts/python.exe",
        }
    }
}

/// How to name the SDK in an install command: this checkout's build when
/// `zot-host` comes from one (`./dev install`), else the published package.
fn python_sdk(shell: Shell) -> String {
    LocalSdk::beside_this_binary()
        .and_then(|dir| LocalSdk::read(&dir).ok())
        .map_or_else(
            || "zot-ext".to_owned(),
            |sdk| shell.word(&sdk.python.to_string_lossy()),
        )
}

/// The command to run (or the step to take), if the failure is one of the
/// known kinds, for this platform's shell.
pub fn suggest(f: &Failure<'_>) -> Option<String> {
    suggest_in(Shell::HOST, f)
}

fn suggest_in(shell: Shell, f: &Failure<'_>) -> Option<String> {
    let dir = shell.word(&f.dir.to_string_lossy());
    let said = |needle: &str| f.stderr.iter().any(|l| l.contains(needle));
    let program = Path::new(f.exec)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(f.exec);
    if said("No module named 'zot_ext'") {
        return Some(python_fix(shell, f, program, &dir));
    }
    if program == "uv" && f.error.contains("is not on PATH") {
        let how = match shell {
            Shell::Posix => "`curl -LsSf https://astral.sh/uv/install.sh | sh`, or `pipx install uv`",
            Shell::PowerShell => {
                "`powershell -ExecutionPolicy ByPass -c \"irm https://astral.sh/uv/install.ps1 | iex\"`, \
                 or `winget install --id=astral-sh.uv -e`"
            }
        };
        return Some(format!("install uv (https://docs.astral.sh/uv/): {how}"));
    }
    if said("Cannot find package 'zot-ext'") || said("Cannot find module 'zot-ext'") {
        return Some(format!(
            "its dependencies are not installed: `npm install --omit=dev --prefix {dir}`"
        ));
    }
    if f.dir.join("tsconfig.json").is_file() && said("Cannot find module") {
        return Some(format!(
            "it is not compiled: `npm run build --prefix {dir}`"
        ));
    }
    if f.dir.join("Cargo.toml").is_file()
        && f.exec.starts_with("target/")
        && f.error.contains("does not exist")
    {
        let release = if f.exec.starts_with("target/release/") {
            " --release"
        } else {
            ""
        };
        let manifest = shell.path(f.dir, "Cargo.toml");
        return Some(format!(
            "the binary is not built: `cargo build{release} --manifest-path {manifest}`"
        ));
    }
    None
}

/// A Python that cannot import the SDK: install it where `exec` runs.
fn python_fix(shell: Shell, f: &Failure<'_>, program: &str, dir: &str) -> String {
    let sdk = python_sdk(shell);
    if program == "uv" {
        return format!("the project does not depend on the SDK: `uv add --directory {dir} {sdk}`");
    }
    if f.exec.contains('/') || f.exec.contains('\\') {
        let python = shell.program(shell.path(f.dir, f.exec));
        return format!("{} has no zot_ext: `{python} -m pip install {sdk}`", f.exec);
    }
    let (python3, then) = match shell {
        Shell::Posix => ("python3", "&&"),
        Shell::PowerShell => ("py", ";"),
    };
    let venv = shell.path(f.dir, ".venv");
    let venv_python = shell.program(shell.path(f.dir, shell.venv_python()));
    format!(
        "the {} on PATH has no zot_ext: give the extension its own environment, \
         `{python3} -m venv {venv} {then} {venv_python} -m pip install {sdk}`, \
         and set \"exec\": \"{}\" in extension.json (or run it with uv, \
         as `zot-host new --lang python` does)",
        f.exec,
        shell.venv_python()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| (*l).to_owned()).collect()
    }

    fn fix_in(
        shell: Shell,
        dir: &Path,
        exec: &str,
        error: &str,
        stderr: &[&str],
    ) -> Option<String> {
        suggest_in(
            shell,
            &Failure {
                dir,
                exec,
                error,
                stderr: &lines(stderr),
            },
        )
    }

    fn fix(dir: &Path, exec: &str, error: &str, stderr: &[&str]) -> Option<String> {
        fix_in(Shell::Posix, dir, exec, error, stderr)
    }

    const MISSING: [&str; 1] = ["ModuleNotFoundError: No module named 'zot_ext'"];

    #[test]
    fn a_python_without_the_sdk_gets_the_command_for_its_kind_of_exec() {
        let dir = Path::new("/home/me/ext s");
        let bare = fix(dir, "python3", "exited before hello", &MISSING).unwrap();
        assert!(
            bare.contains(
                "`python3 -m venv '/home/me/ext s/.venv' && '/home/me/ext s/.venv/bin/python' -m pip install"
            ) && bare.contains("\"exec\": \".venv/bin/python\""),
            "{bare}"
        );
        let venv = fix(dir, ".venv/bin/python", "exited", &MISSING).unwrap();
        assert!(
            venv.contains("`'/home/me/ext s/.venv/bin/python' -m pip install"),
            "{venv}"
        );
        let uv = fix(dir, "uv", "exited", &MISSING).unwrap();
        assert!(uv.contains("uv add --directory '/home/me/ext s'"), "{uv}");
        assert_eq!(fix(dir, "python3", "exited", &["KeyError: 'x'"]), None);
    }

    #[test]
    fn on_windows_the_commands_are_for_powershell() {
        let win = |dir: &str, exec: &str, error: &str, stderr: &[&str]| {
            fix_in(Shell::PowerShell, Path::new(dir), exec, error, stderr).unwrap()
        };
        let bare = win(r"C:\Users\me\ext s", "python", "exited", &MISSING);
        assert!(
            bare.contains(
                r"`py -m venv 'C:\Users\me\ext s\.venv' ; & 'C:\Users\me\ext s\.venv\Scripts\python.exe' -m pip install"
            ) && bare.contains("\"exec\": \".venv/Scripts/python.exe\""),
            "{bare}"
        );
        // A path with nothing to quote runs as it is; a quote is doubled.
        let venv = win(r"C:\ext", ".venv/Scripts/python.exe", "exited", &MISSING);
        assert!(
            venv.contains(r"`C:\ext\.venv\Scripts\python.exe -m pip install"),
            "{venv}"
        );
        let uv = win(r"C:\it's", "uv", "exited", &MISSING);
        assert!(uv.contains(r"uv add --directory 'C:\it''s'"), "{uv}");
        let no_uv = win(
            r"C:\ext",
            "uv",
            "spawn: \"uv\" is not on PATH; install it",
            &[],
        );
        assert!(
            no_uv.contains("install.ps1 | iex") && !no_uv.contains("curl"),
            "{no_uv}"
        );
    }

    #[test]
    fn missing_tools_dependencies_and_builds() {
        let d = tempfile::tempdir().unwrap();
        let uv = fix(
            d.path(),
            "uv",
            "spawn: \"uv\" is not on PATH; install it",
            &[],
        )
        .unwrap();
        assert!(
            uv.contains("install uv") && uv.contains("install.sh | sh"),
            "{uv}"
        );
        let npm = fix(
            d.path(),
            "node",
            "exited",
            &["Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zot-ext' imported from x"],
        )
        .unwrap();
        assert!(npm.contains("npm install --omit=dev --prefix"), "{npm}");
        std::fs::write(d.path().join("Cargo.toml"), "").unwrap();
        let cargo = fix(
            d.path(),
            "target/release/x",
            "spawn: /e/target/release/x does not exist",
            &[],
        )
        .unwrap();
        assert!(
            cargo.contains("cargo build --release --manifest-path"),
            "{cargo}"
        );
        std::fs::write(d.path().join("tsconfig.json"), "{}").unwrap();
        let tsc = fix(
            d.path(),
            "node",
            "exited",
            &["Error: Cannot find module '/e/dist/index.js'"],
        )
        .unwrap();
        assert!(tsc.contains("npm run build --prefix"), "{tsc}");
    }
}
