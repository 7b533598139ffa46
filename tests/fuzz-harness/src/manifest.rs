//! The `extension.json` parser of `zot-host` ([`parse_manifest`]).
//!
//! The input is the file's bytes. `load_manifest` reads the file as UTF-8
//! (a file that is not is a read error, before parsing), so only UTF-8
//! inputs reach the parser. Properties:
//! - what parses is valid: a plain `name` (one the host may build a path
//!   from, [`zot_host::name::check_plain_name`]), and a kind that matches
//!   (`exec` → process, else `skills` → skills-only; the directory does not
//!   exist, so it has no theme);
//! - a parsed manifest written back as JSON (as `ext list --json` does)
//!   parses to the same manifest and kind;
//! - an error is one line that names the directory.

use std::path::Path;

use zot_host::manifest::{parse_manifest, ManifestKind};

/// Checks the input (see the module docs); panics on a violation.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = Path::new("/nonexistent/zot-fuzz/extension");
    match parse_manifest(dir, text) {
        Ok((m, kind)) => {
            assert!(
                zot_host::name::is_plain_name(m.name.as_str()),
                "accepted a name that is not plain: {m:?}"
            );
            let expected = if !m.exec.is_empty() {
                ManifestKind::Process
            } else {
                assert!(!m.skills.is_empty(), "accepted nothing to run: {m:?}");
                ManifestKind::SkillsOnly
            };
            assert_eq!(kind, expected, "{m:?}");
            let written = serde_json::to_string(&m).expect("a manifest serializes");
            let again = parse_manifest(dir, &written)
                .unwrap_or_else(|e| panic!("a written manifest does not parse: {e}\n  {written}"));
            assert_eq!(
                again,
                (m, kind),
                "a written manifest reads back differently"
            );
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "a multi-line error: {msg:?}");
            assert!(
                msg.starts_with(&dir.display().to_string()),
                "the error does not name the directory: {msg:?}"
            );
        }
    }
}
