//! docs/api-parity.md against the Rust SDK: every Rust cell of the table is
//! the `// parity:` comment above a use of that call below, which must
//! compile (the name, the arity and the argument order by type), and every
//! such comment is a cell of the table (a row cannot be dropped silently).

#![allow(dead_code, clippy::unused_async)]

use serde_json::json;
use zot_ext::engine::CallToolError;
use zot_ext::events::ToolResultEvent;
use zot_ext::{
    CallOptions, Ctx, ExtHandle, Extension, NotifyLevel, Response, RunError, ToolOutput, ToolSpec,
    TurnVerdict,
};
use zot_protocol::{PanelRender, PanelSpec, RawJson};

const SOURCE: &str = include_str!("parity.rs");
const TABLE: &str = include_str!("../../docs/api-parity.md");

/// The Rust cells of the table, without their backquotes.
fn table_cells() -> Vec<String> {
    let body = TABLE
        .split("## The table")
        .nth(1)
        .expect("the table section");
    let mut out = Vec::new();
    for line in body.lines() {
        if !line.starts_with("| ")
            || line.starts_with("| call | Rust |")
            || line.starts_with("| ---")
        {
            continue;
        }
        // Split on `|` not escaped as `\|`.
        let mut cells = Vec::new();
        let mut cell = String::new();
        let mut prev = ' ';
        for c in line.trim().chars() {
            if c == '|' && prev != '\\' {
                cells.push(cell.trim().to_owned());
                cell.clear();
            } else {
                cell.push(c);
            }
            prev = c;
        }
        assert_eq!(cells.len(), 6, "{line}: expected 5 cells");
        let rust = &cells[2];
        if rust != "—" {
            out.push(rust.trim_matches('`').to_owned());
        }
    }
    out
}

/// The `// parity:` comments of this file.
fn source_cells() -> Vec<String> {
    SOURCE
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// parity: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_rust_cell_has_a_compiled_use_and_every_use_a_cell() {
    let table = table_cells();
    let uses = source_cells();
    assert!(table.len() >= 30, "{} rows read", table.len());
    let missing: Vec<&String> = table.iter().filter(|c| !uses.contains(c)).collect();
    assert!(missing.is_empty(), "no compiled use below for {missing:?}");
    let extra: Vec<&String> = uses.iter().filter(|c| !table.contains(c)).collect();
    assert!(extra.is_empty(), "not in docs/api-parity.md: {extra:?}");
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    name: String,
}

// The uses: type-checked, never run.

fn registration() -> Extension {
    // parity: Extension::new(name, version)
    let ext = Extension::new("name", "1.0.0");
    // parity: Extension::command(name, description, handler)
    let ext = ext.command("hi", "Say hi", |_args, _ctx| async { Response::noop() });
    // parity: Extension::tool(name, description, handler)
    let ext = ext.tool("greet", "Greet", |args: Args, _ctx| async move {
        ToolOutput::text(args.name)
    });
    // parity: Extension::tool_with(spec, handler)
    let ext = ext.tool_with(ToolSpec::new("g", "G"), |_args: Args, _ctx| async {
        ToolOutput::text("")
    });
    // parity: Extension::tool_raw(spec, handler)
    let ext = ext.tool_raw(ToolSpec::new("r", "R"), |_args: RawJson, _ctx| async {
        ToolOutput::text("")
    });
    // parity: Extension::on_event(handler)
    let ext = ext.on_event(|_e: ToolResultEvent, _ctx| async {});
    // parity: Extension::on(event, handler)
    let ext = ext.on("turn_end", |_e, _ctx| async {});
    // parity: Extension::intercept_tool_call(handler)
    let ext = ext.intercept_tool_call(|_r, _ctx| async { zot_ext::ToolCallVerdict::Allow });
    // parity: Extension::intercept_turn_start(handler)
    let ext = ext.intercept_turn_start(|_r, _ctx| async { TurnVerdict::Allow });
    // parity: Extension::intercept_assistant_message(handler)
    let ext = ext.intercept_assistant_message(|_r, _ctx| async { zot_ext::MessageVerdict::Allow });
    // parity: Extension::intercept_before_agent_start(handler)
    let ext = ext.intercept_before_agent_start(|_r, _ctx| async { zot_ext::PromptVerdict::Keep });
    // parity: Extension::on_hello(hook)
    let ext = ext.on_hello(|_info, _reg| {});
    // parity: Extension::on_panel_key(panel_id, handler)
    let ext = ext.on_panel_key("p", |_key| {});
    // parity: Extension::on_panel_close(panel_id, handler)
    let ext = ext.on_panel_close("p", || {});
    // parity: Extension::on_panel_resize(panel_id, handler)
    ext.on_panel_resize("p", |_size| {})
}

fn serving(ext: Extension, other: Extension) -> Result<(), RunError> {
    // parity: Extension::run()
    let _future = other.run();
    // parity: Extension::run_blocking()
    ext.run_blocking()
}

async fn in_a_handler(
    ctx: Ctx,
    h: ExtHandle,
    e: RunError,
    c: CallToolError,
) -> Result<(), zot_ext::Error> {
    // parity: Ctx::notify(message, level)
    ctx.notify("done", NotifyLevel::Info)?;
    // parity: ExtHandle::notify(message, level)
    h.notify("done", NotifyLevel::Info)?;
    // parity: ExtHandle::clear_notes()
    h.clear_notes()?;
    // parity: ExtHandle::submit(text)
    h.submit("prompt")?;
    // parity: ExtHandle::submit_slash(text)
    h.submit_slash("/cmd")?;
    // parity: ExtHandle::open_panel(panel)
    h.open_panel(PanelSpec::default())?;
    // parity: ExtHandle::render_panel(render)
    h.render_panel(PanelRender::default())?;
    // parity: ExtHandle::render_lines(panel_id, lines)
    h.render_lines("p", ["row"])?;
    // parity: ExtHandle::close_panel(panel_id)
    h.close_panel("p")?;
    // parity: ExtHandle::forget_panel(panel_id)
    h.forget_panel("p");
    // parity: Ctx::log(message)
    ctx.log("line");
    // parity: ExtHandle::log(message)
    h.log("line");
    // parity: Ctx::call_tool(name, args)
    let _ = ctx.call_tool("echo", &json!({})).await;
    // parity: Ctx::call_tool_with(name, args, opts)
    let _ = ctx
        .call_tool_with("echo", &json!({}), CallOptions::new())
        .await;
    // parity: ExtHandle::call_tool(name, args)
    let _ = h.call_tool("echo", &json!({})).await;
    // parity: Ctx::id()
    let _: &str = ctx.id();
    // parity: Ctx::is_cancelled()
    let _: bool = ctx.is_cancelled();
    // parity: Ctx::host()
    let _ = ctx.host();
    // parity: RunError::code()
    let _: &str = e.code();
    // parity: CallToolError::kind()
    let _: &str = c.kind();
    Ok(())
}
