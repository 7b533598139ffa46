//! `guard`: interception. A tool-call guard that refuses destructive shell
//! commands and rewrites others, a redactor for the visible assistant
//! text, a turn limit, and a system-prompt addition.
//!
//! A guard that fails must not open the gate: if an interceptor returns an
//! error (or panics) the SDK answers `block` with the error as the reason;
//! only the system-prompt hook, which cannot block, keeps the prompt.

use serde::Deserialize;
use serde_json::json;
use zot_ext::{Extension, MessageVerdict, PromptVerdict, ToolCallVerdict, TurnVerdict};

/// Command fragments that are never run.
const REFUSED: [&str; 3] = ["rm -rf", "mkfs", "| sh"];

/// Turns allowed per agent run.
const MAX_STEPS: u32 = 50;

#[derive(Deserialize)]
struct Bash {
    command: String,
}

/// Hides anything that looks like an API key (`sk-` followed by 20 or more
/// key characters).
fn redact(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(i) = rest.find("sk-") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 3..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(tail.len());
        if len >= 20 {
            out.push_str("[redacted key]");
            changed = true;
        } else {
            out.push_str(&rest[i..i + 3 + len]);
        }
        rest = &tail[len..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

fn extension() -> Extension {
    Extension::new("guard", "0.1.0")
        .intercept_tool_call(|call, _ctx| async move {
            if call.tool_name != "bash" {
                return Ok(ToolCallVerdict::Allow);
            }
            // An unreadable bash call is refused: the error becomes the reason.
            let bash: Bash = call.tool_args.parse()?;
            if let Some(bad) = REFUSED.iter().find(|b| bash.command.contains(*b)) {
                return Ok(ToolCallVerdict::block(format!(
                    "guard: `{bad}` is not allowed"
                )));
            }
            if bash.command.trim() == "ls" {
                return Ok(ToolCallVerdict::modify(&json!({"command": "ls -la"})));
            }
            Ok::<_, zot_ext::Error>(ToolCallVerdict::Allow)
        })
        .intercept_turn_start(|turn, _ctx| async move {
            if turn.step > MAX_STEPS {
                TurnVerdict::block(format!("guard: more than {MAX_STEPS} steps"))
            } else {
                TurnVerdict::Allow
            }
        })
        .intercept_assistant_message(|msg, _ctx| async move {
            match redact(&msg.text) {
                Some(clean) => MessageVerdict::replace(clean),
                None => MessageVerdict::Allow,
            }
        })
        .intercept_before_agent_start(|req, _ctx| async move {
            PromptVerdict::replace(format!(
                "{}\n\nNever print secrets such as API keys.",
                req.system_prompt
            ))
        })
}

fn main() -> Result<(), zot_ext::RunError> {
    extension().run_blocking()
}

#[cfg(test)]
mod tests {
    use zot_ext::testing::TestHost;

    async fn ask(host: &mut TestHost, body: &str) -> zot_protocol::EventInterceptResponse {
        host.intercept_json(&format!(r#"{{"type":"event_intercept","id":"1",{body}}}"#))
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn guards() {
        let mut host = TestHost::start(super::extension()).await.unwrap();
        let r = ask(
            &mut host,
            r#""event":"tool_call","tool_name":"bash","tool_args":{"command":"rm -rf ~"}"#,
        )
        .await;
        assert!(r.block && r.reason.contains("rm -rf"));
        let r = ask(
            &mut host,
            r#""event":"tool_call","tool_name":"bash","tool_args":{"command":"ls"}"#,
        )
        .await;
        assert_eq!(r.modified_args.unwrap().get(), r#"{"command":"ls -la"}"#);
        // Fails closed.
        let r = ask(
            &mut host,
            r#""event":"tool_call","tool_name":"bash","tool_args":{"cmd":1}"#,
        )
        .await;
        assert!(r.block && r.reason.contains("command"));
        let r = ask(&mut host, r#""event":"turn_start","step":51"#).await;
        assert!(r.block);
        let r = ask(
            &mut host,
            r#""event":"assistant_message","text":"key sk-abcdefghijklmnopqrstuvwxyz ok""#,
        )
        .await;
        assert_eq!(r.replace_text, "key [redacted key] ok");
        let r = ask(
            &mut host,
            r#""event":"before_agent_start","system_prompt":"Base""#,
        )
        .await;
        assert!(r
            .system_prompt
            .unwrap()
            .unwrap()
            .starts_with("Base\n\nNever"));
    }

    #[test]
    fn redaction() {
        assert_eq!(super::redact("no keys"), None);
        assert_eq!(super::redact("sk-short"), None);
        assert_eq!(
            super::redact("a sk-0123456789abcdefghij, b").as_deref(),
            Some("a [redacted key], b")
        );
    }
}
