//! The state the manager, the read loops and the session share: the
//! configuration, the command and tool registries, the wire log and the
//! transcript, the id and notification counters, and the shutdown flag
//! with the background reapers it hurries.
//!
//! It knows no loaded extension: the read loop of one reaches the session
//! through the frame handler it was given
//! ([`crate::process::extension::FrameHandler`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::config::HostConfig;
use crate::process::registry::Registry;
use crate::transcript::Transcript;
use crate::wire::WireLog;

/// State shared by the manager, the read loops and the session engine.
pub struct Shared {
    /// Configuration.
    pub cfg: HostConfig,
    /// Command and tool registries.
    pub registry: Mutex<Registry>,
    /// Wire log, if any.
    pub wire: Option<WireLog>,
    /// Host-observable steps.
    pub transcript: Transcript,
    ids: AtomicU64,
    sequence: AtomicU64,
    shutting_down: AtomicBool,
    reapers: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    hurry: Mutex<tokio_util::sync::CancellationToken>,
}

impl Shared {
    /// Nothing loaded yet, not shutting down.
    pub fn new(cfg: HostConfig, wire: Option<WireLog>, transcript: Transcript) -> Self {
        Self {
            cfg,
            registry: Mutex::default(),
            wire,
            transcript,
            ids: AtomicU64::new(0),
            sequence: AtomicU64::new(0),
            shutting_down: AtomicBool::new(false),
            reapers: Mutex::default(),
            hurry: Mutex::default(),
        }
    }

    /// Whether shutdown (or a reload's stop phase) is in progress.
    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }

    /// Enters (or, after a reload's stop phase, leaves) shutdown.
    pub(crate) fn set_shutting_down(&self, on: bool) {
        self.shutting_down.store(on, Ordering::SeqCst);
    }

    /// Tracks a background reaper of a disconnected extension; shutdown
    /// hurries and awaits it, so no process outlives the host.
    pub fn add_reaper(&self, h: tokio::task::JoinHandle<()>) {
        let mut reapers = self.reapers.lock().unwrap_or_else(|e| e.into_inner());
        // Finished ones have nothing left to await (a long session with
        // many reloads would otherwise keep every handle).
        reapers.retain(|r| !r.is_finished());
        reapers.push(h);
    }

    /// Cancelled when shutdown wants lingering disconnected processes gone now.
    pub fn hurry_token(&self) -> tokio_util::sync::CancellationToken {
        self.hurry.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Hurries every background reaper and waits for them to finish.
    pub(crate) async fn finish_reapers(&self) {
        let token = std::mem::take(&mut *self.hurry.lock().unwrap_or_else(|e| e.into_inner()));
        token.cancel();
        let handles: Vec<_> =
            std::mem::take(&mut *self.reapers.lock().unwrap_or_else(|e| e.into_inner()));
        for h in handles {
            let _ = h.await;
        }
    }

    /// A new correlation id, unique in the host process (HOST-45).
    pub fn next_id(&self) -> String {
        (self.ids.fetch_add(1, Ordering::SeqCst) + 1).to_string()
    }

    /// The next notification sequence number (starts at 1, HOST-126).
    pub fn next_sequence(&self) -> u64 {
        self.sequence.fetch_add(1, Ordering::SeqCst) + zot_protocol::limits::FIRST_SEQUENCE
    }
}
