//! Panels, notes, submit, command actions and the host-mode rules (§10, §14).

mod common;

use common::*;
use serde_json::{json, Value};

fn ui_ext(env: &Env) -> std::path::PathBuf {
    env.ext("ui", json!({
        "on_ack": [cmd("panel"), cmd("note"), cmd("clear"), cmd("submit"), cmd("insert"), cmd("oops"),
                   cmd("commit"), cmd("weird"), cmd("greet"), cmd("badtp"), tool("echo"),
                   {"send": {"type": "register_tool", "name": "ask", "schema": {}, "interactive": true}}, ready()],
        "on": {
            "command_invoked:panel": [{"send": {"type": "command_response", "id": "$in.id", "action": "open_panel",
                "open_panel": {"id": "p1", "title": "Counter", "lines": ["0"], "footer": "up/down"}}}],
            "panel_key": [{"send": {"type": "panel_render", "panel_id": "$in.panel_id", "lines": ["key:{in.key}{in.text}"]}}],
            "panel_close": [{"send": {"type": "notify", "level": "info", "message": "closed {in.panel_id}"}}],
            "command_invoked:note": [{"send": {"type": "notify", "level": "warn", "message": "{in.args}"}}, {"send": {"type": "command_response", "id": "$in.id", "action": "noop"}}],
            "command_invoked:clear": [{"send": {"type": "clear_notes"}}, {"send": {"type": "command_response", "id": "$in.id", "action": "noop"}}],
            "command_invoked:submit": [{"send": {"type": "submit", "text": "  {in.args}  "}}, {"send": {"type": "command_response", "id": "$in.id", "action": "noop"}}],
            "command_invoked:insert": [{"send": {"type": "command_response", "id": "$in.id", "action": "insert", "insert": "{in.args}"}}],
            "command_invoked:oops": [{"send": {"type": "command_response", "id": "$in.id", "action": "display", "display": "not shown", "error": "command failed: {in.args}"}}],
            "command_invoked:commit": [{"send": {"type": "command_response", "id": "$in.id", "action": "tool_prompt", "prompt": "and push", "tool_name": "echo", "tool_args": {"text": "{in.args}"}}}],
            "command_invoked:badtp": [{"send": {"type": "command_response", "id": "$in.id", "action": "tool_prompt", "prompt": "x", "tool_name": "echo", "tool_args": [1]}}],
            "command_invoked:weird": [{"send": {"type": "command_response", "id": "$in.id", "action": "dance"}}],
            "command_invoked:greet": [{"send": {"type": "command_response", "id": "$in.id", "action": "prompt", "prompt": "Hello, {in.args}"}}],
            "tool_call:echo": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "{in.args.text}"}]}}],
            "tool_call:ask": [{"send": {"type": "open_panel", "panel": {"id": "q", "title": "Question"}}}]
        }
    }))
}

fn kinds_seq(obs: &[Value]) -> Vec<String> {
    obs.iter()
        .map(|o| o["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn panels_keys_render_and_close() {
    let env = Env::new();
    let r = env
        .run(
            &[ui_ext(&env)],
            json!({"steps": [
                {"command": "/panel"},
                {"key": "up", "wait": {"type": "panel_render"}},
                {"key": "rune", "text": "q", "wait": {"type": "panel_render"}},
                {"key": "esc", "wait": {"type": "notify"}},
                {"key": "down"}
            ]}),
        )
        .await;
    let keys = r.sent("ui", "panel_key");
    assert_eq!(keys.len(), 2);
    assert_eq!(
        keys[0],
        &json!({"type": "panel_key", "panel_id": "p1", "key": "up"})
    );
    assert_eq!(
        keys[1],
        &json!({"type": "panel_key", "panel_id": "p1", "key": "rune", "text": "q"})
    );
    assert_eq!(
        r.sent("ui", "panel_close"),
        vec![&json!({"type": "panel_close", "panel_id": "p1"})]
    );
    let panels = r.kinds("panel");
    assert_eq!(panels[0]["title"], "Counter");
    assert_eq!(panels[1]["lines"], json!(["key:up"]));
    assert_eq!(panels[1]["title"], "Counter", "empty title keeps the title");
    assert_eq!(panels[2]["lines"], json!(["key:runeq"]));
    assert!(r.text().contains("no panel is open"));
}

#[tokio::test(flavor = "multi_thread")]
async fn interactive_actions_notes_submit_and_errors() {
    let env = Env::new();
    let r = env
        .run(
            &[ui_ext(&env)],
            json!({"steps": [
                {"command": "/note hello"},
                {"command": "/clear"},
                {"command": "/insert some text"},
                {"command": "/oops bad"},
                {"command": "/weird"},
                {"command": "/greet Bob", "replies": [{"text": "Hi Bob"}]},
                {"command": "/submit from ext", "replies": [{"text": "got it"}]},
                {"command": "/badtp"},
                {"command": "/nope"}
            ]}),
        )
        .await;
    let t = r.text();
    assert!(r.kinds("note")[0]["text"] == "hello");
    assert_eq!(r.kinds("notes_cleared").len(), 1);
    assert_eq!(r.kinds("editor")[0]["text"], "some text");
    let statuses: Vec<&str> = r.strs("status", "text");
    assert!(
        statuses.contains(&"/oops: command failed: bad"),
        "{statuses:?}"
    );
    assert!(!t.contains("not shown"), "OP-7: the action is not applied");
    assert!(
        statuses.contains(&"extension /weird: unknown action dance"),
        "{statuses:?}"
    );
    assert!(
        statuses.iter().any(|s| s.starts_with("extension /badtp: ")),
        "{statuses:?}"
    );
    assert!(statuses.contains(&"unknown command /nope"));
    let users: Vec<(&str, &str)> = r
        .kinds("user")
        .iter()
        .map(|u| (u["text"].as_str().unwrap(), u["from"].as_str().unwrap()))
        .collect();
    assert_eq!(users, vec![("Hello, Bob", "ui"), ("from ext", "ui")]);
    assert!(t.contains("Hi Bob") && t.contains("got it"));
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_prompt_runs_the_tool_before_the_model_turn() {
    let env = Env::new();
    let r = env
        .run(
            &[ui_ext(&env)],
            json!({"steps": [
                {"command": "/commit fix bug", "replies": [{"text": "pushed"}]}
            ]}),
        )
        .await;
    let seq: Vec<String> = kinds_seq(&r.obs)
        .into_iter()
        .filter(|k| ["user", "tool_call", "tool_result", "assistant"].contains(&k.as_str()))
        .collect();
    assert_eq!(seq, vec!["user", "tool_call", "tool_result", "assistant"]);
    let tc = &r.kinds("tool_call")[0];
    assert_eq!(tc["origin_extension"], "ui");
    assert_eq!(tc["args"], json!({"text": "fix bug"}));
    assert_eq!(r.tool_results()[0]["text"], "fix bug");
}

#[tokio::test(flavor = "multi_thread")]
async fn non_interactive_modes_ignore_ui_and_reject_interactive_tools() {
    let env = Env::new();
    let r = env
        .run(
            &[ui_ext(&env)],
            json!({"mode": "print", "steps": [
                {"command": "/note to stderr"},
                {"command": "/submit ignored"},
                {"command": "/insert ignored"},
                {"command": "/panel"},
                {"command": "/commit x"},
                {"prompt": "ask", "replies": [{"tool_calls": [{"name": "ask", "args": {}}]}]}
            ]}),
        )
        .await;
    assert_eq!(r.kinds("stderr")[0]["text"], "[ui] warn: to stderr");
    assert!(
        r.kinds("note").is_empty() && r.kinds("editor").is_empty() && r.kinds("panel").is_empty()
    );
    assert_eq!(
        r.kinds("user").len(),
        1,
        "submit ignored: only the scripted prompt"
    );
    assert!(r
        .text()
        .contains("tool_prompt requires an interactive host"));
    let res = &r.tool_results()[0];
    assert_eq!(res["status"], "failed");
    assert_eq!(
        res["text"],
        "interactive extension tools require an interactive host"
    );
    assert!(
        r.sent("ui", "tool_call").is_empty(),
        "HOST-66: no tool_call sent"
    );
    // RPC mode: notes surface as events.
    let r = env
        .run(
            &[env.tmp.path().join("exts/ui")],
            json!({"mode": "rpc", "steps": [{"command": "/note via rpc"}, {"command": "/clear"}]}),
        )
        .await;
    let ev: Vec<&Value> = r.kinds("rpc").iter().map(|o| &o["event"]).collect();
    assert_eq!(
        ev[0],
        &json!({"type": "ext_notify", "extension": "ui", "level": "warn", "message": "via rpc"})
    );
    assert_eq!(ev[1]["type"], "ext_clear_notes");
}

#[tokio::test(flavor = "multi_thread")]
async fn interactive_tool_in_tui_has_no_deadline_and_panels_replace() {
    let env = Env::new();
    let r = env.run(&[ui_ext(&env)], json!({"steps": [
        {"command": "/panel"},
        {"prompt": "ask", "replies": [{"tool_calls": [{"name": "ask", "args": {}, "cancel": {"on": "delivered", "then_wait": {"type": "open_panel"}}}]}]}
    ]})).await;
    // OP-15: the displaced panel's owner gets panel_close.
    assert_eq!(r.kinds("panel_closed")[0]["by"], "replaced");
    assert_eq!(r.tool_results()[0]["status"], "cancelled");
    assert_eq!(r.sent("ui", "tool_cancel").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn submit_during_a_turn_is_queued_and_runs_after_it() {
    let env = Env::new();
    let a = env.ext("q", json!({
        "on_ack": [tool("later"), ready()],
        "on": {"tool_call:later": [{"send": {"type": "submit", "text": "follow-up"}}, {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "ok"}]}}]}
    }));
    let r = env.run(&[a], json!({"steps": [
        {"prompt": "first", "replies": [{"tool_calls": [{"name": "later", "args": {}}]}, {"text": "first done"}, {"text": "second done"}]}
    ]})).await;
    let users: Vec<(&str, bool)> = r
        .kinds("user")
        .iter()
        .map(|u| (u["text"].as_str().unwrap(), u.get("queued").is_some()))
        .collect();
    assert_eq!(users, vec![("first", false), ("follow-up", true)]);
    let texts: Vec<&str> = r.strs("assistant", "text");
    assert_eq!(texts, vec!["first done", "second done"]);
}

// N-4 / HOST-65 (and N-3): in the interactive TUI an interactive tool has no
// reply deadline. Under a short tool reply deadline, the interactive tool
// only answers after a normal tool it called has timed out under that same
// deadline, i.e. later than the deadline; its result is still accepted.
#[tokio::test(flavor = "multi_thread")]
async fn interactive_tool_outlives_the_reply_deadline_that_times_out_a_normal_tool() {
    let env = Env::new();
    let a = env.ext("patient", json!({
        "on_ack": [tool("hang"),
                   {"send": {"type": "register_tool", "name": "ask", "schema": {}, "interactive": true}}, ready()],
        "on": {
            // The nested call reuses the parent's id, so its reply names it.
            "tool_call:ask": [{"send": {"type": "call_tool", "id": "$in.id", "name": "hang", "args": {}, "parent_id": "$in.id"}}],
            "tool_call:hang": [],
            "tool_result": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "answered after: {in.content.0.text}"}]}}]
        }
    }));
    let r = env
        .run(
            &[a],
            json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 300}, "steps": [
                {"prompt": "ask", "replies": [{"tool_calls": [{"name": "ask", "args": {}}]}, {"text": "done"}]}
            ]}),
        )
        .await;
    let calls: Vec<&str> = r
        .sent("patient", "tool_call")
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(calls, vec!["ask", "hang"]);
    let hang_id = r.sent("patient", "tool_call")[1]["id"].clone();
    assert_eq!(
        r.sent("patient", "tool_cancel")
            .iter()
            .map(|c| c["id"].clone())
            .collect::<Vec<_>>(),
        vec![hang_id],
        "only the normal tool was given up on"
    );
    // The normal tool timed out under the short deadline...
    let nested = r.sent("patient", "tool_result");
    assert_eq!(nested.len(), 1);
    assert_eq!(nested[0]["is_error"], true);
    let nested_text = nested[0]["content"][0]["text"].as_str().unwrap();
    assert!(
        nested_text.contains("patient/hang failed: timed out"),
        "{nested_text}"
    );
    // ...and the interactive tool, answering after that, completed.
    let res: Vec<&serde_json::Value> = r
        .tool_results()
        .into_iter()
        .filter(|t| t["name"] == "ask")
        .collect();
    assert_eq!(res.len(), 1, "{:?}", r.tool_results());
    assert_eq!(res[0]["status"], "completed", "{}", res[0]);
    assert_eq!(
        res[0]["text"],
        format!("answered after: {nested_text}").as_str()
    );
    assert!(r.text().contains("done"));
}
