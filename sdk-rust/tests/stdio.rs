//! The stdio transport in a real process: `hello` is the first stdout line,
//! stray prints land on stderr, and the process exits promptly on
//! `shutdown`, on EOF, with a handler that ignores cancellation, and
//! (through the watchdog) when `main` lingers after the session.
//!
//! The test binary re-runs itself as the extension (`ZOT_EXT_STDIO_CHILD`).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use zot_ext::{Extension, Response, ToolOutput};

const CHILD: &str = "ZOT_EXT_STDIO_CHILD";

fn child() -> std::process::ExitCode {
    if std::env::var(CHILD).as_deref() == Ok("early") {
        // Prints while loading, before the session: protected first.
        zot_ext::protect_stdout().unwrap();
        zot_ext::protect_stdout().unwrap(); // twice is fine
        println!("printed while loading");
    }
    let ext = Extension::new("child", "1")
        .command("print", "", |a, _c| async move {
            println!("stray stdout {a}");
            Response::display(a)
        })
        .command("cprint", "", |a, _c| async move {
            // As a native library would: the C runtime's descriptor 1.
            let line = format!("crt stdout {a}\n");
            // SAFETY: writes from a valid buffer of the given length.
            unsafe { libc::write(1, line.as_ptr().cast(), line.len() as _) };
            Response::display(a)
        })
        .tool("stuck", "", |_a: serde_json::Value, _c| async {
            // Ignores cancellation, on a blocking thread.
            let _ =
                tokio::task::spawn_blocking(|| std::thread::sleep(Duration::from_secs(30))).await;
            ToolOutput::text("")
        });
    let linger = std::env::var(CHILD).as_deref() == Ok("linger");
    match ext.run_blocking() {
        Ok(()) if linger => {
            // Some cleanup that never ends: the watchdog exits anyway.
            std::thread::sleep(Duration::from_secs(30));
            std::process::ExitCode::from(4)
        }
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("child failed: {e}");
            std::process::ExitCode::from(3)
        }
    }
}

struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Proc {
    fn spawn() -> Self {
        Self::spawn_mode("1")
    }

    fn spawn_mode(mode: &str) -> Self {
        Self::spawn_env(mode, &[])
    }

    fn spawn_env(mode: &str, env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(CHILD, mode)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        let w = self.stdin.as_mut().unwrap();
        w.write_all(line.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    fn recv(&mut self) -> String {
        let mut l = String::new();
        self.stdout.read_line(&mut l).unwrap();
        l.trim_end_matches('\n').to_owned()
    }

    fn handshake(&mut self) {
        let hello = self.recv();
        assert!(
            hello.starts_with(r#"{"type":"hello","name":"child""#),
            "first line: {hello}"
        );
        self.send(r#"{"type":"hello_ack","protocol_version":1,"zot_version":"t","provider":"p","model":"m","cwd":"/"}"#);
        loop {
            if self.recv() == r#"{"type":"ready"}"# {
                break;
            }
        }
    }

    /// Waits for the exit; returns the status code, the time it took and
    /// the remaining stdout and the stderr.
    fn wait(mut self, started: Instant) -> (i32, Duration, String, String) {
        let status = self.child.wait().unwrap();
        let took = started.elapsed();
        let mut out = String::new();
        self.stdout.read_to_string(&mut out).unwrap();
        let mut err = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        (status.code().unwrap_or(-1), took, out, err)
    }
}

fn stray_prints_go_to_stderr_and_shutdown_exits_promptly() {
    let mut p = Proc::spawn();
    p.handshake();
    p.send(r#"{"type":"command_invoked","id":"1","name":"print","args":"x"}"#);
    assert_eq!(
        p.recv(),
        r#"{"type":"command_response","id":"1","action":"display","display":"x"}"#
    );
    let t = Instant::now();
    p.send(r#"{"type":"shutdown"}"#);
    assert_eq!(p.recv(), r#"{"type":"shutdown_ack"}"#);
    let (code, took, out, err) = p.wait(t);
    assert_eq!(code, 0);
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert_eq!(out, "");
    assert!(err.contains("stray stdout x"), "{err}");
}

/// Unix only: on Windows the C runtime's descriptors are left alone (see
/// `Transport::stdio`).
#[cfg(unix)]
fn a_c_runtime_write_to_descriptor_1_goes_to_stderr() {
    let mut p = Proc::spawn();
    p.handshake();
    p.send(r#"{"type":"command_invoked","id":"1","name":"cprint","args":"z"}"#);
    assert_eq!(
        p.recv(),
        r#"{"type":"command_response","id":"1","action":"display","display":"z"}"#
    );
    let t = Instant::now();
    p.send(r#"{"type":"shutdown"}"#);
    assert_eq!(p.recv(), r#"{"type":"shutdown_ack"}"#);
    let (code, _, out, err) = p.wait(t);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("crt stdout z"), "{err}");
}

fn eof_exits_promptly() {
    let mut p = Proc::spawn();
    p.handshake();
    let t = Instant::now();
    p.stdin = None;
    let (code, took, out, _) = p.wait(t);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(took < Duration::from_secs(1), "{took:?}");
}

fn a_stuck_handler_does_not_delay_the_exit() {
    let mut p = Proc::spawn();
    p.handshake();
    p.send(r#"{"type":"tool_call","id":"1","name":"stuck","args":{}}"#);
    p.send(r#"{"type":"command_invoked","id":"2","name":"print","args":"y"}"#);
    assert!(p.recv().contains(r#""id":"2""#)); // the tool is running
    let t = Instant::now();
    p.send(r#"{"type":"shutdown"}"#);
    assert_eq!(p.recv(), r#"{"type":"shutdown_ack"}"#);
    let (code, took, out, _) = p.wait(t);
    assert_eq!((code, out.as_str()), (0, ""));
    // The 500 ms grace, then the runtime is dropped without waiting.
    assert!(took < Duration::from_secs(1), "{took:?}");
}

fn the_watchdog_exits_a_process_that_lingers_after_shutdown() {
    let mut p = Proc::spawn_mode("linger");
    p.handshake();
    let t = Instant::now();
    p.send(r#"{"type":"shutdown"}"#);
    assert_eq!(p.recv(), r#"{"type":"shutdown_ack"}"#);
    let (code, took, _, err) = p.wait(t);
    assert_eq!(code, 0);
    assert!(
        took >= Duration::from_millis(1400) && took < Duration::from_secs(2),
        "{took:?}"
    );
    assert!(err.contains("watchdog"), "{err}");
}

fn protect_stdout_keeps_prints_before_the_session_off_the_wire() {
    let mut p = Proc::spawn_mode("early");
    p.handshake(); // `hello` is the first line
    let t = Instant::now();
    p.send(r#"{"type":"shutdown"}"#);
    assert_eq!(p.recv(), r#"{"type":"shutdown_ack"}"#);
    let (code, _, out, err) = p.wait(t);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(err.contains("printed while loading"), "{err}");
}

fn handshake_failure_exits_non_zero() {
    let mut p = Proc::spawn();
    assert!(p.recv().contains(r#""type":"hello""#));
    let t = Instant::now();
    p.send(r#"{"type":"shutdown"}"#);
    let (code, _, out, err) = p.wait(t);
    assert_eq!((code, out.as_str()), (3, ""));
    assert!(err.contains("hello_ack"), "{err}");
}

/// Kills child `pid` unless the returned sender is used (or dropped) within
/// `limit`. Unix only: elsewhere the test runner's own timeout ends a hang.
fn kill_after(pid: u32, limit: Duration) -> std::sync::mpsc::Sender<()> {
    let (exited, guard) = std::sync::mpsc::channel::<()>();
    #[cfg(unix)]
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = guard.recv_timeout(limit) {
            // SAFETY: a signal to our own child, which has not been reaped.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
    });
    #[cfg(not(unix))]
    let _ = (pid, limit, guard);
    exited
}

/// Issue 13: a panic in an engine task (here the reader, through the
/// test-only fault hook) is one line on stderr and exit status 70; the
/// process neither hangs nor goes on half-working.
fn an_engine_panic_is_one_line_on_stderr_and_exits_70() {
    let mut p = Proc::spawn_env("1", &[("ZOT_EXT_TEST_FAULT", "reader-panic")]);
    p.handshake();
    let t = Instant::now();
    p.send(r#"{"type":"command_invoked","id":"1","name":"print","args":"x"}"#);
    // Without supervision the process would wait forever: a guard kills
    // it after 20 s (the exit status then says so).
    let exited = kill_after(p.child.id(), Duration::from_secs(20));
    let (code, _, out, err) = p.wait(t);
    let _ = exited.send(());
    assert_eq!((code, out.as_str()), (70, ""), "{err}");
    let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("[child] ")).collect();
    assert_eq!(
        ours,
        ["[child] internal error: the engine's reader panicked: injected fault: the reader panics \
          after the handshake (ZOT_EXT_TEST_FAULT); exiting with status 70"],
        "{err}"
    );
}

fn main() -> std::process::ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let tests: &[(&str, fn())] = &[
        (
            "protect_stdout_keeps_prints_before_the_session_off_the_wire",
            protect_stdout_keeps_prints_before_the_session_off_the_wire,
        ),
        (
            "stray_prints_go_to_stderr_and_shutdown_exits_promptly",
            stray_prints_go_to_stderr_and_shutdown_exits_promptly,
        ),
        #[cfg(unix)]
        (
            "a_c_runtime_write_to_descriptor_1_goes_to_stderr",
            a_c_runtime_write_to_descriptor_1_goes_to_stderr,
        ),
        ("eof_exits_promptly", eof_exits_promptly),
        (
            "a_stuck_handler_does_not_delay_the_exit",
            a_stuck_handler_does_not_delay_the_exit,
        ),
        (
            "the_watchdog_exits_a_process_that_lingers_after_shutdown",
            the_watchdog_exits_a_process_that_lingers_after_shutdown,
        ),
        (
            "handshake_failure_exits_non_zero",
            handshake_failure_exits_non_zero,
        ),
        (
            "an_engine_panic_is_one_line_on_stderr_and_exits_70",
            an_engine_panic_is_one_line_on_stderr_and_exits_70,
        ),
    ];
    let (mut passed, mut failed) = (0, 0);
    for &(name, test) in tests {
        match std::panic::catch_unwind(test) {
            Ok(()) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED");
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
