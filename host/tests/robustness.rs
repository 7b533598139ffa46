//! Deadlines, cancellation, crashes, back-pressure and shutdown escalation.

mod common;

use common::*;
use serde_json::json;

fn call(name: &str, args: serde_json::Value) -> serde_json::Value {
    json!({"name": name, "args": args})
}

#[tokio::test(flavor = "multi_thread")]
async fn hanging_tool_times_out_and_tool_cancel_goes_only_to_opted_in() {
    let env = Env::new();
    let modern = env.ext("modern", json!({"on_ack": [tool("hang"), ready()]}));
    let legacy = env.ext(
        "legacy",
        json!({
            "hello": {"type": "hello", "name": "legacy", "version": "0", "capabilities": ["tools"]},
            "on_ack": [tool("hang2"), ready()]
        }),
    );
    let r = env.run(&[modern, legacy], json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 800}, "steps": [
        {"prompt": "go", "replies": [{"tool_calls": [call("hang", json!({})), call("hang2", json!({}))]}, {"text": "done"}]}
    ]})).await;
    let res = r.tool_results();
    assert_eq!(res.len(), 2);
    for x in &res {
        assert_eq!(x["status"], "timed_out", "{x}");
        assert!(x["text"].as_str().unwrap().contains("failed: timed out"));
    }
    let call_id = &r.sent("modern", "tool_call")[0]["id"];
    let cancels = r.sent("modern", "tool_cancel");
    assert_eq!(cancels.len(), 1);
    assert_eq!(&cancels[0]["id"], call_id);
    assert!(r.sent("legacy", "tool_cancel").is_empty(), "HOST-77");
    assert!(r.text().contains("done"), "the loop goes on");
}

#[tokio::test(flavor = "multi_thread")]
async fn late_result_is_discarded() {
    let env = Env::new();
    let a = env.ext("slow", json!({
        "on_ack": [tool("slow"), ready()],
        "on": {"tool_call:slow": [{"async": [{"sleep": 1.2}, {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "late"}]}}]}]}
    }));
    let r = env
        .run(
            &[a],
            json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 300}, "steps": [
                {"prompt": "go", "replies": [{"tool_calls": [call("slow", json!({}))]}]},
                {"wait": {"type": "tool_result", "timeout_ms": 5000}}
            ]}),
        )
        .await;
    assert_eq!(r.tool_results()[0]["status"], "timed_out");
    assert!(
        !r.text().contains("\"late\""),
        "late result never reaches the transcript"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn command_timeout_is_a_status_error() {
    let env = Env::new();
    let a = env.ext(
        "mute",
        json!({"on_ack": [cmd("wait"), ready()], "on": {"command_invoked:wait": []}}),
    );
    let r = env
        .run(
            &[a],
            json!({"timeouts": {"command_ms": 500}, "steps": [{"command": "/wait"}]}),
        )
        .await;
    assert!(r
        .text()
        .contains("extension /wait: timeout waiting for mute/wait"));
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_after_delivery_sends_tool_cancel_and_waits_for_cleanup_frame() {
    let env = Env::new();
    let a = env.ext("sleepy", json!({
        "on_ack": [tool("sleep"), ready()],
        "on": {"tool_call:sleep": [], "tool_cancel": [{"send": {"type": "notify", "level": "warn", "message": "cancelled {in.id}"}}]}
    }));
    let r = env
        .run(
            &[a],
            json!({"confirm": "yolo", "steps": [
                {"prompt": "go", "replies": [{"tool_calls": [{"name": "sleep", "args": {"ms": 5000},
                    "cancel": {"on": "delivered", "then_wait": {"type": "notify"}}}]}]}
            ]}),
        )
        .await;
    assert_eq!(r.tool_results()[0]["status"], "cancelled");
    let id = r.sent("sleepy", "tool_call")[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(r.sent("sleepy", "tool_cancel")[0]["id"], id.as_str());
    // The host records the cancelled result before it sends `tool_cancel`,
    // so the extension's reaction (its note) always comes after it.
    let idx_note = r.obs.iter().position(|o| o["kind"] == "note").unwrap();
    let idx_res = r
        .obs
        .iter()
        .position(|o| o["kind"] == "tool_result")
        .unwrap();
    assert!(idx_res < idx_note, "{:#?}", r.obs);
    // Cancelled before start: nothing written at all.
    let r = env.run(&[env.tmp.path().join("exts/sleepy")], json!({"confirm": "yolo", "steps": [
        {"prompt": "go", "replies": [{"tool_calls": [{"name": "sleep", "args": {}, "cancel": {"on": "before"}}]}]}
    ]})).await;
    assert_eq!(r.tool_results()[0]["status"], "cancelled");
    assert!(r.sent("sleepy", "tool_call").is_empty());
    assert!(r.sent("sleepy", "tool_cancel").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_mid_call_fails_the_pending_call_and_others_go_on() {
    let env = Env::new();
    let bad = env.ext("fragile", json!({"on_ack": [tool("crash"), cmd("f"), ready()], "on": {"tool_call:crash": [{"exit": 1}]}}));
    let good = env.ext("sturdy", json!({"on_ack": [tool("fine"), ready()], "on": {"tool_call:fine": text_result("still fine")}}));
    let r = env.run(&[bad, good], json!({"confirm": "yolo", "steps": [
        {"prompt": "go", "replies": [{"tool_calls": [call("crash", json!({})), call("fine", json!({}))]}, {"text": "ok"}]},
        {"command": "/f"}
    ]})).await;
    let res = r.tool_results();
    assert_eq!(res[0]["status"], "failed", "{:?}", r.obs);
    assert!(
        res[0]["text"]
            .as_str()
            .unwrap()
            .contains("extension fragile disconnected"),
        "{}",
        res[0]
    );
    assert_eq!(res[1]["status"], "completed");
    assert_eq!(res[1]["text"], "still fine");
    let d = r.kinds("disconnected");
    assert_eq!(d[0]["ext"], "fragile");
    assert!(d[0]["log"].as_str().unwrap().ends_with("ext-fragile.log"));
    assert!(
        r.text().contains("unknown command /f"),
        "commands removed from dispatch"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn slow_reader_overflows_its_queue_and_is_disconnected() {
    let mut env = Env::new();
    env.queue = Some(zot_host::QueueLimits {
        frames: 8,
        bytes: 64 * 1024,
    });
    let slow = env.ext("slow", json!({
        "on_ack": [{"send": {"type": "subscribe", "events": ["tool_result", "turn_start", "turn_end", "tool_call", "permission_decision"]}}, ready(), {"write_pid": "../../slow.pid"}, {"stop_reading": true}]
    }));
    // Big tool results fill the pipe, then the queue.
    let calls: Vec<_> = (0..12)
        .map(|_| {
            call(
                "bash",
                json!({"command": "head -c 100000 /dev/zero | tr '\\0' x"}),
            )
        })
        .collect();
    let r = env
        .run(
            &[slow],
            json!({"confirm": "yolo", "steps": [
                {"prompt": "go", "replies": [{"tool_calls": calls}]}
            ]}),
        )
        .await;
    let d = r.kinds("disconnected");
    assert_eq!(d.len(), 1, "{:?}", r.kinds("disconnected"));
    assert!(
        d[0]["reason"]
            .as_str()
            .unwrap()
            .contains("outbound queue overflow"),
        "{}",
        d[0]
    );
    assert_eq!(r.tool_results().len(), 12, "the host goes on");
    // The disconnected process does not outlive the host run.
    assert_gone(&env.tmp.path().join("slow.pid"));
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_escalates_to_sigkill_and_reaps() {
    let env = Env::new();
    let pidfile = env.tmp.path().join("stubborn.pid");
    let a = env.ext("stubborn", json!({
        "on_ack": [{"ignore_term": true}, {"write_pid": pidfile.display().to_string()}, ready()],
        "on": {"shutdown": [{"hang": true}]},
        "on_eof": [{"hang": true}]
    }));
    let r = env.run(&[a], json!({"timeouts": {"shutdown_grace_ms": 300, "sigterm_to_sigkill_ms": 300}, "steps": []})).await;
    assert_eq!(r.sent("stubborn", "shutdown").len(), 1);
    let log = env.log("stubborn");
    assert!(log.contains("sending SIGTERM"), "{log}");
    assert!(log.contains("sending SIGKILL"), "{log}");
    assert!(log.contains("exited: signal: killed"), "{log}");
    let exited = r.kinds("exited");
    assert_eq!(exited[0]["escalated"], "SIGKILL");
    // Reaped: the pid no longer exists (no zombie).
    assert_gone(&pidfile);
}

#[tokio::test(flavor = "multi_thread")]
async fn shutdown_drains_session_end_before_shutdown() {
    let env = Env::new();
    let a = env.ext("obs", json!({"on_ack": [{"send": {"type": "subscribe", "events": ["session_start", "session_end"]}}, ready()]}));
    let r = env.run(&[a], json!({"steps": []})).await;
    let sent: Vec<String> = r
        .frames("obs", "host->ext")
        .iter()
        .map(|f| {
            format!(
                "{}{}",
                f["type"].as_str().unwrap(),
                f["event"]
                    .as_str()
                    .map(|e| format!(":{e}"))
                    .unwrap_or_default()
            )
        })
        .collect();
    assert_eq!(
        sent,
        vec![
            "hello_ack",
            "event:session_start",
            "event:session_end",
            "shutdown"
        ]
    );
    assert_eq!(r.sent("obs", "event")[1]["reason"], "shutdown");
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelled_frame_stuck_mid_write_closes_the_transport() {
    let env = Env::new();
    let a = env.ext(
        "deaf",
        json!({"on_ack": [tool("t"), ready(), {"stop_reading": true}]}),
    );
    let big = "z".repeat(1024 * 1024);
    let r = env
        .run(
            &[a],
            json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 800}, "steps": [
                {"prompt": "go", "replies": [{"tool_calls": [call("t", json!({"blob": big}))]}]}
            ]}),
        )
        .await;
    assert_eq!(r.tool_results()[0]["status"], "timed_out");
    let d = r.kinds("disconnected");
    assert_eq!(d.len(), 1);
    assert!(
        d[0]["reason"]
            .as_str()
            .unwrap()
            .contains("could not be withdrawn mid-write"),
        "{}",
        d[0]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn blocked_request_write_disconnects_after_the_write_bound() {
    let env = Env::new();
    let a = env.ext(
        "deaf",
        json!({"on_ack": [cmd("c"), ready(), {"stop_reading": true}]}),
    );
    let big = "z".repeat(1024 * 1024);
    let r = env
        .run(
            &[a],
            json!({"timeouts": {"write_ms": 300, "command_ms": 10000}, "steps": [
                {"command": format!("/c {big}")}
            ]}),
        )
        .await;
    assert!(r.text().contains("extension /c: write: timed out"));
    let d = r.kinds("disconnected");
    assert!(
        d[0]["reason"].as_str().unwrap().contains("write timed out"),
        "{}",
        d[0]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn reload_restarts_extensions_and_keeps_the_session_and_sequence() {
    let env = Env::new();
    let a = env.ext("re", json!({
        "on_ack": [cmd("hi"), {"send": {"type": "subscribe", "events": ["turn_start", "session_start", "session_end"]}}, ready()],
        "on": {"command_invoked:hi": display("hi")}
    }));
    let r = env
        .run(
            &[a],
            json!({"steps": [
                {"prompt": "1", "replies": [{"text": "a"}]},
                {"reload": true},
                {"command": "/hi"},
                {"prompt": "2", "replies": [{"text": "b"}]}
            ]}),
        )
        .await;
    let rl = &r.kinds("reload")[0];
    assert_eq!(
        (
            rl["stopped"].as_u64(),
            rl["loaded"].as_u64(),
            rl["errors"].as_u64()
        ),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(r.received("re", "hello").len(), 2);
    assert_eq!(r.sent("re", "shutdown").len(), 2);
    assert!(r.text().contains("\"hi\""));
    // No session events on reload; the sequence goes on.
    assert_eq!(
        r.events("re"),
        vec!["session_start", "turn_start", "turn_start", "session_end"]
    );
    let seqs: Vec<u64> = r
        .sent("re", "event")
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert_eq!(
        r.kinds("system_prompt").len(),
        2,
        "reload re-runs before_agent_start"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn ending_by_eof_sends_no_shutdown_and_reports_the_exit() {
    let env = Env::new();
    let a = env.ext("eofer", json!({"on_ack": [ready()]}));
    let r = env.run(&[a], json!({"end": "eof", "steps": []})).await;
    assert!(r.sent("eofer", "shutdown").is_empty());
    let exited = r.kinds("exited");
    assert_eq!(exited.len(), 1);
    assert_eq!(exited[0]["ext"], "eofer");
    assert_eq!(exited[0]["status"], "exit status 0");
    assert!(exited[0].get("escalated").is_none());
}

// N-9 / HOST-67: writing a `tool_call` is bounded by the write bound, not by
// the (longer) tool reply deadline: an extension that stops reading cannot
// take ~1 MiB of arguments, so the write times out and disconnects it.
#[tokio::test(flavor = "multi_thread")]
async fn blocked_tool_call_write_disconnects_after_the_write_bound() {
    let env = Env::new();
    let a = env.ext(
        "deaf",
        json!({"on_ack": [tool("t"), cmd("c"), ready(), {"stop_reading": true}]}),
    );
    let big = "z".repeat(1024 * 1024);
    let r = env
        .run(
            &[a],
            json!({"confirm": "yolo", "timeouts": {"write_ms": 300, "tool_reply_ms": 60000, "shutdown_grace_ms": 300}, "steps": [
                {"prompt": "go", "replies": [{"tool_calls": [call("t", json!({"blob": big}))]}, {"text": "after"}]},
                {"command": "/c"}
            ]}),
        )
        .await;
    let res = r.tool_results();
    assert_eq!(res.len(), 1);
    assert_eq!(res[0]["status"], "failed", "{}", res[0]);
    assert_eq!(res[0]["text"], "extension deaf/t failed: write timed out");
    let d = r.kinds("disconnected");
    assert_eq!(d.len(), 1, "{:?}", r.obs);
    assert_eq!(d[0]["ext"], "deaf");
    assert!(
        d[0]["reason"]
            .as_str()
            .unwrap()
            .contains("tool_call write timed out"),
        "{}",
        d[0]
    );
    assert!(r.text().contains("after"), "the loop goes on");
    assert!(
        r.text().contains("unknown command /c"),
        "the disconnected extension's commands are gone"
    );
}

/// A spec whose first process hangs on `shutdown` (and, with `ignore_term`,
/// also ignores SIGTERM); the process started by the reload behaves.
fn stubborn_once(ignore_term: bool) -> serde_json::Value {
    let mut first = vec![];
    if ignore_term {
        first.push(json!({"ignore_term": true}));
    }
    json!({
        "on_ack": [{"once": "first-ack", "do": first}, cmd("hi"), ready()],
        "on": {
            "shutdown": [{"once": "first-shutdown", "do": [{"hang": true}]},
                         {"send": {"type": "shutdown_ack"}}, {"exit": 0}],
            "command_invoked:hi": [{"send": {"type": "command_response", "id": "$in.id", "action": "display", "display": "hi from {in.id}"}}]
        }
    })
}

// N-16 / HOST-172 (stop grace, with N-13): `/reload-ext` stops the old set
// with the shutdown procedure. Processes that ignore `shutdown` get SIGTERM
// once the (shortened) stop grace is spent, and SIGKILL if they ignore that
// too; both are reaped, and the reload completes with the new processes.
#[tokio::test(flavor = "multi_thread")]
async fn reload_escalates_stubborn_extensions_and_completes() {
    let env = Env::new();
    let term = env.ext("term", stubborn_once(false));
    let kill = env.ext("kill", stubborn_once(true));
    let r = env
        .run(
            &[term, kill],
            json!({"timeouts": {"shutdown_grace_ms": 300, "sigterm_to_sigkill_ms": 300}, "steps": [
                {"reload": true},
                {"command": "/hi"}
            ]}),
        )
        .await;
    assert_eq!(r.failures, 0, "{:?}", r.obs);
    let seq: Vec<String> = r
        .obs
        .iter()
        .filter_map(|o| match o["kind"].as_str().unwrap() {
            "exited" => Some(format!(
                "exited {} {} {}",
                o["ext"].as_str().unwrap(),
                o["status"].as_str().unwrap(),
                o["escalated"].as_str().unwrap_or("-")
            )),
            "reload" => Some(format!(
                "reload stopped={} loaded={} ready={} errors={}",
                o["stopped"], o["loaded"], o["ready"], o["errors"]
            )),
            "display" => Some(format!("display {}", o["text"].as_str().unwrap())),
            _ => None,
        })
        .collect();
    let hi_id = r.received("term", "command_response")[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        seq,
        vec![
            "exited term signal: terminated SIGTERM".to_owned(),
            "exited kill signal: killed SIGKILL".to_owned(),
            "reload stopped=2 loaded=2 ready=2 errors=0".to_owned(),
            format!("display hi from {hi_id}"),
            "exited term exit status 0 -".to_owned(),
            "exited kill exit status 0 -".to_owned(),
        ],
        "{:?}",
        r.obs
    );
    assert_eq!(r.received("term", "hello").len(), 2);
    assert_eq!(r.received("kill", "hello").len(), 2);
    let log = env.log("kill");
    assert!(
        log.contains("did not exit in time; sending SIGTERM"),
        "{log}"
    );
    assert!(log.contains("still running; sending SIGKILL"), "{log}");
    let log = env.log("term");
    assert!(
        log.contains("did not exit in time; sending SIGTERM"),
        "{log}"
    );
    assert!(!log.contains("sending SIGKILL"), "{log}");
}

// N-16 / HOST-172 (readiness wait, with HOST-32): after `/reload-ext` the
// host waits for readiness again, but not for ever: a process that never
// sends `ready` after the reload (the first one did) is marked after the
// (shortened) readiness grace and the session proceeds with it. The idle
// window is stretched so that the auto-ready rule (N-17) cannot fire instead.
#[tokio::test(flavor = "multi_thread")]
async fn reload_gives_up_on_an_extension_that_never_gets_ready() {
    let env = Env::new();
    let a = env.ext(
        "lagging",
        json!({
            "on_ack": [cmd("hi"), {"once": "readied", "do": [ready()]}],
            "on": {"command_invoked:hi": [{"send": {"type": "command_response", "id": "$in.id", "action": "display", "display": "hi {in.id}"}}]}
        }),
    );
    let r = env
        .run(
            &[a],
            json!({"timeouts": {"ready_grace_ms": 300, "auto_ready_idle_ms": 60_000}, "steps": [
                {"command": "/hi"},
                {"reload": true},
                {"command": "/hi"},
                {"prompt": "go on", "replies": [{"text": "still here"}]}
            ]}),
        )
        .await;
    assert_eq!(r.failures, 0, "{:?}", r.obs);
    assert_eq!(r.received("lagging", "hello").len(), 2);
    assert_eq!(
        r.received("lagging", "ready").len(),
        1,
        "only before the reload"
    );
    let seq: Vec<String> = r
        .obs
        .iter()
        .filter_map(|o| match o["kind"].as_str().unwrap() {
            "diagnostic" => Some(format!("diagnostic {}", o["message"].as_str().unwrap())),
            "reload" => Some(format!(
                "reload stopped={} loaded={} ready={} errors={}",
                o["stopped"], o["loaded"], o["ready"], o["errors"]
            )),
            "display" => Some("display".to_owned()),
            "assistant" => Some(format!("assistant {}", o["text"].as_str().unwrap())),
            _ => None,
        })
        .collect();
    assert_eq!(
        seq,
        vec![
            "display",
            "diagnostic timed out waiting for ready frame",
            "reload stopped=1 loaded=1 ready=0 errors=0",
            "display",
            "assistant still here"
        ],
        "{:?}",
        r.obs
    );
    let log = env.log("lagging");
    assert_eq!(
        log.matches("timed out waiting for ready frame; proceeding")
            .count(),
        1,
        "{log}"
    );
    assert!(!log.contains("auto-readying after idle"), "{log}");
}

// N-12 / HOST-170 (with N-13): the shutdown grace is one deadline shared by
// all extensions, not one grace after another. Two extensions ignore
// `shutdown` and SIGTERM; when SIGTERM arrives, each checks whether the
// other is still running. With a shared deadline both are signalled while
// the other still runs (SIGKILL only follows a long SIGTERM wait); with
// sequential graces the second would only be signalled after the first was
// killed and reaped. Both end up killed and reaped.
#[tokio::test(flavor = "multi_thread")]
async fn shutdown_grace_is_one_deadline_shared_by_all_extensions() {
    let env = Env::new();
    let pid = |n: &str| env.tmp.path().join(format!("{n}.pid"));
    let spec = |me: &str, peer: &str| {
        json!({
            "on_ack": [
                {"write_pid": pid(me).display().to_string()},
                {"on_term": [{"peer_status": pid(peer).display().to_string()}]},
                ready()
            ],
            "on": {"shutdown": [{"hang": true}]}
        })
    };
    let a = env.ext("one", spec("one", "two"));
    let b = env.ext("two", spec("two", "one"));
    let r = env
        .run(
            &[a, b],
            json!({"timeouts": {"shutdown_grace_ms": 300, "sigterm_to_sigkill_ms": 3000}, "steps": []}),
        )
        .await;
    for (me, peer) in [("one", "two"), ("two", "one")] {
        let log = env.log(me);
        let term = log
            .find("[zot] did not exit in time; sending SIGTERM")
            .unwrap_or_else(|| panic!("{me} got SIGTERM: {log}"));
        let seen = log
            .find("peer alive")
            .unwrap_or_else(|| panic!("{me} was signalled while {peer} still ran: {log}"));
        let kill = log
            .find("[zot] still running; sending SIGKILL")
            .unwrap_or_else(|| panic!("{me} got SIGKILL: {log}"));
        assert!(term < seen && seen < kill, "{log}");
        assert!(!log.contains("peer gone"), "{log}");
        let p: i32 = std::fs::read_to_string(pid(me))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            // SAFETY: signal 0 only asks whether the process exists.
            unsafe { libc::kill(p, 0) } != 0,
            "{me} ({p}) still exists (not reaped)"
        );
    }
    let exited: Vec<(&str, &str, &str)> = r
        .kinds("exited")
        .iter()
        .map(|e| {
            (
                e["ext"].as_str().unwrap(),
                e["status"].as_str().unwrap(),
                e["escalated"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        exited,
        vec![
            ("one", "signal: killed", "SIGKILL"),
            ("two", "signal: killed", "SIGKILL")
        ]
    );
}

// N-14 (with N-12): once the shared grace is spent, each extension still
// gets the minimum exit wait before SIGTERM. The grace is 0, so it is spent
// before the host starts waiting for any process, and the minimum wait is
// stretched far beyond what exiting takes: two extensions that exit on
// `shutdown` both exit by themselves, without a signal.
#[tokio::test(flavor = "multi_thread")]
async fn minimum_exit_wait_applies_once_the_shared_grace_is_spent() {
    let mut env = Env::new();
    env.timeouts.min_exit_wait = std::time::Duration::from_secs(30);
    let a = env.ext("one", json!({"on_ack": [ready()]}));
    let b = env.ext("two", json!({"on_ack": [ready()]}));
    let r = env
        .run(
            &[a, b],
            json!({"timeouts": {"shutdown_grace_ms": 0}, "steps": []}),
        )
        .await;
    let exited: Vec<(&str, &str, Option<&str>)> = r
        .kinds("exited")
        .iter()
        .map(|e| {
            (
                e["ext"].as_str().unwrap(),
                e["status"].as_str().unwrap(),
                e["escalated"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        exited,
        vec![
            ("one", "exit status 0", None),
            ("two", "exit status 0", None)
        ],
        "{:?}",
        r.obs
    );
    for n in ["one", "two"] {
        let log = env.log(n);
        assert!(!log.contains("sending SIGTERM"), "{log}");
    }
}
