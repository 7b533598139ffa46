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
//! - every diagnostic is one line.

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
        assert!(!d.contains('\n'), "a multi-line diagnostic: {d:?}");
    }
    for (id, end) in &intake.requests {
        assert_ne!(
            *end,
            RequestEnd::Waiting,
            "request {id} still waits after the extension is gone"
        );
    }
    if intake.disconnect.as_deref() == Some("stdout closed") {
        let read = intake
            .wire
            .iter()
            .filter(|r| r["dir"] == "ext->host")
            .count();
        let lines = stdout
            .split(|b| *b == b'\n')
            .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
            .count();
        assert_eq!(read, lines, "lines read vs. wire log records");
    }
}
