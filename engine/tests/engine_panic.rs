//! A panic while reading on a transport other than stdio (issue 13): the
//! process belongs to the application, so the session ends as failed
//! instead of hanging. (Over stdio the process exits: see `stdio.rs`.)
//!
//! One test in this binary: the fault hook is read from the environment
//! when an engine starts.

mod common;

use common::*;
use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::SchemaOrigin;
use zot_ext_engine::{Engine, Job};
use zot_protocol::{RawJson, RegisterTool};

const CALL: &str = r#"{"type":"tool_call","id":"1","name":"t","args":{}}"#;

fn with_tool(e: &Engine) {
    e.register_tool(
        RegisterTool::new("t", "", RawJson::object_schema()),
        SchemaOrigin::Given,
    )
    .unwrap();
}

/// The jobs until `Finished`; without supervision nothing would end the
/// session, so the wait is bounded.
async fn end_of(engine: &Engine) -> Vec<Job> {
    tokio::time::timeout(20 * SECOND, until_finished(engine))
        .await
        .expect("the session ends after the panic")
}

fn error(end: &[Job]) -> &str {
    match end.last() {
        Some(Job::Finished { error: Some(e) }) => e,
        _ => panic!("{end:?}"),
    }
}

#[tokio::test]
async fn a_panic_while_reading_ends_the_session_with_the_error() {
    // The engine's own read loop.
    std::env::set_var("ZOT_EXT_TEST_FAULT", "reader-panic");
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), with_tool).await;
    host.send_line(CALL).await.unwrap();
    assert_eq!(
        error(&end_of(&engine).await),
        "internal error: the engine's reader panicked: injected fault: the reader panics after \
         the handshake (ZOT_EXT_TEST_FAULT)"
    );
    assert_eq!(host.recv_line().await, None, "the output is closed");
}
