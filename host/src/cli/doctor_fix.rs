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

/// How to name the SDK in an install command: this checkout's build when
/// `zot-host` comes from one (`./dev install`), else the published package.
fn python_sdk() -> String {
    LocalSdk::beside_this_binary()
        .and_then(|dir| LocalSdk::read(&dir).ok())
        .map_or_else(
            || "zot-ext".to_owned(),
            |sdk| shell_word(&sdk.python.to_string_lossy()),
        )
}

/// `s` quoted for a POSIX shell when it needs it.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@+,".contains(c))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The command to run (or the step to take), if the failure is one of the
/// known kinds.
pub fn suggest(f: &Failure<'_>) -> Option<String> {
    let dir = shell_word(&f.dir.to_string_lossy());
    let said = |needle: &str| f.stderr.iter().any(|l| l.contains(needle));
    let program = Path::new(f.exec)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(f.exec);
    if said("No module named 'zot_ext'") {
        let sdk = python_sdk();
        return Some(if program == "uv" {
            format!("the project does not depend on the SDK: `uv add --directory {dir} {sdk}`")
        } else if f.exec.contains('/') {
            let python = shell_word(&f.dir.join(f.exec).to_string_lossy());
            format!("{} has no zot_ext: `{python} -m pip install {sdk}`", f.exec)
        } else {
            format!(
                "the {} on PATH has no zot_ext: give the extension its own environment, \
                 `python3 -m venv {dir}/.venv && {dir}/.venv/bin/python -m pip install {sdk}`, \
                 and set \"exec\": \".venv/bin/python\" in extension.json (or run it with uv, \
                 as `zot-host new --lang python` does)",
                f.exec
            )
        });
    }
    if program == "uv" && f.error.contains("is not on PATH") {
        return Some(
            "install uv (https://docs.astral.sh/uv/): `curl -LsSf https://astral.sh/uv/install.sh \
             | sh`, or `pipx install uv`"
                .to_owned(),
        );
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
        return Some(format!(
            "the binary is not built: `cargo build{release} --manifest-path {dir}/Cargo.toml`"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| (*l).to_owned()).collect()
    }

    fn fix(dir: &Path, exec: &str, error: &str, stderr: &[&str]) -> Option<String> {
        suggest(&Failure {
            dir,
            exec,
            error,
            stderr: &lines(stderr),
        })
    }

    #[test]
    fn a_python_without_the_sdk_gets_the_command_for_its_kind_of_exec() {
        let dir = Path::new("/home/me/ext s");
        let missing = ["ModuleNotFoundError: No module named 'zot_ext'"];
        let bare = fix(dir, "python3", "exited before hello", &missing).unwrap();
        assert!(
            bare.contains("python3 -m venv '/home/me/ext s'/.venv")
                && bare.contains("\"exec\": \".venv/bin/python\""),
            "{bare}"
        );
        let venv = fix(dir, ".venv/bin/python", "exited", &missing).unwrap();
        let python = dir.join(".venv/bin/python");
        assert!(
            venv.contains(&format!("'{}' -m pip install", python.display())),
            "{venv}"
        );
        let uv = fix(dir, "uv", "exited", &missing).unwrap();
        assert!(uv.contains("uv add --directory '/home/me/ext s'"), "{uv}");
        assert_eq!(fix(dir, "python3", "exited", &["KeyError: 'x'"]), None);
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
        assert!(uv.contains("install uv"), "{uv}");
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
