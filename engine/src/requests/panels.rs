//! Panel input routing: which registration of a panel's handlers the input
//! that arrives now belongs to.
//!
//! An SDK keeps a panel's handlers under a registration number it picks (a
//! fresh one whenever the handlers change) and tells the engine with
//! [`Engine::bind_panel`]. The reader stamps every `panel_key`,
//! `panel_resize` and `panel_close` with the number bound when the frame
//! *arrives*, and drops input for a panel with no handlers (SDK-46) without
//! handing out a job. A `panel_close` ends the binding as it arrives, so a
//! panel reopened afterwards under the same id is bound afresh and an older
//! close cannot end it. The SDK runs input only while its number is still
//! the panel's current registration (handlers replaced or forgotten since
//! make it stale): a comparison, the one rule left to each SDK.

use crate::runtime::fast_hash::FastMap;
use crate::{lock, Engine};

/// The panels that have handlers, by id.
#[derive(Debug, Default)]
pub(crate) struct PanelBindings(FastMap<String, u64>);

impl PanelBindings {
    pub(crate) fn bind(&mut self, panel_id: &str, registration: u64) {
        match self.0.get_mut(panel_id) {
            Some(current) => *current = registration,
            None => {
                self.0.insert(panel_id.to_owned(), registration);
            }
        }
    }

    pub(crate) fn unbind(&mut self, panel_id: &str) {
        self.0.remove(panel_id);
    }

    /// The registration a key or resize arriving now is for.
    pub(crate) fn input(&self, panel_id: &str) -> Option<u64> {
        self.0.get(panel_id).copied()
    }

    /// The registration a close arriving now is for; the close ends it.
    pub(crate) fn close(&mut self, panel_id: &str) -> Option<u64> {
        self.0.remove(panel_id)
    }
}

impl Engine {
    /// Routes input for `panel_id` to the handlers the SDK registered as
    /// `registration` (replacing an earlier binding of the panel). Input
    /// jobs carry the registration bound when their frame arrived.
    pub fn bind_panel(&self, panel_id: &str, registration: u64) {
        lock(&self.inner.state).panels.bind(panel_id, registration);
    }

    /// Forgets `panel_id`'s handlers: input arriving from now on is
    /// ignored (SDK-46).
    pub fn unbind_panel(&self, panel_id: &str) {
        lock(&self.inner.state).panels.unbind(panel_id);
    }
}
