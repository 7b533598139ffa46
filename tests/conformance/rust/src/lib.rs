//! The conformance extension (contract: `docs/testing/conformance.md`),
//! written with the public API of the Rust SDK only.
//!
//! The library form lets the crate's tests drive it in-process with
//! `zot_ext::testing`; the binary `conformance-rust` runs it over stdio.

mod event_log;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use zot_ext::engine::MAX_EXACT_INTEGER;
use zot_ext::{
    CallOptions, Ctx, Extension, MessageVerdict, PromptVerdict, Response, ToolCallVerdict,
    ToolOutput, ToolSpec, TurnVerdict,
};
use zot_protocol::values::LIFECYCLE_EVENT_NAMES;
use zot_protocol::{Exposure, NotifyLevel, PanelKeyName, PanelSpec, RawJson};

use event_log::EventLog;

/// The 1x1 PNG of the contract.
pub const PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0xf8, 0xcf, 0x50,
    0x0f, 0x00, 0x03, 0x86, 0x01, 0x80, 0x5a, 0x34, 0x7d, 0x6b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The panel of the `panel` command.
const PANEL: &str = "conf-panel";

/// Every input is bounded by the schema, which the engine checks before a
/// handler runs (the same answer in every language): `ms` within what a
/// Node timer can wait (2^31 - 1 ms), `bytes` within 4 MiB (no reply
/// carries more: a frame is at most 4 MiB), every field required.
const SLEEP_SCHEMA: &str = r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":2147483647}},"required":["ms"]}"#;
const COMPOSE_SCHEMA: &str =
    r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#;
const BIG_SCHEMA: &str = r#"{"type":"object","properties":{"bytes":{"type":"integer","minimum":0,"maximum":4194304}},"required":["bytes"]}"#;

/// `add`'s answer when the sum leaves the exact integer range.
const SUM_OUT_OF_RANGE: &str = "sum out of range: a + b is beyond ±9007199254740991";

/// `callecho` gives up before the host's 30 s command deadline.
const CALLECHO_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct SleepArgs {
    ms: u64,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct TextArgs {
    text: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct BigArgs {
    bytes: usize,
}

/// A schema literal, kept byte for byte (so that every SDK's conformance
/// extension registers identical frames; `json!` would sort the keys).
fn raw(schema: &str) -> RawJson {
    RawJson::from_string(schema.to_owned()).expect("valid schema literal")
}

/// `{"type":"object"}`.
fn object() -> RawJson {
    RawJson::object_schema()
}

/// An object schema with one property of the given JSON type.
fn one(name: &str, ty: &str) -> RawJson {
    raw(&format!(
        r#"{{"type":"object","properties":{{"{name}":{{"type":"{ty}"}}}}}}"#
    ))
}

/// What the `tool_call` interceptor fails with on `crash`: the verdict's
/// reason names the type (`GuardError: oops`), as in TypeScript and Python.
#[derive(Debug)]
struct GuardError(&'static str);

impl std::fmt::Display for GuardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

fn boom() -> ToolOutput {
    panic!("boom")
}

/// The conformance extension.
pub fn extension() -> Extension {
    let events: Arc<Mutex<EventLog>> = Arc::default();
    let seen = events.clone();

    let mut ext = Extension::new("conformance", "1.0.0")
        // Commands, in the contract's order.
        .command("echo", "Display the arguments", |args, _ctx| async move { Response::display(args) })
        .command("Greet", "Prompt with a greeting", |args, _ctx| async move {
            Response::prompt(format!("Hello, {args}"))
        })
        .command("insert", "Insert the arguments into the editor", |args, _ctx| async move {
            Response::insert(args)
        })
        .command("panel", "Open a counter panel", |_args, ctx| async move { open_counter(&ctx) })
        .command("note", "Send the arguments as a note", |args, ctx| async move {
            ctx.notify(args, NotifyLevel::Info)?;
            Ok::<_, zot_ext::Error>(Response::noop())
        })
        .command("clear", "Clear this extension's notes", |_args, ctx| async move {
            ctx.ext().clear_notes()?;
            Ok::<_, zot_ext::Error>(Response::noop())
        })
        .command("submit", "Submit the arguments as a prompt", |args, ctx| async move {
            ctx.ext().submit(args)?;
            Ok::<_, zot_ext::Error>(Response::noop())
        })
        .command("commit", "Run echo through tool_prompt", |args, _ctx| async move {
            Response::tool_prompt("echo", &json!({ "text": args }), "and push")
        })
        .command("oops", "Fail with an error", |args, _ctx| async move {
            Response::error(format!("command failed: {args}"))
        })
        .command("events", "Show the events received so far", move |_args, _ctx| {
            let seen = seen.clone();
            async move {
                Response::display(seen.lock().expect("events lock").display())
            }
        })
        .command("callecho", "Call the host tool echo", |args, ctx| async move {
            let opts = CallOptions::new().timeout(CALLECHO_TIMEOUT);
            match ctx.call_tool_with("echo", &json!({ "text": args }), opts).await {
                Ok(r) if !r.is_error => Response::display(format!("called:{}", r.first_text())),
                Ok(r) => Response::display(format!("call failed:{}", r.first_text())),
                Err(e) => Response::display(format!("call failed:{e}")),
            }
        })
        // Tools, in the contract's order.
        .tool_raw(
            ToolSpec::new("echo", "Echo the text").schema(&raw(
                r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
            )),
            |args, _ctx| async move { echo(&args) },
        )
        .tool_with(
            ToolSpec::new("add", "Add two integers")
                .schema(&raw(r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}"#))
                .output_schema(&one("sum", "integer"))
                .namespace("math")
                .namespace_description("Arithmetic")
                .namespace_instructions("Integers only")
                .exposure(Exposure::Codemode),
            |args: AddArgs, _ctx| async move {
                // The engine bounds a and b to ±(2^53 - 1); the sum must fit
                // there too, or a Node copy could not give it exactly.
                let sum = args.a + args.b;
                if sum.unsigned_abs() > MAX_EXACT_INTEGER.unsigned_abs() {
                    return ToolOutput::error(SUM_OUT_OF_RANGE);
                }
                ToolOutput::text(format!("sum={sum}")).with_structured(&json!({ "sum": sum }))
            },
        )
        .tool_raw(ToolSpec::new("fail", "Always fail").schema(&object()), |_args, _ctx| async move { boom() })
        .tool_with(
            ToolSpec::new("sleep", "Sleep for ms milliseconds").schema(&raw(SLEEP_SCHEMA)),
            |args: SleepArgs, ctx| async move {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(args.ms)) => ToolOutput::text(format!("slept {}", args.ms)),
                    _ = ctx.cancelled() => {
                        let _ = ctx.notify(format!("cancelled {}", args.ms), NotifyLevel::Warn);
                        ToolOutput::text("cancelled") // not sent: the call was cancelled
                    }
                }
            },
        )
        .tool_raw(
            ToolSpec::new("ask", "Wait for the user until cancelled").schema(&object()).interactive(),
            |_args, ctx| async move {
                ctx.cancelled().await;
                let _ = ctx.notify("ask cancelled", NotifyLevel::Warn);
                ToolOutput::text("ask cancelled")
            },
        )
        .tool_with(
            ToolSpec::new("compose", "Call echo through call_tool").schema(&raw(COMPOSE_SCHEMA)),
            |args: TextArgs, ctx| async move { compose(&args.text, &ctx).await },
        )
        .tool_raw(ToolSpec::new("lazy", "A deferred tool").schema(&object()).deferred(), |_args, _ctx| async move {
            ToolOutput::text("lazy ok")
        })
        .tool_raw(ToolSpec::new("loader", "Activate the lazy tool").schema(&object()), |_args, _ctx| async move {
            ToolOutput::text("loaded").activate(["lazy"])
        })
        .tool_raw(ToolSpec::new("image", "Return a 1x1 PNG").schema(&object()), |_args, _ctx| async move {
            ToolOutput::text("image").with_image_bytes("image/png", &PNG)
        })
        .tool_with(
            ToolSpec::new("big", "Return bytes times x").schema(&raw(BIG_SCHEMA)),
            |args: BigArgs, _ctx| async move { ToolOutput::text("x".repeat(args.bytes)) },
        );

    // All fourteen lifecycle events, in the spec's order.
    for name in LIFECYCLE_EVENT_NAMES {
        let events = events.clone();
        ext = ext.on(name, move |event, _ctx| {
            let events = events.clone();
            async move { events.lock().expect("events lock").push(event.name()) }
        });
    }

    ext.intercept_tool_call(|call, _ctx| async move {
        if call.tool_name != "bash" {
            return Ok(ToolCallVerdict::Allow);
        }
        #[derive(Deserialize)]
        struct Bash {
            command: Option<String>,
        }
        let command = call
            .tool_args
            .parse::<Bash>()
            .ok()
            .and_then(|b| b.command)
            .unwrap_or_default();
        Ok(if command.contains("rm -rf") {
            ToolCallVerdict::block("refused: rm -rf")
        } else if command == "ls" {
            ToolCallVerdict::modify(&json!({"command": "echo GUARDED: ls"}))
        } else if command == "crash" {
            return Err(GuardError("oops"));
        } else {
            ToolCallVerdict::Allow
        })
    })
    .intercept_turn_start(|turn, _ctx| async move {
        if turn.step >= 99 {
            TurnVerdict::block("step limit")
        } else {
            TurnVerdict::Allow
        }
    })
    .intercept_assistant_message(|msg, _ctx| async move {
        if msg.text == "BLOCKME" {
            MessageVerdict::block("blocked")
        } else if msg.text.contains("SECRET") {
            MessageVerdict::replace(msg.text.replace("SECRET", "[redacted]"))
        } else {
            MessageVerdict::Allow
        }
    })
    .intercept_before_agent_start(|req, _ctx| async move {
        if req.system_prompt.contains("KEEP") {
            PromptVerdict::Keep
        } else if req.system_prompt.contains("REMOVE") {
            PromptVerdict::remove()
        } else {
            PromptVerdict::replace(format!("{}\n[conformance]", req.system_prompt))
        }
    })
    .on_hello(|host, reg| {
        let cwd = host.cwd.clone();
        let data_dir = host.data_dir.clone();
        reg.command("cwd", "Show hello_ack.cwd", move |_args, _ctx| {
            let cwd = cwd.clone();
            async move { Response::display(cwd) }
        });
        reg.command("datadir", "Show hello_ack.data_dir", move |_args, _ctx| {
            let data_dir = data_dir.clone();
            async move { Response::display(data_dir) }
        });
    })
}

/// The `echo` tool: `text` must be a string.
fn echo(args: &RawJson) -> ToolOutput {
    #[derive(Deserialize)]
    struct Echo {
        text: Option<serde_json::Value>,
    }
    match args.parse::<Echo>().ok().and_then(|e| e.text) {
        Some(serde_json::Value::String(text)) => ToolOutput::text(text),
        _ => ToolOutput::error("missing text"),
    }
}

/// The `compose` tool: calls the host's `echo` as a child of this call.
async fn compose(text: &str, ctx: &Ctx) -> ToolOutput {
    match ctx
        .call_tool("echo", &json!({ "text": format!("inner:{text}") }))
        .await
    {
        Ok(r) if !r.is_error => ToolOutput::text(format!("composed:{}", r.first_text())),
        Ok(r) => ToolOutput::error(r.first_text()),
        Err(e) => ToolOutput::error(e.to_string()),
    }
}

/// The `panel` command: a counter driven by up/down, closed by `q`.
fn open_counter(ctx: &Ctx) -> Response {
    let ext = ctx.ext().clone();
    let mut n: i64 = 0;
    ctx.ext().on_panel_key(PANEL, move |key| {
        match key.key {
            PanelKeyName::Up => n += 1,
            PanelKeyName::Down => n -= 1,
            PanelKeyName::Rune if key.text == "q" => {
                let _ = ext.close_panel(PANEL);
                return;
            }
            _ => return,
        }
        let _ = ext.render_lines(PANEL, [n.to_string()]);
    });
    Response::open_panel(PanelSpec {
        id: PANEL.into(),
        title: "Counter".into(),
        lines: vec!["0".into()],
        footer: "up/down - q quits".into(),
    })
}
