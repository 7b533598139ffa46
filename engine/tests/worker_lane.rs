//! The worker lane: jobs of handlers routed to a binding's threads go to a
//! thread waiting in `take_work`, not to the job queue; a cancel answers a
//! job still waiting for a busy thread at once; the end lets every thread
//! go.

mod common;

use std::time::Duration;

use common::*;
use zot_ext_engine::{Engine, Job, Outcome, Routed, Taken, Work};
use zot_protocol::{ExtFrame, RawJson, RegisterTool};

const IDLE: Duration = Duration::from_secs(30);

async fn engine() -> (Engine, zot_ext_engine::MemoryHost) {
    let (engine, host, _) = engine_with(config(), ack_with(&[]), |e| {
        e.route_to_workers(Routed::Tool, "slow", true);
        for name in ["slow", "quick"] {
            e.register_tool(RegisterTool::new(name, "", RawJson::object_schema()))
                .unwrap();
        }
    })
    .await;
    assert_eq!(engine.start_workers(1), 1, "one thread to start");
    assert_eq!(engine.start_workers(1), 0, "once");
    (engine, host)
}

/// Waits for work on a thread of its own, as a binding's worker does.
async fn take(engine: &Engine, finished: bool) -> Taken {
    let engine = engine.clone();
    tokio::task::spawn_blocking(move || engine.take_work(IDLE, finished))
        .await
        .unwrap()
}

fn tool_id(taken: Taken) -> zot_ext_engine::JobId {
    match taken {
        Taken::Work {
            work: Work::Job(Job::Tool(t)),
            ..
        } => t.id,
        other => panic!("expected a tool job, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routed_calls_go_to_a_waiting_thread_and_others_to_the_queue() {
    let (engine, mut host) = engine().await;
    let waiting = tokio::spawn({
        let engine = engine.clone();
        async move { take(&engine, false).await }
    });
    host.send_line(r#"{"type":"tool_call","id":"a","name":"slow","args":{}}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"tool_call","id":"b","name":"quick","args":{}}"#)
        .await
        .unwrap();
    let id = tool_id(waiting.await.unwrap());
    let queued = jobs(&engine).await;
    assert!(
        matches!(queued.as_slice(), [Job::Tool(t)] if t.name == "quick"),
        "{queued:?}"
    );
    engine
        .complete(id, Outcome::Tool(zot_ext_engine::ToolOutcome::default()))
        .unwrap();
    let ExtFrame::ToolResult(r) = recv(&mut host).await else {
        panic!("expected a tool result");
    };
    assert_eq!(r.id, "a");
}

/// With the only thread busy, a cancelled call is answered at once (no
/// reply after `tool_cancel`, SDK-23), and its id can be used again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_behind_a_busy_thread_never_starts() {
    let (engine, mut host) = engine().await;
    let first = tokio::spawn({
        let engine = engine.clone();
        async move { take(&engine, false).await }
    });
    host.send_line(r#"{"type":"tool_call","id":"a","name":"slow","args":{}}"#)
        .await
        .unwrap();
    let busy = tool_id(first.await.unwrap());
    host.send_line(r#"{"type":"tool_call","id":"b","name":"slow","args":{}}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"tool_cancel","id":"b"}"#)
        .await
        .unwrap();
    // `b` is free again: a new call with that id is accepted, not refused
    // as a reused id.
    host.send_line(r#"{"type":"tool_call","id":"b","name":"quick","args":{}}"#)
        .await
        .unwrap();
    let queued = tokio::time::timeout(10 * SECOND, jobs(&engine))
        .await
        .expect("the second `b` was not handed out");
    assert!(
        matches!(queued.as_slice(), [Job::Tool(t)] if t.name == "quick" && !t.cancelled),
        "{queued:?}"
    );
    engine
        .complete(busy, Outcome::Tool(zot_ext_engine::ToolOutcome::default()))
        .unwrap();
    let ExtFrame::ToolResult(r) = recv(&mut host).await else {
        panic!("expected a tool result");
    };
    assert_eq!(r.id, "a", "nothing was written for the cancelled call");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_the_session_lets_waiting_threads_go() {
    let (engine, host) = engine().await;
    let waiting = tokio::spawn({
        let engine = engine.clone();
        async move { take(&engine, false).await }
    });
    drop(host);
    assert!(matches!(
        until_finished(&engine).await.last(),
        Some(Job::Finished { .. })
    ));
    assert!(matches!(waiting.await.unwrap(), Taken::Exit));
    assert!(engine.wait_workers_idle(Duration::ZERO));
}
