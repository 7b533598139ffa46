//! The line codec of `zot-protocol`: line → frame → line.
//!
//! The input is a byte stream. It is split into lines three ways (a
//! [`LineSplitter`] fed in small pieces, the blocking [`LineReader`] over a
//! small buffer, and a plain split at every LF), which must agree. Then the
//! whole input, and each line, is decoded in both directions, and:
//! - whatever decodes re-encodes (unless over the frame limit) to one line
//!   that decodes to an equal frame, and the encoding of that frame is the
//!   same line again (the canonical form is a fixed point);
//! - a leading space changes nothing: the same frame, or an error of the
//!   same kind (the decoder's fast path for canonical lines must agree with
//!   its general path). Not checked for an object with a key twice at the
//!   top level: there the two paths differ today (the fast path ignores a
//!   second `type`, the general one calls any repeated `type`, `event` or
//!   `id` invalid JSON; fuzz/README.md, "Found").

use std::cell::Cell;
use std::fmt::Debug;
use std::io::BufReader;

use zot_protocol::codec::blocking::LineReader;
use zot_protocol::limits::MAX_FRAME_BYTES;
use zot_protocol::{encode_frame, CodecError, ExtFrame, Frame, HostFrame, LineSplitter};

/// A line as the codec yields it: its bytes, or the length of an oversize
/// line.
type Line = Result<Vec<u8>, usize>;

/// Checks the input (see the module docs); panics on a violation.
pub fn check(data: &[u8]) {
    let watch = crate::panics::watch();
    let lines = plain_lines(data);
    let piece = 1 + data.len() % 13;
    assert_eq!(
        split_in_pieces(data, piece),
        lines,
        "LineSplitter, pieces of {piece}"
    );
    let cap = 1 + data.len() % 61;
    assert_eq!(
        read_buffered(data, cap),
        lines,
        "blocking LineReader, buffer of {cap}"
    );
    both_directions(data);
    if lines.len() > 1 {
        for line in lines.iter().flatten() {
            both_directions(line);
        }
    }
    watch.check("codec");
}

fn both_directions(line: &[u8]) {
    round_trip::<ExtFrame>(line);
    round_trip::<HostFrame>(line);
}

/// Every line, split at LF; blank lines skipped, oversize ones reported by
/// length (LF included): what both readers must yield.
fn plain_lines(data: &[u8]) -> Vec<Line> {
    let mut parts: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    let ended = data.last() == Some(&b'\n');
    if ended || data.is_empty() {
        parts.pop(); // nothing after the last LF
    }
    let count = parts.len();
    let mut lines = Vec::new();
    for (i, l) in parts.into_iter().enumerate() {
        if l.len() >= MAX_FRAME_BYTES {
            lines.push(Err(l.len() + usize::from(i + 1 < count || ended)));
        } else if !l.iter().all(u8::is_ascii_whitespace) {
            lines.push(Ok(l.to_vec()));
        }
    }
    lines
}

fn line_of(r: Result<&[u8], CodecError>) -> Line {
    match r {
        Ok(l) => Ok(l.to_vec()),
        Err(CodecError::FrameTooLarge { len, .. }) => Err(len),
        Err(e) => panic!("the splitter reported {e}"),
    }
}

fn split_in_pieces(data: &[u8], piece: usize) -> Vec<Line> {
    let mut split = LineSplitter::new();
    let mut out = Vec::new();
    for mut chunk in data.chunks(piece) {
        while !chunk.is_empty() {
            let (used, line) = split.push(chunk);
            assert!(
                used > 0 && used <= chunk.len(),
                "push took {used} of {}",
                chunk.len()
            );
            chunk = &chunk[used..];
            if let Some(l) = line {
                out.push(line_of(l));
            }
        }
    }
    if let Some(l) = split.finish() {
        out.push(line_of(l));
    }
    out
}

fn read_buffered(data: &[u8], cap: usize) -> Vec<Line> {
    let mut reader = LineReader::new(BufReader::with_capacity(cap, data));
    let mut out = Vec::new();
    loop {
        match reader.next_line() {
            Ok(Some(l)) => out.push(Ok(l.to_vec())),
            Ok(None) => return out,
            Err(CodecError::FrameTooLarge { len, .. }) => out.push(Err(len)),
            Err(e) => panic!("reading a byte slice failed: {e}"),
        }
    }
}

fn round_trip<F: Frame + PartialEq + Debug>(line: &[u8]) {
    let first = F::decode(line);
    if !has_repeated_key(line) {
        let spaced = F::decode(&[b" ", line].concat());
        match (&first, &spaced) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "a leading space changed the frame"),
            (Err(a), Err(b)) => assert_eq!(
                a.kind(),
                b.kind(),
                "a leading space changed the error: {a} / {b}"
            ),
            _ => panic!("a leading space changed the outcome: {first:?} / {spaced:?}"),
        }
    }
    let Ok(frame) = first else { return };
    let encoded = match encode_frame(&frame) {
        Ok(e) => e,
        Err(CodecError::FrameTooLarge { .. }) => return,
        Err(e) => panic!("a decoded frame does not encode: {e}: {frame:?}"),
    };
    let body = encoded
        .strip_suffix(b"\n")
        .expect("an encoded frame ends with LF");
    assert!(!body.contains(&b'\n'), "an encoded frame is one line");
    let again = F::decode(body).unwrap_or_else(|e| {
        panic!(
            "the encoding of a decoded frame does not decode: {e}\n  line: {}",
            String::from_utf8_lossy(body)
        )
    });
    assert_eq!(again, frame, "decode(encode(frame)) differs from frame");
    let twice = encode_frame(&again).expect("it encoded once");
    assert_eq!(
        String::from_utf8_lossy(&twice),
        String::from_utf8_lossy(&encoded),
        "the canonical encoding is not a fixed point"
    );
}

/// Whether the line is a JSON object with a key twice at the top level
/// (also when the line turns out not to be JSON after that key). Keys are
/// read raw, so that one that is no string (a lone surrogate escape) does
/// not hide a repeated key after it; two keys are the same when they
/// decode to the same text or, failing that, are written the same.
fn has_repeated_key(line: &[u8]) -> bool {
    struct Keys<'a>(&'a Cell<bool>);
    impl<'de> serde::de::Visitor<'de> for Keys<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(key) = map.next_key::<&'de serde_json::value::RawValue>()? {
                let name = serde_json::from_str::<String>(key.get())
                    .unwrap_or_else(|_| key.get().to_owned());
                if !seen.insert(name) {
                    self.0.set(true);
                }
                map.next_value::<serde::de::IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let repeated = Cell::new(false);
    let mut de = serde_json::Deserializer::from_slice(line);
    let _ = serde::Deserializer::deserialize_map(&mut de, Keys(&repeated));
    repeated.get()
}
