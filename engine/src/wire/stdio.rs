//! The process's own stdin and stdout as the wire ([`Transport::stdio`]):
//! set aside for the engine once per process, so that what else the process
//! prints or reads does not touch the host's frames. One module per
//! platform below; the rule that sets the wire aside once is [`Wire`].

use std::io;

use crate::wire::transport::Transport;

impl Transport {
    /// The process's stdin and stdout, with stdout protected.
    ///
    /// stdout is the wire, so on Unix this keeps private duplicates of
    /// descriptors 0 and 1 for the engine, points descriptor 1 at stderr and
    /// descriptor 0 at `/dev/null`. A stray `println!`, `print()`,
    /// `console.log` or a native library's `printf` then lands in the
    /// extension's log instead of corrupting the stream, and nothing else in
    /// the process can steal host frames by reading stdin. On Windows it
    /// keeps duplicates of the standard input and output handles and makes
    /// the process's standard output handle its standard error handle and
    /// its standard input `NUL` (`SetStdHandle`): Rust's print macros and
    /// whatever asks Windows for the standard handles follow, while a C
    /// runtime's descriptors 0 and 1 keep the handles they were opened with
    /// (a native library's `printf` still reaches the wire there). Writes
    /// to the wire block without the deadline they have on Unix.
    ///
    /// Can be taken once per process (a second call fails: descriptor 1
    /// would already be stderr).
    pub fn stdio() -> io::Result<Self> {
        take()
    }

    /// Protects stdout now, before the session starts: sets the wire's
    /// descriptors aside exactly as [`Transport::stdio`] does (which then
    /// uses them) and points descriptor 1 at stderr and 0 at `/dev/null`.
    ///
    /// For extensions that print while they load, before their SDK runs:
    /// call it first thing (the SDKs expose it as `protect_stdout`). Safe to
    /// call more than once; a no-op once the stdio transport is taken, and
    /// on platforms other than Unix and Windows.
    pub fn protect_stdio() -> io::Result<()> {
        protect()
    }
}

/// The stdio transport (see [`Transport::stdio`]).
fn take() -> io::Result<Transport> {
    imp::take()
}

/// Sets the wire aside now (see [`Transport::protect_stdio`]).
fn protect() -> io::Result<()> {
    imp::protect()
}

/// The process's wire (its stdin and stdout, set aside for the engine), the
/// same rules on every platform: set aside at most once, by
/// [`Transport::protect_stdio`] or else when the stdio transport is taken,
/// which happens once per process.
#[cfg(any(unix, windows))]
struct Wire<T> {
    taken: std::sync::atomic::AtomicBool,
    /// (stdin, stdout) set aside before the transport was taken.
    set_aside: std::sync::Mutex<Option<(T, T)>>,
}

#[cfg(any(unix, windows))]
impl<T> Wire<T> {
    const fn new() -> Self {
        Self {
            taken: std::sync::atomic::AtomicBool::new(false),
            set_aside: std::sync::Mutex::new(None),
        }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<(T, T)>> {
        self.set_aside.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the wire aside now, unless that happened already.
    fn protect(&self, set_aside: impl FnOnce() -> io::Result<(T, T)>) -> io::Result<()> {
        use std::sync::atomic::Ordering;
        let mut slot = self.slot();
        if slot.is_none() && !self.taken.load(Ordering::SeqCst) {
            *slot = Some(set_aside()?);
        }
        Ok(())
    }

    /// The wire for the stdio transport: the one set aside earlier, or set
    /// aside now; an error the second time.
    fn take(&self, set_aside: impl FnOnce() -> io::Result<(T, T)>) -> io::Result<(T, T)> {
        if self.taken.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "the stdio transport was already taken by this process",
            ));
        }
        let early = self.slot().take();
        match early {
            Some(wire) => Ok(wire),
            None => set_aside(),
        }
    }
}

#[cfg(unix)]
mod imp {
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

    use super::Wire;
    use crate::wire::fd::cvt;
    use crate::wire::transport::{Source, Transport};
    use crate::wire::writer::FdSink;

    static WIRE: Wire<OwnedFd> = Wire::new();

    /// A close-on-exec duplicate of `fd`, numbered 3 or above.
    fn dup_private(fd: RawFd) -> io::Result<OwnedFd> {
        // SAFETY: F_DUPFD_CLOEXEC creates a new descriptor we then own.
        let new = cvt(unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) })?;
        // SAFETY: `new` is a fresh descriptor.
        Ok(unsafe { OwnedFd::from_raw_fd(new) })
    }

    /// Keeps private duplicates of descriptors 0 and 1 (the wire), then
    /// points 1 at stderr and 0 at `/dev/null`.
    fn set_wire_aside() -> io::Result<(OwnedFd, OwnedFd)> {
        let wire_out = dup_private(libc::STDOUT_FILENO)?;
        let wire_in = dup_private(libc::STDIN_FILENO)?;
        // SAFETY: dup2 between descriptors of this process.
        cvt(unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) })?;
        let null = std::fs::File::open("/dev/null")?;
        // SAFETY: as above.
        cvt(unsafe { libc::dup2(null.as_raw_fd(), libc::STDIN_FILENO) })?;
        Ok((wire_in, wire_out))
    }

    pub(super) fn protect() -> io::Result<()> {
        WIRE.protect(set_wire_aside)
    }

    pub(super) fn take() -> io::Result<Transport> {
        let (wire_in, wire_out) = WIRE.take(set_wire_aside)?;
        let sink = FdSink::new(wire_out)?;
        Ok(Transport {
            source: Source::Fd(wire_in),
            sink: Box::new(sink),
            stdio: true,
        })
    }
}

#[cfg(windows)]
mod imp {
    use std::fs::File;
    use std::io;
    use std::os::windows::io::{AsHandle, AsRawHandle, IntoRawHandle, OwnedHandle};

    use windows_sys::Win32::System::Console::{
        SetStdHandle, STD_HANDLE, STD_INPUT_HANDLE, STD_OUTPUT_HANDLE,
    };

    use super::Wire;
    use crate::wire::transport::Transport;
    use crate::wire::writer::HandleSink;

    static WIRE: Wire<OwnedHandle> = Wire::new();

    fn set_std(which: STD_HANDLE, handle: std::os::windows::io::RawHandle) -> io::Result<()> {
        // SAFETY: SetStdHandle only stores the handle value for this process.
        if unsafe { SetStdHandle(which, handle) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Keeps duplicates of the standard input and output handles (the
    /// wire), then makes standard output the standard error handle and
    /// standard input `NUL`. Rust's print macros and any code that asks
    /// Windows for its standard handles follow. A C runtime's descriptors 0
    /// and 1 are left alone: each runtime in the process (node.exe links
    /// its own) holds the original handles, and repointing one runtime's
    /// descriptor would close a handle the others still write to.
    fn set_wire_aside() -> io::Result<(OwnedHandle, OwnedHandle)> {
        let wire_out = io::stdout().as_handle().try_clone_to_owned()?;
        let wire_in = io::stdin().as_handle().try_clone_to_owned()?;
        set_std(STD_OUTPUT_HANDLE, io::stderr().as_raw_handle())?;
        // The standard handle owns `NUL` from now on (never closed).
        let null = File::open("NUL")?;
        set_std(STD_INPUT_HANDLE, null.into_raw_handle())?;
        Ok((wire_in, wire_out))
    }

    pub(super) fn protect() -> io::Result<()> {
        WIRE.protect(set_wire_aside)
    }

    pub(super) fn take() -> io::Result<Transport> {
        let (wire_in, wire_out) = WIRE.take(set_wire_aside)?;
        // Reads block on the runtime's blocking pool (a pipe handle has no
        // readiness to wait for).
        let reader = tokio::fs::File::from_std(File::from(wire_in));
        let mut t = Transport::new(reader, HandleSink::new(File::from(wire_out)));
        t.stdio = true;
        Ok(t)
    }
}

#[cfg(not(any(unix, windows)))]
mod imp {
    use std::io;

    use crate::wire::transport::Transport;
    use crate::wire::writer::StdoutSink;

    pub(super) fn take() -> io::Result<Transport> {
        Ok(Transport::new(tokio::io::stdin(), StdoutSink))
    }

    pub(super) fn protect() -> io::Result<()> {
        Ok(())
    }
}
