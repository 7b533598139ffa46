//! What the user sees besides the transcript, under one lock: the open
//! panel (and those it replaced), the notes area, the editor's text.

use crate::session::notes::Notes;
use crate::session::open_panels::Panels;

/// The screen's state (the session engine holds it in one mutex).
#[derive(Default)]
pub(crate) struct Screen {
    /// Open panels.
    pub(crate) panels: Panels,
    /// The notes area.
    pub(crate) notes: Notes,
    /// The editor's text (`insert` actions append to it).
    pub(crate) editor: String,
}
