//! `Engine::hold_replies` / `release_replies`: a binding's replies of one
//! turn leave together; nothing else is delayed by a hold.
//!
//! The clock is paused: a `timeout` around `recv_line` fires only when every
//! task is idle, i.e. when nothing more will be written.

mod common;

use std::time::Duration;

use common::*;
use zot_ext_engine::{Engine, Job, JobId, MemoryHost, Outcome, ToolOutcome};
use zot_protocol::{ContentBlock, ExtFrame, RawJson, RegisterTool};

/// An engine with tool `t`, and `n` tool jobs handed out (`c0`, `c1`, …).
async fn started(n: usize) -> (Engine, MemoryHost, Vec<JobId>) {
    let (engine, mut host, _) = engine_with(config(), ack_with(&[]), |e| {
        e.register_tool(RegisterTool::new("t", "", RawJson::object_schema()))
            .unwrap();
    })
    .await;
    let ids = tool_jobs(&engine, &mut host, n).await;
    (engine, host, ids)
}

async fn tool_jobs(engine: &Engine, host: &mut MemoryHost, n: usize) -> Vec<JobId> {
    for i in 0..n {
        host.send_line(&format!(
            r#"{{"type":"tool_call","id":"c{i}","name":"t","args":{{}}}}"#
        ))
        .await
        .unwrap();
    }
    let mut ids = Vec::new();
    while ids.len() < n {
        for j in jobs(engine).await {
            match j {
                Job::Tool(t) => ids.push(t.id),
                other => panic!("{other:?}"),
            }
        }
    }
    ids
}

fn text(t: &str) -> Outcome {
    Outcome::Tool(ToolOutcome {
        content: vec![ContentBlock::text(t)],
        ..ToolOutcome::default()
    })
}

async fn nothing_written(host: &mut MemoryHost) -> bool {
    tokio::time::timeout(Duration::from_secs(1), host.recv_line())
        .await
        .is_err()
}

async fn result_id(host: &mut MemoryHost) -> String {
    match recv(host).await {
        ExtFrame::ToolResult(r) => r.id,
        other => panic!("expected a tool result, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn held_replies_leave_at_the_last_release_in_order() {
    let (engine, mut host, ids) = started(3).await;

    engine.hold_replies();
    engine.hold_replies(); // holds nest
    engine.complete(ids[0], text("a")).unwrap();
    engine.fail(ids[1], "b failed").unwrap();
    assert!(nothing_written(&mut host).await, "a held reply was written");
    engine.release_replies().unwrap();
    assert!(
        nothing_written(&mut host).await,
        "released before the last hold ended"
    );
    engine.release_replies().unwrap();
    assert_eq!(result_id(&mut host).await, "c0");
    assert_eq!(result_id(&mut host).await, "c1");

    // Not held any more: the next reply goes out at once, and an extra
    // release is harmless.
    engine.complete(ids[2], text("c")).unwrap();
    assert_eq!(result_id(&mut host).await, "c2");
    engine.release_replies().unwrap();
    assert!(nothing_written(&mut host).await);
}

#[tokio::test(start_paused = true)]
async fn a_hold_delays_no_frame_but_the_binding_replies() {
    let (engine, mut host, ids) = started(1).await;
    engine.hold_replies();
    engine.complete(ids[0], text("a")).unwrap();
    // The engine's own reply (an unknown tool, SDK-20) is written at once
    // and takes the held reply along, in order.
    host.send_line(r#"{"type":"tool_call","id":"x","name":"nope","args":{}}"#)
        .await
        .unwrap();
    assert_eq!(result_id(&mut host).await, "c0");
    assert_eq!(result_id(&mut host).await, "x");
    // So does a spontaneous frame.
    engine
        .notify(zot_protocol::NotifyLevel::Info, "hi")
        .unwrap();
    assert!(matches!(recv(&mut host).await, ExtFrame::Notify(_)));
    engine.release_replies().unwrap();
    assert!(nothing_written(&mut host).await);
}

#[tokio::test(start_paused = true)]
async fn shutdown_writes_held_replies() {
    let (engine, mut host, ids) = started(1).await;
    engine.hold_replies();
    engine.complete(ids[0], text("a")).unwrap();
    host.send_line(r#"{"type":"shutdown"}"#).await.unwrap();
    assert_eq!(result_id(&mut host).await, "c0");
    assert_eq!(recv(&mut host).await, ExtFrame::ShutdownAck);
}
