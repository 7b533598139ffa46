//! The `events` command past its limit: [`KEPT`] + 5 lifecycle events
//! (the fourteen names in turn, so that the longest one is among them),
//! then `events`, whose display must be exactly
//! `{"count":<all>,"last":[<the last KEPT names, in arrival order>]}`.
//!
//! The events go straight into each language's extension (no host): a host
//! session of that length would take minutes and a transcript of megabytes.

use std::time::Duration;

use serde_json::Value;

use crate::process::{End, Launch, Proc};

/// The names `events` lists at most (docs/testing/conformance.md).
const KEPT: usize = 10_000;

/// Events sent: a few more than are kept.
const SENT: usize = KEPT + 5;

/// The command's reply may wait behind every event (the host's own
/// command deadline).
const COMMAND_WAIT: Duration = Duration::from_secs(30);

/// Each lifecycle event with the fields the reference host sends, after
/// `type`, `event` and `sequence`.
const EVENTS: [(&str, &str); 14] = [
    ("session_start", ""),
    ("session_end", r#","reason":"shutdown""#),
    ("user_prompt_submit", r#","text":"hi","image_count":0"#),
    ("turn_start", r#","step":1"#),
    ("turn_end", r#","stop":"end_turn""#),
    (
        "tool_call",
        r#","tool_id":"t","tool_name":"bash","tool_args":{"command":"ls"}"#,
    ),
    (
        "tool_result",
        r#","tool_id":"t","tool_name":"bash","tool_args":{"command":"ls"},"status":"completed","executed":true,"result":{"content":[{"type":"text","text":"ok"}],"is_error":false}"#,
    ),
    (
        "tool_confirmation_requested",
        r#","tool_id":"t","tool_name":"bash","tool_preview":"ls""#,
    ),
    (
        "permission_decision",
        r#","tool_id":"t","tool_name":"bash","decision":"approved","source":"user","stage":"pre_execution""#,
    ),
    ("assistant_message", r#","text":"ok""#),
    (
        "pre_compact",
        r#","compaction_id":"c","message_count":6,"token_estimate":43"#,
    ),
    (
        "post_compact",
        r#","compaction_id":"c","message_count":1,"token_estimate":3,"status":"completed""#,
    ),
    (
        "subagent_start",
        r#","agent_id":"a","agent_run_id":"r","name":"a""#,
    ),
    (
        "subagent_stop",
        r#","agent_id":"a","agent_run_id":"r","name":"a","status":"completed""#,
    ),
];

/// The name of the `i`-th event sent.
fn name(i: usize) -> &'static str {
    EVENTS[i % EVENTS.len()].0
}

/// The display the contract requires after [`SENT`] events.
fn expected_display() -> String {
    let last: Vec<&str> = (SENT - KEPT..SENT).map(name).collect();
    format!(
        r#"{{"count":{SENT},"last":{}}}"#,
        serde_json::to_string(&last).expect("strings serialize")
    )
}

/// Why a display is not the expected one, in a line.
fn difference(got: &str, want: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(got) else {
        return format!("not JSON: {}", head(got));
    };
    let Some(last) = v.get("last").and_then(Value::as_array) else {
        return format!(
            "not {{\"count\":…,\"last\":[…]}} ({} bytes): {}",
            got.len(),
            head(got)
        );
    };
    let want_last: Vec<&str> = (SENT - KEPT..SENT).map(name).collect();
    let names: Vec<&str> = last.iter().map(|n| n.as_str().unwrap_or("?")).collect();
    if v["count"] != SENT {
        format!("count {} (want {SENT})", v["count"])
    } else if names.len() != KEPT {
        format!("{} names in last (want {KEPT})", names.len())
    } else if let Some(i) = (0..KEPT).find(|&i| names[i] != want_last[i]) {
        format!(
            "last[{i}] is {:?} (want {:?}, event {} of {SENT})",
            names[i],
            want_last[i],
            SENT - KEPT + i + 1
        )
    } else {
        format!(
            "not byte for byte the compact form: {} (want {})",
            head(got),
            head(want)
        )
    }
}

fn head(s: &str) -> String {
    s.chars().take(120).collect()
}

/// Runs the check against one language; the problems found.
pub fn check(launch: &Launch) -> Vec<String> {
    let mut p = match Proc::start(launch) {
        Ok(p) => p,
        Err(e) => return vec![e],
    };
    let mut lines = String::with_capacity(SENT * 200);
    for i in 0..SENT {
        let (event, fields) = EVENTS[i % EVENTS.len()];
        lines.push_str(&format!(
            r#"{{"type":"event","event":"{event}","sequence":{},"session_id":"s","cwd":"/p"{fields}}}"#,
            i + 1
        ));
        lines.push('\n');
    }
    lines.push_str(r#"{"type":"command_invoked","id":"ev","name":"events","args":""}"#);
    p.send(&lines);
    let mut problems = Vec::new();
    let reply = p.expect_within(COMMAND_WAIT, |f| {
        f["type"] == "command_response" && f["id"] == "ev"
    });
    let want = expected_display();
    match reply {
        None => problems.push(format!(
            "no reply to `events` after {SENT} events within {COMMAND_WAIT:?}"
        )),
        Some(r) => match r["display"].as_str() {
            Some(got) if got == want => {}
            Some(got) => problems.push(format!(
                "`events` after {SENT} events: {}",
                difference(got, &want)
            )),
            None => problems.push(format!(
                "`events` answered without a display: {}",
                head(&r.to_string())
            )),
        },
    }
    let exit = p.end(End::Shutdown);
    if exit != "exit 0" {
        problems.push(format!("after shutdown: {exit}"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_display_keeps_the_last_names_and_fits_a_frame() {
        let want = expected_display();
        let v: Value = serde_json::from_str(&want).unwrap();
        assert_eq!(v["count"], SENT);
        assert_eq!(v["last"][0], name(5));
        assert_eq!(v["last"][KEPT - 1], name(SENT - 1));
        // Every name the longest one: still far below the 4 MiB frame once
        // the display is escaped into a reply.
        let longest = format!("\\\"{}\\\",", "tool_confirmation_requested");
        assert!(longest.len() * KEPT < 512 * 1024);
    }

    #[test]
    fn a_full_list_is_told_apart() {
        let all: Vec<&str> = (0..SENT).map(name).collect();
        let old = serde_json::to_string(&all).unwrap();
        assert!(difference(&old, &expected_display()).starts_with("not {\"count\""));
        let first = format!(
            r#"{{"count":{SENT},"last":{}}}"#,
            serde_json::to_string(&all[..KEPT]).unwrap()
        );
        assert!(
            difference(&first, &expected_display()).starts_with("last[0] is"),
            "{}",
            difference(&first, &expected_display())
        );
    }
}
