//! Lifecycle notifications (§12, HOST-124..126): one sequence per manager,
//! starting at 1 and increasing with every notification (whether or not
//! anyone subscribed, so gaps prove nothing), delivered only to subscribers
//! through their outbound queues without waiting.

use zot_protocol::{HostFrame, LifecycleEvent};

use crate::process::manager::Manager;

/// Stamps the common fields and enqueues the event to every connected
/// subscriber in load order. Returns the sequence number used.
pub fn emit(mgr: &Manager, session_id: &str, cwd: &str, mut ev: LifecycleEvent) -> u64 {
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
    seq
}
