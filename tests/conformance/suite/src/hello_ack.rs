//! The `hello-ack` check: a `hello_ack` with a field of the wrong JSON type
//! (`model: null`, `cwd: 5`) fails the handshake in every language, alike:
//! exit status 1 and, on stderr, one line naming the field and the type it
//! should have (docs/protocol.md, "Handshake"). An absent field is not an
//! error: it takes its default and the session goes on.

use std::process::Stdio;

use crate::process::{End, Launch, Proc};

/// A `hello_ack` with `field` set to the JSON text `value` (or absent when
/// `None`).
fn ack(field: &str, value: Option<&str>) -> String {
    let mut fields = vec![
        ("protocol_version", "1"),
        ("zot_version", r#""hello-ack""#),
        ("provider", r#""p""#),
        ("model", r#""m""#),
        ("cwd", r#""/""#),
        ("data_dir", r#""/tmp""#),
    ];
    fields.retain(|(name, _)| *name != field);
    if let Some(v) = value {
        fields.push((field, v));
    }
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!(r#""{k}":{v}"#))
        .collect();
    format!(r#"{{"type":"hello_ack",{}}}"#, body.join(","))
}

/// The refused cases: field, JSON value, the end of the stderr line.
const REFUSED: [(&str, &str, &str); 2] = [
    (
        "model",
        "null",
        "handshake failed: first host line: invalid `hello_ack` frame: field `model`: invalid type: null, expected a string",
    ),
    (
        "cwd",
        "5",
        "handshake failed: first host line: invalid `hello_ack` frame: field `cwd`: invalid type: integer `5`, expected a string",
    ),
];

/// One session with `ack` as the first host line, stdin closed after it:
/// how the process ended, whether it got to `ready`, and its stderr.
fn session(launch: &Launch, ack: &str) -> Result<(String, bool, String), String> {
    let log = log_path(launch, ack);
    let stderr = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let mut p = Proc::until_hello(launch, Stdio::from(stderr))?;
    p.send(ack);
    let ready = p.expect(|f| f["type"] == "ready").is_some();
    let exit = p.end(End::Eof);
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    Ok((exit, ready, text))
}

/// Where one session's stderr goes (one file per language and line).
fn log_path(launch: &Launch, ack: &str) -> std::path::PathBuf {
    let tag: u32 = ack
        .bytes()
        .fold(0, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    std::env::temp_dir().join(format!(
        "zot-conformance-{}-hello-ack-{}-{tag:08x}.log",
        std::process::id(),
        launch.lang
    ))
}

/// Runs the check against one language; the problems found.
pub fn check(launch: &Launch) -> Vec<String> {
    let mut problems = Vec::new();
    for (field, value, want) in REFUSED {
        let line = ack(field, Some(value));
        match session(launch, &line) {
            Err(e) => problems.push(e),
            Ok((exit, ready, stderr)) => {
                if ready || exit != "exit 1" {
                    problems.push(format!(
                        "`{field}: {value}`: {exit}{} (want exit 1 without ready)",
                        if ready { " after ready" } else { "" }
                    ));
                }
                // Said once: the engine does not log what `run` reports.
                let cause = want.trim_start_matches("handshake failed: ");
                let said = stderr.lines().filter(|l| l.contains(cause)).count();
                if said > 1 {
                    problems.push(format!(
                        "`{field}: {value}`: the failure is on {said} stderr lines (want one); stderr:\n{}",
                        stderr.trim_end()
                    ));
                }
                if !stderr.lines().any(|l| l.ends_with(want)) {
                    problems.push(format!(
                        "`{field}: {value}`: no stderr line ending with {want:?}; stderr:\n{}",
                        stderr.trim_end()
                    ));
                }
            }
        }
    }
    // Absent: the default, and the session goes on to a clean end.
    match session(launch, &ack("model", None)) {
        Err(e) => problems.push(e),
        Ok((exit, ready, stderr)) => {
            if !ready || exit != "exit 0" || stderr.contains("handshake failed") {
                problems.push(format!(
                    "no `model`: {exit}, ready {ready} (want ready and exit 0); stderr:\n{}",
                    stderr.trim_end()
                ));
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_acks_differ_only_in_the_field() {
        assert_eq!(
            ack("model", Some("null")),
            r#"{"type":"hello_ack","protocol_version":1,"zot_version":"hello-ack","provider":"p","cwd":"/","data_dir":"/tmp","model":null}"#
        );
        assert!(!ack("model", None).contains("model"));
    }
}
