//! The line codec: newline-delimited frames over byte streams, async (tokio)
//! and blocking ([`blocking`]).
//!
//! Reading enforces [`MAX_FRAME_BYTES`] without ever holding an oversize line
//! in memory: once a line passes the limit the reader stops buffering, skips
//! to the next LF, reports [`CodecError::FrameTooLarge`] and carries on with
//! the next line. Decode errors are reported per line too; only I/O errors
//! end a stream. Blank lines are skipped.
//!
//! Writing serializes compactly (JSON escapes every LF inside strings, so a
//! frame is always one line), refuses frames over the limit, and appends the
//! LF. Flushing is left to the caller, which knows whether more frames are
//! queued behind this one.

use std::io;
use std::marker::PhantomData;

use serde::Serialize;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

use crate::decode::{DecodeError, Frame};
use crate::limits::{INITIAL_LINE_BUFFER, MAX_FRAME_BYTES};

/// What can go wrong reading or writing frames.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The underlying stream failed. Fatal for the stream.
    #[error("i/o error: {0}")]
    Io(#[from] io::Error),
    /// A line (LF included) exceeded the frame limit. When reading, the line
    /// was skipped and the next one can still be read; when writing, nothing
    /// was written.
    #[error("frame too large: {len} bytes (LF included) exceeds the {limit}-byte limit")]
    FrameTooLarge {
        /// Bytes of the offending line, LF included (when reading: as many as
        /// were seen before the LF or the end of the stream).
        len: usize,
        /// The limit, [`MAX_FRAME_BYTES`].
        limit: usize,
    },
    /// The line could not be decoded; the next one can still be read.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The value could not be serialized.
    #[error("cannot encode frame: {0}")]
    Encode(String),
}

impl CodecError {
    /// Whether the stream can go on after this error (a bad or oversize line
    /// is skipped; an I/O error ends the stream).
    pub fn is_recoverable(&self) -> bool {
        !matches!(self, Self::Io(_))
    }

    /// A stable name for the kind of error: `io`, `frame_too_large`,
    /// `encode`, or the [`DecodeError::kind`].
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Io(_) => "io",
            Self::FrameTooLarge { .. } => "frame_too_large",
            Self::Decode(d) => d.kind(),
            Self::Encode(_) => "encode",
        }
    }
}

/// Serializes a frame as one compact line with its LF.
///
/// Fails with [`CodecError::FrameTooLarge`] when the line would exceed
/// [`MAX_FRAME_BYTES`] (WIRE-7).
pub fn encode_frame<F: Serialize + ?Sized>(frame: &F) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::with_capacity(128);
    encode_frame_into(frame, &mut out)?;
    Ok(out)
}

/// Like [`encode_frame`], appending to `out` (which is left unchanged on
/// error).
pub fn encode_frame_into<F: Serialize + ?Sized>(
    frame: &F,
    out: &mut Vec<u8>,
) -> Result<(), CodecError> {
    let start = out.len();
    if let Err(e) = serde_json::to_writer(&mut *out, frame) {
        out.truncate(start);
        return Err(CodecError::Encode(e.to_string()));
    }
    out.push(b'\n');
    let len = out.len() - start;
    if len > MAX_FRAME_BYTES {
        out.truncate(start);
        return Err(CodecError::FrameTooLarge {
            len,
            limit: MAX_FRAME_BYTES,
        });
    }
    Ok(())
}

/// What feeding a chunk to the splitter produced.
enum Fed {
    /// A whole line is in the buffer.
    Line,
    /// An oversize line ended (or the stream did); its length, LF included.
    TooLarge(usize),
    /// The chunk was used up without finishing a line.
    More,
}

/// The bounded line splitter shared by the async and blocking readers.
struct Splitter {
    buf: Vec<u8>,
    /// `Some(seen)` while skipping the rest of an oversize line.
    discarding: Option<usize>,
}

impl Splitter {
    /// Longest line content; the LF makes it [`MAX_FRAME_BYTES`].
    const MAX_CONTENT: usize = MAX_FRAME_BYTES - 1;

    fn new() -> Self {
        Self {
            buf: Vec::with_capacity(INITIAL_LINE_BUFFER),
            discarding: None,
        }
    }

    fn reset(&mut self) {
        self.buf.clear();
        // Do not keep a multi-megabyte buffer alive after one large frame.
        if self.buf.capacity() > 4 * INITIAL_LINE_BUFFER {
            self.buf = Vec::with_capacity(INITIAL_LINE_BUFFER);
        }
    }

    /// Takes bytes from `chunk`; returns how many were used and the outcome.
    fn feed(&mut self, chunk: &[u8]) -> (usize, Fed) {
        match memchr::memchr(b'\n', chunk) {
            Some(i) => {
                if let Some(seen) = self.discarding.take() {
                    return (i + 1, Fed::TooLarge(seen + i + 1));
                }
                if self.buf.len() + i > Self::MAX_CONTENT {
                    let len = self.buf.len() + i + 1;
                    self.reset();
                    return (i + 1, Fed::TooLarge(len));
                }
                self.buf.extend_from_slice(&chunk[..i]);
                (i + 1, Fed::Line)
            }
            None => {
                let n = chunk.len();
                match &mut self.discarding {
                    Some(seen) => *seen += n,
                    None if self.buf.len() + n > Self::MAX_CONTENT => {
                        self.discarding = Some(self.buf.len() + n);
                        self.reset();
                    }
                    None => self.buf.extend_from_slice(chunk),
                }
                (n, Fed::More)
            }
        }
    }

    /// The stream ended: a trailing line without LF still counts.
    fn finish(&mut self) -> Option<Fed> {
        if let Some(seen) = self.discarding.take() {
            return Some(Fed::TooLarge(seen));
        }
        (!self.buf.is_empty()).then_some(Fed::Line)
    }

    fn is_blank(&self) -> bool {
        self.buf.iter().all(u8::is_ascii_whitespace)
    }
}

fn too_large(len: usize) -> CodecError {
    CodecError::FrameTooLarge {
        len,
        limit: MAX_FRAME_BYTES,
    }
}

/// Splits bytes that arrive in pieces into bounded lines, like
/// [`LineReader`], for a caller that reads the pipe itself (an event loop
/// that hands the engine each chunk it read).
#[derive(Default)]
pub struct LineSplitter {
    split: Option<Splitter>,
    /// The last line was handed out: clear it before taking more bytes.
    taken: bool,
}

impl LineSplitter {
    /// An empty splitter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes bytes from the start of `chunk`, up to the end of the next
    /// complete line or all of them. Returns how many it took and, when a
    /// line ended, the line without its LF (blank lines are skipped) or
    /// [`CodecError::FrameTooLarge`] for an oversize one (skipped without
    /// being buffered; the next line is read normally).
    pub fn push(&mut self, chunk: &[u8]) -> (usize, Option<Result<&[u8], CodecError>>) {
        let split = self.split.get_or_insert_with(Splitter::new);
        if self.taken {
            split.reset();
            self.taken = false;
        }
        let (used, fed) = split.feed(chunk);
        match fed {
            Fed::More => (used, None),
            Fed::TooLarge(len) => (used, Some(Err(too_large(len)))),
            Fed::Line if split.is_blank() => {
                split.reset();
                (used, None)
            }
            Fed::Line => {
                self.taken = true;
                (used, Some(Ok(&split.buf)))
            }
        }
    }

    /// The stream ended: the last line if it had no LF (or the error for
    /// an oversize one).
    pub fn finish(&mut self) -> Option<Result<&[u8], CodecError>> {
        let split = self.split.as_mut()?;
        if self.taken {
            split.reset();
            self.taken = false;
        }
        match split.finish()? {
            Fed::TooLarge(len) => Some(Err(too_large(len))),
            _ if split.is_blank() => None,
            _ => {
                self.taken = true;
                Some(Ok(&split.buf))
            }
        }
    }
}

/// Reads bounded lines from an async buffered reader.
pub struct LineReader<R> {
    inner: R,
    split: Splitter,
    eof: bool,
    /// A `next_line` call began a line it has not returned.
    partial: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Wraps a buffered reader (e.g. `tokio::io::BufReader::new(stdin)`).
    pub fn new(inner: R) -> Self {
        Self {
            inner,
            split: Splitter::new(),
            eof: false,
            partial: false,
        }
    }

    /// The start of a line that a cancelled `next_line` had taken from the
    /// reader but not returned (empty if there is none), and the reader:
    /// for handing the rest of the stream to someone else (e.g. a
    /// [`LineSplitter`]) without losing bytes.
    pub fn into_parts(self) -> (Vec<u8>, R) {
        let partial = if self.partial && self.split.discarding.is_none() {
            self.split.buf
        } else {
            Vec::new()
        };
        (partial, self.inner)
    }

    /// The next non-blank line without its LF, `Ok(None)` at the end of the
    /// stream. An oversize line yields `Err(FrameTooLarge)` once; the call
    /// after it continues with the following line.
    pub async fn next_line(&mut self) -> Result<Option<&[u8]>, CodecError> {
        loop {
            self.split.reset();
            self.partial = true;
            let fed = loop {
                if self.eof {
                    return Ok(None);
                }
                let chunk = self.inner.fill_buf().await?;
                if chunk.is_empty() {
                    self.eof = true;
                    match self.split.finish() {
                        Some(fed) => break fed,
                        None => return Ok(None),
                    }
                }
                let (used, fed) = self.split.feed(chunk);
                self.inner.consume(used);
                match fed {
                    Fed::More => continue,
                    done => break done,
                }
            };
            self.partial = false;
            match fed {
                Fed::TooLarge(len) => return Err(too_large(len)),
                _ if self.split.is_blank() => continue,
                _ => return Ok(Some(&self.split.buf)),
            }
        }
    }

    /// The wrapped reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

/// Reads and decodes frames of one direction from an async buffered reader.
pub struct FrameReader<R, F> {
    lines: LineReader<R>,
    _frame: PhantomData<fn() -> F>,
}

impl<R: AsyncBufRead + Unpin, F: Frame> FrameReader<R, F> {
    /// Wraps a buffered reader.
    pub fn new(inner: R) -> Self {
        Self {
            lines: LineReader::new(inner),
            _frame: PhantomData,
        }
    }

    /// The next frame, `Ok(None)` at the end of the stream. Recoverable
    /// errors ([`CodecError::is_recoverable`]) concern one line only.
    pub async fn next_frame(&mut self) -> Result<Option<F>, CodecError> {
        match self.lines.next_line().await? {
            None => Ok(None),
            Some(line) => Ok(Some(F::decode(line)?)),
        }
    }
}

/// Writes frames to an async writer.
pub struct FrameWriter<W> {
    inner: W,
    buf: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> FrameWriter<W> {
    /// Wraps a writer.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(INITIAL_LINE_BUFFER),
        }
    }

    /// Encodes and writes one frame (not flushed).
    pub async fn write_frame<F: Serialize + ?Sized>(
        &mut self,
        frame: &F,
    ) -> Result<(), CodecError> {
        self.buf.clear();
        encode_frame_into(frame, &mut self.buf)?;
        self.inner.write_all(&self.buf).await?;
        Ok(())
    }

    /// Writes an already encoded line (it must end with LF).
    pub async fn write_line(&mut self, line: &[u8]) -> Result<(), CodecError> {
        debug_assert!(line.ends_with(b"\n"));
        if line.len() > MAX_FRAME_BYTES {
            return Err(too_large(line.len()));
        }
        self.inner.write_all(line).await?;
        Ok(())
    }

    /// Flushes the writer.
    pub async fn flush(&mut self) -> Result<(), CodecError> {
        self.inner.flush().await?;
        Ok(())
    }

    /// The wrapped writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

/// The same codec over `std::io`, for threads and simple scripts.
pub mod blocking {
    use std::io::{BufRead, Write};
    use std::marker::PhantomData;

    use serde::Serialize;

    use super::{encode_frame_into, too_large, CodecError, Fed, Splitter};
    use crate::decode::Frame;
    use crate::limits::INITIAL_LINE_BUFFER;

    /// Reads bounded lines from a blocking buffered reader.
    pub struct LineReader<R> {
        inner: R,
        split: Splitter,
        eof: bool,
    }

    impl<R: BufRead> LineReader<R> {
        /// Wraps a buffered reader.
        pub fn new(inner: R) -> Self {
            Self {
                inner,
                split: Splitter::new(),
                eof: false,
            }
        }

        /// See [`super::LineReader::next_line`].
        pub fn next_line(&mut self) -> Result<Option<&[u8]>, CodecError> {
            loop {
                self.split.reset();
                let fed = loop {
                    if self.eof {
                        return Ok(None);
                    }
                    let chunk = match self.inner.fill_buf() {
                        Ok(c) => c,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(e.into()),
                    };
                    if chunk.is_empty() {
                        self.eof = true;
                        match self.split.finish() {
                            Some(fed) => break fed,
                            None => return Ok(None),
                        }
                    }
                    let (used, fed) = self.split.feed(chunk);
                    self.inner.consume(used);
                    match fed {
                        Fed::More => continue,
                        done => break done,
                    }
                };
                match fed {
                    Fed::TooLarge(len) => return Err(too_large(len)),
                    _ if self.split.is_blank() => continue,
                    _ => return Ok(Some(&self.split.buf)),
                }
            }
        }
    }

    /// Reads and decodes frames from a blocking buffered reader.
    pub struct FrameReader<R, F> {
        lines: LineReader<R>,
        _frame: PhantomData<fn() -> F>,
    }

    impl<R: BufRead, F: Frame> FrameReader<R, F> {
        /// Wraps a buffered reader.
        pub fn new(inner: R) -> Self {
            Self {
                lines: LineReader::new(inner),
                _frame: PhantomData,
            }
        }

        /// See [`super::FrameReader::next_frame`].
        pub fn next_frame(&mut self) -> Result<Option<F>, CodecError> {
            match self.lines.next_line()? {
                None => Ok(None),
                Some(line) => Ok(Some(F::decode(line)?)),
            }
        }
    }

    impl<R: BufRead, F: Frame> Iterator for FrameReader<R, F> {
        type Item = Result<F, CodecError>;

        fn next(&mut self) -> Option<Self::Item> {
            self.next_frame().transpose()
        }
    }

    /// Writes frames to a blocking writer.
    pub struct FrameWriter<W> {
        inner: W,
        buf: Vec<u8>,
    }

    impl<W: Write> FrameWriter<W> {
        /// Wraps a writer.
        pub fn new(inner: W) -> Self {
            Self {
                inner,
                buf: Vec::with_capacity(INITIAL_LINE_BUFFER),
            }
        }

        /// Encodes and writes one frame (not flushed).
        pub fn write_frame<F: Serialize + ?Sized>(&mut self, frame: &F) -> Result<(), CodecError> {
            self.buf.clear();
            encode_frame_into(frame, &mut self.buf)?;
            self.inner.write_all(&self.buf)?;
            Ok(())
        }

        /// Flushes the writer.
        pub fn flush(&mut self) -> Result<(), CodecError> {
            self.inner.flush()?;
            Ok(())
        }

        /// The wrapped writer.
        pub fn into_inner(self) -> W {
            self.inner
        }
    }
}
