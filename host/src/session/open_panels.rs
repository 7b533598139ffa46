//! Panels (§14.1, HOST-162..165, OP-13, OP-15): one extension panel at a
//! time; render/close frames apply only to the open panel of their sender.

use zot_protocol::{PanelRender, PanelSpec};

/// The panel currently shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenPanel {
    /// Owner.
    pub ext: String,
    /// Panel id.
    pub id: String,
    /// Title (empty → the extension name is shown).
    pub title: String,
    /// Body rows.
    pub lines: Vec<String>,
    /// Footer.
    pub footer: String,
}

impl OpenPanel {
    /// The title to show.
    pub fn shown_title(&self) -> String {
        if self.title.is_empty() {
            self.ext.clone()
        } else {
            self.title.clone()
        }
    }
}

/// The host's panel slot.
#[derive(Debug, Default)]
pub struct Panels {
    open: Option<OpenPanel>,
}

impl Panels {
    /// The open panel.
    pub fn current(&self) -> Option<&OpenPanel> {
        self.open.as_ref()
    }

    /// Opens a panel; returns the displaced one, whose owner must get a
    /// `panel_close` (OP-15).
    pub fn open(&mut self, ext: &str, spec: PanelSpec) -> Option<OpenPanel> {
        let new = OpenPanel {
            ext: ext.to_owned(),
            id: spec.id,
            title: spec.title,
            lines: spec.lines,
            footer: spec.footer,
        };
        let old = self.open.replace(new.clone());
        old.filter(|o| !(o.ext == new.ext && o.id == new.id))
    }

    /// Applies a `panel_render` from `ext` if it names the open panel
    /// (HOST-164/165); returns the updated panel.
    pub fn render(&mut self, ext: &str, r: PanelRender) -> Option<&OpenPanel> {
        let p = self
            .open
            .as_mut()
            .filter(|p| p.ext == ext && p.id == r.panel_id)?;
        if !r.title.is_empty() {
            p.title = r.title;
        }
        p.lines = r.lines;
        p.footer = r.footer;
        Some(p)
    }

    /// An extension's `panel_close`: closes only its own open panel.
    pub fn close_from_ext(&mut self, ext: &str, id: &str) -> Option<OpenPanel> {
        if self
            .open
            .as_ref()
            .is_some_and(|p| p.ext == ext && p.id == id)
        {
            self.open.take()
        } else {
            None
        }
    }

    /// The user closed the panel (Esc / Ctrl+C).
    pub fn close_by_user(&mut self) -> Option<OpenPanel> {
        self.open.take()
    }

    /// Drops the panel of a disconnected extension.
    pub fn drop_ext(&mut self, ext: &str) -> Option<OpenPanel> {
        if self.open.as_ref().is_some_and(|p| p.ext == ext) {
            self.open.take()
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: &str) -> PanelSpec {
        PanelSpec {
            id: id.into(),
            title: "T".into(),
            lines: vec!["0".into()],
            footer: String::new(),
        }
    }

    #[test]
    fn render_only_for_owner_and_open_id() {
        let mut p = Panels::default();
        assert!(p.open("a", spec("p1")).is_none());
        let r = PanelRender {
            panel_id: "p1".into(),
            lines: vec!["1".into()],
            ..Default::default()
        };
        assert!(p.render("b", r.clone()).is_none());
        let cur = p.render("a", r).unwrap();
        assert_eq!(cur.title, "T");
        assert_eq!(cur.lines, vec!["1"]);
        assert!(p.close_from_ext("a", "other").is_none());
        let displaced = p.open("b", spec("p2")).unwrap();
        assert_eq!(displaced.ext, "a");
    }
}
