//! The session: the conversation and everything that happens in it.
//!
//! Owns the session engine and its state ([`engine`]), the agent loop
//! ([`agent`]), the tool pipeline and the tools themselves ([`tools`]),
//! interception chains ([`intercept`]), lifecycle events ([`events`]),
//! slash commands ([`commands`]), panels and notes ([`panels`], [`notes`]),
//! the observation budget ([`observe`]), what a person does by hand
//! ([`by_hand`]), the session script ([`script`]) and the frames its waits
//! look for ([`waits`]).
//!
//! It talks to extensions only through [`crate::process`] (the manager, a
//! loaded extension's outbound queue and replies) and keeps durable results
//! in [`crate::store`]. It may not touch the CLI, the inspector or the dev
//! loop, which drive it from above; [`crate::process`] and [`crate::store`]
//! never reach back into it.

pub mod agent;
pub mod by_hand;
pub mod commands;
pub mod engine;
pub mod events;
pub mod intercept;
pub mod notes;
pub mod observe;
pub mod panels;
pub mod script;
pub mod tools;
pub mod waits;

pub use engine::{run_script, Retained, RunOptions, RunOutcome, MAX_QUEUED_PROMPTS};
