//! The fixture: a small MCP server written with rmcp's server side, run by
//! the tests through `zot-mcp wrap`. Its tools come in pages of four.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParam, CallToolResult, ErrorData, GetPromptRequestParam, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    LoggingLevel, LoggingMessageNotificationParam, PaginatedRequestParam,
    ProgressNotificationParam, ReadResourceRequestParam, ReadResourceResult, ServerInfo,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{json, Value};
use tokio::sync::watch;

const PAGE: usize = 4;

#[derive(Clone)]
struct Fixture {
    /// Set once a `slow` call was cancelled.
    cancelled: Arc<watch::Sender<bool>>,
    /// Set once the first full listing was given: from then on the list
    /// has one more tool, `late` (as servers that add tools once
    /// initialised do), and the server said so.
    late: Arc<AtomicBool>,
}

/// The tools, as the server lists them: `odd.name` must be renamed for
/// zot, and clashes with `odd_name` once renamed.
fn tools() -> Vec<Value> {
    let object = json!({"type": "object"});
    let text =
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let add = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}});
    vec![
        json!({"name": "echo", "description": "Echo the text", "inputSchema": text}),
        json!({"name": "add", "description": "Add two integers", "inputSchema": add,
               "outputSchema": {"type": "object", "properties": {"sum": {"type": "integer"}}}}),
        json!({"name": "fail", "description": "Always fails", "inputSchema": object}),
        json!({"name": "picture", "title": "A picture and a resource", "inputSchema": object}),
        json!({"name": "progress", "description": "Reports progress", "inputSchema": object}),
        json!({"name": "slow", "description": "Runs until cancelled", "inputSchema": object}),
        json!({"name": "wait_cancelled", "description": "Whether slow was cancelled", "inputSchema": object}),
        json!({"name": "die", "description": "Exits the server", "inputSchema": object}),
        json!({"name": "odd_name", "description": "A valid name", "inputSchema": object}),
        json!({"name": "odd.name", "description": "A name zot must change", "inputSchema": object}),
        json!({"name": "change_tools", "description": "Announces a new tool list", "inputSchema": object}),
    ]
}

/// The prompts: one with arguments, one with an assistant turn, one whose
/// name has a space (not allowed in a command name).
fn prompts() -> Value {
    json!({"prompts": [
        {"name": "greet", "description": "Greets someone", "arguments": [
            {"name": "name", "required": true}, {"name": "greeting"}]},
        {"name": "talk", "title": "A short talk"},
        {"name": "Odd Prompt", "description": "Renamed"},
    ]})
}

fn decode<T: zot_ext::serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    Ok(serde_json::from_value(value).expect("fixture values are valid"))
}

fn result(value: Value) -> Result<CallToolResult, ErrorData> {
    Ok(serde_json::from_value(value).expect("fixture results are valid"))
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerInfo {
        serde_json::from_value(json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}, "logging": {}, "prompts": {"listChanged": true}, "resources": {}},
            "serverInfo": {"name": "fixture", "version": "1.0.0"},
            "instructions": "Tools for tests."
        }))
        .expect("valid server info")
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParam>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let mut all = tools();
        if self.late.load(Ordering::SeqCst) {
            all.push(
                json!({"name": "late", "description": "Added after the first listing",
                            "inputSchema": {"type": "object"}}),
            );
        }
        let end = (start + PAGE).min(all.len());
        let mut page = json!({"tools": all[start..end]});
        if end < all.len() {
            page["nextCursor"] = json!(end.to_string());
        } else if !self.late.swap(true, Ordering::SeqCst) {
            // The last page of the first listing: the list changes now.
            let _ = context.peer.notify_tool_list_changed().await;
        }
        Ok(serde_json::from_value(page).expect("valid page"))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParam>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        decode(prompts())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParam,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResult, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let user =
            |text: String| json!({"role": "user", "content": {"type": "text", "text": text}});
        let messages = match request.name.as_str() {
            "greet" => {
                let greeting = args["greeting"].as_str().unwrap_or("Hello");
                vec![user(format!(
                    "{greeting}, {}!",
                    args["name"].as_str().unwrap_or("?")
                ))]
            }
            "talk" => vec![
                user("Tell me a joke".into()),
                json!({"role": "assistant", "content": {"type": "text", "text": "Why?"}}),
            ],
            "Odd Prompt" => vec![user("odd".into())],
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no prompt {other}"),
                    None,
                ))
            }
        };
        decode(json!({"messages": messages}))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParam>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        decode(json!({"resources": [
            {"uri": "file:///notes.txt", "name": "notes", "description": "Some notes"}]}))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParam>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        decode(json!({"resourceTemplates": [{"uriTemplate": "note://{id}", "name": "note"}]}))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParam,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResult, ErrorData> {
        match request.uri.as_str() {
            "file:///notes.txt" => decode(json!({"contents": [
                {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "resource text"}]})),
            other => Err(ErrorData::resource_not_found(
                format!("no resource {other}"),
                None,
            )),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParam,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        match &*request.name {
            "echo" => result(json!({"content": [{"type": "text", "text": args["text"]}]})),
            "add" => {
                let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                result(
                    json!({"content": [{"type": "text", "text": format!("sum={sum}")}],
                              "structuredContent": {"sum": sum}}),
                )
            }
            "fail" => {
                result(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}))
            }
            "picture" => result(json!({"content": [
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "resource text"}},
            ]})),
            "progress" => {
                if let Some(token) = context.meta.get_progress_token() {
                    let _ = context
                        .peer
                        .notify_progress(ProgressNotificationParam {
                            progress_token: token,
                            progress: 1.0,
                            total: Some(2.0),
                            message: Some("halfway".into()),
                        })
                        .await;
                }
                result(json!({"content": [{"type": "text", "text": "progressed"}]}))
            }
            "slow" => {
                let _ = context
                    .peer
                    .notify_logging_message(LoggingMessageNotificationParam {
                        level: LoggingLevel::Info,
                        logger: Some("fixture".into()),
                        data: json!("slow started"),
                    })
                    .await;
                context.ct.cancelled().await;
                self.cancelled.send_replace(true);
                result(json!({"content": [{"type": "text", "text": "cancelled"}]}))
            }
            "wait_cancelled" => {
                let mut rx = self.cancelled.subscribe();
                let seen =
                    tokio::time::timeout(std::time::Duration::from_secs(20), rx.wait_for(|c| *c))
                        .await;
                let text = if matches!(seen, Ok(Ok(_))) {
                    "slow was cancelled"
                } else {
                    "slow was not cancelled"
                };
                result(json!({"content": [{"type": "text", "text": text}]}))
            }
            "change_tools" => {
                let _ = context.peer.notify_tool_list_changed().await;
                result(json!({"content": [{"type": "text", "text": "changed"}]}))
            }
            #[allow(clippy::exit)] // the point: the server dies mid-session
            "die" => std::process::exit(3),
            "odd_name" | "odd.name" => result(
                json!({"content": [{"type": "text", "text": format!("{} called", request.name)}]}),
            ),
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

/// Serves the fixture on stdin/stdout until the client goes away.
pub fn run() -> std::process::ExitCode {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let fixture = Fixture {
            cancelled: Arc::new(watch::channel(false).0),
            late: Arc::new(AtomicBool::new(false)),
        };
        let service = fixture
            .serve(rmcp::transport::stdio())
            .await
            .expect("the fixture initialises");
        let _ = service.waiting().await;
    });
    std::process::ExitCode::SUCCESS
}
