//! {{name}}: a zot extension with a slash command, a typed tool and an
//! event handler. `cargo test` drives it in-process; `zot-host dev .`
//! rebuilds and restarts it on every change and gives you a REPL.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use zot_ext::{Ctx, Extension, Response, ToolOutput};

/// The `{{tool}}` tool's arguments: the schema the model sees is derived
/// from this type (doc comments become descriptions).
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greet {
    /// Who to greet.
    name: String,
    /// Shout the greeting.
    #[serde(default)]
    excited: bool,
}

async fn greet(args: Greet, _ctx: Ctx) -> Result<ToolOutput, zot_ext::Error> {
    let mark = if args.excited { "!" } else { "." };
    Ok(ToolOutput::text(format!("Hello, {}{mark}", args.name)))
}

/// The extension; `turns` counts the turns its `turn_start` handler saw.
fn extension(turns: Arc<AtomicU64>) -> Extension {
    let seen = turns.clone();
    Extension::new("{{name}}", "0.1.0")
        // `/{{command}} Ada` shows a line in the chat.
        .command("{{command}}", "Say hello", move |args, _ctx| {
            let turns = turns.load(Ordering::SeqCst);
            async move {
                let who = if args.trim().is_empty() {
                    "world".to_owned()
                } else {
                    args
                };
                Response::display(format!("Hello, {who}! ({turns} turns so far)"))
            }
        })
        // A tool the model can call, with typed arguments.
        .tool("{{tool}}", "Greet someone by name", greet)
        // A lifecycle event: handlers run in arrival order, one at a time.
        .on("turn_start", move |_event, _ctx| {
            let seen = seen.clone();
            async move {
                seen.fetch_add(1, Ordering::SeqCst);
            }
        })
}

fn main() -> Result<(), zot_ext::RunError> {
    extension(Arc::default()).run_blocking()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    use zot_ext::testing::TestHost;

    #[tokio::test]
    async fn command_tool_and_event() {
        let turns = Arc::new(AtomicU64::new(0));
        let mut host = TestHost::start(super::extension(turns.clone()))
            .await
            .unwrap();
        assert_eq!(host.registration().commands[0].name, "{{command}}");
        assert_eq!(host.registration().events, ["turn_start"]);

        let shown = host.command("{{command}}", "Ada").await.unwrap().display;
        assert_eq!(shown, "Hello, Ada! (0 turns so far)");

        let args = serde_json::json!({"name": "Ada", "excited": true});
        let r = host.tool("{{tool}}", args).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("Hello, Ada!"));

        host.send_json(r#"{"type":"event","event":"turn_start","step":1}"#)
            .await
            .unwrap();
        // Shutting down lets the handler finish first.
        host.shutdown().await.unwrap();
        assert_eq!(turns.load(Ordering::SeqCst), 1);
    }
}
