//! Extension names: the one check every name passes before a path is built
//! from it.
//!
//! A manifest `name` (§16.2) is the extension's identity and names its log
//! file, `$ZOT_HOME/logs/ext-<name>.log` (§16.4); the installer also uses
//! plain names for directories under `$ZOT_HOME/extensions`. A name that
//! holds a path separator or `..` would put that file anywhere, so names are
//! checked by [`check_plain_name`] wherever they enter (manifest parsing,
//! `ext install --name`, `ext logs <name>`), and [`ExtName`], which only
//! that check can make, is what the path-building functions accept.

use std::fmt;
use std::path::{Component, Path};

/// Why a string cannot be an extension or directory name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Nothing, or only blanks.
    #[error("it is empty")]
    Empty,
    /// `/` or `\`, or more than one path component.
    #[error("it holds a path separator (`/` or `\\`)")]
    Separator,
    /// `.` or `..`.
    #[error("`.` and `..` are not names")]
    Dots,
    /// A leading dot (reserved for the installer's own directories).
    #[error(
        "it starts with a dot (dot names are reserved for the installer's staging directories)"
    )]
    LeadingDot,
    /// A control character (newline, NUL, ...).
    #[error("it holds a control character")]
    Control,
}

/// Checks that `name` is a single, ordinary file or directory name: not
/// empty, not `.` / `..`, no path separator, not absolute, not hidden, no
/// control characters. The one rule for manifest names and install
/// directory names.
pub fn check_plain_name(name: &str) -> Result<(), NameError> {
    if name.trim().is_empty() {
        return Err(NameError::Empty);
    }
    if name == "." || name == ".." {
        return Err(NameError::Dots);
    }
    if name.contains('/') || name.contains('\\') {
        return Err(NameError::Separator);
    }
    if name.chars().any(char::is_control) {
        return Err(NameError::Control);
    }
    if name.starts_with('.') {
        return Err(NameError::LeadingDot);
    }
    // Whatever else the platform reads as more than one component (a drive
    // prefix on Windows) is refused too.
    let mut comps = Path::new(name).components();
    if !matches!(comps.next(), Some(Component::Normal(_))) || comps.next().is_some() {
        return Err(NameError::Separator);
    }
    Ok(())
}

/// Whether [`check_plain_name`] accepts `name`.
pub fn is_plain_name(name: &str) -> bool {
    check_plain_name(name).is_ok()
}

/// A checked extension name (see the module docs); made only by
/// [`ExtName::new`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct ExtName(String);

impl ExtName {
    /// Checks `name` with [`check_plain_name`].
    pub fn new(name: &str) -> Result<Self, NameError> {
        check_plain_name(name)?;
        Ok(Self(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ExtName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for ExtName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for ExtName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for ExtName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for ExtName {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl From<ExtName> for String {
    fn from(n: ExtName) -> Self {
        n.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names() {
        for ok in ["ext", "my-ext_2", "a.b", "Grüße", "a b"] {
            assert!(ExtName::new(ok).is_ok(), "{ok}");
        }
        let bad = [
            ("", NameError::Empty),
            ("  ", NameError::Empty),
            (".", NameError::Dots),
            ("..", NameError::Dots),
            ("../evil", NameError::Separator),
            ("x/../../../../tmp/pwned", NameError::Separator),
            ("/abs", NameError::Separator),
            ("a/b", NameError::Separator),
            ("a\\b", NameError::Separator),
            (".hidden", NameError::LeadingDot),
            ("a\nb", NameError::Control),
            ("a\0b", NameError::Control),
        ];
        for (name, why) in bad {
            assert_eq!(ExtName::new(name), Err(why), "{name:?}");
        }
    }
}
