//! The handshake (§5.1, HOST-20..29): `hello` first, `hello_ack` at once.

use std::path::Path;
use std::sync::Arc;

use tokio::io::BufReader;
use tokio::process::ChildStdout;
use zot_protocol::{CodecError, ExtFrame, Frame, Hello, LineReader};

use crate::config::Timeouts;
use crate::process::supervise::Supervised;
use crate::util::describe_exit;
use crate::wire::{Dir, WireLog};

/// The extension's stdout as a bounded line reader.
pub type StdoutLines = LineReader<BufReader<ChildStdout>>;

/// Why the handshake failed (the cause part of a load error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    /// stdout closed and the process exited (HOST-22).
    #[error("extension exited before hello: {0}")]
    ExitedBeforeHello(String),
    /// stdout closed but the process kept running past the grace (HOST-23).
    #[error("extension closed stdout before hello without exiting (killed)")]
    ClosedWithoutExit,
    /// No line within the hello bound (OP-4).
    #[error("no hello within {0:?} (killed)")]
    Timeout(std::time::Duration),
    /// The first line was another frame type (HOST-21).
    #[error("expected hello as the first frame, got {0:?}")]
    NotHello(String),
    /// The first line is not JSON at all: almost always something the
    /// extension printed to stdout before its SDK started (HOST-21).
    #[error(
        "first line is not JSON: {0:?}; stdout carries only frames and must begin with \
         hello (did the extension print to stdout before it started?)"
    )]
    NotJson(String),
    /// The first line could not be decoded.
    #[error("first line is not a valid hello frame: {0}")]
    Malformed(String),
    /// `hello.name` is empty.
    #[error("hello has an empty name")]
    EmptyName,
    /// Reading stdout failed.
    #[error("reading stdout: {0}")]
    Io(String),
}

/// Reads the first line and requires a `hello` with a non-empty name. On any
/// failure the process is killed (whole tree) and reaped.
pub async fn read_hello(
    ext_name: &str,
    process: &Supervised,
    lines: &mut StdoutLines,
    t: &Timeouts,
    wire: Option<&WireLog>,
) -> Result<Hello, HandshakeError> {
    let first = tokio::select! {
        r = crate::deadline::timeout(t.hello, lines.next_line()) => r,
        status = process.died() => {
            // It exited while something it started may still hold stdout
            // open: what it wrote before exiting is read (bounded by the
            // same grace as the mirror case, N-18); no line means it
            // exited before hello, whatever still holds the pipe.
            match crate::deadline::timeout(t.exit_before_hello, lines.next_line()).await {
                Ok(Ok(Some(line))) => Ok(Ok(Some(line))),
                _ => {
                    // Reported once what it left behind is gone.
                    let status = process.exited().await.or(status);
                    return Err(HandshakeError::ExitedBeforeHello(
                        status.map_or_else(|| "unknown status".into(), describe_exit),
                    ));
                }
            }
        }
    };
    let err = match first {
        Err(_) => HandshakeError::Timeout(t.hello),
        Ok(Ok(None)) => {
            // stdout closed: wait up to the grace for the exit status.
            return Err(
                match crate::deadline::timeout(t.exit_before_hello, process.exited()).await {
                    Ok(Some(status)) => HandshakeError::ExitedBeforeHello(describe_exit(status)),
                    Ok(None) => HandshakeError::Io("lost the process".into()),
                    Err(_) => {
                        process.kill_and_wait().await;
                        HandshakeError::ClosedWithoutExit
                    }
                },
            );
        }
        Ok(Err(CodecError::FrameTooLarge { len, limit })) => HandshakeError::Malformed(format!(
            "line of {len} bytes exceeds the {limit}-byte frame limit"
        )),
        Ok(Err(e)) => HandshakeError::Io(e.to_string()),
        Ok(Ok(Some(line))) => match first_line(ext_name, line, wire) {
            Ok(h) => return Ok(h),
            Err(e) => e,
        },
    };
    process.kill_and_wait().await;
    Err(err)
}

/// Logs the extension's first line and requires it to be a `hello` with a
/// non-empty name (HOST-21).
pub fn first_line(
    ext_name: &str,
    line: &[u8],
    wire: Option<&WireLog>,
) -> Result<Hello, HandshakeError> {
    if let Some(w) = wire {
        w.line(ext_name, Dir::ExtToHost, line);
    }
    match ExtFrame::decode(line) {
        Ok(ExtFrame::Hello(h)) if !h.name.trim().is_empty() => Ok(h),
        Ok(ExtFrame::Hello(_)) => Err(HandshakeError::EmptyName),
        Ok(other) => Err(HandshakeError::NotHello(other.type_name().to_owned())),
        Err(_) if !matches!(line.trim_ascii_start().first(), Some(b'{' | b'[')) => {
            Err(HandshakeError::NotJson(line_start(line)))
        }
        Err(e) => Err(HandshakeError::Malformed(e.to_string())),
    }
}

/// The first 80 characters of a line (lossy UTF-8), for an error message.
fn line_start(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// A load failure with everything HOST-174 asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// Manifest name (or directory basename).
    pub ext: String,
    /// Extension directory.
    pub dir: String,
    /// Configured `exec`.
    pub exec: String,
    /// Declared language, if any.
    pub language: String,
    /// The original error.
    pub cause: String,
    /// The stderr log path, when the log could be opened.
    pub log: Option<String>,
    /// The last lines the process wrote to stderr before the handshake
    /// failed (empty when it wrote none or there is no log).
    pub stderr: Vec<String>,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "extension {:?}: {}", self.ext, self.cause)?;
        write!(f, "\n  dir: {}", self.dir)?;
        if !self.exec.is_empty() {
            write!(f, "\n  exec: {}", self.exec)?;
        }
        if !self.language.is_empty() {
            write!(f, "\n  language: {}", self.language)?;
        }
        if let Some(log) = &self.log {
            write!(f, "\n  log: {log}")?;
        }
        if !self.stderr.is_empty() {
            let n = self.stderr.len();
            let s = if n == 1 { "" } else { "s" };
            write!(f, "\n  stderr (last {n} line{s}):")?;
            for line in &self.stderr {
                write!(f, "\n    {line}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    /// Builds the error for an extension directory.
    pub fn new(
        ext: &str,
        dir: &Path,
        manifest: Option<&crate::store::manifest::Manifest>,
        cause: impl ToString,
        log: Option<&Arc<crate::process::spawn::ExtLog>>,
    ) -> Self {
        Self {
            ext: ext.to_owned(),
            dir: dir.display().to_string(),
            exec: manifest.map(|m| m.exec.clone()).unwrap_or_default(),
            language: manifest.map(|m| m.language.clone()).unwrap_or_default(),
            cause: cause.to_string(),
            log: log
                .filter(|l| l.is_open())
                .map(|l| l.path().display().to_string()),
            stderr: Vec::new(),
        }
    }
}
