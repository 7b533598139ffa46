//! `call_tool` (§9; SDK-26..SDK-34).

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::*;
use serde_json::json;
use zot_ext::engine::{CallRequest, CallToolError, Job};
use zot_ext::testing::{default_hello_ack, TestHost};
use zot_ext::{CallOptions, Extension, Response, ToolOutput};
use zot_protocol::{ExtFrame, HostFrame, HostToolResult, RawJson};

fn args(v: serde_json::Value) -> RawJson {
    RawJson::from_value(&v).unwrap()
}

/// `compose` calls `echo` from a tool; `cmd` calls it from a command with
/// the key and timeout given as `key,secs`.
fn ext() -> Extension {
    Extension::new("x", "1")
        .tool("compose", "", |a: serde_json::Value, ctx| async move {
            match ctx.call_tool("echo", &a).await {
                Ok(r) if !r.is_error => ToolOutput::text(format!("composed:{}", r.first_text())),
                Ok(r) => ToolOutput::error(r.first_text()),
                Err(e) => ToolOutput::error(format!("call error: {e}")),
            }
        })
        .tool("twice", "", |_a: serde_json::Value, ctx| async move {
            // Two calls outstanding at once, answered in any order (SDK-34);
            // this one goes through the handle, finding its parent itself.
            let ext = ctx.ext().clone();
            let (one, two) = (json!({"n": 1}), json!({"n": 2}));
            let (a, b) = tokio::join!(ext.call_tool("echo", &one), ctx.call_tool("echo", &two));
            ToolOutput::text(format!(
                "{}+{}",
                a.unwrap().first_text(),
                b.unwrap().first_text()
            ))
        })
        .command("cmd", "", |a, ctx| async move {
            let mut parts = a.split(',');
            let mut opts = CallOptions::new();
            if let Some(k) = parts.next().filter(|k| !k.is_empty()) {
                opts = opts.key(k);
            }
            if let Some(s) = parts.next() {
                opts = opts.timeout(Duration::from_secs(s.parse().unwrap()));
            }
            match ctx
                .call_tool_with("echo", &json!({"text": "hi"}), opts)
                .await
            {
                Ok(r) => Response::display(format!("ok:{}", r.first_text())),
                Err(e) => Response::display(format!("err:{}:{e}", e.kind())),
            }
        })
}

#[tokio::test]
async fn a_tool_call_gets_its_parent_id_and_the_result_is_routed_by_id() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let id = host
        .start_tool("compose", json!({"text": "inner:hi"}))
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    assert_eq!(call.parent_id, id);
    assert_eq!(call.name, "echo");
    assert_eq!(call.args.as_ref().unwrap().get(), r#"{"text":"inner:hi"}"#);
    assert!(call.key.is_empty());
    // Unmatched results are ignored (SDK-31).
    host.send_json(r#"{"type":"tool_result","id":"nobody","name":"echo","content":[]}"#)
        .await
        .unwrap();
    host.answer_call(&call, "inner:hi", false).await.unwrap();
    let r = host.tool_result(&id).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("composed:inner:hi"));

    // An error result is a result, not a call failure (SDK-32).
    let id = host
        .start_tool("compose", json!({"text": "x"}))
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    host.answer_call(&call, "unknown tool", true).await.unwrap();
    let r = host.tool_result(&id).await.unwrap();
    assert_eq!(
        (r.is_error, r.content[0].as_text()),
        (true, Some("unknown tool"))
    );
}

#[tokio::test]
async fn concurrent_calls_have_unique_ids_and_match_out_of_order() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let id = host.start_tool("twice", json!({})).await.unwrap();
    let c1 = host.expect_call_tool().await.unwrap();
    let c2 = host.expect_call_tool().await.unwrap();
    assert_ne!(c1.id, c2.id);
    assert_eq!(
        (c1.parent_id.as_str(), c2.parent_id.as_str()),
        (id.as_str(), id.as_str())
    );
    let (first, second) = if c1.args.as_ref().unwrap().get().contains('1') {
        (c1, c2)
    } else {
        (c2, c1)
    };
    host.answer_call(&second, "two", false).await.unwrap();
    host.answer_call(&first, "one", false).await.unwrap();
    assert_eq!(
        host.tool_result(&id).await.unwrap().content[0].as_text(),
        Some("one+two")
    );
}

#[tokio::test]
async fn calls_from_commands_have_no_parent() {
    let mut host = TestHost::start(ext()).await.unwrap();
    host.send(&HostFrame::CommandInvoked(zot_protocol::CommandInvoked {
        id: "c1".into(),
        name: "cmd".into(),
        args: String::new(),
    }))
    .await
    .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    assert!(call.parent_id.is_empty());
    host.answer_call(&call, "hi", false).await.unwrap();
    assert_eq!(host.command_response("c1").await.unwrap().display, "ok:hi");
}

#[tokio::test]
async fn without_the_host_capability_calls_fail_at_once_and_nothing_is_sent() {
    let mut host = TestHost::start_with(ext(), ack_with(&[])).await.unwrap();
    let r = host.command("cmd", "").await.unwrap();
    assert_eq!(
        r.display,
        "err:unsupported:the host does not support call_tool"
    );
    let r = host.tool("compose", json!({})).await.unwrap();
    assert!(r.is_error);
    assert!(!host
        .transcript()
        .iter()
        .any(|l| l.contains(r#""type":"call_tool""#)));
}

#[tokio::test]
async fn the_durable_key_is_validated_and_sent_only_to_durable_hosts() {
    // Not advertised: the key is dropped.
    let mut host = TestHost::start(ext()).await.unwrap();
    host.send_json(r#"{"type":"command_invoked","id":"c1","name":"cmd","args":"first-echo"}"#)
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    assert!(call.key.is_empty());
    host.answer_call(&call, "x", false).await.unwrap();
    host.command_response("c1").await.unwrap();

    let mut host = TestHost::start_with(ext(), ack_with(&["call_tool", "call_tool_durable"]))
        .await
        .unwrap();
    host.send_json(r#"{"type":"command_invoked","id":"c1","name":"cmd","args":"first-echo"}"#)
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    assert_eq!(call.key, "first-echo");
    host.answer_call(&call, "x", false).await.unwrap();
    host.command_response("c1").await.unwrap();
    // Invalid keys fail locally, whatever the host supports.
    for bad in ["a/b", &"k".repeat(129)] {
        let r = host.command("cmd", bad).await.unwrap();
        assert!(r.display.starts_with("err:invalid_key:"), "{}", r.display);
    }
    // 128 bytes is valid: the call goes out.
    let line = format!(
        r#"{{"type":"command_invoked","id":"c2","name":"cmd","args":"{}"}}"#,
        "k".repeat(128)
    );
    host.send_json(&line).await.unwrap();
    let call = host.expect_call_tool().await.unwrap();
    assert_eq!(call.key.len(), 128);
}

#[tokio::test(start_paused = true)]
async fn a_call_times_out_with_call_tool_cancel() {
    let mut host = TestHost::start(ext()).await.unwrap();
    host.send_json(r#"{"type":"command_invoked","id":"c1","name":"cmd","args":",20"}"#)
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    let start = tokio::time::Instant::now();
    let cancel = host.next_frame().await.unwrap();
    assert_eq!(
        cancel,
        ExtFrame::CallToolCancel(zot_protocol::CallToolCancel {
            id: call.id.clone()
        })
    );
    assert_eq!(start.elapsed(), Duration::from_secs(20));
    let r = host.command_response("c1").await.unwrap();
    assert!(r.display.starts_with("err:timeout:"), "{}", r.display);
    // The host's late answer (OP-28) is ignored.
    host.answer_call(&call, "late", false).await.unwrap();
    assert_eq!(host.shutdown().await.unwrap(), [ExtFrame::ShutdownAck]);
}

#[tokio::test(start_paused = true)]
async fn the_default_deadline_is_sixty_seconds() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    let start = tokio::time::Instant::now();
    let fut = engine.call_tool(CallRequest::new("echo", args(json!({}))));
    let err = fut.await.unwrap_err();
    assert!(matches!(err, CallToolError::Timeout { .. }));
    assert_eq!(start.elapsed(), Duration::from_secs(60));
    assert!(matches!(recv(&mut host).await, ExtFrame::CallTool(_)));
    assert!(matches!(recv(&mut host).await, ExtFrame::CallToolCancel(_)));
}

#[tokio::test]
async fn dropping_the_future_sends_call_tool_cancel() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    let fut = engine.call_tool(CallRequest::new("echo", args(json!({"a": 1}))));
    let id = fut.wire_id().unwrap().to_owned();
    assert!(matches!(recv(&mut host).await, ExtFrame::CallTool(c) if c.id == id));
    drop(fut);
    assert_eq!(
        recv(&mut host).await,
        ExtFrame::CallToolCancel(zot_protocol::CallToolCancel { id })
    );
}

#[tokio::test]
async fn cancelling_the_parent_cancels_its_calls() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let id = host.start_tool("compose", json!({})).await.unwrap();
    let call = host.expect_call_tool().await.unwrap();
    host.cancel_tool(&id).await.unwrap();
    assert_eq!(
        host.next_frame().await.unwrap(),
        ExtFrame::CallToolCancel(zot_protocol::CallToolCancel { id: call.id })
    );
    // The handler got `Cancelled`; its result is not sent.
    assert_eq!(host.shutdown().await.unwrap(), [ExtFrame::ShutdownAck]);
}

#[tokio::test]
async fn shutdown_and_eof_fail_outstanding_calls() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    let fut = engine.call_tool(CallRequest::new("echo", args(json!({}))));
    let started = engine
        .start_call(CallRequest::new("echo", args(json!({}))))
        .unwrap();
    recv(&mut host).await;
    recv(&mut host).await;
    host.close_input();
    assert_eq!(fut.await.unwrap_err(), CallToolError::Closed);
    let jobs = until_finished(&engine).await;
    assert!(
        jobs.iter()
            .any(|j| matches!(j, Job::CallResult { call, result: Err(CallToolError::Closed) } if *call == started)),
        "{jobs:?}"
    );
    // After the end, calls fail at once.
    let late = engine
        .call_tool(CallRequest::new("echo", args(json!({}))))
        .await;
    assert_eq!(late.unwrap_err(), CallToolError::Closed);
}

#[tokio::test]
async fn the_job_form_delivers_results_as_jobs_and_can_be_cancelled() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    let a = engine
        .start_call(CallRequest::new("echo", args(json!({"n": "a"}))))
        .unwrap();
    let b = engine
        .start_call(CallRequest::new("echo", args(json!({"n": "b"}))).key("k"))
        .unwrap();
    let ExtFrame::CallTool(ca) = recv(&mut host).await else {
        panic!()
    };
    let ExtFrame::CallTool(cb) = recv(&mut host).await else {
        panic!()
    };
    assert!(cb.key.is_empty()); // host without call_tool_durable
    host.send(&HostFrame::ToolResult(HostToolResult {
        id: ca.id.clone(),
        name: "echo".into(),
        content: vec![zot_protocol::ContentBlock::text("A")],
        is_error: false,
        truncated: true,
    }))
    .await
    .unwrap();
    let got = jobs(&engine).await;
    match got.as_slice() {
        [Job::CallResult {
            call,
            result: Ok(r),
        }] => {
            assert_eq!((*call, r.first_text(), r.truncated), (a, "A", true));
            assert_eq!(
                got[0].to_json(),
                format!(
                    r#"{{"kind":"call_result","call":{},"result":{{"type":"tool_result","id":"{}","name":"echo","content":[{{"type":"text","text":"A"}}],"truncated":true}}}}"#,
                    a.0, ca.id
                )
            );
        }
        other => panic!("{other:?}"),
    }
    engine.cancel_call(b);
    assert_eq!(
        recv(&mut host).await,
        ExtFrame::CallToolCancel(zot_protocol::CallToolCancel { id: cb.id })
    );
    let got = jobs(&engine).await;
    assert!(
        matches!(got.as_slice(), [Job::CallResult { call, result: Err(CallToolError::Cancelled) }] if *call == b)
    );
    assert_eq!(
        got[0].to_json(),
        format!(
            r#"{{"kind":"call_result","call":{},"error":"call_tool cancelled","error_kind":"cancelled"}}"#,
            b.0
        )
    );
    // Requests that cannot be sent fail at once, without a job.
    let bad = engine.start_call(CallRequest::new("echo", args(json!([1]))));
    assert_eq!(bad.unwrap_err(), CallToolError::InvalidRequest);
    let bad = engine.start_call(CallRequest::new("", args(json!({}))));
    assert_eq!(bad.unwrap_err(), CallToolError::InvalidRequest);
}
