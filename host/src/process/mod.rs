//! Extension processes and the connection to each.
//!
//! Owns spawning (`spawn`), supervising a process and what it started
//! ([`supervise`], `sweep`), the host's own interrupts ([`interrupts`]),
//! the handshake (`hello`), the outbound queue (`outbound`), one loaded
//! extension and its read loop ([`extension`]), readiness (`ready`), the
//! command and tool registries (`registry`), the state the read loops and
//! the session share (`shared`), the manager of the loaded set (`manager`),
//! stopping one process (`stop`) and the whole set (`stop_all`).
//!
//! It may read the store (manifests, log paths) but never touches the
//! session: what a frame means for the conversation is the session's
//! business ([`crate::session`]), which uses this module, not the other way.
pub mod extension;
pub(crate) mod hello;
pub mod interrupts;
pub(crate) mod manager;
pub(crate) mod outbound;
pub(crate) mod ready;
pub(crate) mod registry;
pub(crate) mod shared;
pub(crate) mod spawn;
pub(crate) mod stop;
pub(crate) mod stop_all;
pub mod supervise;
pub(crate) mod sweep;
