//! A session's life: the handshake and the registrations it announces, and
//! its end (shutdown, EOF, a broken transport) with the reason it reports.

pub(crate) mod close_reason;
pub(crate) mod handshake;
pub mod registration;
pub(crate) mod shutdown;
mod spontaneous;
