//! The session's start: the engine starts; nothing but the host's
//! `hello_ack` can arrive first; the on-hello hooks run (and may register
//! more), then everything is registered with the engine and announced.

use std::collections::VecDeque;
use std::sync::Arc;

use zot_protocol::values::INTERCEPTABLE_EVENT_NAMES;

use super::builder::{Extension, Handlers, HelloFn, Registrar, Tables};
use super::handle::{ExtHandle, HostInfo};
use super::RunError;
use crate::engine::runtime::panic;
use crate::engine::session::registration::Registrations;
use crate::engine::{Engine, Job, Transport};

/// A session past its handshake.
pub(super) struct Started {
    pub(super) engine: Engine,
    /// The handlers, as registered with the engine.
    pub(super) tables: Arc<Tables>,
    pub(super) handle: ExtHandle,
    /// The jobs that came after `hello_ack` in its batch.
    pub(super) pending: VecDeque<Job>,
}

/// Starts the engine on `transport` and completes the handshake; `None`
/// when the session ended cleanly before it.
pub(super) async fn start(
    ext: Extension,
    transport: Transport,
) -> Result<Option<Started>, RunError> {
    let (mut handlers, handle) = (ext.handlers, ext.handle);
    if !handlers.errors.is_empty() {
        return Err(RunError::Register(handlers.errors.join("; ")));
    }
    let engine = Engine::start(ext.config, transport).map_err(RunError::Engine)?;
    if handle.shared.engine.set(engine.clone()).is_err() {
        return Err(RunError::AlreadyRunning);
    }
    handle.bind_panels(&engine);
    let pending = match handshake(&engine, &mut handlers, ext.hello_hooks, &handle).await {
        Ok(pending) => pending,
        Err(error) => return ended(error).map(|()| None),
    };
    let tables = Arc::new(handlers.tables());
    Ok(Some(Started {
        engine,
        tables,
        handle,
        pending,
    }))
}

/// How a session that ended went: the engine's error, if any.
pub(super) fn ended(error: Option<String>) -> Result<(), RunError> {
    error.map_or(Ok(()), |e| Err(RunError::Session(e)))
}

/// Waits for `hello_ack` and completes the handshake; returns the jobs that
/// came after it in the same batch, or the session's end (its error) when
/// it ended first.
async fn handshake(
    engine: &Engine,
    handlers: &mut Handlers,
    hello_hooks: Vec<HelloFn>,
    handle: &ExtHandle,
) -> Result<VecDeque<Job>, Option<String>> {
    loop {
        let mut batch = engine.next_jobs().await.into_iter();
        while let Some(job) = batch.next() {
            match job {
                Job::Hello(ack) => {
                    run_hooks(HostInfo(ack), handlers, hello_hooks, handle);
                    announce(engine, handlers, handle);
                    return Ok(batch.collect());
                }
                Job::Finished { error } => return Err(error),
                _ => {}
            }
        }
    }
}

/// Runs the on-hello hooks in order (a panicking one is logged), then logs
/// the registrations they got wrong.
fn run_hooks(info: HostInfo, handlers: &mut Handlers, hooks: Vec<HelloFn>, handle: &ExtHandle) {
    let _ = handle.shared.host.set(info.clone());
    let mut reg = Registrar { handlers, handle };
    for hook in hooks {
        if let Err(msg) = panic::call(|| hook(&info, &mut reg)) {
            handle.log(format!("on_hello hook panicked: {msg}"));
        }
    }
    for e in &handlers.errors {
        handle.log(format!("registration refused: {e}"));
    }
}

/// Registers everything with the engine, then announces it.
fn announce(engine: &Engine, handlers: &Handlers, handle: &ExtHandle) {
    // The engine logs what it refuses (the same line in every SDK).
    engine.register_all(Registrations {
        commands: handlers.commands.iter().map(|(c, _)| c.clone()).collect(),
        tools: handlers
            .tools
            .iter()
            .map(|(t, _)| (t.reg.clone(), t.schema_origin()))
            .collect(),
        events: handlers.events.iter().map(|(e, _)| e.clone()).collect(),
        intercepts: INTERCEPTABLE_EVENT_NAMES
            .iter()
            .zip(&handlers.intercepts)
            .filter(|(_, f)| f.is_some())
            .map(|(name, _)| (*name).to_owned())
            .collect(),
    });
    if let Err(e) = engine.hello_done() {
        handle.log(format!("handshake not completed: {e}"));
    }
}
