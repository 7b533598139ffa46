//! Process signals belong to the language runtime, not to the engine's
//! threads.
//!
//! The kernel may hand a signal sent to the process to any thread that
//! does not block it. CPython runs its handlers on the main thread only: a
//! SIGINT that lands on one of the engine's threads sets CPython's flag but
//! does not interrupt the main thread's `epoll_wait`, so an idle asyncio
//! loop would not see the Ctrl-C until something else woke it. Every thread
//! the engine and its bindings start blocks the asynchronous signals,
//! leaving them to the runtime's own threads.

/// Blocks, in the calling thread, the signals a language runtime handles
/// (interrupts, termination, job control, timers, child exits, window size,
/// user signals). Faults (SIGSEGV and the like) are not blocked: they are
/// this thread's own. Call it first thing in a thread the engine starts
/// (e.g. tokio's `on_thread_start`).
pub fn block_in_this_thread() {
    #[cfg(unix)]
    // SAFETY: plain libc calls on a local, initialised signal set; changing
    // the calling thread's mask affects no other thread.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGCHLD,
            libc::SIGALRM,
            libc::SIGWINCH,
            libc::SIGPIPE,
        ] {
            libc::sigaddset(&mut set, sig);
        }
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    }
}
