//! Finding extensions (§16.1, HOST-1..HOST-6): `$ZOT_HOME` resolution, the
//! explicit / project / global search order, precedence by manifest name.
//!
//! This is the one discovery path of the project: the session host and the
//! `ext` CLI (`list`, `doctor`, ...) both call [`discover`], so what `ext list`
//! reports is exactly what a session loads.

use std::path::{Path, PathBuf};

use crate::store::manifest::{load_manifest, Manifest, ManifestError, ManifestKind};

/// Where an extension was found; the order is the precedence (HOST-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// `--ext` / `-e` on the command line.
    Explicit,
    /// `<cwd>/.zot/extensions/<dir>`.
    Project,
    /// `$ZOT_HOME/extensions/<dir>`.
    Global,
}

impl Source {
    /// Display name (`--ext`, `project`, `global`).
    pub fn label(self) -> &'static str {
        match self {
            Self::Explicit => "--ext",
            Self::Project => "project",
            Self::Global => "global",
        }
    }
}

/// What discovery decided about one directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryState {
    /// To be loaded (spawned, or ready at once when theme/skills-only).
    Load,
    /// `enabled: false`: not spawned, no error (HOST-10).
    Disabled,
    /// An earlier entry has the same manifest name (HOST-2): skipped silently.
    Shadowed {
        /// Directory of the entry that wins.
        by: PathBuf,
    },
    /// The manifest could not be loaded. Discovered directories without a
    /// manifest are never listed; explicit ones are (HOST-3).
    Invalid(ManifestError),
}

/// One directory considered by discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Where it was found.
    pub source: Source,
    /// The extension directory (symlinks kept as given).
    pub dir: PathBuf,
    /// The parsed manifest, when valid.
    pub manifest: Option<Manifest>,
    /// What the manifest describes, when valid.
    pub kind: Option<ManifestKind>,
    /// The decision.
    pub state: EntryState,
}

impl Entry {
    /// The manifest name, or the directory's basename when the manifest is invalid.
    pub fn name(&self) -> String {
        match &self.manifest {
            Some(m) => m.name.to_string(),
            None => self
                .dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }
}

/// Inputs of discovery.
#[derive(Debug, Clone)]
pub struct DiscoveryOptions {
    /// The project directory (`<cwd>/.zot/extensions` is searched).
    pub cwd: PathBuf,
    /// `$ZOT_HOME` (`$ZOT_HOME/extensions` is searched).
    pub zot_home: PathBuf,
    /// `--ext` paths in command-line order; each is an extension directory.
    pub explicit: Vec<PathBuf>,
    /// `--no-ext`: skip discovery, keep explicit paths (HOST-186).
    pub no_discovery: bool,
}

/// The result of discovery, in load order (OP-3: explicit paths in CLI order,
/// then project directories by name, then global ones by name).
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// Every directory considered.
    pub entries: Vec<Entry>,
}

impl Discovery {
    /// The entries to load, in load order.
    pub fn to_load(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.state == EntryState::Load)
    }

    /// Entries whose manifest failed to load.
    pub fn errors(&self) -> impl Iterator<Item = (&Entry, &ManifestError)> {
        self.entries.iter().filter_map(|e| match &e.state {
            EntryState::Invalid(err) => Some((e, err)),
            _ => None,
        })
    }
}

/// The project-local extensions root of `cwd`.
pub fn project_root(cwd: &Path) -> PathBuf {
    cwd.join(".zot").join("extensions")
}

/// The global extensions root of `zot_home`.
pub fn global_root(zot_home: &Path) -> PathBuf {
    zot_home.join("extensions")
}

/// Child directories of a search root that hold a manifest, sorted by name.
/// A missing root yields nothing (HOST-4); symlinked directories count
/// (HOST-5); directories without `extension.json` are skipped (HOST-3).
pub fn scan_root(root: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .map(|e| e.path())
        // `is_dir` follows symlinks.
        .filter(|p| p.is_dir() && p.join(crate::store::manifest::MANIFEST_FILE).exists())
        .collect();
    dirs.sort();
    dirs
}

/// Runs discovery (HOST-1..HOST-5).
pub fn discover(opts: &DiscoveryOptions) -> Discovery {
    let mut candidates: Vec<(Source, PathBuf)> = opts
        .explicit
        .iter()
        .map(|p| (Source::Explicit, absolutize(p, &opts.cwd)))
        .collect();
    if !opts.no_discovery {
        candidates.extend(
            scan_root(&project_root(&opts.cwd))
                .into_iter()
                .map(|d| (Source::Project, d)),
        );
        candidates.extend(
            scan_root(&global_root(&opts.zot_home))
                .into_iter()
                .map(|d| (Source::Global, d)),
        );
    }
    let mut out = Discovery::default();
    for (source, dir) in candidates {
        let entry = match load_manifest(&dir) {
            Err(err) => Entry {
                source,
                dir,
                manifest: None,
                kind: None,
                state: EntryState::Invalid(err),
            },
            Ok((manifest, kind)) => {
                // OP-8: dedupe by manifest name only. Disabled entries do not
                // shadow: they are not loaded.
                let winner = out.entries.iter().find(|e| {
                    e.state == EntryState::Load
                        && e.manifest.as_ref().is_some_and(|m| m.name == manifest.name)
                });
                let state = match winner {
                    Some(w) => EntryState::Shadowed { by: w.dir.clone() },
                    None if !manifest.is_enabled() => EntryState::Disabled,
                    None => EntryState::Load,
                };
                Entry {
                    source,
                    dir,
                    manifest: Some(manifest),
                    kind: Some(kind),
                    state,
                }
            }
        };
        out.entries.push(entry);
    }
    out
}

fn absolutize(p: &Path, cwd: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_owned()
    } else {
        cwd.join(p)
    }
}

/// The target OS family for `$ZOT_HOME` defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OsFamily {
    /// macOS.
    MacOs,
    /// Windows.
    Windows,
    /// Anything else.
    Other,
}

impl OsFamily {
    /// The OS this binary runs on.
    pub fn current() -> Self {
        if cfg!(target_os = "macos") {
            Self::MacOs
        } else if cfg!(windows) {
            Self::Windows
        } else {
            Self::Other
        }
    }
}

/// Resolves `$ZOT_HOME` (HOST-6, OP-17) from an environment lookup: `ZOT_HOME`;
/// else `$XDG_STATE_HOME/zot` (any OS); else the per-OS default; `.zot` when no
/// home directory is known.
pub fn resolve_zot_home(env: impl Fn(&str) -> Option<String>, os: OsFamily) -> PathBuf {
    let get = |k: &str| env(k).filter(|v| !v.is_empty());
    if let Some(h) = get("ZOT_HOME") {
        return PathBuf::from(h);
    }
    if let Some(x) = get("XDG_STATE_HOME") {
        return PathBuf::from(x).join("zot");
    }
    match os {
        OsFamily::Windows => match get("LOCALAPPDATA") {
            Some(l) => PathBuf::from(l).join("zot"),
            None => PathBuf::from(".zot"),
        },
        OsFamily::MacOs => match get("HOME") {
            Some(h) => PathBuf::from(h)
                .join("Library")
                .join("Application Support")
                .join("zot"),
            None => PathBuf::from(".zot"),
        },
        OsFamily::Other => match get("HOME") {
            Some(h) => PathBuf::from(h).join(".local").join("state").join("zot"),
            None => PathBuf::from(".zot"),
        },
    }
}

/// `$ZOT_HOME` from the process environment.
pub fn zot_home_from_env() -> PathBuf {
    resolve_zot_home(|k| std::env::var(k).ok(), OsFamily::current())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn zot_home_precedence() {
        let env = |pairs: &[(&str, &str)]| {
            let m: HashMap<String, String> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            move |k: &str| m.get(k).cloned()
        };
        let all = [
            ("ZOT_HOME", "/z"),
            ("XDG_STATE_HOME", "/x"),
            ("HOME", "/h"),
            ("LOCALAPPDATA", "/l"),
        ];
        assert_eq!(
            resolve_zot_home(env(&all), OsFamily::Other),
            PathBuf::from("/z")
        );
        assert_eq!(
            resolve_zot_home(env(&all[1..]), OsFamily::MacOs),
            PathBuf::from("/x/zot")
        );
        assert_eq!(
            resolve_zot_home(env(&all[2..]), OsFamily::MacOs),
            PathBuf::from("/h/Library/Application Support/zot")
        );
        assert_eq!(
            resolve_zot_home(env(&all[2..]), OsFamily::Windows),
            PathBuf::from("/l/zot")
        );
        assert_eq!(
            resolve_zot_home(env(&all[2..]), OsFamily::Other),
            PathBuf::from("/h/.local/state/zot")
        );
        assert_eq!(
            resolve_zot_home(env(&[]), OsFamily::Other),
            PathBuf::from(".zot")
        );
    }
}
