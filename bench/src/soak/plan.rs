//! The soak's session script and what it should make the host do.
//!
//! Interactive mode (where the host keeps the most: notes, panels,
//! submits), approvals by policy, spec deadlines except a 15 s reply
//! deadline (a lost reply then shows as a timed-out call, not a 60 s
//! stall). Three phases, each one repeated step (`repeat`), so that the
//! script stays a few KB whatever the sizes:
//!
//! 1. calls: prompts answered by one turn of `batch` tool calls (`echo`, and
//!    every `compose_every`-th a `compose`, which calls `echo` back through
//!    `call_tool`), then a text turn;
//! 2. events: text-only prompts until the host has sent `events` lifecycle
//!    events in all (each prompt: `user_prompt_submit`, `turn_start`,
//!    `assistant_message`, `turn_end`, with two interception round trips
//!    that pace them);
//! 3. notes: `/note` commands, one `notify` each;
//!
//! and then one `/events`, whose count must be every event sent before it.

use serde::Serialize;
use serde_json::{json, Value};

use super::options::SoakSizes;

/// What the script makes the host do (the events count is computed from the
/// conformance extension's subscriptions; the run counts the real one on
/// the wire).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// Model tool calls.
    pub calls: usize,
    /// Of which `compose` (each makes one nested call).
    pub composes: usize,
    /// Prompts of the calls phase.
    pub call_prompts: usize,
    /// Prompts of the events phase.
    pub event_prompts: u64,
    /// Lifecycle events the script makes the host send.
    pub events: u64,
    /// `/note` commands.
    pub notes: usize,
}

/// The prompt of the calls phase, as the transcript shows it.
pub const CALLS_PROMPT: &str = "soak: tool calls";
/// The prompt of the events phase.
pub const EVENTS_PROMPT: &str = "soak: events";
/// The `/note` command of the notes phase.
pub const NOTE_COMMAND: &str = "/note soak note";
/// The command that ends the session.
pub const EVENTS_COMMAND: &str = "/events";
/// The names `events` lists at most (docs/testing/conformance.md).
pub const EVENTS_KEPT: u64 = 10_000;

/// Events per prompt of the calls phase besides those of its calls:
/// `user_prompt_submit`, 2 × `turn_start`, 2 × `turn_end`,
/// `assistant_message`.
const EVENTS_PER_CALL_PROMPT: u64 = 6;
/// Events per tool call: `tool_call`, `permission_decision`, `tool_result`.
const EVENTS_PER_CALL: u64 = 3;
/// Events per text-only prompt.
const EVENTS_PER_TEXT_PROMPT: u64 = 4;
/// `session_start` and `session_end`.
const SESSION_EVENTS: u64 = 2;

impl Plan {
    /// The plan for these sizes.
    pub fn new(s: &SoakSizes) -> Self {
        let call_prompts = s.calls / s.batch.max(1);
        let composes = (0..s.batch).filter(|i| is_compose(s, *i)).count() * call_prompts;
        let calls_phase = call_prompts as u64 * EVENTS_PER_CALL_PROMPT
            + (s.calls + composes) as u64 * EVENTS_PER_CALL;
        let left = s.events.saturating_sub(calls_phase + SESSION_EVENTS);
        let event_prompts = left.div_ceil(EVENTS_PER_TEXT_PROMPT);
        Plan {
            calls: s.calls,
            composes,
            call_prompts,
            event_prompts,
            events: SESSION_EVENTS + calls_phase + event_prompts * EVENTS_PER_TEXT_PROMPT,
            notes: s.notes,
        }
    }

    /// The session script.
    pub fn script(&self, s: &SoakSizes) -> Value {
        let calls: Vec<Value> = (0..s.batch)
            .map(|i| {
                let name = if is_compose(s, i) { "compose" } else { "echo" };
                json!({"name": name, "args": {"text": format!("soak {i}")}})
            })
            .collect();
        let mut steps = vec![json!({"tools": true})];
        if self.call_prompts > 0 {
            steps.push(json!({
                "prompt": CALLS_PROMPT,
                "replies": [{"tool_calls": calls}, {"text": "done"}],
                "repeat": self.call_prompts,
            }));
        }
        if self.event_prompts > 0 {
            steps.push(json!({
                "prompt": EVENTS_PROMPT,
                "replies": [{"text": "ok"}],
                "repeat": self.event_prompts,
            }));
        }
        if self.notes > 0 {
            steps.push(json!({"command": NOTE_COMMAND, "repeat": self.notes}));
        }
        steps.push(json!({"command": EVENTS_COMMAND}));
        json!({
            "mode": "interactive",
            "confirm": "yolo",
            "timeouts": {"tool_reply_ms": 15_000, "call_tool_ms": 15_000},
            "steps": steps,
        })
    }
}

fn is_compose(s: &SoakSizes, i: usize) -> bool {
    s.compose_every > 0 && i % s.compose_every == s.compose_every - 1
}

/// How much longer than a pipe's buffer (64 KiB on Linux) the model's last
/// reply of the flood is. The harness samples the host's memory when it
/// reads the last note; the host cannot write that reply, which follows the
/// notes in the transcript, let alone exit, before the harness has read
/// that far.
const FLOOD_PADDING: usize = 256 * 1024;

/// The flood's script: one model call of the floor's `flood` tool.
pub fn flood_script(notes: u64) -> Value {
    json!({
        "mode": "interactive",
        "confirm": "yolo",
        "steps": [
            {"tools": true},
            {"prompt": "flood", "replies": [
                {"tool_calls": [{"name": "flood", "args": {"notes": notes}}]},
                {"text": format!("done\n{}", ".".repeat(FLOOD_PADDING))}
            ]}
        ],
    })
}

/// What a completed tool call returns, from the transcript's `tool_call`:
/// `echo` its text, `compose` the nested echo's.
pub fn expected_text(name: &str, args: &Value) -> Option<String> {
    let text = args.get("text")?.as_str()?;
    match name {
        "echo" => Some(text.to_owned()),
        "compose" => Some(format!("composed:inner:{text}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_reaches_the_event_count() {
        let s = SoakSizes::full();
        let p = Plan::new(&s);
        assert_eq!(p.call_prompts, 1000);
        assert_eq!(p.composes, 50_000);
        assert!(p.events >= s.events && p.events < s.events + 4, "{p:?}");
        let script = p.script(&s);
        let steps = script["steps"].as_array().unwrap();
        assert_eq!(
            steps[1]["replies"][0]["tool_calls"]
                .as_array()
                .unwrap()
                .len(),
            200
        );
        assert_eq!(steps[1]["replies"][0]["tool_calls"][3]["name"], "compose");
        assert!(script.to_string().len() < 20_000, "the script stays small");
        assert_eq!(steps.last().unwrap()["command"], EVENTS_COMMAND);
        assert_eq!(
            expected_text("compose", &json!({"text": "soak 3"})).as_deref(),
            Some("composed:inner:soak 3")
        );
    }
}
