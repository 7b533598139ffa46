//! Dispatch: commands, tools, events, panels, concurrency, failures and
//! robustness (SDK-13..SDK-21, SDK-25, SDK-35..SDK-38, SDK-46, SDK-50,
//! SDK-51, SDK-54, WIRE-4..WIRE-6).

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::json;
use zot_ext::engine::binding::contract::complete_json;
use zot_ext::engine::SchemaOrigin;
use zot_ext::engine::{CommandOutcome, CompleteError, Completion, Job, Outcome, ToolOutcome};
use zot_ext::testing::{default_hello_ack, TestHost};
use zot_ext::{Error, Extension, Response, ToolOutput, ToolSpec};
use zot_protocol::{
    CommandAction, ExtFrame, NotifyLevel, PanelSpec, RawJson, RegisterCommand, RegisterTool,
};

fn slow_and_fast() -> Extension {
    Extension::new("x", "1")
        .tool("slow", "", |_a: serde_json::Value, ctx| async move {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_secs(30)) => ToolOutput::text("slow done"),
                _ = ctx.cancelled() => ToolOutput::text("slow cancelled"),
            }
        })
        .tool("fast", "", |_a: serde_json::Value, _c| async {
            ToolOutput::text("fast")
        })
        .command("cmd", "", |_a, _c| async { Response::display("cmd") })
        .intercept_turn_start(|_t, _c| async { zot_ext::TurnVerdict::Allow })
}

#[tokio::test(start_paused = true)]
async fn a_slow_tool_delays_neither_tools_nor_commands_nor_interceptors() {
    let mut host = TestHost::start(slow_and_fast()).await.unwrap();
    let start = tokio::time::Instant::now();
    let slow = host.start_tool("slow", json!({})).await.unwrap();
    assert_eq!(
        host.tool("fast", json!({})).await.unwrap().content[0].as_text(),
        Some("fast")
    );
    assert_eq!(host.command("cmd", "").await.unwrap().display, "cmd");
    let r = host
        .intercept_json(r#"{"type":"event_intercept","id":"i1","event":"turn_start","step":1}"#)
        .await
        .unwrap();
    assert!(!r.block);
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    let slow_result = host.tool_result(&slow).await.unwrap();
    assert_eq!(slow_result.content[0].as_text(), Some("slow done"));
    assert!(start.elapsed() >= Duration::from_secs(30));
}

#[tokio::test]
async fn command_responses_for_every_action() {
    let ext = Extension::new("x", "1")
        .command("p", "", |a, _c| async move { Response::prompt(a) })
        .command("i", "", |a, _c| async move { Response::insert(a) })
        .command("d", "", |a, _c| async move { Response::display(a) })
        .command("n", "", |_a, _c| async move { Response::noop() })
        .command("e", "", |a, _c| async move { Response::error(a) })
        .command("tp", "", |a, _c| async move {
            Response::tool_prompt("echo", &json!({"text": a}), "go")
        })
        .command("bad_tp", "", |_a, _c| async move {
            Response::tool_prompt("", &json!({}), "go")
        })
        .command("panel", "", |_a, _c| async move {
            Response::open_panel(PanelSpec {
                id: "p1".into(),
                title: "T".into(),
                lines: vec!["a".into()],
                footer: String::new(),
            })
        })
        .command("err", "", |_a, _c| async move {
            Err::<Response, _>(Error::msg("it broke"))
        })
        .command("panics", "", |_a, _c| async move {
            if true {
                panic!("kaboom");
            }
            Response::noop()
        });
    let mut host = TestHost::start(ext).await.unwrap();
    for (name, expected) in [
        (
            "p",
            r#"{"type":"command_response","id":"ID","action":"prompt","prompt":"x y"}"#,
        ),
        (
            "i",
            r#"{"type":"command_response","id":"ID","action":"insert","insert":"x y"}"#,
        ),
        (
            "d",
            r#"{"type":"command_response","id":"ID","action":"display","display":"x y"}"#,
        ),
        (
            "n",
            r#"{"type":"command_response","id":"ID","action":"noop"}"#,
        ),
        (
            "e",
            r#"{"type":"command_response","id":"ID","action":"noop","error":"x y"}"#,
        ),
        (
            "tp",
            r#"{"type":"command_response","id":"ID","action":"tool_prompt","prompt":"go","tool_name":"echo","tool_args":{"text":"x y"}}"#,
        ),
        (
            "bad_tp",
            r#"{"type":"command_response","id":"ID","action":"noop","error":"tool_prompt requires a name and prompt"}"#,
        ),
        (
            "panel",
            r#"{"type":"command_response","id":"ID","action":"open_panel","open_panel":{"id":"p1","title":"T","lines":["a"]}}"#,
        ),
        (
            "err",
            r#"{"type":"command_response","id":"ID","action":"noop","error":"it broke"}"#,
        ),
        (
            "panics",
            r#"{"type":"command_response","id":"ID","action":"noop","error":"kaboom"}"#,
        ),
        (
            "nope",
            r#"{"type":"command_response","id":"ID","action":"noop","error":"no handler for /nope"}"#,
        ),
    ] {
        let r = host.command(name, "x y").await.unwrap();
        let line = serde_json::to_string(&ExtFrame::CommandResponse(r.clone())).unwrap();
        assert_eq!(line, expected.replace("ID", &r.id), "{name}");
    }
    // The extension lives on after the panic.
    assert_eq!(host.command("d", "still").await.unwrap().display, "still");
}

#[tokio::test]
async fn tool_results_errors_panics_and_decode_failures() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Add {
        a: i64,
        b: i64,
    }
    let ext = Extension::new("x", "1")
        .tool("add", "", |a: Add, _c| async move {
            ToolOutput::text(format!("{}", a.a + a.b)).with_structured(&json!({"sum": a.a + a.b}))
        })
        .tool("fails", "", |_a: serde_json::Value, _c| async move {
            Err::<ToolOutput, _>("boom")
        })
        .tool("panics", "", |_a: serde_json::Value, _c| async move {
            if true {
                panic!("boom {}", 2);
            }
            ToolOutput::text("")
        })
        .tool_raw(ToolSpec::new("empty", ""), |_a, _c| async move {
            ToolOutput::blocks(vec![])
        })
        .tool_raw(ToolSpec::new("loader", ""), |_a, _c| async move {
            ToolOutput::text("ok").activate(["lazy"])
        });
    let mut host = TestHost::start(ext).await.unwrap();

    let r = host.tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!((r.content[0].as_text(), r.is_error), (Some("5"), false));
    assert_eq!(r.structured_content.unwrap().get(), r#"{"sum":5}"#);

    let r = host.tool("add", json!({"a": "two", "b": 3})).await.unwrap();
    assert!(r.is_error);
    // Checked by the engine against the schema, before the handler.
    assert_eq!(
        r.content[0].as_text(),
        Some(r#"invalid arguments: field `a`: "two" is not of type "integer""#)
    );
    let r = host.tool("add", json!({"a": 1})).await.unwrap();
    assert!(r.is_error);
    assert_eq!(
        r.content[0].as_text(),
        Some("invalid arguments: missing field `b`")
    );

    let r = host.tool("fails", json!({})).await.unwrap();
    assert_eq!((r.content[0].as_text(), r.is_error), (Some("boom"), true));
    let r = host.tool("panics", json!({})).await.unwrap();
    assert_eq!((r.content[0].as_text(), r.is_error), (Some("boom 2"), true));

    // SDK-25: content is always an array.
    let id = host.start_tool("empty", json!({})).await.unwrap();
    host.tool_result(&id).await.unwrap();
    assert_eq!(
        host.transcript().last().unwrap(),
        &format!(r#"{{"type":"tool_result","id":"{id}","content":[]}}"#)
    );
    let r = host.tool("loader", json!({})).await.unwrap();
    assert_eq!(r.activate_tools, ["lazy"]);

    // SDK-20.
    let r = host.tool("missing", json!({})).await.unwrap();
    assert_eq!(
        (r.content[0].as_text(), r.is_error),
        (Some(r#"no handler for tool "missing""#), true)
    );
    assert!(
        !host
            .tool("add", json!({"a": 1, "b": 1}))
            .await
            .unwrap()
            .is_error
    );
}

#[tokio::test]
async fn events_run_in_arrival_order_one_at_a_time_and_failures_are_logged() {
    let order = Arc::new(Mutex::new(Vec::new()));
    let running = Arc::new(AtomicUsize::new(0));
    let (o1, r1) = (order.clone(), running.clone());
    let (o2, r2) = (order.clone(), running.clone());
    let ext = Extension::new("x", "1")
        .on("turn_start", move |e, _c| {
            let (o, r) = (o1.clone(), r1.clone());
            async move {
                assert_eq!(r.fetch_add(1, Ordering::SeqCst), 0, "events overlap");
                let step = match &e {
                    zot_ext::Event::Known(zot_protocol::LifecycleEvent::TurnStart(t)) => t.step,
                    _ => 0,
                };
                // Yield a few times: a later event must still wait.
                for _ in 0..3 {
                    tokio::task::yield_now().await;
                }
                o.lock().unwrap().push(format!("turn_start {step}"));
                r.fetch_sub(1, Ordering::SeqCst);
            }
        })
        .on("turn_end", move |e, _c| {
            let (o, r) = (o2.clone(), r2.clone());
            async move {
                assert_eq!(r.load(Ordering::SeqCst), 0);
                o.lock().unwrap().push(format!(
                    "{} {}",
                    e.name(),
                    e.to_json().contains("end_turn")
                ));
                Err::<(), _>("event failed")
            }
        });
    let mut host = TestHost::start(ext).await.unwrap();
    for line in [
        r#"{"type":"event","event":"turn_start","step":1,"session_id":"s","sequence":1}"#,
        r#"{"type":"event","event":"session_end","reason":"exit"}"#, // not subscribed
        r#"{"type":"event","event":"turn_end","stop":"end_turn"}"#,
        r#"{"type":"event","event":"turn_start","step":2,"unknown_field":[1,2]}"#,
        r#"{"type":"event","event":"turn_start","step":3}"#,
    ] {
        host.send_json(line).await.unwrap();
    }
    host.shutdown().await.unwrap();
    assert_eq!(
        *order.lock().unwrap(),
        [
            "turn_start 1",
            "turn_end true",
            "turn_start 2",
            "turn_start 3"
        ]
    );
}

#[tokio::test]
async fn panel_keys_are_routed_in_order_and_unknown_panels_ignored() {
    let keys = Arc::new(Mutex::new(Vec::new()));
    let seen = keys.clone();
    let ext = Extension::new("x", "1").command("open", "", move |_a, ctx| {
        let seen = seen.clone();
        async move {
            let h = ctx.ext().clone();
            let seen2 = seen.clone();
            ctx.ext().on_panel_key("p", move |k| {
                seen.lock().unwrap().push(format!("{}{}", k.key, k.text));
                let _ = h.render_lines("p", [k.key.to_string()]);
            });
            ctx.ext()
                .on_panel_close("p", move || seen2.lock().unwrap().push("closed".into()));
            Response::noop()
        }
    });
    let mut host = TestHost::start(ext).await.unwrap();
    host.panel_key("p", "up", "").await.unwrap(); // before any handler: ignored
    host.command("open", "").await.unwrap();
    for k in ["up", "down", "down", "left", "right", "enter", "esc"] {
        host.panel_key("p", k, "").await.unwrap();
    }
    host.panel_key("p", "rune", "q").await.unwrap();
    host.panel_key("other", "up", "").await.unwrap();
    host.send_json(r#"{"type":"panel_resize","panel_id":"p","width":80,"height":24}"#)
        .await
        .unwrap();
    host.panel_close("p").await.unwrap();
    host.panel_key("p", "up", "").await.unwrap(); // after close: ignored
    let frames = host.shutdown().await.unwrap();
    assert_eq!(
        *keys.lock().unwrap(),
        ["up", "down", "down", "left", "right", "enter", "esc", "runeq", "closed"]
    );
    let renders: Vec<String> = frames
        .iter()
        .filter_map(|f| match f {
            ExtFrame::PanelRender(r) => Some(r.lines.join(",")),
            _ => None,
        })
        .collect();
    assert_eq!(
        renders,
        ["up", "down", "down", "left", "right", "enter", "esc", "rune"]
    );
}

/// Panel input queued behind an event handler that is still running is
/// checked against the panel's registration when it runs, not when it is
/// queued: the event handler replaced the key handler meanwhile, so the
/// keys that arrived for the old one are stale and dropped.
#[tokio::test]
async fn panel_input_queued_behind_a_running_event_is_checked_when_it_runs() {
    let keys = Arc::new(Mutex::new(Vec::<String>::new()));
    let keys_read = Arc::new(tokio::sync::Notify::new());
    let (old, new) = (keys.clone(), keys.clone());
    let probe = keys_read.clone();
    let ext = Extension::new("x", "1")
        .on_panel_key("p", move |k| {
            old.lock().unwrap().push(format!("old {}", k.key))
        })
        .tool("probe", "", move |_a: serde_json::Value, _c| {
            let probe = probe.clone();
            async move {
                probe.notify_one();
                ToolOutput::text("read")
            }
        })
        .on("turn_start", move |_e, ctx| {
            let (keys_read, new) = (keys_read.clone(), new.clone());
            async move {
                // The keys sent after this event have been read (and bound
                // to the old handler) once the probe sent after them ran.
                keys_read.notified().await;
                ctx.ext().on_panel_key("p", move |k| {
                    new.lock().unwrap().push(format!("new {}", k.key))
                });
                ctx.notify("replaced", NotifyLevel::Info).unwrap();
            }
        });
    let mut host = TestHost::start(ext).await.unwrap();
    host.send_json(r#"{"type":"event","event":"turn_start","step":1}"#)
        .await
        .unwrap();
    host.panel_key("p", "a", "").await.unwrap();
    host.panel_key("p", "b", "").await.unwrap();
    host.tool("probe", json!({})).await.unwrap();
    host.wait_for(|f| match f {
        ExtFrame::Notify(n) if n.message == "replaced" => Some(()),
        _ => None,
    })
    .await
    .unwrap();
    host.panel_key("p", "c", "").await.unwrap();
    host.shutdown().await.unwrap();
    assert_eq!(*keys.lock().unwrap(), ["new c"]);
}

/// A panel handler registering handlers for its own panel used to wait for
/// the lock it was running under. The session runs on a thread of its own,
/// so that a regression fails the test instead of hanging the suite.
#[test]
fn a_panel_handler_can_register_handlers_for_its_own_panel() {
    async fn session() -> Vec<String> {
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let log = seen.clone();
        let ext = Extension::new("x", "1").command("open", "", move |_a, ctx| {
            let log = log.clone();
            async move {
                let h = ctx.ext().clone();
                ctx.ext().on_panel_key("p", move |k| {
                    log.lock().unwrap().push(format!("first {}", k.key));
                    // From inside the key handler: a close handler, and a
                    // new key handler replacing this one.
                    let (log2, log3) = (log.clone(), log.clone());
                    h.on_panel_close("p", move || log2.lock().unwrap().push("closed".into()));
                    h.on_panel_key("p", move |k| {
                        log3.lock().unwrap().push(format!("second {}", k.key))
                    });
                    let _ = h.render_lines("p", ["registered"]);
                });
                Response::noop()
            }
        });
        let mut host = TestHost::start(ext).await.unwrap();
        host.command("open", "").await.unwrap();
        host.panel_key("p", "up", "").await.unwrap();
        // Rendered once the first key was handled: the next keys arrive for
        // the registration it made.
        host.wait_for(|f| matches!(f, ExtFrame::PanelRender(_)).then_some(()))
            .await
            .unwrap();
        host.panel_key("p", "down", "").await.unwrap();
        host.panel_close("p").await.unwrap();
        host.shutdown().await.unwrap();
        let seen = seen.lock().unwrap().clone();
        seen
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _ = tx.send(rt.block_on(session()));
    });
    let seen = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("a panel handler registering its own panel deadlocked");
    assert_eq!(seen, ["first up", "second down", "closed"]);
}

#[tokio::test]
async fn malformed_unknown_and_oversize_host_lines_are_skipped() {
    let ext =
        Extension::new("x", "1").command("c", "", |a, _c| async move { Response::display(a) });
    let mut host = TestHost::start(ext).await.unwrap();
    host.send_json("this is not json").await.unwrap();
    host.send_json("[1,2,3]").await.unwrap();
    host.send_json(r#"{"no_type":true}"#).await.unwrap();
    host.send_json(r#"{"type":"from_the_future","id":"9"}"#)
        .await
        .unwrap();
    host.send_json(r#"{"type":"command_invoked","id":5}"#)
        .await
        .unwrap(); // wrong field type
    host.send_json("").await.unwrap();
    // A line over 4 MiB is skipped without disconnecting.
    let huge = format!(
        r#"{{"type":"command_invoked","id":"big","name":"c","args":"{}"}}"#,
        "x".repeat(4 * 1024 * 1024)
    );
    host.send_json(&huge).await.unwrap();
    // A line just under the limit is read (SDK-51).
    let fits = format!(
        r#"{{"type":"command_invoked","id":"fits","name":"c","args":"{}","unknown":{{"a":[1]}}}}"#,
        "y".repeat(4 * 1024 * 1024 - 200)
    );
    host.send_json(&fits).await.unwrap();
    let r = host.command_response("fits").await.unwrap();
    assert_eq!(r.display.len(), 4 * 1024 * 1024 - 200);
    assert_eq!(host.command("c", "alive").await.unwrap().display, "alive");
    // Nothing was answered for the skipped lines.
    let frames = host.shutdown().await.unwrap();
    assert_eq!(frames, [ExtFrame::ShutdownAck]);
}

#[tokio::test]
async fn engine_normalizes_outcomes_and_rejects_mismatches() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_command(RegisterCommand {
            name: "c".into(),
            description: String::new(),
        })
        .unwrap();
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    })
    .await;
    host.send_line(r#"{"type":"command_invoked","id":"1","name":"C","args":""}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"command_invoked","id":"2","name":"c","args":""}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"command_invoked","id":"3","name":"c","args":""}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"tool_call","id":"4","name":"t","args":{}}"#)
        .await
        .unwrap();
    let mut ids = Vec::new();
    while ids.len() < 4 {
        for j in jobs(&engine).await {
            match j {
                Job::Command(c) => {
                    assert_eq!(c.name, "c"); // canonical spelling
                    ids.push(c.id)
                }
                Job::Tool(t) => ids.push(t.id),
                other => panic!("{other:?}"),
            }
        }
    }
    // An empty action is sent as noop (SDK-17).
    let batch = format!(r#"[{{"job":{},"command":{{"action":""}}}}]"#, ids[0].0);
    assert_eq!(
        complete_json(&engine, &batch).unwrap(),
        r#"[{"status":"sent"}]"#
    );
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"command_response","id":"1","action":"noop"}"#
    );
    // A tool outcome for a command job: the host still gets an answer.
    assert!(engine
        .complete(ids[1], Outcome::Tool(ToolOutcome::default()))
        .is_err());
    assert!(host
        .recv_line()
        .await
        .unwrap()
        .contains(r#""id":"2","action":"noop","error":"internal error"#));
    // An answer that does not decode fails its job, and is reported; an
    // item that names no job is only reported; the rest of the batch is
    // answered.
    let batch = format!(
        r#"[{{"job":{},"command":{{"action":7}}}},{{"nojob":1}},{{"job":{},"tool":{{"content":[{{"type":"text","text":"ok"}}],"structured_content":{{"b":1,"a":2}}}}}}]"#,
        ids[2].0, ids[3].0
    );
    let answered: Vec<serde_json::Value> =
        serde_json::from_str(&complete_json(&engine, &batch).unwrap()).unwrap();
    assert!(answered[0]["error"]
        .as_str()
        .unwrap()
        .starts_with("invalid answer"));
    assert!(answered[1]["error"]
        .as_str()
        .unwrap()
        .starts_with("invalid answer"));
    assert_eq!(answered[2], json!({"status": "sent"}));
    assert!(host
        .recv_line()
        .await
        .unwrap()
        .contains(r#""id":"3","action":"noop","error":"invalid answer"#));
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"tool_result","id":"4","content":[{"type":"text","text":"ok"}],"structured_content":{"b":1,"a":2}}"#
    );
    // Answering twice: the job is gone.
    assert!(engine
        .complete(ids[3], Outcome::Tool(ToolOutcome::default()))
        .is_err());
    let _ = CommandOutcome {
        action: CommandAction::Noop,
        ..Default::default()
    };
}

#[tokio::test]
async fn notify_and_other_spontaneous_frames_from_handlers_and_handles() {
    let ext = Extension::new("x", "1").command("all", "", |_a, ctx| async move {
        let h = ctx.ext();
        ctx.notify("done", NotifyLevel::Success)?;
        h.clear_notes()?;
        h.submit("next prompt")?;
        h.open_panel(PanelSpec {
            id: "p".into(),
            ..Default::default()
        })?;
        h.render_lines("p", ["a", "b"])?;
        h.close_panel("p")?;
        Ok::<_, Error>(Response::noop())
    });
    let mut host = TestHost::start(ext).await.unwrap();
    host.command("all", "").await.unwrap();
    let lines: Vec<&String> = host.transcript().iter().rev().take(7).rev().collect();
    assert_eq!(
        lines,
        [
            r#"{"type":"notify","level":"success","message":"done"}"#,
            r#"{"type":"clear_notes"}"#,
            r#"{"type":"submit","text":"next prompt"}"#,
            r#"{"type":"open_panel","panel":{"id":"p"}}"#,
            r#"{"type":"panel_render","panel_id":"p","lines":["a","b"]}"#,
            r#"{"type":"panel_close","panel_id":"p"}"#,
            r#"{"type":"command_response","id":"cmd-1","action":"noop"}"#,
        ]
    );
}

#[tokio::test]
async fn the_engine_refuses_to_send_non_spontaneous_frames() {
    let (engine, _host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    assert!(engine.send_json(r#"{"type":"ready"}"#).is_err());
    assert!(engine
        .send_json(r#"{"type":"tool_result","id":"1","content":[]}"#)
        .is_err());
    assert!(engine.send_json("nonsense").is_err());
    engine
        .send_json(r#"{"type":"notify","level":"warn","message":"ok"}"#)
        .unwrap();
}

#[tokio::test]
async fn jobs_convert_to_json_for_bindings() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
        e.subscribe("turn_start").unwrap();
        e.bind_panel("p", 7);
    })
    .await;
    host.send_line(r#"{"type":"tool_call","id":"41","name":"t","args":{"q":"x"}}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"tool_cancel","id":"41"}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"event","event":"turn_start","step":2,"sequence":5}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"panel_key","panel_id":"p","key":"rune","text":"q"}"#)
        .await
        .unwrap();
    let mut out = Vec::new();
    while out.len() < 3 {
        out.extend(jobs(&engine).await.iter().map(|j| j.to_json()));
    }
    // The cancel was read before the job was taken: folded into it.
    assert_eq!(
        out[0],
        r#"{"kind":"tool","id":1,"lane":"concurrent","invocation":"41","name":"t","args":{"q":"x"},"interactive":false,"cancelled":true}"#
    );
    assert_eq!(
        out[1],
        r#"{"kind":"event","id":2,"lane":"serial","name":"turn_start","event":{"type":"event","event":"turn_start","session_id":"","cwd":"","sequence":5,"step":2}}"#
    );
    assert_eq!(
        out[2],
        r#"{"kind":"panel_key","id":3,"lane":"serial","panel_id":"p","key":"rune","text":"q","registration":7}"#
    );
}

#[tokio::test]
async fn a_batch_answers_each_job_by_its_kind_and_replies_together() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.subscribe("turn_start").unwrap();
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    })
    .await;
    host.send_line(r#"{"type":"event","event":"turn_start","step":1}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"event","event":"turn_start","step":2}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"tool_call","id":"9","name":"t","args":{}}"#)
        .await
        .unwrap();
    let (mut events, mut tool) = (Vec::new(), None);
    while events.len() < 2 || tool.is_none() {
        for j in jobs(&engine).await {
            match j {
                Job::Event { id, .. } => events.push(id),
                Job::Tool(t) => tool = Some(t.id),
                other => panic!("{other:?}"),
            }
        }
    }
    let tool = tool.unwrap();
    // A batch: a done for the tool job is refused (and answered as a
    // failure), the events are done; answered twice, they are not open.
    let done = |id: zot_ext::engine::JobId| (id, Outcome::Done);
    let results = engine.complete_all([done(tool), done(events[0]), done(events[1])]);
    assert!(matches!(
        results[0],
        Err(CompleteError::WrongKind {
            expected: "tool",
            ..
        })
    ));
    assert_eq!(results[1..], [Ok(Completion::Done), Ok(Completion::Done)]);
    assert!(engine.is_cancelled(events[0]), "not open any more");
    assert!(matches!(
        engine.complete_all([done(events[0])])[0],
        Err(CompleteError::UnknownJob(_))
    ));
    match recv(&mut host).await {
        ExtFrame::ToolResult(r) => assert!(r.is_error && r.id == "9", "{r:?}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_name_that_is_no_lifecycle_event_fails_the_run_listing_them() {
    let ext = Extension::new("x", "1").on("tool_reslt", |_e, _c| async {});
    let (transport, _host) = zot_ext::engine::Transport::memory();
    let err = ext.run_with(transport).await.unwrap_err().to_string();
    assert!(
        err.contains(r#"unknown event "tool_reslt" (events: session_start, "#),
        "{err}"
    );
}
