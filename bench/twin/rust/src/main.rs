//! `bench-twin-rust`: the floor's extension (bench/floor) written with the
//! Rust SDK, as an author would: the same tools and subscriptions, typed
//! arguments whose schemas the SDK derives. The benchmarks compare it with
//! the floor where the conformance extension, which registers much more,
//! would not compare like with like (the start-up rows).

use std::time::Duration;

use serde::Deserialize;
use zot_ext::{Extension, ToolOutput};
use zot_protocol::NotifyLevel;

#[derive(Deserialize, schemars::JsonSchema)]
struct Echo {
    text: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Big {
    #[serde(default)]
    bytes: usize,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Sleep {
    #[serde(default)]
    ms: u64,
}

fn main() -> Result<(), zot_ext::RunError> {
    Extension::new("rust-twin", "1.0.0")
        .tool("echo", "echo text", |args: Echo, _ctx| async move {
            ToolOutput::text(args.text)
        })
        .tool("big", "n bytes of x", |args: Big, _ctx| async move {
            ToolOutput::text("x".repeat(args.bytes))
        })
        .tool(
            "sleep",
            "wait ms milliseconds",
            |args: Sleep, ctx| async move {
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(args.ms)) => {}
                    () = ctx.cancelled() => {
                        let _ = ctx.notify(format!("cancelled {}", args.ms), NotifyLevel::Warn);
                    }
                }
                ToolOutput::text(format!("slept {}", args.ms))
            },
        )
        .on("tool_call", |_event, _ctx| async {})
        .on("tool_result", |_event, _ctx| async {})
        .run_blocking()
}
