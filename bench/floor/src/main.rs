//! `bench-floor`: the benchmarks' floor.
//!
//! The least a zot extension written in Rust can do: `serde_json` over one
//! buffered reader (stdin) and one buffered writer (stdout), no async
//! runtime, no SDK. Every SDK figure in `zot-bench` is reported as a ratio to
//! this program.
//!
//! - Tools: `echo` (`text`), `big` (`bytes` times `x`), `sleep` (`ms`; runs on
//!   its own thread and honours `tool_cancel`, shutdown and stdin EOF by
//!   sending `notify` `warn` `cancelled <ms>`).
//! - Subscribes to `tool_call` and `tool_result` and ignores the events (each
//!   one is still parsed as JSON, as any extension must).
//! - Output is flushed whenever the input buffer runs dry, so a burst of
//!   pipelined calls is answered with few `write` calls, and a lone call is
//!   answered at once.
//!
//! Options, for the host-side scenarios (which load many copies):
//! `--name NAME` (the `hello` name), `--no-tools`, `--no-events` (register
//! nothing, subscribe to nothing), `--intercept` (intercept `tool_call` and
//! allow every call unchanged), `--flood` (also a tool `flood` that writes
//! `notes` `notify` frames back to back, then its result: the soak's notify
//! flood).

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Read buffer size: large enough that a 1 MiB frame costs few `read` calls.
const READ_BUFFER: usize = 256 * 1024;
/// Write buffer size.
const WRITE_BUFFER: usize = 256 * 1024;

const FLOOD_TOOL: &str = r#"{"type":"register_tool","name":"flood","description":"notes notify frames","schema":{"type":"object","properties":{"notes":{"type":"integer"}}}}"#;

const TOOLS: &[&str] = &[
    r#"{"type":"register_tool","name":"echo","description":"echo text","schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}"#,
    r#"{"type":"register_tool","name":"big","description":"n bytes of x","schema":{"type":"object","properties":{"bytes":{"type":"integer"}}}}"#,
    r#"{"type":"register_tool","name":"sleep","description":"wait ms milliseconds","schema":{"type":"object","properties":{"ms":{"type":"integer"}}}}"#,
];

/// What this copy registers (see the options in the crate docs).
struct Config {
    name: String,
    tools: bool,
    events: bool,
    intercept: bool,
    flood: bool,
}

impl Config {
    fn from_args() -> Result<Self, String> {
        let mut c = Config {
            name: "bench-floor".into(),
            tools: true,
            events: true,
            intercept: false,
            flood: false,
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            match a.as_str() {
                "--name" => c.name = args.next().ok_or("--name needs a value")?,
                "--no-tools" => c.tools = false,
                "--no-events" => c.events = false,
                "--intercept" => c.intercept = true,
                "--flood" => c.flood = true,
                other => return Err(format!("unknown option {other}")),
            }
        }
        Ok(c)
    }

    fn hello(&self) -> String {
        let name = serde_json::to_string(&self.name).expect("string");
        format!(
            r#"{{"type":"hello","name":{name},"version":"1.0.0","capabilities":["tools","events","tool_cancel"]}}"#
        )
    }

    /// The frames sent after `hello_ack`, ending with `ready`.
    fn registration(&self) -> Vec<String> {
        let mut frames: Vec<String> = Vec::new();
        if self.tools {
            frames.extend(TOOLS.iter().map(|s| s.to_string()));
        }
        if self.flood {
            frames.push(FLOOD_TOOL.to_owned());
        }
        let events = if self.events {
            r#""events":["tool_call","tool_result"]"#
        } else {
            r#""events":[]"#
        };
        if self.intercept {
            frames.push(format!(
                r#"{{"type":"subscribe",{events},"intercept":["tool_call"]}}"#
            ));
        } else if self.events {
            frames.push(format!(r#"{{"type":"subscribe",{events}}}"#));
        }
        frames.push(r#"{"type":"ready"}"#.into());
        frames
    }
}

/// The fields of a host frame this extension looks at; everything else is
/// skipped by the parser.
#[derive(Deserialize)]
struct Incoming<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct TextArgs<'a> {
    #[serde(borrow)]
    text: Cow<'a, str>,
}

#[derive(Deserialize)]
struct BigArgs {
    #[serde(default)]
    bytes: usize,
}

#[derive(Deserialize)]
struct FloodArgs {
    #[serde(default)]
    notes: u64,
}

#[derive(Deserialize)]
struct SleepArgs {
    #[serde(default)]
    ms: u64,
}

#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct ToolResult<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'a str,
    content: [Text<'a>; 1],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    is_error: bool,
}

#[derive(Serialize)]
struct Notify<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    level: &'static str,
    message: &'a str,
}

type Out = Arc<Mutex<BufWriter<io::Stdout>>>;

/// Running `sleep` calls: id → the sender that cancels it.
type Sleepers = Arc<Mutex<HashMap<String, Sender<()>>>>;

fn write_result(w: &mut impl Write, id: &str, text: &str, is_error: bool) -> io::Result<()> {
    let frame = ToolResult {
        kind: "tool_result",
        id,
        content: [Text { kind: "text", text }],
        is_error,
    };
    serde_json::to_writer(&mut *w, &frame)?;
    w.write_all(b"\n")
}

fn write_line(w: &mut impl Write, line: &str) -> io::Result<()> {
    w.write_all(line.as_bytes())?;
    w.write_all(b"\n")
}

/// Starts a `sleep` call on its own thread.
fn start_sleep(out: &Out, sleepers: &Sleepers, id: String, ms: u64) {
    let (tx, rx) = mpsc::channel();
    lock(sleepers).insert(id.clone(), tx);
    let out = out.clone();
    let sleepers = sleepers.clone();
    std::thread::spawn(move || {
        let outcome = rx.recv_timeout(Duration::from_millis(ms));
        lock(&sleepers).remove(&id);
        let mut w = lock(&out);
        let written = match outcome {
            Err(RecvTimeoutError::Timeout) => {
                write_result(&mut *w, &id, &format!("slept {ms}"), false)
            }
            Ok(()) | Err(RecvTimeoutError::Disconnected) => {
                let message = format!("cancelled {ms}");
                let notify = Notify {
                    kind: "notify",
                    level: "warn",
                    message: &message,
                };
                serde_json::to_writer(&mut *w, &notify)
                    .map_err(io::Error::from)
                    .and_then(|()| w.write_all(b"\n"))
            }
        };
        let _ = written.and_then(|()| w.flush());
    });
}

fn cancel_all(sleepers: &Sleepers) {
    for (_, tx) in lock(sleepers).drain() {
        let _ = tx.send(());
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn run(config: &Config) -> io::Result<()> {
    let out: Out = Arc::new(Mutex::new(BufWriter::with_capacity(
        WRITE_BUFFER,
        io::stdout(),
    )));
    let sleepers: Sleepers = Arc::default();
    {
        let mut w = lock(&out);
        write_line(&mut *w, &config.hello())?;
        w.flush()?;
    }
    let mut input = BufReader::with_capacity(READ_BUFFER, io::stdin().lock());
    let mut line = Vec::with_capacity(64 * 1024);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            cancel_all(&sleepers);
            return Ok(());
        }
        let frame: Incoming<'_> = match serde_json::from_slice(&line) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("[bench-floor] bad frame: {e}");
                continue;
            }
        };
        let mut w = lock(&out);
        match frame.kind.as_ref() {
            "hello_ack" => {
                for reg in config.registration() {
                    write_line(&mut *w, &reg)?;
                }
            }
            "event_intercept" => {
                // Allow, unchanged.
                let id = serde_json::to_string(frame.id.as_deref().unwrap_or_default())?;
                write_line(
                    &mut *w,
                    &format!(r#"{{"type":"event_intercept_response","id":{id}}}"#),
                )?;
            }
            "tool_call" => {
                let id = frame.id.as_deref().unwrap_or_default();
                let args = frame.args.map_or("{}", RawValue::get);
                match frame.name.as_deref().unwrap_or_default() {
                    "echo" => match serde_json::from_str::<TextArgs<'_>>(args) {
                        Ok(a) => write_result(&mut *w, id, &a.text, false)?,
                        Err(_) => write_result(&mut *w, id, "missing text", true)?,
                    },
                    "big" => {
                        let n = serde_json::from_str::<BigArgs>(args).map_or(0, |a| a.bytes);
                        write_result(&mut *w, id, &"x".repeat(n), false)?;
                    }
                    "flood" => {
                        let n = serde_json::from_str::<FloodArgs>(args).map_or(0, |a| a.notes);
                        for i in 0..n {
                            let message = format!("flood note {i}");
                            let notify = Notify {
                                kind: "notify",
                                level: "info",
                                message: &message,
                            };
                            serde_json::to_writer(&mut *w, &notify)?;
                            w.write_all(b"\n")?;
                        }
                        write_result(&mut *w, id, &format!("flooded {n}"), false)?;
                    }
                    "sleep" => {
                        let ms = serde_json::from_str::<SleepArgs>(args).map_or(0, |a| a.ms);
                        start_sleep(&out, &sleepers, id.to_owned(), ms);
                    }
                    other => write_result(&mut *w, id, &format!("unknown tool {other}"), true)?,
                }
            }
            "tool_cancel" => {
                if let Some(tx) = frame.id.and_then(|id| lock(&sleepers).remove(id.as_ref())) {
                    let _ = tx.send(());
                }
            }
            "shutdown" => {
                cancel_all(&sleepers);
                write_line(&mut *w, r#"{"type":"shutdown_ack"}"#)?;
                w.flush()?;
                return Ok(());
            }
            // Events and everything else: parsed above, nothing to do.
            _ => {}
        }
        if input.buffer().is_empty() {
            w.flush()?;
        }
    }
}

fn main() -> std::process::ExitCode {
    let config = match Config::from_args() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("[bench-floor] {e}");
            return std::process::ExitCode::from(2);
        }
    };
    match run(&config) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("[bench-floor] {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
