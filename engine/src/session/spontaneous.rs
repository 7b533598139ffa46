//! Frames the extension sends on its own (SDK-47): notes, submitted
//! prompts and panels. Held until `ready` when sent before it.

use zot_protocol::limits::MAX_FRAME_BYTES;
use zot_protocol::{ExtFrame, Frame, NotifyLevel, PanelClose, PanelRender, PanelSpec, Submit};

use crate::wire::writer::{WriteError, WriteLane};
use crate::{lock, Engine, Phase, SendError};

impl Engine {
    /// Sends a spontaneous frame: `notify`, `clear_notes`, `submit`,
    /// `submit_slash`, `open_panel`, `panel_render` or `panel_close`
    /// (SDK-47). Frames sent before the handshake is announced are held and
    /// follow `ready`. A frame over 4 MiB is refused.
    pub fn send(&self, frame: ExtFrame) -> Result<(), SendError> {
        match &frame {
            ExtFrame::Notify(_)
            | ExtFrame::ClearNotes
            | ExtFrame::Submit(_)
            | ExtFrame::SubmitSlash(_)
            | ExtFrame::OpenPanel(_)
            | ExtFrame::PanelRender(_)
            | ExtFrame::PanelClose(_) => {}
            other => return Err(SendError::NotSpontaneous(other.type_name().to_owned())),
        }
        if lock(&self.inner.state).phase == Phase::Finished {
            return Err(SendError::Write(WriteError::Closed));
        }
        Ok(self.inner.write_frame(&frame, WriteLane::Spontaneous)?)
    }

    /// [`Engine::send`] with the frame as JSON (e.g.
    /// `{"type":"notify","level":"info","message":"hi"}`).
    pub fn send_json(&self, json: &str) -> Result<(), SendError> {
        if json.len() > MAX_FRAME_BYTES {
            return Err(SendError::Write(WriteError::TooLarge {
                len: json.len() + 1,
                limit: MAX_FRAME_BYTES,
            }));
        }
        let frame = ExtFrame::decode_str(json).map_err(|e| SendError::Invalid(e.to_string()))?;
        self.send(frame)
    }

    /// Sends `notify`.
    pub fn notify(&self, level: NotifyLevel, message: impl Into<String>) -> Result<(), SendError> {
        self.send(ExtFrame::Notify(zot_protocol::Notify {
            level,
            message: message.into(),
        }))
    }

    /// Sends `clear_notes`.
    pub fn clear_notes(&self) -> Result<(), SendError> {
        self.send(ExtFrame::ClearNotes)
    }

    /// Sends `submit`.
    pub fn submit(&self, text: impl Into<String>) -> Result<(), SendError> {
        self.send(ExtFrame::Submit(Submit { text: text.into() }))
    }

    /// Sends the spontaneous `open_panel`.
    pub fn open_panel(&self, panel: PanelSpec) -> Result<(), SendError> {
        self.send(ExtFrame::OpenPanel(zot_protocol::OpenPanel { panel }))
    }

    /// Sends `panel_render`.
    pub fn render_panel(&self, render: PanelRender) -> Result<(), SendError> {
        self.send(ExtFrame::PanelRender(render))
    }

    /// Sends `panel_close`.
    pub fn close_panel(&self, panel_id: impl Into<String>) -> Result<(), SendError> {
        self.send(ExtFrame::PanelClose(PanelClose {
            panel_id: panel_id.into(),
        }))
    }
}
