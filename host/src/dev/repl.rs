//! What a line typed at `zot-host dev`'s prompt means, and how it
//! completes. Each action is a script step of the live session
//! ([`crate::live`]), so the REPL drives an extension exactly as
//! `zot-host inspect` and `zot-host run` do.

use std::sync::Arc;

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use serde_json::{json, Map, Value};
use zot_protocol::values::{PanelKeyName, INTERCEPTABLE_EVENT_NAMES, LIFECYCLE_EVENT_NAMES};

use crate::live::Live;

/// What a line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A script step (`command`, `call`, `emit`, `intercept`).
    Step(Map<String, Value>),
    /// A key for the open panel.
    Key {
        /// The key name.
        key: String,
        /// The typed text of a `rune`.
        text: String,
    },
    /// Cancel the running tool call.
    Cancel,
    /// Rebuild (when the language needs it) and restart now.
    Restart,
    /// Print the help.
    Help,
    /// Leave.
    Quit,
    /// An empty line.
    Nothing,
}

/// The words that start a line (besides `/command`).
pub const VERBS: [&str; 9] = [
    "prompt",
    "tool",
    "event",
    "intercept",
    "panel",
    "cancel",
    "restart",
    "help",
    "quit",
];

/// The help text, as a literal so that `zot-host dev --help` shows the same
/// lines (`help_text!()` in its `after_help`).
#[macro_export]
#[doc(hidden)]
macro_rules! help_text {
    () => {
        "  /NAME ARGS                 run a slash command
  prompt TEXT                a prompt for the model (a live one with --model-url, else the scripted one)
  tool NAME {JSON}           call a tool with these arguments (default {})
  event NAME {JSON}          send a lifecycle event with this payload (e.g. event turn_start {\"step\": 1})
  intercept NAME {JSON}      send an interception request through its chain
  panel KEY [TEXT]           a key for the open panel (up, down, enter, esc, rune TEXT; one character = rune)
  cancel                     cancel the running tool call
  restart                    rebuild (when needed) and restart the extension now
  help                       this text
  quit, Ctrl-C, Ctrl-D       leave
  Tab completes; Up/Down walk the history."
    };
}

/// The help text.
pub const HELP: &str = help_text!();

/// Reads the optional JSON object after a name.
fn object(rest: &str, what: &str) -> Result<Map<String, Value>, String> {
    let rest = rest.trim();
    if rest.is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(rest) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(format!(
            "{what}: the payload must be a JSON object, got {rest}"
        )),
        Err(e) => Err(format!("{what}: invalid JSON ({e}): {rest}")),
    }
}

/// Splits off the first word.
fn word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

/// Parses one line; the error says what is wrong with it.
pub fn parse(line: &str) -> Result<Action, String> {
    let line = line.trim();
    if line.is_empty() {
        return Ok(Action::Nothing);
    }
    if line.starts_with('/') {
        return Ok(Action::Step(step("command", json!(line))));
    }
    let (verb, rest) = word(line);
    let named = |what: &str| -> Result<(String, Map<String, Value>), String> {
        let (name, payload) = word(rest);
        if name.is_empty() {
            return Err(format!("{what}: which one? `{what} NAME {{JSON}}`"));
        }
        Ok((name.to_owned(), object(payload, what)?))
    };
    match verb {
        "prompt" if rest.trim().is_empty() => Err("prompt: what for? `prompt TEXT`".into()),
        "prompt" => Ok(Action::Step(step("prompt", json!(rest.trim())))),
        "tool" => {
            let (name, args) = named("tool")?;
            Ok(Action::Step(step(
                "call",
                json!({"name": name, "args": Value::Object(args)}),
            )))
        }
        "event" | "intercept" => {
            let (name, mut payload) = named(verb)?;
            payload.insert("event".into(), json!(name));
            let key = if verb == "event" { "emit" } else { "intercept" };
            Ok(Action::Step(step(key, Value::Object(payload))))
        }
        "panel" => {
            let (key, text) = word(rest);
            let text = text.trim();
            if key.is_empty() {
                return Err("panel: which key? `panel up`, `panel enter`, `panel rune q`".into());
            }
            if key.chars().count() == 1 {
                return Ok(Action::Key {
                    key: "rune".into(),
                    text: key.into(),
                });
            }
            Ok(Action::Key {
                key: key.to_ascii_lowercase(),
                text: text.into(),
            })
        }
        "cancel" if rest.trim().is_empty() => Ok(Action::Cancel),
        "restart" if rest.trim().is_empty() => Ok(Action::Restart),
        "help" | "?" => Ok(Action::Help),
        "quit" | "exit" => Ok(Action::Quit),
        _ => Err(format!(
            "unknown input `{verb}`: start with /COMMAND, prompt, tool, event, intercept, panel, cancel, restart or quit (help lists them)"
        )),
    }
}

fn step(key: &str, v: Value) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(key.into(), v);
    m
}

/// Tab completion from the session's registrations.
pub struct Helper {
    live: Arc<Live>,
}

impl Helper {
    /// Completes against what `live` has registered when Tab is pressed.
    pub fn new(live: Arc<Live>) -> Self {
        Self { live }
    }

    fn names(&self) -> (Vec<String>, Vec<String>) {
        let reg = self
            .live
            .engine()
            .manager()
            .shared()
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut commands: Vec<String> = reg.commands().map(|c| c.name.clone()).collect();
        commands.extend(
            crate::process::registry::BUILTIN_COMMANDS
                .iter()
                .map(|s| (*s).to_owned()),
        );
        let tools = reg.tools().map(|t| t.def.name.clone()).collect();
        (commands, tools)
    }
}

/// Candidates of `all` that start with `prefix`, sorted.
fn matching<'a>(all: impl IntoIterator<Item = &'a str>, prefix: &str, suffix: &str) -> Vec<Pair> {
    let mut v: Vec<Pair> = all
        .into_iter()
        .filter(|c| c.starts_with(prefix))
        .map(|c| Pair {
            display: c.to_owned(),
            replacement: format!("{c}{suffix}"),
        })
        .collect();
    v.sort_by(|a, b| a.display.cmp(&b.display));
    v.dedup_by(|a, b| a.display == b.display);
    v
}

impl Completer for Helper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        // `/com|`: a slash command.
        if let Some(partial) = before.strip_prefix('/') {
            if !partial.contains(char::is_whitespace) {
                let (commands, _) = self.names();
                return Ok((
                    1,
                    matching(commands.iter().map(String::as_str), partial, " "),
                ));
            }
            return Ok((pos, Vec::new()));
        }
        let words: Vec<&str> = before.split_whitespace().collect();
        let ends_in_space = before.ends_with(char::is_whitespace);
        let (index, partial) = match (words.len(), ends_in_space) {
            (0, _) => (0, ""),
            (n, true) => (n, ""),
            (n, false) => (n - 1, words[n - 1]),
        };
        let start = pos - partial.len();
        let found = match index {
            0 => matching(VERBS, partial, " "),
            1 => match words[0] {
                "tool" => {
                    let (_, tools) = self.names();
                    matching(tools.iter().map(String::as_str), partial, " ")
                }
                "event" => matching(LIFECYCLE_EVENT_NAMES, partial, " "),
                "intercept" => matching(INTERCEPTABLE_EVENT_NAMES, partial, " "),
                "panel" => matching(
                    PanelKeyName::KNOWN
                        .iter()
                        .copied()
                        .filter(|k| *k != "unknown"),
                    partial,
                    "",
                ),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        Ok((start, found))
    }
}

impl Hinter for Helper {
    type Hint = String;
}

impl Highlighter for Helper {}

impl Validator for Helper {}

impl rustyline::Helper for Helper {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_become_steps() {
        assert_eq!(
            parse("prompt add 2 and 3").unwrap(),
            Action::Step(step("prompt", json!("add 2 and 3")))
        );
        assert!(parse("prompt ").unwrap_err().contains("prompt TEXT"));
        assert_eq!(
            parse("/greet Ada").unwrap(),
            Action::Step(step("command", json!("/greet Ada")))
        );
        assert_eq!(
            parse(r#"tool add {"a": 1}"#).unwrap(),
            Action::Step(step("call", json!({"name": "add", "args": {"a": 1}})))
        );
        assert_eq!(
            parse("tool ping").unwrap(),
            Action::Step(step("call", json!({"name": "ping", "args": {}})))
        );
        assert_eq!(
            parse(r#"event turn_start {"step": 2}"#).unwrap(),
            Action::Step(step("emit", json!({"step": 2, "event": "turn_start"})))
        );
        assert_eq!(
            parse("panel q").unwrap(),
            Action::Key {
                key: "rune".into(),
                text: "q".into()
            }
        );
        assert_eq!(
            parse("panel Down").unwrap(),
            Action::Key {
                key: "down".into(),
                text: String::new()
            }
        );
        assert_eq!(parse("  ").unwrap(), Action::Nothing);
        assert_eq!(parse("quit").unwrap(), Action::Quit);
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        for (line, says) in [
            ("tool", "tool: which one?"),
            ("tool add [1]", "must be a JSON object"),
            ("event turn_start {", "invalid JSON"),
            ("frobnicate", "unknown input `frobnicate`"),
            ("panel", "panel: which key?"),
        ] {
            let e = parse(line).unwrap_err();
            assert!(e.contains(says), "{line}: {e}");
        }
    }
}
