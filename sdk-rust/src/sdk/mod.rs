//! The Rust SDK on top of the engine: a builder of handlers and a
//! dispatcher that runs them.

mod builder;
mod ctx;
mod dispatch;
mod error;
mod handle;
mod handshake;
mod note;
mod panels;
mod registrations;
mod results;
mod routes;
mod run;
mod serial;
mod tool_spec;

pub use builder::{Event, Extension, Registrar};
pub use ctx::Ctx;
pub use error::{Error, RunError};
pub use handle::{CallOptions, ExtHandle, HostInfo};
pub use note::NoteArgs;
pub use results::{
    HandlerResult, MessageVerdict, PromptVerdict, Response, ToolCallVerdict, ToolOutput,
    TurnVerdict,
};
pub use tool_spec::ToolSpec;

/// Protects stdout now, before [`Extension::run`]: the wire is set aside
/// for the engine and descriptor 1 (on Windows, the standard output handle)
/// points at stderr from here on, so output
/// printed while the extension loads (its own or a library's) lands in the
/// log instead of before `hello`, which the host would refuse. `run` does
/// the same anyway; call this first thing in `main` only if something may
/// print before it. Safe to call more than once.
///
/// ```no_run
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     zot_ext::protect_stdout()?;
///     println!("loading..."); // goes to the log, not to the host
///     zot_ext::Extension::new("demo", "1.0.0").run_blocking()?;
///     Ok(())
/// }
/// ```
pub fn protect_stdout() -> std::io::Result<()> {
    crate::engine::Transport::protect_stdio()
}
