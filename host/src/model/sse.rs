//! Server-sent events as the chat completions API streams them: the
//! `data:` lines of each event, fed in chunks cut anywhere (mid-line,
//! between `\r` and `\n`, inside a UTF-8 character).
//!
//! Written here rather than taken from a crate: what a chat stream needs is
//! a few lines of the format, and a line here is bounded (a server that
//! never ends a line is an error, not an ever-growing buffer).

/// The longest line or event kept (a chunk of a chat stream is a few
/// hundred bytes; a whole reply is bounded by the caller).
pub const MAX_EVENT_BYTES: usize = 4 << 20;

/// Splits a byte stream into the data of its events.
#[derive(Debug, Default)]
pub struct Decoder {
    line: Vec<u8>,
    /// The previous chunk ended with `\r`: a `\n` first in the next one
    /// belongs to that line end.
    after_cr: bool,
    data: Option<String>,
}

impl Decoder {
    /// Feeds a chunk; returns the data of every event it completes.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<Vec<String>, String> {
        let mut events = Vec::new();
        if self.after_cr && chunk.first() == Some(&b'\n') {
            chunk = &chunk[1..];
        }
        self.after_cr = false;
        while let Some(i) = chunk.iter().position(|b| *b == b'\n' || *b == b'\r') {
            self.line.extend_from_slice(&chunk[..i]);
            self.check()?;
            let line = std::mem::take(&mut self.line);
            self.line(&line, &mut events)?;
            let crlf = chunk[i] == b'\r';
            chunk = &chunk[i + 1..];
            if crlf {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    None => self.after_cr = true,
                    Some(_) => {}
                }
            }
        }
        self.line.extend_from_slice(chunk);
        self.check()?;
        Ok(events)
    }

    /// The end of the stream: a last event without its blank line still
    /// counts (some servers end on `data: [DONE]\n`).
    pub fn finish(&mut self) -> Result<Option<String>, String> {
        let mut events = Vec::new();
        let line = std::mem::take(&mut self.line);
        if !line.is_empty() {
            self.line(&line, &mut events)?;
        }
        Ok(events.pop().or_else(|| self.data.take()))
    }

    fn check(&self) -> Result<(), String> {
        let pending = self.data.as_ref().map_or(0, String::len);
        if self.line.len() + pending > MAX_EVENT_BYTES {
            return Err(format!(
                "an event of the stream is longer than {} MiB",
                MAX_EVENT_BYTES >> 20
            ));
        }
        Ok(())
    }

    fn line(&mut self, line: &[u8], events: &mut Vec<String>) -> Result<(), String> {
        if line.is_empty() {
            events.extend(self.data.take());
            return Ok(());
        }
        let line = std::str::from_utf8(line)
            .map_err(|_| "a line of the stream is not UTF-8".to_owned())?;
        let (field, value) = match line.find(':') {
            Some(0) => return Ok(()), // a comment (keep-alive)
            Some(i) => (
                &line[..i],
                line[i + 1..].strip_prefix(' ').unwrap_or(&line[i + 1..]),
            ),
            None => (line, ""),
        };
        // `event:`, `id:` and `retry:` carry nothing a chat stream needs.
        if field == "data" {
            match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = ": keep-alive\r\n\r\nevent: message\r\ndata: {\"a\":\"é\"}\r\n\r\ndata: one\ndata: two\n\ndata:[DONE]\n\n";

    fn decode_in(chunks: &[&[u8]]) -> Vec<String> {
        let mut d = Decoder::default();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(d.feed(c).unwrap());
        }
        out.extend(d.finish().unwrap());
        out
    }

    #[test]
    fn events_are_the_same_however_the_bytes_are_cut() {
        let want = vec![
            r#"{"a":"é"}"#.to_owned(),
            "one\ntwo".into(),
            "[DONE]".into(),
        ];
        let bytes = STREAM.as_bytes();
        assert_eq!(decode_in(&[bytes]), want);
        // Every cut in two, and byte by byte: between \r and \n, inside é.
        for i in 0..bytes.len() {
            assert_eq!(decode_in(&[&bytes[..i], &bytes[i..]]), want, "cut at {i}");
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(decode_in(&singles), want);
    }

    #[test]
    fn a_last_event_without_its_blank_line_counts() {
        assert_eq!(decode_in(&[b"data: a\n\ndata: [DONE]"]), ["a", "[DONE]"]);
        assert_eq!(decode_in(&[b"data: a\n\ndata: [DONE]\n"]), ["a", "[DONE]"]);
    }

    #[test]
    fn an_endless_line_is_an_error_not_a_growing_buffer() {
        let mut d = Decoder::default();
        let chunk = vec![b'x'; 1 << 20];
        let mut err = None;
        for _ in 0..8 {
            if let Err(e) = d.feed(&chunk) {
                err = Some(e);
                break;
            }
        }
        assert!(err.unwrap().contains("longer than 4 MiB"));
    }
}
