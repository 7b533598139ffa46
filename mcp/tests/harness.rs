//! `zot-mcp wrap` over the official MCP test server
//! (@modelcontextprotocol/server-everything), driven through the Rust SDK's
//! testing harness (`zot_ext::testing::TestHost::spawn`): the registered
//! tools, echo, a structured-content tool, a clean exit.
//!
//! Needs the server installed: scripts/test.d/80-mcp.sh runs it with
//! `ZOT_MCP_EVERYTHING=<its dist/index.js> cargo test -p zot-mcp --test harness -- --ignored`.

use std::process::Command;

use serde_json::json;
use zot_ext::testing::TestHost;
use zot_protocol::{ContentBlock, ExtFrame};

#[tokio::test]
#[ignore = "needs @modelcontextprotocol/server-everything (ZOT_MCP_EVERYTHING); run by the mcp suite"]
async fn wrap_over_server_everything_through_the_rust_harness() {
    let server = std::env::var("ZOT_MCP_EVERYTHING")
        .expect("ZOT_MCP_EVERYTHING: the path of server-everything's dist/index.js");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_zot-mcp"));
    cmd.args(["wrap", "--", "node", &server, "stdio"]);
    let mut host = TestHost::spawn(cmd).await.unwrap();
    assert_eq!(host.registration().hello.name, "mcp-servers/everything");
    let tools: Vec<&str> = host
        .registration()
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    for want in ["echo", "get-sum", "get-structured-content"] {
        assert!(tools.contains(&want), "{want} not in {tools:?}");
    }
    let echo = host.tool("echo", json!({"message": "hi"})).await.unwrap();
    assert_eq!(echo.content, vec![ContentBlock::text("Echo: hi")]);
    let weather = host
        .tool("get-structured-content", json!({"location": "New York"}))
        .await
        .unwrap();
    assert!(!weather.is_error, "{weather:?}");
    let structured: serde_json::Value = serde_json::to_value(
        weather
            .structured_content
            .as_ref()
            .expect("structured content"),
    )
    .unwrap();
    assert!(structured["temperature"].is_number(), "{structured}");
    let frames = host.shutdown().await.unwrap();
    assert!(
        matches!(frames.last(), Some(ExtFrame::ShutdownAck)),
        "{frames:?}"
    );
    assert!(host.wait().await.unwrap().success());
}
