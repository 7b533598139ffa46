//! The conformance contract (`docs/testing/conformance.md`), checked
//! in-process with `zot_ext::testing`.

use serde_json::json;
use zot_ext::testing::{default_hello_ack, TestHost};
use zot_protocol::{ExtFrame, HelloAck};

async fn start() -> TestHost {
    let ack = HelloAck {
        cwd: "/project".into(),
        data_dir: "/data".into(),
        ..default_hello_ack()
    };
    TestHost::start_with(conformance_rust::extension(), ack)
        .await
        .unwrap()
}

#[tokio::test]
async fn handshake_registers_everything_in_order() {
    let host = start().await;
    let reg = host.registration();
    assert_eq!(reg.hello.name, "conformance");
    assert_eq!(reg.hello.version, "1.0.0");
    let caps: Vec<&str> = reg.hello.capabilities.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        caps,
        [
            "commands",
            "tools",
            "events",
            "panels",
            "tool_cancel",
            "call_tool"
        ]
    );
    let commands: Vec<&str> = reg.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        commands,
        [
            "echo", "Greet", "insert", "panel", "note", "clear", "submit", "commit", "oops",
            "events", "callecho", "cwd", "datadir"
        ]
    );
    let tools: Vec<&str> = reg.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        tools,
        ["echo", "add", "fail", "sleep", "ask", "compose", "lazy", "loader", "image", "big"]
    );
    assert_eq!(reg.events.len(), 14);
    assert_eq!(
        reg.intercepts,
        [
            "before_agent_start",
            "tool_call",
            "turn_start",
            "assistant_message"
        ]
    );
    assert_eq!(
        host.transcript()[14],
        r#"{"type":"register_tool","name":"echo","description":"Echo the text","schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}"#
    );
    assert_eq!(
        host.transcript()[15],
        r#"{"type":"register_tool","name":"add","description":"Add two integers","schema":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]},"output_schema":{"type":"object","properties":{"sum":{"type":"integer"}}},"namespace":"math","namespace_description":"Arithmetic","namespace_instructions":"Integers only","exposure":"codemode"}"#
    );
    assert!(reg.tools[4].interactive && reg.tools[6].deferred);
}

#[tokio::test]
async fn commands() {
    let mut host = start().await;
    assert_eq!(host.command("echo", "a  b").await.unwrap().display, "a  b");
    assert_eq!(
        host.command("Greet", "Ada").await.unwrap().prompt,
        "Hello, Ada"
    );
    assert_eq!(host.command("insert", "text").await.unwrap().insert, "text");
    assert_eq!(host.command("cwd", "").await.unwrap().display, "/project");
    assert_eq!(host.command("datadir", "").await.unwrap().display, "/data");
    let r = host.command("oops", "x").await.unwrap();
    assert_eq!(
        (r.action.as_str(), r.error.as_str()),
        ("noop", "command failed: x")
    );
    let r = host.command("commit", "msg").await.unwrap();
    let line = serde_json::to_string(&ExtFrame::CommandResponse(r)).unwrap();
    assert_eq!(
        line,
        r#"{"type":"command_response","id":"cmd-7","action":"tool_prompt","prompt":"and push","tool_name":"echo","tool_args":{"text":"msg"}}"#
    );
    host.command("note", "hello").await.unwrap();
    host.command("clear", "").await.unwrap();
    host.command("submit", "go on").await.unwrap();
    let tail: Vec<&String> = host.transcript().iter().rev().take(6).rev().collect();
    assert_eq!(
        tail,
        [
            r#"{"type":"notify","level":"info","message":"hello"}"#,
            r#"{"type":"command_response","id":"cmd-8","action":"noop"}"#,
            r#"{"type":"clear_notes"}"#,
            r#"{"type":"command_response","id":"cmd-9","action":"noop"}"#,
            r#"{"type":"submit","text":"go on"}"#,
            r#"{"type":"command_response","id":"cmd-10","action":"noop"}"#,
        ]
    );
}

#[tokio::test]
async fn panel_counter() {
    let mut host = start().await;
    let r = host.command("panel", "").await.unwrap();
    let line = serde_json::to_string(&ExtFrame::CommandResponse(r)).unwrap();
    assert!(line.ends_with(r#""action":"open_panel","open_panel":{"id":"conf-panel","title":"Counter","lines":["0"],"footer":"up/down - q quits"}}"#));
    for k in ["up", "up", "down", "left"] {
        host.panel_key("conf-panel", k, "").await.unwrap();
    }
    host.panel_key("conf-panel", "rune", "q").await.unwrap();
    let mut lines = Vec::new();
    for _ in 0..4 {
        lines.push(host.next_frame_json().await.unwrap());
    }
    assert_eq!(
        lines,
        [
            r#"{"type":"panel_render","panel_id":"conf-panel","lines":["1"]}"#,
            r#"{"type":"panel_render","panel_id":"conf-panel","lines":["2"]}"#,
            r#"{"type":"panel_render","panel_id":"conf-panel","lines":["1"]}"#,
            r#"{"type":"panel_close","panel_id":"conf-panel"}"#,
        ]
    );
    // Reopen, then the host closes it: later keys are ignored.
    host.command("panel", "").await.unwrap();
    host.panel_close("conf-panel").await.unwrap();
    host.panel_key("conf-panel", "up", "").await.unwrap();
    assert_eq!(host.shutdown().await.unwrap(), [ExtFrame::ShutdownAck]);
}

#[tokio::test]
async fn tools() {
    let mut host = start().await;
    assert_eq!(
        host.tool("echo", json!({"text": "hi"}))
            .await
            .unwrap()
            .content[0]
            .as_text(),
        Some("hi")
    );
    // The engine checks the arguments against the schema first.
    for (bad, why) in [
        (json!({}), "missing field `text`"),
        (
            json!({"text": 5}),
            r#"field `text`: 5 is not of type "string""#,
        ),
    ] {
        let r = host.tool("echo", bad).await.unwrap();
        assert_eq!(
            (r.is_error, r.content[0].as_text()),
            (true, Some(format!("invalid arguments: {why}").as_str()))
        );
    }
    let r = host.tool("add", json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("sum=42"));
    assert_eq!(r.structured_content.unwrap().get(), r#"{"sum":42}"#);
    let r = host.tool("fail", json!({})).await.unwrap();
    assert!(r.is_error && r.content[0].as_text().unwrap().contains("boom"));
    assert_eq!(
        host.tool("lazy", json!({})).await.unwrap().content[0].as_text(),
        Some("lazy ok")
    );
    let r = host.tool("loader", json!({})).await.unwrap();
    assert_eq!(
        (r.content[0].as_text(), r.activate_tools.as_slice()),
        (Some("loaded"), ["lazy".to_owned()].as_slice())
    );
    let id = host.start_tool("image", json!({})).await.unwrap();
    host.tool_result(&id).await.unwrap();
    assert_eq!(
        host.transcript().last().unwrap(),
        &format!(
            r#"{{"type":"tool_result","id":"{id}","content":[{{"type":"text","text":"image"}},{{"type":"image","mime_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}}]}}"#
        )
    );
    let r = host.tool("big", json!({"bytes": 1000})).await.unwrap();
    assert_eq!(r.content[0].as_text().unwrap(), "x".repeat(1000));
}

#[tokio::test(start_paused = true)]
async fn sleep_completes_or_is_cancelled() {
    let mut host = start().await;
    assert_eq!(
        host.tool("sleep", json!({"ms": 250}))
            .await
            .unwrap()
            .content[0]
            .as_text(),
        Some("slept 250")
    );
    let id = host
        .start_tool("sleep", json!({"ms": 60000}))
        .await
        .unwrap();
    let ask = host.start_tool("ask", json!({})).await.unwrap();
    host.cancel_tool(&id).await.unwrap();
    match host.next_frame().await.unwrap() {
        ExtFrame::Notify(n) => assert_eq!(
            (n.level.as_str(), n.message.as_str()),
            ("warn", "cancelled 60000")
        ),
        other => panic!("{other:?}"),
    }
    host.cancel_tool(&ask).await.unwrap();
    match host.next_frame().await.unwrap() {
        ExtFrame::Notify(n) => assert_eq!(
            (n.level.as_str(), n.message.as_str()),
            ("warn", "ask cancelled")
        ),
        other => panic!("{other:?}"),
    }
    // Shutdown cancels a running sleep too, before the ack.
    host.start_tool("sleep", json!({"ms": 60000}))
        .await
        .unwrap();
    let frames = host.shutdown().await.unwrap();
    let lines: Vec<String> = frames
        .iter()
        .map(|f| serde_json::to_string(f).unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            r#"{"type":"notify","level":"warn","message":"cancelled 60000"}"#,
            r#"{"type":"shutdown_ack"}"#
        ]
    );
}

#[tokio::test]
async fn compose_and_callecho_use_call_tool() {
    let mut host = start().await;
    let id = host
        .start_tool("compose", json!({"text": "hi"}))
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    assert_eq!(
        (call.name.as_str(), call.parent_id.as_str()),
        ("echo", id.as_str())
    );
    assert_eq!(call.args.as_ref().unwrap().get(), r#"{"text":"inner:hi"}"#);
    host.answer_call(&call, "inner:hi", false).await.unwrap();
    assert_eq!(
        host.tool_result(&id).await.unwrap().content[0].as_text(),
        Some("composed:inner:hi")
    );

    let id = host
        .start_tool("compose", json!({"text": "x"}))
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    host.answer_call(&call, "echo failed", true).await.unwrap();
    let r = host.tool_result(&id).await.unwrap();
    assert_eq!(
        (r.is_error, r.content[0].as_text()),
        (true, Some("echo failed"))
    );

    host.send_json(r#"{"type":"command_invoked","id":"c","name":"callecho","args":"yo"}"#)
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    assert!(call.parent_id.is_empty());
    assert_eq!(call.args.as_ref().unwrap().get(), r#"{"text":"yo"}"#);
    host.answer_call(&call, "yo", false).await.unwrap();
    assert_eq!(
        host.command_response("c").await.unwrap().display,
        "called:yo"
    );

    host.send_json(r#"{"type":"command_invoked","id":"d","name":"callecho","args":"no"}"#)
        .await
        .unwrap();
    let call = host.expect_call_tool().await.unwrap();
    host.answer_call(&call, "refused", true).await.unwrap();
    assert_eq!(
        host.command_response("d").await.unwrap().display,
        "call failed:refused"
    );
}

#[tokio::test(start_paused = true)]
async fn callecho_gives_up_before_the_command_deadline() {
    let mut host = start().await;
    host.send_json(r#"{"type":"command_invoked","id":"c","name":"callecho","args":"yo"}"#)
        .await
        .unwrap();
    host.expect_call_tool().await.unwrap();
    let start = tokio::time::Instant::now();
    let r = host.command_response("c").await.unwrap();
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    assert!(r.display.starts_with("call failed:"), "{}", r.display);
}

#[tokio::test]
async fn interceptors() {
    let mut host = start().await;
    let mut ask = async |line: &str| {
        let r = host.intercept_json(line).await.unwrap();
        serde_json::to_string(&ExtFrame::EventInterceptResponse(r)).unwrap()
    };
    let cases = [
        (
            r#"{"type":"event_intercept","id":"1","event":"tool_call","tool_name":"bash","tool_args":{"command":"sudo rm -rf /"}}"#,
            r#"{"type":"event_intercept_response","id":"1","block":true,"reason":"refused: rm -rf"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"2","event":"tool_call","tool_name":"bash","tool_args":{"command":"ls"}}"#,
            r#"{"type":"event_intercept_response","id":"2","modified_args":{"command":"echo GUARDED: ls"}}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"3","event":"tool_call","tool_name":"read","tool_args":{"command":"ls"}}"#,
            r#"{"type":"event_intercept_response","id":"3"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"4","event":"turn_start","step":99}"#,
            r#"{"type":"event_intercept_response","id":"4","block":true,"reason":"step limit"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"5","event":"turn_start","step":98}"#,
            r#"{"type":"event_intercept_response","id":"5"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"6","event":"assistant_message","text":"BLOCKME"}"#,
            r#"{"type":"event_intercept_response","id":"6","block":true,"reason":"blocked"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"7","event":"assistant_message","text":"a SECRET and SECRET"}"#,
            r#"{"type":"event_intercept_response","id":"7","replace_text":"a [redacted] and [redacted]"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"8","event":"assistant_message","text":"fine"}"#,
            r#"{"type":"event_intercept_response","id":"8"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"9","event":"before_agent_start","system_prompt":"KEEP this"}"#,
            r#"{"type":"event_intercept_response","id":"9"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"10","event":"before_agent_start","system_prompt":"REMOVE this"}"#,
            r#"{"type":"event_intercept_response","system_prompt":"","id":"10"}"#,
        ),
        (
            r#"{"type":"event_intercept","id":"11","event":"before_agent_start","system_prompt":"Base"}"#,
            r#"{"type":"event_intercept_response","system_prompt":"Base\n[conformance]","id":"11"}"#,
        ),
    ];
    for (req, want) in cases {
        assert_eq!(ask(req).await, want);
    }
}

#[tokio::test]
async fn events_are_recorded_in_arrival_order() {
    let mut host = start().await;
    for ev in [
        r#"{"type":"event","event":"session_start","session_id":"s","cwd":"/","sequence":1}"#,
        r#"{"type":"event","event":"turn_start","step":1,"sequence":2}"#,
        r#"{"type":"event","event":"some_future_event","sequence":3}"#,
        r#"{"type":"event","event":"tool_result","status":"completed","tool_id":"t","tool_name":"x","executed":false,"result":{"content":[],"is_error":false},"sequence":4}"#,
        r#"{"type":"event","event":"session_end","reason":"shutdown","sequence":5}"#,
    ] {
        host.send_json(ev).await.unwrap();
    }
    assert_eq!(
        host.command("events", "").await.unwrap().display,
        r#"{"count":4,"last":["session_start","turn_start","tool_result","session_end"]}"#
    );
}

#[tokio::test]
async fn eof_ends_the_extension() {
    let mut host = start().await;
    host.start_tool("ask", json!({})).await.unwrap();
    let frames = host.close_stdin().await.unwrap();
    let lines: Vec<String> = frames
        .iter()
        .map(|f| serde_json::to_string(f).unwrap())
        .collect();
    assert_eq!(
        lines,
        [r#"{"type":"notify","level":"warn","message":"ask cancelled"}"#]
    );
    assert_eq!(host.finished().await, Some(Ok(())));
}
