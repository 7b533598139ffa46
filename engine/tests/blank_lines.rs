//! Blank lines after a request do not hold it back: the reader hands what
//! it read to the dispatcher before it waits for more input, even when the
//! buffer still ends in empty lines (found by the `engine` fuzz target:
//! `fuzz/regressions/engine/t3-minimal-garbage-line-then-eof-after-blank-lines`,
//! where EOF then cancelled the request before its handler ever saw it).
//!
//! The clock is paused: a `timeout` firing means the engine is stalled.

mod common;

use common::*;
use zot_ext_engine::Job;
use zot_ext_engine::SchemaOrigin;
use zot_protocol::{RawJson, RegisterTool};

const CALL: &str = r#"{"type":"tool_call","id":"t1","name":"echo","args":{}}"#;

async fn request_followed_by(tail: &str) -> Vec<Job> {
    let (engine, mut host, _) = engine_with(config(), ack_with(&[]), |e| {
        e.register_tool(
            RegisterTool::new("echo", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    })
    .await;
    host.send_bytes(format!("{CALL}\n{tail}").as_bytes())
        .await
        .unwrap();
    // No more input and no EOF: the request must still reach a handler.
    tokio::time::timeout(10 * SECOND, jobs(&engine))
        .await
        .unwrap_or_else(|_| panic!("the tool_call followed by {tail:?} was never handed out"))
}

#[tokio::test(start_paused = true)]
async fn a_request_followed_by_blank_lines_is_handed_out_at_once() {
    for tail in ["\n", "\n\n", "\r\n", "  \n\t\n"] {
        let jobs = request_followed_by(tail).await;
        assert!(
            matches!(jobs.as_slice(), [Job::Tool(t)] if t.invocation == "t1"),
            "{tail:?}: {jobs:?}"
        );
    }
}
