//! The serial read-ahead bound (`engine::SERIAL_READ_AHEAD`): events are
//! read at most that far ahead of their handlers; while a `call_tool` waits
//! for its answer, the answer overtakes them and the lines read past the
//! bound are parked, at most `PARKED_READ_AHEAD_BYTES` of them.
//!
//! The clock is paused: tokio advances it only when every task is idle, so
//! `timeout(…, next_jobs())` firing means "the engine is stalled", not "it
//! was slow".

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;
use zot_ext_engine::SchemaOrigin;
use zot_ext_engine::{
    CallRequest, Job, JobId, Outcome, PARKED_READ_AHEAD_BYTES, SERIAL_READ_AHEAD,
};
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
        e.register_tool(
            RegisterTool::new("echo", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
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

/// Answers every event job in `jobs`, returning their sequence numbers.
fn answer_events(engine: &zot_ext_engine::Engine, jobs: &[Job]) -> Vec<u64> {
    jobs.iter()
        .map(|j| {
            let Job::Event { id, .. } = j else {
                panic!("expected an event, got {j:?}")
            };
            engine.complete(*id, Outcome::Done).unwrap();
            sequence(j)
        })
        .collect()
}

/// Answers events until `want` of them were seen (in all).
async fn drain_events(engine: &zot_ext_engine::Engine, seen: &mut Vec<u64>, want: usize) {
    while seen.len() < want {
        let batch = jobs(engine).await;
        seen.extend(answer_events(engine, &batch));
    }
}

#[tokio::test(start_paused = true)]
async fn a_pending_calls_answer_overtakes_a_full_backlog_and_nothing_else_does() {
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
    let held = pull_until_stalled(&engine).await;
    assert!(held.len() < n, "the backlog bound paused reading");

    // A handler (say, of one of these events) now waits for a call's
    // answer, which the host sends after the rest of the burst.
    let call = engine
        .start_call(CallRequest::new(
            "echo",
            RawJson::from_value(&json!({})).unwrap(),
        ))
        .unwrap();
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
    // The answer arrives; the events read past the bound stay parked, not
    // handed out (they would grow without bound in a binding's queue).
    let after = pull_until_stalled(&engine).await;
    assert!(
        matches!(after.as_slice(), [Job::CallResult { call: c, result: Ok(_) }] if *c == call),
        "only the call's answer: {after:?}"
    );
    // Answering the held events hands over the parked ones, in order.
    let mut seen = answer_events(&engine, &held);
    drain_events(&engine, &mut seen, n).await;
    assert_eq!(seen, (0..n as u64).collect::<Vec<_>>());
}

#[tokio::test(start_paused = true)]
async fn lines_parked_while_a_call_waits_are_bounded_in_bytes() {
    let (engine, host, _) = engine_with(config(), ack_with(&["call_tool"]), |e| {
        e.subscribe("tool_call").unwrap();
    })
    .await;
    let line_len = event_line(0).len() + 1;
    let n = 2 * PARKED_READ_AHEAD_BYTES / line_len;
    let _call = engine
        .start_call(CallRequest::new(
            "echo",
            RawJson::from_value(&json!({})).unwrap(),
        ))
        .unwrap();
    let sender = tokio::spawn(async move {
        let mut host = host;
        for seq in 0..n {
            host.send_line(&event_line(seq)).await.unwrap();
        }
        host
    });
    let held = pull_until_stalled(&engine).await;
    assert!(
        held.len() <= SERIAL_READ_AHEAD + SERIAL_READ_AHEAD / 4,
        "{} jobs handed out past the backlog",
        held.len()
    );
    assert!(
        !sender.is_finished(),
        "reading stopped once {PARKED_READ_AHEAD_BYTES} bytes were parked"
    );
    // Nothing is lost: answering resumes everything, in order.
    let mut seen = answer_events(&engine, &held);
    drain_events(&engine, &mut seen, n).await;
    assert_eq!(seen, (0..n as u64).collect::<Vec<_>>());
    sender.await.unwrap();
}
