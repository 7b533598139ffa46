//! The wire: the transport the host's lines come in on and the extension's
//! go out on, the read loop that turns lines into jobs, the single writer,
//! and what the engine does with lines it refuses or a peer that misbehaves.

pub(crate) mod diagnostics;
#[cfg(unix)]
pub(crate) mod fd;
pub(crate) mod reader;
pub(crate) mod reject;
pub(crate) mod stdio;
pub(crate) mod transport;
pub(crate) mod writer;
