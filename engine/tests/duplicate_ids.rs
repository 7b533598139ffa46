//! A request with the id of one still running (issue 13, item 9): the
//! duplicate is answered at once with an error and never run; the running
//! request keeps its reply and its cancellation.

mod common;

use common::*;
use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::SchemaOrigin;
use zot_ext_engine::{
    CommandOutcome, Completion, DropReason, Engine, InterceptOutcome, Job, MemoryHost, Outcome,
    ToolOutcome,
};
use zot_protocol::{CommandAction, ExtFrame, RawJson, RegisterCommand, RegisterTool, ToolResult};

async fn started() -> (Engine, MemoryHost) {
    let (engine, host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
        e.register_command(RegisterCommand {
            name: "c".into(),
            description: String::new(),
        })
        .unwrap();
        e.intercept("tool_call").unwrap();
    })
    .await;
    (engine, host)
}

async fn send(host: &mut MemoryHost, line: &str) {
    host.send_line(line).await.unwrap();
}

fn call(id: &str) -> String {
    format!(r#"{{"type":"tool_call","id":"{id}","name":"t","args":{{}}}}"#)
}

fn cancel(id: &str) -> String {
    format!(r#"{{"type":"tool_cancel","id":"{id}"}}"#)
}

/// The next job, which must be the only one queued.
async fn one_job(engine: &Engine) -> Job {
    let mut batch = jobs(engine).await;
    assert_eq!(batch.len(), 1, "{batch:?}");
    batch.remove(0)
}

async fn tool_result(host: &mut MemoryHost) -> ToolResult {
    match recv(host).await {
        ExtFrame::ToolResult(r) => r,
        other => panic!("{other:?}"),
    }
}

const DUPLICATE_1: &str =
    r#"duplicate tool_call id "1": a request with this id is still running; this one was not run"#;

#[tokio::test]
async fn a_duplicate_tool_call_gets_an_error_and_the_running_call_its_result() {
    let (engine, mut host) = started().await;
    send(&mut host, &call("1")).await;
    let Job::Tool(running) = one_job(&engine).await else {
        panic!()
    };
    send(&mut host, &call("1")).await;
    // The duplicate queued no job: the next one is the marker's.
    send(&mut host, &call("marker")).await;
    assert!(matches!(one_job(&engine).await, Job::Tool(t) if t.invocation == "marker"));
    let dup = tool_result(&mut host).await;
    assert_eq!(dup.id, "1");
    assert!(dup.is_error);
    assert_eq!(dup.content[0].as_text(), Some(DUPLICATE_1));
    // The running call answers as it would have.
    let out = ToolOutcome {
        content: vec![zot_protocol::ContentBlock::text("done")],
        ..ToolOutcome::default()
    };
    assert_eq!(
        engine.complete(running.id, Outcome::Tool(out)).unwrap(),
        Completion::Sent
    );
    let r = tool_result(&mut host).await;
    assert_eq!((r.id.as_str(), r.is_error), ("1", false));
    assert_eq!(r.content[0].as_text(), Some("done"));
    // Once answered, the id is free again.
    send(&mut host, &call("1")).await;
    assert!(matches!(one_job(&engine).await, Job::Tool(t) if t.invocation == "1"));
}

#[tokio::test]
async fn tool_cancel_still_reaches_the_running_call() {
    let (engine, mut host) = started().await;
    send(&mut host, &call("1")).await;
    let Job::Tool(running) = one_job(&engine).await else {
        panic!()
    };
    send(&mut host, &call("1")).await;
    send(&mut host, &cancel("1")).await;
    // The cancel is the next job, and it is the running call's.
    assert!(
        matches!(one_job(&engine).await, Job::Cancel { id } if id == running.id),
        "the cancel reaches the running call"
    );
    assert_eq!(
        tool_result(&mut host).await.content[0].as_text(),
        Some(DUPLICATE_1)
    );
    assert_eq!(
        engine
            .complete(running.id, Outcome::Tool(ToolOutcome::default()))
            .unwrap(),
        Completion::Dropped(DropReason::Cancelled)
    );
    assert_eq!(host.try_recv_line(), None, "nothing for the cancelled call");
}

/// A cancelled call sends nothing more, so its id may be used again while
/// its handler still winds down; that handler finishing does not take the
/// id from the new call.
#[tokio::test]
async fn a_cancelled_call_does_not_hold_its_id() {
    let (engine, mut host) = started().await;
    send(&mut host, &call("1")).await;
    let Job::Tool(old) = one_job(&engine).await else {
        panic!()
    };
    send(&mut host, &cancel("1")).await;
    assert!(matches!(one_job(&engine).await, Job::Cancel { id } if id == old.id));
    send(&mut host, &call("1")).await;
    let Job::Tool(new) = one_job(&engine).await else {
        panic!()
    };
    assert_eq!(new.invocation, "1");
    assert_eq!(
        engine
            .complete(old.id, Outcome::Tool(ToolOutcome::default()))
            .unwrap(),
        Completion::Dropped(DropReason::Cancelled)
    );
    send(&mut host, &cancel("1")).await;
    send(&mut host, &call("marker")).await;
    let batch = jobs(&engine).await;
    assert!(
        matches!(batch.first(), Some(Job::Cancel { id }) if *id == new.id),
        "{batch:?}"
    );
}

#[tokio::test]
async fn a_duplicate_command_gets_an_error_response_and_is_not_run() {
    let (engine, mut host) = started().await;
    send(
        &mut host,
        r#"{"type":"command_invoked","id":"c1","name":"c","args":"a"}"#,
    )
    .await;
    let Job::Command(running) = one_job(&engine).await else {
        panic!()
    };
    send(
        &mut host,
        r#"{"type":"command_invoked","id":"c1","name":"c","args":"b"}"#,
    )
    .await;
    send(&mut host, &call("marker")).await;
    assert!(matches!(one_job(&engine).await, Job::Tool(t) if t.invocation == "marker"));
    match recv(&mut host).await {
        ExtFrame::CommandResponse(r) => {
            assert_eq!((r.id.as_str(), r.action), ("c1", CommandAction::Noop));
            assert_eq!(
                r.error,
                r#"duplicate command_invoked id "c1": a request with this id is still running; this one was not run"#
            );
        }
        other => panic!("{other:?}"),
    }
    let out = CommandOutcome {
        action: CommandAction::Display,
        display: running.args.clone(),
        ..CommandOutcome::default()
    };
    engine.complete(running.id, Outcome::Command(out)).unwrap();
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"command_response","id":"c1","action":"display","display":"a"}"#
    );
}

/// The host cannot tell which request an answer is for, so the duplicate
/// is answered as a failed guard: `block`, never an `allow` that would let
/// the running request through unchecked.
#[tokio::test]
async fn a_duplicate_interception_is_blocked_and_the_running_one_answered() {
    let (engine, mut host) = started().await;
    let req = r#"{"type":"event_intercept","id":"i1","event":"tool_call","tool_id":"x","tool_name":"bash","tool_args":{}}"#;
    send(&mut host, req).await;
    let Job::Intercept(running) = one_job(&engine).await else {
        panic!()
    };
    send(&mut host, req).await;
    send(&mut host, &call("marker")).await;
    assert!(matches!(one_job(&engine).await, Job::Tool(t) if t.invocation == "marker"));
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"event_intercept_response","id":"i1","block":true,"reason":"duplicate event_intercept id \"i1\": a request with this id is still running; this one was not run"}"#
    );
    engine
        .complete(running.id, Outcome::Intercept(InterceptOutcome::default()))
        .unwrap();
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"event_intercept_response","id":"i1"}"#
    );
}
