//! Why a model request failed, whether trying again can help, and the
//! one line that says so.

use std::time::Duration;

use serde_json::Value;

/// A failed model request.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// No connection (refused, unknown host, unreachable).
    Connect(String),
    /// The connection (TCP and TLS) took longer than the connect timeout.
    ConnectTimeout(Duration),
    /// The TLS handshake failed (a certificate refused, not TLS).
    Tls(String),
    /// The connection was reset or closed before the reply's headers.
    Reset(String),
    /// No reply within the first-byte timeout.
    FirstByte(Duration),
    /// The reply stopped arriving for longer than the idle timeout.
    Idle(Duration),
    /// An HTTP error status with the provider's message.
    Status {
        /// The status code.
        code: u16,
        /// Its reason phrase.
        reason: String,
        /// The provider's message, on one line.
        message: String,
        /// How long the provider asks to wait before trying again.
        retry_after: Option<Duration>,
    },
    /// The reply broke off or could not be read (a stream cut halfway).
    Cut(String),
    /// The reply was read but is not a chat completion.
    Reply(String),
}

impl Failure {
    /// Whether a new attempt may succeed (as the OpenAI clients retry:
    /// connection failures, 408, 409, 429 and 5xx; a reply already under
    /// way or a long wait for one is not repeated).
    pub fn retryable(&self) -> bool {
        match self {
            Failure::Connect(_) | Failure::ConnectTimeout(_) | Failure::Reset(_) => true,
            Failure::Status { code, .. } => matches!(code, 408 | 409 | 429 | 500..=599),
            _ => false,
        }
    }

    /// The wait the provider asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Failure::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Connect(e) => write!(f, "cannot connect: {e}"),
            Failure::ConnectTimeout(d) => {
                write!(f, "connect timeout: no connection within {}", secs(*d))
            }
            Failure::Tls(e) => f.write_str(e),
            Failure::Reset(e) => write!(f, "connection reset before the reply: {e}"),
            Failure::FirstByte(d) => {
                write!(f, "first-byte timeout: no reply within {}", secs(*d))
            }
            Failure::Idle(d) => write!(
                f,
                "idle timeout: the reply stopped for {} mid-way",
                secs(*d)
            ),
            Failure::Status {
                code,
                reason,
                message,
                retry_after,
            } => {
                write!(f, "HTTP {code} {reason}: {message}")?;
                if let Some(d) = retry_after {
                    write!(f, " (retry after {})", secs(*d))?;
                }
                Ok(())
            }
            Failure::Cut(e) => write!(f, "the reply broke off: {e}"),
            Failure::Reply(e) => f.write_str(e),
        }
    }
}

/// A duration as the error lines show it: `10 s`, `0.25 s`.
pub fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// The longest an error message is shown.
const MAX_MESSAGE_CHARS: usize = 300;

/// The provider's message in an error body, on one line: OpenAI's
/// `error.message` (with `error.code` when it adds something), a bare
/// `error` string, `message` or `detail` (FastAPI servers), else the text.
pub fn provider_message(body: &[u8]) -> String {
    let text = match serde_json::from_slice::<Value>(body) {
        Ok(v) => message_of(&v).unwrap_or_else(|| v.to_string()),
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    };
    one_line(&text)
}

/// The message of a JSON error object, if it has one.
pub fn message_of(v: &Value) -> Option<String> {
    // Some servers send a list of error objects.
    let v = v.as_array().and_then(|a| a.first()).unwrap_or(v);
    let err = v.get("error").unwrap_or(v);
    if let Some(s) = err.as_str() {
        return Some(s.to_owned());
    }
    let msg = ["message", "detail", "msg"]
        .iter()
        .find_map(|k| err.get(k))
        .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_owned))?;
    // OpenRouter puts the upstream provider's own words in metadata.raw.
    let raw = err.pointer("/metadata/raw").and_then(Value::as_str);
    Some(match raw {
        Some(raw) if !msg.contains(raw) => format!("{msg}: {raw}"),
        _ => msg,
    })
}

/// Whitespace runs become one space; long text is cut.
pub fn one_line(s: &str) -> String {
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &joined[..cut]),
        None => joined,
    }
}

/// The wait in `retry-after-ms` (OpenAI) or `retry-after` (seconds; an
/// HTTP date is not read).
pub fn retry_after(headers: &hyper::HeaderMap) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|n| n.is_finite() && *n >= 0.0)
    };
    get("retry-after-ms")
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .or_else(|| get("retry-after").map(Duration::from_secs_f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_messages_are_found_in_each_common_shape() {
        let cases: [(&str, &str); 6] = [
            (
                r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#,
                "Incorrect API key provided",
            ),
            (r#"{"error": "model 'x' not found"}"#, "model 'x' not found"),
            (r#"{"detail": "Not Found"}"#, "Not Found"),
            (r#"[{"error": {"message": "quota", "code": 429}}]"#, "quota"),
            (
                r#"{"error": {"message": "Provider returned error", "metadata": {"raw": "upstream\nsaid no"}}}"#,
                "Provider returned error: upstream said no",
            ),
            (
                "<html>\n  Bad   Gateway\n</html>",
                "<html> Bad Gateway </html>",
            ),
        ];
        for (body, want) in cases {
            assert_eq!(provider_message(body.as_bytes()), want, "{body}");
        }
        let long = "x".repeat(1000);
        assert_eq!(provider_message(long.as_bytes()).chars().count(), 301);
    }

    #[test]
    fn retry_after_reads_milliseconds_then_seconds() {
        let mut h = hyper::HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "250".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        let mut h = hyper::HeaderMap::new();
        h.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn only_transient_failures_are_retried() {
        let status = |code| Failure::Status {
            code,
            reason: String::new(),
            message: String::new(),
            retry_after: None,
        };
        for code in [408, 409, 429, 500, 502, 503, 529] {
            assert!(status(code).retryable(), "{code}");
        }
        for code in [400, 401, 403, 404, 422] {
            assert!(!status(code).retryable(), "{code}");
        }
        assert!(Failure::Reset("x".into()).retryable());
        assert!(!Failure::Tls("x".into()).retryable());
        assert!(!Failure::Idle(Duration::from_secs(1)).retryable());
        assert_eq!(secs(Duration::from_millis(250)), "0.25 s");
        assert_eq!(secs(Duration::from_secs(10)), "10 s");
    }
}
