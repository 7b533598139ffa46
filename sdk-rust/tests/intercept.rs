//! Interception (§11; SDK-39..SDK-45).

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::*;
use serde_json::json;
use zot_ext::engine::{Completion, DropReason, InterceptOutcome, Job, Outcome};
use zot_ext::testing::{default_hello_ack, TestHost};
use zot_ext::{Error, Extension, MessageVerdict, PromptVerdict, ToolCallVerdict, TurnVerdict};
use zot_protocol::{ExtFrame, RawJson};

fn guard() -> Extension {
    Extension::new("x", "1")
        .intercept_tool_call(|call, _c| async move {
            let cmd: serde_json::Value = call.tool_args.parse().unwrap();
            Ok::<_, Error>(match cmd["command"].as_str().unwrap_or_default() {
                "rm -rf /" => ToolCallVerdict::block("refused: rm -rf"),
                "ls" => ToolCallVerdict::modify(&json!({"command": "echo GUARDED: ls"})),
                "array" => ToolCallVerdict::modify(&json!(["not", "an", "object"])),
                "fail" => return Err(Error::msg("guard broke")),
                "panic" => panic!("guard panicked"),
                _ => ToolCallVerdict::Allow,
            })
        })
        .intercept_turn_start(|t, _c| async move {
            match t.step {
                99.. => TurnVerdict::block("step limit"),
                50 => {
                    tokio::time::sleep(Duration::from_secs(10)).await;
                    TurnVerdict::block("too late")
                }
                _ => TurnVerdict::Allow,
            }
        })
        .intercept_assistant_message(|m, _c| async move {
            match m.text.as_str() {
                "BLOCKME" => MessageVerdict::block("blocked"),
                "same" => MessageVerdict::replace("same"),
                "empty" => MessageVerdict::replace(""),
                t if t.contains("SECRET") => {
                    MessageVerdict::replace(t.replace("SECRET", "[redacted]"))
                }
                _ => MessageVerdict::Allow,
            }
        })
        .intercept_before_agent_start(|r, _c| async move {
            let p = r.system_prompt;
            if p.contains("KEEP") {
                Ok(PromptVerdict::Keep)
            } else if p.contains("REMOVE") {
                Ok(PromptVerdict::remove())
            } else if p.contains("FAIL") {
                Err("hook broke")
            } else {
                Ok(PromptVerdict::replace(format!("{p}\n[x]")))
            }
        })
}

async fn ask(host: &mut TestHost, id: &str, body: &str) -> String {
    let line = format!(r#"{{"type":"event_intercept","id":"{id}",{body}}}"#);
    let r = host.intercept_json(&line).await.unwrap();
    serde_json::to_string(&ExtFrame::EventInterceptResponse(r)).unwrap()
}

#[tokio::test]
async fn tool_call_outcomes() {
    let mut host = TestHost::start(guard()).await.unwrap();
    let tc = |c: &str| {
        format!(
            r#""event":"tool_call","tool_id":"t","tool_name":"bash","tool_args":{{"command":"{c}"}}"#
        )
    };
    assert_eq!(
        ask(&mut host, "1", &tc("rm -rf /")).await,
        r#"{"type":"event_intercept_response","id":"1","block":true,"reason":"refused: rm -rf"}"#
    );
    assert_eq!(
        ask(&mut host, "2", &tc("ls")).await,
        r#"{"type":"event_intercept_response","id":"2","modified_args":{"command":"echo GUARDED: ls"}}"#
    );
    assert_eq!(
        ask(&mut host, "3", &tc("pwd")).await,
        r#"{"type":"event_intercept_response","id":"3"}"#
    );
    // Not an object: ignored (OP-20).
    assert_eq!(
        ask(&mut host, "4", &tc("array")).await,
        r#"{"type":"event_intercept_response","id":"4"}"#
    );
    // A guard that fails must not open the gate (SDK-45); the reason says
    // which interceptor of which extension failed, and how.
    assert_eq!(
        ask(&mut host, "5", &tc("fail")).await,
        r#"{"type":"event_intercept_response","id":"5","block":true,"reason":"blocked: tool_call interceptor of \"x\" failed: Error: guard broke"}"#
    );
    assert_eq!(
        ask(&mut host, "6", &tc("panic")).await,
        r#"{"type":"event_intercept_response","id":"6","block":true,"reason":"blocked: tool_call interceptor of \"x\" failed: panic: guard panicked"}"#
    );
}

#[tokio::test]
async fn a_failed_interceptor_names_the_error_type() {
    let ext = Extension::new("guard", "1")
        .intercept_turn_start(|_t, _c| async { "x".parse::<u8>().map(|_| TurnVerdict::Allow) });
    let mut host = TestHost::start(ext).await.unwrap();
    assert_eq!(
        ask(&mut host, "1", r#""event":"turn_start","step":1"#).await,
        r#"{"type":"event_intercept_response","id":"1","block":true,"reason":"blocked: turn_start interceptor of \"guard\" failed: ParseIntError: invalid digit found in string"}"#
    );
}

#[tokio::test]
async fn turn_start_and_assistant_message_outcomes() {
    let mut host = TestHost::start(guard()).await.unwrap();
    assert_eq!(
        ask(&mut host, "1", r#""event":"turn_start","step":99"#).await,
        r#"{"type":"event_intercept_response","id":"1","block":true,"reason":"step limit"}"#
    );
    assert_eq!(
        ask(&mut host, "2", r#""event":"turn_start","step":3"#).await,
        r#"{"type":"event_intercept_response","id":"2"}"#
    );
    assert_eq!(
        ask(
            &mut host,
            "3",
            r#""event":"assistant_message","text":"BLOCKME""#
        )
        .await,
        r#"{"type":"event_intercept_response","id":"3","block":true,"reason":"blocked"}"#
    );
    assert_eq!(
        ask(
            &mut host,
            "4",
            r#""event":"assistant_message","text":"a SECRET b SECRET""#
        )
        .await,
        r#"{"type":"event_intercept_response","id":"4","replace_text":"a [redacted] b [redacted]"}"#
    );
    // SDK-43: unchanged or empty replacement is no replacement.
    assert_eq!(
        ask(
            &mut host,
            "5",
            r#""event":"assistant_message","text":"same""#
        )
        .await,
        r#"{"type":"event_intercept_response","id":"5"}"#
    );
    assert_eq!(
        ask(
            &mut host,
            "6",
            r#""event":"assistant_message","text":"empty""#
        )
        .await,
        r#"{"type":"event_intercept_response","id":"6"}"#
    );
}

#[tokio::test]
async fn before_agent_start_keep_replace_remove_and_failure_keeps() {
    let mut host = TestHost::start(guard()).await.unwrap();
    let bas = |p: &str| {
        format!(r#""event":"before_agent_start","system_prompt":"{p}","agent_run_id":"r1""#)
    };
    assert_eq!(
        ask(&mut host, "1", &bas("KEEP me")).await,
        r#"{"type":"event_intercept_response","id":"1"}"#
    );
    assert_eq!(
        ask(&mut host, "2", &bas("REMOVE me")).await,
        r#"{"type":"event_intercept_response","system_prompt":"","id":"2"}"#
    );
    assert_eq!(
        ask(&mut host, "3", &bas("base")).await,
        r#"{"type":"event_intercept_response","system_prompt":"base\n[x]","id":"3"}"#
    );
    // A failing prompt hook keeps the prompt (no block, no system_prompt).
    assert_eq!(
        ask(&mut host, "4", &bas("FAIL")).await,
        r#"{"type":"event_intercept_response","id":"4","reason":"prompt kept: before_agent_start interceptor of \"x\" failed: Error: hook broke"}"#
    );
}

#[tokio::test]
async fn requests_without_handler_or_with_unknown_events_are_allowed() {
    let mut host = TestHost::start(Extension::new("x", "1")).await.unwrap();
    assert_eq!(
        ask(&mut host, "1", r#""event":"turn_start","step":1"#).await,
        r#"{"type":"event_intercept_response","id":"1"}"#
    );
    assert_eq!(
        ask(&mut host, "2", r#""event":"from_the_future","x":1"#).await,
        r#"{"type":"event_intercept_response","id":"2"}"#
    );
}

#[tokio::test(start_paused = true)]
async fn a_late_answer_is_dropped_and_the_handler_is_cancelled() {
    let mut host = TestHost::start(guard()).await.unwrap();
    host.send_json(r#"{"type":"event_intercept","id":"slow","event":"turn_start","step":50}"#)
        .await
        .unwrap();
    // Meanwhile other requests are answered.
    assert_eq!(
        ask(&mut host, "fast", r#""event":"turn_start","step":1"#).await,
        r#"{"type":"event_intercept_response","id":"fast"}"#
    );
    tokio::time::sleep(Duration::from_secs(11)).await;
    // The answer came after the 5 s deadline: nothing was sent for it.
    assert_eq!(host.shutdown().await.unwrap(), [ExtFrame::ShutdownAck]);
    assert!(!host
        .transcript()
        .iter()
        .any(|l| l.contains(r#""id":"slow""#)));
}

#[tokio::test(start_paused = true)]
async fn engine_expiry_cancels_the_job_and_drops_the_answer() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.intercept("turn_start").unwrap()
    })
    .await;
    host.send_line(r#"{"type":"event_intercept","id":"i","event":"turn_start","step":1}"#)
        .await
        .unwrap();
    let Job::Intercept(job) = jobs(&engine).await.remove(0) else {
        panic!()
    };
    let token = engine.cancel_token(job.id);
    let start = tokio::time::Instant::now();
    token.cancelled().await;
    assert_eq!(start.elapsed(), Duration::from_secs(5));
    assert!(matches!(jobs(&engine).await.as_slice(), [Job::Cancel { id }] if *id == job.id));
    let block = InterceptOutcome {
        block: true,
        ..Default::default()
    };
    assert_eq!(
        engine.complete(job.id, Outcome::Intercept(block)).unwrap(),
        Completion::Dropped(DropReason::Expired)
    );
    assert_eq!(host.try_recv_line(), None);
}

#[tokio::test]
async fn engine_applies_the_field_rules_per_event() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        for ev in [
            "tool_call",
            "turn_start",
            "assistant_message",
            "before_agent_start",
        ] {
            e.intercept(ev).unwrap();
        }
    })
    .await;
    for line in [
        r#"{"type":"event_intercept","id":"a","event":"tool_call","tool_name":"x","tool_args":{}}"#,
        r#"{"type":"event_intercept","id":"b","event":"turn_start","step":1}"#,
        r#"{"type":"event_intercept","id":"c","event":"assistant_message","text":"t"}"#,
        r#"{"type":"event_intercept","id":"d","event":"before_agent_start","system_prompt":"p"}"#,
        r#"{"type":"event_intercept","id":"e","event":"before_agent_start","system_prompt":"p"}"#,
    ] {
        host.send_line(line).await.unwrap();
    }
    let mut ids = Vec::new();
    while ids.len() < 5 {
        for j in jobs(&engine).await {
            let Job::Intercept(i) = j else { panic!() };
            ids.push(i.id);
        }
    }
    let everything = InterceptOutcome {
        block: true,
        reason: "r".into(),
        modified_args: Some(RawJson::from_value(&json!({"a": 1})).unwrap()),
        replace_text: Some("new".into()),
        system_prompt: Some("sp".into()),
    };
    for id in &ids[..4] {
        engine
            .complete(*id, Outcome::Intercept(everything.clone()))
            .unwrap();
    }
    // before_agent_start cannot block: a block without a prompt keeps it.
    engine
        .complete(
            ids[4],
            Outcome::Intercept(InterceptOutcome {
                block: true,
                ..InterceptOutcome::default()
            }),
        )
        .unwrap();
    let lines: Vec<String> = std::iter::from_fn(|| host.try_recv_line()).collect();
    assert_eq!(
        lines,
        [
            // Blocking: modified_args and replace_text are not sent (SDK-42/43).
            r#"{"type":"event_intercept_response","id":"a","block":true,"reason":"r"}"#,
            r#"{"type":"event_intercept_response","id":"b","block":true,"reason":"r"}"#,
            r#"{"type":"event_intercept_response","id":"c","block":true,"reason":"r"}"#,
            // A response with both applies the prompt and drops `block`.
            r#"{"type":"event_intercept_response","system_prompt":"sp","id":"d","reason":"r"}"#,
            r#"{"type":"event_intercept_response","id":"e"}"#,
        ]
    );
}

/// N-21 (SDK side): a replacement prompt is sent only while its JSON
/// encoding fits in 1 MiB; escapes count as the bytes they take on the wire.
#[tokio::test]
async fn a_replacement_prompt_over_one_mib_encoded_is_not_sent() {
    use zot_protocol::limits::MAX_SYSTEM_PROMPT_BYTES as MAX;
    // The request names the replacement: `<char> <count>`.
    let ext = Extension::new("x", "1").intercept_before_agent_start(|r, _c| async move {
        let (ch, n) = r.system_prompt.split_once(' ').unwrap();
        PromptVerdict::replace(ch.repeat(n.parse().unwrap()))
    });
    let mut host = TestHost::start(ext).await.unwrap();
    async fn sent(host: &mut TestHost, id: &str, ch: &str, n: usize) -> Option<usize> {
        let line = format!(
            r#"{{"type":"event_intercept","id":"{id}","event":"before_agent_start","system_prompt":{}}}"#,
            serde_json::to_string(&format!("{ch} {n}")).unwrap()
        );
        let r = host.intercept_json(&line).await.unwrap();
        r.system_prompt.flatten().map(|p| p.len())
    }
    // Plain text: the two quotes count.
    assert_eq!(sent(&mut host, "1", "a", MAX - 2).await, Some(MAX - 2));
    assert_eq!(sent(&mut host, "2", "a", MAX - 1).await, None);
    // `"` is written `\"`: two bytes each.
    let quotes = (MAX - 2) / 2;
    assert_eq!(sent(&mut host, "3", "\"", quotes).await, Some(quotes));
    assert_eq!(sent(&mut host, "4", "\"", quotes + 1).await, None);
    host.shutdown().await.unwrap();
}
