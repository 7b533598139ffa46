//! Descriptor helpers shared by the reader and the writer (unix only).

use std::io;
use std::os::fd::RawFd;

/// `Ok` with the return value of a libc call, or the OS error it set.
pub(crate) fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// Whether `fd` is a pipe or socket, where non-blocking mode and epoll
/// work and the descriptor is not shared with a terminal session.
pub(crate) fn is_pipe_or_socket(fd: RawFd) -> bool {
    // SAFETY: fstat fills a zeroed stat struct.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) != 0 {
            return false;
        }
        let fmt = st.st_mode & libc::S_IFMT;
        fmt == libc::S_IFIFO || fmt == libc::S_IFSOCK
    }
}

pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let fl = cvt(libc::fcntl(fd, libc::F_GETFL))?;
        cvt(libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK))?;
    }
    Ok(())
}
