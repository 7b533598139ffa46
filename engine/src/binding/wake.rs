//! A readable file descriptor that signals "jobs are queued", for event loops
//! that are not tokio (Python's asyncio `loop.add_reader`, libuv, `select`).
//!
//! It is a non-blocking pipe: the engine writes one byte when the job queue
//! goes from empty to non-empty (at most one byte is ever pending), and
//! [`crate::Engine::take_jobs`] drains it together with the
//! queue. The pipe is created lazily, the first time a binding asks for it,
//! so the Rust SDK never pays for it.

#[cfg(unix)]
mod imp {
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

    /// The two ends of the wake-up pipe.
    pub(crate) struct WakePipe {
        read: OwnedFd,
        write: OwnedFd,
    }

    fn set_flags(fd: RawFd) -> io::Result<()> {
        // SAFETY: fcntl on a descriptor we own; no memory is passed.
        unsafe {
            let fl = libc::fcntl(fd, libc::F_GETFL);
            if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) < 0 {
                return Err(io::Error::last_os_error());
            }
            let fd_fl = libc::fcntl(fd, libc::F_GETFD);
            if fd_fl < 0 || libc::fcntl(fd, libc::F_SETFD, fd_fl | libc::FD_CLOEXEC) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    impl WakePipe {
        pub(crate) fn new() -> io::Result<Self> {
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: `fds` is a valid array of two ints for pipe(2) to fill.
            if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: pipe(2) succeeded, so both descriptors are fresh and ours.
            let (read, write) =
                unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
            set_flags(read.as_raw_fd())?;
            set_flags(write.as_raw_fd())?;
            Ok(Self { read, write })
        }

        pub(crate) fn read_fd(&self) -> RawFd {
            self.read.as_raw_fd()
        }

        /// Makes the read end readable (a full pipe is fine: it is readable).
        pub(crate) fn signal(&self) {
            let b = [1u8];
            // SAFETY: writing one byte from a valid buffer to our own fd.
            let _ = unsafe { libc::write(self.write.as_raw_fd(), b.as_ptr().cast(), 1) };
        }

        /// Empties the pipe so the read end is no longer readable.
        pub(crate) fn drain(&self) {
            let mut buf = [0u8; 64];
            loop {
                // SAFETY: reading into a valid buffer of the given length.
                let n = unsafe {
                    libc::read(self.read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len())
                };
                if n <= 0 {
                    break;
                }
            }
        }
    }
}

#[cfg(unix)]
pub(crate) use imp::WakePipe;
