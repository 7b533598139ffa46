//! A request line that is not valid UTF-8, or starts with a byte order
//! mark, is refused like any malformed request: its id is still read and
//! the host gets its one reply instead of waiting out its deadline.

mod common;

use common::*;
use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::SchemaOrigin;
use zot_ext_engine::{Engine, MemoryHost};
use zot_protocol::{ExtFrame, RawJson, RegisterCommand, RegisterTool};

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
    })
    .await;
    (engine, host)
}

fn with_bytes(prefix: &[u8], text: &str, suffix: &[u8]) -> Vec<u8> {
    [prefix, text.as_bytes(), suffix, b"\n"].concat()
}

async fn tool_error(host: &mut MemoryHost, line: &[u8]) -> String {
    host.send_bytes(line).await.unwrap();
    match recv(host).await {
        ExtFrame::ToolResult(r) => {
            assert_eq!(r.id, "7");
            assert!(r.is_error);
            r.content[0].as_text().unwrap().to_owned()
        }
        other => panic!("expected an error tool_result, got {other:?}"),
    }
}

#[tokio::test]
async fn a_tool_call_with_bytes_that_are_not_utf8_gets_an_error_result() {
    let (_engine, mut host) = started().await;
    let line = with_bytes(
        br#"{"type":"tool_call","id":"7","name":"t","args":{"q":""#,
        "",
        b"\xff\xfe\"}}",
    );
    let text = tool_error(&mut host, &line).await;
    assert!(text.contains("UTF-8"), "{text}");
}

#[tokio::test]
async fn a_tool_call_that_starts_with_a_byte_order_mark_gets_an_error_result() {
    let (_engine, mut host) = started().await;
    let line = with_bytes(
        b"\xEF\xBB\xBF",
        r#"{"type":"tool_call","id":"7","name":"t","args":{}}"#,
        b"",
    );
    let text = tool_error(&mut host, &line).await;
    assert!(text.contains("byte order mark"), "{text}");
}

#[tokio::test]
async fn a_command_that_starts_with_a_byte_order_mark_gets_an_error_response() {
    let (_engine, mut host) = started().await;
    let line = with_bytes(
        b"\xEF\xBB\xBF",
        r#"{"type":"command_invoked","id":"9","name":"c","args":""}"#,
        b"",
    );
    host.send_bytes(&line).await.unwrap();
    match recv(&mut host).await {
        ExtFrame::CommandResponse(r) => {
            assert_eq!(r.id, "9");
            assert!(r.error.contains("byte order mark"), "{}", r.error);
        }
        other => panic!("expected a command_response, got {other:?}"),
    }
}
