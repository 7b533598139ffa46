//! # zot-host
//!
//! The reference host of the zot extension protocol (v1): it discovers,
//! spawns and talks to extensions exactly as `docs/protocol.md`
//! describes, and drives them with a scripted session engine standing in for
//! the model (see `SCRIPT.md`).
//!
//! Layers, bottom up:
//! - [`discovery`], [`manifest`], [`name`]: what to load (shared with the
//!   `ext` CLI); every extension name is checked once, by [`name`].
//! - [`cli`]: `zot-host ext ...` (list, doctor, install, remove, enable,
//!   disable, logs, update) on top of discovery and the manager.
//! - [`spawn`], [`supervise`], [`sweep`], [`handshake`], [`outbound`],
//!   [`extension`], [`ready`], [`registry`], [`manager`], [`shutdown`],
//!   [`signals`]: the extension manager and the processes it supervises.
//! - [`events`], [`intercept`], [`tools`], [`call_tool`], [`commands`],
//!   [`panels`], [`notes`], [`observe`]: protocol features used by the session.
//! - [`session`], [`agent`], [`builtin`], [`script`], [`waits`], [`durable`]:
//!   the scripted session engine, its agent loop, the frames scripted waits
//!   look for and continuous-mode storage.
//! - [`direct`]: what a person does besides prompting (direct tool calls,
//!   fired events and interceptions, stub tools answered by hand).
//! - [`transcript`], [`wire`]: what the user sees and the wire log.
//! - [`live`]: the session engine driven live by a person (`zot-host
//!   inspect`), recorded as a script; [`inspect`] serves it as a web page
//!   (`inspect` feature, on by default).

#![warn(missing_docs)]

pub mod agent;
pub mod builtin;
pub mod call_tool;
pub mod cli;
pub mod commands;
pub mod config;
pub mod dev;
pub mod direct;
pub mod discovery;
pub mod durable;
pub mod events;
pub mod extension;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod handshake;
#[cfg(feature = "inspect")]
pub mod inspect;
pub mod intercept;
pub mod live;
pub mod manager;
pub mod manifest;
pub mod model;
pub mod name;
pub mod notes;
pub mod observe;
pub mod outbound;
pub mod panels;
pub mod private_fs;
pub mod ready;
pub mod registry;
pub mod scaffold;
pub mod script;
pub mod session;
pub mod shutdown;
pub mod signals;
pub mod spawn;
pub mod supervise;
pub mod sweep;
pub mod tool_run;
pub mod tools;
pub mod transcript;
pub mod util;
pub mod waits;
pub mod wire;

pub use config::{HostConfig, HostMode, QueueLimits, Timeouts};
pub use manager::Manager;
pub use script::Script;
pub use session::{run_script, Retained, RunOptions, RunOutcome};
