//! What the engine writes to stderr about a host's mistakes, in a real
//! process: a repeated mistake is quoted a few times and then counted
//! (`EngineConfig::repeat_limit`), a second `hello_ack` and an unknown
//! `protocol_version` are said once.
//!
//! The test binary re-runs itself as the extension (`ZOT_EXT_DIAG_CHILD`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use zot_ext::engine::RepeatLimit;
use zot_ext::{Extension, Response};

const CHILD: &str = "ZOT_EXT_DIAG_CHILD";

fn child(mode: &str) -> std::process::ExitCode {
    let limit = match mode {
        // Longer than any run: one summary, at exit.
        "long" => RepeatLimit {
            verbatim: 10,
            interval: Duration::from_secs(3600),
        },
        // Long enough for a burst to be read within one interval.
        _ => RepeatLimit {
            verbatim: 2,
            interval: Duration::from_secs(1),
        },
    };
    let ext = Extension::new("child", "1")
        .configure(move |c| c.repeat_limit = limit)
        .command("ping", "", |_a, _c| async { Response::display("pong") });
    match ext.run_blocking() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("child failed: {e}");
            std::process::ExitCode::from(3)
        }
    }
}

struct Proc {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Receiver<String>,
}

impl Proc {
    fn spawn(mode: &str) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(CHILD, mode)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, stderr) = channel();
        let err = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            for line in err.lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            stderr,
        }
    }

    fn send(&mut self, text: &str) {
        self.stdin.write_all(text.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn recv(&mut self) -> String {
        let mut l = String::new();
        self.stdout.read_line(&mut l).unwrap();
        l.trim_end_matches('\n').to_owned()
    }

    fn handshake(&mut self, version: u32) {
        assert!(self.recv().starts_with(r#"{"type":"hello""#));
        self.send(&ack(version));
        while self.recv() != r#"{"type":"ready"}"# {}
    }

    /// Every line before `ping`'s reply was read and handled.
    fn ping(&mut self) {
        self.send(r#"{"type":"command_invoked","id":"p","name":"ping","args":""}"#);
        assert_eq!(
            self.recv(),
            r#"{"type":"command_response","id":"p","action":"display","display":"pong"}"#
        );
    }

    /// The next stderr line containing `needle` (bounded wait for it).
    fn stderr_line(&self, needle: &str) -> String {
        loop {
            let line = self
                .stderr
                .recv_timeout(Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("no stderr line with {needle:?}: {e}"));
            if line.contains(needle) {
                return line;
            }
        }
    }

    /// Shuts down; returns the exit status and all of stderr not read yet.
    fn finish(mut self) -> (i32, Vec<String>) {
        self.send(r#"{"type":"shutdown"}"#);
        assert_eq!(self.recv(), r#"{"type":"shutdown_ack"}"#);
        let code = self.child.wait().unwrap().code().unwrap_or(-1);
        (code, self.stderr.iter().collect())
    }
}

fn ack(version: u32) -> String {
    format!(
        r#"{{"type":"hello_ack","protocol_version":{version},"zot_version":"t","provider":"p","model":"m","cwd":"/"}}"#
    )
}

fn count(lines: &[String], needle: &str) -> usize {
    lines.iter().filter(|l| l.contains(needle)).count()
}

fn repeated_mistakes_are_quoted_ten_times_then_counted() {
    let mut p = Proc::spawn("long");
    p.handshake(1);
    let mut burst: Vec<String> = (0..1_000).map(|i| format!("not json {i}")).collect();
    burst.extend((0..50).map(|i| format!(r#"{{"type":"from_the_future_{i}"}}"#)));
    p.send(&burst.join("\n"));
    p.ping();
    let (code, err) = p.finish();
    assert_eq!(code, 0, "{err:#?}");
    assert_eq!(
        count(&err, "] malformed host frame skipped: "),
        10,
        "{err:#?}"
    );
    assert_eq!(count(&err, "] unknown host frame type "), 10, "{err:#?}");
    let summaries: Vec<&String> = err.iter().filter(|l| l.contains("suppressed")).collect();
    assert_eq!(
        summaries,
        [
            r#"[child] suppressed 990 more "malformed host frame" diagnostics (the first 10 are shown every 3600s)"#,
            r#"[child] suppressed 40 more "unknown host frame type" diagnostics (the first 10 are shown every 3600s)"#,
        ],
        "{err:#?}"
    );
}

fn the_count_is_said_when_its_interval_ends() {
    let mut p = Proc::spawn("short");
    p.handshake(1);
    let burst: Vec<String> = (0..5).map(|i| format!("not json {i}")).collect();
    p.send(&burst.join("\n"));
    p.ping();
    // While the session runs: two quoted, then the count of the other three.
    for _ in 0..2 {
        p.stderr_line("] malformed host frame skipped: ");
    }
    assert_eq!(
        p.stderr_line("suppressed"),
        r#"[child] suppressed 3 more "malformed host frame" diagnostics (the first 2 are shown every 1s)"#
    );
    // A later mistake opens a new interval and is quoted again.
    p.send("not json again");
    p.ping();
    p.stderr_line("] malformed host frame skipped: ");
    let (code, err) = p.finish();
    assert_eq!(code, 0, "{err:#?}");
    assert_eq!(count(&err, "suppressed"), 0, "{err:#?}");
}

fn a_second_hello_ack_and_another_protocol_version_are_said_once() {
    let mut p = Proc::spawn("long");
    p.handshake(2);
    for _ in 0..3 {
        p.send(&ack(1));
    }
    p.ping();
    let (code, err) = p.finish();
    assert_eq!(code, 0, "{err:#?}");
    assert_eq!(
        count(
            &err,
            "the host speaks protocol_version 2, this SDK 1; going on, but frames may be misread"
        ),
        1,
        "{err:#?}"
    );
    assert_eq!(count(&err, "a second hello_ack was ignored"), 1, "{err:#?}");
    assert_eq!(
        count(
            &err,
            r#"suppressed 2 more "duplicate hello_ack" diagnostics (only the first is shown)"#
        ),
        1,
        "{err:#?}"
    );
}

fn main() -> std::process::ExitCode {
    if let Ok(mode) = std::env::var(CHILD) {
        return child(&mode);
    }
    let tests: [(&str, fn()); 3] = [
        (
            "repeated_mistakes_are_quoted_ten_times_then_counted",
            repeated_mistakes_are_quoted_ten_times_then_counted,
        ),
        (
            "the_count_is_said_when_its_interval_ends",
            the_count_is_said_when_its_interval_ends,
        ),
        (
            "a_second_hello_ack_and_another_protocol_version_are_said_once",
            a_second_hello_ack_and_another_protocol_version_are_said_once,
        ),
    ];
    // `cargo test --test diagnostics -- <part of a name>` runs only those.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for (name, test) in tests {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        test();
        println!("test {name} ... ok");
    }
    std::process::ExitCode::SUCCESS
}
