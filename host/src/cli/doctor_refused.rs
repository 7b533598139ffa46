//! Registrations refused after an extension started, which `ext doctor`
//! shows as problems: the extension runs and answers `ready`, but some of
//! what its author registered never reached the host.
//!
//! Two places refuse a registration after start-up without the host's
//! registry seeing it (the registry's own refusals are conflicts already):
//!
//! - the SDK or the engine under it, which write one line to stderr, kept
//!   in the extension's log as `[<name>] <kind> "<name>" not registered:
//!   <why>` (every SDK, when the engine refuses what it is handed) or
//!   `[<name>] registration refused: <why>` (Rust's on-hello registrations);
//! - the host, past [`MAX_REGISTRATIONS`] commands and tools (a
//!   diagnostic, `[zot] more than … registered; ignoring the rest`).
//!
//! Only what this doctor run's start-up wrote counts: [`LogMarks`] notes
//! where every log ends before the extensions start.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::cli::doctor_report::{ExtReport, Health};
use crate::process::extension::MAX_REGISTRATIONS;

/// The kinds an SDK names in `<kind> "<name>" not registered: …`.
const KINDS: [&str; 4] = ["command ", "tool ", "event ", "interceptor "];

/// At most this much of one log is read (one start-up writes far less).
const READ_LIMIT: u64 = 1 << 20;

/// At most this many refusals are listed per extension, each cut at
/// [`LINE_LIMIT`] characters.
const MAX_LISTED: usize = 20;
const LINE_LIMIT: usize = 300;

/// Where each extension log ended before the extensions started.
#[derive(Debug, Default)]
pub struct LogMarks(HashMap<PathBuf, u64>);

impl LogMarks {
    /// The length of every file in `log_dir` now (a log created later
    /// starts at 0).
    pub fn take(log_dir: &Path) -> Self {
        let Ok(dir) = std::fs::read_dir(log_dir) else {
            return Self::default();
        };
        let ends = dir
            .flatten()
            .filter_map(|e| Some((e.path(), e.metadata().ok()?.len())))
            .collect();
        Self(ends)
    }

    /// The refusals written to `log` since the mark, oldest first.
    pub fn refusals(&self, log: &Path) -> Vec<String> {
        let from = self.0.get(log).copied().unwrap_or(0);
        since(log, from)
            .lines()
            .filter_map(refusal)
            .map(cut)
            .collect()
    }
}

/// The text of a log's tail after `from` (lossy UTF-8; empty when it
/// cannot be read).
fn since(log: &Path, from: u64) -> String {
    let mut bytes = Vec::new();
    let read = std::fs::File::open(log).and_then(|mut f| {
        f.seek(SeekFrom::Start(from))?;
        f.take(READ_LIMIT).read_to_end(&mut bytes)
    });
    match read {
        Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => String::new(),
    }
}

/// The refusal a log line reports, without its `[<name>] ` prefix.
pub fn refusal(line: &str) -> Option<&str> {
    let (who, text) = match line.strip_prefix('[').and_then(|l| l.split_once("] ")) {
        Some((who, text)) => (who, text.trim_end()),
        None => return None,
    };
    let by_sdk = text.starts_with("registration refused: ")
        || (KINDS.iter().any(|k| text.starts_with(k)) && text.contains(" not registered: "));
    let by_host = who == "zot" && text == host_limit_text();
    (by_sdk || by_host).then_some(text)
}

/// The host's diagnostic when an extension registers too much
/// (`process::extension`, `admit_registration`).
fn host_limit_text() -> String {
    format!("more than {MAX_REGISTRATIONS} commands and tools registered; ignoring the rest")
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(LINE_LIMIT) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// Marks each extension that ran and had a registration refused as a
/// problem, listing the refusals (and leaving the same text out of its
/// warnings); returns how many refusals there were.
pub fn apply(marks: &LogMarks, reports: &mut [ExtReport]) -> usize {
    let mut total = 0;
    for r in reports.iter_mut() {
        let ran = matches!(r.state, "ready" | "auto_ready" | "timed_out" | "exited");
        let mut refused = match &r.log {
            Some(log) if ran => marks.refusals(Path::new(log)),
            _ => continue,
        };
        if refused.is_empty() {
            continue;
        }
        r.warnings.retain(|w| !refused.contains(w));
        r.health = Health::Problem;
        total += refused.len();
        if refused.len() > MAX_LISTED {
            let more = refused.len() - MAX_LISTED;
            refused.truncate(MAX_LISTED);
            refused.push(format!("... and {more} more (see the log)"));
        }
        r.refused = refused;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sdk_and_host_texts_are_refusals_and_nothing_else() {
        for (line, want) in [
            (
                r#"[weather] tool "my tool" not registered: invalid tool name "my tool""#,
                Some(r#"tool "my tool" not registered: invalid tool name "my tool""#),
            ),
            (
                "[w] registration refused: duplicate tool name \"t\": a tool of this name is already registered",
                Some("registration refused: duplicate tool name \"t\": a tool of this name is already registered"),
            ),
            ("[w] a tool was not registered: by me", None),
            ("registration refused: no prefix", None),
            ("[w] more than 4096 commands and tools registered; ignoring the rest", None),
        ] {
            assert_eq!(refusal(line), want, "{line}");
        }
        let host = format!("[zot] {}", host_limit_text());
        assert_eq!(refusal(&host), Some(host_limit_text().as_str()));
    }
}
