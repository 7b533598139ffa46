//! Cancellation (§8; SDK-19, SDK-22..SDK-24, SDK-53).

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use serde_json::json;
use zot_ext::engine::SchemaOrigin;
use zot_ext::engine::{Completion, DropReason, Job, Outcome, ToolOutcome};
use zot_ext::testing::{default_hello_ack, TestHost};
use zot_ext::{Extension, ToolOutput, ToolSpec};
use zot_protocol::{ExtFrame, NotifyLevel, RawJson, RegisterTool};

/// `wait` blocks until cancelled and then notes it; `quick` answers at once.
fn ext() -> Extension {
    Extension::new("x", "1")
        .tool("wait", "", |_a: serde_json::Value, ctx| async move {
            ctx.cancelled().await;
            let _ = ctx.notify(format!("cancelled {}", ctx.id()), NotifyLevel::Warn);
            ToolOutput::text("late")
        })
        .tool("quick", "", |_a: serde_json::Value, _c| async {
            ToolOutput::text("quick")
        })
        .tool_raw(
            ToolSpec::new("ask", "").interactive(),
            |_a, ctx| async move {
                ctx.cancelled().await;
                ToolOutput::text("never sent")
            },
        )
}

#[tokio::test]
async fn tool_cancel_cancels_the_handler_and_no_result_is_sent() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let id = host.start_tool("wait", json!({})).await.unwrap();
    host.cancel_tool(&id).await.unwrap();
    match host.next_frame().await.unwrap() {
        ExtFrame::Notify(n) => assert_eq!(n.message, format!("cancelled {id}")),
        other => panic!("{other:?}"),
    }
    // The extension goes on, and no tool_result for `id` was ever written.
    assert_eq!(
        host.tool("quick", json!({})).await.unwrap().content[0].as_text(),
        Some("quick")
    );
    let frames = host.shutdown().await.unwrap();
    assert_eq!(frames, [ExtFrame::ShutdownAck]);
    assert!(!host
        .transcript()
        .iter()
        .any(|l| l.contains(&format!(r#""type":"tool_result","id":"{id}""#))));
}

#[tokio::test]
async fn interactive_tools_are_registered_as_such_and_get_the_token() {
    let mut host = TestHost::start(ext()).await.unwrap();
    assert!(host.registration().tools[2].interactive);
    let id = host.start_tool("ask", json!({})).await.unwrap();
    host.cancel_tool(&id).await.unwrap();
    host.cancel_tool(&id).await.unwrap(); // twice: ignored
    host.cancel_tool("unknown").await.unwrap(); // unknown: ignored
    assert_eq!(host.shutdown().await.unwrap(), [ExtFrame::ShutdownAck]);
}

#[tokio::test]
async fn cancel_before_the_job_is_pulled_still_delivers_it_already_cancelled() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    })
    .await;
    host.send_line(r#"{"type":"tool_call","id":"7","name":"t","args":{}}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"tool_cancel","id":"7"}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"tool_call","id":"8","name":"t","args":{}}"#)
        .await
        .unwrap();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        seen.extend(jobs(&engine).await);
    }
    // The cancel is folded into its job: no separate `Cancel` job.
    let [Job::Tool(t7), Job::Tool(t8)] = seen.as_slice() else {
        panic!("{seen:?}")
    };
    assert!(t7.cancelled && !t8.cancelled, "{seen:?}");
    assert!(engine.is_cancelled(t7.id) && engine.cancel_token(t7.id).is_cancelled());
    assert!(!engine.is_cancelled(t8.id));
    // Completing the cancelled job sends nothing (SDK-23).
    let done = engine
        .complete(t7.id, Outcome::Tool(ToolOutcome::default()))
        .unwrap();
    assert_eq!(done, Completion::Dropped(DropReason::Cancelled));
    // Failing it neither.
    engine
        .complete(t8.id, Outcome::Tool(ToolOutcome::error("x")))
        .unwrap();
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"tool_result","id":"8","content":[{"type":"text","text":"x"}],"is_error":true}"#
    );
    // A cancel for a finished call is ignored: no job.
    host.send_line(r#"{"type":"tool_cancel","id":"8"}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"shutdown"}"#).await.unwrap();
    let rest = until_finished(&engine).await;
    assert!(
        matches!(
            rest.as_slice(),
            [Job::Shutdown, Job::Finished { error: None }]
        ),
        "{rest:?}"
    );
}

#[tokio::test]
async fn sdk_handler_sees_a_cancel_that_overtook_it() {
    let observed = Arc::new(AtomicBool::new(false));
    let seen = observed.clone();
    let ext = Extension::new("x", "1").tool("t", "", move |_a: serde_json::Value, ctx| {
        let seen = seen.clone();
        async move {
            // Checked before any await: the cancel was recorded on read.
            seen.store(ctx.is_cancelled(), Ordering::SeqCst);
            ToolOutput::text("done")
        }
    });
    let mut host = TestHost::start(ext).await.unwrap();
    // Both lines arrive in one write, so they are read in the same batch,
    // before the dispatcher starts the handler.
    host.send_json("{\"type\":\"tool_call\",\"id\":\"1\",\"name\":\"t\",\"args\":{}}\n{\"type\":\"tool_cancel\",\"id\":\"1\"}")
        .await
        .unwrap();
    assert_eq!(host.shutdown().await.unwrap(), [ExtFrame::ShutdownAck]);
    assert!(observed.load(Ordering::SeqCst));
}

#[tokio::test]
async fn shutdown_cancels_every_running_handler_before_the_ack() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let a = host.start_tool("wait", json!({})).await.unwrap();
    let b = host.start_tool("wait", json!({})).await.unwrap();
    host.tool("quick", json!({})).await.unwrap(); // a and b are running
    let frames = host.shutdown().await.unwrap();
    let mut notes: Vec<String> = frames
        .iter()
        .filter_map(|f| match f {
            ExtFrame::Notify(n) => Some(n.message.clone()),
            _ => None,
        })
        .collect();
    notes.sort();
    assert_eq!(notes, [format!("cancelled {a}"), format!("cancelled {b}")]);
    assert_eq!(frames.last(), Some(&ExtFrame::ShutdownAck));
    assert_eq!(frames.len(), 3);
    assert_eq!(host.finished().await, Some(Ok(())));
}

#[tokio::test]
async fn eof_cancels_every_running_handler_and_ends_without_ack() {
    let mut host = TestHost::start(ext()).await.unwrap();
    let a = host.start_tool("wait", json!({})).await.unwrap();
    host.tool("quick", json!({})).await.unwrap();
    let frames = host.close_stdin().await.unwrap();
    match frames.as_slice() {
        [ExtFrame::Notify(n)] => assert_eq!(n.message, format!("cancelled {a}")),
        other => panic!("{other:?}"),
    }
    assert_eq!(host.finished().await, Some(Ok(())));
}

#[tokio::test(start_paused = true)]
async fn a_handler_ignoring_cancellation_only_costs_the_grace() {
    let ext = Extension::new("x", "1")
        .tool("stubborn", "", |_a: serde_json::Value, _c| async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            ToolOutput::text("")
        })
        .tool("quick", "", |_a: serde_json::Value, _c| async {
            ToolOutput::text("quick")
        });
    let mut host = TestHost::start(ext).await.unwrap();
    host.start_tool("stubborn", json!({})).await.unwrap();
    host.tool("quick", json!({})).await.unwrap();
    let start = tokio::time::Instant::now();
    assert_eq!(host.shutdown().await.unwrap(), [ExtFrame::ShutdownAck]);
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_millis(600),
        "{took:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_grace_ends_as_soon_as_every_job_answered() {
    let mut host = TestHost::start(ext()).await.unwrap();
    host.start_tool("wait", json!({})).await.unwrap();
    host.tool("quick", json!({})).await.unwrap();
    let start = tokio::time::Instant::now();
    host.shutdown().await.unwrap();
    assert!(
        start.elapsed() < Duration::from_millis(10),
        "{:?}",
        start.elapsed()
    );
}
