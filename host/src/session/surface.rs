//! What extensions show the user, by host mode (§14.4): notes and the
//! notes area, the open panel and the keys sent to it.

use std::sync::Arc;

use zot_protocol::{HostFrame, NotifyLevel, PanelClose, PanelKey, PanelKeyName};

use crate::config::HostMode;
use crate::process::extension::LoadedExtension;
use crate::session::engine::SessionEngine;
use crate::transcript::Observation;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SessionEngine {
    pub(crate) fn notify(&self, ext: &Arc<LoadedExtension>, level: &NotifyLevel, message: &str) {
        match self.mode() {
            HostMode::Interactive => {
                lock(&self.screen).notes.push(&ext.name, message);
                self.observe(Observation::Note {
                    ext: ext.name.clone(),
                    level: level.to_string(),
                    text: message.to_owned(),
                });
            }
            HostMode::Print | HostMode::Json => self.observe(Observation::Stderr {
                text: format!("[{}] {level}: {message}", ext.name),
            }),
            HostMode::Rpc => self.observe(Observation::Rpc {
                event: serde_json::json!({"type": "ext_notify", "extension": ext.name, "level": level, "message": message}),
            }),
        }
    }

    /// Clears the notes area (next prompt, `/clear`, shutdown, HOST-157)
    /// and reports the notes a flood had pushed out of it.
    pub(crate) fn clear_notes(&self) {
        let dropped = lock(&self.screen).notes.clear();
        for (ext, count) in dropped {
            self.observe(Observation::NotesDropped { ext, count });
        }
    }

    /// The notes of `ext` now in the notes area, oldest first.
    pub fn notes_of(&self, ext: &str) -> Vec<String> {
        lock(&self.screen).notes.shown(ext)
    }

    pub(crate) fn open_panel(&self, ext: &Arc<LoadedExtension>, spec: zot_protocol::PanelSpec) {
        let (displaced, shown) = {
            let mut screen = lock(&self.screen);
            let p = &mut screen.panels;
            let d = p.open(&ext.name, spec);
            (d, p.current().cloned())
        };
        if let Some(d) = displaced {
            if let Some(owner) = self.extensions.get(&d.ext) {
                let _ = owner.outbound.send(&HostFrame::PanelClose(PanelClose {
                    panel_id: d.id.clone(),
                }));
            }
            self.observe(Observation::PanelClosed {
                ext: d.ext,
                id: d.id,
                by: "replaced".into(),
            });
        }
        if let Some(p) = shown {
            self.observe(Observation::Panel {
                ext: p.ext.clone(),
                id: p.id.clone(),
                title: p.shown_title(),
                lines: p.lines.clone(),
                footer: p.footer.clone(),
                event: "open".into(),
            });
        }
    }

    pub(crate) fn panel_key(&self, key: &str, text: &str) {
        let current = lock(&self.screen).panels.current().cloned();
        let Some(p) = current else {
            return self.status("warn", format!("key {key}: no panel is open"));
        };
        let Some(owner) = self.extensions.get(&p.ext) else {
            return;
        };
        let k = key.to_ascii_lowercase();
        if k == "esc" || k == "ctrl+c" {
            // HOST-163: close instead of sending the key.
            lock(&self.screen).panels.close_by_user();
            let _ = owner.outbound.send(&HostFrame::PanelClose(PanelClose {
                panel_id: p.id.clone(),
            }));
            return self.observe(Observation::PanelClosed {
                ext: p.ext,
                id: p.id,
                by: "user".into(),
            });
        }
        let name = match PanelKeyName::from(k.as_str()) {
            PanelKeyName::Other(_) => PanelKeyName::Unknown,
            n => n,
        };
        let text = if name == PanelKeyName::Rune {
            text.to_owned()
        } else {
            String::new()
        };
        let _ = owner.outbound.send(&HostFrame::PanelKey(PanelKey {
            panel_id: p.id,
            key: name,
            text,
        }));
    }

    /// The panel shown now.
    pub fn current_panel(&self) -> Option<crate::session::open_panels::OpenPanel> {
        lock(&self.screen).panels.current().cloned()
    }
}
