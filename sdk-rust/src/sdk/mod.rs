//! The Rust SDK on top of the engine: a builder of handlers and a
//! dispatcher that runs them.

mod builder;
mod ctx;
mod dispatch;
mod handle;
mod panic;
mod results;
mod tool_spec;

pub use builder::{Event, Extension, Registrar};
pub use ctx::Ctx;
pub use handle::{CallOptions, ExtHandle, HostInfo};
pub use results::{
    Error, HandlerResult, MessageVerdict, PromptVerdict, Response, ToolCallVerdict, ToolOutput,
    TurnVerdict,
};
pub use tool_spec::ToolSpec;

/// Why [`Extension::run`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// A handler was registered with an invalid name, exposure or schema.
    #[error("invalid registration: {0}")]
    Register(String),
    /// stdin/stdout could not be set up.
    #[error("i/o error: {0}")]
    Io(String),
    /// The engine could not start.
    #[error("{0}")]
    Engine(String),
    /// The session failed (handshake or transport).
    #[error("{0}")]
    Session(String),
}
