//! `zot-mcp wrap` end to end: a host speaking the zot protocol over the real
//! process (`wrap/host.rs`) starts `zot-mcp wrap -- <fixture>`, and the fixture is a small MCP server written with rmcp's
//! server side (`wrap/fixture.rs`). This test binary is that fixture too,
//! when started with `--fixture`.

#[path = "wrap/fixture.rs"]
mod fixture;
#[path = "wrap/host.rs"]
mod host;

use std::process::{Command, ExitCode};

use host::Host;
use serde_json::json;

fn registers_every_page_of_tools_with_valid_unique_names() {
    let mut host = Host::start();
    assert_eq!(
        host.seen("hello")[0]["name"],
        "fixture",
        "default: the server's name"
    );
    let tools = host.seen("register_tool");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "echo",
            "add",
            "fail",
            "picture",
            "progress",
            "slow",
            "wait_cancelled",
            "die",
            "odd_name",
            "odd_name_2",
            "change_tools",
            "late"
        ],
        "a tool added while the bridge started is registered (listed again)"
    );
    for t in &tools {
        assert_eq!(t["namespace"], "fixture", "{t}");
        assert_eq!(t["namespace_instructions"], "Tools for tests.", "{t}");
    }
    assert_eq!(tools[0]["description"], "Echo the text");
    assert_eq!(tools[0]["schema"]["required"], json!(["text"]));
    assert_eq!(
        tools[1]["output_schema"]["properties"]["sum"]["type"],
        "integer"
    );
    assert_eq!(
        tools[3]["description"], "A picture and a resource",
        "the title stands in"
    );
    host.log_until(r#"MCP tool "odd.name" is zot tool "odd_name_2""#);
    assert!(host.shutdown().success());
}

fn prompts_and_resources_become_prefixed_commands() {
    let mut host = Host::start();
    let commands = host.seen("register_command");
    let names: Vec<&str> = commands
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "fixture:resources",
            "fixture:greet",
            "fixture:talk",
            "fixture:Odd_Prompt"
        ]
    );
    assert_eq!(
        commands[1]["description"],
        "Greets someone (usage: /fixture:greet name [greeting])"
    );
    assert_eq!(commands[2]["description"], "A short talk");
    host.log_until(r#"MCP prompt "Odd Prompt" is /fixture:Odd_Prompt"#);
    assert!(host.shutdown().success());
}

fn a_prompt_command_submits_the_rendered_prompt() {
    let mut host = Host::start();
    let r = host.command("k1", "fixture:greet", "Ada");
    assert_eq!(
        (&r["action"], &r["prompt"]),
        (&json!("prompt"), &json!("Hello, Ada!"))
    );
    let r = host.command("k2", "fixture:greet", "greeting=Hi name=Ada");
    assert_eq!(r["prompt"], "Hi, Ada!");
    let r = host.command("k3", "fixture:talk", "");
    assert_eq!(r["prompt"], "User: Tell me a joke\n\nAssistant: Why?");
    let r = host.command("k4", "fixture:greet", "");
    assert_eq!(
        r["error"],
        "missing name (usage: /fixture:greet name [greeting])"
    );
    assert_ne!(r["action"], "prompt");
    assert!(host.shutdown().success());
}

fn the_resources_command_lists_and_reads() {
    let mut host = Host::start();
    let r = host.command("r1", "fixture:resources", "");
    assert_eq!(
        r["display"],
        "file:///notes.txt — notes: Some notes\n\
         templates (fill in the {…} parts):\nnote://{id} — note"
    );
    let r = host.command("r2", "fixture:resources", "file:///notes.txt");
    assert_eq!(
        (&r["action"], &r["insert"]),
        (&json!("insert"), &json!("resource text"))
    );
    let r = host.command("r3", "fixture:resources", "file:///missing");
    let error = r["error"].as_str().unwrap();
    assert!(
        error.starts_with("MCP resources/read file:///missing: "),
        "{error}"
    );
    assert!(host.shutdown().success());
}

fn a_changed_tool_list_is_a_note_and_a_log_line() {
    let mut host = Host::start();
    host.start_call("t1", "change_tools", json!({}));
    let note = host.until("notify", |_| true);
    assert_eq!(note["level"], "warn");
    assert_eq!(
        note["message"],
        "the MCP server's tool list changed; zot keeps the tools registered at start \
         (restart the extension to pick up the change)"
    );
    host.log_until("the MCP server's tool list changed");
    assert!(host.shutdown().success());
}

fn results_map_text_structured_content_errors_images_and_resources() {
    let mut host = Host::start();
    let echo = host.call("c1", "echo", json!({"text": "hi"}));
    assert_eq!(echo["content"], json!([{"type": "text", "text": "hi"}]));
    let add = host.call("c2", "add", json!({"a": 2, "b": 3}));
    assert_eq!(add["structured_content"], json!({"sum": 5}));
    assert_eq!(add["content"][0]["text"], "sum=5");
    assert_ne!(add["is_error"], true);
    let fail = host.call("c3", "fail", json!({}));
    assert_eq!(fail["is_error"], true);
    assert_eq!(fail["content"][0]["text"], "boom");
    let picture = host.call("c4", "picture", json!({}));
    assert_eq!(
        picture["content"],
        json!([
            {"type": "image", "mime_type": "image/png", "data": "iVBORw0KGgo="},
            {"type": "text", "text": "resource text"},
        ])
    );
    let renamed = host.call("c5", "odd_name_2", json!({}));
    assert_eq!(renamed["content"][0]["text"], "odd.name called");
    assert!(host.shutdown().success());
}

fn progress_becomes_a_note_while_the_call_runs() {
    let mut host = Host::start();
    host.call("p1", "progress", json!({}));
    let notes = host.seen("notify");
    assert!(
        notes
            .iter()
            .any(|n| n["message"] == "progress 1/2: halfway"),
        "notes: {notes:?}"
    );
    assert!(host.shutdown().success());
}

fn cancellation_reaches_the_server_and_its_log_reaches_stderr() {
    let mut host = Host::start();
    host.start_call("s1", "slow", json!({}));
    // The server logs when the call started: cancel a running call.
    host.log_until("mcp info fixture: slow started");
    host.send(json!({"type": "tool_cancel", "id": "s1"}));
    let waited = host.call("w1", "wait_cancelled", json!({}));
    assert_eq!(waited["content"][0]["text"], "slow was cancelled");
    assert!(
        host.seen("tool_result").iter().all(|r| r["id"] != "s1"),
        "no result for a cancelled call"
    );
    assert!(host.shutdown().success());
}

fn the_server_dying_ends_the_extension_with_one_line() {
    let mut host = Host::start();
    host.start_call("d1", "die", json!({}));
    let line = host.log_until("zot-mcp: the MCP server");
    assert!(line.ends_with("exited with status 3"), "{line}");
    assert_eq!(host.wait().code(), Some(1));
}

fn a_server_that_cannot_start_is_one_line_and_status_1() {
    let out = Command::new(env!("CARGO_BIN_EXE_zot-mcp"))
        .args(["wrap", "--", "/nonexistent/mcp-server"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing on the wire");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("zot-mcp: cannot start the MCP server `/nonexistent/mcp-server`"),
        "{err}"
    );
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("--fixture") {
        return fixture::run();
    }
    let tests: [(&str, fn()); 10] = [
        (
            "registers_every_page_of_tools_with_valid_unique_names",
            registers_every_page_of_tools_with_valid_unique_names,
        ),
        (
            "prompts_and_resources_become_prefixed_commands",
            prompts_and_resources_become_prefixed_commands,
        ),
        (
            "a_prompt_command_submits_the_rendered_prompt",
            a_prompt_command_submits_the_rendered_prompt,
        ),
        (
            "the_resources_command_lists_and_reads",
            the_resources_command_lists_and_reads,
        ),
        (
            "a_changed_tool_list_is_a_note_and_a_log_line",
            a_changed_tool_list_is_a_note_and_a_log_line,
        ),
        (
            "results_map_text_structured_content_errors_images_and_resources",
            results_map_text_structured_content_errors_images_and_resources,
        ),
        (
            "progress_becomes_a_note_while_the_call_runs",
            progress_becomes_a_note_while_the_call_runs,
        ),
        (
            "cancellation_reaches_the_server_and_its_log_reaches_stderr",
            cancellation_reaches_the_server_and_its_log_reaches_stderr,
        ),
        (
            "the_server_dying_ends_the_extension_with_one_line",
            the_server_dying_ends_the_extension_with_one_line,
        ),
        (
            "a_server_that_cannot_start_is_one_line_and_status_1",
            a_server_that_cannot_start_is_one_line_and_status_1,
        ),
    ];
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let (mut passed, mut failed) = (0, 0);
    for (name, test) in tests {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        if std::panic::catch_unwind(test).is_ok() {
            println!("test {name} ... ok");
            passed += 1;
        } else {
            println!("test {name} ... FAILED");
            failed += 1;
        }
    }
    let status = if failed == 0 { "ok" } else { "FAILED" };
    println!("\ntest result: {status}. {passed} passed; {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
