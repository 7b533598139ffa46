//! One connection to a running target: its pipes, a line reader, a
//! watchdog that kills a target that stops answering, and the parsed form of
//! the frames the harness looks at.

use std::borrow::Cow;
use std::io::Write;
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::{Error, Result};
use crate::lines::LineReader;

/// The fields of an extension → host frame the harness reads; the parser
/// skips everything else.
#[derive(Debug, Deserialize)]
pub struct Reply<'a> {
    /// Frame `type`.
    #[serde(borrow, rename = "type")]
    pub kind: Cow<'a, str>,
    /// Correlation id.
    #[serde(borrow, default)]
    pub id: Option<Cow<'a, str>>,
    /// `tool_result.is_error`.
    #[serde(default)]
    pub is_error: bool,
    /// `tool_result.content`.
    #[serde(borrow, default)]
    pub content: Vec<Block<'a>>,
    /// `notify.message`.
    #[serde(borrow, default)]
    pub message: Option<Cow<'a, str>>,
    /// `hello.name`, `register_tool.name`, `call_tool.name`.
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    /// `call_tool.args`.
    #[serde(borrow, default)]
    pub args: Option<&'a RawValue>,
    /// `hello.capabilities`.
    #[serde(borrow, default)]
    pub capabilities: Vec<Cow<'a, str>>,
    /// `subscribe.events`.
    #[serde(borrow, default)]
    pub events: Vec<Cow<'a, str>>,
}

/// A content block (only text matters here).
#[derive(Debug, Deserialize)]
pub struct Block<'a> {
    /// Block type.
    #[serde(borrow, rename = "type")]
    pub kind: Cow<'a, str>,
    /// Text of a text block.
    #[serde(borrow, default)]
    pub text: Option<Cow<'a, str>>,
}

impl Reply<'_> {
    /// The text of the first text block, or `""`.
    pub fn first_text(&self) -> &str {
        self.content
            .iter()
            .find(|b| b.kind == "text")
            .and_then(|b| b.text.as_deref())
            .unwrap_or_default()
    }

    /// Whether this is the `tool_result` with this `id`.
    pub fn is_result_for(&self, id: &str) -> bool {
        self.kind == "tool_result" && self.id.as_deref() == Some(id)
    }
}

/// Kills the target's process group when a deadline passes, so a harness
/// blocked on a pipe wakes up with end-of-file instead of hanging.
#[derive(Debug)]
struct Watchdog {
    shared: Arc<(Mutex<WatchState>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct WatchState {
    deadline: Option<Instant>,
    stop: bool,
    fired: bool,
}

impl Watchdog {
    fn new(pgid: i32) -> Self {
        let shared = Arc::new((Mutex::new(WatchState::default()), Condvar::new()));
        let s = shared.clone();
        let thread = std::thread::spawn(move || {
            let (lock, cv) = &*s;
            let mut st = lock.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                if st.stop {
                    return;
                }
                match st.deadline {
                    None => st = cv.wait(st).unwrap_or_else(PoisonError::into_inner),
                    Some(d) => {
                        let now = Instant::now();
                        if now >= d {
                            // SAFETY: plain syscall; the group is the target's own.
                            unsafe { libc::kill(-pgid, libc::SIGKILL) };
                            st.fired = true;
                            st.deadline = None;
                        } else {
                            st = cv
                                .wait_timeout(st, d - now)
                                .unwrap_or_else(PoisonError::into_inner)
                                .0;
                        }
                    }
                }
            }
        });
        Watchdog {
            shared,
            thread: Some(thread),
        }
    }

    fn arm(&self, within: Duration) {
        let (lock, cv) = &*self.shared;
        lock.lock().unwrap_or_else(PoisonError::into_inner).deadline =
            Some(Instant::now() + within);
        cv.notify_one();
    }

    fn fired(&self) -> bool {
        self.shared
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .fired
    }
}

impl Watchdog {
    /// Stops the thread; after this it never kills anything.
    fn stop(&mut self) {
        let (lock, cv) = &*self.shared;
        lock.lock().unwrap_or_else(PoisonError::into_inner).stop = true;
        cv.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A running target with piped stdin/stdout.
#[derive(Debug)]
pub struct Conn {
    child: Child,
    stdin: Option<ChildStdin>,
    reader: LineReader<ChildStdout>,
    watchdog: Watchdog,
}

impl Conn {
    /// Takes over a freshly spawned child (stdin and stdout piped, own
    /// process group).
    pub fn new(mut child: Child) -> Result<Self> {
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| Error::new("stdin not piped"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Error::new("stdout not piped"))?;
        let pgid = i32::try_from(child.id()).map_err(|_| Error::new("pid out of range"))?;
        Ok(Conn {
            watchdog: Watchdog::new(pgid),
            child,
            stdin: Some(stdin),
            reader: LineReader::new(stdout),
        })
    }

    /// The target's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the target unless the current phase ends within `within`
    /// (re-arming replaces the previous deadline).
    pub fn arm(&self, within: Duration) {
        self.watchdog.arm(within);
    }

    /// Writes bytes (whole frames) to the target's stdin.
    pub fn send(&mut self, bytes: &[u8]) -> Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| Error::new("stdin already closed"))?;
        if let Err(e) = stdin.write_all(bytes) {
            return Err(dead(&self.watchdog, &format!("write: {e}")));
        }
        Ok(())
    }

    /// The next line the target wrote; an error at end of output.
    pub fn recv_line(&mut self) -> Result<&[u8]> {
        match self.reader.next_line() {
            Ok(Some(line)) => Ok(line),
            Ok(None) => Err(dead(&self.watchdog, "closed stdout")),
            Err(e) => Err(dead(&self.watchdog, &format!("read: {e}"))),
        }
    }

    /// Writes `bytes` from a helper thread while reading the next line, and
    /// hands the line to `f`: for a peer that answers before it has read
    /// everything (`cat` with a line larger than the pipe buffer).
    pub fn send_recv_line<T>(&mut self, bytes: &[u8], f: impl FnOnce(&[u8]) -> T) -> Result<T> {
        let Conn {
            stdin,
            reader,
            watchdog,
            ..
        } = self;
        let stdin = stdin
            .as_mut()
            .ok_or_else(|| Error::new("stdin already closed"))?;
        std::thread::scope(|sc| {
            let writer = sc.spawn(move || stdin.write_all(bytes));
            let read = match reader.next_line() {
                Ok(Some(line)) => Ok(f(line)),
                Ok(None) => Err(dead(watchdog, "closed stdout")),
                Err(e) => Err(dead(watchdog, &format!("read: {e}"))),
            };
            let written = writer
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("writer panicked")));
            match (read, written) {
                (Ok(v), Ok(())) => Ok(v),
                (Err(e), _) => Err(e),
                (_, Err(e)) => Err(dead(watchdog, &format!("write: {e}"))),
            }
        })
    }

    /// Writes `bytes` from a helper thread while handing every line the
    /// target writes to `on_line`, until it returns `Ok(true)`: a peer that
    /// answers while a long stream of frames is still being written cannot
    /// fill its output pipe and stall both sides.
    pub fn send_reading(
        &mut self,
        bytes: &[u8],
        mut on_line: impl FnMut(&[u8]) -> Result<bool>,
    ) -> Result<()> {
        let Conn {
            stdin,
            reader,
            watchdog,
            ..
        } = self;
        let stdin = stdin
            .as_mut()
            .ok_or_else(|| Error::new("stdin already closed"))?;
        std::thread::scope(|sc| {
            let writer = sc.spawn(move || stdin.write_all(bytes));
            let read = loop {
                match reader.next_line() {
                    Ok(Some(line)) => match on_line(line) {
                        Ok(true) => break Ok(()),
                        Ok(false) => {}
                        Err(e) => break Err(e),
                    },
                    Ok(None) => break Err(dead(watchdog, "closed stdout")),
                    Err(e) => break Err(dead(watchdog, &format!("read: {e}"))),
                }
            };
            let written = writer
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("writer panicked")));
            match (read, written) {
                (Err(e), _) => Err(e),
                (Ok(()), Err(e)) => Err(dead(watchdog, &format!("write: {e}"))),
                (Ok(()), Ok(())) => Ok(()),
            }
        })
    }

    /// The next frame, parsed as a [`Reply`].
    pub fn recv(&mut self) -> Result<Reply<'_>> {
        let line = self.recv_line()?;
        serde_json::from_slice(line).map_err(|e| {
            let shown = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
            Error::new(format!("bad frame from target ({e}): {shown}"))
        })
    }

    /// Whether a whole line is already buffered.
    pub fn has_line(&self) -> bool {
        self.reader.has_line()
    }

    /// Ends the target politely when `shutdown` is given (the frame is sent
    /// and `shutdown_ack` awaited for up to 2 s), then closes stdin, waits up
    /// to 2 s for the exit and kills the process group after that. Returns
    /// the exit status of a process that exited by itself.
    pub fn finish(self, shutdown: Option<&[u8]>) -> Option<ExitStatus> {
        self.finish_within(shutdown, Duration::from_secs(2))
    }

    /// [`finish`](Self::finish) with `grace` instead of 2 s for each wait
    /// (a target under valgrind needs longer to answer and to exit).
    pub fn finish_within(mut self, shutdown: Option<&[u8]>, grace: Duration) -> Option<ExitStatus> {
        if let Some(frame) = shutdown {
            self.arm(grace);
            if self.send(frame).is_ok() {
                while let Ok(r) = self.recv() {
                    if r.kind == "shutdown_ack" {
                        break;
                    }
                }
            }
        }
        self.stdin = None;
        // The process is reaped below; from then on its pid may be reused,
        // so the watchdog must not fire any more.
        self.watchdog.stop();
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                _ => {
                    self.kill();
                    return None;
                }
            }
        }
    }

    /// Kills the group while the leader is not yet reaped (so its id cannot
    /// have been reused), then reaps it.
    fn kill(&mut self) {
        self.kill_group();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn kill_group(&self) {
        if let Ok(pgid) = i32::try_from(self.child.id()) {
            // SAFETY: plain syscall on the target's own process group.
            unsafe { libc::kill(-pgid, libc::SIGKILL) };
        }
    }
}

/// The error for a target that stopped talking.
fn dead(watchdog: &Watchdog, what: &str) -> Error {
    if watchdog.fired() {
        Error::new(format!("target timed out (killed by the watchdog; {what})"))
    } else {
        Error::new(format!("target {what}"))
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.watchdog.stop();
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}
