//! The `zot-host` binary: readable transcript, `--json`, `--wire`, errors.

mod common;

use std::process::Command;

use common::*;
use serde_json::{json, Value};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_zot-host"))
}

#[test]
fn run_prints_json_steps_and_writes_the_wire_log() {
    let env = Env::new();
    let ext = env.ext("hello", json!({
        "on_ack": [cmd("hi"), {"send": {"type": "subscribe", "events": ["turn_start"]}}, ready()],
        "on": {"command_invoked:hi": display("hi {in.args}")}
    }));
    let script = env.tmp.path().join("s.json");
    std::fs::write(
        &script,
        json!({"steps": [
            {"command": "/hi you"},
            {"prompt": "yo", "replies": [{"text": "hey"}]},
            {"expect": {"contains": ["hi you"]}}
        ]})
        .to_string(),
    )
    .unwrap();
    let wire = env.tmp.path().join("wire.jsonl");
    let out = bin()
        .args(["run", "--script"])
        .arg(&script)
        .arg("--ext")
        .arg(&ext)
        .arg("--json")
        .arg("--wire")
        .arg(&wire)
        .arg("--cwd")
        .arg(&env.cwd)
        .arg("--zot-home")
        .arg(&env.zot_home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = steps.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        vec![
            "loaded",
            "session",
            "command",
            "display",
            "user",
            "system_prompt",
            "assistant",
            "exited"
        ]
    );
    assert_eq!(steps.last().unwrap()["status"], "exit status 0");
    let wire: Vec<Value> = std::fs::read_to_string(&wire)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        wire[0],
        json!({"ext": "hello", "dir": "ext->host", "frame": {"type": "hello", "name": "hello", "version": "1.0.0", "capabilities": ["commands", "tools", "events", "panels", "tool_cancel", "call_tool"]}})
    );
    assert_eq!(wire[1]["dir"], "host->ext");
    assert_eq!(wire[1]["frame"]["type"], "hello_ack");
    assert_eq!(wire.last().unwrap()["frame"]["type"], "shutdown_ack");
}

#[test]
fn readable_output_and_expect_failures_set_the_exit_code() {
    let env = Env::new();
    let script = env.tmp.path().join("s.json");
    std::fs::write(&script, json!({"confirm": "yolo", "steps": [
        {"prompt": "list", "replies": [{"text": "running", "tool_calls": [{"name": "bash", "args": {"command": "echo from-bash"}}]}, {"text": "done"}]},
        {"expect": {"contains": ["not there"]}}
    ]}).to_string()).unwrap();
    let out = bin()
        .args(["run", "--script"])
        .arg(&script)
        .arg("--cwd")
        .arg(&env.cwd)
        .arg("--zot-home")
        .arg(&env.zot_home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("you › list"), "{text}");
    assert!(
        text.contains("⚙ bash {\"command\":\"echo from-bash\"}"),
        "{text}"
    );
    assert!(text.contains("from-bash"), "{text}");
    assert!(
        !text.contains("\x1b["),
        "no colour when stdout is not a terminal"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 expectation(s) failed"));
}

#[test]
fn bad_scripts_are_reported_with_their_location() {
    let env = Env::new();
    let script = env.tmp.path().join("bad.json");
    std::fs::write(&script, r#"{"steps": [{"prompt": "x"}, {"comand": "/x"}]}"#).unwrap();
    let out = bin()
        .args(["run", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("steps[1]") && err.contains("comand"), "{err}");
}

/// An extension that needs 600 ms to answer `hello_ack` is taken for ready
/// after the spec's 250 ms idle window (its command is not registered yet
/// when the script runs it); `--time-scale` (or `ZOT_HOST_TIME_SCALE`)
/// stretches every window, as a run under an emulator needs.
#[test]
fn time_scale_stretches_the_readiness_windows() {
    let env = Env::new();
    let ext = env.ext(
        "slow",
        json!({
            "on_ack": [{"sleep": 0.6}, cmd("hi"), ready()],
            "on": {"command_invoked:hi": display("said {in.args}")}
        }),
    );
    let script = env.tmp.path().join("s.json");
    std::fs::write(
        &script,
        json!({"steps": [{"command": "/hi you"}, {"expect": {"contains": ["said you"]}}]})
            .to_string(),
    )
    .unwrap();
    let run = |scale: Option<(&str, &str)>| {
        let mut cmd = bin();
        cmd.args(["run", "--script"])
            .arg(&script)
            .arg("--ext")
            .arg(&ext)
            .arg("--no-ext")
            .arg("--cwd")
            .arg(&env.cwd)
            .arg("--zot-home")
            .arg(&env.zot_home)
            .env_remove("ZOT_HOST_TIME_SCALE");
        match scale {
            Some(("--time-scale", n)) => {
                cmd.args(["--time-scale", n]);
            }
            Some((var, n)) => {
                cmd.env(var, n);
            }
            None => {}
        }
        cmd.output().unwrap()
    };
    let unscaled = run(None);
    assert_eq!(
        unscaled.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&unscaled.stdout)
    );
    assert!(String::from_utf8_lossy(&unscaled.stdout).contains("unknown command /hi"));
    for scale in [("--time-scale", "20"), ("ZOT_HOST_TIME_SCALE", "20")] {
        let out = run(Some(scale));
        assert!(
            out.status.success(),
            "{scale:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let bad = run(Some(("--time-scale", "0")));
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--time-scale") && err.contains("from 0.01 to 1000"),
        "{err}"
    );
}
