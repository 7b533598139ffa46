//! Killing what an extension left behind once it exited (Linux).
//!
//! A process group reaches only the processes that stayed in it; a helper
//! that called `setsid` or `setpgid` (or daemonized) is elsewhere. Like a
//! CI agent's process-tree killer, the host finds those by the marker every
//! descendant inherits in its environment ([`MARKER_VAR`], set by [`crate::process::supervise`]),
//! besides the members of the extension's process group, and kills them.
//!
//! Each candidate is pinned with a pidfd *before* it is inspected, and the
//! signal goes through that pidfd: a pid that was reused meanwhile is never
//! signalled. The sweep repeats until a pass finds nobody (a victim may have
//! forked before the signal landed) and waits, through the pidfds, for the
//! victims to die, all within one bound. A pass that met a process it could
//! not tell (inside `execve`, see `procfs`) is not the last either.
//!
//! Elsewhere (no `/proc`) this is a no-op and the process group is all the
//! host can reach.

use std::time::Duration;

/// The environment variable that marks an extension's process tree. A
/// helper that must outlive its extension deliberately removes it from its
/// environment (and leaves the process group).
pub const MARKER_VAR: &str = "ZOT_EXT_INSTANCE";

/// Kills every process in group `pgid` (when given: the caller guarantees the
/// id is still the extension's) or whose environment holds
/// `MARKER_VAR=<marker>`, and waits up to `bound` for them to die.
pub fn sweep(pgid: Option<u32>, marker: &str, bound: Duration) {
    #[cfg(target_os = "linux")]
    linux::sweep(pgid, marker, bound);
    #[cfg(not(target_os = "linux"))]
    let _ = (pgid, marker, bound);
}

#[cfg(target_os = "linux")]
mod procfs;

#[cfg(target_os = "linux")]
mod linux {
    use std::os::fd::OwnedFd;
    use std::time::{Duration, Instant};

    use rustix::event::{poll, PollFd, PollFlags};
    use rustix::process::{pidfd_open, pidfd_send_signal, Pid, PidfdFlags, Signal};

    use super::procfs::{membership, stat, Membership};

    /// Passes before giving up on a tree that keeps forking.
    const MAX_PASSES: usize = 32;

    /// Passes, a millisecond apart, that look again at processes that could
    /// not be told: an exec ends within that unless the machine is
    /// overloaded; a process started with no environment never settles.
    const UNSETTLED_PASSES: usize = 20;

    struct Victim {
        pid: i32,
        /// `None` on kernels without pidfds (before 5.3).
        fd: Option<OwnedFd>,
    }

    pub fn sweep(pgid: Option<u32>, marker: &str, bound: Duration) {
        let deadline = Instant::now() + bound;
        let needle = format!("{}={marker}", super::MARKER_VAR).into_bytes();
        let me = std::process::id() as i32;
        let mut unsettled_passes = 0;
        for _ in 0..MAX_PASSES + UNSETTLED_PASSES {
            let Found { victims, unsettled } = find(pgid.map(|g| g as i32), &needle, me);
            if victims.is_empty() {
                unsettled_passes += 1;
                if !unsettled || unsettled_passes > UNSETTLED_PASSES || Instant::now() >= deadline {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
                continue;
            }
            for v in &victims {
                let sent = match &v.fd {
                    Some(fd) => pidfd_send_signal(fd, Signal::KILL),
                    None => Pid::from_raw(v.pid)
                        .map_or(Ok(()), |p| rustix::process::kill_process(p, Signal::KILL)),
                };
                if let Err(e) = sent {
                    if e != rustix::io::Errno::SRCH {
                        tracing::warn!("cannot kill leftover process {}: {e}", v.pid);
                    }
                }
            }
            if !wait_dead(&victims, deadline) {
                tracing::warn!(
                    "{} leftover process(es) of an extension still alive after {bound:?}",
                    victims.len()
                );
                return;
            }
        }
    }

    /// What one pass over `/proc` found.
    #[derive(Default)]
    struct Found {
        victims: Vec<Victim>,
        /// Someone could not be told (see [`Membership::Unsettled`]).
        unsettled: bool,
    }

    /// Every live process (not this one) in group `pgid` or carrying the
    /// marker, each pinned by a pidfd taken before looking at it.
    fn find(pgid: Option<i32>, needle: &[u8], me: i32) -> Found {
        let mut out = Found::default();
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return out;
        };
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            if pid == me {
                continue;
            }
            let Some(p) = Pid::from_raw(pid) else {
                continue;
            };
            let fd = match pidfd_open(p, PidfdFlags::empty()) {
                Ok(fd) => Some(fd),
                Err(rustix::io::Errno::NOSYS) => None,
                Err(_) => continue, // gone already
            };
            match membership(pid, pgid, needle) {
                Membership::Member => out.victims.push(Victim { pid, fd }),
                Membership::Unsettled => out.unsettled = true,
                Membership::Stranger => {}
            }
        }
        out
    }

    /// Waits until every victim has died; `false` when the deadline passed.
    fn wait_dead(victims: &[Victim], deadline: Instant) -> bool {
        let fds: Vec<&OwnedFd> = victims.iter().filter_map(|v| v.fd.as_ref()).collect();
        let mut pending: Vec<&OwnedFd> = fds;
        while !pending.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            let mut polls: Vec<PollFd<'_>> = pending
                .iter()
                .map(|fd| PollFd::new(*fd, PollFlags::IN))
                .collect();
            let timeout = rustix::event::Timespec::try_from(left).ok();
            match poll(&mut polls, timeout.as_ref()) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(_) => return false,
            }
            let still: Vec<bool> = polls.iter().map(|p| p.revents().is_empty()).collect();
            pending = pending
                .into_iter()
                .zip(still)
                .filter_map(|(fd, s)| s.then_some(fd))
                .collect();
        }
        // Kernels without pidfds: watch /proc instead.
        for v in victims.iter().filter(|v| v.fd.is_none()) {
            while stat(v.pid).is_some_and(|s| !s.dead()) {
                if Instant::now() >= deadline {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        true
    }
}
