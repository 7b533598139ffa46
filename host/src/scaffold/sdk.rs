//! Where a new extension gets the SDK: the published packages (a released
//! `zot-host`), or the SDKs built in a zot-ext checkout before they are
//! published.
//!
//! `./dev install` in a checkout builds them into `<target>/sdk/` (the
//! crate is the checkout's `sdk-rust/`, the npm package a packed `.tgz`,
//! the Python package a wheel) and describes them in
//! `<target>/sdk/zot-sdk.json`. A `zot-host` built in that checkout
//! (`<target>/{debug,release}/zot-host`, found through the link on `PATH`)
//! finds the file beside its build folder; any other `zot-host` has none
//! and writes the registry form. `--sdk-from DIR` names a checkout (or its
//! SDK folder) explicitly.

use std::path::{Path, PathBuf};

/// The file `./dev install` writes beside the SDKs it built.
pub const MANIFEST: &str = "zot-sdk.json";

/// The SDKs of a checkout, as `./dev install` describes them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalSdk {
    /// Their version (the checkout's workspace version).
    pub version: String,
    /// The checkout.
    pub checkout: PathBuf,
    /// The Rust crate's folder (`sdk-rust/`).
    pub rust: PathBuf,
    /// The npm package, packed (`zot-ext-<version>.tgz`).
    pub npm: PathBuf,
    /// The Python wheel.
    pub python: PathBuf,
}

/// What a new extension names as its SDK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SdkSource {
    /// The published packages, at this host's version.
    Registry,
    /// A checkout's builds.
    Local(LocalSdk),
}

impl LocalSdk {
    /// Reads `DIR/zot-sdk.json`, or `DIR/target/sdk/zot-sdk.json` when DIR
    /// is a checkout; every path it names must exist.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let candidates = [dir.join(MANIFEST), dir.join("target/sdk").join(MANIFEST)];
        let Some(file) = candidates.iter().find(|f| f.is_file()) else {
            return Err(format!(
                "{} holds no {MANIFEST} (nor target/sdk/{MANIFEST}): run `./dev install` in the \
                 zot-ext checkout first",
                dir.display()
            ));
        };
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let sdk: Self = serde_json::from_str(&text)
            .map_err(|e| format!("{}: {e}; run `./dev install` again", file.display()))?;
        for (what, path) in [
            ("the Rust crate", &sdk.rust),
            ("the npm package", &sdk.npm),
            ("the Python wheel", &sdk.python),
        ] {
            if !path.exists() {
                return Err(format!(
                    "{what} {} named by {} is gone; run `./dev install` in {} again",
                    path.display(),
                    file.display(),
                    sdk.checkout.display()
                ));
            }
        }
        Ok(sdk)
    }

    /// The SDK folder of the checkout this `zot-host` was built in, if
    /// `./dev install` described one there: `<target>/sdk/` beside the
    /// build folder that holds the running binary (links resolved).
    pub fn beside_this_binary() -> Option<PathBuf> {
        let exe = dunce::canonicalize(std::env::current_exe().ok()?).ok()?;
        let dir = exe.parent()?.parent()?.join("sdk");
        dir.join(MANIFEST).is_file().then_some(dir)
    }
}

impl SdkSource {
    /// The source `zot-host new` uses: `--sdk-from DIR`, else a checkout
    /// build's own SDKs, else the registry (`registry` forces it).
    pub fn choose(sdk_from: Option<&Path>, registry: bool) -> Result<Self, String> {
        if registry {
            return Ok(Self::Registry);
        }
        match sdk_from {
            Some(dir) => LocalSdk::read(dir).map(Self::Local),
            None => match LocalSdk::beside_this_binary() {
                Some(dir) => LocalSdk::read(&dir).map(Self::Local),
                None => Ok(Self::Registry),
            },
        }
    }
}

/// A path as TOML and JSON strings write it (both escape `\` and `"`).
fn quoted(path: &Path) -> String {
    serde_json::to_string(&path.to_string_lossy()).unwrap_or_default()
}

/// The placeholders that depend on the source, filled into the templates.
pub fn placeholders(source: &SdkSource, version: &str) -> Vec<(&'static str, String)> {
    match source {
        SdkSource::Registry => vec![
            ("{{cargo_patch}}", String::new()),
            ("{{npm_sdk}}", format!("^{version}")),
            ("{{uv_sources}}", String::new()),
            ("{{sdk_note}}", String::new()),
        ],
        SdkSource::Local(sdk) => vec![
            (
                "{{cargo_patch}}",
                format!(
                    "\n# zot-ext from the checkout {checkout} (./dev install), until the\n\
                     # crate is published: delete these two lines to use crates.io's.\n\
                     [patch.crates-io]\nzot-ext = {{ path = {rust} }}\n",
                    checkout = sdk.checkout.display(),
                    rust = quoted(&sdk.rust),
                ),
            ),
            ("{{npm_sdk}}", format!("file:{}", sdk.npm.to_string_lossy())),
            (
                "{{uv_sources}}",
                format!(
                    "\n# zot-ext from the checkout {checkout} (./dev install), until the\n\
                     # package is published: delete these two lines to use PyPI's.\n\
                     [tool.uv.sources]\nzot-ext = {{ path = {wheel} }}\n",
                    checkout = sdk.checkout.display(),
                    wheel = quoted(&sdk.python),
                ),
            ),
            (
                "{{sdk_note}}",
                format!(
                    "\nThe SDK comes from the zot-ext checkout `{}` (built by its\n\
                     `./dev install`) until it is published; the lines that say so in the\n\
                     package file are the only difference.\n",
                    sdk.checkout.display()
                ),
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_sdk(dir: &Path) -> LocalSdk {
        std::fs::create_dir_all(dir.join("sdk-rust")).unwrap();
        std::fs::write(dir.join("zot-ext-0.1.0.tgz"), "").unwrap();
        std::fs::write(dir.join("zot_ext-0.1.0-cp39-abi3-linux_x86_64.whl"), "").unwrap();
        let sdk = LocalSdk {
            version: "0.1.0".into(),
            checkout: dir.to_owned(),
            rust: dir.join("sdk-rust"),
            npm: dir.join("zot-ext-0.1.0.tgz"),
            python: dir.join("zot_ext-0.1.0-cp39-abi3-linux_x86_64.whl"),
        };
        let json = serde_json::json!({
            "version": sdk.version, "checkout": sdk.checkout, "rust": sdk.rust,
            "npm": sdk.npm, "python": sdk.python,
        });
        std::fs::create_dir_all(dir.join("target/sdk")).unwrap();
        std::fs::write(dir.join("target/sdk").join(MANIFEST), json.to_string()).unwrap();
        sdk
    }

    #[test]
    fn a_checkout_or_its_sdk_folder_is_read_and_checked() {
        let d = tempfile::tempdir().unwrap();
        let sdk = write_sdk(d.path());
        assert_eq!(LocalSdk::read(d.path()).unwrap(), sdk);
        assert_eq!(LocalSdk::read(&d.path().join("target/sdk")).unwrap(), sdk);
        std::fs::remove_file(&sdk.npm).unwrap();
        let e = LocalSdk::read(d.path()).unwrap_err();
        assert!(
            e.contains("the npm package") && e.contains("./dev install"),
            "{e}"
        );
        let e = LocalSdk::read(&d.path().join("sdk-rust")).unwrap_err();
        assert!(e.contains("holds no zot-sdk.json"), "{e}");
    }

    #[test]
    fn the_registry_form_names_the_version_only() {
        let p = placeholders(&SdkSource::Registry, "1.2.3");
        assert!(p.contains(&("{{npm_sdk}}", "^1.2.3".into())));
        assert!(p.iter().all(|(k, v)| *k == "{{npm_sdk}}" || v.is_empty()));
        let d = tempfile::tempdir().unwrap();
        let local = SdkSource::Local(write_sdk(d.path()));
        let p = placeholders(&local, "1.2.3");
        let get = |k: &str| p.iter().find(|(n, _)| *n == k).unwrap().1.clone();
        assert!(get("{{cargo_patch}}").contains("[patch.crates-io]"));
        let npm = get("{{npm_sdk}}");
        let path = npm.strip_prefix("file:").expect("a file: dependency");
        assert!(Path::new(path).is_absolute(), "{npm}");
        assert!(get("{{uv_sources}}").contains("[tool.uv.sources]"));
    }
}
