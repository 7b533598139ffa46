//! The session's start: nothing but the host's `hello_ack` can arrive
//! first; the on-hello hooks run (and may register more), then everything
//! is registered with the engine and announced.

use std::collections::VecDeque;

use zot_protocol::values::INTERCEPTABLE_EVENT_NAMES;

use super::builder::{Handlers, HelloFn, Registrar};
use super::handle::{ExtHandle, HostInfo};
use crate::engine::panic;
use crate::engine::registration::Registrations;
use crate::engine::{Engine, Job};

/// Waits for `hello_ack` and completes the handshake; returns the jobs that
/// came after it in the same batch, or the session's end (its error) when
/// it ended first.
pub(super) async fn handshake(
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
