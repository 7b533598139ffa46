//! When a tool's argument check is built: a schema the author wrote as
//! JSON is checked against the JSON Schema meta-schema at registration; one
//! an SDK derived from types is built on the tool's first call, and checks
//! arguments the same way from then on.

mod common;

use common::*;
use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::{Job, SchemaOrigin};
use zot_protocol::{ExtFrame, RawJson, RegisterTool};

fn tool(name: &str, schema: &str) -> RegisterTool {
    RegisterTool::new(name, "", RawJson::from_string(schema.into()).unwrap())
}

const NEEDS_TEXT: &str =
    r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#;

async fn error_text(host: &mut zot_ext_engine::MemoryHost) -> String {
    match recv(host).await {
        ExtFrame::ToolResult(r) if r.is_error => format!("{:?}", r.content),
        other => panic!("expected an error result, got {other:?}"),
    }
}

#[tokio::test]
async fn a_derived_schema_checks_arguments_from_the_first_call() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(tool("echo", NEEDS_TEXT), SchemaOrigin::Derived)
            .unwrap();
    })
    .await;
    host.send_line(r#"{"type":"tool_call","id":"1","name":"echo","args":{}}"#)
        .await
        .unwrap();
    let text = error_text(&mut host).await;
    assert!(
        text.contains("invalid arguments: missing field `text`"),
        "{text}"
    );
    host.send_line(r#"{"type":"tool_call","id":"2","name":"echo","args":{"text":"hi"}}"#)
        .await
        .unwrap();
    let batch = jobs(&engine).await;
    assert!(
        matches!(batch.as_slice(), [Job::Tool(t)] if t.invocation == "2"),
        "{batch:?}"
    );
}

#[tokio::test]
async fn a_given_schema_that_is_not_json_schema_is_refused_at_registration() {
    let (engine, _host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    let e = engine
        .register_tool(tool("odd", r#"{"type":"nope"}"#), SchemaOrigin::Given)
        .unwrap_err()
        .to_string();
    assert!(e.contains("odd") && e.contains("nope"), "{e}");
}

/// An SDK's derivation is trusted at registration; were it ever wrong, each
/// call says why instead of running the handler unchecked.
#[tokio::test]
async fn a_broken_derived_schema_fails_each_call_naming_the_schema() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(tool("odd", r#"{"type":"nope"}"#), SchemaOrigin::Derived)
            .unwrap();
    })
    .await;
    for id in ["1", "2"] {
        let call = format!(r#"{{"type":"tool_call","id":"{id}","name":"odd","args":{{}}}}"#);
        host.send_line(&call).await.unwrap();
        let text = error_text(&mut host).await;
        assert!(
            text.contains("the tool's schema cannot check arguments") && text.contains("nope"),
            "{text}"
        );
    }
    drop(engine);
}
