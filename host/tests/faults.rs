//! Faults a hostile or buggy peer (or the host's own bursts) causes: an
//! extension whose descendants outlive it or hold its stdout open, host
//! interrupts, and bursts larger than the outbound queue (N-11).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "args": args})
}

/// Pid files of an extension and of the grandchild it leaves behind.
struct Tree {
    dir: PathBuf,
    ext_pid: PathBuf,
    grandchild_pid: PathBuf,
}

impl Tree {
    /// The extension's pid (= its process group) and its grandchild's.
    fn pids(&self) -> (i32, i32) {
        (read_pid(&self.ext_pid), read_pid(&self.grandchild_pid))
    }

    /// Nothing of the tree is alive: the extension (reaped), its grandchild
    /// and anything else in its process group.
    fn assert_all_dead(&self, what: &str) {
        let (ext, grandchild) = self.pids();
        assert_gone(&self.ext_pid);
        assert!(
            !alive(grandchild),
            "{what}: grandchild {grandchild} still alive"
        );
        assert_eq!(
            group_members(ext),
            Vec::<i32>::new(),
            "{what}: processes left in the extension's group {ext}"
        );
    }
}

/// What a [`tree`] extension says once its grandchild runs (after `hello`).
const STARTED: &str = "grandchild started";

/// An extension that starts a grandchild sharing its stdout (in its own
/// process group `same`, a `new` group, or a new `session`) before `hello`,
/// or once acknowledged after the actions of `spec` (registrations first:
/// a slow start must not make the host auto-ready it without its tools;
/// the host's frames are handled only after all of `on_ack` anyway) and
/// then notes [`STARTED`].
fn tree(env: &Env, name: &str, group: &str, before_hello: bool, mut spec: Value) -> Tree {
    let ext_pid = env.tmp.path().join(format!("{name}.pid"));
    let grandchild_pid = env.tmp.path().join(format!("{name}-grandchild.pid"));
    let mut start = vec![
        json!({"write_pid": ext_pid.display().to_string()}),
        json!({"fork": grandchild_pid.display().to_string(), "group": group}),
    ];
    if !before_hello {
        start.push(json!({"send": {"type": "notify", "level": "info", "message": STARTED}}));
    }
    let key = if before_hello {
        "before_hello"
    } else {
        "on_ack"
    };
    let mut actions = spec
        .get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if before_hello {
        actions.splice(0..0, start);
    } else {
        actions.extend(start);
    }
    spec[key] = Value::Array(actions);
    Tree {
        dir: env.ext(name, spec),
        ext_pid,
        grandchild_pid,
    }
}

const GROUPS: [&str; 3] = ["same", "new", "session"];

// Issue 13.4: the extension exits while a grandchild keeps its stdout open.
// The exit itself disconnects it at once (§16.6): the pending call fails as
// disconnected instead of waiting out its reply deadline (a regression ends
// in "timed out after 5s"), and the grandchild does not outlive the run,
// wherever its process group is.
#[tokio::test(flavor = "multi_thread")]
async fn an_exited_extension_is_disconnected_at_once_though_a_grandchild_holds_its_stdout() {
    for group in GROUPS {
        let env = Env::new();
        let t = tree(
            &env,
            "grand",
            group,
            false,
            json!({"on_ack": [tool("t"), ready()], "on": {"tool_call:t": [{"exit": 3}]}}),
        );
        let r = env
            .run(
                std::slice::from_ref(&t.dir),
                json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 5000}, "steps": [
                    {"prompt": "go", "replies": [{"tool_calls": [call("t", json!({}))]}, {"text": "after"}]}
                ]}),
            )
            .await;
        let res = r.tool_results();
        assert_eq!(
            (res[0]["status"].as_str(), res[0]["text"].as_str()),
            (
                Some("failed"),
                Some("extension grand/t failed: extension grand disconnected")
            ),
            "{group}"
        );
        assert_eq!(
            r.strs("disconnected", "reason"),
            vec!["process exited (exit status 3)"],
            "{group}"
        );
        assert!(r.text().contains("after"), "{group}: the loop goes on");
        t.assert_all_dead(group);
    }
}

/// One prompt whose model calls tool `t` of the extension in `dir` once,
/// then answers "after".
async fn prompt_calling_t(env: &Env, dir: PathBuf) -> Run {
    env.run(
        &[dir],
        json!({"confirm": "yolo", "steps": [
            {"prompt": "go", "replies": [{"tool_calls": [call("t", json!({}))]}, {"text": "after"}]}
        ]}),
    )
    .await
}

// A process's stdout closes as it exits, and the host may see either first:
// one exit is reported the same way whichever comes first (an inspector
// session and its replay once disagreed: "stdout closed" in one, "process
// exited (exit status 0)" in the other). Here stdout closes well before the
// exit; a regression says "stdout closed".
#[tokio::test(flavor = "multi_thread")]
async fn an_exit_just_after_stdout_closes_is_reported_as_the_exit() {
    let env = Env::new();
    let dir = env.ext(
        "closer",
        json!({"on_ack": [tool("t"), ready()],
               "on": {"tool_call:t": [{"close_stdout": true}, {"sleep": 0.05}, {"exit": 3}]}}),
    );
    let r = prompt_calling_t(&env, dir).await;
    assert_eq!(
        r.strs("disconnected", "reason"),
        vec!["process exited (exit status 3)"]
    );
}

// The host may drop an extension while it waits for the exit status after
// stdout closed: here its queue overflows (N-11) with a `call_tool` result
// larger than the byte bound. That is why it is gone, not the exit the
// dropped stdin then causes (a regression says "process exited (exit status
// 0)", or "stdout closed" once the grace is out). The inner call's command
// produces its output only once the extension closed stdout (a FIFO it
// writes to after that; an overflow seen before the EOF is reported by the
// read loop anyway); the grace is stretched so only the overflow can end the
// wait.
#[tokio::test(flavor = "multi_thread")]
async fn an_overflow_while_waiting_for_the_exit_after_stdout_closed_is_the_reason() {
    let mut env = Env::new();
    env.queue = Some(zot_host::QueueLimits {
        frames: 256,
        bytes: 32 * 1024,
    });
    env.timeouts.exit_before_hello = Duration::from_secs(30);
    let fifo = env.tmp.path().join("stdout-closed.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo: {made}");
    let command = format!(
        "cat '{}' >/dev/null; head -c 100000 /dev/zero | tr '\\0' x",
        fifo.display()
    );
    let dir = env.ext(
        "closer",
        json!({"on_ack": [tool("t"), ready()], "on": {"tool_call:t": [
            {"send": {"type": "call_tool", "id": "$in.id", "name": "bash", "args": {"command": command}, "parent_id": "$in.id"}},
            {"close_stdout": true},
            {"write_pid": fifo.display().to_string()}
        ]}}),
    );
    let r = prompt_calling_t(&env, dir).await;
    let reasons = r.strs("disconnected", "reason");
    assert!(
        matches!(reasons.as_slice(), [one] if one.starts_with("outbound queue overflow: ")),
        "{reasons:?}"
    );
}

// What the extension wrote just before exiting is still read: the exit does
// not cut the pipe short while a grandchild holds it open.
#[tokio::test(flavor = "multi_thread")]
async fn frames_written_before_the_exit_are_read() {
    let env = Env::new();
    let t = tree(
        &env,
        "last",
        "session",
        false,
        json!({"on_ack": [tool("t"), ready()], "on": {"tool_call:t": [
            {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "last words"}]}},
            {"exit": 0}
        ]}}),
    );
    let r = env
        .run(
            std::slice::from_ref(&t.dir),
            json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 5000}, "steps": [
                {"prompt": "go", "replies": [{"tool_calls": [call("t", json!({}))]}]}
            ]}),
        )
        .await;
    let res = r.tool_results();
    assert_eq!(res[0]["status"], "completed", "{}", res[0]);
    assert_eq!(res[0]["text"], "last words");
    t.assert_all_dead("after the run");
}

// The documented limit: a helper that left the group and re-executed with
// an empty environment (no marker) is out of reach. It may hold the stdout
// pipe forever; the exit still disconnects the extension, after the bounded
// wait for what it wrote (N-18), and says why.
#[tokio::test(flavor = "multi_thread")]
async fn a_helper_out_of_reach_holding_stdout_delays_the_disconnect_only_boundedly() {
    let env = Env::new();
    let escaped = env.tmp.path().join("escaped.pid");
    let dir = env.ext(
        "leaky",
        json!({
            "on_ack": [tool("t"), ready(), {"fork": escaped.display().to_string(), "group": "session", "clean_env": true}],
            "on": {"tool_call:t": [{"exit": 3}]}
        }),
    );
    let r = env
        .run(
            &[dir],
            json!({"confirm": "yolo", "timeouts": {"tool_reply_ms": 20000}, "steps": [
                {"prompt": "go", "replies": [{"tool_calls": [call("t", json!({}))]}]}
            ]}),
        )
        .await;
    let pid = read_pid(&escaped);
    let still_there = alive(pid);
    // SAFETY: the helper this test's fixture started; nothing else ends it.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    assert!(still_there, "out of reach by design (host/README.md)");
    assert_eq!(
        r.tool_results()[0]["text"],
        "extension leaky/t failed: extension leaky disconnected"
    );
    assert_eq!(
        r.strs("disconnected", "reason"),
        vec!["process exited (exit status 3); its stdout is still held open by another process"]
    );
}

// The same before `hello`: the load fails at once with the exit status, not
// after the hello bound.
#[tokio::test(flavor = "multi_thread")]
async fn an_exit_before_hello_is_seen_though_a_grandchild_holds_stdout() {
    let env = Env::new();
    let t = tree(
        &env,
        "early",
        "session",
        true,
        json!({"before_hello": [{"exit": 4}]}),
    );
    let r = env
        .run(
            std::slice::from_ref(&t.dir),
            json!({"timeouts": {"hello_ms": 5000}, "steps": []}),
        )
        .await;
    let errors = r.strs("load_error", "message");
    assert_eq!(errors.len(), 1, "{:?}", r.obs);
    assert!(
        errors[0].starts_with("extension \"early\": extension exited before hello: exit status 4"),
        "{}",
        errors[0]
    );
    t.assert_all_dead("after the run");
}

// Issue 13.4, the graceful ways out: on a normal shutdown and after an
// escalation (the extension ignores `shutdown` and SIGTERM), whatever the
// extension started is killed before the host is done, in its group or not.
#[tokio::test(flavor = "multi_thread")]
async fn no_descendant_outlives_a_shutdown() {
    let env = Env::new();
    let polite = tree(&env, "polite", "same", false, json!({"on_ack": [ready()]}));
    let escaped = tree(
        &env,
        "escaped",
        "session",
        false,
        json!({"on_ack": [ready()]}),
    );
    let stubborn = tree(
        &env,
        "stubborn",
        "new",
        false,
        json!({"on_ack": [{"ignore_term": true}, ready()], "on": {"shutdown": [{"hang": true}]}, "on_eof": [{"hang": true}]}),
    );
    let r = env
        .run(
            &[
                polite.dir.clone(),
                escaped.dir.clone(),
                stubborn.dir.clone(),
            ],
            json!({"timeouts": {"sigterm_to_sigkill_ms": 300}, "steps": []}),
        )
        .await;
    let mut exited = r.strs("exited", "status");
    exited.sort_unstable();
    assert_eq!(
        exited,
        vec!["exit status 0", "exit status 0", "signal: killed"]
    );
    polite.assert_all_dead("polite");
    escaped.assert_all_dead("escaped");
    stubborn.assert_all_dead("stubborn");
}

/// `zot-host` with `ZOT_HOME` and the project directory of `env`.
fn host(env: &Env, args: &[&str]) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_zot-host"));
    c.args(args)
        .current_dir(&env.cwd)
        .env("ZOT_HOME", &env.zot_home)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    c
}

// Issue 13.4, also after `ext doctor`, which loads and stops every extension.
#[tokio::test(flavor = "multi_thread")]
async fn no_descendant_outlives_ext_doctor() {
    let env = Env::new();
    let project = env.cwd.join(".zot").join("extensions");
    let mut trees = Vec::new();
    for group in GROUPS {
        let name = format!("doc-{group}");
        let t = tree(&env, &name, group, false, json!({"on_ack": [ready()]}));
        // Installed in the project instead of passed with --ext.
        let dest = project.join(&name);
        std::fs::create_dir_all(&project).unwrap();
        std::fs::rename(&t.dir, &dest).unwrap();
        trees.push(Tree { dir: dest, ..t });
    }
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        host(&env, &["ext", "doctor"]).output(),
    )
    .await
    .expect("doctor finishes")
    .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for (t, group) in trees.iter().zip(GROUPS) {
        t.assert_all_dead(group);
    }
}

/// Starts `zot-host run` on a script that waits until interrupted, with
/// `--json`, and returns it once every extension (a [`tree`]) noted that its
/// grandchild runs.
async fn run_until_interrupted(
    env: &Env,
    exts: &[&Path],
    script: Value,
) -> (
    tokio::process::Child,
    tokio::io::Lines<BufReader<tokio::process::ChildStderr>>,
) {
    let file = env.tmp.path().join("script.json");
    std::fs::write(&file, script.to_string()).unwrap();
    let wire = env.tmp.path().join("wire.jsonl");
    let mut args = vec![
        "run".to_owned(),
        "--json".into(),
        "--script".into(),
        file.display().to_string(),
        "--wire".into(),
        wire.display().to_string(),
    ];
    for e in exts {
        args.extend(["--ext".to_owned(), e.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = host(env, &args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut started = 0;
    while started < exts.len() {
        let line = out
            .next_line()
            .await
            .unwrap()
            .expect("the grandchildren start before the host ends");
        let o: Value = serde_json::from_str(&line).unwrap();
        if o["kind"] == "note" && o["text"] == STARTED {
            started += 1;
        }
    }
    // Keep draining stdout so that the host never blocks on it.
    tokio::spawn(async move { while let Ok(Some(_)) = out.next_line().await {} });
    let err = BufReader::new(child.stderr.take().unwrap()).lines();
    (child, err)
}

fn interrupt(child: &tokio::process::Child) {
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id().unwrap() as i32, libc::SIGINT) };
}

/// A step that waits (far longer than any test) for a frame nobody sends.
fn wait_forever() -> Value {
    json!({"wait": {"type": "never_sent", "timeout_ms": 600000}})
}

// Issue 13.4, Ctrl-C: the host ends the session and stops its extensions
// gracefully (they get `shutdown`), kills what they started, and exits 130.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_stops_the_extensions_and_their_descendants() {
    let env = Env::new();
    let a = tree(&env, "a", "same", false, json!({"on_ack": [ready()]}));
    let b = tree(&env, "b", "session", false, json!({"on_ack": [ready()]}));
    let (mut child, _err) =
        run_until_interrupted(&env, &[&a.dir, &b.dir], json!({"steps": [wait_forever()]})).await;
    interrupt(&child);
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("the host exits")
        .unwrap();
    assert_eq!(status.code(), Some(130));
    let wire = std::fs::read_to_string(env.tmp.path().join("wire.jsonl")).unwrap();
    let shutdowns = wire
        .lines()
        .filter(|l| l.contains(r#""dir":"host->ext""#) && l.contains(r#""type":"shutdown""#))
        .count();
    assert_eq!(shutdowns, 2, "graceful: {wire}");
    a.assert_all_dead("a");
    b.assert_all_dead("b");
}

// A second Ctrl-C does not wait for the grace: everything is killed at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_second_ctrl_c_kills_at_once() {
    let env = Env::new();
    let t = tree(
        &env,
        "stubborn",
        "session",
        false,
        json!({"on_ack": [{"ignore_term": true}, ready()], "on": {"shutdown": [{"hang": true}]}, "on_eof": [{"hang": true}]}),
    );
    // A grace far longer than the test's own bound.
    let (mut child, mut err) = run_until_interrupted(
        &env,
        &[&t.dir],
        json!({"timeouts": {"shutdown_grace_ms": 600000}, "steps": [wait_forever()]}),
    )
    .await;
    interrupt(&child);
    // The first one was taken: the host says it is stopping.
    loop {
        let line = err.next_line().await.unwrap().expect("a notice on stderr");
        if line.contains("stopping the extensions") {
            break;
        }
    }
    interrupt(&child);
    let status = tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("the host exits without waiting out the grace")
        .unwrap();
    assert_eq!(status.code(), Some(130));
    let (ext, grandchild) = t.pids();
    // Killed; the extension is reaped by whoever inherited it once the
    // host exited, so only "not alive" can be asserted.
    assert!(!alive(ext), "extension {ext} still alive");
    assert!(!alive(grandchild), "grandchild {grandchild} still alive");
}

// Issue 13.5: one model reply with hundreds of tool calls announces them all
// at once (a `tool_call` event each). A subscriber that reads slowly but
// keeps reading stays connected: the host paces its burst instead of
// overflowing the queue (N-11), and every call gets its reply. A regression
// disconnects it ("outbound queue overflow") and the calls fail with
// `unknown tool "echo"`.
#[tokio::test(flavor = "multi_thread")]
async fn hundreds_of_calls_in_one_reply_keep_a_slow_reader_connected() {
    const CALLS: usize = 600;
    let env = Env::new();
    let slow = env.ext(
        "slow",
        json!({
            "on_ack": [{"send": {"type": "subscribe", "events": ["tool_call"]}}, tool("echo"), ready()],
            "on": {
                "event:tool_call": [{"sleep": 0.001}],
                "tool_call:echo": [{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "{in.args.n}"}]}}]
            }
        }),
    );
    // Big enough arguments that the pipe holds only a few dozen events.
    let pad = "p".repeat(1500);
    let calls: Vec<Value> = (0..CALLS)
        .map(|n| call("echo", json!({"n": n, "pad": pad})))
        .collect();
    let r = env
        .run(
            &[slow],
            json!({"confirm": "yolo", "steps": [
                {"prompt": "go", "replies": [{"tool_calls": calls}, {"text": "all done"}]}
            ]}),
        )
        .await;
    assert_eq!(r.kinds("disconnected"), Vec::<&Value>::new());
    let texts = r.strs("tool_result", "text");
    let expected: Vec<String> = (0..CALLS).map(|n| n.to_string()).collect();
    assert_eq!(texts, expected);
    assert_eq!(r.received("slow", "tool_result").len(), CALLS);
    assert_eq!(r.sent("slow", "event").len(), CALLS, "no event skipped");
}

// Issue 13.5, requests: forty `call_tool`s at once make forty `tool_call`
// requests to one extension, far beyond its queue bound (8 here) and its
// pipe. They wait for room instead of overflowing it; every call is answered
// and nobody is disconnected (a regression disconnects the target with
// "outbound queue overflow").
#[tokio::test(flavor = "multi_thread")]
async fn a_burst_of_requests_waits_for_room() {
    const CALLS: usize = 40;
    let mut env = Env::new();
    env.queue = Some(zot_host::QueueLimits {
        frames: 8,
        bytes: 1 << 20,
    });
    let target = env.ext(
        "target",
        json!({"on_ack": [tool("slow"), ready()], "on": {"tool_call:slow": [
            {"sleep": 0.01},
            {"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": "ok"}]}}
        ]}}),
    );
    // Big enough arguments that the pipe holds only a few calls.
    let pad = "p".repeat(8000);
    let mut burst: Vec<Value> = (0..CALLS)
        .map(|n| json!({"send": {"type": "call_tool", "id": format!("c{n}"), "name": "slow", "args": {"pad": pad}}}))
        .collect();
    burst.push(json!({"send": {"type": "command_response", "id": "$in.id", "action": "noop"}}));
    let caller = env.ext(
        "caller",
        json!({"on_ack": [cmd("go"), ready()], "on": {
            "command_invoked:go": burst,
            "tool_result": [{"count": "answers", "to": CALLS, "do": [
                {"send": {"type": "notify", "level": "info", "message": "all answered"}}
            ]}]
        }}),
    );
    let r = env
        .run(
            &[target, caller],
            json!({"confirm": "yolo", "steps": [
                {"command": "/go", "wait": {"ext": "caller", "type": "notify", "fields": {"message": "all answered"}, "timeout_ms": 30000}}
            ]}),
        )
        .await;
    assert_eq!(r.failures, 0, "{:?}", r.obs);
    assert_eq!(r.kinds("disconnected"), Vec::<&Value>::new());
    let answers = r.sent("caller", "tool_result");
    assert_eq!(answers.len(), CALLS);
    for a in answers {
        assert!(!a["is_error"].as_bool().unwrap_or(false), "{a}");
        assert_eq!(a["content"][0]["text"], "ok", "{a}");
    }
}
