//! Events routed to the worker lane go to one thread as a run, and the
//! serial order holds between the threads and the job queue: a serial job
//! for the other place, and everything behind it, waits until the jobs
//! handed out before it are completed (SDK-35).

mod common;

use std::time::Duration;

use common::*;
use zot_ext_engine::{Engine, Job, JobId, Outcome, Routed, SchemaOrigin, Taken, Work};
use zot_protocol::{RawJson, RegisterTool};

const IDLE: Duration = Duration::from_secs(30);

/// `tool_call` events go to the workers, `turn_start` ones to the queue;
/// tool `quick` (queue) marks how far the host's lines were read.
async fn engine() -> (Engine, zot_ext_engine::MemoryHost) {
    let (engine, host, _) = engine_with(config(), ack_with(&[]), |e| {
        e.route_to_workers(Routed::Event, "tool_call", true);
        e.subscribe("tool_call").unwrap();
        e.subscribe("turn_start").unwrap();
        e.register_tool(
            RegisterTool::new("quick", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    })
    .await;
    assert_eq!(engine.start_workers(1), 1);
    (engine, host)
}

async fn send(host: &mut zot_ext_engine::MemoryHost, line: &str) {
    host.send_line(line).await.unwrap();
}

async fn tool_call_event(host: &mut zot_ext_engine::MemoryHost, id: &str) {
    let line =
        format!(r#"{{"type":"event","event":"tool_call","id":"{id}","name":"x","args":{{}}}}"#);
    send(host, &line).await;
}

async fn turn_start(host: &mut zot_ext_engine::MemoryHost, step: u32) {
    send(
        host,
        &format!(r#"{{"type":"event","event":"turn_start","step":{step}}}"#),
    )
    .await;
}

async fn quick(host: &mut zot_ext_engine::MemoryHost, id: &str) {
    let line = format!(r#"{{"type":"tool_call","id":"{id}","name":"quick","args":{{}}}}"#);
    send(host, &line).await;
}

/// What a worker thread takes next: the ids of a run of events.
async fn take_run(engine: &Engine) -> Vec<JobId> {
    let engine = engine.clone();
    let taken = tokio::task::spawn_blocking(move || engine.take_work(IDLE, false))
        .await
        .unwrap();
    match taken {
        Taken::Work {
            work: Work::Events(run),
            ..
        } => run
            .iter()
            .map(|job| match job {
                Job::Event { id, event, .. } => {
                    assert_eq!(event.name(), "tool_call");
                    *id
                }
                other => panic!("a run holds events only, got {other:?}"),
            })
            .collect(),
        other => panic!("expected a run of events, got {other:?}"),
    }
}

fn done(engine: &Engine, ids: &[JobId]) {
    for r in engine.complete_all(ids.iter().map(|id| (*id, Outcome::Done))) {
        r.unwrap();
    }
}

/// The names of a batch's jobs (`event:NAME`, `tool:NAME`).
fn names(batch: &[Job]) -> Vec<String> {
    batch
        .iter()
        .map(|job| match job {
            Job::Event { event, .. } => format!("event:{}", event.name()),
            Job::Tool(t) => format!("tool:{}", t.name),
            other => format!("{other:?}"),
        })
        .collect()
}

fn event_ids(batch: &[Job]) -> Vec<JobId> {
    batch
        .iter()
        .filter_map(|job| match job {
            Job::Event { id, .. } => Some(*id),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_alternate_between_a_run_for_a_thread_and_the_queue_in_arrival_order() {
    let (engine, mut host) = engine().await;
    tool_call_event(&mut host, "1").await;
    tool_call_event(&mut host, "2").await;
    turn_start(&mut host, 3).await;
    tool_call_event(&mut host, "4").await;
    quick(&mut host, "q1").await;

    // The first two go to a thread together; the `turn_start` behind them
    // waits, and so does the event after it: the queue has only the call
    // (read after all of them).
    assert_eq!(names(&jobs(&engine).await), ["tool:quick"]);
    let run = take_run(&engine).await;
    assert_eq!(run.len(), 2);

    // The run completed: the `turn_start` is handed to the queue; the event
    // for a thread waits for it in turn.
    done(&engine, &run);
    let batch = jobs(&engine).await;
    assert_eq!(names(&batch), ["event:turn_start"]);
    quick(&mut host, "q2").await;
    assert_eq!(names(&jobs(&engine).await), ["tool:quick"]);

    done(&engine, &event_ids(&batch));
    assert_eq!(take_run(&engine).await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_for_a_thread_after_a_taken_run_starts_a_new_run_once_it_completed() {
    let (engine, mut host) = engine().await;
    tool_call_event(&mut host, "1").await;
    let first = take_run(&engine).await;
    // The run was taken: the next event cannot join it.
    tool_call_event(&mut host, "2").await;
    turn_start(&mut host, 3).await;
    quick(&mut host, "q1").await;
    assert_eq!(names(&jobs(&engine).await), ["tool:quick"]);
    done(&engine, &first);
    assert_eq!(take_run(&engine).await.len(), 1);
}
