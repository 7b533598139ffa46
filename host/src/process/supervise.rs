//! Supervising one extension process and what it started (§16.3, §16.6,
//! §16.7; HOST-17, OP-12).
//!
//! Every extension runs in its own process group and carries a marker in its
//! environment (`MARKER_VAR`) that its descendants inherit. A dedicated
//! thread waits for the extension process to exit *without reaping it*
//! (`waitid` with `WNOWAIT`): the exit is seen at once even when a descendant
//! keeps the stdout pipe open, and while the zombie is unreaped its process
//! group id cannot be reused, so signalling the group can never reach an
//! unrelated process. On exit the thread kills what is left of the group
//! with SIGKILL, then (Linux) sweeps every process still in the group or
//! carrying the marker (see `crate::process::sweep`), waits for them to die, reaps
//! the extension and only then publishes the exit status. So when anyone
//! awaiting [`Supervised::exited`] goes on, nothing the extension started is
//! alive any more (limits: host/README.md, "Process supervision").
//!
//! Every supervised process is also listed in a process-wide registry so
//! that [`kill_all`] can end them all when the host itself is interrupted or
//! fails (see [`crate::process::interrupts`]).

use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use tokio::sync::watch;

use crate::process::sweep::MARKER_VAR;

struct State {
    /// The process was reaped: its pid (and group id) may name another
    /// process from now on, so nothing may be signalled through them.
    reaped: bool,
}

/// What the watcher has seen so far.
#[derive(Debug, Clone, Copy, Default)]
struct Exit {
    /// Set as soon as the process exited (before the cleanup).
    status: Option<ExitStatus>,
    /// Its leftovers were killed and it was reaped.
    cleaned: bool,
}

struct Inner {
    pid: u32,
    marker: String,
    state: Mutex<State>,
    exit: watch::Receiver<Exit>,
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends `sig` to the process group while its leader is not reaped.
    fn signal_group(&self, sig: i32) {
        let st = self.lock();
        if !st.reaped {
            signal_group(self.pid, sig);
        }
    }

    /// Kills the group and, on Linux, every process still in it or marked,
    /// and waits (up to `bound`) for them to die. The lock is held
    /// throughout, so the leader cannot be reaped (and its group id reused)
    /// meanwhile; once it was reaped only the marker identifies the tree.
    fn kill_tree(&self, bound: Duration) {
        let st = self.lock();
        let group = (!st.reaped).then_some(self.pid);
        if let Some(pgid) = group {
            signal_group(pgid, SIGKILL);
        }
        crate::process::sweep::sweep(group, &self.marker, bound);
        drop(st);
    }
}

/// A handle to a supervised extension process. Cheap to clone.
#[derive(Clone)]
pub struct Supervised {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Supervised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervised")
            .field("pid", &self.inner.pid)
            .finish()
    }
}

/// The pipes of a freshly spawned process.
#[derive(Debug)]
pub struct Pipes {
    /// Its stdin (host → extension frames).
    pub stdin: tokio::process::ChildStdin,
    /// Its stdout (extension → host frames).
    pub stdout: tokio::process::ChildStdout,
}

fn registry() -> &'static Mutex<Vec<Weak<Inner>>> {
    static LIVE: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());
    &LIVE
}

/// A marker value unique to this process tree: host pid, start time and a
/// counter, so that neither another host nor a restart shares it.
fn new_marker() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "{}.{nanos}.{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl Supervised {
    /// Spawns `cmd` with piped stdin/stdout in its own process group, marked,
    /// and starts watching it. `sweep_bound` is how long the exit cleanup
    /// waits for killed descendants to die. Must run inside a Tokio runtime
    /// (the pipes are registered with it).
    pub fn spawn(
        cmd: std::process::Command,
        sweep_bound: Duration,
    ) -> std::io::Result<(Self, Pipes)> {
        Self::spawn_watched(cmd, sweep_bound, wait_exit_unreaped)
    }

    /// [`Self::spawn`] with the watcher's unreaped wait passed in (tests
    /// replace it to reach the branch where it reports nothing).
    fn spawn_watched(
        mut cmd: std::process::Command,
        sweep_bound: Duration,
        unreaped_wait: UnreapedWait,
    ) -> std::io::Result<(Self, Pipes)> {
        let marker = new_marker();
        cmd.env(MARKER_VAR, &marker)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn()?;
        let pipes = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => tokio::process::ChildStdin::from_std(i).and_then(|stdin| {
                Ok(Pipes {
                    stdin,
                    stdout: tokio::process::ChildStdout::from_std(o)?,
                })
            }),
            _ => Err(std::io::Error::other("no stdin/stdout pipe")),
        };
        let (tx, rx) = watch::channel(Exit::default());
        let inner = Arc::new(Inner {
            pid: child.id(),
            marker,
            state: Mutex::new(State { reaped: false }),
            exit: rx,
        });
        registry()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::downgrade(&inner));
        let me = Self { inner };
        let watcher = me.inner.clone();
        let started = std::thread::Builder::new()
            .name(format!("zot-ext-{}", child.id()))
            .stack_size(128 * 1024)
            .spawn(move || watch_exit(child, &watcher, sweep_bound, &tx, unreaped_wait));
        if let Err(e) = started {
            // Without its watcher nobody would ever reap it.
            me.inner.kill_tree(sweep_bound);
            return Err(e);
        }
        match pipes {
            Ok(p) => Ok((me, p)),
            Err(e) => {
                me.kill();
                Err(e)
            }
        }
    }

    /// The process id (= its process group id on Unix).
    pub fn id(&self) -> u32 {
        self.inner.pid
    }

    /// The value of `MARKER_VAR` in its environment.
    pub fn marker(&self) -> &str {
        &self.inner.marker
    }

    /// Sends `sig` to its process group (a no-op once it was reaped).
    pub fn signal(&self, sig: i32) {
        self.inner.signal_group(sig);
    }

    /// SIGKILL to its process group; the watcher then cleans up and reaps.
    pub fn kill(&self) {
        self.signal(SIGKILL);
    }

    /// The exit status, once it exited and its leftovers were cleaned up.
    pub fn try_exited(&self) -> Option<ExitStatus> {
        let exit = *self.inner.exit.borrow();
        exit.status.filter(|_| exit.cleaned)
    }

    /// Waits until it exited and everything it left behind was killed (and
    /// it was reaped). `None` only if its status could not be read.
    pub async fn exited(&self) -> Option<ExitStatus> {
        let mut rx = self.inner.exit.clone();
        let exit = rx.wait_for(|e| e.cleaned).await.ok().map(|e| *e);
        exit.and_then(|e| e.status)
    }

    /// Waits until it exited, not for the cleanup (the moment to stop
    /// trusting its stdout: something it started may hold it open).
    pub async fn died(&self) -> Option<ExitStatus> {
        let mut rx = self.inner.exit.clone();
        let exit = rx
            .wait_for(|e| e.status.is_some() || e.cleaned)
            .await
            .ok()
            .map(|e| *e);
        exit.and_then(|e| e.status)
    }

    /// The exit status if it exited (cleanup done or not).
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.inner.exit.borrow().status
    }

    /// Kills the group and waits for the cleanup.
    pub async fn kill_and_wait(&self) -> Option<ExitStatus> {
        self.kill();
        self.exited().await
    }
}

/// How the watcher waits for the exit without reaping.
type UnreapedWait = fn(&std::process::Child) -> Option<ExitStatus>;

/// The watcher thread: exit seen without reaping (and published at once),
/// group and marked descendants killed while the zombie pins the group id,
/// reaped, cleanup published.
///
/// When the unreaped wait reports nothing, the exit is not confirmed (seen
/// under qemu-user, whose `waitid` returns at once): killing the group then
/// would end a live extension. The watcher reaps first, which blocks until
/// the real exit, and only then sweeps what carries the marker. The lock is
/// not held across that blocking wait (a `kill` must still reach the
/// group), so between the reap and `reaped = true` a signal could name a
/// reused group id: a window of a few instructions, accepted for a
/// fallback that only runs where `waitid` misbehaves.
fn watch_exit(
    mut child: std::process::Child,
    inner: &Inner,
    sweep_bound: Duration,
    tx: &watch::Sender<Exit>,
    unreaped_wait: UnreapedWait,
) {
    let status = if let Some(status) = unreaped_wait(&child) {
        tx.send_modify(|e| e.status = Some(status));
        inner.kill_tree(sweep_bound);
        let mut st = inner.lock();
        let status = child.wait();
        st.reaped = true;
        status
    } else {
        let status = child.wait();
        inner.lock().reaped = true;
        if let Ok(s) = status {
            tx.send_modify(|e| e.status = Some(s));
        }
        inner.kill_tree(sweep_bound);
        status
    };
    registry()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|w| w.upgrade().is_some_and(|i| !std::ptr::eq(&*i, inner)));
    if let Err(e) = &status {
        tracing::warn!("cannot reap extension process {}: {e}", inner.pid);
    }
    tx.send_modify(|e| {
        e.status = status.ok().or(e.status);
        e.cleaned = true;
    });
}

/// Blocks until `child` has exited, leaving it unreaped (a zombie), and
/// returns how it ended (`None` if the wait failed; the reaping `wait` then
/// tells).
#[cfg(unix)]
fn wait_exit_unreaped(child: &std::process::Child) -> Option<ExitStatus> {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    use std::os::unix::process::ExitStatusExt;
    let pid = Pid::from_child(child);
    loop {
        match waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
        ) {
            Err(rustix::io::Errno::INTR) => continue,
            // The wait status encoding of POSIX systems: code << 8, or the
            // signal number (+ 0x80 with a core dump).
            Ok(Some(st)) => {
                return match (st.exit_status(), st.terminating_signal()) {
                    (Some(code), _) => Some(ExitStatus::from_raw((code & 0xff) << 8)),
                    (None, Some(sig)) => Some(ExitStatus::from_raw(
                        sig | if st.dumped() { 0x80 } else { 0 },
                    )),
                    (None, None) => None,
                }
            }
            _ => return None,
        }
    }
}

/// Off Unix: no zombies to pin; the reaping `wait` blocks until the exit.
#[cfg(not(unix))]
fn wait_exit_unreaped(_child: &std::process::Child) -> Option<ExitStatus> {
    None
}

/// Kills every supervised process tree still alive (SIGKILL to each group,
/// and the Linux sweep of marked descendants). For the host's last moments:
/// a second interrupt, or an error on the way out.
pub fn kill_all(bound: Duration) {
    let live: Vec<Arc<Inner>> = registry()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    for inner in live {
        inner.kill_tree(bound);
    }
}

/// Calls [`kill_all`] when dropped: held by the CLI's entry points so that
/// no extension outlives the host on any way out, a panic included.
#[derive(Debug)]
pub struct KillAllOnDrop(pub Duration);

impl Drop for KillAllOnDrop {
    fn drop(&mut self) {
        kill_all(self.0);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    fn no_status(_: &std::process::Child) -> Option<ExitStatus> {
        None
    }

    /// An unreaped wait that reports nothing (qemu-user's `waitid`) must not
    /// be taken for an exit: the process keeps running, answers, and ends
    /// on its own terms with its own status.
    #[tokio::test]
    async fn unconfirmed_exit_does_not_kill_a_live_process() {
        let cmd = std::process::Command::new("cat");
        let (child, pipes) =
            Supervised::spawn_watched(cmd, Duration::from_secs(2), no_status).unwrap();
        let Pipes { mut stdin, stdout } = pipes;
        stdin.write_all(b"still here\n").await.unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await.unwrap();
        assert_eq!(line, "still here\n");
        drop(stdin);
        let status = child.exited().await.expect("an exit status");
        assert_eq!(status.code(), Some(0), "cat was killed: {status:?}");
    }

    /// The same fallback still kills what the extension left behind.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn unconfirmed_exit_still_sweeps_marked_leftovers() {
        let (child, leftover) = leaving_one_behind("sleep 600 & echo $!").await;
        child.exited().await;
        assert!(
            !running(leftover),
            "the background sleep {leftover} survived"
        );
    }

    /// A leftover met while it is inside `execve` (its environment reads
    /// empty there for a moment) is still found by its marker. Each round's
    /// leftover execs itself over and over, so the sweep often meets it
    /// there.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn leftovers_caught_in_exec_are_swept() {
        let script = r#"again='exec sh -c "$0" "$0"'; sh -c "$again" "$again" & echo $!"#;
        for round in 0..20 {
            let (child, leftover) = leaving_one_behind(script).await;
            child.exited().await;
            if running(leftover) {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &leftover.to_string()])
                    .status();
                panic!("round {round}: the leftover {leftover} survived the sweep");
            }
        }
    }

    /// A process with no environment at all reads like one inside `execve`
    /// for a moment; the sweep looks again, then leaves it alone.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_process_without_environment_is_left_alone() {
        use std::os::unix::process::CommandExt;
        let mut stranger = std::process::Command::new("sleep");
        stranger.arg("600").env_clear().process_group(0);
        let mut stranger = stranger.spawn().unwrap();
        let cmd = std::process::Command::new("true");
        let (child, _pipes) =
            Supervised::spawn_watched(cmd, Duration::from_secs(5), no_status).unwrap();
        child.exited().await;
        let alive = running(stranger.id() as i32);
        let _ = stranger.kill();
        let _ = stranger.wait();
        assert!(
            alive,
            "the sweep killed a process that was not the extension's"
        );
    }

    /// Runs `script` (which prints the pid of what it leaves behind) as an
    /// extension whose unreaped wait reports nothing.
    async fn leaving_one_behind(script: &str) -> (Supervised, i32) {
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", script]);
        let (child, pipes) =
            Supervised::spawn_watched(cmd, Duration::from_secs(5), no_status).unwrap();
        let mut line = String::new();
        BufReader::new(pipes.stdout)
            .read_line(&mut line)
            .await
            .unwrap();
        (child, line.trim().parse().unwrap())
    }

    /// Whether `pid` is a process that has not died (a zombie is dead: its
    /// parent, not us, reaps it).
    fn running(pid: i32) -> bool {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
        !matches!(state, Some(Some('Z' | 'X' | 'x')))
    }
}

/// Sends `sig` to the child's process group (OP-12), falling back to the
/// process itself. Only while the child is unreaped (its zombie pins the
/// ids): [`Supervised`] guarantees that.
#[cfg(unix)]
fn signal_group(pid: u32, sig: i32) {
    // SAFETY: kill(2) with a negative pid addresses the process group the
    // child leads (it was spawned with process_group(0)); no memory involved.
    let r = unsafe { libc::kill(-(pid as i32), sig) };
    if r != 0 {
        // SAFETY: as above, for the single process.
        unsafe { libc::kill(pid as i32, sig) };
    }
}

/// Non-Unix: no process groups; the caller kills the process.
#[cfg(not(unix))]
fn signal_group(_pid: u32, _sig: i32) {}

/// SIGTERM.
#[cfg(unix)]
pub const SIGTERM: i32 = libc::SIGTERM;
/// SIGKILL.
#[cfg(unix)]
pub const SIGKILL: i32 = libc::SIGKILL;
/// SIGTERM (unused off Unix).
#[cfg(not(unix))]
pub const SIGTERM: i32 = 15;
/// SIGKILL (unused off Unix).
#[cfg(not(unix))]
pub const SIGKILL: i32 = 9;
