//! The host's intake of an extension's output (`zot-host`): the handshake
//! check of the first line, then the extension's read loop with the
//! manager's reply routing and registry and the session engine's handling
//! of spontaneous frames, through the `fuzzing` hook
//! ([`zot_host::fuzzing::ext_output`]).
//!
//! The input is an extension's stdout after one byte of options:
//! - bit 0: the harness writes a valid `hello` first;
//! - bits 1–2: the host mode (interactive, print, json, rpc);
//! - bit 3: continuous mode;
//! - bits 4–6: the first 512 bytes arrive in pieces of 1, 2, 3, 5, 8, 64
//!   or 512 bytes, or everything at once.
//!
//! Properties:
//! - no panic, in any task; the intake ends once the input does;
//! - with the harness's `hello`, the handshake passes;
//! - once the read loop ran to the end of the output, every non-blank line
//!   is in the wire log, once;
//! - no request the host was waiting on is still waiting after the
//!   extension is gone (each was answered or failed);
//! - every diagnostic is one line with no control character.

use zot_host::fuzzing::{ext_output, IntakeOptions, RequestEnd};
use zot_host::HostMode;

const HELLO: u8 = 1;
const CONTINUOUS: u8 = 8;
const MODES: [HostMode; 4] = [
    HostMode::Interactive,
    HostMode::Print,
    HostMode::Json,
    HostMode::Rpc,
];
const PIECES: [usize; 8] = [1, 2, 3, 5, 8, 64, 512, usize::MAX];

/// The `hello` the harness writes with option bit 0.
pub const HELLO_LINE: &str = r#"{"type":"hello","name":"fuzzed","version":"1.0.0","capabilities":["commands","tools","events","intercept","tool_cancel","call_tool"]}"#;

/// Checks the input (see the module docs); panics on a violation.
pub fn check(data: &[u8]) {
    let Some((&options, input)) = data.split_first() else {
        return;
    };
    crate::quiet();
    let watch = crate::panics::watch();
    let mut stdout = Vec::new();
    if options & HELLO != 0 {
        stdout.extend_from_slice(HELLO_LINE.as_bytes());
        stdout.push(b'\n');
    }
    stdout.extend_from_slice(input);
    let opts = IntakeOptions {
        mode: MODES[usize::from(options >> 1) & 3],
        continuous: options & CONTINUOUS != 0,
        writes: crate::writes(PIECES[usize::from(options >> 4) & 7], stdout.len()),
    };
    let rt = crate::paused_runtime();
    let intake = rt.block_on(ext_output(&stdout, &opts));
    drop(rt);
    watch.check("host_intake");

    if options & HELLO != 0 {
        assert!(
            matches!(intake.hello, Some(Ok(_))),
            "the harness's hello was refused: {:?}",
            intake.hello
        );
    }
    if let Some(Err(e)) = &intake.hello {
        let msg = e.to_string();
        assert!(!msg.contains('\n'), "a multi-line handshake error: {msg:?}");
    }
    if !matches!(intake.hello, Some(Ok(_))) {
        return;
    }
    for d in &intake.diagnostics {
        assert!(
            !d.chars().any(char::is_control),
            "a diagnostic with a control character (a line feed, a terminal escape...): {d:?}"
        );
    }
    for (id, end) in &intake.requests {
        assert_ne!(
            *end,
            RequestEnd::Waiting,
            "request {id} still waits after the extension is gone"
        );
    }
    if intake.disconnect.as_deref() == Some("stdout closed") {
        let read = intake.lines_logged;
        let lines = stdout
            .split(|b| *b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .count();
        assert_eq!(read, lines, "lines read vs. wire log records");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hook runs the real intake: replies reach the requests they
    /// answer, and every line is logged.
    #[test]
    fn replies_reach_the_waiting_requests() {
        let stdout = format!(
            "{HELLO_LINE}\n{}\n{}\n{}\n",
            r#"{"type":"command_response","id":"1","action":"noop"}"#,
            r#"{"type":"tool_result","id":"2","content":[]}"#,
            r#"{"type":"tool_result","id":"3","content":[]}"#,
        );
        let opts = IntakeOptions {
            mode: HostMode::Interactive,
            continuous: false,
            writes: vec![7; 10],
        };
        let rt = crate::paused_runtime();
        let intake = rt.block_on(ext_output(stdout.as_bytes(), &opts));
        let ends: Vec<_> = intake
            .requests
            .iter()
            .map(|(id, e)| (id.as_str(), *e))
            .collect();
        // "3" waits for an event_intercept_response: a tool_result with its
        // id is no answer to it (HOST-46), so it fails at the disconnect.
        assert_eq!(
            ends,
            [
                ("1", RequestEnd::Answered),
                ("2", RequestEnd::Answered),
                ("3", RequestEnd::Failed)
            ]
        );
        assert_eq!(intake.disconnect.as_deref(), Some("stdout closed"));
        assert_eq!(intake.lines_logged, 4);
    }
}
