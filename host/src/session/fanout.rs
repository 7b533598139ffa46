//! The session's fan-out: every observation to the transcript, and every
//! lifecycle notification (§12, HOST-124..126) stamped with the session's id
//! and cwd and the manager's one sequence, to each subscriber.
//!
//! The sequence starts at 1 and increases with every notification (whether
//! or not anyone subscribed, so gaps prove nothing); an event is enqueued
//! to every connected subscriber in load order without waiting. The part
//! owns where the session is (its id and cwd), which every event carries.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use zot_protocol::{HostFrame, LifecycleEvent};

use crate::process::manager::Manager;
use crate::transcript::Observation;

/// Where the session is: what every event it emits names.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    /// Session id.
    pub(crate) session_id: String,
    /// Working directory.
    pub(crate) cwd: PathBuf,
}

/// Observations and lifecycle events of one session.
pub(crate) struct Fanout {
    mgr: Arc<Manager>,
    place: Mutex<Place>,
}

impl Fanout {
    /// A fan-out for a session at `place`, through `mgr`'s extensions.
    pub(crate) fn new(mgr: Arc<Manager>, place: Place) -> Self {
        Self {
            mgr,
            place: Mutex::new(place),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Place> {
        self.place.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Where the session is now.
    pub(crate) fn place(&self) -> Place {
        self.lock().clone()
    }

    /// The session's working directory.
    pub(crate) fn cwd(&self) -> PathBuf {
        self.lock().cwd.clone()
    }

    /// The session's id.
    pub(crate) fn session_id(&self) -> String {
        self.lock().session_id.clone()
    }

    /// The session moves (a session switch): later events name `place`.
    pub(crate) fn move_to(&self, place: Place) {
        *self.lock() = place;
    }

    /// Records what a user of the host would see.
    pub(crate) fn observe(&self, o: Observation) {
        self.mgr.shared().transcript.push(o);
    }

    /// A status line.
    pub(crate) fn status(&self, level: &str, text: impl Into<String>) {
        self.observe(Observation::Status {
            level: level.into(),
            text: text.into(),
        });
    }

    /// Emits a lifecycle event with the session's common fields.
    pub(crate) fn emit(&self, ev: LifecycleEvent) {
        let (sid, cwd) = {
            let p = self.lock();
            (p.session_id.clone(), p.cwd.display().to_string())
        };
        deliver(&self.mgr, &sid, &cwd, ev);
    }
}

/// Stamps the common fields and enqueues the event to every connected
/// subscriber in load order.
fn deliver(mgr: &Manager, session_id: &str, cwd: &str, mut ev: LifecycleEvent) {
    let seq = mgr.shared().next_sequence();
    ev.set_common(session_id, cwd, seq);
    let name = ev.name();
    let frame = HostFrame::Event(ev);
    for ext in mgr.connected() {
        if ext.subscribed(name) {
            // An overflow closes the queue, which disconnects the extension
            // (HOST-151); nothing is skipped silently.
            if let Err(e) = ext.outbound.send(&frame) {
                tracing::debug!("event {name} to {}: {e}", ext.name);
                let reason = ext.outbound.close_reason().unwrap_or_else(|| e.to_string());
                ext.disconnect(mgr.shared(), &reason);
            }
        }
    }
}
