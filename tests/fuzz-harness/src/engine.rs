//! The extension engine's line handling (`zot-ext`), as the SDKs use it.
//!
//! The input is what a host writes to an extension's stdin, after one byte
//! of options:
//! - bit 0: the harness sends a valid `hello_ack` first (otherwise the
//!   input's first line must be one, or the handshake fails);
//! - bit 1: a plain dispatcher answers the engine's jobs, pulled as the
//!   Node and Python bindings pull them ([`Engine::jobs_ready`], then
//!   [`Engine::take_jobs`]); otherwise the Rust SDK runs an extension. Both
//!   over the in-memory transport, read by the engine's own read loop (the
//!   one read path; this bit once selected the removed fed mode, where the
//!   caller handed the engine the bytes, and keeps its place so that the
//!   corpus keeps its meaning);
//! - bits 2–4: the first 512 bytes arrive in pieces of 1, 2, 3, 5, 8, 64
//!   or 512 bytes, or everything at once;
//! - bit 5, with the plain dispatcher: a `call_tool` waits for its answer
//!   while the input arrives, and event and panel jobs are answered only
//!   after it (a backlog the host's frames must get past: the call's
//!   answer overtakes them, the rest waits bounded); the harness then
//!   answers the call and the held jobs.
//!
//! The extension has a command, tools (typed, raw, and one that calls a
//! host tool, which the harness answers), event handlers, all four
//! interceptors and panel handlers, each answering at once. Properties:
//! - no panic, in any task;
//! - the session ends once the input does (a hang is a fuzzer timeout);
//! - everything the extension writes is a valid frame, `hello` first;
//! - every well-formed request read after the handshake — `command_invoked`,
//!   `tool_call`, `event_intercept` with an id — is answered with a reply
//!   of its kind and id, except a `tool_call` whose id a `tool_cancel`
//!   names (SDK-23), a well-formed `tool_call` on a last line that only
//!   the end of the input ends (it is read with the EOF, which cancels every
//!   tool call still open: SDK-23 again, nothing is sent), and anything once
//!   a `shutdown` was read (the session then ends without waiting for
//!   handlers). A *malformed* request whose
//!   type and id can still be read is owed its reply too (an error, or the
//!   fail-closed verdict: `engine/src/wire/reject.rs`); only a line without a
//!   readable id may be skipped (SDK-50).

use std::collections::BTreeSet;
use std::time::Duration;

use zot_ext::engine::SchemaOrigin;
use zot_ext::engine::{
    CommandOutcome, Engine, EngineConfig, InterceptOutcome, Job, MemoryHost, Outcome, ToolOutcome,
    Transport,
};
use zot_ext::{
    Extension, MessageVerdict, PromptVerdict, Response, ToolCallVerdict, ToolOutput, ToolSpec,
    TurnVerdict,
};
use zot_protocol::{
    CommandAction, ExtFrame, Frame, FrameTags, HostFrame, LineSplitter, RawJson, RegisterCommand,
    RegisterTool,
};

const ACK: u8 = 1;
const PLAIN: u8 = 2;
const WAITING: u8 = 32;
const PIECES: [usize; 8] = [1, 2, 3, 5, 8, 64, 512, usize::MAX];

/// The `hello_ack` the harness sends with option bit 0.
pub const HELLO_ACK: &str = r#"{"type":"hello_ack","protocol_version":1,"capabilities":["call_tool"],"zot_version":"fuzz","provider":"p","model":"m","cwd":"/"}"#;

/// Checks the input (see the module docs); panics on a violation.
pub fn check(data: &[u8]) {
    let Some((&options, input)) = data.split_first() else {
        return;
    };
    crate::quiet();
    let watch = crate::panics::watch();
    let piece = PIECES[usize::from(options >> 2) & 7];
    let mut wire = Vec::new();
    if options & ACK != 0 {
        wire.extend_from_slice(HELLO_ACK.as_bytes());
        wire.push(b'\n');
    }
    wire.extend_from_slice(input);
    let rt = crate::paused_runtime();
    let (sent, written) = if options & PLAIN != 0 {
        (
            wire.clone(),
            rt.block_on(plain(&wire, piece, options & WAITING != 0)),
        )
    } else {
        let mut sent = wire.clone();
        let written = rt.block_on(sdk(&mut sent, piece));
        (sent, written)
    };
    drop(rt);
    watch.check("engine");
    check_output(&sent, &written);
}

/// Long enough for everything runnable to run: on the paused clock a sleep
/// returns only once nothing else can (and no deadline of the engine is
/// this short).
async fn settle() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

/// The Rust SDK over the in-memory transport; returns every line written.
/// `sent` is the input, to which what the harness sends after it (its
/// answers to `call_tool`) is added.
async fn sdk(sent: &mut Vec<u8>, piece: usize) -> Vec<String> {
    let wire = sent.clone();
    let (transport, mut host) = Transport::memory();
    let session = tokio::spawn(extension().run_with(transport));
    let mut out = Vec::new();
    for chunk in crate::chunks(&wire, piece) {
        if host.send_bytes(chunk).await.is_err() {
            break; // the session ended and dropped its input
        }
        tokio::task::yield_now().await;
    }
    // The host's replies to `call_tool` go after the input: end a last
    // line the input left open first, or the first reply would extend it.
    let open_line = wire.last().is_some_and(|b| *b != b'\n');
    answer_calls(&mut host, &mut out, sent, open_line).await;
    host.close_input();
    // `Err` is a failed handshake or a broken session: fine; a panic is not.
    let ended = session.await;
    assert!(ended.is_ok(), "the session task failed: {ended:?}");
    while let Some(line) = host.try_recv_line() {
        out.push(line);
    }
    out
}

/// Collects what the extension wrote once it is idle, answering its
/// `call_tool`s (the `compose` tool's) until none is left; what it sends is
/// added to `sent`.
async fn answer_calls(
    host: &mut MemoryHost,
    out: &mut Vec<String>,
    sent: &mut Vec<u8>,
    mut open_line: bool,
) {
    loop {
        settle().await;
        let mut calls = Vec::new();
        while let Some(line) = host.try_recv_line() {
            if let Ok(ExtFrame::CallTool(c)) = ExtFrame::decode_str(&line) {
                calls.push(c.id);
            }
            out.push(line);
        }
        if calls.is_empty() {
            return;
        }
        if std::mem::take(&mut open_line) {
            let _ = host.send_bytes(b"\n").await;
            sent.push(b'\n');
        }
        for id in calls {
            let reply = serde_json::json!({
                "type": "tool_result", "id": id, "name": "echo",
                "content": [{"type": "text", "text": "ok"}],
            });
            let _ = host.send_line(&reply.to_string()).await;
            sent.extend_from_slice(reply.to_string().as_bytes());
            sent.push(b'\n');
        }
    }
}

fn extension() -> Extension {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Greet {
        name: String,
    }
    Extension::new("fuzzed", "1.0.0")
        .command("echo", "Echo", |args, _ctx| async move {
            Response::display(args)
        })
        .tool("greet", "Greet", |a: Greet, _ctx| async move {
            ToolOutput::text(a.name)
        })
        .tool_raw(ToolSpec::new("raw", "Raw"), |args, _ctx| async move {
            ToolOutput::text(args.get())
        })
        .tool_raw(
            ToolSpec::new("compose", "Calls a host tool"),
            |args, ctx| async move {
                match ctx.call_tool("echo", &args).await {
                    Ok(r) => ToolOutput::blocks(r.content),
                    Err(e) => ToolOutput::error(e.to_string()),
                }
            },
        )
        .on("tool_call", |_event, _ctx| async {})
        .on("turn_start", |_event, _ctx| async {})
        .intercept_tool_call(|call, _ctx| async move {
            match call.tool_name.as_str() {
                "bash" => ToolCallVerdict::block("no"),
                "edit" => ToolCallVerdict::modify(&serde_json::json!({"path": "x"})),
                _ => ToolCallVerdict::Allow,
            }
        })
        .intercept_turn_start(|_turn, _ctx| async { TurnVerdict::Allow })
        .intercept_assistant_message(|m, _ctx| async move {
            MessageVerdict::replace(m.text.to_uppercase())
        })
        .intercept_before_agent_start(|p, _ctx| async move {
            PromptVerdict::replace(format!("{}!", p.system_prompt))
        })
        .on_panel_key("main", |_key| {})
        .on_panel_close("main", || {})
        .on_panel_resize("main", |_resize| {})
}

/// The engine with a plain dispatcher pulling as the bindings do; returns
/// every line written.
async fn plain(wire: &[u8], piece: usize, waiting: bool) -> Vec<String> {
    let (transport, mut host) = Transport::memory();
    let engine =
        Engine::start(EngineConfig::new("fuzzed", "1.0.0"), transport).expect("the engine starts");
    engine
        .register_command(RegisterCommand {
            name: "echo".into(),
            description: String::new(),
        })
        .expect("registers");
    engine
        .register_tool(
            RegisterTool::new("raw", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .expect("registers");
    for event in ["tool_call", "turn_start", "from_the_future"] {
        engine.subscribe(event).expect("subscribes");
    }
    for event in [
        "tool_call",
        "turn_start",
        "assistant_message",
        "before_agent_start",
    ] {
        engine.intercept(event).expect("intercepts");
    }
    let held = Held::new(waiting);
    let dispatcher = tokio::spawn({
        let (engine, held) = (engine.clone(), held.clone());
        async move {
            loop {
                engine.jobs_ready().await;
                if dispatch(&engine, engine.take_jobs(), &held) {
                    return;
                }
            }
        }
    });
    for chunk in crate::chunks(wire, piece) {
        if host.send_bytes(chunk).await.is_err() {
            break; // the session ended and dropped its input
        }
        tokio::task::yield_now().await;
    }
    settle().await;
    let mut out = Vec::new();
    if waiting {
        let mut sent = Vec::new();
        answer_calls(&mut host, &mut out, &mut sent, false).await;
        held.release(&engine);
        settle().await;
    }
    host.close_input();
    let ended = dispatcher.await;
    assert!(ended.is_ok(), "the dispatcher failed: {ended:?}");
    while let Some(line) = host.try_recv_line() {
        out.push(line);
    }
    out
}

/// Event and panel jobs whose answers wait (option bit 5), and whether they
/// still do.
#[derive(Clone)]
struct Held(std::sync::Arc<std::sync::Mutex<Option<Vec<zot_ext::engine::JobId>>>>);

impl Held {
    fn new(waiting: bool) -> Self {
        Self(std::sync::Arc::new(std::sync::Mutex::new(
            waiting.then(Vec::new),
        )))
    }

    /// Keeps `id` for later; false when answers no longer wait.
    fn keep(&self, id: zot_ext::engine::JobId) -> bool {
        match self.0.lock().unwrap().as_mut() {
            Some(ids) => {
                ids.push(id);
                true
            }
            None => false,
        }
    }

    /// Answers what was kept; later jobs are answered at once.
    fn release(&self, engine: &Engine) {
        for id in self.0.lock().unwrap().take().unwrap_or_default() {
            let _ = engine.complete(id, Outcome::Done);
        }
    }
}

/// Answers every job at once (event and panel jobs maybe later, see
/// [`Held`]); returns whether the session finished.
fn dispatch(engine: &Engine, jobs: Vec<Job>, held: &Held) -> bool {
    let mut finished = false;
    for job in jobs {
        // An answer may find the session closed: that is the engine's call.
        let _ = match job {
            Job::Hello(_) => {
                let _ = engine.hello_done();
                if held.0.lock().unwrap().is_some() {
                    // Refused without the capability: then nothing waits.
                    let _ = engine.start_call(zot_ext::engine::CallRequest::new(
                        "echo",
                        RawJson::empty_object(),
                    ));
                }
                continue;
            }
            Job::Command(c) => engine.complete(
                c.id,
                Outcome::Command(CommandOutcome {
                    action: CommandAction::Display,
                    display: c.args,
                    ..CommandOutcome::default()
                }),
            ),
            Job::Tool(t) => engine.complete(
                t.id,
                Outcome::Tool(ToolOutcome {
                    content: vec![zot_protocol::ContentBlock::text(t.args.get())],
                    ..ToolOutcome::default()
                }),
            ),
            Job::Intercept(i) => {
                engine.complete(i.id, Outcome::Intercept(InterceptOutcome::default()))
            }
            Job::Event { id, .. }
            | Job::PanelKey { id, .. }
            | Job::PanelClose { id, .. }
            | Job::PanelResize { id, .. } => {
                if held.keep(id) {
                    continue;
                }
                engine.complete(id, Outcome::Done)
            }
            Job::Finished { .. } => {
                finished = true;
                continue;
            }
            _ => continue,
        };
    }
    finished
}

/// The properties on what the extension wrote (see the module docs);
/// `wire` is every byte the host side sent.
fn check_output(wire: &[u8], written: &[String]) {
    let mut frames = Vec::new();
    for line in written {
        match ExtFrame::decode_str(line) {
            Ok(f) => frames.push(f),
            Err(e) => panic!("the extension wrote an invalid frame: {e}\n  {line}"),
        }
    }
    assert!(
        matches!(frames.first(), Some(ExtFrame::Hello(_))),
        "hello is not the first frame: {written:?}"
    );
    let mut answered = BTreeSet::new();
    for f in &frames {
        match f {
            ExtFrame::CommandResponse(r) => answered.insert(("command_response", r.id.as_str())),
            ExtFrame::ToolResult(r) => answered.insert(("tool_result", r.id.as_str())),
            ExtFrame::EventInterceptResponse(r) => {
                answered.insert(("event_intercept_response", r.id.as_str()))
            }
            _ => false,
        };
    }
    let Some(requests) = requests(wire) else {
        return;
    };
    for (kind, id) in &requests.expected {
        if kind == &"tool_result" && requests.cancelled.contains(id) {
            continue;
        }
        assert!(
            answered.contains(&(*kind, id.as_str())),
            "no {kind} for request id {id:?}; the extension wrote:\n{}",
            written.join("\n")
        );
    }
}

struct Requests {
    /// (reply type, id) for every well-formed request.
    expected: Vec<(&'static str, String)>,
    /// Ids named by a `tool_cancel`.
    cancelled: BTreeSet<String>,
}

/// The requests in the host's bytes, read as the engine reads them; `None`
/// when the handshake fails or a `shutdown` is read (nothing is owed then).
fn requests(wire: &[u8]) -> Option<Requests> {
    let mut split = LineSplitter::new();
    let mut rest = wire;
    let mut handshaken = false;
    let mut out = Requests {
        expected: Vec::new(),
        cancelled: BTreeSet::new(),
    };
    loop {
        let at_eof = rest.is_empty();
        let line = if at_eof {
            match split.finish() {
                Some(l) => l,
                None => return handshaken.then_some(out),
            }
        } else {
            let (used, line) = split.push(rest);
            rest = &rest[used..];
            match line {
                Some(l) => l,
                None => continue,
            }
        };
        let frame = match line {
            Ok(l) if handshaken => match HostFrame::decode(l) {
                Err(_) => {
                    owed_for_malformed(l, &mut out);
                    continue;
                }
                ok => ok,
            },
            Ok(l) => HostFrame::decode(l),
            Err(_) if handshaken => continue,
            Err(_) => return None,
        };
        if !handshaken {
            if !matches!(frame, Ok(HostFrame::HelloAck(_))) {
                return None;
            }
            handshaken = true;
            continue;
        }
        match frame {
            Ok(HostFrame::CommandInvoked(c)) => out.expected.push(("command_response", c.id)),
            // Read with the EOF, which cancels it at once (SDK-23).
            Ok(HostFrame::ToolCall(_)) if at_eof => {}
            Ok(HostFrame::ToolCall(t)) => out.expected.push(("tool_result", t.id)),
            Ok(HostFrame::ToolCancel(c)) => {
                out.cancelled.insert(c.id);
            }
            Ok(HostFrame::EventIntercept(r)) => out
                .expected
                .push(("event_intercept_response", r.id().to_owned())),
            Ok(HostFrame::UnknownIntercept(u)) if !u.id.is_empty() => {
                out.expected.push(("event_intercept_response", u.id))
            }
            Ok(HostFrame::Shutdown) => return None,
            _ => {}
        }
    }
}

/// A request that does not decode is still owed its reply when its type
/// and id can be read (the engine's one-reply rule, `engine/src/wire/reject.rs`).
fn owed_for_malformed(line: &[u8], out: &mut Requests) {
    let Ok(FrameTags {
        frame_type,
        id: Some(id),
        ..
    }) = FrameTags::read(line)
    else {
        return;
    };
    let reply = match frame_type.as_str() {
        "command_invoked" => "command_response",
        "tool_call" => "tool_result",
        "event_intercept" => "event_intercept_response",
        _ => return,
    };
    out.expected.push((reply, id));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wire(lines: &[&str]) -> Vec<u8> {
        let mut w = format!("{HELLO_ACK}\n").into_bytes();
        for l in lines {
            w.extend_from_slice(l.as_bytes());
            w.push(b'\n');
        }
        w
    }

    const HELLO: &str = r#"{"type":"hello","name":"x","version":"1"}"#;
    const CALL: &str = r#"{"type":"tool_call","id":"t1","name":"raw","args":{}}"#;

    #[test]
    #[should_panic(expected = "no tool_result for request id \"t1\"")]
    fn an_unanswered_request_fails_the_check() {
        check_output(&wire(&[CALL]), &[HELLO.to_owned()]);
    }

    #[test]
    fn a_cancelled_call_or_a_shutdown_owes_nothing() {
        let cancel = r#"{"type":"tool_cancel","id":"t1"}"#;
        check_output(&wire(&[CALL, cancel]), &[HELLO.to_owned()]);
        check_output(
            &wire(&[r#"{"type":"shutdown"}"#, CALL]),
            &[HELLO.to_owned()],
        );
    }

    #[test]
    fn a_tool_call_that_only_the_eof_ends_owes_nothing() {
        let mut open = wire(&[]);
        open.extend_from_slice(CALL.as_bytes());
        check_output(&open, &[HELLO.to_owned()]);
    }

    #[test]
    #[should_panic(expected = "no command_response for request id \"c1\"")]
    fn a_command_that_only_the_eof_ends_is_still_owed_a_reply() {
        let mut open = wire(&[]);
        open.extend_from_slice(br#"{"type":"command_invoked","id":"c1","name":"echo","args":""}"#);
        check_output(&open, &[HELLO.to_owned()]);
    }

    #[test]
    #[should_panic(expected = "no tool_result for request id \"t2\"")]
    fn a_malformed_request_with_a_readable_id_is_owed_a_reply() {
        let bad = r#"{"type":"tool_call","id":"t2","name":5,"args":{}}"#;
        check_output(&wire(&[bad]), &[HELLO.to_owned()]);
    }

    #[test]
    #[should_panic(expected = "invalid frame")]
    fn an_invalid_frame_from_the_extension_fails_the_check() {
        check_output(&wire(&[]), &[HELLO.to_owned(), "{".to_owned()]);
    }

    #[test]
    fn both_paths_answer_a_session() {
        for options in [ACK, ACK | PLAIN, ACK | 7 << 2, ACK | PLAIN | 7 << 2] {
            let mut data = vec![options];
            data.extend_from_slice(CALL.as_bytes());
            data.push(b'\n');
            check(&data);
        }
    }
}
