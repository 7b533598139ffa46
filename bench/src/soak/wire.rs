//! Counting the host's wire log (`--wire`, read from a FIFO as the host
//! writes it): events sent, requests and their replies by id, so that a
//! reply that never came is counted, whatever the transcript says; and what
//! the conformance extension's `events` command showed against the events
//! the wire carried before it.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// What the wire showed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct WireCounts {
    /// Lines read.
    pub lines: u64,
    /// `event` frames to the extension.
    pub events: u64,
    /// `tool_call`s to the extension.
    pub tool_calls: u64,
    /// `event_intercept`s to the extension.
    pub intercepts: u64,
    /// `command_invoked`s to the extension.
    pub commands: u64,
    /// `call_tool`s from the extension.
    pub call_tools: u64,
    /// `notify` frames from the extension.
    pub notes: u64,
    /// Requests (either way) that never got their reply.
    pub lost: Lost,
    /// The last `events` command, if the session ran one.
    pub events_shown: Option<EventsShown>,
}

/// The `events` command's answer (`{"count":…,"last":[…]}`,
/// docs/testing/conformance.md) and the wire before it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EventsShown {
    /// `event` frames sent before the command.
    pub sent_before: u64,
    /// The answer's `count` (`None`: no answer of that form).
    pub count: Option<u64>,
    /// How many names its `last` lists.
    pub listed: Option<u64>,
}

impl EventsShown {
    /// Reads the command's display.
    fn answer(&mut self, display: &str) {
        let v: serde_json::Value = serde_json::from_str(display).unwrap_or_default();
        self.count = v["count"].as_u64();
        self.listed = v["last"].as_array().map(|a| a.len() as u64);
    }
}

/// Requests without a reply, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Lost {
    /// `tool_call` without `tool_result`.
    pub tool_calls: u64,
    /// `event_intercept` without `event_intercept_response`.
    pub intercepts: u64,
    /// `command_invoked` without `command_response`.
    pub commands: u64,
    /// `call_tool` without the host's `tool_result`.
    pub call_tools: u64,
}

impl Lost {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.tool_calls + self.intercepts + self.commands + self.call_tools
    }
}

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(borrow)]
    dir: Cow<'a, str>,
    #[serde(borrow, default)]
    frame: Option<Frame<'a>>,
}

#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    /// A command's name.
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// A command's display.
    #[serde(borrow, default)]
    display: Option<Cow<'a, str>>,
}

/// Open requests by kind (bounded by what is in flight).
#[derive(Default)]
struct Open {
    tool_calls: HashSet<String>,
    intercepts: HashSet<String>,
    commands: HashSet<String>,
    call_tools: HashSet<String>,
}

/// Reads the wire log at `path` (a FIFO) to its end.
pub fn count(path: &Path) -> std::io::Result<WireCounts> {
    let mut c = WireCounts::default();
    let mut open = Open::default();
    let mut events_command = None;
    let reader = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    for line in reader.split(b'\n') {
        let line = line?;
        c.lines += 1;
        let Ok(rec) = serde_json::from_slice::<Record<'_>>(&line) else {
            continue;
        };
        let Some(f) = rec.frame else { continue };
        let id = || f.id.as_deref().unwrap_or_default().to_owned();
        match (rec.dir.as_ref(), f.kind.as_ref()) {
            ("host->ext", "event") => c.events += 1,
            ("host->ext", "tool_call") => {
                c.tool_calls += 1;
                open.tool_calls.insert(id());
            }
            ("host->ext", "event_intercept") => {
                c.intercepts += 1;
                open.intercepts.insert(id());
            }
            ("host->ext", "command_invoked") => {
                c.commands += 1;
                open.commands.insert(id());
                if f.name.as_deref() == Some("events") {
                    events_command = Some(id());
                    c.events_shown = Some(EventsShown {
                        sent_before: c.events,
                        ..EventsShown::default()
                    });
                }
            }
            ("host->ext", "tool_result") => {
                open.call_tools.remove(&id());
            }
            ("ext->host", "tool_result") => {
                open.tool_calls.remove(&id());
            }
            ("ext->host", "event_intercept_response") => {
                open.intercepts.remove(&id());
            }
            ("ext->host", "command_response") => {
                let id = id();
                if events_command.as_ref() == Some(&id) {
                    if let Some(shown) = &mut c.events_shown {
                        shown.answer(f.display.as_deref().unwrap_or_default());
                    }
                }
                open.commands.remove(&id);
            }
            ("ext->host", "call_tool") => {
                c.call_tools += 1;
                open.call_tools.insert(id());
            }
            ("ext->host", "notify") => c.notes += 1,
            _ => {}
        }
    }
    c.lost = Lost {
        tool_calls: open.tool_calls.len() as u64,
        intercepts: open.intercepts.len() as u64,
        commands: open.commands.len() as u64,
        call_tools: open.call_tools.len() as u64,
    };
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_requests_and_their_replies() {
        let path = std::env::temp_dir().join(format!("zot-soak-wire-{}", std::process::id()));
        let lines = [
            r#"{"ext":"e","dir":"host->ext","frame":{"type":"event","event":"tool_call"}}"#,
            r#"{"ext":"e","dir":"host->ext","frame":{"type":"tool_call","id":"1"}}"#,
            r#"{"ext":"e","dir":"host->ext","frame":{"type":"tool_call","id":"2"}}"#,
            r#"{"ext":"e","dir":"ext->host","frame":{"type":"call_tool","id":"a"}}"#,
            r#"{"ext":"e","dir":"host->ext","frame":{"type":"tool_result","id":"a"}}"#,
            r#"{"ext":"e","dir":"ext->host","frame":{"type":"tool_result","id":"1"}}"#,
            r#"{"ext":"e","dir":"ext->host","frame":{"type":"notify","message":"x"}}"#,
            r#"{"ext":"e","dir":"ext->host","invalid":"not json"}"#,
            r#"{"ext":"e","dir":"host->ext","frame":{"type":"command_invoked","id":"c","name":"events","args":""}}"#,
            r#"{"ext":"e","dir":"host->ext","frame":{"type":"event","event":"session_end"}}"#,
            r#"{"ext":"e","dir":"ext->host","frame":{"type":"command_response","id":"c","action":"display","display":"{\"count\":1,\"last\":[\"tool_call\"]}"}}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let c = count(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(c.lines, 11);
        assert_eq!(
            (c.events, c.tool_calls, c.call_tools, c.notes),
            (2, 2, 1, 1)
        );
        let shown = c.events_shown.as_ref().unwrap();
        assert_eq!(
            (shown.sent_before, shown.count, shown.listed),
            (1, Some(1), Some(1)),
            "the event after the command is not counted"
        );
        assert_eq!(c.lost.tool_calls, 1, "call 2 got no result");
        assert_eq!(c.lost.total(), 1);
    }
}
