//! `TestHost::spawn`: the testing harness driving an extension *process*
//! over its stdin and stdout: the handshake, commands, tools and events, a
//! clean exit on shutdown, its captured stderr, the errors naming the command
//! when it cannot start or exits before `hello`, and the kill on drop.
//!
//! The test binary re-runs itself as the extension (`ZOT_EXT_SPAWN_CHILD`).

use std::process::{Command, ExitCode};

use serde_json::json;
use zot_ext::testing::{StderrMode, TestError, TestHost};
use zot_ext::{Extension, NotifyLevel, Response, ToolOutput};
use zot_protocol::ExtFrame;

const CHILD: &str = "ZOT_EXT_SPAWN_CHILD";

fn child() -> ExitCode {
    if std::env::var(CHILD).as_deref() == Ok("early") {
        eprintln!("boom: no config file");
        return ExitCode::from(3);
    }
    eprintln!("child started");
    let ext = Extension::new("spawned", "1.2.3")
        .command("echo", "Echo", |args, _ctx| async move {
            Response::display(args)
        })
        .command("crash", "Exit at once", |_args, _ctx| async move {
            eprintln!("crashing on purpose");
            #[allow(clippy::exit, reason = "the crash under test")]
            std::process::exit(5);
            #[allow(unreachable_code, reason = "the handler's type")]
            Response::noop()
        })
        .command("pid", "Process id", |_args, _ctx| async move {
            Response::display(std::process::id().to_string())
        })
        .tool("add", "Add", |args: serde_json::Value, _ctx| async move {
            let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
            ToolOutput::text(sum.to_string())
        })
        .tool(
            "fail",
            "Fail",
            |_args: serde_json::Value, _ctx| async move { Err::<ToolOutput, _>("on purpose") },
        )
        .tool(
            "fail_when_cancelled",
            "Fail once cancelled",
            |_args: serde_json::Value, ctx| async move {
                ctx.cancelled().await;
                let _ = ctx.notify("giving up", NotifyLevel::Info);
                Err::<ToolOutput, _>("gave up")
            },
        )
        .on("turn_start", |_ev, ctx| async move {
            let _ = ctx.notify("turn started", NotifyLevel::Info);
        });
    match ext.run_blocking() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("child failed: {e}");
            ExitCode::from(4)
        }
    }
}

/// The message of the next `notify` the extension writes.
async fn next_note(host: &mut TestHost) -> String {
    host.wait_for(|f| match f {
        ExtFrame::Notify(n) => Some(n.message.clone()),
        _ => None,
    })
    .await
    .unwrap()
}

fn me(mode: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.env(CHILD, mode);
    cmd
}

async fn drives_a_process_like_an_in_process_extension() {
    let mut host = TestHost::spawn(me("ext")).await.unwrap();
    assert_eq!(host.registration().hello.name, "spawned");
    assert_eq!(host.registration().commands.len(), 3);
    assert_eq!(host.registration().tools[0].name, "add");
    assert_eq!(host.registration().tools.len(), 3);
    assert_eq!(
        host.command("echo", "hi there").await.unwrap().display,
        "hi there"
    );
    let r = host.tool("add", json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("42"));
    host.send_json(r#"{"type":"event","event":"turn_start","step":1,"sequence":1}"#)
        .await
        .unwrap();
    assert_eq!(next_note(&mut host).await, "turn started");
    let frames = host.shutdown().await.unwrap();
    assert!(
        matches!(frames.last(), Some(ExtFrame::ShutdownAck)),
        "{frames:?}"
    );
    assert!(host.wait().await.unwrap().success());
    assert!(host.stderr().unwrap().contains("child started"));
    assert!(host.transcript()[0].starts_with(r#"{"type":"hello","name":"spawned""#));
}

async fn a_cancelled_handler_that_fails_is_not_logged() {
    let mut host = TestHost::spawn(me("ext")).await.unwrap();
    let id = host
        .start_tool("fail_when_cancelled", json!({}))
        .await
        .unwrap();
    host.cancel_tool(&id).await.unwrap();
    assert_eq!(next_note(&mut host).await, "giving up");
    // A failure that was not cancelled is logged (the control).
    let r = host.tool("fail", json!({})).await.unwrap();
    assert!(r.is_error);
    host.shutdown().await.unwrap();
    assert!(host.wait().await.unwrap().success());
    // The whole stderr, every handler done: the cancelled one's failure is
    // the host's business only (no tool_result goes out for it).
    let stderr = host.stderr().unwrap();
    assert!(stderr.contains("tool fail failed: on purpose"), "{stderr}");
    assert!(!stderr.contains("gave up"), "{stderr}");
}

async fn a_crash_mid_session_names_the_command_status_and_stderr() {
    let mut host = TestHost::spawn(me("ext")).await.unwrap();
    let e = host.command("crash", "").await.unwrap_err();
    assert!(matches!(e, TestError::Exited(_)), "{e:?}");
    let e = e.to_string();
    let exe = std::env::current_exe().unwrap().display().to_string();
    let head = format!("`{exe}`: the extension closed its output; it exited (exit ");
    assert!(e.starts_with(&head) && e.contains(": 5)"), "{e}");
    assert!(e.ends_with("crashing on purpose"), "{e}");
}

async fn a_command_that_cannot_start_is_named() {
    let mut cmd = Command::new("zot-no-such-extension-binary");
    cmd.arg("--flag");
    let e = TestHost::spawn(cmd).await.unwrap_err();
    assert!(matches!(e, TestError::Spawn(_)), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.starts_with("cannot start `zot-no-such-extension-binary --flag`: "),
        "{msg}"
    );
}

async fn an_exit_before_hello_names_the_command_status_and_stderr() {
    let e = TestHost::spawn(me("early")).await.unwrap_err().to_string();
    let exe = std::env::current_exe().unwrap().display().to_string();
    // "exit status: 3" on Unix, "exit code: 3" on Windows.
    let head = format!("handshake: `{exe}`: closed its output before hello; it exited (exit ");
    assert!(e.starts_with(&head) && e.contains(": 3)"), "{e}");
    assert!(e.ends_with("its stderr:\nboom: no config file"), "{e}");
}

async fn an_inherited_stderr_is_not_captured() {
    let mut host = TestHost::spawn_with(
        me("ext"),
        zot_ext::testing::default_hello_ack(),
        StderrMode::Inherit,
    )
    .await
    .unwrap();
    assert_eq!(host.stderr(), None);
    host.close_stdin().await.unwrap();
    assert!(host.wait().await.unwrap().success());
}

/// Dropping the host kills a process that is still running, and reaps it.
#[cfg(unix)]
async fn drop_kills_the_process() {
    let mut host = TestHost::spawn(me("ext")).await.unwrap();
    let pid: libc::pid_t = host
        .command("pid", "")
        .await
        .unwrap()
        .display
        .parse()
        .unwrap();
    drop(host);
    // SAFETY: signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    assert!(!alive, "process {pid} still exists after the drop");
}

type Test = std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>;

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    #[allow(unused_mut, reason = "one more test on Unix")]
    let mut tests: Vec<(&str, Test)> = vec![
        (
            "drives_a_process_like_an_in_process_extension",
            Box::pin(drives_a_process_like_an_in_process_extension()),
        ),
        (
            "a_cancelled_handler_that_fails_is_not_logged",
            Box::pin(a_cancelled_handler_that_fails_is_not_logged()),
        ),
        (
            "a_crash_mid_session_names_the_command_status_and_stderr",
            Box::pin(a_crash_mid_session_names_the_command_status_and_stderr()),
        ),
        (
            "a_command_that_cannot_start_is_named",
            Box::pin(a_command_that_cannot_start_is_named()),
        ),
        (
            "an_exit_before_hello_names_the_command_status_and_stderr",
            Box::pin(an_exit_before_hello_names_the_command_status_and_stderr()),
        ),
        (
            "an_inherited_stderr_is_not_captured",
            Box::pin(an_inherited_stderr_is_not_captured()),
        ),
    ];
    #[cfg(unix)]
    tests.push(("drop_kills_the_process", Box::pin(drop_kills_the_process())));
    let (mut passed, mut failed) = (0, 0);
    for (name, test) in tests {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| rt.block_on(test)));
        if outcome.is_ok() {
            println!("test {name} ... ok");
            passed += 1;
        } else {
            println!("test {name} ... FAILED");
            failed += 1;
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
