//! Panel input handlers: registered per panel id on [`ExtHandle`], run by
//! the serial lane.
//!
//! Each registration of a panel's handlers gets a fresh number, bound in
//! the engine (`bind_panel`), which stamps input with the number bound when
//! it arrived and drops input for panels without handlers. Input runs only
//! while its number is still the panel's current registration: handlers
//! replaced, forgotten or closed since make it stale.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use zot_protocol::{PanelKey, PanelResize};

use super::handle::ExtHandle;
use crate::engine::{runtime::panic, Engine};
use crate::lock;

type KeyFn = Box<dyn FnMut(&PanelKey) + Send>;
type CloseFn = Box<dyn FnMut() + Send>;
type ResizeFn = Box<dyn FnMut(&PanelResize) + Send>;

/// One registration of a panel's handlers. Each handler has its own lock,
/// held only while it runs: a handler may register handlers for its own
/// panel (the new registration shares the others without locking them).
#[derive(Default, Clone)]
struct PanelHandlers {
    on_key: Option<Arc<Mutex<KeyFn>>>,
    on_close: Option<Arc<Mutex<CloseFn>>>,
    on_resize: Option<Arc<Mutex<ResizeFn>>>,
}

/// The current registration of each panel, and the last number given.
#[derive(Default)]
pub(crate) struct Panels {
    by_id: HashMap<String, (u64, PanelHandlers)>,
    last: u64,
}

impl Panels {
    /// The handlers of `registration` if it is still `panel_id`'s current one.
    fn current(&self, panel_id: &str, registration: u64) -> Option<PanelHandlers> {
        match self.by_id.get(panel_id) {
            Some((r, handlers)) if *r == registration => Some(handlers.clone()),
            _ => None,
        }
    }
}

impl ExtHandle {
    /// Replaces the panel's registration with `change` applied to a copy
    /// of it, under a fresh number bound in the engine (once it runs; see
    /// [`ExtHandle::bind_panels`]). The engine is told under the lock, so
    /// bindings reach it in the order they were made.
    fn set_panel(&self, panel_id: &str, change: impl FnOnce(&mut PanelHandlers)) {
        let mut panels = lock(&self.shared.panels);
        let mut fresh = panels
            .by_id
            .get(panel_id)
            .map(|(_, h)| h.clone())
            .unwrap_or_default();
        change(&mut fresh);
        panels.last += 1;
        let registration = panels.last;
        panels
            .by_id
            .insert(panel_id.to_owned(), (registration, fresh));
        if let Some(engine) = self.shared.engine.get() {
            engine.bind_panel(panel_id, registration);
        }
    }

    /// Binds the panels registered before the engine started.
    pub(crate) fn bind_panels(&self, engine: &Engine) {
        let panels = lock(&self.shared.panels);
        for (panel_id, (registration, _)) in &panels.by_id {
            engine.bind_panel(panel_id, *registration);
        }
    }

    /// Routes `panel_key` frames for `panel_id` to `on_key` (in arrival
    /// order, one at a time), replacing an earlier key handler. Keys for
    /// panels without a handler are ignored (SDK-46).
    pub fn on_panel_key(&self, panel_id: &str, on_key: impl FnMut(&PanelKey) + Send + 'static) {
        self.set_panel(panel_id, |p| {
            p.on_key = Some(Arc::new(Mutex::new(Box::new(on_key))));
        });
    }

    /// Calls `on_close` when the host closes `panel_id` (Esc / Ctrl+C);
    /// the panel's handlers are forgotten afterwards.
    pub fn on_panel_close(&self, panel_id: &str, on_close: impl FnMut() + Send + 'static) {
        self.set_panel(panel_id, |p| {
            p.on_close = Some(Arc::new(Mutex::new(Box::new(on_close))));
        });
    }

    /// Routes `panel_resize` frames for `panel_id` (no stored host sends
    /// them; OP-14).
    pub fn on_panel_resize(
        &self,
        panel_id: &str,
        on_resize: impl FnMut(&PanelResize) + Send + 'static,
    ) {
        self.set_panel(panel_id, |p| {
            p.on_resize = Some(Arc::new(Mutex::new(Box::new(on_resize))));
        });
    }

    /// Forgets every handler of `panel_id`.
    pub fn forget_panel(&self, panel_id: &str) {
        let mut panels = lock(&self.shared.panels);
        panels.by_id.remove(panel_id);
        if let Some(engine) = self.shared.engine.get() {
            engine.unbind_panel(panel_id);
        }
    }

    fn current_panel(&self, panel_id: &str, registration: u64) -> Option<PanelHandlers> {
        lock(&self.shared.panels).current(panel_id, registration)
    }

    pub(crate) fn dispatch_key(&self, registration: u64, key: &PanelKey) -> Result<(), String> {
        // The registration's lock is not held while the handler runs.
        let f = self.current_panel(&key.panel_id, registration);
        match f.and_then(|p| p.on_key) {
            Some(f) => panic::call(|| (lock(&f))(key)),
            None => Ok(()),
        }
    }

    /// The close ends the registration it is for (the engine unbound it
    /// when it arrived); a newer registration of the same id stays.
    pub(crate) fn dispatch_close(&self, registration: u64, panel_id: &str) -> Result<(), String> {
        let closed = {
            let mut panels = lock(&self.shared.panels);
            let closed = panels.current(panel_id, registration);
            if closed.is_some() {
                panels.by_id.remove(panel_id);
            }
            closed
        };
        match closed.and_then(|p| p.on_close) {
            Some(f) => panic::call(|| (lock(&f))()),
            None => Ok(()),
        }
    }

    pub(crate) fn dispatch_resize(&self, registration: u64, r: &PanelResize) -> Result<(), String> {
        let f = self.current_panel(&r.panel_id, registration);
        match f.and_then(|p| p.on_resize) {
            Some(f) => panic::call(|| (lock(&f))(r)),
            None => Ok(()),
        }
    }
}
