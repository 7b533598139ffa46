//! Why a session ends: what the engine's shutdown reports, and the error
//! it becomes for the SDK (`None` for an orderly end).

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CloseReason {
    /// The host sent `shutdown`.
    Shutdown,
    /// stdin closed.
    Eof,
    /// A write failed or timed out.
    Broken(String),
    /// The first host frame was not a `hello_ack` (SDK-4).
    Handshake(String),
    /// [`crate::Engine::close`].
    Local,
    /// An engine task panicked (see `task`).
    Internal(String),
}

impl CloseReason {
    pub(crate) fn error(&self) -> Option<String> {
        match self {
            Self::Broken(m) => Some(format!("transport broken: {m}")),
            Self::Handshake(m) => Some(format!("handshake failed: {m}")),
            Self::Internal(m) => Some(format!("internal error: {m}")),
            _ => None,
        }
    }
}
