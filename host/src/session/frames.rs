//! What extension frames outside any request do to the session (§14.4):
//! notes, `submit`s, panels, `call_tool` and its cancel, each by host
//! mode; and every line read, offered to the script's waits.

use std::sync::Arc;

use zot_protocol::ExtFrame;

use crate::config::HostMode;
use crate::process::extension::{FrameHandler, LoadedExtension};
use crate::session::engine::SessionEngine;
use crate::session::input::Inbox;
use crate::transcript::Observation;

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl FrameHandler for SessionEngine {
    fn on_frame(&self, ext: &Arc<LoadedExtension>, frame: ExtFrame) {
        let interactive = self.mode().is_interactive();
        match frame {
            ExtFrame::Notify(n) => self.notify(ext, &n.level, &n.message),
            ExtFrame::ClearNotes => self.clear_ext_notes(ext),
            ExtFrame::Submit(s) => self.submit(ext, &s.text, false),
            ExtFrame::SubmitSlash(s) => self.submit(ext, &s.text, true),
            ExtFrame::OpenPanel(p) => {
                if interactive {
                    self.open_panel(ext, p.panel);
                }
            }
            ExtFrame::PanelRender(r) => {
                if interactive {
                    self.render_panel(ext, r);
                }
            }
            ExtFrame::PanelClose(c) => {
                let closed = lock(&self.screen)
                    .panels
                    .close_from_ext(&ext.name, &c.panel_id);
                if let Some(p) = closed {
                    self.observe(Observation::PanelClosed {
                        ext: p.ext,
                        id: p.id,
                        by: "extension".into(),
                    });
                }
            }
            ExtFrame::CallTool(c) => {
                if let Some(me) = self.arc() {
                    crate::session::tools::extension_calls::accept(me, ext.clone(), c);
                }
            }
            ExtFrame::CallToolCancel(c) => {
                if let Some(tok) = ext
                    .ext_calls
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&c.id)
                {
                    tok.cancel();
                }
            }
            other => tracing::debug!("unhandled frame {} from {}", other.type_name(), ext.name),
        }
    }

    fn on_disconnect(&self, ext: &Arc<LoadedExtension>) {
        lock(&self.screen).panels.drop_ext(&ext.name);
    }

    fn on_line(&self, ext: &Arc<LoadedExtension>, line: &[u8]) {
        self.waits.offer(&ext.name, line);
    }
}

impl SessionEngine {
    /// `clear_notes`: the extension's notes leave the notes area
    /// (interactive), or the RPC client is told.
    fn clear_ext_notes(&self, ext: &LoadedExtension) {
        match self.mode() {
            HostMode::Interactive => {
                let dropped = lock(&self.screen).notes.clear_ext(&ext.name);
                if dropped > 0 {
                    self.observe(Observation::NotesDropped {
                        ext: ext.name.clone(),
                        count: dropped,
                    });
                }
                self.observe(Observation::NotesCleared {
                    ext: ext.name.clone(),
                });
            }
            HostMode::Rpc => self.observe(Observation::Rpc {
                event: serde_json::json!({"type": "ext_clear_notes", "extension": ext.name}),
            }),
            _ => {}
        }
    }

    /// `submit` (a prompt) or `submit_slash` (a slash command): queued as
    /// input in interactive modes, refused and logged otherwise
    /// (HOST-160, HOST-161).
    fn submit(&self, ext: &Arc<LoadedExtension>, text: &str, slash: bool) {
        let mode = self.mode();
        let text = text.trim().to_owned();
        let frame = if slash { "submit_slash" } else { "submit" };
        if !mode.is_interactive() {
            ext.log
                .line(&format!("{frame} ignored in {} mode", mode.as_str()));
        } else if slash && !text.starts_with('/') {
            ext.log.line("submit_slash refused (not a slash command)");
        } else if slash {
            self.queue_prompt(ext, Inbox::SubmitSlash { text });
        } else if !text.is_empty() {
            self.queue_prompt(
                ext,
                Inbox::Submit {
                    ext: ext.name.clone(),
                    text,
                },
            );
        }
    }

    /// `panel_render`: shown when it names the extension's open panel
    /// (HOST-164, HOST-165).
    fn render_panel(&self, ext: &LoadedExtension, r: zot_protocol::PanelRender) {
        let shown = lock(&self.screen).panels.render(&ext.name, r).cloned();
        if let Some(p) = shown {
            self.observe(Observation::Panel {
                ext: p.ext.clone(),
                id: p.id.clone(),
                title: p.shown_title(),
                lines: p.lines.clone(),
                footer: p.footer.clone(),
                event: "render".into(),
            });
        }
    }
}
