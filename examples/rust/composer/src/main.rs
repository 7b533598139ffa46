//! `composer`: calling host tools with `call_tool`.
//!
//! - tool `read_many {paths}` reads several files through the host's `read`
//!   tool, concurrently, as children of its own invocation (the SDK fills
//!   `parent_id`; cancelling this tool cancels the reads), each with a
//!   durable key (sent only to hosts that advertise `call_tool_durable`)
//!   and a deadline;
//! - command `/wc <path>` counts the lines of a file through the host's
//!   `read`, with a deadline under the host's 30 s command deadline.
//!
//! A tool that fails on the host side comes back as a result with
//! `is_error`; a call that could not complete (timeout, no `call_tool`
//! support, shutdown) is an `Err`.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use zot_ext::{CallOptions, Extension, Response, ToolOutput};

#[derive(Deserialize, schemars::JsonSchema)]
struct ReadMany {
    /// Files to read, relative to the project.
    paths: Vec<String>,
}

const CALL_DEADLINE: Duration = Duration::from_secs(20);

fn extension() -> Extension {
    Extension::new("composer", "0.1.0")
        .tool(
            "read_many",
            "Read several files through the host's read tool",
            |args: ReadMany, ctx| async move {
                if args.paths.is_empty() {
                    return ToolOutput::error("no paths");
                }
                // One task per read, all outstanding at once; `ctx` carries the
                // parent into each task.
                let calls: Vec<_> = args
                    .paths
                    .iter()
                    .enumerate()
                    .map(|(i, path)| {
                        let (ctx, path) = (ctx.clone(), path.clone());
                        let opts = CallOptions::new()
                            .key(format!("read-{i}"))
                            .timeout(CALL_DEADLINE);
                        tokio::spawn(async move {
                            let r = ctx
                                .call_tool_with("read", &json!({ "path": path }), opts)
                                .await;
                            (path, r)
                        })
                    })
                    .collect();
                let mut out = Vec::new();
                let mut failed = 0;
                for call in calls {
                    let Ok((path, result)) = call.await else {
                        continue;
                    };
                    match result {
                        Ok(r) if !r.is_error => {
                            out.push(format!("== {path} ==\n{}", r.first_text()))
                        }
                        Ok(r) => {
                            failed += 1;
                            out.push(format!("== {path} == failed: {}", r.first_text()));
                        }
                        Err(e) => {
                            failed += 1;
                            out.push(format!("== {path} == not read: {e}"));
                        }
                    }
                }
                ToolOutput::text(out.join("\n")).with_error(failed == args.paths.len())
            },
        )
        .command("wc", "Count the lines of a file", |path, ctx| async move {
            let opts = CallOptions::new().timeout(CALL_DEADLINE);
            match ctx
                .call_tool_with("read", &json!({ "path": path }), opts)
                .await
            {
                Ok(r) if !r.is_error => {
                    Response::display(format!("{path}: {} lines", r.first_text().lines().count()))
                }
                Ok(r) => Response::error(format!("read failed: {}", r.first_text())),
                Err(e) => Response::error(format!("read not done: {e}")),
            }
        })
}

fn main() -> Result<(), zot_ext::RunError> {
    extension().run_blocking()
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zot_ext::testing::{default_hello_ack, TestHost};
    use zot_protocol::{Capability, HelloAck};

    #[tokio::test]
    async fn reads_through_the_host_with_parent_and_keys() {
        let ack = HelloAck {
            capabilities: vec![Capability::CallTool, Capability::CallToolDurable],
            ..default_hello_ack()
        };
        let mut host = TestHost::start_with(super::extension(), ack).await.unwrap();
        let id = host
            .start_tool("read_many", json!({"paths": ["a.txt", "b.txt"]}))
            .await
            .unwrap();
        let a = host.expect_call_tool().await.unwrap();
        let b = host.expect_call_tool().await.unwrap();
        assert_eq!(
            (a.parent_id.as_str(), a.key.as_str()),
            (id.as_str(), "read-0")
        );
        assert_eq!(
            (b.parent_id.as_str(), b.key.as_str()),
            (id.as_str(), "read-1")
        );
        host.answer_call(&b, "no such file", true).await.unwrap();
        host.answer_call(&a, "alpha", false).await.unwrap();
        let r = host.tool_result(&id).await.unwrap();
        assert!(!r.is_error);
        assert_eq!(
            r.content[0].as_text(),
            Some("== a.txt ==\nalpha\n== b.txt == failed: no such file")
        );
    }

    #[tokio::test]
    async fn commands_fail_cleanly_without_call_tool_support() {
        let ack = HelloAck {
            capabilities: vec![],
            ..default_hello_ack()
        };
        let mut host = TestHost::start_with(super::extension(), ack).await.unwrap();
        let r = host.command("wc", "a.txt").await.unwrap();
        assert_eq!(
            r.error,
            "read not done: the host does not support call_tool"
        );
    }
}
