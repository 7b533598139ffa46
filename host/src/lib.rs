//! # zot-host
//!
//! The reference host of the zot extension protocol (v1): it discovers,
//! spawns and talks to extensions exactly as `docs/protocol.md`
//! describes, and drives them with a scripted session engine standing in for
//! the model (see `SCRIPT.md`).
//!
//! The crate, bottom up:
//! - [`store`]: what is on disk (discovery, manifests, extension names,
//!   private files, continuous-mode storage).
//! - [`process`]: extension processes and the connection to each (spawn,
//!   supervise, handshake, outbound queue, readiness, registries, the
//!   manager, shutdown, signals).
//! - [`session`]: the scripted session engine, its agent loop, the tool
//!   pipeline, interception, events, commands, panels, notes and the script.
//! - [`transcript`], [`wire`]: what the user sees and the wire log.
//! - [`model`]: the live model (an OpenAI-compatible chat API) standing in
//!   for the scripted one.
//! - [`live`]: the session engine driven live by a person (`zot-host
//!   inspect`), recorded as a script; [`inspect`] serves it as a web page
//!   (`inspect` feature, on by default); [`dev`] is `zot-host dev`.
//! - [`cli`]: `zot-host ext ...` (list, doctor, install, remove, enable,
//!   disable, logs, update); [`scaffold`]: `zot-host new`.
//! - [`embed`]: one extension loaded without a model, its tools and
//!   commands called by another program (`zot-mcp serve`).
//! - [`config`], `deadline`, `util`: host configuration, deadlines on a
//!   peer counted while the host runs, and small helpers.

#![warn(missing_docs)]

pub mod cli;
pub mod config;
pub(crate) mod deadline;
pub mod dev;
pub mod embed;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "inspect")]
pub mod inspect;
pub mod live;
pub mod model;
pub mod process;
pub mod scaffold;
pub mod session;
pub mod store;
pub mod transcript;
pub(crate) mod util;
pub mod wire;

pub use config::{HostConfig, HostMode, QueueLimits, Timeouts};
pub use process::manager::Manager;
pub use session::script::Script;
pub use session::{run_script, Retained, RunOptions, RunOutcome};
