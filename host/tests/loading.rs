//! Discovery, manifest, spawn, handshake, readiness, robustness of the read loop.

mod common;

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn handshake_success_hello_ack_fields_and_log_marker() {
    let env = Env::new();
    let a = env.ext(
        "alpha",
        json!({
            "on_ack": [cmd("hi"), {"stderr": "alpha started"}, ready()],
            "on": {"command_invoked:hi": display("hello there")}
        }),
    );
    let r = env
        .run(
            std::slice::from_ref(&a),
            json!({"steps": [{"command": "/hi"}]}),
        )
        .await;
    let from = r.frames("alpha", "ext->host");
    assert_eq!(from[0]["type"], "hello", "hello comes first");
    let ack = r.sent("alpha", "hello_ack");
    assert_eq!(ack.len(), 1);
    let ack = ack[0];
    assert_eq!(ack["protocol_version"], 1);
    assert_eq!(ack["capabilities"], json!(["call_tool"]));
    assert_eq!(ack["cwd"], env.cwd.display().to_string());
    assert_eq!(ack["extension_dir"], a.display().to_string());
    assert_eq!(ack["data_dir"], a.display().to_string());
    assert_eq!(r.frames("alpha", "host->ext")[0]["type"], "hello_ack");
    assert!(r.text().contains("hello there"));
    let log = env.log("alpha");
    assert!(log.contains("[zot] starting alpha/1.0.0 at "), "{log}");
    assert!(log.contains("alpha started"), "stderr is appended: {log}");
    // Shutdown: shutdown written, ack read (the fixture answers).
    assert_eq!(r.sent("alpha", "shutdown").len(), 1);
    assert_eq!(r.received("alpha", "shutdown_ack").len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn crash_before_hello_reports_exit_status_and_log_and_others_load() {
    let env = Env::new();
    let bad = env.ext(
        "crasher",
        json!({"before_hello": [{"stderr": "boom"}, {"exit": 3}]}),
    );
    let good = env.ext(
        "good",
        json!({"on_ack": [cmd("ok"), ready()], "on": {"command_invoked:ok": display("fine")}}),
    );
    let r = env
        .run(&[bad, good], json!({"steps": [{"command": "/ok"}]}))
        .await;
    let errs = r.kinds("load_error");
    assert_eq!(errs.len(), 1);
    let msg = errs[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("extension exited before hello: exit status 3"),
        "{msg}"
    );
    assert!(msg.contains("ext-crasher.log"), "{msg}");
    assert!(
        msg.contains("exec: python3") && msg.contains("language: python"),
        "{msg}"
    );
    assert!(
        r.text().contains("fine"),
        "HOST-18: the other extension still works"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn first_frame_not_hello_fails_the_load() {
    let env = Env::new();
    let bad = env.ext("early", json!({"hello": {"type": "ready"}}));
    let r = env.run(&[bad], json!({"steps": []})).await;
    let msg = r.kinds("load_error")[0]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        msg.contains("expected hello as the first frame, got \"ready\""),
        "{msg}"
    );
    assert!(msg.contains("log: "), "{msg}");
}

#[tokio::test(flavor = "multi_thread")]
async fn silent_extension_hits_the_hello_bound() {
    let env = Env::new();
    let bad = env.ext("silent", json!({"before_hello": [{"hang": true}]}));
    let r = env
        .run(&[bad], json!({"timeouts": {"hello_ms": 500}, "steps": []}))
        .await;
    let msg = r.kinds("load_error")[0]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(msg.contains("no hello within"), "{msg}");
}

/// A reply that is valid JSON but does not decode, and that a
/// `serde_json::Value` cannot hold either (a lone surrogate escape in its
/// text), fails its call at once: its `type` and `id` are read as for a
/// reply nested too deeply. It used to wait out its whole deadline, as the
/// host looked for them by parsing the line into a `Value`.
#[tokio::test(flavor = "multi_thread")]
async fn a_reply_with_a_lone_surrogate_fails_its_call_at_once() {
    let env = Env::new();
    let a = env.ext(
        "odd",
        json!({
            "on_ack": [tool("odd"), ready()],
            "on": {"tool_call:odd": [{"raw":
                r#"{"type":"tool_result","id":"{in.id}","content":[{"type":"text","text":"a\ud800b"}]}"#}]}
        }),
    );
    let r = env
        .run(&[a], json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 20000}, "steps": [
            {"prompt": "go", "replies": [{"tool_calls": [{"name": "odd", "args": {}}]}, {"text": "done"}]}
        ]}))
        .await;
    let res = r.tool_results();
    assert_eq!(res.len(), 1, "{res:?}");
    assert_eq!(res[0]["status"], "failed", "{}", res[0]);
    let text = res[0]["text"].as_str().unwrap();
    assert!(
        text.contains("malformed tool_result: ")
            && text.contains("field `content[0].text`: a string holds a lone UTF-16 surrogate"),
        "{text}"
    );
}

/// A frame nested deeper than `MAX_FRAME_DEPTH` (128) is malformed: named
/// so in one diagnostic, and a reply that is one fails its call at once
/// instead of leaving it to wait out its deadline (the typed decode gave up
/// with "recursion limit exceeded" and the reply was never correlated).
#[tokio::test(flavor = "multi_thread")]
async fn a_reply_nested_too_deeply_fails_its_call_at_once() {
    let env = Env::new();
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    let a = env.ext(
        "deep",
        json!({
            "on_ack": [tool("nest"), ready()],
            "on": {"tool_call:nest": [{"send": {"type": "tool_result", "id": "$in.id",
                "content": [{"type": "text", "text": "x"}], "structured_content": {"v": deep}}}]}
        }),
    );
    let r = env
        .run(&[a], json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 20000}, "steps": [
            {"prompt": "go", "replies": [{"tool_calls": [{"name": "nest", "args": {}}]}, {"text": "done"}]}
        ]}))
        .await;
    let res = r.tool_results();
    assert_eq!(res.len(), 1, "{res:?}");
    assert_eq!(res[0]["status"], "failed", "{}", res[0]);
    let text = res[0]["text"].as_str().unwrap();
    assert!(text.contains("nested deeper than 128 levels"), "{text}");
    assert!(
        r.kinds("diagnostic").iter().any(|d| d["message"]
            .as_str()
            .unwrap()
            .starts_with("malformed json from extension: frame nested deeper than 128 levels")),
        "{:?}",
        r.kinds("diagnostic")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_and_unknown_frames_are_reported_and_skipped() {
    let env = Env::new();
    let a = env.ext("noisy", json!({
        "on_ack": [{"raw": "this is not json"}, {"send": {"type": "from_the_future"}}, cmd("still"), ready()],
        "on": {"command_invoked:still": display("alive")}
    }));
    let r = env
        .run(&[a], json!({"steps": [{"command": "/still"}]}))
        .await;
    let diags: Vec<String> = r
        .kinds("diagnostic")
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        diags
            .iter()
            .any(|d| d.starts_with("malformed json from extension")),
        "{diags:?}"
    );
    assert!(
        diags
            .iter()
            .any(|d| d == "unknown frame type \"from_the_future\""),
        "{diags:?}"
    );
    assert!(r.text().contains("alive"));
    assert!(r.kinds("disconnected").is_empty());
    assert!(env
        .log("noisy")
        .contains("[zot] malformed json from extension"));
}

#[tokio::test(flavor = "multi_thread")]
async fn subscriptions_to_unknown_events_are_diagnosed_and_the_known_ones_fire() {
    let env = Env::new();
    let a = env.ext("typo", json!({
        "on_ack": [
            {"send": {"type": "subscribe", "events": ["session_start", "sesion_start"], "intercept": ["tool_result"]}},
            ready()
        ],
        "on": {"event:session_start": [{"send": {"type": "notify", "level": "info", "message": "started"}}]}
    }));
    let r = env
        .run(
            &[a],
            json!({"steps": [{"wait": {"type": "notify", "fields": {"message": "started"}}}]}),
        )
        .await;
    let diags = r.strs("diagnostic", "message");
    assert!(
        diags.contains(&r#"subscribe: unknown events never fire: "sesion_start""#),
        "{diags:?}"
    );
    assert!(
        diags.iter().any(|d| d.starts_with(
            r#"subscribe: not interceptable, ignored: "tool_result" (interceptable: "#
        ) && d.contains("tool_call")),
        "{diags:?}"
    );
    assert!(
        r.kinds("note").iter().any(|n| n["text"] == "started"),
        "the known event fired: {:?}",
        r.kinds("note")
    );
    assert!(env.log("typo").contains("[zot] subscribe: unknown events"));
}

#[tokio::test(flavor = "multi_thread")]
async fn diagnostics_escape_the_control_characters_an_extension_sent() {
    // A malformed line is quoted in its diagnostic: a carriage return or a
    // terminal escape in it must not reach the terminal as such.
    let env = Env::new();
    let a = env.ext(
        "sly",
        json!({
            "on_ack": [{"raw": "not json\r[zot] all good\u{1b}[2J"}, ready()]
        }),
    );
    let r = env.run(&[a], json!({"steps": []})).await;
    let diags: Vec<String> = r
        .kinds("diagnostic")
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_owned())
        .collect();
    let quoted = diags
        .iter()
        .find(|d| d.starts_with("malformed json from extension"))
        .unwrap_or_else(|| panic!("no diagnostic for the line: {diags:?}"));
    assert!(!quoted.chars().any(char::is_control), "{quoted:?}");
    assert!(
        quoted.ends_with(r"not json\r[zot] all good\u{1b}[2J"),
        "{quoted:?}"
    );
    assert!(!env.log("sly").contains('\u{1b}'), "the log has the escape");
}

#[tokio::test(flavor = "multi_thread")]
async fn oversize_line_disconnects_and_commands_stop_working() {
    let env = Env::new();
    let a = env.ext(
        "big",
        json!({
            "on_ack": [cmd("flood"), cmd("after"), ready()],
            "on": {"command_invoked:flood": [{"big": 5 * 1024 * 1024}, {"hang": true}],
                   "command_invoked:after": display("never")}
        }),
    );
    let r = env
        .run(
            &[a],
            json!({"steps": [{"command": "/flood"}, {"command": "/after"}]}),
        )
        .await;
    let d = r.kinds("disconnected");
    assert_eq!(d.len(), 1, "{:?}", r.obs);
    assert!(d[0]["reason"]
        .as_str()
        .unwrap()
        .contains("exceeds the 4194304-byte frame limit"));
    assert!(d[0]["log"].as_str().unwrap().ends_with("ext-big.log"));
    let statuses: Vec<&str> = r.strs("status", "text");
    assert!(
        statuses.iter().any(|s| s.contains("/flood")),
        "{statuses:?}"
    );
    assert!(statuses.contains(&"unknown command /after"), "{statuses:?}");
    assert!(r
        .wire
        .iter()
        .any(|w| w["oversize"].as_u64() == Some(5 * 1024 * 1024 + 1)));
}

#[tokio::test(flavor = "multi_thread")]
async fn legacy_extension_is_auto_ready_and_mismatched_name_is_diagnosed() {
    let env = Env::new();
    let a = env.ext(
        "legacy",
        json!({
            "hello": {"type": "hello", "name": "other-name", "version": "0"},
            "on_ack": [cmd("x")],
            "on": {"command_invoked:x": display("x works")}
        }),
    );
    let r = env.run(&[a], json!({"steps": [{"command": "/x"}]})).await;
    assert!(r.text().contains("x works"));
    assert!(r.text().contains("differs from manifest name"));
    assert!(env.log("legacy").contains("auto-readying after idle"));
}

#[tokio::test(flavor = "multi_thread")]
async fn discovery_precedence_disabled_theme_only_and_missing_manifest() {
    let env = Env::new();
    let project = env.cwd.join(".zot/extensions");
    let global = env.zot_home.join("extensions");
    let say = |t: &str| json!({"on_ack": [cmd("who"), ready()], "on": {"command_invoked:who": display(t)}});
    env.ext_in(&global, "g", "dup", say("global"));
    env.ext_in(&project, "p", "dup", say("project"));
    // A global directory whose manifest is disabled, a stale directory, a theme.
    let off = env.ext_in(&global, "off", "off", say("off"));
    let m = std::fs::read_to_string(off.join("extension.json"))
        .unwrap()
        .replace("\"version\"", "\"enabled\":false,\"version\"");
    std::fs::write(off.join("extension.json"), m).unwrap();
    std::fs::create_dir_all(global.join("stale")).unwrap();
    let theme = global.join("theme");
    std::fs::create_dir_all(&theme).unwrap();
    std::fs::write(theme.join("extension.json"), r#"{"name":"pretty"}"#).unwrap();
    std::fs::write(theme.join("theme.json"), "{}").unwrap();
    let r = env.run(&[], json!({"steps": [{"command": "/who"}]})).await;
    assert!(r.text().contains("project"), "project wins over global");
    let loaded: Vec<&str> = r.strs("loaded", "ext");
    assert_eq!(
        loaded,
        vec!["dup", "pretty"],
        "theme-only loads without a process"
    );
    assert!(
        r.kinds("load_error").is_empty(),
        "{:?}",
        r.kinds("load_error")
    );
    // Explicit wins over both; an explicit path without a manifest is an error.
    let explicit = env.ext("dup", say("explicit"));
    let nothing = env.tmp.path().join("empty");
    std::fs::create_dir_all(&nothing).unwrap();
    let r = env
        .run(
            &[explicit, nothing],
            json!({"steps": [{"command": "/who"}]}),
        )
        .await;
    assert!(r.text().contains("explicit"));
    let errs = r.kinds("load_error");
    assert_eq!(errs.len(), 1);
    assert!(errs[0]["message"]
        .as_str()
        .unwrap()
        .contains("no extension.json"));
}

#[test]
fn discovery_api_reports_states_in_load_order() {
    use zot_host::store::discovery::{discover, DiscoveryOptions, EntryState, Source};
    let env = Env::new();
    let project = env.cwd.join(".zot/extensions");
    let global = env.zot_home.join("extensions");
    env.ext_in(&global, "b", "same", json!({}));
    env.ext_in(&global, "a", "solo", json!({}));
    env.ext_in(&project, "z", "same", json!({}));
    // Symlinked directories count (HOST-5).
    let real = env.ext_in(
        &env.tmp.path().join("elsewhere"),
        "linked",
        "linked",
        json!({}),
    );
    std::os::unix::fs::symlink(&real, project.join("link")).unwrap();
    let d = discover(&DiscoveryOptions {
        cwd: env.cwd.clone(),
        zot_home: env.zot_home.clone(),
        explicit: vec![],
        no_discovery: false,
    });
    let names: Vec<(Source, String, bool)> = d
        .entries
        .iter()
        .map(|e| (e.source, e.name(), e.state == EntryState::Load))
        .collect();
    assert_eq!(
        names,
        vec![
            (Source::Project, "linked".into(), true),
            (Source::Project, "same".into(), true),
            (Source::Global, "solo".into(), true),
            (Source::Global, "same".into(), false),
        ]
    );
    assert!(matches!(d.entries[3].state, EntryState::Shadowed { .. }));
}

// N-15 / HOST-32: an extension that keeps talking (so the auto-ready idle
// window never elapses) but never sends `ready` is marked after the startup
// readiness grace, and the session proceeds without it being ready.
#[tokio::test(flavor = "multi_thread")]
async fn chatty_extension_without_ready_is_timed_out_after_the_grace() {
    let env = Env::new();
    let a = env.ext(
        "chatty",
        json!({
            "on_ack": [
                cmd("hi"),
                {"send": {"type": "subscribe", "events": ["session_start"]}},
                {"async": [{"repeat": [{"send": {"type": "notify", "level": "info", "message": "still starting"}}], "every": 0.05}]}
            ],
            // The session only starts once the readiness wait is over.
            "on": {"event:session_start": [{"stop_repeat": true}],
                   "command_invoked:hi": display("hi after the grace")}
        }),
    );
    let r = env
        .run(
            &[a],
            // The idle window is stretched far past the grace: a scheduling
            // stall between two notifies (a busy CI machine) must not let the
            // auto-ready rule (N-17) fire first.
            json!({"timeouts": {"ready_grace_ms": 300, "auto_ready_idle_ms": 60_000}, "steps": [{"command": "/hi"}]}),
        )
        .await;
    assert!(r.received("chatty", "ready").is_empty());
    assert!(
        !r.received("chatty", "notify").is_empty(),
        "frames kept coming during the wait"
    );
    let diags: Vec<(&str, &str)> = r
        .kinds("diagnostic")
        .iter()
        .map(|d| (d["ext"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect();
    assert_eq!(diags, vec![("chatty", "timed out waiting for ready frame")]);
    let log = env.log("chatty");
    assert!(
        log.contains("timed out waiting for ready frame; proceeding"),
        "{log}"
    );
    assert!(
        !log.contains("auto-readying after idle"),
        "the idle rule did not apply: {log}"
    );
    assert_eq!(r.events("chatty"), vec!["session_start"]);
    assert!(
        r.text().contains("hi after the grace"),
        "the session proceeds and the extension still works"
    );
}

// N-18 / HOST-23: an extension that closes stdout before `hello` but keeps
// running is killed (and reaped) after the exit grace and reported.
#[tokio::test(flavor = "multi_thread")]
async fn closed_stdout_before_hello_without_exit_is_killed() {
    let env = Env::new();
    let pidfile = env.tmp.path().join("closer.pid");
    let bad = env.ext(
        "closer",
        json!({"before_hello": [
            {"write_pid": pidfile.display().to_string()},
            {"close_stdout": true},
            {"hang": true}
        ]}),
    );
    let good = env.ext(
        "good",
        json!({"on_ack": [cmd("ok"), ready()], "on": {"command_invoked:ok": display("fine")}}),
    );
    let r = env
        .run(&[bad, good], json!({"steps": [{"command": "/ok"}]}))
        .await;
    let errs = r.kinds("load_error");
    assert_eq!(errs.len(), 1, "{:?}", r.obs);
    assert_eq!(errs[0]["ext"], "closer");
    let msg = errs[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("extension closed stdout before hello without exiting (killed)"),
        "{msg}"
    );
    assert!(msg.contains("ext-closer.log"), "{msg}");
    assert_gone(&pidfile);
    assert!(r.text().contains("fine"), "the other extension still works");
}

// N-17 / HOST-31: the auto-ready idle window counts from the last frame, not
// from the handshake. A legacy extension (never `ready`) chatters for at
// least twice the idle window, then goes quiet: it is auto-readied only
// after the chatter ended. Robust to scheduling: the chatter lasts at least
// 2 s (a stall only lengthens it) against a 1 s window, and its frames are
// 50 ms apart, so only a stall of most of a second could open an idle gap;
// the startup grace is stretched out of the way (N-15).
#[tokio::test(flavor = "multi_thread")]
async fn auto_ready_idle_window_counts_from_the_last_frame() {
    let env = Env::new();
    let a = env.ext(
        "legacy",
        json!({
            "on_ack": [
                cmd("hi"),
                // One thread chatters and, once told to stop, marks the end
                // of the chatter in the log after its last frame.
                {"async": [
                    {"repeat": [{"send": {"type": "notify", "level": "info", "message": "chatter"}}], "every": 0.05},
                    {"stderr": "chatter over"}
                ]},
                {"async": [{"sleep": 2.0}, {"stop_repeat": true}]}
            ],
            "on": {"command_invoked:hi": display("hi once ready")}
        }),
    );
    let r = env
        .run(
            &[a],
            json!({"timeouts": {"auto_ready_idle_ms": 1000, "ready_grace_ms": 60_000}, "steps": [{"command": "/hi"}]}),
        )
        .await;
    assert!(r.received("legacy", "ready").is_empty());
    assert!(
        r.received("legacy", "notify").len() > 1,
        "it chattered: {:?}",
        r.received("legacy", "notify")
    );
    let log = env.log("legacy");
    // Auto-readied, and only once the chatter was over (a host counting
    // from the handshake auto-readies mid-chatter; the run may then even end
    // before the chatter does).
    let over = log.find("chatter over");
    let auto = log.find("[zot] no ready frame; auto-readying after idle (legacy SDK?)");
    assert!(
        matches!((over, auto), (Some(o), Some(a)) if o < a),
        "auto-ready only after the last frame: {log}"
    );
    assert!(!log.contains("timed out waiting for ready frame"), "{log}");
    assert!(
        r.kinds("diagnostic").is_empty(),
        "{:?}",
        r.kinds("diagnostic")
    );
    assert!(r.text().contains("hi once ready"));
}

// HOST-21: a first line that is not JSON at all (an extension printing to
// stdout before its SDK started) fails the load with the line quoted and
// the likely cause named, and the log path.
#[tokio::test(flavor = "multi_thread")]
async fn a_printed_first_line_is_quoted_in_the_load_error() {
    let env = Env::new();
    let bad = env.ext(
        "chatty-start",
        json!({"before_hello": [{"raw": "loading the extension..."}]}),
    );
    let long = env.ext(
        "long-start",
        json!({"before_hello": [{"raw": "x".repeat(200)}]}),
    );
    let r = env.run(&[bad, long], json!({"steps": []})).await;
    let errors: Vec<String> = r
        .kinds("load_error")
        .iter()
        .map(|e| e["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    let printed = errors.iter().find(|m| m.contains("chatty-start")).unwrap();
    assert!(
        printed.contains(
            "first line is not JSON: \"loading the extension...\"; stdout carries only frames"
        ) && printed.contains("did the extension print to stdout before it started?"),
        "{printed}"
    );
    assert!(
        printed.contains("log: "),
        "the log path is named: {printed}"
    );
    // A long line is cut at 80 characters.
    let cut = errors.iter().find(|m| m.contains("long-start")).unwrap();
    assert!(cut.contains(&format!("\"{}…\"", "x".repeat(80))), "{cut}");
}

/// The inspector's Restart: one extension is stopped and started again at
/// its rank, its tool works afterwards, and the other keeps running.
#[tokio::test(flavor = "multi_thread")]
async fn restarting_one_extension_leaves_the_others_running() {
    let env = Env::new();
    let a = env.ext(
        "a",
        json!({"on_ack": [tool("ta"), ready()], "on": {"tool_call:ta": text_result("from a")}}),
    );
    let b = env.ext("b", json!({"on_ack": [tool("tb"), ready()]}));
    let run = env
        .run(
            &[a, b],
            json!({"steps": [
                {"restart": "a"},
                {"call": {"name": "ta"}},
                {"restart": "nope"},
            ]}),
        )
        .await;
    let text = run.text();
    // a stopped once for the restart (and once at the end), b only at the end.
    let exited: Vec<&str> = run.strs("exited", "ext");
    assert_eq!(exited.iter().filter(|e| **e == "a").count(), 2, "{text}");
    assert_eq!(exited.iter().filter(|e| **e == "b").count(), 1, "{text}");
    assert_eq!(run.received("a", "hello").len(), 2, "{text}");
    assert_eq!(run.received("b", "hello").len(), 1, "{text}");
    assert_eq!(run.strs("tool_result", "text"), ["from a"], "{text}");
    let statuses = run.strs("status", "text");
    assert!(statuses.contains(&"restarted a: ready"), "{text}");
    assert!(
        statuses
            .iter()
            .any(|s| s.contains(r#"restart: no extension "nope" is loaded"#)),
        "{text}"
    );
}
