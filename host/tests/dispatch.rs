//! Registries, interception chains, call_tool rules, events and sequence.

mod common;

use common::*;
use serde_json::{json, Value};

fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "args": args})
}

#[tokio::test(flavor = "multi_thread")]
async fn command_conflicts_by_case_first_in_load_order_wins() {
    let env = Env::new();
    let a = env.ext("a", json!({"on_ack": [cmd("Greet"), cmd("greet"), ready()], "on": {"command_invoked": display("from a")}}));
    let b = env.ext(
        "b",
        json!({"on_ack": [cmd("GREET"), ready()], "on": {"command_invoked": display("from b")}}),
    );
    let r = env
        .run(&[a, b], json!({"steps": [{"command": "/gReEt  Bob "}]}))
        .await;
    let inv = r.sent("a", "command_invoked");
    assert_eq!(inv.len(), 1);
    assert_eq!(inv[0]["name"], "Greet", "canonical spelling");
    assert_eq!(inv[0]["args"], "Bob");
    assert!(r.sent("b", "command_invoked").is_empty());
    let diags: Vec<(String, String)> = r
        .kinds("diagnostic")
        .iter()
        .map(|d| {
            (
                d["ext"].as_str().unwrap().into(),
                d["message"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        diags.contains(&(
            "a".into(),
            "command /greet conflicts with another extension registering the same name".into()
        )),
        "{diags:?}"
    );
    assert!(
        diags.contains(&(
            "b".into(),
            "command /GREET conflicts with another extension registering the same name".into()
        )),
        "{diags:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn builtin_tools_shadow_and_bad_exposure_is_rejected() {
    let env = Env::new();
    let a = env.ext(
        "shadow",
        json!({"on_ack": [
        tool("bash"),
        {"send": {"type": "register_tool", "name": "odd", "schema": {}, "exposure": "sideways"}},
        ready()
    ], "on": {"tool_call": text_result("extension ran")}}),
    );
    let r = env.run(&[a], json!({"confirm": "yolo", "steps": [
        {"prompt": "go", "replies": [{"tool_calls": [call("bash", json!({"command": "echo builtin ran"})), call("odd", json!({}))]}]}
    ]})).await;
    assert!(
        r.sent("shadow", "tool_call").is_empty(),
        "shadowed/skipped tools never get tool_call"
    );
    let res = r.tool_results();
    assert_eq!(res[0]["text"], "builtin ran\n");
    assert_eq!(res[1]["status"], "failed");
    assert!(r
        .text()
        .contains("tool bash is shadowed by a built-in tool"));
    assert!(r
        .text()
        .contains("tool \\\"odd\\\" has unknown exposure \\\"sideways\\\" (expected one of"));
    assert!(
        env.log("shadow").contains("shadowed by a built-in tool"),
        "shadowing is logged"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn deferred_tools_activate_via_activate_tools() {
    let env = Env::new();
    let a = env.ext("lz", json!({"on_ack": [
        {"send": {"type": "register_tool", "name": "lazy", "schema": {}, "deferred": true}},
        {"send": {"type": "register_tool", "name": "cm", "schema": {}, "exposure": "codemode"}},
        tool("loader"), ready()
    ], "on": {
        "tool_call:loader": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "loaded"}], "activate_tools": ["lazy", "nope"]}}],
        "tool_call:lazy": text_result("lazy ok")
    }}));
    let r = env
        .run(
            &[a],
            json!({"confirm": "yolo", "steps": [
                {"tools": true},
                {"prompt": "1", "replies": [{"tool_calls": [call("lazy", json!({}))]}]},
                {"prompt": "2", "replies": [{"tool_calls": [call("loader", json!({}))]}]},
                {"tools": true},
                {"prompt": "3", "replies": [{"tool_calls": [call("lazy", json!({}))]}]}
            ]}),
        )
        .await;
    let tools = r.kinds("tools");
    assert!(!tools[0]["names"]
        .as_array()
        .unwrap()
        .contains(&json!("lazy")));
    assert!(
        !tools[0]["names"].as_array().unwrap().contains(&json!("cm")),
        "codemode: no direct definition"
    );
    assert!(tools[1]["names"]
        .as_array()
        .unwrap()
        .contains(&json!("lazy")));
    let res = r.tool_results();
    assert_eq!(res[0]["status"], "failed");
    assert_eq!(res[2]["text"], "lazy ok");
}

fn interceptor(name: &str, on: Value, intercept: &[&str]) -> (String, Value) {
    (
        name.to_owned(),
        json!({
            "on_ack": [{"send": {"type": "subscribe", "intercept": intercept}}, ready()],
            "on": on
        }),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn interception_chains_rewrite_in_order_and_first_block_wins() {
    let env = Env::new();
    let (n1, s1) = interceptor(
        "first",
        json!({
            "event_intercept:tool_call": [{"send": {"type": "event_intercept_response", "id": "$in.id",
                "modified_args": {"command": "echo rewritten-by-first"}}}],
            "event_intercept:assistant_message": [{"send": {"type": "event_intercept_response", "id": "$in.id", "replace_text": "[redacted] one"}}],
            "event_intercept:turn_start": [{"send": {"type": "event_intercept_response", "id": "$in.id"}}]
        }),
        &["tool_call", "assistant_message", "turn_start"],
    );
    let (n2, s2) = interceptor(
        "second",
        json!({
            "event_intercept:tool_call": [{"send": {"type": "event_intercept_response", "id": "$in.id", "block": true, "reason": "second says no"}}],
            "event_intercept:assistant_message": [{"send": {"type": "event_intercept_response", "id": "$in.id"}}],
            "event_intercept:turn_start": [{"send": {"type": "event_intercept_response", "id": "$in.id", "block": true, "reason": "step limit"}}]
        }),
        &["tool_call", "assistant_message"],
    );
    let e1 = env.ext(&n1, s1);
    let e2 = env.ext(&n2, s2);
    let r = env.run(&[e1, e2], json!({"confirm": "yolo", "steps": [
        {"prompt": "go", "replies": [{"text": "SECRET one", "tool_calls": [call("bash", json!({"command": "ls"}))]}, {"text": "end"}]}
    ]})).await;
    // The second interceptor sees the first one's rewrite.
    let seen = r.sent("second", "event_intercept");
    let tc: Vec<_> = seen.iter().filter(|f| f["event"] == "tool_call").collect();
    assert_eq!(
        tc[0]["tool_args"],
        json!({"command": "echo rewritten-by-first"})
    );
    let am: Vec<_> = seen
        .iter()
        .filter(|f| f["event"] == "assistant_message")
        .collect();
    assert_eq!(am[0]["text"], "[redacted] one");
    let res = &r.tool_results()[0];
    assert_eq!(res["status"], "blocked");
    assert_eq!(res["text"], "second says no");
    let shown: Vec<&str> = r.strs("assistant", "text");
    // (this fixture replaces every message)
    assert_eq!(shown, vec!["[redacted] one", "[redacted] one"]);
    assert_eq!(
        r.sent("first", "event_intercept")
            .iter()
            .filter(|f| f["event"] == "assistant_message")
            .map(|f| f["text"].as_str().unwrap())
            .collect::<Vec<_>>(),
        vec!["SECRET one", "end"]
    );
    // Order: first is asked before second (load order).
    let order: Vec<&str> = r
        .wire
        .iter()
        .filter(|w| w["frame"]["type"] == "event_intercept" && w["frame"]["event"] == "tool_call")
        .map(|w| w["ext"].as_str().unwrap())
        .collect();
    assert_eq!(order, vec!["first", "second"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn block_stops_the_chain_and_silence_counts_as_allow() {
    let env = Env::new();
    let (n1, s1) = interceptor(
        "blocker",
        json!({
            "event_intercept:tool_call": [{"send": {"type": "event_intercept_response", "id": "$in.id", "block": true, "reason": "no rm"}}]
        }),
        &["tool_call"],
    );
    let (n2, s2) = interceptor(
        "never",
        json!({"event_intercept:tool_call": []}),
        &["tool_call"],
    );
    let (n3, s3) = interceptor(
        "silent",
        json!({"event_intercept:turn_start": []}),
        &["turn_start"],
    );
    let r = env.run(&[env.ext(&n1, s1), env.ext(&n2, s2), env.ext(&n3, s3)], json!({"confirm": "yolo", "timeouts": {"intercept_ms": 1000}, "steps": [
        {"prompt": "go", "replies": [{"tool_calls": [call("bash", json!({"command": "rm -rf x"}))]}, {"text": "after"}]}
    ]})).await;
    assert!(r.sent("never", "event_intercept").is_empty(), "HOST-105");
    assert_eq!(r.tool_results()[0]["status"], "blocked");
    assert!(
        r.text().contains("after"),
        "a silent turn_start interceptor allows"
    );
    assert!(r.kinds("warning").iter().any(|w| w["text"]
        .as_str()
        .unwrap()
        .contains("intercept turn_start: timed out; allowing")));
}

#[tokio::test(flavor = "multi_thread")]
async fn before_agent_start_chain_and_failures() {
    let env = Env::new();
    let append = |tag: &str| json!({"event_intercept:before_agent_start": [{"send": {"type": "event_intercept_response", "id": "$in.id", "system_prompt": format!("{{in.system_prompt}}\n[{tag}]")}}]});
    let (n1, s1) = interceptor("one", append("one"), &["before_agent_start"]);
    let (n2, s2) = interceptor(
        "nul",
        json!({"event_intercept:before_agent_start": [{"send": {"type": "event_intercept_response", "id": "$in.id", "system_prompt": null}}]}),
        &["before_agent_start"],
    );
    let (n3, s3) = interceptor(
        "blk",
        json!({"event_intercept:before_agent_start": [{"send": {"type": "event_intercept_response", "id": "$in.id", "block": true}}]}),
        &["before_agent_start"],
    );
    let (n4, s4) = interceptor("two", append("two"), &["before_agent_start"]);
    let exts = [
        env.ext(&n1, s1),
        env.ext(&n2, s2),
        env.ext(&n3, s3),
        env.ext(&n4, s4),
    ];
    let r = env
        .run(
            &exts,
            json!({"system_prompt": "BASE", "steps": [
                {"prompt": "a", "replies": [{"text": "x"}]},
                {"prompt": "b", "replies": [{"text": "y"}]},
                {"model": {"model": "other"}},
                {"prompt": "c", "replies": [{"text": "z"}]}
            ]}),
        )
        .await;
    let sp = r.kinds("system_prompt");
    assert_eq!(
        sp.len(),
        2,
        "reused within a session; rerun after a model switch"
    );
    assert_eq!(sp[0]["text"], "BASE\n[one]\n[two]");
    assert_eq!(
        sp[1]["text"], "BASE\n[one]\n[two]",
        "each pass starts from the base"
    );
    let reqs = r.sent("two", "event_intercept");
    assert_eq!(
        reqs[0]["system_prompt"], "BASE\n[one]",
        "failures keep the prompt"
    );
    assert_eq!(
        reqs[0]["agent_run_id"],
        r.sent("one", "event_intercept")[0]["agent_run_id"]
    );
    assert_ne!(reqs[0]["agent_run_id"], reqs[1]["agent_run_id"]);
    assert_eq!(reqs[1]["model"], "other");
    let warnings: Vec<&str> = r.strs("warning", "text");
    assert!(
        warnings.iter().any(|w| w.starts_with(
            "[nul] before_agent_start: system_prompt is null; keeping current system prompt"
        )),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("startup hooks cannot block")),
        "{warnings:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn events_follow_the_spec_order_with_one_increasing_sequence() {
    let env = Env::new();
    let all = [
        "session_start",
        "session_end",
        "user_prompt_submit",
        "turn_start",
        "turn_end",
        "tool_call",
        "tool_result",
        "tool_confirmation_requested",
        "permission_decision",
        "assistant_message",
        "pre_compact",
        "post_compact",
        "subagent_start",
        "subagent_stop",
    ];
    let a = env.ext(
        "all",
        json!({"on_ack": [{"send": {"type": "subscribe", "events": all}}, ready()]}),
    );
    let b = env.ext(
        "some",
        json!({"on_ack": [{"send": {"type": "subscribe", "events": ["turn_start"]}}, ready()]}),
    );
    let r = env.run(&[a, b], json!({"steps": [
        {"prompt": "hi", "replies": [{"text": "calling", "tool_calls": [{"name": "bash", "args": {"command": "echo hi"}, "confirm": "approve"}]}, {"text": "done"}]},
        {"compact": {"summary": "s"}},
        {"subagent": {"agent_id": "helper"}},
        {"session": {"id": "s2"}}
    ]})).await;
    assert_eq!(
        r.events("all"),
        vec![
            "session_start",
            "user_prompt_submit",
            "turn_start",
            "assistant_message",
            "tool_call",
            "turn_end",
            "tool_confirmation_requested",
            "permission_decision",
            "tool_result",
            "turn_start",
            "assistant_message",
            "turn_end",
            "pre_compact",
            "post_compact",
            "subagent_start",
            "subagent_stop",
            "session_end",
            "session_start",
            "session_end",
        ]
    );
    let seqs: Vec<u64> = r
        .sent("all", "event")
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    let some: Vec<u64> = r
        .sent("some", "event")
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(r.events("some"), vec!["turn_start", "turn_start"]);
    assert_eq!(some, vec![3, 10], "one manager-wide sequence");
    let ev = r.sent("all", "event");
    let tr = ev.iter().find(|e| e["event"] == "tool_result").unwrap();
    assert_eq!(tr["status"], "completed");
    assert_eq!(tr["executed"], true);
    assert_eq!(tr["result"]["content"][0]["text"], "hi\n");
    assert_eq!(tr["tool_args"], json!({"command": "echo hi"}));
    let pd = ev
        .iter()
        .find(|e| e["event"] == "permission_decision")
        .unwrap();
    assert_eq!(
        (
            pd["decision"].as_str(),
            pd["source"].as_str(),
            pd["stage"].as_str()
        ),
        (Some("approved"), Some("user"), Some("pre_execution"))
    );
    let ends: Vec<_> = ev
        .iter()
        .filter(|e| e["event"] == "session_end")
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert_eq!(ends, vec!["session_switch", "shutdown"]);
    let pre = ev.iter().find(|e| e["event"] == "pre_compact").unwrap();
    let post = ev.iter().find(|e| e["event"] == "post_compact").unwrap();
    assert_eq!(pre["compaction_id"], post["compaction_id"]);
    assert_eq!(post["message_count"], 1);
    for e in &ev {
        assert!(e["session_id"].is_string() && e["cwd"].is_string());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn confirmations_deny_remember_and_local_refusal() {
    let env = Env::new();
    let a = env.ext("watch", json!({"on_ack": [{"send": {"type": "subscribe", "events": ["permission_decision", "tool_confirmation_requested", "tool_result"]}}, ready()]}));
    let r = env.run(&[a], json!({"steps": [
        {"prompt": "1", "replies": [{"tool_calls": [{"name": "bash", "args": {"command": "echo a"}, "confirm": "deny"}]}]},
        {"confirm": ["remember"]},
        {"prompt": "2", "replies": [{"tool_calls": [call("bash", json!({"command": "echo b"})), call("bash", json!({"command": "echo c"}))]}]},
        {"prompt": "3", "replies": [{"tool_calls": [call("read", json!({"path": "../../etc/passwd"}))]}]}
    ]})).await;
    let res = r.tool_results();
    assert_eq!(res[0]["status"], "blocked");
    assert_eq!(res[1]["text"], "b\n");
    assert_eq!(res[2]["text"], "c\n");
    assert_eq!(res[3]["status"], "blocked");
    let pd: Vec<(String, String, String)> = r
        .sent("watch", "event")
        .iter()
        .filter(|e| e["event"] == "permission_decision")
        .map(|e| {
            (
                e["decision"].as_str().unwrap().into(),
                e["source"].as_str().unwrap().into(),
                e["stage"].as_str().unwrap().into(),
            )
        })
        .collect();
    let s = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        pd,
        vec![
            s("denied", "user", "pre_execution"),
            s("approved", "user", "pre_execution"),
            s("approved", "remembered", "pre_execution"),
            s("approved", "policy", "pre_execution"),
            s("denied", "policy", "tool_execution"),
        ]
    );
    assert_eq!(
        r.events("watch")
            .iter()
            .filter(|e| *e == "tool_confirmation_requested")
            .count(),
        2
    );
    let last = r
        .sent("watch", "event")
        .into_iter()
        .rfind(|e| e["event"] == "tool_result")
        .unwrap();
    assert_eq!(
        last["executed"], true,
        "a tool-local refusal is blocked with executed true"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn oversized_system_prompt_is_refused_and_turn_start_can_block() {
    let env = Env::new();
    let huge = "p".repeat(1024 * 1024 + 1);
    let (n1, s1) = interceptor(
        "huge",
        json!({"event_intercept:before_agent_start": [{"send": {"type": "event_intercept_response", "id": "$in.id", "system_prompt": huge}}],
               "event_intercept:turn_start": [{"send": {"type": "event_intercept_response", "id": "$in.id", "block": true, "reason": "step limit"}}]}),
        &["before_agent_start", "turn_start"],
    );
    let r = env
        .run(
            &[env.ext(&n1, s1)],
            json!({"system_prompt": "BASE", "steps": [
                {"prompt": "go", "first_step": 99, "replies": [{"text": "never shown"}]}
            ]}),
        )
        .await;
    assert_eq!(r.kinds("system_prompt")[0]["text"], "BASE");
    assert!(r.kinds("warning")[0]["text"]
        .as_str()
        .unwrap()
        .contains("over the 1048576-byte limit"));
    assert_eq!(
        r.sent("huge", "event_intercept")
            .iter()
            .filter(|f| f["event"] == "turn_start")
            .map(|f| f["step"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![99]
    );
    assert!(r.text().contains("turn blocked: step limit"));
    assert!(
        r.kinds("assistant").is_empty(),
        "no model call after a blocked turn"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn codemode_calls_get_structured_results_and_model_only_is_refused() {
    let env = Env::new();
    let a = env.ext("cm", json!({"on_ack": [
        {"send": {"type": "register_tool", "name": "add", "schema": {}, "exposure": "codemode", "output_schema": {"type": "object"}}},
        {"send": {"type": "register_tool", "name": "secret", "schema": {}, "exposure": "model-only"}},
        tool("plain"), ready()
    ], "on": {
        "tool_call:add": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "sum=5"}], "structured_content": {"sum": 5}}}],
        "tool_call:plain": [{"send": {"type": "tool_result", "id": "$in.id", "is_error": true, "content": [{"type": "text", "text": "nope"}], "structured_content": {"x": 1}}}]
    }}));
    let r = env
        .run(
            &[a],
            json!({"steps": [
                {"codemode": {"name": "add", "args": {}}},
                {"codemode": {"name": "plain"}},
                {"codemode": {"name": "secret"}},
                {"prompt": "x", "replies": [{"tool_calls": [{"name": "add", "args": {}}]}]}
            ]}),
        )
        .await;
    let cm = r.kinds("codemode");
    assert_eq!(cm[0]["value"], json!({"sum": 5}));
    assert_eq!(
        cm[1]["error"], "nope",
        "no output_schema: failed call rejects"
    );
    assert!(cm[2]["error"].as_str().unwrap().contains("model-only"));
    assert_eq!(r.sent("cm", "tool_call").len(), 2);
    assert_eq!(
        r.tool_results().last().unwrap()["status"],
        "failed",
        "no direct definition"
    );
}

// N-6 / HOST-116: an interceptor that never answers `before_agent_start` is
// given up on at the deadline; the prompt stays as it was, the host warns and
// logs it, and the next subscriber still runs from the unchanged prompt.
#[tokio::test(flavor = "multi_thread")]
async fn before_agent_start_timeout_keeps_the_prompt_and_warns() {
    let env = Env::new();
    let (n1, s1) = interceptor(
        "mute",
        json!({"event_intercept:before_agent_start": []}),
        &["before_agent_start"],
    );
    let (n2, s2) = interceptor(
        "after",
        json!({"event_intercept:before_agent_start": [{"send": {"type": "event_intercept_response", "id": "$in.id", "system_prompt": "{in.system_prompt}\n[after]"}}]}),
        &["before_agent_start"],
    );
    let r = env
        .run(
            &[env.ext(&n1, s1), env.ext(&n2, s2)],
            json!({"system_prompt": "BASE", "timeouts": {"before_agent_start_ms": 300}, "steps": [
                {"prompt": "go", "replies": [{"text": "answered"}]}
            ]}),
        )
        .await;
    assert_eq!(r.sent("mute", "event_intercept").len(), 1);
    assert_eq!(
        r.sent("after", "event_intercept")[0]["system_prompt"],
        "BASE",
        "the silent subscriber changed nothing"
    );
    assert_eq!(r.kinds("system_prompt")[0]["text"], "BASE\n[after]");
    let warnings: Vec<&str> = r.strs("warning", "text");
    assert_eq!(
        warnings,
        vec!["[mute] before_agent_start: timed out; keeping current system prompt"]
    );
    let log = env.log("mute");
    assert!(
        log.contains("before_agent_start: timed out; keeping current system prompt"),
        "the diagnostic is logged: {log}"
    );
    assert!(r.text().contains("answered"), "the turn goes on");
    assert!(
        r.kinds("disconnected").is_empty(),
        "{:?}",
        r.kinds("disconnected")
    );
}

// N-6 / HOST-116: the `before_agent_start` deadline includes the request
// write: an extension that stops reading (so the ~1 MiB request cannot be
// written) is given up on at that deadline, well before the general write
// bound; the prompt is kept, and the blocked write closes its input pipe.
#[tokio::test(flavor = "multi_thread")]
async fn before_agent_start_deadline_includes_a_blocked_write() {
    let env = Env::new();
    let deaf = env.ext(
        "deaf",
        json!({"on_ack": [{"send": {"type": "subscribe", "intercept": ["before_agent_start"]}}, ready(), {"stop_reading": true}]}),
    );
    let base = "b".repeat(1024 * 1024);
    let r = env
        .run(
            &[deaf],
            json!({"system_prompt": base, "timeouts": {"before_agent_start_ms": 300, "write_ms": 60000}, "steps": [
                {"prompt": "go", "replies": [{"text": "answered"}]}
            ]}),
        )
        .await;
    assert_eq!(
        r.kinds("system_prompt")[0]["text"].as_str().map(str::len),
        Some(base.len()),
        "the prompt is kept"
    );
    let warnings: Vec<&str> = r.strs("warning", "text");
    assert_eq!(
        warnings,
        vec!["[deaf] before_agent_start: timed out; keeping current system prompt"]
    );
    let d = r.kinds("disconnected");
    assert_eq!(d.len(), 1, "{:?}", r.obs);
    assert!(
        d[0]["reason"]
            .as_str()
            .unwrap()
            .contains("before_agent_start request write timed out"),
        "{}",
        d[0]
    );
    assert!(r.text().contains("answered"), "the turn goes on");
}

// N-21 / HOST-116: the `system_prompt` limit is measured on the JSON-encoded
// string (quotes and escapes count): exactly 1 048 576 encoded bytes is
// accepted, one more is refused, even though its raw text is shorter.
#[tokio::test(flavor = "multi_thread")]
async fn system_prompt_limit_is_exact_on_the_encoded_string() {
    let limit = 1024 * 1024;
    // 2 quotes + 2 bytes for the escaped newline + the rest.
    let fits = format!("\n{}", "p".repeat(limit - 4));
    assert_eq!(serde_json::to_string(&fits).unwrap().len(), limit);
    let over = format!("{fits}p");
    assert!(over.len() < limit, "raw text under the limit");
    let env = Env::new();
    let set = |p: &str| json!({"event_intercept:before_agent_start": [{"send": {"type": "event_intercept_response", "id": "$in.id", "system_prompt": p}}]});
    let (n1, s1) = interceptor("fits", set(&fits), &["before_agent_start"]);
    let (n2, s2) = interceptor("over", set(&over), &["before_agent_start"]);
    let r = env
        .run(
            &[env.ext(&n1, s1), env.ext(&n2, s2)],
            json!({"system_prompt": "BASE", "steps": [
                {"prompt": "go", "replies": [{"text": "x"}]}
            ]}),
        )
        .await;
    assert!(
        r.sent("over", "event_intercept")[0]["system_prompt"] == fits.as_str(),
        "the exactly-at-limit prompt was accepted and chained"
    );
    assert!(
        r.kinds("system_prompt")[0]["text"] == fits.as_str(),
        "the over-limit prompt was not applied"
    );
    let warnings: Vec<&str> = r.strs("warning", "text");
    assert_eq!(
        warnings,
        vec!["[over] before_agent_start: system_prompt is 1048577 bytes encoded, over the 1048576-byte limit; keeping current system prompt"]
    );
}

// N-22 / HOST-146: a subscribed `tool_result` event carries at most 256 KiB
// of text, cut at a UTF-8 boundary, with `truncated:true`.
#[tokio::test(flavor = "multi_thread")]
async fn tool_result_event_over_the_budget_is_truncated_at_a_char_boundary() {
    let env = Env::new();
    let a = env.ext(
        "watch",
        json!({"on_ack": [{"send": {"type": "subscribe", "events": ["tool_result"]}}, ready()]}),
    );
    // 1 + 2 × 150 000 bytes: byte 262 144 falls inside an "é".
    let command = "python3 -c \"print('a' + '\\u00e9' * 150000, end='')\"";
    let r = env
        .run(
            &[a],
            json!({"confirm": "yolo", "steps": [
                {"prompt": "go", "replies": [{"tool_calls": [call("bash", json!({"command": command}))]}, {"text": "done"}]}
            ]}),
        )
        .await;
    let full = format!("a{}", "é".repeat(150_000));
    assert_eq!(r.tool_results()[0]["status"], "completed");
    let ev = r.sent("watch", "event");
    let tr = ev.iter().find(|e| e["event"] == "tool_result").unwrap();
    assert_eq!(
        tr["result"]["truncated"], true,
        "{}",
        tr["result"]["truncated"]
    );
    let content = tr["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 1);
    let text = content[0]["text"].as_str().unwrap();
    assert_eq!(text.len(), 256 * 1024 - 1, "cut before the split character");
    assert_eq!(text, &full[..256 * 1024 - 1]);
}

// N-25 / HOST-143: compaction events carry token_estimate = serialized text
// bytes / 4 (rounded down), 0 included, for a known conversation.
#[tokio::test(flavor = "multi_thread")]
async fn compaction_events_carry_the_bytes_over_four_token_estimate() {
    let env = Env::new();
    let a = env.ext(
        "watch",
        json!({"on_ack": [{"send": {"type": "subscribe", "events": ["pre_compact", "post_compact"]}}, ready()]}),
    );
    let prompt = "p".repeat(40);
    let args = json!({"command": "echo hi"});
    let last = "d".repeat(22);
    let r = env
        .run(
            &[a],
            json!({"confirm": "yolo", "steps": [
                {"compact": {"status": "cancelled"}},
                {"prompt": prompt, "replies": [
                    {"text": "calling", "tool_calls": [call("bash", args.clone())]},
                    {"text": last}
                ]},
                {"compact": {"status": "failed", "error": "provider down"}},
                {"compact": {"summary": "s".repeat(10)}}
            ]}),
        )
        .await;
    // user + assistant text + its tool call's arguments + tool output + reply
    let bytes = prompt.len()
        + "calling".len()
        + serde_json::to_string(&args).unwrap().len()
        + "hi\n".len()
        + last.len();
    assert_eq!(bytes, 93);
    let est: Vec<(&str, u64, u64)> = r
        .sent("watch", "event")
        .iter()
        .map(|e| {
            (
                e["event"].as_str().unwrap(),
                e["message_count"].as_u64().unwrap(),
                e["token_estimate"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        est,
        vec![
            ("pre_compact", 0, 0),
            ("post_compact", 0, 0),
            ("pre_compact", 4, 23),
            ("post_compact", 4, 23),
            ("pre_compact", 4, 23),
            ("post_compact", 1, 2),
        ]
    );
}

/// The in-memory wire log gives back every record, also one whose frame is
/// valid JSON that `serde_json::Value` cannot hold (a lone surrogate an
/// extension wrote): it used to drop it silently. Found by the host_intake
/// fuzz target (fuzz/regressions/host_intake/lone-surrogate-in-the-wire-log).
#[test]
fn memory_wire_log_keeps_a_frame_with_a_lone_surrogate() {
    use zot_host::wire::{Dir, WireLog};
    let (wire, mem) = WireLog::memory();
    let odd = br#"{"type":"submit","te\ud800xt":"hi"}"#;
    wire.line("odd", Dir::ExtToHost, odd);
    wire.line("odd", Dir::ExtToHost, br#"{"type":"ready"}"#);
    let records = mem.lines();
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(records[0]["dir"], "ext->host");
    assert_eq!(records[0]["frame_text"], std::str::from_utf8(odd).unwrap());
    assert_eq!(records[1]["frame"]["type"], "ready");
}

/// `MemoryWire::count` agrees with `lines` on every kind of record: a
/// plain frame, one `serde_json::Value` cannot hold, a line that is no
/// JSON at all, an oversize line, and the host's own writes.
#[test]
fn memory_wire_log_counts_records_by_direction() {
    use zot_host::wire::{Dir, WireLog};
    let (wire, mem) = WireLog::memory();
    wire.line("x", Dir::ExtToHost, br#"{"type":"ready"}"#);
    wire.line(
        "x",
        Dir::ExtToHost,
        br#"{"type":"submit","te\ud800xt":"hi"}"#,
    );
    wire.line("x", Dir::ExtToHost, b"not json \x1b[2J\xff");
    wire.oversize("x", 20_000_000);
    wire.line("x", Dir::HostToExt, br#"{"type":"hello_ack"}"#);
    let by_lines = |dir: &str| mem.lines().iter().filter(|r| r["dir"] == dir).count();
    assert_eq!(mem.count(Dir::ExtToHost), 4);
    assert_eq!(mem.count(Dir::ExtToHost), by_lines("ext->host"));
    assert_eq!(mem.count(Dir::HostToExt), 1);
    assert_eq!(mem.count(Dir::HostToExt), by_lines("host->ext"));
}
