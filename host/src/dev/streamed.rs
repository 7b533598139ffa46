//! A live model's streamed text at `dev`'s prompt, as it comes: line by
//! line (the prompt's printer takes whole lines), in the transcript's own
//! `zot ›` form, so that the turn's line that follows is not printed twice.

use crate::live::feed::ModelNote;
use crate::transcript::{Observation, Renderer};

use super::Print;

/// The text of the request under way, and of the last one that ended.
#[derive(Debug, Default)]
pub struct Streamed {
    /// The unfinished line.
    line: String,
    /// Lines printed for the request under way.
    printed: usize,
    /// Its whole text so far.
    text: String,
    /// The text of the last request, until its turn's line comes.
    ended: Option<String>,
}

impl Streamed {
    /// Prints what `note` completes.
    pub fn note(&mut self, note: &ModelNote, print: &Print, r: &Renderer) {
        match note {
            ModelNote::Text(t) => {
                self.text.push_str(t);
                self.line.push_str(t);
                while let Some(i) = self.line.find('\n') {
                    let line: String = self.line.drain(..=i).collect();
                    self.print_line(line.trim_end_matches(['\r', '\n']), print, r);
                }
            }
            ModelNote::Retrying(why) => print(r.render(&Observation::Status {
                level: "warn".into(),
                text: format!("model: {why}"),
            })),
            ModelNote::End => {
                if !self.line.is_empty() {
                    let line = std::mem::take(&mut self.line);
                    self.print_line(&line, print, r);
                }
                self.printed = 0;
                let text = std::mem::take(&mut self.text);
                self.ended = (!text.is_empty()).then_some(text);
            }
        }
    }

    fn print_line(&mut self, line: &str, print: &Print, r: &Renderer) {
        if self.printed == 0 {
            print(r.render(&Observation::Assistant { text: line.into() }));
        } else {
            print(format!("      {line}"));
        }
        self.printed += 1;
    }

    /// Whether `o` is the turn whose text was just streamed (already on
    /// screen). An interceptor that changed or hid it makes it differ: then
    /// it is printed as usual.
    pub fn shown(&mut self, o: &Observation) -> bool {
        match o {
            Observation::Assistant { text } => self.ended.take().is_some_and(|t| t == *text),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn text_is_printed_by_line_and_its_turn_is_not_printed_again() {
        let out = Arc::new(Mutex::new(Vec::<String>::new()));
        let o = out.clone();
        let print: Print = Arc::new(move |s| o.lock().unwrap().push(s));
        let r = Renderer::new(false);
        let mut s = Streamed::default();
        for piece in ["Two li", "nes:\nfirst", "\r\nsecond"] {
            s.note(&ModelNote::Text(piece.into()), &print, &r);
        }
        assert_eq!(*out.lock().unwrap(), ["zot › Two lines:", "      first"]);
        s.note(&ModelNote::End, &print, &r);
        assert_eq!(out.lock().unwrap()[2], "      second");
        let turn = |text: &str| Observation::Assistant { text: text.into() };
        assert!(s.shown(&turn("Two lines:\nfirst\r\nsecond")));
        // Only once; and a turn changed by an interceptor is printed.
        assert!(!s.shown(&turn("Two lines:\nfirst\r\nsecond")));
        s.note(&ModelNote::Text("hi".into()), &print, &r);
        s.note(&ModelNote::End, &print, &r);
        assert!(!s.shown(&turn("[redacted]")));
    }
}
