//! The session: the conversation and everything that happens in it.
//!
//! Owns the session engine and its state (`engine`), with what it does
//! split by concern: a script's steps (`steps`), the conversation and its
//! switches (`conversation`), what extension frames do to it (`frames`),
//! slash commands (`commands`), input waiting its turn (`input`), notes
//! and panels on screen (`surface`, over `screen`,
//! over the state of `panels` and [`notes`]); the conversation's messages
//! (`message`, a leaf the live model builds on too), the agent loop
//! (`agent`), the tool pipeline and the tools themselves (`tools`), the
//! payloads of `emit` / `intercept` steps (`payload`), interception chains
//! (`intercept`), lifecycle events (`events`), the observation budget
//! (`observe`), what a person does by hand (`by_hand`), the session script
//! ([`script`]) and the frames its waits look for ([`waits`]).
//!
//! It talks to extensions only through [`crate::process`] (the manager, a
//! loaded extension's outbound queue and replies) and keeps durable results
//! in [`crate::store`]. It may not touch the CLI, the inspector or the dev
//! loop, which drive it from above; [`crate::process`] and [`crate::store`]
//! never reach back into it.

pub(crate) mod agent;
pub(crate) mod by_hand;
pub(crate) mod commands;
pub(crate) mod conversation;
pub(crate) mod dialogue;
pub(crate) mod engine;
pub(crate) mod extensions;
pub(crate) mod fanout;
pub(crate) mod frames;
pub(crate) mod input;
pub(crate) mod intercept;
pub(crate) mod lifecycle;
pub(crate) mod message;
pub mod notes;
pub(crate) mod observe;
pub(crate) mod panels;
pub(crate) mod payload;
pub(crate) mod replies;
pub(crate) mod screen;
pub mod script;
pub(crate) mod steps;
pub(crate) mod surface;
pub(crate) mod tool_session;
pub(crate) mod tools;
pub mod waits;

pub use engine::{run_script, Retained, RunOptions, RunOutcome};
pub use input::MAX_QUEUED_PROMPTS;
