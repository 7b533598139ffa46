//! Handshake and registration order (SDK-1..SDK-12).

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use common::*;
use zot_ext::engine::SchemaOrigin;
use zot_ext::engine::{Engine, Job, Outcome, Transport};
use zot_ext::testing::{default_hello_ack, TestHost};
use zot_ext::{
    Extension, MessageVerdict, PromptVerdict, Response, ToolCallVerdict, ToolOutput, ToolSpec,
    TurnVerdict,
};
use zot_protocol::{ExtFrame, HostFrame, NotifyLevel, RawJson, RegisterCommand, RegisterTool};

fn cmd(name: &str) -> RegisterCommand {
    RegisterCommand {
        name: name.into(),
        description: String::new(),
    }
}

#[tokio::test]
async fn hello_is_the_first_line_with_the_six_capabilities() {
    let (transport, mut host) = Transport::memory();
    let _engine = Engine::start(config(), transport).unwrap();
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"hello","name":"test","version":"0.0.1","capabilities":["commands","tools","events","panels","tool_cancel","call_tool"]}"#
    );
}

#[tokio::test]
async fn nothing_but_hello_is_written_before_hello_ack_even_spontaneous_frames() {
    let (transport, mut host) = Transport::memory();
    let engine = Engine::start(config(), transport).unwrap();
    engine.register_command(cmd("a")).unwrap();
    engine.notify(NotifyLevel::Info, "early").unwrap();
    assert!(host
        .recv_line()
        .await
        .unwrap()
        .contains(r#""type":"hello""#));
    assert_eq!(host.try_recv_line(), None);
    host.send(&HostFrame::HelloAck(default_hello_ack()))
        .await
        .unwrap();
    let jobs = engine.next_jobs().await;
    assert!(matches!(jobs[0], Job::Hello(_)));
    // Still nothing until hello_done: the hook may register more.
    tokio::task::yield_now().await;
    assert_eq!(host.try_recv_line(), None);
    engine.hello_done().unwrap();
    let lines: Vec<String> = std::iter::from_fn(|| host.try_recv_line()).collect();
    assert_eq!(
        lines,
        [
            r#"{"type":"register_command","name":"a"}"#,
            r#"{"type":"ready"}"#,
            r#"{"type":"notify","level":"info","message":"early"}"#,
        ]
    );
}

#[tokio::test]
async fn announcement_order_commands_tools_one_subscribe_ready() {
    let (_engine, _host, lines) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(
            RegisterTool::new("t1", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
        e.subscribe("turn_end").unwrap();
        e.intercept("assistant_message").unwrap();
        e.register_command(cmd("c1")).unwrap();
        e.intercept("before_agent_start").unwrap();
        e.subscribe("session_start").unwrap();
        e.subscribe("turn_end").unwrap(); // again: not moved
        e.register_tool(
            RegisterTool::new("t2", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
        e.intercept("tool_call").unwrap();
        e.register_command(cmd("c2")).unwrap();
    })
    .await;
    assert_eq!(
        lines,
        [
            r#"{"type":"register_command","name":"c1"}"#,
            r#"{"type":"register_command","name":"c2"}"#,
            r#"{"type":"register_tool","name":"t1","schema":{"type":"object"}}"#,
            r#"{"type":"register_tool","name":"t2","schema":{"type":"object"}}"#,
            r#"{"type":"subscribe","events":["turn_end","session_start"],"intercept":["before_agent_start","tool_call","assistant_message"]}"#,
            r#"{"type":"ready"}"#,
        ]
    );
}

#[tokio::test]
async fn no_subscribe_without_events_and_ready_exactly_once() {
    let (engine, mut host, lines) = engine_with(config(), default_hello_ack(), |_| {}).await;
    assert_eq!(lines, [r#"{"type":"ready"}"#]);
    engine.hello_done().unwrap(); // a second call does nothing
    host.send_line(r#"{"type":"shutdown"}"#).await.unwrap();
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"shutdown_ack"}"#
    );
    assert_eq!(host.recv_line().await, None);
}

#[tokio::test]
async fn invalid_registrations_are_refused_locally() {
    let (transport, _host) = Transport::memory();
    let engine = Engine::start(config(), transport).unwrap();
    assert!(engine.register_command(cmd("/slash")).is_err());
    assert!(engine.register_command(cmd("two words")).is_err());
    assert!(engine
        .register_tool(
            RegisterTool::new("bad name", "", RawJson::object_schema()),
            SchemaOrigin::Given
        )
        .is_err());
    let array = RawJson::from_string("[]".into()).unwrap();
    assert!(engine
        .register_tool(RegisterTool::new("t", "", array), SchemaOrigin::Derived)
        .is_err());
    let mut odd = RegisterTool::new("t", "", RawJson::object_schema());
    odd.exposure = Some("sideways".into());
    assert!(engine.register_tool(odd, SchemaOrigin::Derived).is_err());
    assert!(engine.intercept("session_start").is_err());
    assert!(engine.subscribe("").is_err());
}

#[tokio::test]
async fn registrations_after_ready_are_written_at_once() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    engine.register_command(cmd("late")).unwrap();
    engine.subscribe("turn_start").unwrap();
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"register_command","name":"late"}"#
    );
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"subscribe","events":["turn_start"]}"#
    );
}

#[tokio::test]
async fn first_host_frame_must_be_hello_ack() {
    let (transport, mut host) = Transport::memory();
    let engine = Engine::start(config(), transport).unwrap();
    host.recv_line().await.unwrap();
    host.send_line(r#"{"type":"shutdown"}"#).await.unwrap();
    let jobs = until_finished(&engine).await;
    match jobs.last() {
        Some(Job::Finished { error: Some(e) }) => assert!(e.contains("hello_ack"), "{e}"),
        other => panic!("{other:?}"),
    }
    // Nothing but hello was written, and no shutdown_ack.
    assert_eq!(host.recv_line().await, None);
}

#[tokio::test]
async fn eof_before_hello_ack_fails_the_run() {
    let (transport, mut host) = Transport::memory();
    let task = tokio::spawn(Extension::new("x", "1").run_with(transport));
    host.recv_line().await.unwrap();
    host.close_input();
    let err = task.await.unwrap().unwrap_err();
    assert!(err.to_string().contains("before hello_ack"), "{err}");
}

#[tokio::test]
async fn duplicate_hello_ack_is_ignored() {
    let ext = Extension::new("x", "1").command("c", "", |_a, ctx| async move {
        Response::display(ctx.host().model.clone())
    });
    let mut host = TestHost::start(ext).await.unwrap();
    let mut other = default_hello_ack();
    other.model = "other".into();
    host.send(&HostFrame::HelloAck(other)).await.unwrap();
    assert_eq!(host.command("c", "").await.unwrap().display, "test");
}

#[tokio::test]
async fn sdk_on_hello_sees_the_ack_and_its_registrations_are_announced_in_order() {
    let ext = Extension::new("x", "1")
        .command("first", "", |_a, _c| async { Response::noop() })
        .tool("t0", "", |_a: serde_json::Value, _c| async {
            ToolOutput::text("")
        })
        .on_hello(|host, reg| {
            assert_eq!(host.data_dir, std::env::temp_dir().display().to_string());
            assert!(host.supports_call_tool());
            reg.command("second", "", |_a, _c| async { Response::noop() });
            reg.on("turn_start", |_e, _c| async {});
        })
        .on("session_start", |_e, _c| async {})
        .on("turn_start", |_e, _c| async {}); // replaced in place later by the hook
    let host = TestHost::start(ext).await.unwrap();
    let reg = host.registration();
    let names: Vec<&str> = reg.commands.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["first", "second"]);
    assert_eq!(reg.events, ["session_start", "turn_start"]);
    assert_eq!(reg.subscribe_frames, 1);
    // hello, registrations, subscribe, ready.
    assert_eq!(host.transcript().len(), 1 + 2 + 1 + 1 + 1);
}

#[tokio::test]
async fn sdk_registers_tool_options_only_when_set_and_intercepts_in_go_order() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// The city.
        city: String,
        days: Option<u32>,
    }
    let ext = Extension::new("x", "1")
        .tool("plain", "Plain", |_a: Args, _c| async {
            ToolOutput::text("")
        })
        .tool_raw(
            ToolSpec::new("lazy", "").deferred().interactive(),
            |_a, _c| async { ToolOutput::text("") },
        )
        .intercept_assistant_message(|_m, _c| async { MessageVerdict::Allow })
        .intercept_turn_start(|_t, _c| async { TurnVerdict::Allow })
        .intercept_tool_call(|_t, _c| async { ToolCallVerdict::Allow })
        .intercept_before_agent_start(|_r, _c| async { PromptVerdict::Keep });
    let host = TestHost::start(ext).await.unwrap();
    let reg = host.registration();
    assert_eq!(
        reg.intercepts,
        [
            "before_agent_start",
            "tool_call",
            "turn_start",
            "assistant_message"
        ]
    );
    let plain = &host.transcript()[1];
    assert!(
        !plain.contains("deferred")
            && !plain.contains("interactive")
            && !plain.contains("namespace"),
        "{plain}"
    );
    assert!(
        !plain.contains("$schema") && !plain.contains("title"),
        "{plain}"
    );
    assert!(
        plain.contains(r#""required":["city"]"#) && plain.contains(r#""description":"The city.""#),
        "{plain}"
    );
    assert_eq!(
        host.transcript()[2],
        r#"{"type":"register_tool","name":"lazy","schema":{"type":"object"},"deferred":true,"interactive":true}"#
    );
}

#[tokio::test]
async fn sdk_reports_invalid_registrations_when_run() {
    let (transport, _host) = Transport::memory();
    let err = Extension::new("x", "1")
        .command("bad name", "", |_a, _c| async { Response::noop() })
        .run_with(transport)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("bad name"), "{err}");
}

#[tokio::test]
async fn frames_sent_by_the_sdk_hook_follow_ready() {
    let ext = Extension::new("x", "1").on_hello(|_host, reg| {
        let _ = reg.ext().notify("hi from the hook", NotifyLevel::Info);
    });
    let mut host = TestHost::start(ext).await.unwrap();
    match host.next_frame().await.unwrap() {
        ExtFrame::Notify(n) => assert_eq!(n.message, "hi from the hook"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn frames_read_during_the_on_hello_hook_wait_for_the_final_registry() {
    // A host that sends a request and then EOF right after hello_ack: the
    // request must meet the command the hook registers, and the
    // registrations and `ready` must still precede the reply.
    let (transport, mut host) = Transport::memory();
    let engine = Engine::start(config(), transport).unwrap();
    host.recv_line().await.unwrap(); // hello
    host.send(&HostFrame::HelloAck(default_hello_ack()))
        .await
        .unwrap();
    host.send_line(r#"{"type":"command_invoked","id":"1","name":"late","args":"x"}"#)
        .await
        .unwrap();
    host.close_input();
    let jobs = engine.next_jobs().await;
    assert!(matches!(jobs[0], Job::Hello(_)));
    engine.register_command(cmd("late")).unwrap();
    engine.hello_done().unwrap();
    let mut replied = false;
    'session: loop {
        for job in engine.next_jobs().await {
            match job {
                Job::Command(c) => {
                    assert_eq!(c.name, "late");
                    engine
                        .complete(c.id, Outcome::Failed("handled".into()))
                        .unwrap();
                    replied = true;
                }
                Job::Finished { .. } => break 'session,
                _ => {}
            }
        }
    }
    assert!(replied, "the early command never reached the dispatcher");
    let mut lines = Vec::new();
    while let Some(l) = host.recv_line().await {
        lines.push(l);
    }
    assert_eq!(
        lines,
        [
            r#"{"type":"register_command","name":"late"}"#,
            r#"{"type":"ready"}"#,
            r#"{"type":"command_response","id":"1","action":"noop","error":"handled"}"#,
        ]
    );
}
