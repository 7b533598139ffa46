//! zot tools, results and command responses → their MCP forms.

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, Content, GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage,
    PromptMessageRole, Tool,
};
use zot_host::embed::{CallOutcome, CommandInfo, ToolInfo};
use zot_protocol::{CommandResponse, ContentBlock, RawJson};

/// The name of the one argument a command's prompt takes.
pub const ARGS: &str = "args";

/// A zot tool as an MCP tool. A schema that is not a JSON object (the
/// extension's registration was checked by the host, so this is only a
/// safety net) becomes `{"type": "object"}`.
pub fn tool(t: &ToolInfo) -> Tool {
    let input = object(&t.schema).unwrap_or_else(|| {
        let mut o = JsonObject::new();
        o.insert("type".into(), "object".into());
        o
    });
    Tool {
        name: t.name.clone().into(),
        title: None,
        description: (!t.description.is_empty()).then(|| t.description.clone().into()),
        input_schema: Arc::new(input),
        output_schema: t.output_schema.as_ref().and_then(object).map(Arc::new),
        annotations: None,
        icons: None,
        meta: None,
    }
}

fn object(raw: &RawJson) -> Option<JsonObject> {
    serde_json::from_str(raw.get()).ok()
}

/// A zot tool result as an MCP `tools/call` result.
pub fn result(out: CallOutcome) -> CallToolResult {
    let content = out
        .content
        .into_iter()
        .map(|b| match b {
            ContentBlock::Text { text } => Content::text(text),
            ContentBlock::Image { mime_type, data } => Content::image(data, mime_type),
            ContentBlock::Unknown(u) => {
                Content::text(format!("[{} content not shown]", u.type_name))
            }
        })
        .collect();
    CallToolResult {
        content,
        structured_content: out
            .structured_content
            .and_then(|s| serde_json::from_str(s.get()).ok()),
        is_error: Some(out.is_error),
        meta: None,
    }
}

/// A zot slash command as an MCP prompt: its arguments are one free text.
pub fn prompt(c: &CommandInfo) -> Prompt {
    Prompt {
        name: c.name.clone(),
        title: Some(format!("/{}", c.name)),
        description: (!c.description.is_empty()).then(|| c.description.clone()),
        arguments: Some(vec![PromptArgument {
            name: ARGS.into(),
            title: None,
            description: Some(format!("what follows /{} on the command line", c.name)),
            required: Some(false),
        }]),
        icons: None,
        meta: None,
    }
}

/// The `args` argument of `prompts/get` (a string; other values as JSON text).
pub fn prompt_args(arguments: Option<&JsonObject>) -> String {
    match arguments.and_then(|a| a.get(ARGS)) {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// A command's response as the messages of a prompt: the prompt it submits
/// (or the text it inserts into the editor) is the user's message, the text
/// it displays the assistant's. Other actions (panels, tool prompts) need a
/// zot host's screen: `Err` says so.
pub fn prompt_result(name: &str, r: CommandResponse) -> Result<GetPromptResult, String> {
    if !r.error.is_empty() {
        return Err(format!("/{name}: {}", r.error));
    }
    let (role, text) = match r.action.as_str() {
        "prompt" => (PromptMessageRole::User, r.prompt),
        "insert" => (PromptMessageRole::User, r.insert),
        "display" => (PromptMessageRole::Assistant, r.display),
        "noop" | "" => {
            return Ok(GetPromptResult {
                description: None,
                messages: Vec::new(),
            })
        }
        other => {
            return Err(format!(
                "/{name} answered with the action {other:?}, which has no MCP prompt form"
            ))
        }
    };
    Ok(GetPromptResult {
        description: None,
        messages: vec![PromptMessage::new_text(role, text)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_content_structure_and_errors() {
        let out = result(CallOutcome {
            content: vec![
                ContentBlock::text("sum=3"),
                ContentBlock::image("image/png", "iVBO"),
            ],
            is_error: true,
            structured_content: Some(RawJson::from(serde_json::json!({"sum": 3}))),
            status: zot_protocol::ToolStatus::Failed,
        });
        let v = serde_json::to_value(&out).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "content": [
                    {"type": "text", "text": "sum=3"},
                    {"type": "image", "data": "iVBO", "mimeType": "image/png"}
                ],
                "structuredContent": {"sum": 3},
                "isError": true
            })
        );
    }

    #[test]
    fn command_actions_become_messages_or_a_clear_error() {
        let resp =
            |json: serde_json::Value| -> CommandResponse { serde_json::from_value(json).unwrap() };
        let p = prompt_result(
            "greet",
            resp(serde_json::json!({"id": "1", "action": "prompt", "prompt": "Hi bob"})),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&p.messages).unwrap(),
            serde_json::json!([{"role": "user", "content": {"type": "text", "text": "Hi bob"}}])
        );
        let e = prompt_result(
            "panel",
            resp(serde_json::json!({"id": "1", "action": "open_panel"})),
        )
        .unwrap_err();
        assert!(
            e.contains("open_panel") && e.contains("no MCP prompt form"),
            "{e}"
        );
        let e = prompt_result("oops", resp(serde_json::json!({"id": "1", "error": "bad"})))
            .unwrap_err();
        assert_eq!(e, "/oops: bad");
    }
}
