//! The host's own interrupts: SIGINT (Ctrl-C), SIGTERM and SIGHUP.
//!
//! Extensions run in their own process groups, so a Ctrl-C in the terminal
//! reaches only the host; if the host simply died, its extensions would see
//! EOF and whatever they started would be orphaned. So the first interrupt
//! stops gracefully where the entry point can (`run`: the session ends and
//! every extension gets `shutdown` and the grace, §16.7); the second one, or
//! the first where there is nothing graceful to do (`ext doctor`), kills every
//! supervised process tree at once and exits with 128 + the signal number.

use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

static CAUGHT: AtomicI32 = AtomicI32::new(0);

/// The first interrupt received, if any (its signal number).
pub fn caught() -> Option<i32> {
    match CAUGHT.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// The exit status for a run ended by signal `sig` (the shell convention).
pub fn exit_code(sig: i32) -> u8 {
    u8::try_from(128 + sig).unwrap_or(u8::MAX)
}

/// Starts listening (inside a Tokio runtime). `graceful` is cancelled on the
/// first interrupt; without one, or on a second interrupt, every supervised
/// process tree is killed (waiting up to `bound` for it to die) and the
/// process exits.
pub fn watch(graceful: Option<CancellationToken>, bound: Duration) -> std::io::Result<()> {
    let mut signals = Signals::new()?;
    tokio::spawn(async move {
        let mut graceful = graceful;
        loop {
            let Some(sig) = signals.recv().await else {
                return;
            };
            let _ = CAUGHT.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
            let name = crate::util::signal_name(sig);
            match graceful.take() {
                Some(token) => {
                    eprintln!(
                        "zot-host: {name}: stopping the extensions (again to kill them at once)"
                    );
                    token.cancel();
                }
                None => {
                    eprintln!("zot-host: {name}: killing the extensions");
                    crate::process::supervise::kill_all(bound);
                    #[allow(
                        clippy::exit,
                        reason = "a second signal ends the host at once, as the user asked"
                    )]
                    std::process::exit(i32::from(exit_code(sig)));
                }
            }
        }
    });
    Ok(())
}

#[cfg(unix)]
struct Signals {
    int: tokio::signal::unix::Signal,
    term: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn new() -> std::io::Result<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Self {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    async fn recv(&mut self) -> Option<i32> {
        tokio::select! {
            r = self.int.recv() => r.map(|()| libc::SIGINT),
            r = self.term.recv() => r.map(|()| libc::SIGTERM),
            r = self.hup.recv() => r.map(|()| libc::SIGHUP),
        }
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new() -> std::io::Result<Self> {
        Ok(Self)
    }

    async fn recv(&mut self) -> Option<i32> {
        tokio::signal::ctrl_c().await.ok().map(|()| 2)
    }
}
