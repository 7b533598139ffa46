//! The serial read-ahead bound (`engine::SERIAL_READ_AHEAD`): events are
//! read at most that far ahead of their handlers, except while a
//! `call_tool` waits for its answer.
//!
//! The clock is paused: tokio advances it only when every task is idle, so
//! `timeout(…, next_jobs())` firing means "the engine is stalled", not "it
//! was slow".

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;
use zot_ext_engine::{CallRequest, Job, JobId, Outcome, SERIAL_READ_AHEAD};
use zot_protocol::{ExtFrame, HostFrame, HostToolResult, RawJson, RegisterTool};

fn event_line(seq: usize) -> String {
    format!(
        r#"{{"type":"event","event":"tool_call","session_id":"s","cwd":"/","sequence":{seq},"tool_id":"toolu_{seq:08}","tool_name":"bash","tool_args":{{"command":"ls -la"}}}}"#
    )
}

fn sequence(job: &Job) -> u64 {
    match job {
        Job::Event { event, .. } => serde_json::from_str::<serde_json::Value>(&event.to_json())
            .unwrap()["sequence"]
            .as_u64()
            .unwrap(),
        other => panic!("expected an event, got {other:?}"),
    }
}

/// Pulls until the engine has nothing more to hand out.
async fn pull_until_stalled(engine: &zot_ext_engine::Engine) -> Vec<Job> {
    let mut all = Vec::new();
    while let Ok(batch) = tokio::time::timeout(Duration::from_secs(1), engine.next_jobs()).await {
        all.extend(batch);
    }
    all
}

fn answer(engine: &zot_ext_engine::Engine, ids: impl IntoIterator<Item = JobId>) {
    for id in ids {
        engine.complete(id, Outcome::Done).unwrap();
    }
}

#[tokio::test(start_paused = true)]
async fn events_are_read_at_most_the_bound_ahead_of_their_handlers() {
    let (engine, mut host, _) = engine_with(config(), ack_with(&[]), |e| {
        e.subscribe("tool_call").unwrap();
        e.register_tool(RegisterTool::new("echo", "", RawJson::object_schema()))
            .unwrap();
    })
    .await;
    let n = 3 * SERIAL_READ_AHEAD;
    // More than the in-memory pipe holds: the sender blocks once the
    // engine stops reading.
    let sender = tokio::spawn(async move {
        for seq in 0..n {
            host.send_line(&event_line(seq)).await.unwrap();
        }
        host.send_line(r#"{"type":"tool_call","id":"after","name":"echo","args":{}}"#)
            .await
            .unwrap();
        host
    });

    let held = pull_until_stalled(&engine).await;
    assert!(
        held.iter().all(|j| matches!(j, Job::Event { .. })),
        "only events before the tool call"
    );
    assert!(
        (SERIAL_READ_AHEAD..=SERIAL_READ_AHEAD + SERIAL_READ_AHEAD / 4).contains(&held.len()),
        "{} events read ahead with none answered (bound {SERIAL_READ_AHEAD})",
        held.len()
    );
    assert!(!sender.is_finished(), "the host could write everything");

    // Answering resumes reading; everything arrives, in order.
    let mut seen: Vec<u64> = held.iter().map(sequence).collect();
    answer(
        &engine,
        held.iter().map(|j| match j {
            Job::Event { id, .. } => *id,
            _ => unreachable!(),
        }),
    );
    let tool = 'pull: loop {
        for job in jobs(&engine).await {
            match job {
                Job::Event { id, .. } => {
                    seen.push(sequence(&job));
                    answer(&engine, [id]);
                }
                Job::Tool(t) => break 'pull t,
                other => panic!("unexpected {other:?}"),
            }
        }
    };
    assert_eq!(seen, (0..n as u64).collect::<Vec<_>>());
    assert_eq!(tool.invocation, "after");
    let mut host = sender.await.unwrap();
    engine
        .complete(
            tool.id,
            Outcome::Tool(zot_ext_engine::ToolOutcome::default()),
        )
        .unwrap();
    match recv(&mut host).await {
        ExtFrame::ToolResult(r) => assert_eq!(r.id, "after"),
        other => panic!("expected the tool result, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn reading_goes_on_past_the_bound_once_a_call_waits_for_its_answer() {
    let (engine, mut host, _) = engine_with(config(), ack_with(&["call_tool"]), |e| {
        e.subscribe("tool_call").unwrap();
    })
    .await;
    let n = 3 * SERIAL_READ_AHEAD;
    let sender = tokio::spawn(async move {
        for seq in 0..n {
            host.send_line(&event_line(seq)).await.unwrap();
        }
        host
    });
    let mut events = pull_until_stalled(&engine).await.len();
    assert!(events < n, "the backlog bound paused reading");

    // A handler (say, of one of these events) now waits for a call's
    // answer: reading must go on, or the answer could never arrive.
    let call = engine
        .start_call(CallRequest::new(
            "echo",
            RawJson::from_value(&json!({})).unwrap(),
        ))
        .unwrap();
    events += pull_until_stalled(&engine).await.len();
    assert_eq!(events, n, "every event was read with none answered");

    let mut host = sender.await.unwrap();
    let wire = match recv(&mut host).await {
        ExtFrame::CallTool(c) => c.id,
        other => panic!("expected call_tool, got {other:?}"),
    };
    let answer = HostToolResult {
        id: wire,
        name: "echo".into(),
        ..Default::default()
    };
    host.send(&HostFrame::ToolResult(answer)).await.unwrap();
    let jobs = jobs(&engine).await;
    assert!(
        matches!(jobs.as_slice(), [Job::CallResult { call: c, result: Ok(_) }] if *c == call),
        "the call's answer arrived: {jobs:?}"
    );
}
