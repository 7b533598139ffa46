//! A panic in an engine task on a transport other than stdio (issue 13):
//! the process belongs to the application, so the session ends as failed
//! instead of hanging. (Over stdio the process exits: see `stdio.rs`.)
//!
//! One test per binary: the fault hook is read from the environment.

mod common;

use common::*;
use zot_ext::engine::Job;
use zot_ext::testing::default_hello_ack;
use zot_protocol::{RawJson, RegisterTool};

#[tokio::test]
async fn a_reader_panic_ends_the_session_with_the_error() {
    std::env::set_var("ZOT_EXT_TEST_FAULT", "reader-panic");
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(RegisterTool::new("t", "", RawJson::object_schema()))
            .unwrap();
    })
    .await;
    host.send_line(r#"{"type":"tool_call","id":"1","name":"t","args":{}}"#)
        .await
        .unwrap();
    // Without supervision nothing would end the session: bound the wait.
    let end = tokio::time::timeout(20 * SECOND, until_finished(&engine))
        .await
        .expect("the session ends after the reader panicked");
    let Some(Job::Finished { error: Some(error) }) = end.last() else {
        panic!("{end:?}")
    };
    assert_eq!(
        error,
        "internal error: the engine's reader panicked: injected fault: the reader panics after \
         the handshake (ZOT_EXT_TEST_FAULT)"
    );
    assert_eq!(host.recv_line().await, None, "the output is closed");
}
