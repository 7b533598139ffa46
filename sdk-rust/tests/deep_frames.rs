//! Host frames nested deeper than `MAX_FRAME_DEPTH`: a request whose id can
//! be read gets its normal error reply, anything else is skipped, and no
//! other frame of the same read is lost.

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::*;
use serde_json::json;
use zot_ext::testing::TestHost;
use zot_ext::{Extension, ToolCallVerdict, ToolOutput};
use zot_protocol::limits::MAX_FRAME_DEPTH;
use zot_protocol::ExtFrame;

/// `levels` nested arrays.
fn nested(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

/// A `tool_call` of `echo` whose args object holds `levels` nested arrays
/// (the frame then nests `levels + 2` deep).
fn deep_call(id: &str, levels: usize) -> String {
    format!(
        r#"{{"type":"tool_call","id":"{id}","name":"echo","args":{{"v":{}}}}}"#,
        nested(levels)
    )
}

fn ext() -> Extension {
    Extension::new("x", "1")
        .tool("echo", "", |a: serde_json::Value, _c| async move {
            ToolOutput::text(a.to_string())
        })
        .tool("compose", "", |a: serde_json::Value, ctx| async move {
            match ctx.call_tool("echo", &a).await {
                Ok(r) => ToolOutput::text(format!("is_error={} {}", r.is_error, r.first_text())),
                Err(e) => ToolOutput::error(format!("call error: {e}")),
            }
        })
        .intercept_tool_call(|_c, _ctx| async { ToolCallVerdict::Allow })
}

fn assert_names_the_limit(text: &str) {
    assert!(
        text.contains(&format!("nested deeper than {MAX_FRAME_DEPTH} levels")),
        "{text}"
    );
}

#[tokio::test]
async fn deep_tool_calls_get_an_error_result_and_the_call_beside_them_runs() {
    let mut host = TestHost::start(ext()).await.unwrap();
    // One write: 1,000 and 100,000 levels deep, then a valid call.
    let chunk = [
        deep_call("deep-1k", 1_000),
        deep_call("deep-100k", 100_000),
        r#"{"type":"tool_call","id":"ok","name":"echo","args":{"text":"hi"}}"#.to_owned(),
    ]
    .join("\n");
    host.send_json(&chunk).await.unwrap();
    for id in ["deep-1k", "deep-100k"] {
        let r = host.tool_result(id).await.unwrap();
        assert!(r.is_error, "{r:?}");
        let text = r.content[0].as_text().unwrap();
        assert!(text.starts_with("tool_call refused: "), "{text}");
        assert_names_the_limit(text);
    }
    let r = host.tool_result("ok").await.unwrap();
    assert_eq!(
        (r.is_error, r.content[0].as_text()),
        (false, Some(r#"{"text":"hi"}"#))
    );
}

#[tokio::test]
async fn the_limit_itself_reaches_the_handler_one_level_more_does_not() {
    let mut host = TestHost::start(ext()).await.unwrap();
    // The frame object is level 1 and `args` level 2.
    let levels = MAX_FRAME_DEPTH - 2;
    host.send_json(&deep_call("at", levels)).await.unwrap();
    let r = host.tool_result("at").await.unwrap();
    assert!(!r.is_error, "{r:?}");
    assert_eq!(
        r.content[0].as_text(),
        Some(format!(r#"{{"v":{}}}"#, nested(levels)).as_str())
    );
    host.send_json(&deep_call("over", levels + 1))
        .await
        .unwrap();
    let r = host.tool_result("over").await.unwrap();
    assert!(r.is_error, "{r:?}");
    assert_names_the_limit(r.content[0].as_text().unwrap());
    // Brackets inside strings are text, not nesting.
    let line = format!(
        r#"{{"type":"tool_call","id":"s","name":"echo","args":{{"v":"{}"}}}}"#,
        "[".repeat(10_000)
    );
    host.send_json(&line).await.unwrap();
    assert!(!host.tool_result("s").await.unwrap().is_error);
}

#[tokio::test]
async fn deep_commands_and_interceptions_get_their_error_replies() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let deep = nested(1_000);
    host.send_json(&format!(
        r#"{{"type":"command_invoked","id":"c1","name":"anything","args":"x","extra":{deep}}}"#
    ))
    .await
    .unwrap();
    let r = host.command_response("c1").await.unwrap();
    assert!(r.error.starts_with("command refused: "), "{r:?}");
    assert_names_the_limit(&r.error);

    // An intercepted event fails closed, as a failed interceptor does.
    host.send_json(&format!(
        r#"{{"type":"event_intercept","id":"i1","event":"tool_call","step":1,"tool_call_id":"t","tool_name":"bash","tool_args":{{"v":{deep}}}}}"#
    ))
    .await
    .unwrap();
    let r = host.intercept_response("i1").await.unwrap();
    assert!(r.block, "{r:?}");
    assert_names_the_limit(&r.reason);

    // An event nobody intercepts is allowed, as without the depth.
    host.send_json(&format!(
        r#"{{"type":"event_intercept","id":"i2","event":"turn_start","step":1,"x":{deep}}}"#
    ))
    .await
    .unwrap();
    let r = host.intercept_response("i2").await.unwrap();
    assert!(!r.block && r.reason.is_empty(), "{r:?}");
}

#[tokio::test]
async fn a_deep_answer_to_call_tool_fails_the_call_at_once() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let id = host
        .start_tool("compose", json!({"text": "x"}))
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    host.send_json(&format!(
        r#"{{"type":"tool_result","id":"{}","name":"echo","content":[{{"type":"text","text":"x"}}],"extra":{}}}"#,
        call.id,
        nested(1_000)
    ))
    .await
    .unwrap();
    let r = host.tool_result(&id).await.unwrap();
    let text = r.content[0].as_text().unwrap();
    assert!(
        text.starts_with("is_error=true the host's tool_result could not be read"),
        "{text}"
    );
    assert_names_the_limit(text);
}

#[tokio::test]
async fn other_deep_frames_are_skipped_and_reading_goes_on() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let deep = nested(5_000);
    let chunk = [
        format!(r#"{{"type":"event","event":"turn_start","step":1,"x":{deep}}}"#),
        format!(r#"{{"type":"tool_call","name":"echo","args":{{"v":{deep}}}}}"#), // no id
        format!(r#"[{deep}]"#),
        r#"{"type":"tool_call","id":"after","name":"echo","args":{}}"#.to_owned(),
    ]
    .join("\n");
    host.send_json(&chunk).await.unwrap();
    assert!(!host.tool_result("after").await.unwrap().is_error);
    // Nothing was written for the skipped frames.
    let frames = host.shutdown().await.unwrap();
    assert!(
        matches!(frames.as_slice(), [ExtFrame::ShutdownAck]),
        "{frames:?}"
    );
}

#[tokio::test]
async fn a_deep_first_line_fails_the_handshake() {
    let (transport, mut host) = zot_ext::engine::Transport::memory();
    let engine = zot_ext::engine::Engine::start(config(), transport).unwrap();
    host.recv_line().await.unwrap(); // hello
    host.send_line(&format!(
        r#"{{"type":"hello_ack","protocol_version":1,"zot_version":"","provider":"","model":"","cwd":"/","x":{}}}"#,
        nested(1_000)
    ))
    .await
    .unwrap();
    let finished = async {
        loop {
            let jobs = engine.next_jobs().await;
            if let Some(zot_ext::engine::Job::Finished { error }) = jobs.last() {
                return error.clone();
            }
        }
    };
    let error = tokio::time::timeout(Duration::from_secs(10), finished)
        .await
        .expect("the session should end")
        .expect("with an error");
    assert!(
        error.starts_with("handshake failed: first host line: "),
        "{error}"
    );
    assert_names_the_limit(&error);
}
