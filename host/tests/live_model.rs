//! A live model over the OpenAI-compatible chat completions API
//! (`--model-url`), against a mock server on 127.0.0.1: the model's tool
//! call reaches the extension, the result goes back to the model, and the
//! model's last answer is the assistant's text.

mod common;

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use common::*;
use serde_json::{json, Value};
use zot_host::model::LiveModel;

/// What the mock server saw: each request's body and Authorization header.
type Seen = Arc<Mutex<Vec<(Value, Option<String>)>>>;

/// A model that calls `add` once, then answers with the tool's result.
async fn chat(
    State(seen): State<Seen>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    seen.lock().unwrap().push((body.clone(), auth));
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let reply = match messages.iter().rev().find(|m| m["role"] == "tool") {
        None => json!({"role": "assistant", "content": "Let me add them.", "tool_calls": [{
            "id": "call_7", "type": "function",
            "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"},
        }]}),
        Some(result) => json!({"role": "assistant",
            "content": format!("The sum is {}.", result["content"].as_str().unwrap_or("?"))}),
    };
    Json(json!({"id": "x", "object": "chat.completion", "choices": [
        {"index": 0, "message": reply, "finish_reason": "stop"}]}))
}

async fn mock_model() -> (String, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), seen)
}

fn calculator(env: &Env) -> std::path::PathBuf {
    env.ext(
        "calc",
        json!({
            "on_ack": [
                {"send": {"type": "register_tool", "name": "add", "description": "Adds two integers",
                          "schema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}},
                ready(),
            ],
            "on": {"tool_call:add": text_result("5")},
        }),
    )
}

async fn run_live(env: &mut Env, ext: std::path::PathBuf, model: LiveModel) -> Run {
    env.model = Some(Arc::new(model));
    env.run(&[ext], json!({"steps": [{"prompt": "what is 2 + 3?"}]}))
        .await
}

#[tokio::test]
async fn a_tool_call_of_the_model_reaches_the_extension_and_its_result_goes_back() {
    let mut env = Env::new();
    let (url, seen) = mock_model().await;
    let model = LiveModel::new(&url, "mock-1", Some("sk-test".into())).unwrap();
    let ext = calculator(&env);
    let run = run_live(&mut env, ext, model).await;

    // The extension ran the model's call with the model's arguments.
    let calls = run.sent("calc", "tool_call");
    assert_eq!(calls.len(), 1, "{:?}", run.obs);
    assert_eq!(calls[0]["name"], "add");
    assert_eq!(calls[0]["args"], json!({"a": 2, "b": 3}));
    // The model's texts are the assistant's, in order.
    assert_eq!(
        run.strs("assistant", "text"),
        ["Let me add them.", "The sum is 5."]
    );

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "one request per model step");
    let (first, auth) = &seen[0];
    assert_eq!(auth.as_deref(), Some("Bearer sk-test"));
    assert_eq!(first["model"], "mock-1");
    assert_eq!(first["messages"][0]["role"], "system");
    assert_eq!(
        first["messages"][1],
        json!({"role": "user", "content": "what is 2 + 3?"})
    );
    // The extension's tool is offered with its schema, beside the built-ins.
    let tools = first["tools"].as_array().unwrap();
    let add = tools
        .iter()
        .find(|t| t["function"]["name"] == "add")
        .expect("add is offered to the model");
    assert_eq!(add["function"]["description"], "Adds two integers");
    assert_eq!(add["function"]["parameters"]["required"], json!(["a", "b"]));
    assert!(tools.iter().any(|t| t["function"]["name"] == "bash"));
    // The second step carries the call and the extension's result.
    let second = &seen[1].0["messages"];
    let n = second.as_array().unwrap().len();
    assert_eq!(second[n - 2]["tool_calls"][0]["id"], "call_7");
    assert_eq!(
        second[n - 1],
        json!({"role": "tool", "tool_call_id": "call_7", "content": "5"})
    );
    // hello_ack names the model that answers.
    let ack = run.sent("calc", "hello_ack");
    assert_eq!(ack[0]["model"], "mock-1");
    assert_eq!(ack[0]["provider"], "openai-compatible");
}

#[tokio::test]
async fn an_unreachable_model_ends_the_turn_with_an_error_saying_so() {
    let mut env = Env::new();
    // A port nothing listens on: bound, then closed.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let model = LiveModel::new(&format!("http://127.0.0.1:{port}/v1"), "m", None).unwrap();
    let ext = calculator(&env);
    let run = run_live(&mut env, ext, model).await;
    let errors: Vec<&str> = run
        .kinds("status")
        .into_iter()
        .filter(|o| o["level"] == "error")
        .filter_map(|o| o["text"].as_str())
        .collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("model request to http://127.0.0.1:")
                && e.contains("cannot connect")),
        "{errors:?}"
    );
    assert!(run.sent("calc", "tool_call").is_empty());
}

/// A live session driven by the model, exported from `inspect` / `dev`,
/// replays with the scripted model and the same transcript: the model's
/// turns are recorded as `replies`.
#[tokio::test]
async fn a_live_session_with_a_model_exports_a_script_that_replays_the_same() {
    use zot_host::live::{Live, LiveOptions};
    let env = Env::new();
    let (url, _seen) = mock_model().await;
    let ext = calculator(&env);
    let live = Live::open(LiveOptions {
        explicit: vec![ext.clone()],
        cwd: env.cwd.clone(),
        zot_home: env.zot_home.clone(),
        no_discovery: true,
        header: serde_json::Map::new(),
        model: Some(Arc::new(LiveModel::new(&url, "mock-1", None).unwrap())),
    })
    .await
    .unwrap();
    let step = json!({"prompt": "what is 2 + 3?"});
    live.run(step.as_object().unwrap().clone()).await.unwrap();
    let script = live.export();
    let (observed, dropped) = live.transcript();
    assert_eq!(dropped, 0);
    live.close().await;

    assert_eq!(script["model"], "mock-1", "{script:#}");
    let steps = script["steps"].as_array().unwrap();
    assert_eq!(
        steps[0]["replies"][0]["tool_calls"][0]["args"],
        json!({"a": 2, "b": 3}),
        "{script:#}"
    );
    assert_eq!(
        steps[0]["replies"][1]["text"], "The sum is 5.",
        "{script:#}"
    );
    assert_eq!(steps[1]["prompt"], "what is 2 + 3?");

    env.run(&[ext], script.clone())
        .await
        .assert_replays(&observed, &script);
}

/// The command line: the flags reach the session, and a URL the host
/// cannot use is refused before anything starts, saying why.
#[tokio::test]
async fn zot_host_run_takes_the_model_flags() {
    let env = Env::new();
    let (url, seen) = mock_model().await;
    let ext = calculator(&env);
    let script = env.tmp.path().join("s.json");
    std::fs::write(
        &script,
        json!({"steps": [{"prompt": "2 + 3?"}]}).to_string(),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_zot-host"));
        cmd.args(["run", "--no-ext", "--script"])
            .arg(&script)
            .arg("--ext")
            .arg(&ext)
            .arg("--zot-home")
            .arg(&env.zot_home)
            .arg("--cwd")
            .arg(&env.cwd)
            .args(extra)
            .env("ZOT_TEST_MODEL_KEY", "sk-from-env");
        cmd.output()
    };
    let out = run(&[
        "--model-url",
        &url,
        "--model",
        "m",
        "--model-key-env",
        "ZOT_TEST_MODEL_KEY",
    ])
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("The sum is 5."), "{stdout}");
    assert_eq!(
        seen.lock().unwrap()[0].1.as_deref(),
        Some("Bearer sk-from-env")
    );

    let out = run(&["--model-url", "https://api.example.com/v1", "--model", "m"])
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--model-url https://api.example.com/v1: https is not supported"),
        "{err}"
    );
    let out = run(&["--model-url", &url]).await.unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--model NAME"));
}
