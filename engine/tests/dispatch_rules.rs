//! Dispatch rules the engine keeps for every SDK: `hello` is handed out
//! alone and nothing follows it until `hello_done`; a request cancelled
//! before it was handed out comes marked `cancelled`, with no `Cancel` job.

mod common;

use std::time::Duration;

use common::*;
use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::SchemaOrigin;
use zot_ext_engine::{Engine, Job, Transport};
use zot_protocol::{HostFrame, RawJson, RegisterTool};

const CALL: &str = r#"{"type":"tool_call","id":"1","name":"t","args":{}}"#;

#[tokio::test(start_paused = true)]
async fn nothing_is_handed_out_after_hello_until_hello_done() {
    let (transport, mut host) = Transport::memory();
    let engine = Engine::start(config(), transport).unwrap();
    engine
        .register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    host.recv_line().await.unwrap();
    host.send(&HostFrame::HelloAck(default_hello_ack()))
        .await
        .unwrap();
    host.send_line(CALL).await.unwrap();
    let first = engine.next_jobs().await;
    assert!(matches!(first.as_slice(), [Job::Hello(_)]), "{first:?}");
    // The on-hello hook runs for longer than the reader waits for it (5 s):
    // the tool call is read, but not handed out.
    let held = tokio::time::timeout(Duration::from_secs(30), engine.next_jobs()).await;
    assert!(held.is_err(), "handed out before hello_done: {held:?}");
    engine.hello_done().unwrap();
    let next = jobs(&engine).await;
    assert!(
        matches!(next.as_slice(), [Job::Tool(t)] if t.invocation == "1" && !t.cancelled),
        "{next:?}"
    );
}

#[tokio::test]
async fn a_request_cancelled_before_it_was_handed_out_comes_marked_cancelled() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    })
    .await;
    // Both lines in one write: read in one pass, queued before any take.
    host.send_line(&format!("{CALL}\n{}", r#"{"type":"tool_cancel","id":"1"}"#))
        .await
        .unwrap();
    let batch = jobs(&engine).await;
    assert!(
        matches!(batch.as_slice(), [Job::Tool(t)] if t.cancelled),
        "one job, marked cancelled: {batch:?}"
    );
    let Job::Tool(t) = &batch[0] else {
        unreachable!()
    };
    assert!(engine.cancel_token(t.id).is_cancelled());
}
