//! # zot-ext
//!
//! Write extensions for zot in Rust, on the shared engine (the crate
//! `zot-ext-engine`, re-exported as [`engine`]) that the Node and Python
//! SDKs drive too.
//!
//! An extension is a subprocess that speaks newline-delimited JSON frames
//! with its host over stdin/stdout (docs/protocol.md). Two layers:
//!
//! - [`engine`] (the crate `zot-ext-engine`): one implementation of every
//!   extension-side rule of the protocol (handshake, dispatch decisions, ids, deadlines, cancellation,
//!   `call_tool` correlation, interception rules, the single writer,
//!   stdout protection, shutdown). Its interface carries plain data and
//!   opaque ids, so bindings for other languages drive it directly.
//! - The Rust SDK ([`Extension`], [`Ctx`], [`ToolOutput`], [`Response`],
//!   the verdicts, [`ExtHandle`]) on top of it, plus [`testing`] to drive
//!   an extension in-process from `cargo test`.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use zot_ext::{Ctx, Extension, Response, ToolOutput, ToolCallVerdict};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Greet {
//!     /// Who to greet.
//!     name: String,
//! }
//!
//! async fn greet(args: Greet, ctx: Ctx) -> Result<ToolOutput, zot_ext::Error> {
//!     if ctx.is_cancelled() {
//!         return Err(zot_ext::Error::msg("cancelled"));
//!     }
//!     Ok(ToolOutput::text(format!("Hello, {}!", args.name)))
//! }
//!
//! let ext = Extension::new("hello", "1.0.0")
//!     .command("hi", "Say hi", |args, _ctx| async move { Response::display(format!("hi {args}")) })
//!     .tool("greet", "Greet someone", greet)
//!     .intercept_tool_call(|call, _ctx| async move {
//!         if call.tool_name == "bash" && call.tool_args.get().contains("rm -rf") {
//!             ToolCallVerdict::block("not here")
//!         } else {
//!             ToolCallVerdict::Allow
//!         }
//!     });
//!
//! // In `fn main`: `ext.run_blocking()`. In a test, as its host:
//! let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
//! assert_eq!(host.command("hi", "there").await.unwrap().display, "hi there");
//! let r = host.tool("greet", serde_json::json!({"name": "Ada"})).await.unwrap();
//! assert_eq!(r.content[0].as_text(), Some("Hello, Ada!"));
//! # });
//! ```
//!
//! ## Design, and why
//!
//! **A pull model.** The engine never calls user code. A dispatcher — the
//! Rust SDK's, or a binding's loop in JavaScript or Python — pulls batches
//! of [`engine::Job`]s ([`engine::Engine::next_jobs`]) and answers each with
//! [`engine::Engine::complete`] (a failure is [`engine::Outcome::Failed`]);
//! cancellation is one more job. This is how Temporal's sdk-core serves its TypeScript
//! and Python SDKs, and it avoids what the push model (Rust calling foreign
//! callbacks through thread-safe functions) is known for: hangs, processes
//! that never exit, and lost cancellations. Because the engine owns every
//! decision — what a late, cancelled, failing or oversized answer means —
//! a hung or crashed handler in any language cannot wedge the protocol.
//!
//! **Lean per frame.** Each frame is decoded straight into its typed struct
//! (arguments stay JSON text, [`zot_protocol::RawJson`], until a handler
//! decodes them into its own type); everything read by the time the
//! dispatcher wakes up comes as one batch; replies are encoded and written
//! on the thread that produced them, flushing unless another frame is
//! already queued. So there is at most one thread handoff between reading
//! a frame and running its handler: none in the Rust SDK, whose
//! [`Extension::run_blocking`] uses a current-thread tokio runtime, one
//! into the JavaScript or Python thread for bindings.
//!
//! **Binding-friendly.** Jobs and outcomes are plain data ([`engine::Job`]
//! also converts to JSON with [`engine::Job::to_json`], a batch of answers
//! can be given as JSON with [`engine::binding::contract::complete_json`]); handles are
//! integers ([`engine::JobId`], [`engine::CallId`]). No global runtime is
//! assumed ([`engine::Engine::start_on`] takes a runtime handle). Non-tokio
//! event loops are woken through [`engine::Engine::wake_fd`] (Unix).
//! `call_tool` has a job form for bindings ([`engine::Engine::start_call`]:
//! the result arrives as a [`engine::Job::CallResult`]) next to the future
//! the Rust SDK awaits.
//!
//! ## The contracts
//!
//! - **Handshake** (§5, SDK-1..SDK-11): `hello` is the first stdout line and
//!   advertises the six capabilities of SDK-2; after `hello_ack` the
//!   on-hello hook runs ([`engine::Job::Hello`]) and may register more; then
//!   every `register_command`, every `register_tool`, one `subscribe`
//!   (events in first-registration order; interceptions in the order
//!   `before_agent_start`, `tool_call`, `turn_start`, `assistant_message`,
//!   the recommended reading of OP-21) and `ready`, once. Spontaneous frames
//!   sent before that are held and follow `ready`. Registrations after
//!   `ready` are written at once (OP-9).
//! - **Concurrency**: commands, tools and interceptors run concurrently;
//!   events and panel input run in arrival order, one at a time (SDK-35).
//!   Dispatchers must keep that second rule.
//! - **Cancellation** (§8): a tool's token exists from the moment its
//!   `tool_call` is read, so a `tool_cancel` that overtakes the dispatcher
//!   still delivers the job, already cancelled. No result is sent for a
//!   cancelled tool (SDK-23). Unknown or finished ids are ignored. Shutdown
//!   and EOF cancel every running job; cancelling a tool cancels its
//!   `call_tool`s.
//! - **Failures**: an error or panic becomes an error result (`is_error`
//!   tool result, command `error`, SDK-16/21). A failing interceptor blocks
//!   with the error as the reason (SDK-45; OP-32's reading), except
//!   `before_agent_start`, which cannot block and keeps the prompt. An
//!   interception answer later than the 5 s deadline is dropped. Non-object
//!   `modified_args` are ignored (OP-20). A reply over the 4 MiB frame
//!   limit is refused: the caller gets an error and the host an error reply.
//! - **`call_tool`** (§9): unique ids, `parent_id` from the calling tool,
//!   durable keys validated and sent only to `call_tool_durable` hosts, a
//!   60 s default deadline followed by `call_tool_cancel`, immediate failure
//!   when the host lacks `call_tool` (SDK-27), late host answers dropped
//!   (OP-28), outstanding calls failed on shutdown/EOF (OP-29).
//! - **stdout** belongs to the wire: [`engine::Transport::stdio`] keeps
//!   private duplicates of descriptors 0 and 1 and points descriptor 1 at
//!   stderr, so stray prints land in the extension's log. Logs
//!   ([`ExtHandle::log`], engine diagnostics) go to stderr as
//!   `[<name>] message` (through `tracing` when a subscriber is installed).
//! - **The end** (SDK-48/49): `shutdown` and EOF take one path — cancel all
//!   jobs, a grace of at most 500 ms for handlers to send their last frames
//!   (ending early once every job answered), flush, `shutdown_ack` (on
//!   `shutdown` only), [`engine::Job::Finished`]. With the stdio transport a
//!   watchdog exits the process 1.5 s after the end began, inside the host's
//!   2 s grace.
//! - **Panels**: `panel_key` / `panel_close` go to the handlers registered
//!   for that panel id; others are ignored (SDK-46). `esc` is accepted as a
//!   key (OP-13) and `panel_resize` is surfaced (OP-14).
//!
//! One caveat of the current-thread runtime: a handler that *blocks* its
//! thread (a long computation, blocking I/O) stalls the whole extension,
//! including reading `shutdown`. Run such work with
//! `tokio::task::spawn_blocking`.

#![warn(missing_docs)]

// The README's Rust blocks compile as doctests (they are what crates.io shows).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

/// The shared extension engine (the crate `zot-ext-engine`), which this
/// SDK and the Node and Python bindings drive.
pub use zot_ext_engine as engine;
mod sdk;
pub mod testing;

pub use sdk::*;

/// The lifecycle events' payloads, for [`Extension::on_event`]: one type
/// per event of the protocol (`zot-protocol`'s), each an [`EventPayload`]
/// naming its event.
///
/// [`EventPayload`]: events::EventPayload
pub mod events {
    pub use zot_protocol::{
        AssistantMessageEvent, EventPayload, LifecycleEvent, PermissionDecisionEvent,
        PostCompactEvent, PreCompactEvent, SessionEndEvent, SessionStartEvent, SubagentStartEvent,
        SubagentStopEvent, ToolCallEvent, ToolConfirmationRequestedEvent, ToolResultEvent,
        TurnEndEvent, TurnStartEvent, UnknownEvent, UserPromptSubmitEvent,
    };
}

/// The level of a note ([`Ctx::notify`]).
pub use zot_protocol::NotifyLevel;

/// The `schemars` (1.x) that tool schemas are derived with: a tool's
/// argument type implements *this* `JsonSchema`.
///
/// `cargo add schemars` picks 1.x too. A crate that needs another major
/// version for itself derives through the re-exports, which always match:
///
/// ```
/// use zot_ext::{schemars, serde};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(crate = "zot_ext::serde")]
/// #[schemars(crate = "zot_ext::schemars")]
/// struct Greet {
///     /// Who to greet.
///     name: String,
/// }
///
/// let spec = zot_ext::ToolSpec::new("greet", "Greet someone").schema_for::<Greet>();
/// assert!(spec.registration().schema.get().contains("Who to greet."));
/// ```
///
/// Its `preserve_order` feature is on (a tool schema lists the properties in
/// declaration order, the order the model reads them), which turns on
/// serde_json's: `serde_json::Map` keeps insertion order in the whole build.
pub use schemars;

/// The `serde` (1.x, `derive` on) that tool arguments are decoded with; see
/// [`schemars`](mod@schemars) for deriving through the re-exports.
pub use serde;

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, ignoring poisoning: the engine's state stays consistent
/// across a panicking user handler because handlers never hold its locks.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
