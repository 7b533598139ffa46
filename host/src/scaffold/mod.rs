//! `zot-host new NAME --lang rust|javascript|typescript|python`: a ready
//! extension folder (manifest, code with a command, a typed tool and an
//! event handler, a test on the SDK's in-process harness, a session script
//! for `zot-host run`, a README and ignore files) from the templates in
//! `host/templates/`, embedded in the binary.
//!
//! The generated files name the SDK as users get it: the published package
//! of the same version as this host (`zot-ext = "0.1.0"`, `"zot-ext":
//! "^0.1.0"`, `zot-ext>=0.1.0`). A `zot-host` built in a zot-ext checkout
//! whose `./dev install` built the SDKs (or given `--sdk-from DIR`) adds
//! the one thing each toolchain needs to take them from there instead
//! (`sdk`): a `[patch.crates-io]` entry, the packed npm package as a
//! `file:` dependency, the wheel as a `[tool.uv.sources]` entry.
//!
//! It writes files only; the one thing it shares with the rest of the
//! crate is the extension name check ([`crate::store::name`]).

pub(crate) mod sdk;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::store::name::ExtName;
use sdk::SdkSource;

/// The language of a new extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// Rust, with the `zot-ext` crate.
    Rust,
    /// JavaScript on Node 20+, with the `zot-ext` npm package.
    #[value(alias = "node", alias = "js")]
    Javascript,
    /// TypeScript (strict, compiled by tsc) on Node 20+, with the `zot-ext` npm package.
    #[value(alias = "ts")]
    Typescript,
    /// Python 3.9+, with the `zot-ext` PyPI package, run by uv.
    #[value(alias = "py")]
    Python,
}

/// `zot-host new`'s options.
#[derive(clap::Args, Debug, Clone)]
#[command(
    after_help = "Creates DIR (default: ./NAME) with extension.json, the code (a slash command \
    named NAME, a tool NAME_greet with typed arguments and a turn_start handler), a test on \
    the SDK's in-process harness, session.json for `zot-host run`, a README, .gitignore and \
    .zotignore. DIR must not exist or be empty.\n\n\
    The files name the published SDK (zot-ext of this version). A zot-host installed from a \
    zot-ext checkout with `./dev install` names that checkout's SDK builds instead, until \
    they are published.\n\n\
    Examples:\n  \
    zot-host new weather --lang python\n  \
    zot-host new my-tools --lang typescript --dir ~/src/my-tools"
)]
pub struct NewArgs {
    /// The extension's name (its manifest name, package name and command).
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The language.
    #[arg(long, value_enum)]
    pub lang: Lang,
    /// Where to create it (default: ./NAME).
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,
    /// Take the SDK from this zot-ext checkout (its `./dev install` builds).
    #[arg(long, value_name = "DIR", conflicts_with = "published_sdk")]
    pub sdk_from: Option<PathBuf>,
    /// Name the published SDK packages even when this zot-host comes from a checkout.
    #[arg(long)]
    pub published_sdk: bool,
}

/// One template file: where it goes in the new folder, and its text.
struct Template {
    path: &'static str,
    text: &'static str,
}

macro_rules! templates {
    ($lang:literal: $($path:literal <= $src:literal),* $(,)?) => {
        &[$(Template { path: $path, text: include_str!(concat!("../../templates/", $lang, "/", $src)) }),*]
    };
}

const RUST: &[Template] = templates!("rust":
    "extension.json" <= "extension.json",
    // Not Cargo.toml in the repository: cargo package leaves out every folder
    // holding a Cargo.toml (a nested package), so the published crate would not build.
    "Cargo.toml" <= "Cargo.toml.in",
    "src/main.rs" <= "src/main.rs",
    "session.json" <= "../session.json",
    "README.md" <= "README.md",
    ".gitignore" <= "gitignore",
    ".zotignore" <= "zotignore",
);

const NODE: &[Template] = templates!("node":
    "extension.json" <= "extension.json",
    "package.json" <= "package.json",
    "index.mjs" <= "index.mjs",
    "extension.mjs" <= "extension.mjs",
    "test/extension.test.mjs" <= "test/extension.test.mjs",
    "session.json" <= "../session.json",
    "README.md" <= "README.md",
    ".gitignore" <= "gitignore",
    ".zotignore" <= "zotignore",
);

const TYPESCRIPT: &[Template] = templates!("typescript":
    "extension.json" <= "extension.json",
    "package.json" <= "package.json",
    "tsconfig.json" <= "tsconfig.json",
    "src/index.ts" <= "src/index.ts",
    "src/extension.ts" <= "src/extension.ts",
    "src/extension.test.ts" <= "src/extension.test.ts",
    "session.json" <= "../session.json",
    "README.md" <= "README.md",
    ".gitignore" <= "gitignore",
    ".zotignore" <= "zotignore",
);

const PYTHON: &[Template] = templates!("python":
    "extension.json" <= "extension.json",
    "pyproject.toml" <= "pyproject.toml",
    "extension.py" <= "extension.py",
    "tests/test_extension.py" <= "tests/test_extension.py",
    "session.json" <= "../session.json",
    "README.md" <= "README.md",
    ".gitignore" <= "gitignore",
    ".zotignore" <= "zotignore",
);

impl Lang {
    fn templates(self) -> &'static [Template] {
        match self {
            Lang::Rust => RUST,
            Lang::Javascript => NODE,
            Lang::Typescript => TYPESCRIPT,
            Lang::Python => PYTHON,
        }
    }

    /// The steps `new` prints after creating the folder: the test, then
    /// building what the manifest runs when the test does not.
    fn first_steps(self) -> &'static str {
        match self {
            Lang::Rust => "cargo test && cargo build",
            Lang::Javascript | Lang::Typescript => "npm install && npm test",
            Lang::Python => "uv run pytest",
        }
    }

    fn article(self) -> &'static str {
        match self {
            Lang::Rust => "a Rust",
            Lang::Javascript => "a JavaScript",
            Lang::Typescript => "a TypeScript",
            Lang::Python => "a Python",
        }
    }
}

/// Why `new` did nothing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NewError {
    /// The name cannot be used.
    #[error("invalid name {name:?}: {why}")]
    Name {
        /// The name given.
        name: String,
        /// What is wrong with it.
        why: String,
    },
    /// The SDK named by `--sdk-from` (or this build's) cannot be used.
    #[error("{0}")]
    Sdk(String),
    /// The target exists and holds something.
    #[error("{0} already exists and is not empty; choose another --dir")]
    Exists(PathBuf),
    /// Writing failed (what was written is removed again).
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// The names a new extension's files use, all derived from its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Names {
    /// The manifest name (the name given).
    pub name: ExtName,
    /// The package (crate, npm, PyPI) name and the slash command: lower
    /// case, `.` and `_` read as `-`.
    pub package: String,
    /// The tool: the package name with `_`, then `_greet`.
    pub tool: String,
}

/// Longest name `new` takes: its tool (`<name>_greet`) stays within the
/// 64 characters tool names may have.
pub(crate) const MAX_NAME: usize = 40;

impl Names {
    /// Checks `name` with the manifest's name rule ([`ExtName`]), then
    /// that it also works as a package, command and tool name (ASCII
    /// letters, digits, `-`, `_`, `.`, starting with a letter).
    pub fn new(name: &str) -> Result<Self, NewError> {
        let bad = |why: String| NewError::Name {
            name: name.to_owned(),
            why,
        };
        let ext = ExtName::new(name).map_err(|e| bad(e.to_string()))?;
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            return Err(bad(format!(
                "it holds {c:?}; a new extension's name is also its package, command and tool \
                 name: use ASCII letters, digits, `-`, `_` and `.`"
            )));
        }
        if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(bad("it must start with a letter".into()));
        }
        if name.len() > MAX_NAME {
            return Err(bad(format!(
                "it has {} characters; at most {MAX_NAME}",
                name.len()
            )));
        }
        let package: String = name
            .chars()
            .map(|c| match c {
                '.' | '_' => '-',
                c => c.to_ascii_lowercase(),
            })
            .collect();
        let tool = format!("{}_greet", package.replace('-', "_"));
        Ok(Self {
            name: ext,
            package,
            tool,
        })
    }

    fn fill(&self, text: &str, source: &SdkSource) -> String {
        let version = env!("CARGO_PKG_VERSION");
        let mut out = text
            .replace("{{name}}", self.name.as_str())
            .replace("{{package}}", &self.package)
            .replace("{{command}}", &self.package)
            .replace("{{tool}}", &self.tool)
            .replace("{{sdk_version}}", version);
        for (key, value) in sdk::placeholders(source, version) {
            out = out.replace(key, &value);
        }
        out
    }
}

/// The files of a new extension (relative path, contents).
pub(crate) fn render(names: &Names, lang: Lang, source: &SdkSource) -> Vec<(&'static str, String)> {
    lang.templates()
        .iter()
        .map(|t| (t.path, names.fill(t.text, source)))
        .collect()
}

/// Creates the extension folder; returns it and where its SDK comes from.
/// On failure nothing the call created is left behind.
pub(crate) fn create(args: &NewArgs) -> Result<(PathBuf, SdkSource), NewError> {
    let names = Names::new(&args.name)?;
    let source =
        SdkSource::choose(args.sdk_from.as_deref(), args.published_sdk).map_err(NewError::Sdk)?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&names.package));
    let io_err = |path: &Path| {
        let path = path.to_owned();
        move |source| NewError::Io { path, source }
    };
    let made = match fs::read_dir(&dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(NewError::Exists(dir));
            }
            false
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(&dir).map_err(io_err(&dir))?;
            true
        }
        Err(e) => return Err(io_err(&dir)(e)),
    };
    let written = write_all(&dir, &render(&names, args.lang, &source));
    if let Err(e) = written {
        if made {
            let _ = fs::remove_dir_all(&dir);
        } else {
            // The folder was there (empty): empty it again.
            if let Ok(entries) = fs::read_dir(&dir) {
                for e in entries.flatten() {
                    let p = e.path();
                    let _ = if p.is_dir() {
                        fs::remove_dir_all(&p)
                    } else {
                        fs::remove_file(&p)
                    };
                }
            }
        }
        return Err(e);
    }
    Ok((dir, source))
}

fn write_all(dir: &Path, files: &[(&str, String)]) -> Result<(), NewError> {
    for (rel, text) in files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|source| NewError::Io {
                path: parent.to_owned(),
                source,
            })?;
        }
        fs::write(&path, text).map_err(|source| NewError::Io { path, source })?;
    }
    Ok(())
}

/// `zot-host new`: creates the folder and says what to do next.
pub fn main(args: &NewArgs) -> std::process::ExitCode {
    match create(args) {
        Ok((dir, source)) => {
            let shown = dir.display();
            let from = match &source {
                SdkSource::Registry => String::new(),
                SdkSource::Local(sdk) => format!(
                    "\nIts SDK comes from the zot-ext checkout {} (./dev install).",
                    sdk.checkout.display()
                ),
            };
            println!(
                "Created {} extension {:?} in {shown}{from}\n\nNext:\n  \
                 cd {shown}\n  \
                 {}\n  \
                 zot-host run --script session.json --ext .   # a scripted session\n  \
                 zot-host dev .                                # restart on every change, with a REPL\n  \
                 zot-host ext install .                        # install it for zot",
                args.lang.article(),
                args.name,
                args.lang.first_steps(),
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("zot-host new: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_derived() {
        let n = Names::new("My.Ext_2").unwrap();
        assert_eq!(n.package, "my-ext-2");
        assert_eq!(n.tool, "my_ext_2_greet");
        for bad in [
            "",
            "../x",
            ".hidden",
            "a b",
            "Grüße",
            "2fast",
            "x\"y",
            &"a".repeat(41),
        ] {
            let e = Names::new(bad).unwrap_err().to_string();
            assert!(e.starts_with("invalid name"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn every_placeholder_is_filled() {
        let n = Names::new("demo").unwrap();
        let d = tempfile::tempdir().unwrap();
        let local = SdkSource::Local(sdk::LocalSdk {
            version: "0.1.0".into(),
            checkout: d.path().to_owned(),
            rust: d.path().join("sdk-rust"),
            npm: d.path().join("zot-ext-0.1.0.tgz"),
            python: d.path().join("zot_ext-0.1.0-cp39-abi3-linux_x86_64.whl"),
        });
        let langs = [Lang::Rust, Lang::Javascript, Lang::Typescript, Lang::Python];
        for (lang, source) in langs
            .into_iter()
            .flat_map(|l| [(l, SdkSource::Registry), (l, local.clone())])
        {
            for (path, text) in render(&n, lang, &source) {
                // `{{word}}` (JSDoc's `{{ a: T }}` is not a placeholder).
                for (i, _) in text.match_indices("{{") {
                    let rest = &text[i + 2..];
                    let word = rest
                        .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                        .unwrap_or(rest.len());
                    assert!(
                        word == 0 || !rest[word..].starts_with("}}"),
                        "{lang:?} {path}: {}",
                        &rest[..word]
                    );
                }
            }
        }
    }
}
