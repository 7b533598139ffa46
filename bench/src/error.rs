//! The harness's error type: a message, with context added on the way up.

use std::fmt;

/// A harness failure (spawn, protocol or I/O), as a readable message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

/// Result with the harness's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        Error(msg.into())
    }

    /// The same error with `context: ` in front.
    pub fn context(self, context: impl fmt::Display) -> Self {
        Error(format!("{context}: {}", self.0))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error(e.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error(format!("JSON: {e}"))
    }
}

/// Returns early with an [`Error`] built like `format!`.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::error::Error(format!($($arg)*)))
    };
}
