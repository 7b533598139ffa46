//! Continuous mode: parents required, durable keys, replay from SQLite.

mod common;

use common::*;
use serde_json::{json, Value};

fn spec() -> Value {
    let nested = |extra: Value| {
        let mut f = json!({"type": "call_tool", "id": "$in.id", "name": "echo", "args": {"text": "{in.args.text}"}, "parent_id": "$in.id"});
        f.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!([{"send": f}])
    };
    json!({
        "on_ack": [tool("echo"), tool("compose"), tool("keyed"), tool("badkey"), cmd("orphan"), ready()],
        "on": {
            "tool_call:echo": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "echo:{in.args.text}"}]}}],
            "tool_call:compose": nested(json!({})),
            "tool_call:keyed": nested(json!({"key": "first-echo"})),
            "tool_call:badkey": nested(json!({"key": "a/b"})),
            "command_invoked:orphan": [{"send": {"type": "call_tool", "id": "$in.id", "name": "echo", "args": {}}}],
            "tool_result": [
                {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "composed:{in.content.0.text}"}]}},
                {"send": {"type": "command_response", "id": "$in.id", "action": "display", "display": "called:{in.content.0.text}"}}
            ]
        }
    })
}

fn call(id: &str, name: &str, text: &str) -> Value {
    json!({"prompt": name, "replies": [{"tool_calls": [{"id": id, "name": name, "args": {"text": text}}]}]})
}

#[tokio::test(flavor = "multi_thread")]
async fn durable_calls_replay_and_refuse_reused_keys() {
    let env = Env::new();
    let ext = env.ext("dur", spec());
    let script = |steps: Value| json!({"continuous": true, "confirm": "yolo", "session_id": "s", "steps": steps});
    let r1 = env
        .run(
            std::slice::from_ref(&ext),
            script(json!([
                call("toolu_a", "compose", "one"),
                call("toolu_b", "keyed", "two"),
                call("toolu_c", "badkey", "x"),
                {"command": "/orphan"}
            ])),
        )
        .await;
    assert_eq!(
        r1.sent("dur", "hello_ack")[0]["capabilities"],
        json!(["call_tool", "call_tool_durable"])
    );
    let texts = |r: &Run| -> Vec<String> {
        r.tool_results()
            .iter()
            .filter(|t| t["tool_id"].as_str().unwrap().starts_with("toolu_"))
            .map(|t| t["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        texts(&r1),
        vec![
            "composed:echo:one",
            "composed:echo:two",
            "composed:invalid call key"
        ]
    );
    assert!(r1
        .text()
        .contains("called:parent_id is required in continuous mode"));
    let echo_calls = |r: &Run| {
        r.sent("dur", "tool_call")
            .iter()
            .filter(|c| c["name"] == "echo")
            .count()
    };
    assert_eq!(echo_calls(&r1), 2);

    // The same parents replayed in a new host run: nested results come from
    // the store; nothing runs again. A reused key with other args is refused.
    let r2 = env
        .run(
            std::slice::from_ref(&ext),
            script(json!([
                call("toolu_a", "compose", "one"),
                call("toolu_b", "keyed", "changed")
            ])),
        )
        .await;
    assert_eq!(echo_calls(&r2), 0, "{:?}", r2.sent("dur", "tool_call"));
    assert_eq!(
        texts(&r2),
        vec![
            "composed:echo:one",
            "composed:call key reused with different tool or arguments"
        ]
    );
    assert!(env.zot_home.join("state/durable-calls.sqlite").exists());
}

// N-24 / HOST-99: a durable key may have up to 128 bytes and no NUL; a
// 129-byte key and a key with NUL are refused without running anything.
#[tokio::test(flavor = "multi_thread")]
async fn durable_keys_over_128_bytes_or_with_nul_are_refused() {
    let env = Env::new();
    let mut s = spec();
    let keyed = |key: &str| json!([{"send": {"type": "call_tool", "id": "$in.id", "name": "echo", "args": {"text": "{in.args.text}"}, "parent_id": "$in.id", "key": key}}]);
    s["on"]["tool_call:maxkey"] = keyed(&"k".repeat(128));
    s["on"]["tool_call:longkey"] = keyed(&"k".repeat(129));
    s["on"]["tool_call:nulkey"] = keyed("a\u{0}b");
    let on_ack = s["on_ack"].as_array_mut().unwrap();
    on_ack.insert(0, tool("maxkey"));
    on_ack.insert(0, tool("longkey"));
    on_ack.insert(0, tool("nulkey"));
    let ext = env.ext("dur", s);
    let r = env
        .run(
            &[ext],
            json!({"continuous": true, "confirm": "yolo", "session_id": "s", "steps": [
                call("toolu_a", "maxkey", "max"),
                call("toolu_b", "longkey", "long"),
                call("toolu_c", "nulkey", "nul")
            ]}),
        )
        .await;
    let texts: Vec<(&str, &str)> = r
        .tool_results()
        .iter()
        .filter(|t| t["tool_id"].as_str().unwrap().starts_with("toolu_"))
        .map(|t| (t["name"].as_str().unwrap(), t["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        texts,
        vec![
            ("maxkey", "composed:echo:max"),
            ("longkey", "composed:invalid call key"),
            ("nulkey", "composed:invalid call key"),
        ]
    );
    let echoed: Vec<&serde_json::Value> = r
        .sent("dur", "tool_call")
        .into_iter()
        .filter(|c| c["name"] == "echo")
        .map(|c| &c["args"]["text"])
        .collect();
    assert_eq!(echoed, vec!["max"], "refused keys run nothing");
}

// `#1` is a valid key and the first keyless call is the parent's call 1: they
// are different calls. In either order both run (neither is replayed from
// the other nor refused as a reused key), and a replay of the parents hands
// each its own recorded result.
#[tokio::test(flavor = "multi_thread")]
async fn a_key_spelt_like_a_keyless_call_is_another_call() {
    let env = Env::new();
    let call_tool = |text: &str, key: Option<&str>| {
        let mut f = json!({"type": "call_tool", "id": "$in.id", "name": "echo", "args": {"text": text}, "parent_id": "$in.id"});
        if let Some(k) = key {
            f["key"] = json!(k);
        }
        json!({"send": f})
    };
    let finish = json!({"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "composed:{in.content.0.text}"}]}});
    // The parents run one after the other; each makes its second nested
    // call when the first result is back, and ends with the second result.
    let nth_result =
        |n: u32, then: Value| json!({"count": format!("result{n}"), "to": n, "do": [then]});
    let spec = json!({
        "on_ack": [tool("echo"), tool("keyed_first"), tool("keyless_first"), ready()],
        "on": {
            "tool_call:echo": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "echo:{in.args.text}"}]}}],
            "tool_call:keyed_first": [call_tool("keyed", Some("#1"))],
            "tool_call:keyless_first": [call_tool("same", None)],
            "tool_result": [
                nth_result(1, call_tool("keyless", None)),
                nth_result(2, finish.clone()),
                nth_result(3, call_tool("same", Some("#1"))),
                nth_result(4, finish),
            ]
        }
    });
    let ext = env.ext("dur", spec);
    let script = json!({"continuous": true, "confirm": "yolo", "session_id": "s", "steps": [
        call("toolu_a", "keyed_first", ""),
        call("toolu_b", "keyless_first", "")
    ]});
    let parents = |r: &Run| -> Vec<String> {
        r.tool_results()
            .iter()
            .filter(|t| t["tool_id"].as_str().unwrap().starts_with("toolu_"))
            .map(|t| t["text"].as_str().unwrap().to_owned())
            .collect()
    };
    let echoed = |r: &Run| -> Vec<String> {
        r.sent("dur", "tool_call")
            .iter()
            .filter(|c| c["name"] == "echo")
            .map(|c| c["args"]["text"].as_str().unwrap().to_owned())
            .collect()
    };
    let r1 = env.run(std::slice::from_ref(&ext), script.clone()).await;
    assert_eq!(
        parents(&r1),
        vec!["composed:echo:keyless", "composed:echo:same"]
    );
    assert_eq!(echoed(&r1), vec!["keyed", "keyless", "same", "same"]);
    assert!(!r1.text().contains("replayed"), "{}", r1.text());

    let r2 = env.run(&[ext], script).await;
    assert_eq!(
        parents(&r2),
        vec!["composed:echo:keyless", "composed:echo:same"]
    );
    assert_eq!(echoed(&r2), Vec::<String>::new(), "all four replayed");
}
