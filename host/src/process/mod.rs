//! Extension processes and the connection to each.
//!
//! Owns spawning (`spawn`), supervising a process and what it started
//! ([`supervise`], `sweep`), the host's own signals ([`signals`]), the
//! handshake (`handshake`), the outbound queue (`outbound`), one loaded
//! extension and its read loop ([`extension`]), readiness (`ready`), the
//! command and tool registries (`registry`), the state the read loops and
//! the session share (`shared`), the manager of the loaded set (`manager`),
//! stopping one process (`stop`) and the whole set (`shutdown`).
//!
//! It may read the store (manifests, log paths) but never touches the
//! session: what a frame means for the conversation is the session's
//! business ([`crate::session`]), which uses this module, not the other way.
pub mod extension;
pub(crate) mod handshake;
pub(crate) mod manager;
pub(crate) mod outbound;
pub(crate) mod ready;
pub(crate) mod registry;
pub(crate) mod shared;
pub(crate) mod shutdown;
pub mod signals;
pub(crate) mod spawn;
pub(crate) mod stop;
pub mod supervise;
pub(crate) mod sweep;
