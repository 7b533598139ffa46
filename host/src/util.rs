//! Small helpers: timestamps, exit statuses, text trimming.

use std::borrow::Cow;
use std::process::ExitStatus;
use std::time::{SystemTime, UNIX_EPOCH};

/// The current UTC time as RFC 3339 (`2026-01-02T03:04:05Z`).
pub fn rfc3339_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    rfc3339(secs)
}

/// Formats seconds since the epoch as RFC 3339 UTC.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if mo <= 2 { y + 1 } else { y };
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}Z")
}

/// Describes an exit status the way the stored host does: `exit status 3`,
/// `signal: killed`.
pub fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("signal: {}", signal_name(sig));
        }
    }
    status.to_string()
}

/// The Go-style description of a signal number.
pub fn signal_name(sig: i32) -> String {
    match sig {
        1 => "hangup".into(),
        2 => "interrupt".into(),
        3 => "quit".into(),
        4 => "illegal instruction".into(),
        6 => "aborted".into(),
        7 => "bus error".into(),
        8 => "floating point exception".into(),
        9 => "killed".into(),
        11 => "segmentation fault".into(),
        13 => "broken pipe".into(),
        14 => "alarm clock".into(),
        15 => "terminated".into(),
        n => format!("signal {n}"),
    }
}

/// Shortens `s` to at most `max` bytes at a character boundary, adding `…`.
pub fn ellipsize(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// The start of a line an extension wrote, as [`ellipsize`] would give
/// its lossy UTF-8 text, without converting the rest of a line that may be
/// megabytes long. Cutting `max + 4` bytes in changes nothing within the
/// first `max` bytes of the text: a character is at most 4 bytes, and an
/// invalid byte becomes 3.
pub fn excerpt(line: &[u8], max: usize) -> String {
    let head = &line[..line.len().min(max.saturating_add(4))];
    ellipsize(&String::from_utf8_lossy(head), max)
}

/// The bytes that may start a control character in UTF-8 (see
/// [`printable`]).
static MAY_BE_CONTROL: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[0x7f] = true;
    t[0xc2] = true;
    t
};

/// `s` with each control character (line feed, carriage return, the escape
/// that starts a terminal sequence...) written as its Rust escape (`\n`,
/// `\r`, `\u{1b}`). Diagnostics quote text an extension chose: each must
/// stay one line, and none may move the terminal's cursor or restyle it.
pub fn printable(s: &str) -> Cow<'_, str> {
    // One table look-up per byte settles the common case. Every control
    // character is a byte below 0x20, 0x7F, or (U+0080..=U+009F) 0xC2 and a
    // second byte: a string with none of those bytes has none.
    if !s.bytes().any(|b| MAY_BE_CONTROL[usize::from(b)]) || !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_escapes_control_characters_only() {
        assert!(matches!(printable("plain, ünïcode"), Cow::Borrowed(_)));
        // 0xC2 leads U+0080..=U+00BF: only U+0080..=U+009F are controls.
        assert!(matches!(printable("¢ ¿ \u{a0}"), Cow::Borrowed(_)));
        assert_eq!(printable("\u{9f}¢\u{80}"), "\\u{9f}¢\\u{80}");
        assert_eq!(printable("\u{7f}"), "\\u{7f}");
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let s = c.to_string();
            assert_eq!(
                matches!(printable(&s), Cow::Owned(_)),
                c.is_control(),
                "{c:?}"
            );
        }
        assert_eq!(
            printable("a\nb\rc\u{1b}[2J\td\u{85}"),
            "a\\nb\\rc\\u{1b}[2J\\td\\u{85}"
        );
    }

    #[test]
    fn rfc3339_formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn excerpt_is_the_whole_lines_ellipsis() {
        let samples: [&[u8]; 6] = [
            b"plain ascii text that goes on",
            "h\u{e9}llo w\u{f6}rld \u{1f600}\u{1f600}\u{1f600} done".as_bytes(),
            b"bad \xff\xfe bytes \xe2\x82 cut \xf0\x9f\x98 short",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
            b"",
            "\u{1f600}\u{1f600}\u{1f600}\u{1f600}\u{1f600}".as_bytes(),
        ];
        for line in samples {
            for max in 0..=line.len() + 2 {
                let whole = ellipsize(&String::from_utf8_lossy(line), max);
                assert_eq!(excerpt(line, max), whole, "{line:?} at {max}");
            }
        }
    }

    #[test]
    fn ellipsize_respects_char_boundaries() {
        assert_eq!(ellipsize("héllo", 2), "h…");
        assert_eq!(ellipsize("abc", 5), "abc");
    }
}
