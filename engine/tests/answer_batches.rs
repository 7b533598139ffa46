//! `Engine::complete_all`: a batch of answers (the bindings' one way to
//! answer) is answered in order, each as `complete` would, failures
//! included; its replies leave together and nothing is held after it.
//!
//! The clock is paused: a `timeout` around `recv_line` fires only when every
//! task is idle, i.e. when nothing more will be written.

mod common;

use std::time::Duration;

use common::*;
use zot_ext_engine::SchemaOrigin;
use zot_ext_engine::{
    CompleteError, Completion, Engine, Job, JobId, MemoryHost, Outcome, ToolOutcome,
};
use zot_protocol::{ContentBlock, ExtFrame, RawJson, RegisterTool};

/// An engine with tool `t`, and `n` tool jobs handed out (`c0`, `c1`, …).
async fn started(n: usize) -> (Engine, MemoryHost, Vec<JobId>) {
    let (engine, mut host, _) = engine_with(config(), ack_with(&[]), |e| {
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
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
async fn a_batch_is_answered_in_order_and_nothing_is_held_after_it() {
    let (engine, mut host, ids) = started(4).await;

    let results = engine.complete_all([
        (ids[1], text("b")),
        (ids[0], Outcome::Failed("a failed".into())),
        (ids[2], Outcome::Done),
    ]);
    assert_eq!(results[0], Ok(Completion::Sent));
    assert_eq!(results[1], Ok(Completion::Sent));
    assert!(
        matches!(results[2], Err(CompleteError::WrongKind { .. })),
        "{:?}",
        results[2]
    );
    assert_eq!(result_id(&mut host).await, "c1");
    match recv(&mut host).await {
        ExtFrame::ToolResult(r) => {
            assert_eq!(r.id, "c0");
            assert!(r.is_error);
            assert_eq!(r.content, vec![ContentBlock::text("a failed")]);
        }
        other => panic!("{other:?}"),
    }
    // The wrong kind still got its answer (an error result).
    assert_eq!(result_id(&mut host).await, "c2");

    // Nothing is held after the batch: the next answer goes out at once.
    engine.complete(ids[3], text("d")).unwrap();
    assert_eq!(result_id(&mut host).await, "c3");
    assert!(nothing_written(&mut host).await);
    // An empty batch is nothing.
    assert!(engine.complete_all([]).is_empty());
}
