//! The worker lane: jobs of handlers routed to a binding's threads go to a
//! thread waiting in `take_work`, not to the job queue; a cancel answers a
//! job still waiting for a busy thread at once; the end lets every thread
//! go.

mod common;

use std::time::Duration;

use common::*;
use zot_ext_engine::SchemaOrigin;
use zot_ext_engine::{Engine, Job, JobId, Outcome, Routed, Taken, Work};
use zot_protocol::{ExtFrame, RawJson, RegisterTool};

const IDLE: Duration = Duration::from_secs(30);

async fn engine() -> (Engine, zot_ext_engine::MemoryHost) {
    let (engine, host, _) = engine_with(config(), ack_with(&[]), |e| {
        e.route_to_workers(Routed::Tool, "slow", true);
        for name in ["slow", "quick"] {
            e.register_tool(
                RegisterTool::new(name, "", RawJson::object_schema()),
                SchemaOrigin::Given,
            )
            .unwrap();
        }
    })
    .await;
    assert_eq!(engine.start_workers(1), 1, "one thread to start");
    assert_eq!(engine.start_workers(1), 0, "once");
    (engine, host)
}

/// A thread that waits for work, as a binding's worker does.
fn worker(engine: &Engine) -> tokio::task::JoinHandle<Taken> {
    let engine = engine.clone();
    tokio::task::spawn_blocking(move || engine.take_work(IDLE, false))
}

async fn send(host: &mut zot_ext_engine::MemoryHost, line: &str) {
    host.send_line(line).await.unwrap();
}

/// The host calls tool `name` with the call id `id`.
async fn call(host: &mut zot_ext_engine::MemoryHost, id: &str, name: &str) {
    let line = format!(r#"{{"type":"tool_call","id":"{id}","name":"{name}","args":{{}}}}"#);
    send(host, &line).await;
}

/// Answers the tool job `id`; the host reads the result of call `call`.
async fn answer(engine: &Engine, host: &mut zot_ext_engine::MemoryHost, id: JobId, call: &str) {
    engine
        .complete(id, Outcome::Tool(zot_ext_engine::ToolOutcome::default()))
        .unwrap();
    let ExtFrame::ToolResult(r) = recv(host).await else {
        panic!("expected a tool result");
    };
    assert_eq!(r.id, call);
}

fn tool_id(taken: Taken) -> JobId {
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
    let waiting = worker(&engine);
    call(&mut host, "a", "slow").await;
    call(&mut host, "b", "quick").await;
    let id = tool_id(waiting.await.unwrap());
    let queued = jobs(&engine).await;
    assert!(
        matches!(queued.as_slice(), [Job::Tool(t)] if t.name == "quick"),
        "{queued:?}"
    );
    answer(&engine, &mut host, id, "a").await;
}

/// With the only thread busy, a cancelled call is answered at once (no
/// reply after `tool_cancel`, SDK-23), and its id can be used again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cancelled_behind_a_busy_thread_never_starts() {
    let (engine, mut host) = engine().await;
    let first = worker(&engine);
    call(&mut host, "a", "slow").await;
    let busy = tool_id(first.await.unwrap());
    call(&mut host, "b", "slow").await;
    send(&mut host, r#"{"type":"tool_cancel","id":"b"}"#).await;
    // `b` is free again: a new call with that id is accepted, not refused
    // as a reused id.
    call(&mut host, "b", "quick").await;
    let queued = tokio::time::timeout(10 * SECOND, jobs(&engine))
        .await
        .expect("the second `b` was not handed out");
    assert!(
        matches!(queued.as_slice(), [Job::Tool(t)] if t.name == "quick" && !t.cancelled),
        "{queued:?}"
    );
    // Nothing was written for the cancelled call.
    answer(&engine, &mut host, busy, "a").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_the_session_lets_waiting_threads_go() {
    let (engine, host) = engine().await;
    let waiting = worker(&engine);
    drop(host);
    assert!(matches!(
        until_finished(&engine).await.last(),
        Some(Job::Finished { .. })
    ));
    assert!(matches!(waiting.await.unwrap(), Taken::Exit));
    assert!(engine.wait_workers_idle(Duration::ZERO));
}
