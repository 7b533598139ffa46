//! The notes area under the transcript in interactive mode (§14.2,
//! HOST-156..158): what `notify` and `display` put there, per extension.
//! Notes are one-shot: they go when the user sends the next prompt, on
//! `/clear`, and (one extension's) on its `clear_notes`.
//!
//! A screen shows a handful of notes, so the area keeps the last
//! [`MAX_NOTES_PER_EXT`] of each extension: an extension that floods
//! `notify` pushes its own older notes out (never another extension's), and
//! how many went is counted and reported when the notes are cleared. Every
//! note is still printed as it arrives; only the area is bounded.

use std::collections::{BTreeMap, VecDeque};

/// Notes of one extension the area holds at most.
pub const MAX_NOTES_PER_EXT: usize = 100;

#[derive(Debug, Default)]
struct ExtNotes {
    shown: VecDeque<String>,
    dropped: u64,
}

/// The notes area.
#[derive(Debug, Default)]
pub struct Notes {
    by_ext: BTreeMap<String, ExtNotes>,
}

impl Notes {
    /// Adds a note of `ext`; beyond [`MAX_NOTES_PER_EXT`] its oldest goes.
    pub fn push(&mut self, ext: &str, text: &str) {
        let notes = match self.by_ext.get_mut(ext) {
            Some(n) => n,
            None => self.by_ext.entry(ext.to_owned()).or_default(),
        };
        if notes.shown.len() == MAX_NOTES_PER_EXT {
            notes.shown.pop_front();
            notes.dropped += 1;
        }
        notes.shown.push_back(text.to_owned());
    }

    /// Clears the notes of `ext` (`clear_notes`); returns how many of its
    /// notes had been pushed out since its notes were last cleared.
    pub fn clear_ext(&mut self, ext: &str) -> u64 {
        self.by_ext.remove(ext).map_or(0, |n| n.dropped)
    }

    /// Clears every note (next prompt, `/clear`, shutdown); returns, per
    /// extension in name order, how many notes had been pushed out, for
    /// those where any were.
    pub fn clear(&mut self) -> Vec<(String, u64)> {
        std::mem::take(&mut self.by_ext)
            .into_iter()
            .filter(|(_, n)| n.dropped > 0)
            .map(|(ext, n)| (ext, n.dropped))
            .collect()
    }

    /// The notes of `ext` now shown, oldest first.
    pub fn shown(&self, ext: &str) -> Vec<String> {
        self.by_ext
            .get(ext)
            .map(|n| n.shown.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// How many notes the area holds.
    pub fn len(&self) -> usize {
        self.by_ext.values().map(|n| n.shown.len()).sum()
    }

    /// Whether the area is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_notes_of_each_extension_and_counts_the_rest() {
        let mut n = Notes::default();
        n.push("quiet", "hello");
        for i in 0..MAX_NOTES_PER_EXT + 5 {
            n.push("loud", &i.to_string());
        }
        assert_eq!(n.len(), MAX_NOTES_PER_EXT + 1);
        assert_eq!(
            n.shown("quiet"),
            ["hello"],
            "a flood never pushes out another's notes"
        );
        let loud = n.shown("loud");
        assert_eq!(loud.first().map(String::as_str), Some("5"));
        assert_eq!(loud.last().map(String::as_str), Some("104"));
        assert_eq!(n.clear(), [("loud".to_owned(), 5)]);
        assert!(n.is_empty());
        n.push("loud", "again");
        assert_eq!(
            n.clear_ext("loud"),
            0,
            "the count starts over after a clear"
        );
    }
}
