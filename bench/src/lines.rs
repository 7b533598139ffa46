//! A line reader over a pipe that hands out borrowed lines from one growing
//! buffer (no copy per line) and can tell whether a whole line is already
//! buffered (so the pipelined scenario knows when to refill before blocking).

use std::io::{self, Read};

/// Initial buffer size.
const INITIAL: usize = 256 * 1024;
/// A line longer than this is an error (the protocol's limit is 4 MiB).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// Reads `\n`-terminated lines.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Start of the unread data.
    start: usize,
    /// End of the valid data.
    end: usize,
    /// `buf[start..scanned]` is known to hold no `\n`.
    scanned: usize,
}

impl<R: Read> LineReader<R> {
    /// A reader over `inner`.
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            buf: vec![0; INITIAL],
            start: 0,
            end: 0,
            scanned: 0,
        }
    }

    /// The next line without its `\n`; `None` at end of input (a trailing
    /// partial line is dropped).
    pub fn next_line(&mut self) -> io::Result<Option<&[u8]>> {
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..self.end]) {
                let line_start = self.start;
                let line_end = self.scanned + i;
                self.start = line_end + 1;
                self.scanned = self.start;
                return Ok(Some(&self.buf[line_start..line_end]));
            }
            self.scanned = self.end;
            if self.start == self.end {
                self.start = 0;
                self.end = 0;
                self.scanned = 0;
            } else if self.end == self.buf.len() {
                if self.start > 0 {
                    self.buf.copy_within(self.start..self.end, 0);
                    self.end -= self.start;
                    self.scanned = self.end;
                    self.start = 0;
                }
                if self.end == self.buf.len() {
                    if self.buf.len() >= MAX_LINE {
                        return Err(io::Error::other(format!(
                            "line longer than {MAX_LINE} bytes"
                        )));
                    }
                    self.buf.resize(self.buf.len() * 2, 0);
                }
            }
            let n = loop {
                match self.inner.read(&mut self.buf[self.end..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other?,
                }
            };
            if n == 0 {
                return Ok(None);
            }
            self.end += n;
        }
    }

    /// Whether a whole line is already buffered (the next
    /// [`next_line`](Self::next_line) will not block).
    pub fn has_line(&self) -> bool {
        memchr::memchr(b'\n', &self.buf[self.scanned..self.end]).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns its data in small pieces.
    struct Trickle(Vec<u8>, usize);

    impl Read for Trickle {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0.drain(..n);
            Ok(n)
        }
    }

    #[test]
    fn splits_lines_across_reads_and_grows() {
        let long = "y".repeat(INITIAL * 3);
        let data = format!("a\nbc\n{long}\nd\npartial");
        let mut r = LineReader::new(Trickle(data.into_bytes(), 1000));
        assert_eq!(r.next_line().unwrap().unwrap(), b"a");
        assert!(r.has_line());
        assert_eq!(r.next_line().unwrap().unwrap(), b"bc");
        assert_eq!(r.next_line().unwrap().unwrap(), long.as_bytes());
        assert_eq!(r.next_line().unwrap().unwrap(), b"d");
        assert!(!r.has_line());
        assert!(r.next_line().unwrap().is_none());
    }
}
