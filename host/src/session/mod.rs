//! The session: the conversation and everything that happens in it.
//!
//! Owns the session engine (`engine`: start and end, the parts it holds;
//! `run`: a run's options and outcome, the session opened for a script)
//! and its parts, each a struct in its own file with a
//! narrow interface: where the session is and what it tells the transcript
//! and the extensions (`fanout`), the conversation (`dialogue`), whether it
//! is active or closing (`lifecycle`), the model's replies (`replies`),
//! the loaded extensions as the session asks about them (`extensions`), the
//! screen (`screen`, over the state of `open_panels` and [`notes`]), input
//! waiting its turn (`input`) and the script's waits ([`waits`]).
//!
//! What the engine does is split by concern, each an `impl SessionEngine`
//! in its file: a script's steps (`steps`), the conversation's switches,
//! compaction and subagents (`conversation`), what extension frames do
//! (`frames`), slash commands (`commands`), notes and panels on screen
//! (`surface`), the agent loop (`agent`), what a person does by hand
//! (`by_hand`), and the engine as the tool pipeline sees it
//! (`tool_session`). The tool pipeline and the tools themselves are
//! `tools`; the conversation's messages `message` (a leaf the live model
//! builds on too); the payloads of `emit` / `intercept` steps `payload`;
//! interception chains `interception`; the observation budget `observe`; the
//! session script [`script`].
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
pub(crate) mod interception;
pub(crate) mod lifecycle;
pub(crate) mod message;
pub mod notes;
pub(crate) mod observe;
pub(crate) mod open_panels;
pub(crate) mod payload;
pub(crate) mod replies;
pub(crate) mod run;
pub(crate) mod screen;
pub mod script;
pub(crate) mod steps;
pub(crate) mod surface;
pub(crate) mod tool_session;
pub(crate) mod tools;
pub mod waits;

pub use input::MAX_QUEUED_PROMPTS;
pub use run::{run_script, Retained, RunOptions, RunOutcome};
