//! Exactly one reply to every request whose id can be read (issue 18): a
//! `command_invoked`, `tool_call` or `event_intercept` with a field of the
//! wrong type, or a string the SDKs cannot read, is answered by the engine
//! (an error, or the fail-closed verdict), never dropped. And tool
//! arguments are checked against the tool's schema before any handler runs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use zot_ext::testing::TestHost;
use zot_ext::{Extension, PromptVerdict, ToolCallVerdict, ToolOutput, ToolSpec, TurnVerdict};
use zot_protocol::{CommandResponse, EventInterceptResponse, RawJson, ToolResult};

/// The same bound everywhere: a missing reply fails the test, never hangs it.
const WAIT: Duration = Duration::from_secs(5);

fn ext(ran: Arc<AtomicUsize>) -> Extension {
    let add_ran = ran.clone();
    Extension::new("x", "1")
        .command("echo", "", |args, _c| async move { zot_ext::Response::display(args) })
        .tool_raw(
            ToolSpec::new("add", "").schema(
                &RawJson::from_string(
                    r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a"]}"#
                        .into(),
                )
                .unwrap(),
            ),
            move |args, _c| {
                add_ran.fetch_add(1, Ordering::SeqCst);
                async move { ToolOutput::text(args.get().to_owned()) }
            },
        )
        .intercept_tool_call(|_c, _ctx| async { ToolCallVerdict::Allow })
        .intercept_turn_start(|_t, _ctx| async { TurnVerdict::Allow })
        .intercept_before_agent_start(|_r, _ctx| async { PromptVerdict::Keep })
}

async fn start() -> (TestHost, Arc<AtomicUsize>) {
    let ran = Arc::new(AtomicUsize::new(0));
    (TestHost::start(ext(ran.clone())).await.unwrap(), ran)
}

async fn command(host: &mut TestHost, line: &str, id: &str) -> CommandResponse {
    host.send_json(line).await.unwrap();
    tokio::time::timeout(WAIT, host.command_response(id))
        .await
        .unwrap_or_else(|_| panic!("no command_response to {line}"))
        .unwrap()
}

async fn tool(host: &mut TestHost, line: &str, id: &str) -> ToolResult {
    host.send_json(line).await.unwrap();
    tokio::time::timeout(WAIT, host.tool_result(id))
        .await
        .unwrap_or_else(|_| panic!("no tool_result to {line}"))
        .unwrap()
}

async fn verdict(host: &mut TestHost, line: &str, id: &str) -> EventInterceptResponse {
    host.send_json(line).await.unwrap();
    tokio::time::timeout(WAIT, host.intercept_response(id))
        .await
        .unwrap_or_else(|_| panic!("no verdict to {line}"))
        .unwrap()
}

#[tokio::test]
async fn a_command_with_unreadable_fields_gets_an_error_response() {
    let (mut host, _) = start().await;
    for (line, field) in [
        (
            r#"{"type":"command_invoked","id":"c1","name":"echo","args":5}"#,
            "args",
        ),
        (
            r#"{"type":"command_invoked","id":"c2","name":"echo","args":["x"]}"#,
            "args",
        ),
        (
            r#"{"type":"command_invoked","id":"c3","name":"echo","args":"a\ud800"}"#,
            "args",
        ),
        (
            r#"{"type":"command_invoked","id":"c4","name":7,"args":"x"}"#,
            "name",
        ),
    ] {
        let id = &line[line.find("\"id\":\"").unwrap() + 6..][..2];
        let r = command(&mut host, line, id).await;
        assert_eq!(r.action.as_str(), "noop", "{line}");
        assert!(
            r.error.starts_with("command refused: ")
                && r.error.contains(&format!("field `{field}`")),
            "{line}: {}",
            r.error
        );
    }
    // The session goes on.
    let r = command(
        &mut host,
        r#"{"type":"command_invoked","id":"ok","name":"echo","args":"hi"}"#,
        "ok",
    )
    .await;
    assert_eq!(r.display, "hi");
}

#[tokio::test]
async fn an_interception_with_wrong_typed_fields_gets_the_fail_closed_verdict() {
    let (mut host, _) = start().await;
    for (line, id, field) in [
        (
            r#"{"type":"event_intercept","event":"turn_start","id":"i1","step":-1}"#,
            "i1",
            "step",
        ),
        (
            r#"{"type":"event_intercept","event":"turn_start","id":"i2","step":1.5}"#,
            "i2",
            "step",
        ),
        (
            r#"{"type":"event_intercept","event":"turn_start","id":"i3","step":99999999999}"#,
            "i3",
            "step",
        ),
        (
            r#"{"type":"event_intercept","event":"tool_call","id":"i4","tool_name":5}"#,
            "i4",
            "tool_name",
        ),
        (
            r#"{"type":"event_intercept","event":"tool_call","id":"i5","tool_name":"bash","tool_args":[1]}"#,
            "i5",
            "tool_args",
        ),
        (
            r#"{"type":"event_intercept","event":"tool_call","id":"i6","tool_name":"bash","tool_args":"s"}"#,
            "i6",
            "tool_args",
        ),
        (
            r#"{"type":"event_intercept","id":"i7","step":1}"#,
            "i7",
            "event",
        ),
    ] {
        let r = verdict(&mut host, line, id).await;
        assert!(r.block, "{line}: {r:?}");
        assert!(
            r.reason.contains(&format!("field `{field}`")),
            "{line}: {}",
            r.reason
        );
    }
    // before_agent_start cannot block: its failure keeps the prompt.
    let r = verdict(
        &mut host,
        r#"{"type":"event_intercept","event":"before_agent_start","id":"b1","system_prompt":null}"#,
        "b1",
    )
    .await;
    assert!(!r.block && r.system_prompt.is_none(), "{r:?}");
    assert!(r.reason.contains("field `system_prompt`"), "{}", r.reason);
    // An event nobody intercepts is allowed, as without a handler.
    let r = verdict(
        &mut host,
        r#"{"type":"event_intercept","event":"assistant_message","id":"a1","text":null}"#,
        "a1",
    )
    .await;
    assert!(!r.block && r.reason.is_empty(), "{r:?}");
}

#[tokio::test]
async fn a_tool_call_with_unreadable_fields_gets_an_error_result() {
    let (mut host, ran) = start().await;
    let r = tool(
        &mut host,
        r#"{"type":"tool_call","id":"t1","name":5,"args":{}}"#,
        "t1",
    )
    .await;
    assert!(r.is_error);
    assert!(
        r.content[0].as_text().unwrap().contains("field `name`"),
        "{r:?}"
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn arguments_are_checked_against_the_schema_before_the_handler() {
    let (mut host, ran) = start().await;
    let cases = [
        (r#"null"#, "invalid arguments: expected a JSON object, got null"),
        (r#"[1,2]"#, "invalid arguments: expected a JSON object, got an array"),
        (r#""s""#, "invalid arguments: expected a JSON object, got a string"),
        (r#"{"b":1}"#, "invalid arguments: missing field `a`"),
        (r#"{"a":"1"}"#, r#"invalid arguments: field `a`: "1" is not of type "integer""#),
        (r#"{"a":1.5}"#, r#"invalid arguments: field `a`: 1.5 is not of type "integer""#),
        (
            r#"{"a":9007199254740992}"#,
            "invalid arguments: field `a`: 9007199254740992 is outside the integers every SDK represents exactly (-9007199254740991 to 9007199254740991)",
        ),
        (
            r#"{"a":9223372036854775808}"#,
            "invalid arguments: field `a`: 9223372036854775808 is outside the integers every SDK represents exactly (-9007199254740991 to 9007199254740991)",
        ),
        (
            r#"{"a":1,"b":"\ud800"}"#,
            "invalid arguments: field `b`: a string holds a lone UTF-16 surrogate (e.g. \\ud800), which is not text",
        ),
    ];
    for (i, (args, want)) in cases.iter().enumerate() {
        let id = format!("t{i}");
        let line = format!(r#"{{"type":"tool_call","id":"{id}","name":"add","args":{args}}}"#);
        let r = tool(&mut host, &line, &id).await;
        assert!(r.is_error, "{args}");
        assert_eq!(r.content[0].as_text(), Some(*want), "{args}");
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0, "no handler ran");
    // Whole floats are integers, and reach the handler as integers.
    let r = tool(
        &mut host,
        r#"{"type":"tool_call","id":"w","name":"add","args":{"a":1.0,"b":-0.0}}"#,
        "w",
    )
    .await;
    assert_eq!(
        (r.is_error, r.content[0].as_text()),
        (false, Some(r#"{"a":1,"b":0}"#))
    );
    let r = tool(
        &mut host,
        r#"{"type":"tool_call","id":"m","name":"add","args":{"a":9007199254740991,"b":1e2}}"#,
        "m",
    )
    .await;
    assert_eq!(
        r.content[0].as_text(),
        Some(r#"{"a":9007199254740991,"b":100}"#)
    );
}

/// A command waiting on a `call_tool` when the session ends gets one
/// answer, from the engine, whatever its handler does next (here it would
/// display the failed call; Python's would be cancelled).
#[tokio::test]
async fn a_command_waiting_on_call_tool_at_shutdown_or_eof_gets_one_error() {
    for eof in [false, true] {
        let ext = Extension::new("x", "1").command("callecho", "", |args, ctx| async move {
            let r = ctx
                .call_tool("echo", &serde_json::json!({ "text": args }))
                .await;
            zot_ext::Response::display(format!("handler answered: {}", r.is_ok()))
        });
        let mut host = TestHost::start_with(ext, {
            let mut ack = zot_ext::testing::default_hello_ack();
            ack.capabilities = vec!["call_tool".into()];
            ack
        })
        .await
        .unwrap();
        host.send_json(r#"{"type":"command_invoked","id":"c","name":"callecho","args":"hi"}"#)
            .await
            .unwrap();
        host.expect_call_tool().await.unwrap();
        let rest = if eof {
            host.close_stdin().await.unwrap()
        } else {
            host.shutdown().await.unwrap()
        };
        let replies: Vec<&CommandResponse> = rest
            .iter()
            .filter_map(|f| match f {
                zot_protocol::ExtFrame::CommandResponse(r) => Some(r),
                _ => None,
            })
            .collect();
        let why = if eof {
            "the host closed stdin"
        } else {
            "the host shut down"
        };
        assert_eq!(replies.len(), 1, "{rest:?}");
        assert_eq!(
            (replies[0].action.as_str(), replies[0].error.as_str()),
            (
                "noop",
                format!("cancelled: {why} while call_tool was pending").as_str()
            )
        );
    }
}
