//! Bounded memory (issue 13, item 2): what the host holds after a long
//! session or a flood from an extension does not grow with its length.
//! Checked through `RunOutcome::retained` (counts of what the engine holds
//! after the last step), never through RSS or timing.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use serde_json::{json, Value};
use zot_host::process::extension::{MAX_DIAGNOSTICS, MAX_REGISTRATIONS};
use zot_host::session::notes::MAX_NOTES_PER_EXT;
use zot_host::session::waits::MAX_FRAMES;
use zot_host::session::MAX_QUEUED_PROMPTS;
use zot_host::transcript::{Observation, Transcript};

/// A streaming transcript (as `zot-host run` uses) that hands each
/// observation, as JSON, to the test.
fn streaming() -> (Transcript, Arc<Mutex<Vec<Value>>>) {
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let sink = seen.clone();
    let t = Transcript::streaming(move |o: &Observation| {
        sink.lock().unwrap().push(serde_json::to_value(o).unwrap());
    });
    (t, seen)
}

fn of_kind<'a>(obs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    obs.iter().filter(|o| o["kind"] == kind).collect()
}

fn notify(message: &str) -> Value {
    json!({"send": {"type": "notify", "level": "info", "message": message}})
}

fn noop() -> Value {
    json!({"send": {"type": "command_response", "id": "$in.id", "action": "noop"}})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_session_holds_the_same_after_any_number_of_calls() {
    const REPS: usize = 400;
    let env = Env::new();
    // `outer` answers through a nested call_tool of `inner` (the reply to
    // the call_tool carries the outer call's id, used as its own id);
    // `echo` sends a note before its result.
    let worker = env.ext(
        "worker",
        json!({
            "on_ack": [tool("outer"), tool("inner"), tool("echo"), ready()],
            "on": {
                "tool_call:outer": [{"send": {"type": "call_tool", "id": "$in.id", "parent_id": "$in.id", "name": "inner", "args": {}}}],
                "tool_call:inner": text_result("in"),
                "tool_result": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "out"}]}}],
                "tool_call:echo": [notify("tick"), {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "echo"}]}}]
            }
        }),
    );
    let script = json!({"confirm": "yolo", "steps": [
        {"prompt": "go", "repeat": REPS,
         "replies": [{"tool_calls": [{"name": "outer"}, {"name": "echo"}]}, {"text": "done"}],
         "wait": {"ext": "worker", "type": "notify", "fields": {"message": "tick"}}}
    ]});
    let (transcript, obs) = streaming();
    let out = env.run_with(&[worker], script, transcript, None).await;
    let obs = obs.lock().unwrap();

    assert_eq!(out.failures, 0, "every wait matched");
    let results = of_kind(&obs, "tool_result");
    assert_eq!(results.len(), 3 * REPS, "outer, inner and echo each time");
    assert!(
        results.iter().all(|r| r["status"] == "completed"),
        "{:?}",
        results.iter().find(|r| r["status"] != "completed")
    );
    assert_eq!(of_kind(&obs, "note").len(), REPS);

    let r = out.retained;
    assert_eq!(r.observations, 0, "a streaming transcript keeps nothing");
    assert!(
        r.wait_frames <= 2,
        "only the last step's frames stay for waits: {r:?}"
    );
    assert!(r.notes <= 1, "notes go with the next prompt: {r:?}");
    assert_eq!(
        (
            r.pending_replies,
            r.host_calls,
            r.ext_calls,
            r.queued_prompts
        ),
        (0, 0, 0, 0),
        "finished calls leave nothing behind: {r:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_note_flood_keeps_the_last_notes_and_reports_the_rest_at_shutdown() {
    let env = Env::new();
    let loud = env.ext(
        "loud",
        json!({"on_ack": [cmd("flood"), ready()],
               "on": {"command_invoked": [{"times": MAX_NOTES_PER_EXT + 50, "do": [notify("spam")]}, noop()]}}),
    );
    let quiet = env.ext(
        "quiet",
        json!({"on_ack": [cmd("hi"), ready()],
               "on": {"command_invoked": [notify("hello"), noop()]}}),
    );
    let script = json!({"steps": [{"command": "/hi"}, {"command": "/flood"}]});
    let out = env
        .run_with(&[loud, quiet], script, Transcript::new(), None)
        .await;
    let obs: Vec<Value> = out
        .observations
        .iter()
        .map(|o| serde_json::to_value(o).unwrap())
        .collect();

    assert_eq!(
        of_kind(&obs, "note").len(),
        MAX_NOTES_PER_EXT + 51,
        "every note is printed"
    );
    assert_eq!(
        out.retained.notes,
        MAX_NOTES_PER_EXT + 1,
        "the flood pushes out only its own older notes"
    );
    let dropped = of_kind(&obs, "notes_dropped");
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(dropped[0]["ext"], "loud");
    assert_eq!(dropped[0]["count"], 50);
    let at = |kind: &str| obs.iter().position(|o| o["kind"] == kind).unwrap();
    assert!(
        at("notes_dropped") < at("exited"),
        "reported when the session ends"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn notes_go_with_the_next_prompt_and_clear_notes_reports_its_count() {
    let env = Env::new();
    let flood = json!([{"times": MAX_NOTES_PER_EXT + 7, "do": [notify("spam")]}, noop()]);
    let loud = env.ext(
        "loud",
        json!({"on_ack": [cmd("flood"), cmd("clear"), ready()],
               "on": {"command_invoked:flood": flood,
                      "command_invoked:clear": [{"send": {"type": "clear_notes"}}, noop()]}}),
    );
    let script = json!({"steps": [
        {"command": "/flood"},
        {"prompt": "next", "replies": [{"text": "ok"}]},
        {"command": "/flood"},
        {"command": "/clear"}
    ]});
    let r = env.run(&[loud], script).await;
    let kinds: Vec<&str> = r
        .obs
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .filter(|k| !matches!(*k, "note" | "loaded" | "session" | "tools" | "exited"))
        .collect();
    assert_eq!(
        kinds,
        [
            "command",
            "notes_dropped",
            "user",
            "system_prompt",
            "assistant",
            "command",
            "command",
            "notes_dropped",
            "notes_cleared"
        ],
        "the count comes as the notes go, before what cleared them"
    );
    for d in r.kinds("notes_dropped") {
        assert_eq!(
            (d["ext"].as_str(), d["count"].as_u64()),
            (Some("loud"), Some(7))
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn waits_keep_a_bounded_window_of_a_flood_and_say_what_went() {
    let env = Env::new();
    let flood = json!([
        notify("first"),
        {"times": MAX_FRAMES + 100, "do": [notify("spam")]},
        notify("last"),
        noop()
    ]);
    let loud = env.ext(
        "loud",
        json!({"on_ack": [cmd("flood"), ready()], "on": {"command_invoked": flood}}),
    );
    let script = json!({"mode": "print", "steps": [
        {"command": "/flood", "wait": {"type": "notify", "fields": {"message": "last"}}},
        {"wait": {"type": "notify", "fields": {"message": "first"}, "timeout_ms": 200}}
    ]});
    let (transcript, obs) = streaming();
    let out = env.run_with(&[loud], script, transcript, None).await;
    assert!(out.retained.wait_frames <= MAX_FRAMES, "{:?}", out.retained);
    assert_eq!(
        out.failures, 1,
        "the newest frame is matched, the flooded-out one is not"
    );
    let obs = obs.lock().unwrap();
    let failed = of_kind(&obs, "expect_failed");
    let msg = failed[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("earlier frames went unmatched"),
        "the failure says frames were dropped: {msg}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn floods_of_registrations_subscriptions_and_diagnostics_are_capped() {
    let env = Env::new();
    let bogus: Vec<String> = (0..2000).map(|i| format!("no_such_event_{i}")).collect();
    let mut events = bogus.clone();
    events.push("tool_call".into());
    let noisy = env.ext(
        "noisy",
        json!({"on_ack": [
            {"times": MAX_REGISTRATIONS + 10, "do": [tool("dup")]},
            {"send": {"type": "subscribe", "events": events, "intercept": bogus}},
            ready()
        ], "on": {"tool_call": text_result("ok")}}),
    );
    let script = json!({"confirm": "yolo", "steps": [
        {"prompt": "go", "replies": [{"tool_calls": [{"name": "dup"}]}, {"text": "done"}]}
    ]});
    let (wire, mem) = zot_host::wire::WireLog::memory();
    let (transcript, obs) = streaming();
    let out = env.run_with(&[noisy], script, transcript, Some(wire)).await;
    let r = out.retained;
    assert_eq!(r.registrations, MAX_REGISTRATIONS, "{r:?}");
    assert_eq!(r.subscriptions, 1, "only known names are kept: {r:?}");
    assert!(r.diagnostics <= MAX_DIAGNOSTICS, "{r:?}");
    let obs = obs.lock().unwrap();
    assert!(
        of_kind(&obs, "diagnostic").iter().any(|d| d["message"]
            .as_str()
            .unwrap()
            .contains(&format!("more than {MAX_REGISTRATIONS} commands and tools"))),
        "the cap is named once"
    );
    assert_eq!(of_kind(&obs, "tool_result")[0]["status"], "completed");
    let events: Vec<Value> = mem
        .lines()
        .into_iter()
        .filter(|l| l["dir"] == "host->ext" && l["frame"]["type"] == "event")
        .collect();
    assert!(
        events.iter().any(|e| e["frame"]["event"] == "tool_call"),
        "the known subscription still works"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_submit_flood_queues_a_bounded_number_of_prompts_and_counts_the_rest() {
    let env = Env::new();
    let pushy = env.ext(
        "pushy",
        json!({"on_ack": [tool("busy"), ready()],
               "on": {"tool_call:busy": [
                   {"times": MAX_QUEUED_PROMPTS + 30, "do": [{"send": {"type": "submit", "text": "again"}}]},
                   {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "ok"}]}}
               ]}}),
    );
    let script = json!({"confirm": "yolo", "steps": [
        {"prompt": "go", "replies": [{"tool_calls": [{"name": "busy"}]}, {"text": "done"}]}
    ]});
    let r = env.run(&[pushy], script).await;
    let queued = r
        .kinds("user")
        .iter()
        .filter(|u| u["queued"] == true)
        .count();
    assert_eq!(queued, MAX_QUEUED_PROMPTS);
    let warnings = r.strs("warning", "text");
    assert!(
        warnings.contains(
            &format!("30 submits were refused while {MAX_QUEUED_PROMPTS} prompts were queued")
                .as_str()
        ),
        "{warnings:?}"
    );
    assert_eq!(
        r.strs("diagnostic", "message"),
        [format!(
            "{MAX_QUEUED_PROMPTS} prompts are queued; refusing more submits until they ran"
        )]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_chain_of_queued_prompts_runs_one_after_the_other() {
    // Each `busy` call submits one prompt, whose turn calls `busy` again:
    // 300 prompts, each queued by the one before (they used to nest, one
    // stack level each, until the stack overflowed).
    const CHAIN: usize = 300;
    let env = Env::new();
    let pushy = env.ext(
        "pushy",
        json!({"on_ack": [tool("busy"), ready()],
               "on": {"tool_call:busy": [
                   {"send": {"type": "submit", "text": "again"}},
                   {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "ok"}]}}
               ]}}),
    );
    let script = json!({"confirm": "yolo", "steps": [
        {"replies": [{"tool_calls": [{"name": "busy"}]}, {"text": "."}], "repeat": CHAIN},
        {"prompt": "go"}
    ]});
    let (transcript, obs) = streaming();
    let out = env.run_with(&[pushy], script, transcript, None).await;
    let obs = obs.lock().unwrap();
    assert_eq!(out.failures, 0);
    let users = of_kind(&obs, "user");
    assert_eq!(users.len(), CHAIN + 1);
    assert_eq!(users.iter().filter(|u| u["queued"] == true).count(), CHAIN);
    let results = of_kind(&obs, "tool_result");
    assert_eq!(results.len(), CHAIN);
    assert!(results.iter().all(|r| r["status"] == "completed"));
}
