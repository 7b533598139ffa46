//! Running `git` for `ext install` and `ext update`.
//!
//! git never outlives the command that started it: a `git fetch` left
//! running holds its ref locks, and the next update fails with `cannot lock
//! ref`. So on Unix each git runs in a session (and process group) of its
//! own, and
//! - SIGINT, SIGTERM or SIGHUP to zot-host while git runs is forwarded to
//!   git's whole group as SIGTERM (git removes its lock files on SIGTERM);
//!   the command then stops with [`GitError::Interrupted`];
//! - on Linux git gets SIGTERM when zot-host dies in any other way
//!   (`PR_SET_PDEATHSIG`, e.g. after SIGKILL);
//! - when git returns, whatever is left of its group is killed.
//!
//! Being in a session of its own, git has no terminal: it cannot stop the
//! command at a password prompt (prompts are turned off, so an
//! authentication failure is reported at once). Credentials come from a
//! credential helper or ssh-agent.

use std::path::Path;
use std::process::{Command, Stdio};

/// A failed git invocation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GitError {
    /// git could not be started.
    #[error("cannot run git ({0}); install git, or install from a local directory instead")]
    NotFound(String),
    /// git ran and failed.
    #[error("`git {args}` failed: {stderr}")]
    Failed {
        /// The arguments.
        args: String,
        /// What git printed on stderr (trimmed).
        stderr: String,
    },
    /// zot-host got SIGINT, SIGTERM or SIGHUP while git ran; git was stopped.
    #[error("interrupted by signal {signal} while `git {args}` ran; git was stopped")]
    Interrupted {
        /// The arguments.
        args: String,
        /// The signal zot-host got.
        signal: i32,
    },
}

/// Runs `git <args>` (in `dir` when given) and returns its trimmed stdout
/// (see the module docs for how git is contained).
pub fn git(dir: Option<&Path>, args: &[&str]) -> Result<String, GitError> {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.arg("-C").arg(d);
    }
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = contain::run(cmd).map_err(|e| match e {
        contain::RunError::Spawn(e) => GitError::NotFound(e.to_string()),
        contain::RunError::Interrupted(signal) => GitError::Interrupted {
            args: args.join(" "),
            signal,
        },
    })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        Err(GitError::Failed {
            args: args.join(" "),
            stderr: if stderr.is_empty() {
                crate::util::describe_exit(out.status)
            } else {
                stderr
            },
        })
    }
}

/// Whether `git <args>` succeeds (for yes/no questions like `merge-base
/// --is-ancestor`); `Err` only when git cannot run at all or was stopped.
pub fn git_ok(dir: &Path, args: &[&str]) -> Result<bool, GitError> {
    match git(Some(dir), args) {
        Ok(_) => Ok(true),
        Err(GitError::Failed { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The first 12 hex digits of a commit id, for text output.
pub fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

/// Running a child in a group of its own that goes when we go.
#[cfg(unix)]
mod contain {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Output};
    use std::sync::atomic::{AtomicI32, Ordering};

    /// Why [`run`] returned no output.
    pub enum RunError {
        /// The child could not start.
        Spawn(std::io::Error),
        /// A signal came while it ran; it was stopped.
        Interrupted(i32),
    }

    /// The process group of the running child (0: none).
    static GROUP: AtomicI32 = AtomicI32::new(0);
    /// The last signal forwarded (0: none).
    static CAUGHT: AtomicI32 = AtomicI32::new(0);
    const FORWARDED: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    extern "C" fn forward(sig: libc::c_int) {
        // Only async-signal-safe work: two atomics and kill(2).
        CAUGHT.store(sig, Ordering::SeqCst);
        let group = GROUP.load(Ordering::SeqCst);
        if group > 0 {
            // SAFETY: kill(2) is async-signal-safe; a negative pid names the
            // child's own group.
            unsafe { libc::kill(-group, libc::SIGTERM) };
        }
    }

    /// The forwarding handlers, installed for as long as it lives; the
    /// previous dispositions come back on drop.
    struct Forwarding {
        old: Vec<(libc::c_int, libc::sigaction)>,
    }

    impl Forwarding {
        fn install() -> Self {
            let mut old = Vec::new();
            for sig in FORWARDED {
                // SAFETY: a zeroed sigaction is a valid value to fill in; the
                // handler only touches atomics and calls kill(2).
                unsafe {
                    let mut new: libc::sigaction = std::mem::zeroed();
                    new.sa_sigaction = forward as extern "C" fn(libc::c_int) as usize;
                    new.sa_flags = libc::SA_RESTART;
                    libc::sigemptyset(&mut new.sa_mask);
                    let mut prev: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(sig, &new, &mut prev) == 0 {
                        old.push((sig, prev));
                    }
                }
            }
            Self { old }
        }
    }

    impl Drop for Forwarding {
        fn drop(&mut self) {
            for (sig, prev) in &self.old {
                // SAFETY: restores the disposition saved by `install`.
                unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
            }
        }
    }

    /// Runs `cmd` to completion in a session of its own (see the module
    /// docs of `cli::git`).
    pub fn run(mut cmd: Command) -> Result<Output, RunError> {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the closure runs in the forked child before exec and only
        // makes async-signal-safe system calls (setsid, prctl, getppid).
        unsafe {
            cmd.pre_exec(move || {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                #[cfg(target_os = "linux")]
                {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // The parent may have died before prctl took effect.
                    if libc::getppid() != parent {
                        return Err(std::io::Error::other("parent exited"));
                    }
                }
                let _ = parent;
                Ok(())
            });
        }
        CAUGHT.store(0, Ordering::SeqCst);
        let forwarding = Forwarding::install();
        let child = cmd.spawn().map_err(RunError::Spawn)?;
        let group = child.id() as i32;
        GROUP.store(group, Ordering::SeqCst);
        if CAUGHT.load(Ordering::SeqCst) != 0 {
            // The signal came before the group was known.
            // SAFETY: kill(2) on the child's own group.
            unsafe { libc::kill(-group, libc::SIGTERM) };
        }
        let out = child.wait_with_output();
        GROUP.store(0, Ordering::SeqCst);
        // Whatever git left in its group goes with it.
        // SAFETY: kill(2) on the child's own group; ESRCH when it is empty.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        drop(forwarding);
        match CAUGHT.swap(0, Ordering::SeqCst) {
            0 => out.map_err(RunError::Spawn),
            sig => Err(RunError::Interrupted(sig)),
        }
    }
}

/// Without process groups: a plain run.
#[cfg(not(unix))]
mod contain {
    use std::process::{Command, Output};

    /// Why [`run`] returned no output.
    pub enum RunError {
        /// The child could not start.
        Spawn(std::io::Error),
        /// Never produced here.
        #[allow(dead_code)]
        Interrupted(i32),
    }

    /// Runs `cmd` to completion.
    pub fn run(mut cmd: Command) -> Result<Output, RunError> {
        cmd.output().map_err(RunError::Spawn)
    }
}
