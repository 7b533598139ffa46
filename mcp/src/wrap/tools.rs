//! MCP tools as zot tools: registration and calls.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParam, ClientRequest, JsonObject, ServerResult, Tool,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient};
use zot_ext::{Ctx, Extension, ToolOutput, ToolSpec};
use zot_protocol::RawJson;

use crate::client::Shared;
use crate::content::tool_output;
use crate::names::NameMap;

/// What the server said about itself, for the tools' namespace.
pub struct ServerMeta {
    /// `serverInfo.name`.
    pub name: String,
    /// `instructions`, if any.
    pub instructions: Option<String>,
}

/// Registers every MCP tool on `ext`, logging each name that had to change.
pub fn register(
    mut ext: Extension,
    tools: Vec<Tool>,
    server: &ServerMeta,
    peer: &Peer<RoleClient>,
    shared: &Arc<Shared>,
) -> Extension {
    let mut names = NameMap::default();
    let count = tools.len();
    for tool in tools {
        let zot_name = names.assign(&tool.name);
        if zot_name != tool.name {
            shared.log(format!("MCP tool {:?} is zot tool {zot_name:?}", tool.name));
        }
        let spec = spec(&zot_name, &tool, server);
        let (peer, shared, mcp_name) = (peer.clone(), shared.clone(), tool.name.clone());
        ext = ext.tool_raw(spec, move |args, ctx| {
            call(peer.clone(), shared.clone(), mcp_name.clone(), args, ctx)
        });
    }
    shared.log(format!("{count} tools from MCP server {:?}", server.name));
    ext
}

fn spec(zot_name: &str, tool: &Tool, server: &ServerMeta) -> ToolSpec {
    let description = tool
        .description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or_default();
    let mut spec = ToolSpec::new(zot_name, description)
        .schema(&*tool.input_schema)
        .namespace(&server.name);
    if let Some(instructions) = &server.instructions {
        spec = spec.namespace_instructions(instructions);
    }
    if let Some(output) = &tool.output_schema {
        spec = spec.output_schema(&**output);
    }
    spec
}

/// One `tool_call`: a `tools/call` request, cancelled with
/// `notifications/cancelled` when zot cancels, its progress shown as notes.
async fn call(
    peer: Peer<RoleClient>,
    shared: Arc<Shared>,
    name: Cow<'static, str>,
    args: RawJson,
    ctx: Ctx,
) -> ToolOutput {
    let arguments: JsonObject = match serde_json::from_str(args.get()) {
        Ok(a) => a,
        Err(e) => return ToolOutput::error(format!("arguments must be a JSON object: {e}")),
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParam {
        name,
        arguments: Some(arguments),
    }));
    let mut handle = match peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
    {
        Ok(h) => h,
        Err(e) => return ToolOutput::error(format!("MCP server: {e}")),
    };
    let _tracked = shared.track(handle.progress_token.clone(), ctx.clone());
    tokio::select! {
        reply = &mut handle.rx => match reply {
            Ok(Ok(ServerResult::CallToolResult(result))) => tool_output(result),
            Ok(Ok(_)) => ToolOutput::error("MCP server: unexpected answer to tools/call"),
            Ok(Err(e)) => ToolOutput::error(format!("MCP server: {e}")),
            Err(_) => ToolOutput::error("MCP server: the connection closed"),
        },
        () = ctx.cancelled() => {
            // No zot result is sent for a cancelled call; the server hears of it.
            let _ = handle.cancel(Some("cancelled by the zot host".into())).await;
            ToolOutput::error("cancelled")
        }
    }
}
