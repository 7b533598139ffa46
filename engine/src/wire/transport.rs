//! Transports: the real stdin/stdout of an extension process, an in-memory
//! duplex for tests, or any reader/sink pair.

use std::collections::VecDeque;
use std::io;
#[cfg(unix)]
use std::pin::Pin;
#[cfg(unix)]
use std::task::{Context, Poll};

#[cfg(unix)]
use tokio::io::ReadBuf;
use tokio::io::{AsyncRead, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;
use zot_protocol::{encode_frame, DecodeError, ExtFrame, Frame, HostFrame};

#[cfg(unix)]
use crate::wire::fd::{is_pipe_or_socket, set_nonblocking};
use crate::wire::writer::{ChannelSink, FrameSink};

/// The host→extension byte stream.
pub(crate) enum Source {
    /// Any async reader.
    Reader(Box<dyn AsyncRead + Send + Unpin>),
    /// The private descriptor of the real stdin; turned into an async reader
    /// inside the runtime (registration with the reactor needs one).
    #[cfg(unix)]
    Fd(std::os::fd::OwnedFd),
}

/// A reader of host frames and a sink for extension frames.
pub struct Transport {
    pub(crate) source: Source,
    pub(crate) sink: Box<dyn FrameSink>,
    pub(crate) stdio: bool,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("stdio", &self.stdio)
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// Any async reader (host frames in) and [`FrameSink`] (extension frames
    /// out).
    pub fn new(
        reader: impl AsyncRead + Send + Unpin + 'static,
        sink: impl FrameSink + 'static,
    ) -> Self {
        Self {
            source: Source::Reader(Box::new(reader)),
            sink: Box::new(sink),
            stdio: false,
        }
    }

    /// Reads host frames from a pipe or socket descriptor (non-blocking,
    /// through the runtime's reactor; any other descriptor on the blocking
    /// pool) and writes extension frames to `sink`.
    #[cfg(unix)]
    pub fn fd(read: std::os::fd::OwnedFd, sink: impl FrameSink + 'static) -> Self {
        Self {
            source: Source::Fd(read),
            sink: Box::new(sink),
            stdio: false,
        }
    }

    /// Reads host frames from `read` and writes extension frames to `write`
    /// (pipe or socket descriptors), as [`Transport::stdio`] does with the
    /// process's own: a host that stops reading is waited for while the
    /// pipe stays open.
    #[cfg(unix)]
    pub fn pipes(read: std::os::fd::OwnedFd, write: std::os::fd::OwnedFd) -> io::Result<Self> {
        Ok(Self::fd(read, crate::wire::writer::FdSink::new(write)?))
    }

    /// An in-memory duplex: the engine side as a [`Transport`], and the host
    /// side for a test to write host frames and read extension frames.
    pub fn memory() -> (Self, MemoryHost) {
        let (host_w, ext_r) = tokio::io::duplex(256 * 1024);
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Self::new(ext_r, ChannelSink { tx }),
            MemoryHost {
                input: Some(host_w),
                output: rx,
                pending: Vec::new(),
                lines: VecDeque::new(),
                closed: false,
            },
        )
    }
}

/// The host end of [`Transport::memory`]: write host frames, read what the
/// extension wrote, line by line.
pub struct MemoryHost {
    input: Option<DuplexStream>,
    output: mpsc::UnboundedReceiver<Vec<u8>>,
    pending: Vec<u8>,
    lines: VecDeque<String>,
    closed: bool,
}

impl std::fmt::Debug for MemoryHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryHost").finish_non_exhaustive()
    }
}

impl MemoryHost {
    /// Writes one line to the extension's stdin (an LF is added if missing).
    pub async fn send_line(&mut self, line: &str) -> io::Result<()> {
        let w = self
            .input
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "input closed"))?;
        w.write_all(line.as_bytes()).await?;
        if !line.ends_with('\n') {
            w.write_all(b"\n").await?;
        }
        Ok(())
    }

    /// Writes raw bytes to the extension's stdin (no LF added).
    pub async fn send_bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        let w = self
            .input
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "input closed"))?;
        w.write_all(bytes).await
    }

    /// Encodes and writes a host frame.
    pub async fn send(&mut self, frame: &HostFrame) -> io::Result<()> {
        let line = encode_frame(frame).map_err(io::Error::other)?;
        self.send_bytes(&line).await
    }

    /// Closes the extension's stdin (EOF).
    pub fn close_input(&mut self) {
        self.input = None;
    }

    fn split(&mut self, chunk: Vec<u8>) {
        if self.pending.is_empty() && chunk.last() == Some(&b'\n') && memchr_count(&chunk) == 1 {
            self.lines
                .push_back(String::from_utf8_lossy(&chunk[..chunk.len() - 1]).into_owned());
            return;
        }
        self.pending.extend_from_slice(&chunk);
        while let Some(i) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=i).collect();
            self.lines
                .push_back(String::from_utf8_lossy(&line[..line.len() - 1]).into_owned());
        }
    }

    /// The next line the extension wrote, without its LF; `None` once the
    /// extension's side is closed and everything was read.
    pub async fn recv_line(&mut self) -> Option<String> {
        loop {
            if let Some(l) = self.lines.pop_front() {
                return Some(l);
            }
            if self.closed {
                return None;
            }
            match self.output.recv().await {
                Some(chunk) => self.split(chunk),
                None => self.closed = true,
            }
        }
    }

    /// The next line if one was already written (never waits).
    pub fn try_recv_line(&mut self) -> Option<String> {
        loop {
            if let Some(l) = self.lines.pop_front() {
                return Some(l);
            }
            match self.output.try_recv() {
                Ok(chunk) => self.split(chunk),
                Err(mpsc::error::TryRecvError::Empty) => return None,
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    self.closed = true;
                    return None;
                }
            }
        }
    }

    /// The next frame the extension wrote, decoded; `None` at the end.
    pub async fn recv(&mut self) -> Option<Result<ExtFrame, DecodeError>> {
        let line = self.recv_line().await?;
        Some(ExtFrame::decode_str(&line))
    }
}

fn memchr_count(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'\n').count()
}

/// An async reader over a non-blocking pipe or socket descriptor, driven by
/// the reactor of the runtime it was created in (no helper thread).
#[cfg(unix)]
pub(crate) struct FdReader(tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>);

#[cfg(unix)]
impl FdReader {
    /// Registers `fd` with the current runtime's reactor; gives the
    /// descriptor back when that is not possible.
    pub(crate) fn new(fd: std::os::fd::OwnedFd) -> Result<Self, std::os::fd::OwnedFd> {
        use std::os::fd::AsRawFd;
        if set_nonblocking(fd.as_raw_fd()).is_err() {
            return Err(fd);
        }
        // SAFETY: an `OwnedFd` is a valid open descriptor that stays open
        // and unchanged for as long as the `AsyncFd` owns it.
        unsafe {
            tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE)
        }
        .map(Self)
        .map_err(|e| e.into_parts().0)
    }
}

#[cfg(unix)]
impl AsyncRead for FdReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        use std::os::fd::AsRawFd;
        loop {
            let mut guard = match self.0.poll_read_ready(cx) {
                Poll::Ready(Ok(g)) => g,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            };
            let unfilled = buf.initialize_unfilled();
            let res = guard.try_io(|inner| {
                // SAFETY: reading into the initialized, unfilled part of buf.
                let n = unsafe {
                    libc::read(
                        inner.as_raw_fd(),
                        unfilled.as_mut_ptr().cast(),
                        unfilled.len(),
                    )
                };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match res {
                Ok(Ok(n)) => {
                    if n > 0 && n < unfilled.len() {
                        // A short read drained the pipe: forget the readiness
                        // now instead of learning it from one more read that
                        // fails with EAGAIN (a syscall per idle round trip).
                        // tokio keeps readiness that arrived since.
                        guard.clear_ready();
                    }
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
}

/// Turns a [`Source`] into an async reader; must run inside the runtime.
pub(crate) fn into_reader(source: Source) -> io::Result<Box<dyn AsyncRead + Send + Unpin>> {
    match source {
        Source::Reader(r) => Ok(r),
        #[cfg(unix)]
        Source::Fd(fd) => {
            use std::os::fd::AsRawFd;
            let raw = fd.as_raw_fd();
            let fd = if is_pipe_or_socket(raw) {
                match FdReader::new(fd) {
                    Ok(r) => return Ok(Box::new(r)),
                    Err(fd) => fd,
                }
            } else {
                fd
            };
            // A file or terminal: epoll cannot watch it and non-blocking mode
            // would leak into the terminal session; read it on tokio's
            // blocking pool instead.
            Ok(Box::new(tokio::fs::File::from_std(std::fs::File::from(fd))))
        }
    }
}
