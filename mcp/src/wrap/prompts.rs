//! MCP prompts as zot slash commands: `/PREFIX:PROMPT ARGS` gets the
//! prompt from the server (`prompts/get`) and submits its text as the
//! user's message.
//!
//! Arguments are given in order, separated by spaces, the last one taking
//! the rest of the line (`/everything:args-prompt Paris Île-de-France`), or
//! by name (`city=Paris state=Texas`), when every word names an argument.

use rmcp::model::{
    GetPromptRequestParam, GetPromptResult, JsonObject, Prompt, PromptArgument,
    PromptMessageContent, PromptMessageRole, ResourceContents,
};
use rmcp::service::{Peer, RoleClient};
use zot_ext::{Extension, Response};

use super::commands::CommandNames;
use crate::client::Shared;

/// Registers one command per prompt, named `PREFIX:PROMPT`.
pub fn register(
    mut ext: Extension,
    prompts: Vec<Prompt>,
    names: &mut CommandNames,
    peer: &Peer<RoleClient>,
    shared: &Shared,
) -> Extension {
    for prompt in prompts {
        let command = names.assign(&prompt.name);
        shared.log(format!("MCP prompt {:?} is /{command}", prompt.name));
        let description = description(&prompt, &command);
        let peer = peer.clone();
        ext = ext.command(command.clone(), description, move |args, _ctx| {
            let (peer, prompt, command) = (peer.clone(), prompt.clone(), command.clone());
            async move { run(&peer, &prompt, &command, &args).await }
        });
    }
    ext
}

/// The prompt's description, then how to call it.
fn description(prompt: &Prompt, command: &str) -> String {
    let text = prompt
        .description
        .as_deref()
        .or(prompt.title.as_deref())
        .unwrap_or("MCP prompt");
    match params(prompt) {
        [] => text.to_owned(),
        _ => format!("{text} (usage: {})", usage(prompt, command)),
    }
}

fn params(prompt: &Prompt) -> &[PromptArgument] {
    prompt.arguments.as_deref().unwrap_or_default()
}

/// `/PREFIX:PROMPT city [state]`: required arguments bare, optional ones
/// in brackets.
fn usage(prompt: &Prompt, command: &str) -> String {
    let mut text = format!("/{command}");
    for p in params(prompt) {
        if p.required == Some(true) {
            text.push_str(&format!(" {}", p.name));
        } else {
            text.push_str(&format!(" [{}]", p.name));
        }
    }
    text
}

async fn run(peer: &Peer<RoleClient>, prompt: &Prompt, command: &str, args: &str) -> Response {
    let arguments = match arguments(params(prompt), args) {
        Ok(a) => a,
        Err(e) => return Response::error(format!("{e} (usage: {})", usage(prompt, command))),
    };
    let request = GetPromptRequestParam {
        name: prompt.name.clone(),
        arguments: (!arguments.is_empty()).then_some(arguments),
    };
    match peer.get_prompt(request).await {
        Ok(result) => match render(result) {
            Some(text) => Response::prompt(text),
            None => Response::error(format!("the MCP prompt {:?} is empty", prompt.name)),
        },
        Err(e) => Response::error(format!("MCP prompt {:?}: {e}", prompt.name)),
    }
}

/// The prompt's arguments from the text after the command.
pub fn arguments(params: &[PromptArgument], args: &str) -> Result<JsonObject, String> {
    let args = args.trim();
    let mut out = JsonObject::new();
    let named = !args.is_empty()
        && args.split_whitespace().all(|word| {
            word.split_once('=')
                .is_some_and(|(k, _)| params.iter().any(|p| p.name == k))
        });
    if named {
        for (k, v) in args.split_whitespace().filter_map(|w| w.split_once('=')) {
            out.insert(k.to_owned(), v.into());
        }
    } else {
        let mut rest = args;
        for (i, p) in params.iter().enumerate() {
            if rest.is_empty() {
                break;
            }
            let value = if i + 1 == params.len() {
                std::mem::take(&mut rest)
            } else {
                let (word, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                rest = tail.trim_start();
                word
            };
            out.insert(p.name.clone(), value.into());
        }
        if !rest.is_empty() {
            return Err("this prompt takes no arguments".into());
        }
    }
    let missing: Vec<&str> = params
        .iter()
        .filter(|p| p.required == Some(true) && !out.contains_key(&p.name))
        .map(|p| p.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing {}", missing.join(", ")));
    }
    Ok(out)
}

/// The prompt's messages as one text: zot submits a single user message,
/// so when the prompt has assistant turns each message is labelled with
/// its role. Images and binary resources cannot be submitted as text and
/// are named instead. `None` when there is no text at all.
pub fn render(result: GetPromptResult) -> Option<String> {
    let labelled = result
        .messages
        .iter()
        .any(|m| m.role == PromptMessageRole::Assistant);
    let parts: Vec<String> = result
        .messages
        .into_iter()
        .map(|m| {
            let text = content_text(m.content);
            match (labelled, m.role) {
                (false, _) => text,
                (true, PromptMessageRole::User) => format!("User: {text}"),
                (true, PromptMessageRole::Assistant) => format!("Assistant: {text}"),
            }
        })
        .filter(|t| !t.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

fn content_text(content: PromptMessageContent) -> String {
    match content {
        PromptMessageContent::Text { text } => text,
        PromptMessageContent::Image { image } => {
            format!("[image ({}) not included]", image.mime_type)
        }
        PromptMessageContent::Resource { resource } => match resource.raw.resource {
            ResourceContents::TextResourceContents { text, .. } => text,
            ResourceContents::BlobResourceContents { uri, .. } => {
                format!("[resource {uri} not included: binary]")
            }
        },
        PromptMessageContent::ResourceLink { link } => {
            format!("[resource {}: {}]", link.raw.uri, link.raw.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params() -> Vec<PromptArgument> {
        serde_json::from_value(json!([
            {"name": "city", "required": true},
            {"name": "state"},
        ]))
        .unwrap()
    }

    fn args(text: &str) -> Result<serde_json::Value, String> {
        arguments(&params(), text).map(serde_json::Value::Object)
    }

    #[test]
    fn arguments_by_position_the_last_taking_the_rest() {
        assert_eq!(args("Paris").unwrap(), json!({"city": "Paris"}));
        assert_eq!(
            args(" Paris  Île de France ").unwrap(),
            json!({"city": "Paris", "state": "Île de France"})
        );
    }

    #[test]
    fn arguments_by_name() {
        assert_eq!(
            args("state=Texas city=Austin").unwrap(),
            json!({"city": "Austin", "state": "Texas"})
        );
        assert_eq!(args("x=1 y").unwrap(), json!({"city": "x=1", "state": "y"}));
    }

    #[test]
    fn missing_and_extra_arguments_are_refused() {
        assert_eq!(args("").unwrap_err(), "missing city");
        assert_eq!(args("state=Texas").unwrap_err(), "missing city");
        assert_eq!(
            arguments(&[], "hello").unwrap_err(),
            "this prompt takes no arguments"
        );
        assert!(arguments(&[], "  ").unwrap().is_empty());
    }

    #[test]
    fn messages_render_as_one_text() {
        let user_only: GetPromptResult = serde_json::from_value(json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "one"}},
            {"role": "user", "content": {"type": "resource_link", "uri": "x:a", "name": "two"}},
        ]}))
        .unwrap();
        assert_eq!(render(user_only).unwrap(), "one\n\n[resource x:a: two]");
        let turns: GetPromptResult = serde_json::from_value(json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "assistant", "content": {"type": "image", "data": "aGk=", "mimeType": "image/png"}},
        ]}))
        .unwrap();
        assert_eq!(
            render(turns).unwrap(),
            "User: hi\n\nAssistant: [image (image/png) not included]"
        );
        let empty: GetPromptResult = serde_json::from_value(json!({"messages": []})).unwrap();
        assert_eq!(render(empty), None);
    }
}
