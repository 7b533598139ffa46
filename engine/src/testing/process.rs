//! The host end of an extension *process*: its stdin and stdout are the
//! transport, as under a real host.
//!
//! Plain threads and `std::process`, not tokio's process driver: the engine
//! is linked into every extension, which must not pay for a child-process
//! reaper it never uses. One thread reads stdout line by line, one collects
//! stderr (when captured), one reaps the child and reports its exit status;
//! the child is killed and reaped when the link is dropped.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use tokio::sync::{mpsc, watch};

/// Where a spawned extension's stderr goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StderrMode {
    /// Kept by the harness ([`HostHarness::stderr`](super::HostHarness::stderr))
    /// and quoted in its errors.
    #[default]
    Capture,
    /// The test process's own stderr.
    Inherit,
}

/// The most of a captured stderr an error message quotes (its end).
const STDERR_TAIL: usize = 2000;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How a command is shown in messages: the program and its arguments.
pub(super) fn describe(command: &Command) -> String {
    let mut words: Vec<OsString> = vec![command.get_program().to_owned()];
    words.extend(command.get_args().map(|a| a.to_owned()));
    words
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An extension process seen from its host.
pub(super) struct ProcessLink {
    label: String,
    stdin: Option<ChildStdin>,
    lines: mpsc::UnboundedReceiver<String>,
    stderr: Option<Arc<Mutex<Vec<u8>>>>,
    /// `true` once the captured stderr reached its end.
    stderr_done: watch::Receiver<bool>,
    reaper: Reaper,
}

impl ProcessLink {
    /// Starts `command` with piped stdin and stdout.
    pub(super) fn spawn(mut command: Command, stderr: StderrMode) -> std::io::Result<Self> {
        let label = describe(&command);
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        command.stderr(match stderr {
            StderrMode::Capture => Stdio::piped(),
            StderrMode::Inherit => Stdio::inherit(),
        });
        let mut child = command.spawn()?;
        let stdin = child.stdin.take();
        let (tx, lines) = mpsc::unbounded_channel();
        if let Some(out) = child.stdout.take() {
            std::thread::Builder::new()
                .name("zot-test-stdout".into())
                .spawn(move || read_lines(out, &tx))?;
        }
        let (done, stderr_done) = watch::channel(false);
        let captured = match child.stderr.take() {
            Some(err) => {
                let buf = Arc::new(Mutex::new(Vec::new()));
                let sink = buf.clone();
                std::thread::Builder::new()
                    .name("zot-test-stderr".into())
                    .spawn(move || {
                        collect(err, &sink);
                        let _ = done.send(true);
                    })?;
                Some(buf)
            }
            None => {
                let _ = done.send(true);
                None
            }
        };
        Ok(Self {
            label,
            stdin,
            lines,
            stderr: captured,
            stderr_done,
            reaper: Reaper::start(child)?,
        })
    }

    /// The command, as shown in messages.
    pub(super) fn label(&self) -> &str {
        &self.label
    }

    pub(super) fn send_bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let w = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin closed"))?;
        w.write_all(bytes)?;
        w.flush()
    }

    pub(super) fn close_input(&mut self) {
        self.stdin = None;
    }

    pub(super) async fn recv_line(&mut self) -> Option<String> {
        self.lines.recv().await
    }

    pub(super) fn try_recv_line(&mut self) -> Option<String> {
        self.lines.try_recv().ok()
    }

    /// Everything captured from stderr so far.
    pub(super) fn stderr(&self) -> Option<String> {
        let buf = self.stderr.as_ref()?;
        Some(String::from_utf8_lossy(&lock(buf)).into_owned())
    }

    /// Waits until the captured stderr reached its end (the process and
    /// whatever inherited its stderr closed it).
    pub(super) async fn stderr_closed(&self) {
        let mut rx = self.stderr_done.clone();
        let _ = rx.wait_for(|done| *done).await;
    }

    /// The end of the captured stderr, for error messages ("" if none).
    pub(super) fn stderr_tail(&self) -> String {
        let text = self.stderr().unwrap_or_default();
        let text = text.trim_end();
        if text.is_empty() {
            return String::new();
        }
        let cut = text
            .char_indices()
            .rev()
            .nth(STDERR_TAIL)
            .map_or(0, |(i, _)| i);
        format!("; its stderr:\n{}", &text[cut..])
    }

    /// The exit status, once the process exited.
    pub(super) fn exit_status(&self) -> Option<ExitStatus> {
        *self.reaper.status.borrow()
    }

    /// Resolves once the process exited, with its status (holds no borrow).
    pub(super) fn exited(
        &self,
    ) -> impl std::future::Future<Output = Option<ExitStatus>> + Send + 'static {
        let mut rx = self.reaper.status.clone();
        async move { rx.wait_for(Option::is_some).await.ok().and_then(|s| *s) }
    }

    /// Waits for the process to exit.
    pub(super) async fn wait(&mut self) -> Option<ExitStatus> {
        self.exited().await
    }

    /// Kills the process if it still runs.
    pub(super) fn kill(&self) {
        self.reaper.kill();
    }
}

impl Drop for ProcessLink {
    fn drop(&mut self) {
        self.stdin = None;
        self.reaper.kill();
        if let Some(thread) = self.reaper.thread.take() {
            // Quick once killed: the reaper only collects the status.
            let _ = thread.join();
        }
    }
}

/// Forwards each line of `out` (without its line end) until EOF.
fn read_lines(out: impl Read, tx: &mpsc::UnboundedSender<String>) {
    let mut out = BufReader::new(out);
    let mut line = Vec::new();
    loop {
        line.clear();
        match out.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                    if line.last() == Some(&b'\r') {
                        line.pop();
                    }
                }
                if tx
                    .send(String::from_utf8_lossy(&line).into_owned())
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}

fn collect(mut err: impl Read, sink: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 4096];
    loop {
        match err.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => lock(sink).extend_from_slice(&chunk[..n]),
        }
    }
}

/// Waits for the child on its own thread, and kills it on request without
/// ever signalling a process id that was already reaped (and so may belong
/// to another process).
struct Reaper {
    status: watch::Receiver<Option<ExitStatus>>,
    /// `true` once the child is reaped; kills happen under this lock.
    reaped: Arc<Mutex<bool>>,
    #[cfg(unix)]
    pid: u32,
    #[cfg(windows)]
    handle: usize,
    thread: Option<JoinHandle<()>>,
}

impl Reaper {
    fn start(mut child: Child) -> std::io::Result<Self> {
        let (tx, status) = watch::channel(None);
        let reaped = Arc::new(Mutex::new(false));
        #[cfg(unix)]
        let pid = child.id();
        #[cfg(windows)]
        let handle = {
            use std::os::windows::io::AsRawHandle;
            child.as_raw_handle() as usize
        };
        let flag = reaped.clone();
        let thread = std::thread::Builder::new()
            .name("zot-test-reaper".into())
            .spawn(move || {
                // Unix: wait for the exit without reaping, then reap under
                // the lock (the pid is the child's until then).
                #[cfg(unix)]
                let result = {
                    wait_unreaped(pid);
                    let mut done = lock(&flag);
                    let result = child.wait().ok();
                    *done = true;
                    result
                };
                // Elsewhere the open handle keeps the process object, so the
                // wait needs no lock (`kill` must not wait for it).
                #[cfg(not(unix))]
                let result = {
                    let result = child.wait().ok();
                    *lock(&flag) = true;
                    result
                };
                // The handle stays open (so valid for `kill`) until here.
                drop(child);
                let _ = tx.send(result);
            })?;
        Ok(Self {
            status,
            reaped,
            #[cfg(unix)]
            pid,
            #[cfg(windows)]
            handle,
            thread: Some(thread),
        })
    }

    fn kill(&self) {
        let reaped = lock(&self.reaped);
        if *reaped {
            return;
        }
        #[cfg(unix)]
        {
            // SAFETY: kill(2) has no memory effects; the pid is not reaped
            // yet (checked under the lock the reaper takes to reap), so it
            // is still our child's.
            unsafe {
                libc::kill(self.pid as libc::pid_t, libc::SIGKILL);
            }
        }
        #[cfg(windows)]
        {
            // SAFETY: the handle belongs to the child, which the reaper
            // thread keeps (open) until after it marked it reaped, and
            // `reaped` is false under the lock.
            unsafe {
                win::TerminateProcess(self.handle as *mut core::ffi::c_void, 1);
            }
        }
        drop(reaped);
    }
}

/// Blocks until the child `pid` exited, leaving it unreaped (a zombie), so
/// that its pid cannot be reused before the reaper takes the lock.
#[cfg(unix)]
fn wait_unreaped(pid: u32) {
    loop {
        // SAFETY: an all-zero siginfo_t is a valid value for waitid to fill.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid, writable siginfo_t; WNOWAIT leaves the
        // child to be reaped by `Child::wait`.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

#[cfg(windows)]
mod win {
    #[link(name = "kernel32")]
    extern "system" {
        pub fn TerminateProcess(process: *mut core::ffi::c_void, exit_code: u32) -> i32;
    }
}
