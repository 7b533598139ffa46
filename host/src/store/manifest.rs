//! `extension.json` (§16.2): parsing and validation.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::store::name::{ExtName, NameError};

mod read;
pub use read::{read_manifest, MAX_MANIFEST_BYTES};

/// The manifest file name inside an extension directory.
pub const MANIFEST_FILE: &str = "extension.json";

/// A parsed, validated `extension.json`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Manifest {
    /// Identity of the extension, checked ([`ExtName`]): it names the log file.
    pub name: ExtName,
    /// Shown by `ext list`.
    pub version: String,
    /// Executable (absolute, relative to the extension directory, or on `PATH`).
    pub exec: String,
    /// Extra argv.
    pub args: Vec<String>,
    /// Informational language tag, echoed in load errors.
    pub language: String,
    /// Shown by `ext list`.
    pub description: String,
    /// Skill directories or `SKILL.md` paths (OP-34).
    pub skills: Vec<String>,
    /// `false` disables the extension without removing it.
    pub enabled: Option<bool>,
}

/// `extension.json` as written, before the name is checked.
#[derive(Deserialize)]
struct RawManifest {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    exec: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    language: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    skills: Vec<String>,
    #[serde(default)]
    enabled: Option<bool>,
    /// Every other key, in file order: an error (a misspelt key would
    /// otherwise be dropped and surface later as a confusing failure).
    #[serde(flatten)]
    unknown: serde_json::Map<String, serde_json::Value>,
}

/// Every key `extension.json` may hold, in the order the docs list them.
/// `$schema` lets an editor validate the file; the host ignores its value.
pub const MANIFEST_KEYS: &[&str] = &[
    "name",
    "version",
    "exec",
    "args",
    "language",
    "description",
    "skills",
    "enabled",
    "$schema",
];

/// What the keys people reach for by habit (other tools' manifests) mean
/// here; edit distance would not find `command` -> `exec`.
const KEY_ALIASES: &[(&str, &str)] = &[
    ("command", "exec"),
    ("cmd", "exec"),
    ("run", "exec"),
    ("main", "exec"),
    ("entry", "exec"),
    ("entrypoint", "exec"),
    ("executable", "exec"),
    ("program", "exec"),
    ("bin", "exec"),
    ("argv", "args"),
    ("arguments", "args"),
    ("lang", "language"),
    ("runtime", "language"),
    ("desc", "description"),
    ("summary", "description"),
    ("skill", "skills"),
    ("enable", "enabled"),
    ("disabled", "enabled"),
    ("id", "name"),
];

/// The known key an unknown one most likely means: the known key or alias
/// spelt closest to it (Jaro-Winkler similarity of at least 0.8, ignoring
/// case), so `argumnets` finds `args` through `arguments`.
pub fn closest_key(unknown: &str) -> Option<&'static str> {
    let lower = unknown.to_ascii_lowercase();
    MANIFEST_KEYS
        .iter()
        .map(|k| (*k, *k))
        .chain(KEY_ALIASES.iter().copied())
        .map(|(spelling, key)| (strsim::jaro_winkler(&lower, spelling), key))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, key)| key)
}

/// What a manifest describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ManifestKind {
    /// A protocol extension with an `exec`: spawned.
    Process,
    /// A theme-only extension: never spawned, ready at once.
    ThemeOnly,
    /// A skills-only bundle: never spawned, ready at once.
    SkillsOnly,
}

impl Manifest {
    /// Whether the extension is enabled (absent means `true`).
    pub fn is_enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }
}

/// Why a manifest could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// The file is missing.
    #[error("{dir}: no {MANIFEST_FILE}")]
    Missing {
        /// The extension directory.
        dir: PathBuf,
    },
    /// The file could not be read.
    #[error("{dir}: read manifest: {message}")]
    Read {
        /// The extension directory.
        dir: PathBuf,
        /// The I/O error.
        message: String,
    },
    /// Not a regular file (a FIFO, a device, a directory, ...), or a
    /// symlink to one: refused without reading.
    #[error("{} is {kind}, not a regular file", .dir.join(MANIFEST_FILE).display())]
    NotAFile {
        /// The extension directory.
        dir: PathBuf,
        /// What it is instead (`a FIFO`).
        kind: &'static str,
    },
    /// Over [`MAX_MANIFEST_BYTES`].
    #[error("{} is larger than 1 MiB, the limit for a manifest", .dir.join(MANIFEST_FILE).display())]
    TooLarge {
        /// The extension directory.
        dir: PathBuf,
    },
    /// The file is not valid JSON or has fields of the wrong type.
    #[error("{dir}: parse manifest: {message}")]
    Parse {
        /// The extension directory.
        dir: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// No `name`.
    #[error("{dir}: manifest: name is required")]
    NameRequired {
        /// The extension directory.
        dir: PathBuf,
    },
    /// A `name` that cannot name an extension (and its log file): checked
    /// wherever a manifest is read, so no path is built from it.
    #[error("{}: manifest: name {name:?} is not a plain name: {reason}; fix `name` in this file (no `/`, `\\`, `..`, leading dot or control characters: it names the log file)", .dir.join(MANIFEST_FILE).display())]
    BadName {
        /// The extension directory.
        dir: PathBuf,
        /// The name as written.
        name: String,
        /// What is wrong with it.
        reason: NameError,
    },
    /// A key the manifest format does not have.
    #[error("{}: manifest: unknown key {key:?}{}; the keys are {}", .dir.join(MANIFEST_FILE).display(), .suggestion.map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default(), MANIFEST_KEYS.join(", "))]
    UnknownKey {
        /// The extension directory.
        dir: PathBuf,
        /// The first unknown key, as written.
        key: String,
        /// The known key it most likely means.
        suggestion: Option<&'static str>,
    },
    /// None of `exec`, a theme file, or `skills`.
    #[error("{dir}: manifest: exec, theme, or skills is required")]
    NothingToRun {
        /// The extension directory.
        dir: PathBuf,
    },
}

impl ManifestError {
    /// The extension directory the error names.
    pub fn dir_mut(&mut self) -> &mut PathBuf {
        match self {
            Self::Missing { dir }
            | Self::Read { dir, .. }
            | Self::NotAFile { dir, .. }
            | Self::TooLarge { dir }
            | Self::Parse { dir, .. }
            | Self::NameRequired { dir }
            | Self::BadName { dir, .. }
            | Self::UnknownKey { dir, .. }
            | Self::NothingToRun { dir } => dir,
        }
    }
}

/// Whether the directory ships a theme (`theme.json` or `themes/theme.json`).
pub fn has_theme(dir: &Path) -> bool {
    dir.join("theme.json").is_file() || dir.join("themes").join("theme.json").is_file()
}

/// Reads ([`read_manifest`]) and validates `<dir>/extension.json`.
pub fn load_manifest(dir: &Path) -> Result<(Manifest, ManifestKind), ManifestError> {
    parse_manifest(dir, &read_manifest(dir)?)
}

/// Validates manifest text belonging to `dir`.
pub fn parse_manifest(dir: &Path, text: &str) -> Result<(Manifest, ManifestKind), ManifestError> {
    let raw: RawManifest = serde_json::from_str(text).map_err(|e| ManifestError::Parse {
        dir: dir.to_owned(),
        message: e.to_string(),
    })?;
    // Before the other checks: `"Name"` is better reported as a misspelling
    // than as a missing `name`.
    if let Some(key) = raw.unknown.keys().find(|k| k.as_str() != "$schema") {
        return Err(ManifestError::UnknownKey {
            dir: dir.to_owned(),
            suggestion: closest_key(key),
            key: key.clone(),
        });
    }
    if raw.name.trim().is_empty() {
        return Err(ManifestError::NameRequired {
            dir: dir.to_owned(),
        });
    }
    let name = ExtName::new(&raw.name).map_err(|reason| ManifestError::BadName {
        dir: dir.to_owned(),
        name: raw.name.clone(),
        reason,
    })?;
    let m = Manifest {
        name,
        version: raw.version,
        exec: raw.exec,
        args: raw.args,
        language: raw.language,
        description: raw.description,
        skills: raw.skills,
        enabled: raw.enabled,
    };
    let kind = if !m.exec.is_empty() {
        ManifestKind::Process
    } else if has_theme(dir) {
        ManifestKind::ThemeOnly
    } else if !m.skills.is_empty() {
        ManifestKind::SkillsOnly
    } else {
        return Err(ManifestError::NothingToRun {
            dir: dir.to_owned(),
        });
    };
    Ok((m, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_fields() {
        let d = Path::new("/nonexistent/x");
        assert!(matches!(
            parse_manifest(d, "{").unwrap_err(),
            ManifestError::Parse { .. }
        ));
        assert!(parse_manifest(d, r#"{"exec":"./x"}"#)
            .unwrap_err()
            .to_string()
            .ends_with("manifest: name is required"));
        assert!(parse_manifest(d, r#"{"name":"a"}"#)
            .unwrap_err()
            .to_string()
            .ends_with("manifest: exec, theme, or skills is required"));
        let (m, k) = parse_manifest(d, r#"{"name":"a","exec":"./x","enabled":false}"#).unwrap();
        assert_eq!(k, ManifestKind::Process);
        assert!(!m.is_enabled());
        let (_, k) = parse_manifest(d, r#"{"name":"a","skills":["s"]}"#).unwrap();
        assert_eq!(k, ManifestKind::SkillsOnly);
        let e = parse_manifest(d, r#"{"name":"x/../../tmp/pwned","exec":"./x"}"#).unwrap_err();
        assert!(
            matches!(
                e,
                ManifestError::BadName {
                    reason: NameError::Separator,
                    ..
                }
            ),
            "{e}"
        );
        let file = Path::new("/nonexistent/x").join("extension.json");
        assert!(
            e.to_string().starts_with(&format!(
                "{}: manifest: name \"x/../../tmp/pwned\" is not a plain name: it holds a path separator",
                file.display()
            )),
            "{e}"
        );
    }
}
