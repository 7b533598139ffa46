//! A minimal zot host over a real process: it starts `zot-mcp wrap -- …`,
//! answers `hello`, collects the registrations and exchanges frames as
//! JSON, the way a zot host does (docs/protocol.md §5).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};
use zot_ext_engine::testing::default_hello_ack;
use zot_protocol::HostFrame;

/// A safety net so a broken build fails instead of hanging; never reached
/// by a passing run.
const STUCK: Duration = Duration::from_secs(30);

pub struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<Value>,
    stderr: Receiver<String>,
    /// Every frame the extension sent, in order.
    pub seen: Vec<Value>,
}

impl Host {
    /// Starts `zot-mcp wrap -- <this test binary> --fixture` and does the
    /// handshake: the registrations are in `seen` when this returns.
    pub fn start() -> Self {
        let fixture = std::env::current_exe().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_zot-mcp"))
            .arg("wrap")
            .arg("--")
            .arg(fixture)
            .arg("--fixture")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let frames = lines(child.stdout.take().unwrap(), |l| {
            serde_json::from_str(&l).unwrap_or_else(|e| panic!("not a frame ({e}): {l}"))
        });
        let stderr = lines(child.stderr.take().unwrap(), |l| l);
        let mut host = Self {
            stdin: child.stdin.take(),
            child,
            frames,
            stderr,
            seen: Vec::new(),
        };
        assert_eq!(host.next()["type"], "hello");
        let ack = serde_json::to_value(HostFrame::HelloAck(default_hello_ack())).unwrap();
        host.send(ack);
        host.until("ready", |_| true);
        host
    }

    pub fn send(&mut self, frame: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{frame}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next frame from the extension.
    pub fn next(&mut self) -> Value {
        let frame = self
            .frames
            .recv_timeout(STUCK)
            .expect("a frame from the extension");
        self.seen.push(frame.clone());
        frame
    }

    /// Reads until a frame of type `ty` matching `pred`, and returns it.
    pub fn until(&mut self, ty: &str, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let f = self.next();
            if f["type"] == ty && pred(&f) {
                return f;
            }
        }
    }

    /// Frames of one type seen so far.
    pub fn seen(&self, ty: &str) -> Vec<&Value> {
        self.seen.iter().filter(|f| f["type"] == ty).collect()
    }

    /// Sends `tool_call` and waits for its `tool_result`.
    pub fn call(&mut self, id: &str, name: &str, args: Value) -> Value {
        self.start_call(id, name, args);
        self.until("tool_result", |f| f["id"] == id)
    }

    /// Sends `command_invoked` and waits for its `command_response`.
    pub fn command(&mut self, id: &str, name: &str, args: &str) -> Value {
        self.send(json!({"type": "command_invoked", "id": id, "name": name, "args": args}));
        self.until("command_response", |f| f["id"] == id)
    }

    pub fn start_call(&mut self, id: &str, name: &str, args: Value) {
        self.send(json!({"type": "tool_call", "id": id, "name": name, "args": args}));
    }

    /// Stderr lines until one contains `needle` (the extension's log).
    pub fn log_until(&mut self, needle: &str) -> String {
        let mut log = String::new();
        loop {
            match self.stderr.recv_timeout(STUCK) {
                Ok(line) if line.contains(needle) => return line,
                Ok(line) => {
                    log.push_str(&line);
                    log.push('\n');
                }
                Err(_) => panic!("no stderr line with {needle:?}; log:\n{log}"),
            }
        }
    }

    /// Waits for the process to exit.
    pub fn wait(&mut self) -> ExitStatus {
        self.child.wait().unwrap()
    }

    /// `shutdown`, then `shutdown_ack` and the process's exit.
    pub fn shutdown(mut self) -> ExitStatus {
        self.send(json!({"type": "shutdown"}));
        self.until("shutdown_ack", |_| true);
        self.stdin = None;
        self.wait()
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Lines of `r`, mapped, from a reader thread.
fn lines<R: Read + Send + 'static, T: Send + 'static>(
    r: R,
    map: impl Fn(String) -> T + Send + 'static,
) -> Receiver<T> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            if tx.send(map(line)).is_err() {
                break;
            }
        }
    });
    rx
}
