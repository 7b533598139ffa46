//! Logging: stdout is the wire, so every line goes to stderr.
//!
//! Internal diagnostics go through `tracing` when the application installed
//! a subscriber, and straight to stderr as `[<name>] <message>` otherwise,
//! so that they always reach the host's per-extension log.

/// Writes `[<name>] <message>` to stderr (the Go SDK's `Logf` format).
pub fn line(name: &str, message: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    for l in message.lines() {
        let _ = writeln!(err, "[{name}] {l}");
    }
    if message.is_empty() {
        let _ = writeln!(err, "[{name}] ");
    }
}

/// An engine diagnostic (malformed frame, late answer, failed handler...).
pub fn diag(name: &str, message: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::warn!(extension = name, "{message}");
    } else {
        line(name, message);
    }
}
