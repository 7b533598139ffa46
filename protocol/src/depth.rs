//! The nesting depth of a JSON text, measured without parsing it.
//!
//! A recursive decoder (Python's `json`, `serde_json` into a tree) needs
//! stack for every level, so a reader bounds the depth of a line before
//! anything parses it ([`crate::limits::MAX_FRAME_DEPTH`]). The check never
//! recurses and costs one count of the brackets for the usual line, which
//! has fewer of them than the limit; only a line with more is scanned for
//! its structure (strings skipped, escapes honoured).

/// Whether arrays and objects in `json` nest deeper than `limit` levels,
/// the outermost value counting as one. Brackets inside strings do not
/// count. Text that is not JSON gives an answer too (the decoder that
/// comes next reports what is wrong with it).
///
/// ```
/// use zot_protocol::depth::exceeds_depth;
///
/// assert!(!exceeds_depth(br#"{"a":[{"b":"[[[["}]}"#, 3));
/// assert!(exceeds_depth(br#"{"a":[{"b":[]}]}"#, 3));
/// ```
pub fn exceeds_depth(json: &[u8], limit: usize) -> bool {
    // Fewer opening brackets than the limit cannot nest deeper than it.
    // Found with memchr's vector search (a byte-by-byte count was most of
    // what reading an event cost in the engine, about 3 instructions a byte),
    // and counted only as far as the limit.
    let opening = memchr::memchr2_iter(b'{', b'[', json)
        .take(limit.saturating_add(1))
        .count();
    if opening <= limit {
        return false;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = json.get(i) {
        i += 1;
        match b {
            b'"' => match string_end(json, i) {
                Some(end) => i = end,
                // Unterminated: not JSON, and no deeper than seen so far.
                None => return false,
            },
            b'{' | b'[' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The index after the quote that closes the string whose contents start
/// at `from`.
fn string_end(json: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let rest = json.get(from..)?;
        let at = memchr::memchr2(b'"', b'\\', rest)?;
        if rest[at] == b'"' {
            return Some(from + at + 1);
        }
        from += at + 2; // a backslash and the character it escapes
    }
}

#[cfg(test)]
mod tests {
    use super::exceeds_depth;

    fn nested(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn the_limit_itself_is_allowed_one_more_is_not() {
        for limit in [1, 2, 127, 128] {
            assert!(!exceeds_depth(nested(limit).as_bytes(), limit));
            assert!(exceeds_depth(nested(limit + 1).as_bytes(), limit));
        }
        let frame = format!(r#"{{"type":"tool_call","args":{{"a":{}}}}}"#, nested(126));
        assert!(!exceeds_depth(frame.as_bytes(), 128));
        let frame = format!(r#"{{"type":"tool_call","args":{{"a":{}}}}}"#, nested(127));
        assert!(exceeds_depth(frame.as_bytes(), 128));
    }

    #[test]
    fn siblings_do_not_add_up() {
        let wide = format!("[{}]", vec!["[[]]"; 1000].join(","));
        assert!(!exceeds_depth(wide.as_bytes(), 3));
        assert!(exceeds_depth(wide.as_bytes(), 2));
    }

    #[test]
    fn brackets_in_strings_do_not_count() {
        let s = format!(r#"{{"text":"{}","q":"\"[[[","e":"\\"}}"#, "[{".repeat(500));
        assert!(!exceeds_depth(s.as_bytes(), 1));
        // After an escaped backslash the quote closes the string.
        assert!(exceeds_depth(br#"{"e":"\\",[[]]}"#, 2));
    }

    #[test]
    fn very_deep_and_broken_text_is_answered_without_recursion() {
        assert!(exceeds_depth(nested(100_000).as_bytes(), 128));
        assert!(exceeds_depth("[".repeat(100_000).as_bytes(), 128));
        assert!(!exceeds_depth(
            format!(r#"["{}"#, "[".repeat(500)).as_bytes(),
            128
        ));
        // A backslash as the last byte of an unterminated string.
        assert!(!exceeds_depth(br#""[[\"#, 1));
        assert!(!exceeds_depth(b"", 0));
    }
}
