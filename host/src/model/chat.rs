//! The OpenAI chat completions format: the request for one model step and
//! the turn read from its reply.

use serde_json::{json, Map, Value};

use crate::session::message::Message;
use crate::session::script::{ToolCallSpec, Turn};

/// A tool as the model is told about it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatTool {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub parameters: Value,
}

/// One turn of a live model.
#[derive(Debug, Clone)]
pub struct ModelTurn {
    /// The turn, as the agent loop runs it.
    pub turn: Turn,
    /// The same turn as a script's `replies` entry.
    pub script: Value,
    /// The tokens the request used, when the server says.
    pub usage: Option<Usage>,
}

/// The tokens of one request, as the API's `usage` counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt: u64,
    /// Completion tokens.
    pub completion: u64,
}

impl Usage {
    /// Reads `usage` (OpenAI's, or Groq's `x_groq.usage`), if present.
    pub fn of(reply: &Value) -> Option<Self> {
        let u = reply
            .get("usage")
            .filter(|u| u.is_object())
            .or_else(|| reply.pointer("/x_groq/usage"))?;
        let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
        Some(Self {
            prompt: n("prompt_tokens"),
            completion: n("completion_tokens"),
        })
    }
}

/// The request body of one step (`stream`: ask for server-sent events).
pub fn request<'a>(
    model: &str,
    system: &str,
    history: impl Iterator<Item = &'a Message>,
    tools: &[ChatTool],
    stream: bool,
) -> Value {
    let mut messages = vec![json!({"role": "system", "content": system})];
    messages.extend(history.map(message));
    let mut body = json!({"model": model, "messages": messages, "stream": stream});
    if !tools.is_empty() {
        body["tools"] = tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters,
                }})
            })
            .collect();
    }
    body
}

fn message(m: &Message) -> Value {
    match m {
        Message::User(text) => json!({"role": "user", "content": text}),
        // A compaction summary stands for everything before it.
        Message::Summary(text) => json!({
            "role": "user",
            "content": format!("Summary of the conversation so far:\n{text}"),
        }),
        Message::Assistant { text, tool_calls } => {
            let mut m = json!({"role": "assistant", "content": text});
            if !tool_calls.is_empty() {
                m["tool_calls"] = tool_calls
                    .iter()
                    .map(|(id, name, args, _origin)| {
                        json!({"id": id, "type": "function",
                               "function": {"name": name, "arguments": args}})
                    })
                    .collect();
            }
            m
        }
        Message::ToolResult {
            tool_id,
            text,
            is_error,
        } => {
            // The API has no error flag on tool messages: say it in the text.
            let content = if *is_error {
                format!("Error: {text}")
            } else {
                text.clone()
            };
            json!({"role": "tool", "tool_call_id": tool_id, "content": content})
        }
    }
}

/// Reads the turn out of a reply: `choices[0].message`'s text and tool
/// calls, and why it stopped.
pub fn parse_reply(reply: &Value) -> Result<ModelTurn, String> {
    if let Some(msg) = api_error(reply) {
        return Err(msg);
    }
    let choice = reply
        .pointer("/choices/0")
        .ok_or("no `choices[0]` in the reply")?;
    let msg = choice
        .get("message")
        .ok_or("no `choices[0].message` in the reply")?;
    let finish = choice.get("finish_reason").and_then(Value::as_str);
    let mut turn = turn_from(msg, finish)?;
    turn.usage = Usage::of(reply);
    Ok(turn)
}

/// An error object in a successful reply (or a stream's chunk), as a line.
pub fn api_error(reply: &Value) -> Option<String> {
    let err = reply.get("error").filter(|e| !e.is_null())?;
    let msg = super::failure::message_of(&json!({"error": err})).unwrap_or_else(|| err.to_string());
    Some(format!(
        "the API answered with an error: {}",
        super::failure::one_line(&msg)
    ))
}

/// The turn of a complete assistant message (`content`, `tool_calls`) and
/// its finish reason: the same whether it came whole or streamed.
pub fn turn_from(msg: &Value, finish_reason: Option<&str>) -> Result<ModelTurn, String> {
    let text = match msg.get("content") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        // Some servers send content parts: their text, in order.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        Some(other) => return Err(format!("`choices[0].message.content` is not text: {other}")),
    };
    let mut calls = Vec::new();
    let mut script_calls = Vec::new();
    for (i, c) in msg
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = c
            .pointer("/function/name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`choices[0].message.tool_calls[{i}]` has no function name"))?;
        // Arguments are JSON text; some servers send the object itself.
        let args = match c.pointer("/function/arguments") {
            None | Some(Value::Null) => "{}".to_owned(),
            Some(Value::String(s)) if s.trim().is_empty() => "{}".to_owned(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        let id = c
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        let mut spec = Map::new();
        if let Some(id) = &id {
            spec.insert("id".into(), json!(id));
        }
        spec.insert("name".into(), json!(name));
        // Kept as the model wrote it: valid objects as `args`, anything
        // else as `args_raw` (the host reports it malformed, HOST-135).
        match serde_json::from_str::<Value>(&args) {
            Ok(v) if v.is_object() => spec.insert("args".into(), v),
            _ => spec.insert("args_raw".into(), json!(args)),
        };
        calls.push(ToolCallSpec {
            id,
            name: name.to_owned(),
            args_raw: Some(args),
            ..ToolCallSpec::default()
        });
        script_calls.push(Value::Object(spec));
    }
    let stop = match finish_reason {
        Some("length") => Some("max_tokens".to_owned()),
        _ => None, // tool_use with calls, else end_turn (the host's default)
    };
    let mut script = json!({"text": text});
    if !script_calls.is_empty() {
        script["tool_calls"] = Value::Array(script_calls);
    }
    if let Some(s) = &stop {
        script["stop"] = json!(s);
    }
    Ok(ModelTurn {
        turn: Turn {
            text,
            tool_calls: calls,
            stop,
            error: String::new(),
        },
        script,
        usage: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_carries_the_system_prompt_history_and_tools() {
        let history = [
            Message::User("add 2 and 3".into()),
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![(
                    "call_1".into(),
                    "add".into(),
                    r#"{"a":2,"b":3}"#.into(),
                    String::new(),
                )],
            },
            Message::ToolResult {
                tool_id: "call_1".into(),
                text: "5".into(),
                is_error: false,
            },
        ];
        let tools = [ChatTool {
            name: "add".into(),
            description: "Adds".into(),
            parameters: json!({"type": "object"}),
        }];
        let body = request("m", "be brief", history.iter(), &tools, true);
        assert_eq!(body["model"], "m");
        assert_eq!(body["stream"], true);
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "be brief"})
        );
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["arguments"],
            r#"{"a":2,"b":3}"#
        );
        assert_eq!(
            body["messages"][3],
            json!({"role": "tool", "tool_call_id": "call_1", "content": "5"})
        );
        assert_eq!(body["tools"][0]["function"]["name"], "add");
    }

    #[test]
    fn a_reply_becomes_a_turn_and_its_script_form() {
        let reply = json!({"choices": [{"finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": null,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":2}"}},
            {"id": "c2", "type": "function", "function": {"name": "add", "arguments": "{oops"}},
        ]}}]});
        let t = parse_reply(&reply).unwrap();
        assert_eq!(t.turn.text, "");
        assert_eq!(t.turn.tool_calls.len(), 2);
        assert_eq!(t.turn.tool_calls[0].id.as_deref(), Some("c1"));
        assert_eq!(
            t.script["tool_calls"],
            json!([{"id": "c1", "name": "add", "args": {"a": 2}},
                   {"id": "c2", "name": "add", "args_raw": "{oops"}])
        );
    }

    #[test]
    fn a_reply_without_a_message_or_with_an_error_says_what_is_wrong() {
        let e = parse_reply(&json!({"error": {"message": "model not found"}})).unwrap_err();
        assert!(e.contains("model not found"), "{e}");
        let e = parse_reply(&json!({"choices": []})).unwrap_err();
        assert!(e.contains("choices[0]"), "{e}");
        let e = parse_reply(&json!({"choices": [{"message": {"tool_calls": [{"function": {}}]}}]}))
            .unwrap_err();
        assert!(e.contains("tool_calls[0]"), "{e}");
    }
}
