//! What a person does besides prompting, as script steps: `call` (a tool
//! called directly), `emit` (a lifecycle event with a payload of theirs),
//! `intercept` (an interception chain fired by hand), `stub` / `answer`
//! (a tool answered by hand); and the live session that records them and
//! exports a script `zot-host run` replays with the same transcript.

mod common;

use common::*;
use serde_json::{json, Map, Value};
use zot_host::live::{Live, LiveError, LiveOptions};
use zot_host::session::script::Script;
use zot_host::transcript::Observation;

fn subscriber(events: &[&str], intercept: &[&str], on: Value) -> Value {
    json!({
        "on_ack": [
            tool("t"),
            {"send": {"type": "register_tool", "name": "coded", "schema": {"type": "object"}, "exposure": "codemode"}},
            {"send": {"type": "subscribe", "events": events, "intercept": intercept}},
            ready()
        ],
        "on": on,
    })
}

#[tokio::test]
async fn a_call_step_runs_the_tool_pipeline_outside_any_turn() {
    let env = Env::new();
    let e = env.ext(
        "x",
        subscriber(
            &[
                "tool_call",
                "tool_result",
                "turn_start",
                "user_prompt_submit",
            ],
            &[],
            json!({
                "tool_call:t": text_result("got {in.args.n}"),
                "tool_call:coded": text_result("coded ok"),
            }),
        ),
    );
    let run = env
        .run(
            &[e],
            json!({"steps": [
                {"call": {"name": "t", "args": {"n": 7}}},
                {"call": {"name": "coded"}},
                {"call": {"name": "nope"}}
            ]}),
        )
        .await;
    assert_eq!(run.failures, 0);
    assert_eq!(
        run.strs("tool_call", "tool_id"),
        ["toolu_1", "toolu_2", "toolu_3"]
    );
    assert_eq!(run.strs("tool_result", "text")[..2], ["got 7", "coded ok"]);
    assert_eq!(run.strs("tool_result", "status")[2], "failed");
    assert!(run.strs("tool_result", "text")[2].contains("unknown tool"));
    // Announced and reported like a call outside a model turn: no prompt, no turn.
    assert_eq!(
        run.events("x"),
        [
            "tool_call",
            "tool_result",
            "tool_call",
            "tool_result",
            "tool_call",
            "tool_result"
        ]
    );
    assert_eq!(run.sent("x", "tool_call")[0]["args"], json!({"n": 7}));
}

#[tokio::test]
async fn an_emit_step_sends_its_payload_with_the_session_fields_stamped() {
    let env = Env::new();
    let e = env.ext("x", subscriber(&["subagent_start"], &[], json!({})));
    let run = env
        .run(
            &[e],
            json!({"steps": [
                {"emit": {"event": "subagent_start", "agent_run_id": "r9", "agent_id": "a", "name": "helper",
                          "session_id": "ignored", "sequence": 999}}
            ]}),
        )
        .await;
    let sent = run.sent("x", "event");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["agent_run_id"], "r9");
    assert_eq!(sent[0]["name"], "helper");
    assert_eq!(sent[0]["session_id"], "session-1");
    assert_ne!(sent[0]["sequence"], 999);
    assert_eq!(run.strs("event", "event"), ["subagent_start"]);
}

#[test]
fn bad_emit_and_intercept_payloads_are_script_errors_naming_the_step() {
    let e = Script::parse(
        r#"{"steps":[{"tools":true},{"emit":{"event":"nope"}}]}"#,
        "s.json",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("steps[1]") && e.contains("unknown event"), "{e}");
    let e = Script::parse(
        r#"{"steps":[{"intercept":{"event":"tool_call","tool_args":[1]}}]}"#,
        "s.json",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("steps[0]") && e.contains("tool_args"), "{e}");
    let e = Script::parse(
        r#"{"steps":[{"emit":{"event":"turn_end"},"stub":"a"}]}"#,
        "s.json",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("exactly one action"), "{e}");
}

#[tokio::test]
async fn an_intercept_step_runs_the_chain_and_reports_the_verdict() {
    let env = Env::new();
    let e = env.ext(
        "guard",
        subscriber(
            &[],
            &["tool_call", "assistant_message"],
            json!({
                "event_intercept:tool_call": [{"send": {"type": "event_intercept_response", "id": "$in.id",
                    "block": true, "reason": "no {in.tool_name}"}}],
                "event_intercept:assistant_message": [{"send": {"type": "event_intercept_response", "id": "$in.id",
                    "replace_text": "[{in.text}]"}}],
            }),
        ),
    );
    let run = env
        .run(
            &[e],
            json!({"steps": [
                {"intercept": {"event": "tool_call", "tool_id": "t1", "tool_name": "bash", "tool_args": {"command": "ls"}}},
                {"intercept": {"event": "assistant_message", "text": "hi"}},
                {"intercept": {"event": "turn_start", "step": 3}}
            ]}),
        )
        .await;
    let v = run.kinds("verdict");
    assert_eq!(v[0]["verdict"], "block");
    assert_eq!(v[0]["reason"], "no bash");
    assert_eq!(v[1]["verdict"], "allow");
    assert_eq!(v[1]["result"], "[hi]");
    // Nobody intercepts turn_start: the host allows.
    assert_eq!(v[2]["verdict"], "allow");
    let asked = run.sent("guard", "event_intercept");
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[0]["tool_args"], json!({"command": "ls"}));
}

/// An extension whose tool `outer` calls `inner` through `call_tool` and
/// returns what came back. (The `call_tool` reuses the parent's id, so that
/// the host's answer names the call to reply to.)
fn caller() -> Value {
    json!({
        "on_ack": [tool("outer"), tool("inner"), ready()],
        "on": {
            "tool_call:outer": [{"send": {"type": "call_tool", "id": "$in.id", "parent_id": "$in.id",
                                          "name": "inner", "args": {"q": 1}}}],
            "tool_call:inner": text_result("from the extension"),
            "tool_result": [{"send": {"type": "tool_result", "id": "$in.id",
                                      "content": [{"type": "text", "text": "inner said {in.content.0.text}"}]}}],
        },
    })
}

#[tokio::test]
async fn stub_tools_are_answered_by_answer_steps_and_unstubbed_go_back_to_their_extension() {
    let env = Env::new();
    let e = env.ext("x", caller());
    let run = env
        .run(
            &[e],
            json!({"steps": [
                {"stub": "inner"},
                {"answer": {"tool": "inner", "text": "typed by hand"}},
                {"call": {"name": "inner"}},
                {"answer": {"tool": "inner", "text": "for call_tool", "is_error": true}},
                {"call": {"name": "outer"}},
                {"unstub": "inner"},
                {"call": {"name": "inner"}},
                {"call": {"name": "outer"}}
            ]}),
        )
        .await;
    assert_eq!(run.failures, 0, "{}", run.text());
    let texts = run.strs("tool_result", "text");
    // The direct call, then outer's call_tool (answered by hand, an error),
    // then outer; unstubbed, the extension answers both.
    assert_eq!(
        texts,
        [
            "typed by hand",
            "for call_tool",
            "inner said for call_tool",
            "from the extension",
            "from the extension",
            "inner said from the extension"
        ],
        "{}",
        run.text()
    );
    let back = run.sent("x", "tool_result");
    assert_eq!(back[0]["is_error"], true);
    assert_eq!(
        run.sent("x", "tool_call").len(),
        4,
        "the stubbed calls never reached the extension"
    );
}

#[tokio::test]
async fn a_stub_call_without_an_answer_ends_at_its_deadline_or_cancellation() {
    let env = Env::new();
    let e = env.ext("x", caller());
    let run = env
        .run(
            &[e],
            json!({"timeouts": {"call_tool_ms": 300}, "steps": [
                {"stub": "inner"},
                {"call": {"name": "inner", "cancel": {"on": "before"}}},
                {"call": {"name": "outer"}}
            ]}),
        )
        .await;
    let results = run.tool_results();
    assert_eq!(results[0]["status"], "cancelled");
    let inner = results
        .iter()
        .find(|r| r["tool_id"].as_str().unwrap().starts_with("call_"))
        .unwrap_or_else(|| panic!("no call_tool result: {}", run.text()));
    assert_eq!(inner["status"], "timed_out", "{}", run.text());
    assert!(run
        .strs("tool_result", "text")
        .last()
        .unwrap()
        .starts_with("inner said stub inner: timed out"));
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

#[tokio::test]
async fn a_live_session_exports_a_script_that_replays_to_the_same_transcript() {
    let env = Env::new();
    let e = env.ext(
        "x",
        json!({
            "on_ack": [cmd("later"), cmd("panel"), tool("t"), tool("slow"),
                       {"send": {"type": "subscribe", "events": ["subagent_start"]}}, ready()],
            "on": {
                // The note comes after the response: the replay must wait for it.
                "command_invoked:later": [
                    {"send": {"type": "command_response", "id": "$in.id", "action": "noop"}},
                    {"async": [{"sleep": 0.3}, {"send": {"type": "notify", "level": "info", "message": "later {in.args}"}}]}
                ],
                "command_invoked:panel": [{"send": {"type": "command_response", "id": "$in.id", "action": "open_panel",
                    "open_panel": {"id": "p", "title": "P", "lines": ["0"]}}}],
                "panel_key": [{"async": [{"sleep": 0.2}, {"send": {"type": "panel_render", "panel_id": "$in.panel_id", "lines": ["{in.key}"]}}]}],
                "tool_call:t": text_result("t={in.args.v}"),
                // An interactive-like tool: it opens a panel and waits.
                "tool_call:slow": [{"send": {"type": "open_panel", "panel": {"id": "s", "title": "S", "lines": ["waiting"]}}}],
                "tool_cancel": [{"async": [{"sleep": 0.2}, {"send": {"type": "notify", "level": "warn", "message": "slow stopped"}}]}],
                "event:subagent_start": [{"send": {"type": "notify", "level": "info", "message": "saw {in.agent_id}"}}],
            },
        }),
    );
    let live = Live::open(LiveOptions {
        explicit: vec![e.clone()],
        cwd: env.cwd.clone(),
        zot_home: env.zot_home.clone(),
        no_discovery: true,
        header: Map::new(),
        model: None,
    })
    .await
    .unwrap();
    // Like a person, each step is followed by a look at what it caused: the
    // test goes on once the frames the extension sends by itself arrived.
    let mut frames = live.feed().subscribe();
    let seen = |ty: &str, text: &str| {
        live.feed()
            .frames_from(0)
            .iter()
            .filter(|f| f.ty == ty && f.preview.contains(text))
            .count()
    };
    macro_rules! until {
        ($ty:expr, $text:expr) => {
            while seen($ty, $text) == 0 {
                let _ = frames.recv().await;
            }
        };
    }
    live.run(obj(json!({"command": "/later one"})))
        .await
        .unwrap();
    until!("notify", "later one");
    live.run(obj(json!({"call": {"name": "t", "args": {"v": 1}}})))
        .await
        .unwrap();
    live.run(obj(json!({"command": "/panel"}))).await.unwrap();
    live.key("down", "").await.unwrap();
    until!("panel_render", "[\"down\"]");
    live.run(obj(json!({"emit": {"event": "subagent_start", "agent_run_id": "r", "agent_id": "me", "name": "me"}})))
        .await
        .unwrap();
    until!("notify", "saw me");
    // A call that runs until the person cancels it; meanwhile other steps wait.
    let slow = {
        let live = live.clone();
        tokio::spawn(async move { live.run(obj(json!({"call": {"name": "slow"}}))).await })
    };
    until!("open_panel", "\"s\"");
    assert!(matches!(
        live.run(obj(json!({"command": "/later two"}))).await,
        Err(LiveError::Busy(_))
    ));
    // A key for the call's panel, then the person gives up.
    live.key("up", "").await.unwrap();
    until!("panel_render", "[\"up\"]");
    assert!(live.cancel());
    slow.await.unwrap().unwrap();
    until!("notify", "slow stopped");
    live.run(obj(json!({"command": "/later three"})))
        .await
        .unwrap();
    until!("notify", "later three");
    // The observations of the last frames are made as they are read.
    while !live
        .transcript()
        .0
        .iter()
        .any(|o| matches!(o, Observation::Note { text, .. } if text == "later three"))
    {
        let _ = frames.recv().await;
    }
    let script = live.export();
    let (observed, dropped) = live.transcript();
    assert_eq!(dropped, 0);
    live.close().await;

    // Frames an extension sent by itself are waited for by the step after
    // which they came.
    let steps = script["steps"].as_array().unwrap();
    let waits_for = |field: &str, v: &str| {
        steps
            .iter()
            .filter(|s| s["wait"][field] == v || s["wait"]["fields"]["message"] == v)
            .count()
    };
    assert_eq!(
        steps[0]["wait"]["fields"]["message"], "later one",
        "{script:#}"
    );
    assert_eq!(waits_for("", "later one"), 1, "{script:#}");
    assert_eq!(waits_for("", "later three"), 1, "{script:#}");
    assert_eq!(waits_for("type", "panel_render"), 1, "{script:#}");
    assert_eq!(waits_for("", "saw me"), 1, "{script:#}");
    let slow_step = steps.iter().find(|s| s["call"]["name"] == "slow").unwrap();
    assert_eq!(slow_step["call"]["cancel"]["on"], "keys");
    assert_eq!(slow_step["call"]["keys"][0]["key"], "up");
    assert_eq!(slow_step["call"]["keys"][0]["wait"]["type"], "panel_render");
    assert_eq!(waits_for("", "slow stopped"), 1, "{script:#}");

    env.run(&[e], script.clone())
        .await
        .assert_replays(&observed, &script);
}
