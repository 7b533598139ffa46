//! What the engine needs from the process it runs in: supervised tasks,
//! caught panics, signals left to the language runtime, logging to stderr,
//! and a cheap hasher for its maps.

pub mod fast_hash;
pub mod log;
pub mod panic;
pub mod signals;
pub(crate) mod task;
