//! The SDK's errors: [`Error`], what a handler fails with (any
//! [`std::error::Error`] converts into it with `?`, its cause kept for
//! [`Error::source`] and [`Error::downcast_ref`]); and [`RunError`], why
//! [`Extension::run`](crate::Extension::run) failed, an enum whose variants
//! keep the error that caused them ([`std::error::Error::source`]). Each
//! kind of failure has the stable [`RunError::code`] the Node and Python
//! SDKs' errors carry (docs/api-parity.md).

use std::error::Error as StdError;
use std::fmt::{self, Display};

type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// A convenient error type for handlers: anything that implements
/// [`std::error::Error`] converts into it with `?` (the error is kept as its
/// [`source`](Error::source), not flattened to text), and [`Error::msg`]
/// makes one from text. The handler's failure message is the `Display` of
/// the error.
///
/// ```
/// use zot_ext::{Ctx, Error, ToolOutput};
///
/// async fn parse(args: String, _ctx: Ctx) -> Result<ToolOutput, Error> {
///     let n: i64 = args.parse()?; // ParseIntError -> Error, kept as its source
///     if n < 0 {
///         return Err(Error::msg("negative"));
///     }
///     Ok(ToolOutput::text(n.to_string()))
/// }
/// # let _ = parse;
/// let e: Error = "x".parse::<i64>().unwrap_err().into();
/// assert!(e.downcast_ref::<std::num::ParseIntError>().is_some());
/// ```
///
/// (`Error` does not implement [`std::error::Error`] itself, as `anyhow`'s
/// does not: that would conflict with the blanket `From`. It converts into
/// `Box<dyn std::error::Error + Send + Sync>`, cause included.)
pub struct Error {
    message: String,
    source: Option<BoxError>,
    /// The type a failed interceptor's verdict names: the converted error's
    /// (`ParseIntError`), or `Error` for text.
    kind: &'static str,
}

impl Error {
    /// An error with this message and no cause.
    pub fn msg(message: impl Display) -> Self {
        Self {
            message: message.to_string(),
            source: None,
            kind: "Error",
        }
    }

    /// An error with this message, caused by `source`.
    pub fn with_source(message: impl Display, source: impl Into<BoxError>) -> Self {
        Self {
            message: message.to_string(),
            source: Some(source.into()),
            kind: "Error",
        }
    }

    /// The error this one was converted from (or given as its cause).
    pub fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }

    /// The causes, outermost first: [`source`](Error::source), then its
    /// source, and so on.
    pub fn chain(&self) -> impl Iterator<Item = &(dyn StdError + 'static)> {
        std::iter::successors(self.source(), |e: &&(dyn StdError + 'static)| (*e).source())
    }

    /// The name of the error's type for messages that say it: the type it
    /// was converted from, or `Error`.
    pub(crate) fn kind(&self) -> &'static str {
        self.kind
    }

    /// The first cause of type `E` in [`chain`](Error::chain).
    pub fn downcast_ref<E: StdError + 'static>(&self) -> Option<&E> {
        self.chain().find_map(|e| e.downcast_ref::<E>())
    }
}

impl<E: StdError + Send + Sync + 'static> From<E> for Error {
    fn from(e: E) -> Self {
        Self {
            message: e.to_string(),
            source: Some(Box::new(e)),
            kind: type_label::<E>(),
        }
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?})", self.message)?;
        for cause in self.chain() {
            write!(f, "\n  caused by: {cause}")?;
        }
        Ok(())
    }
}

/// An [`Error`] as a standard error: its message, its cause as `source`.
#[derive(Debug)]
struct Converted {
    message: String,
    source: Option<BoxError>,
}

impl Display for Converted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for Converted {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

impl From<Error> for BoxError {
    fn from(e: Error) -> Self {
        match e.source {
            // Converted with `?`: the original error is the whole story.
            Some(source) if source.to_string() == e.message => source,
            source => Box::new(Converted {
                message: e.message,
                source,
            }),
        }
    }
}

/// Why [`Extension::run`](crate::Extension::run) failed. The variants that
/// wrap another error return it from [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// A handler was registered with an invalid name, exposure or schema
    /// (every refusal, joined).
    #[error("invalid registration: {0}")]
    Register(String),
    /// stdin/stdout or the runtime could not be set up.
    #[error("i/o error: {0}")]
    Io(#[source] std::io::Error),
    /// The engine could not start.
    #[error("{0}")]
    Engine(#[source] crate::engine::EngineError),
    /// The extension was already running (a second `run` of it).
    #[error("this extension is already running")]
    AlreadyRunning,
    /// The session failed (handshake or transport), as the engine said.
    #[error("{0}")]
    Session(String),
    /// The session's task panicked or was cancelled.
    #[error("the extension's session task failed: {0}")]
    Task(#[source] tokio::task::JoinError),
}

/// Equal when the same variant says the same thing (0.1's `RunError`, all
/// strings, derived `PartialEq`; the causes now kept have none).
impl PartialEq for RunError {
    fn eq(&self, other: &Self) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
            && self.to_string() == other.to_string()
    }
}

impl Eq for RunError {}

impl RunError {
    /// The kind of failure, as the other SDKs' errors name it:
    /// `"registration"` for [`RunError::Register`], `"session"` for the
    /// rest (the session could not start or ended abnormally).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Register(_) => "registration",
            _ => "session",
        }
    }
}

/// The last path segment of `E`'s name without generics
/// (`std::num::ParseIntError` → `ParseIntError`); `Error` for text and
/// boxes, which name no type of their own.
pub(super) fn type_label<E>() -> &'static str {
    let full = std::any::type_name::<E>();
    let base = full.split('<').next().unwrap_or(full);
    let name = base.rsplit("::").next().unwrap_or(base);
    match name.trim_start_matches('&') {
        "" | "str" | "String" | "Cow" | "Box" | "Arc" => "Error",
        name => name,
    }
}
