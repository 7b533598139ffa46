//! The MCP server side of `zot-mcp serve`: tools, prompts, cancellation.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParam, CallToolResult, GetPromptRequestParam, GetPromptResult, Implementation,
    ListPromptsResult, ListToolsResult, PaginatedRequestParam, ServerCapabilities, ServerInfo,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use zot_host::embed::Embedded;
use zot_protocol::RawJson;

use super::convert;

/// Serves one loaded extension to an MCP client.
#[derive(Clone)]
pub struct Bridge {
    pub ext: Arc<Embedded>,
}

impl ServerHandler for Bridge {
    fn get_info(&self) -> ServerInfo {
        ServerInfo {
            capabilities: ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
            server_info: Implementation {
                name: self.ext.name().to_owned(),
                title: None,
                version: env!("CARGO_PKG_VERSION").into(),
                icons: None,
                website_url: None,
            },
            ..ServerInfo::default()
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParam>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Interactive tools wait for a person at a zot host's screen.
        let tools = self
            .ext
            .tools()
            .iter()
            .filter(|t| !t.interactive)
            .map(convert::tool)
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParam,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let known = self
            .ext
            .tools()
            .into_iter()
            .any(|t| t.name == request.name && !t.interactive);
        if !known {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        }
        let args = RawJson::from(serde_json::Value::Object(
            request.arguments.unwrap_or_default(),
        ));
        // notifications/cancelled cancels `context.ct`: the host sends the
        // extension tool_cancel and stops waiting.
        let out = self.ext.call(&request.name, args, context.ct.clone()).await;
        Ok(convert::result(out))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParam>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts = self.ext.commands().iter().map(convert::prompt).collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParam,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResult, ErrorData> {
        if !self.ext.commands().iter().any(|c| c.name == request.name) {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt {:?}", request.name),
                None,
            ));
        }
        let args = convert::prompt_args(request.arguments.as_ref());
        let response = self
            .ext
            .command(&request.name, &args)
            .await
            .map_err(|e| ErrorData::internal_error(e, None))?;
        convert::prompt_result(&request.name, response)
            .map_err(|e| ErrorData::internal_error(e, None))
    }
}
