//! `call_tool` rules (§9): validation order, parent chains, deadline,
//! cancellation, observation budget, origin_extension.

mod common;

use common::*;
use serde_json::{json, Value};

/// A tool that calls `next` with itself as parent and returns
/// `composed:<inner text>`.
fn composer(next: &str, parent: Value) -> Value {
    json!([{"send": {"type": "call_tool", "id": "$in.id", "name": next, "args": {"text": "inner"}, "parent_id": parent}}])
}

fn caller_spec(extra_on: Value) -> Value {
    let mut on = json!({
        "tool_call:echo": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "echo:{in.args.text}"}]}}],
        "tool_call:compose": composer("echo", json!("$in.id")),
        "tool_call:selfcall": composer("selfcall", json!("$in.id")),
        "tool_call:noparent": [{"send": {"type": "call_tool", "id": "$in.id", "name": "echo", "args": {}}}],
        "tool_call:badparent": composer("echo", json!("nope")),
        "tool_call:t1": composer("t2", json!("$in.id")),
        "tool_call:t2": composer("t3", json!("$in.id")),
        "tool_call:t3": composer("t4", json!("$in.id")),
        "tool_call:t4": composer("t5", json!("$in.id")),
        "tool_call:t5": composer("echo", json!("$in.id")),
        // A host tool_result answers our call_tool whose id is the outer
        // tool_call id or the command id: answer both (unknown ids are ignored).
        "tool_result": [
            {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "composed:{in.content.0.text}"}]}},
            {"send": {"type": "command_response", "id": "$in.id", "action": "display", "display": "called:{in.content.0.text}"}}
        ],
        "command_invoked:cmdcall": [{"send": {"type": "call_tool", "id": "$in.id", "name": "bash", "args": {"command": "echo via-command"}}}],
        "command_invoked:badargs": [{"send": {"type": "call_tool", "id": "$in.id", "name": "bash", "args": [1]}}],
        "command_invoked:bigcall": [{"send": {"type": "call_tool", "id": "$in.id", "name": "bash", "args": {"command": "head -c 300000 /dev/zero | tr '\\0' y"}}}],
        "command_invoked:cancelcall": [
            {"send": {"type": "call_tool", "id": "$in.id", "name": "hang", "args": {}}},
            {"send": {"type": "call_tool_cancel", "id": "$in.id"}}
        ],
        "command_invoked:slowcall": [{"send": {"type": "call_tool", "id": "$in.id", "name": "hang", "args": {}}}],
        "event_intercept:tool_call": [{"send": {"type": "event_intercept_response", "id": "$in.id"}}]
    });
    if let Value::Object(m) = extra_on {
        on.as_object_mut().unwrap().extend(m);
    }
    let mut ack = vec![
        json!({"send": {"type": "subscribe", "events": ["tool_call", "tool_result", "permission_decision"], "intercept": ["tool_call"]}}),
    ];
    for c in ["cmdcall", "badargs", "bigcall", "cancelcall", "slowcall"] {
        ack.push(cmd(c));
    }
    for t in [
        "echo",
        "compose",
        "selfcall",
        "noparent",
        "badparent",
        "t1",
        "t2",
        "t3",
        "t4",
        "t5",
    ] {
        ack.push(tool(t));
    }
    ack.push(ready());
    json!({"on_ack": ack, "on": on})
}

fn hanger(env: &Env) -> std::path::PathBuf {
    env.ext("hanger", json!({"on_ack": [tool("hang"), ready()]}))
}

/// The host's answers to call_tool, by id.
fn answers<'a>(r: &'a Run, ext: &str) -> Vec<&'a Value> {
    r.sent(ext, "tool_result")
}

fn model_call(name: &str) -> Value {
    json!({"prompt": name, "replies": [{"tool_calls": [{"name": name, "args": {"text": "x"}}]}]})
}

#[tokio::test(flavor = "multi_thread")]
async fn parent_chains_compose_and_refuse_cycles_depth_and_bad_parents() {
    let env = Env::new();
    let c = env.ext("caller", caller_spec(json!({})));
    let r = env.run(&[c], json!({"confirm": "yolo", "steps": [
        model_call("compose"), model_call("selfcall"), model_call("noparent"), model_call("badparent"), model_call("t1")
    ]})).await;
    let texts: Vec<&str> = r
        .tool_results()
        .iter()
        .filter(|t| t["tool_id"].as_str().unwrap().starts_with("toolu_"))
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        vec![
            "composed:echo:inner",
            "composed:tool call cycle detected",
            "composed:parent_id is required while an extension tool is active",
            "composed:unknown or expired parent tool call",
            "composed:composed:composed:composed:tool call depth limit reached",
        ]
    );
    // Nested calls carry origin_extension on events and interception requests.
    let ev = r.sent("caller", "event");
    let nested: Vec<_> = ev
        .iter()
        .filter(|e| e["event"] == "tool_call" && e["tool_name"] == "echo")
        .collect();
    assert_eq!(nested[0]["origin_extension"], "caller");
    let ic: Vec<_> = r
        .sent("caller", "event_intercept")
        .into_iter()
        .filter(|e| e["tool_name"] == "echo")
        .collect();
    assert_eq!(ic[0]["origin_extension"], "caller");
    assert!(answers(&r, "caller").iter().all(|a| a["name"].is_string()));
}

#[tokio::test(flavor = "multi_thread")]
async fn commands_call_tools_with_budget_and_errors() {
    let env = Env::new();
    let c = env.ext("caller", caller_spec(json!({})));
    let plain = env.ext("plain", json!({
        "hello": {"type": "hello", "name": "plain", "version": "1", "capabilities": ["commands"]},
        "on_ack": [cmd("try"), ready()],
        "on": {"command_invoked:try": [{"send": {"type": "call_tool", "id": "$in.id", "name": "bash", "args": {}}}, {"send": {"type": "command_response", "id": "$in.id", "action": "noop"}}]}
    }));
    let r = env.run(&[c, plain], json!({"confirm": "yolo", "steps": [
        {"command": "/cmdcall"}, {"command": "/badargs"}, {"command": "/bigcall"}, {"command": "/try"}
    ]})).await;
    let a = answers(&r, "caller");
    assert_eq!(a[0]["content"][0]["text"], "via-command\n");
    assert_eq!(a[0]["name"], "bash");
    assert!(a[0].get("is_error").is_none(), "OP-22: false is omitted");
    assert_eq!(a[1]["is_error"], true);
    assert_eq!(
        a[1]["content"][0]["text"],
        "call_tool requires a name and JSON object args"
    );
    assert_eq!(a[2]["truncated"], true);
    assert_eq!(
        a[2]["content"][0]["text"].as_str().unwrap().len(),
        256 * 1024
    );
    assert!(r.text().contains("called:via-command"));
    let p = answers(&r, "plain");
    assert_eq!(
        p[0]["content"][0]["text"],
        "extension did not opt in to call_tool"
    );
    let tr = r
        .sent("caller", "event")
        .into_iter()
        .find(|e| e["event"] == "tool_result" && e["tool_name"] == "bash")
        .unwrap();
    assert_eq!(tr["origin_extension"], "caller");
}

#[tokio::test(flavor = "multi_thread")]
async fn call_tool_cancel_and_deadline_still_answer() {
    let env = Env::new();
    let c = env.ext("caller", caller_spec(json!({})));
    let h = hanger(&env);
    let r = env
        .run(
            &[c, h],
            json!({"confirm": "yolo", "timeouts": {"command_ms": 5000, "call_tool_ms": 1500}, "steps": [
                {"command": "/cancelcall"}, {"command": "/slowcall"}
            ]}),
        )
        .await;
    let a = answers(&r, "caller");
    assert_eq!(a.len(), 2, "a terminal tool_result for each call (OP-28)");
    assert_eq!(a[0]["is_error"], true);
    assert!(
        a[0]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("cancelled"),
        "{}",
        a[0]
    );
    assert_eq!(a[1]["is_error"], true);
    assert!(
        a[1]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{}",
        a[1]
    );
    let statuses: Vec<&str> = r
        .tool_results()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, vec!["cancelled", "timed_out"]);
}

/// The host's answer to the `call_tool` with this id.
fn answer<'a>(r: &'a Run, ext: &str, id: &str) -> &'a Value {
    let a: Vec<_> = answers(r, ext)
        .into_iter()
        .filter(|a| a["id"] == id)
        .collect();
    assert_eq!(a.len(), 1, "one answer to {id}: {:?}", answers(r, ext));
    a[0]
}

// N-8 / HOST-90 (§7.4): reached through `call_tool`, an interactive tool is
// still cut by the call deadline, even in the interactive TUI where a model
// call of it has no reply deadline (N-4). The tool never answers, so only the
// call deadline can end the call.
#[tokio::test(flavor = "multi_thread")]
async fn call_tool_deadline_applies_to_interactive_tools() {
    let env = Env::new();
    let asker = env.ext(
        "asker",
        json!({
            "on_ack": [{"send": {"type": "register_tool", "name": "ask", "schema": {}, "interactive": true}}, ready()],
            "on": {"tool_call:ask": []}
        }),
    );
    let caller = env.ext(
        "caller",
        json!({
            "on_ack": [cmd("callask"), ready()],
            "on": {
                "command_invoked:callask": [{"send": {"type": "call_tool", "id": "$in.id", "name": "ask", "args": {}}}],
                "tool_result": [{"send": {"type": "command_response", "id": "$in.id", "action": "display", "display": "called:{in.content.0.text}"}}]
            }
        }),
    );
    let r = env
        .run(
            &[asker, caller],
            json!({"timeouts": {"call_tool_ms": 500, "command_ms": 10_000}, "steps": [
                {"command": "/callask"}
            ]}),
        )
        .await;
    assert_eq!(
        r.sent("asker", "tool_call").len(),
        1,
        "the tool was reached"
    );
    let a = answers(&r, "caller");
    assert_eq!(a.len(), 1, "{a:?}");
    assert_eq!(a[0]["name"], "ask");
    assert_eq!(a[0]["is_error"], true);
    let text = a[0]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("timed out"), "{text}");
    let res = r.tool_results();
    assert_eq!(res.len(), 1, "{res:?}");
    assert_eq!(res[0]["status"], "timed_out", "{}", res[0]);
    // Given up on: the interactive tool is asked to clean up.
    let call_id = r.sent("asker", "tool_call")[0]["id"].clone();
    let cancels: Vec<_> = r
        .sent("asker", "tool_cancel")
        .iter()
        .map(|c| c["id"].clone())
        .collect();
    assert_eq!(cancels, vec![call_id]);
    assert!(r.text().contains("called:"), "the command got its answer");
}

// N-8 / HOST-90 with OP-1 (the project's reading: the call deadline counts
// execution only, never the time a confirmation waits for the user). The
// caller asks for `write` (needs confirmation) and then for a tool that never
// answers, both under the same short call deadline. The user only approves
// the write once the second call has timed out, i.e. after more than a full
// deadline counted from the write's arrival; the write still runs and
// succeeds.
#[tokio::test(flavor = "multi_thread")]
async fn call_tool_deadline_does_not_count_the_confirmation_wait() {
    let env = Env::new();
    let caller = env.ext(
        "caller",
        json!({
            "on_ack": [cmd("go"), ready()],
            "on": {
                "command_invoked:go": [
                    {"send": {"type": "call_tool", "id": "w", "name": "write", "args": {"path": "out.txt", "content": "approved late"}}},
                    {"send": {"type": "call_tool", "id": "h", "name": "hang", "args": {}}},
                    {"send": {"type": "command_response", "id": "$in.id", "action": "noop"}}
                ],
                "tool_result": [{"send": {"type": "notify", "level": "info", "message": "answered {in.id}"}}]
            }
        }),
    );
    let h = hanger(&env);
    let r = env
        .run(
            &[caller, h],
            json!({"default_answer": "wait", "timeouts": {"call_tool_ms": 1000}, "steps": [
                {"command": "/go"},
                {"wait": {"type": "notify", "fields": {"message": "answered h"}}},
                {"confirm": "approve", "wait": {"type": "notify", "fields": {"message": "answered w"}}}
            ]}),
        )
        .await;
    assert_eq!(r.failures, 0, "{:?}", r.obs);
    let hang = answer(&r, "caller", "h");
    assert_eq!(hang["is_error"], true);
    assert!(
        hang["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{hang}"
    );
    let write = answer(&r, "caller", "w");
    assert!(write.get("is_error").is_none(), "{write}");
    assert_eq!(write["content"][0]["text"], "wrote 13 bytes to out.txt");
    assert_eq!(
        std::fs::read_to_string(env.cwd.join("out.txt")).unwrap(),
        "approved late"
    );
    // The user answered after the other call's deadline had passed.
    let pos = |pred: &dyn Fn(&Value) -> bool| r.obs.iter().position(pred).unwrap();
    let timed_out =
        pos(&|o| o["kind"] == "tool_result" && o["name"] == "hang" && o["status"] == "timed_out");
    let confirmed = pos(&|o| o["kind"] == "confirmation" && o["name"] == "write");
    let written =
        pos(&|o| o["kind"] == "tool_result" && o["name"] == "write" && o["status"] == "completed");
    assert!(timed_out < confirmed && confirmed < written, "{:?}", r.obs);
}

// N-22 / HOST-93 (OP-23): a `call_tool` reply is held to the observation
// budget. Another extension's tool, called through `call_tool`, returns
// 128 blocks (kept whole), 129 blocks (the 129th dropped, `truncated`),
// exactly 256 KiB of text (kept whole), and more than 256 KiB whose cut falls
// inside a 2-byte character (cut before it, `truncated`).
#[tokio::test(flavor = "multi_thread")]
async fn call_tool_replies_from_another_extension_respect_the_budget() {
    let env = Env::new();
    let blocks = |n: usize| -> Value {
        (0..n)
            .map(|i| json!({"type": "text", "text": format!("b{i}")}))
            .collect()
    };
    let result = |content: Value| json!([{"send": {"type": "tool_result", "id": "$in.id", "content": content}}]);
    let first = "x".repeat(200_001);
    let second = "é".repeat(40_000);
    let tools = ["b128", "b129", "exact", "over"];
    let big = env.ext(
        "big",
        json!({
            "on_ack": [tool("b128"), tool("b129"), tool("exact"), tool("over"), ready()],
            "on": {
                "tool_call:b128": result(blocks(128)),
                "tool_call:b129": result(blocks(129)),
                "tool_call:exact": result(json!([{"type": "text", "text": "y".repeat(256 * 1024)}])),
                "tool_call:over": result(json!([{"type": "text", "text": first}, {"type": "text", "text": second}]))
            }
        }),
    );
    let mut on = serde_json::Map::new();
    let mut ack = Vec::new();
    for t in tools {
        ack.push(cmd(t));
        on.insert(
            format!("command_invoked:{t}"),
            json!([{"send": {"type": "call_tool", "id": "$in.id", "name": t, "args": {}}}]),
        );
    }
    ack.push(ready());
    on.insert(
        "tool_result".into(),
        json!([{"send": {"type": "command_response", "id": "$in.id", "action": "noop"}}]),
    );
    let caller = env.ext("caller", json!({"on_ack": ack, "on": on}));
    let steps: Vec<Value> = tools
        .iter()
        .map(|t| json!({"command": format!("/{t}")}))
        .collect();
    let r = env.run(&[big, caller], json!({"steps": steps})).await;
    let a = answers(&r, "caller");
    assert_eq!(a.len(), 4, "{:?}", r.obs);
    let names: Vec<&str> = a.iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(names, tools);
    let texts = |x: &Value| -> Vec<String> {
        x["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["text"].as_str().unwrap().to_owned())
            .collect()
    };
    let want: Vec<String> = (0..128).map(|i| format!("b{i}")).collect();
    // 128 blocks: all kept, nothing marked.
    assert_eq!(texts(a[0]), want);
    assert!(a[0].get("truncated").is_none(), "{:?}", a[0]["truncated"]);
    // 129 blocks: the first 128 kept, the last dropped.
    assert_eq!(texts(a[1]), want);
    assert_eq!(a[1]["truncated"], true);
    // Exactly the byte budget: kept whole.
    assert_eq!(texts(a[2]), vec!["y".repeat(256 * 1024)]);
    assert!(a[2].get("truncated").is_none(), "{:?}", a[2]["truncated"]);
    // Over it: 62 143 bytes were left for the second block, which ends
    // inside an "é": cut before it.
    let t = texts(a[3]);
    assert_eq!(t.len(), 2);
    assert_eq!(t[0], first);
    assert_eq!(t[1], "é".repeat(31_071));
    assert_eq!(t[0].len() + t[1].len(), 256 * 1024 - 1);
    assert_eq!(a[3]["truncated"], true);
    for x in &a {
        assert!(x.get("is_error").is_none(), "{}", x["name"]);
    }
}

/// Arguments that are valid JSON but that a `serde_json::Value` cannot
/// hold (a lone UTF-16 surrogate escape, a number beyond `f64`) panicked
/// the host's task that announces the call, so the call was never answered
/// (found by the host_intake fuzz target; the input is kept in
/// fuzz/regressions/host_intake/lone-surrogate-in-call-tool-args). Each call
/// is answered, and observed with its arguments as their JSON text.
#[tokio::test(flavor = "multi_thread")]
async fn call_tool_args_a_value_cannot_hold_are_answered() {
    let env = Env::new();
    let surrogate = r#"{"command":"echo \ud800"}"#;
    let huge = r#"{"command":"echo big","n":1e400}"#;
    let call = |args: &str| json!([{"raw": format!(r#"{{"type":"call_tool","id":"{{in.id}}","name":"bash","args":{args}}}"#)}]);
    let c = env.ext("odd", json!({
        "hello": {"type": "hello", "name": "odd", "version": "1", "capabilities": ["commands", "call_tool"]},
        "on_ack": [cmd("surrogate"), cmd("huge"), ready()],
        "on": {
            "command_invoked:surrogate": call(surrogate),
            "command_invoked:huge": call(huge),
            "tool_result": [{"send": {"type": "command_response", "id": "$in.id", "action": "noop"}}]
        }
    }));
    let r = env
        .run(
            &[c],
            json!({"confirm": "yolo", "steps": [{"command": "/surrogate"}, {"command": "/huge"}]}),
        )
        .await;
    assert_eq!(r.sent("odd", "tool_result").len(), 2, "both calls answered");
    let shown: Vec<&Value> = r.kinds("tool_call").iter().map(|o| &o["args"]).collect();
    assert_eq!(shown, [&json!(surrogate), &json!(huge)]);
}
