//! One language's conformance extension run straight from its
//! `extension.json`, with no host in between: the suite itself writes the
//! host's frames and reads the extension's.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How a session ends.
#[derive(Debug, Clone, Copy)]
pub enum End {
    Shutdown,
    Eof,
}

/// How long a request's reply may take before it counts as missing (the
/// host's own deadlines are 5 s for interceptions, 30 s for commands).
pub const REPLY_WAIT: Duration = Duration::from_secs(5);

/// How long an extension may take to exit after shutdown or EOF (the
/// contract says within one second; a loaded CI machine gets slack).
const EXIT_WAIT: Duration = Duration::from_secs(5);

/// How to start one language's extension.
pub struct Launch {
    pub lang: String,
    dir: PathBuf,
    exec: PathBuf,
    args: Vec<String>,
}

impl Launch {
    pub fn new(lang: &str, dir: &Path) -> Result<Self, String> {
        let dir = dir
            .canonicalize()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let manifest: Value = std::fs::read_to_string(dir.join("extension.json"))
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
            .map_err(|e| format!("{}/extension.json: {e}", dir.display()))?;
        let exec = manifest["exec"].as_str().unwrap_or_default();
        let exec = if exec.contains('/') {
            dir.join(exec)
        } else {
            PathBuf::from(exec)
        };
        let args = manifest["args"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self {
            lang: lang.to_owned(),
            dir,
            exec,
            args,
        })
    }
}

/// A running extension: its stdin and its stdout, line by line.
pub struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Frames read while waiting for something else.
    pub seen: Vec<String>,
}

impl Proc {
    /// Starts the extension and completes the handshake (after `ready`).
    pub fn start(l: &Launch) -> Result<Self, String> {
        let mut p = Self::until_hello(l, Stdio::null())?;
        p.send(r#"{"type":"hello_ack","protocol_version":1,"zot_version":"differential","provider":"p","model":"m","cwd":"/","data_dir":"/tmp","capabilities":["call_tool"]}"#);
        p.expect(|f| f["type"] == "ready")
            .ok_or_else(|| format!("{}: no ready", l.lang))?;
        p.seen.clear(); // the registrations: the scripted suite compares them
        Ok(p)
    }

    /// Starts the extension, its stderr going to `stderr`, and reads its
    /// `hello`.
    pub fn until_hello(l: &Launch, stderr: Stdio) -> Result<Self, String> {
        let mut child = Command::new(&l.exec)
            .args(&l.args)
            .current_dir(&l.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("{}: cannot start {}: {e}", l.lang, l.exec.display()))?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut p = Self {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
        };
        p.expect(|f| f["type"] == "hello")
            .ok_or_else(|| format!("{}: no hello", l.lang))?;
        Ok(p)
    }

    pub fn send(&mut self, line: &str) {
        if let Some(stdin) = &mut self.stdin {
            // A dead extension shows in what it fails to answer.
            let _ = stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush());
        }
    }

    /// Reads until a frame satisfies `want` (within [`REPLY_WAIT`]); the
    /// frames before it are kept in `seen`.
    pub fn expect(&mut self, want: impl Fn(&Value) -> bool) -> Option<Value> {
        self.expect_within(REPLY_WAIT, want)
    }

    /// [`Proc::expect`] with another wait.
    pub fn expect_within(
        &mut self,
        wait: Duration,
        want: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.checked_duration_since(Instant::now())?;
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let v: Value =
                        serde_json::from_str(&line).unwrap_or(Value::String(line.clone()));
                    if want(&v) {
                        return Some(v);
                    }
                    self.seen.push(line);
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Ends the session and reads everything left; says how it exited.
    pub fn end(&mut self, end: End) -> String {
        match end {
            End::Shutdown => self.send(r#"{"type":"shutdown"}"#),
            End::Eof => {}
        }
        self.stdin = None; // EOF (after shutdown too: the host closes stdin)
        let deadline = Instant::now() + EXIT_WAIT;
        loop {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return "did not exit".into();
            };
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => continue,
            }
        }
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    return match status.code() {
                        Some(c) => format!("exit {c}"),
                        None => "killed by a signal".into(),
                    }
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10)); // polling the exit status
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return "did not exit".into();
                }
            }
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
