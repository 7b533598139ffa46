//! The writer, the frame limit, broken transports, the end of a session and
//! the wake-up descriptor (SDK-48, SDK-49, SDK-52, WIRE-7).

#[path = "../../engine/tests/common/mod.rs"]
mod common;

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use common::*;
use serde_json::json;
use zot_ext::engine::SchemaOrigin;
use zot_ext::engine::{
    CompleteError, Completion, DropReason, Engine, FrameSink, Job, Outcome, SendError, ToolOutcome,
    Transport, WriteError, WriteWait,
};
use zot_ext::testing::{default_hello_ack, TestHost};
use zot_ext::{Extension, ToolOutput};
use zot_protocol::limits::MAX_FRAME_BYTES;
use zot_protocol::{ContentBlock, ExtFrame, HostFrame, PanelRender, RawJson, RegisterTool};

#[tokio::test]
async fn a_tool_result_over_the_frame_limit_becomes_an_error_result() {
    let ext = Extension::new("x", "1").tool("big", "", |a: serde_json::Value, _c| async move {
        ToolOutput::text("x".repeat(a["bytes"].as_u64().unwrap() as usize))
    });
    let mut host = TestHost::start(ext).await.unwrap();
    let fits = host
        .tool("big", json!({"bytes": MAX_FRAME_BYTES - 100}))
        .await
        .unwrap();
    assert_eq!(
        fits.content[0].as_text().unwrap().len(),
        MAX_FRAME_BYTES - 100
    );
    let r = host
        .tool("big", json!({"bytes": MAX_FRAME_BYTES}))
        .await
        .unwrap();
    assert!(r.is_error);
    let text = r.content[0].as_text().unwrap();
    assert!(
        text.starts_with("tool result not sent: frame of")
            && text.contains("4194304-byte frame limit"),
        "{text}"
    );
    assert!(host.transcript().iter().all(|l| l.len() < MAX_FRAME_BYTES));
}

#[tokio::test]
async fn oversize_frames_are_refused_with_an_error_to_the_caller() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    })
    .await;
    let huge = "y".repeat(MAX_FRAME_BYTES);
    let err = engine
        .render_panel(PanelRender {
            panel_id: "p".into(),
            lines: vec![huge.clone()],
            ..Default::default()
        })
        .unwrap_err();
    assert!(
        matches!(err, SendError::Write(WriteError::TooLarge { .. })),
        "{err:?}"
    );
    host.send_line(r#"{"type":"tool_call","id":"1","name":"t","args":{}}"#)
        .await
        .unwrap();
    let Job::Tool(t) = jobs(&engine).await.remove(0) else {
        panic!()
    };
    let out = ToolOutcome {
        content: vec![ContentBlock::text(huge)],
        ..Default::default()
    };
    let err = engine.complete(t.id, Outcome::Tool(out)).unwrap_err();
    assert!(matches!(err, CompleteError::TooLarge(_)), "{err:?}");
    let line = host.recv_line().await.unwrap();
    assert!(line.starts_with(r#"{"type":"tool_result","id":"1","content":[{"type":"text","text":"tool result not sent"#), "{line}");
    assert!(line.ends_with(r#""is_error":true}"#));
    // The panel frame was never written.
    assert_eq!(host.try_recv_line(), None);
}

#[tokio::test]
async fn shutdown_ack_is_the_last_frame_and_the_session_ends() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    })
    .await;
    host.send_line(r#"{"type":"tool_call","id":"1","name":"t","args":{}}"#)
        .await
        .unwrap();
    host.send_line(r#"{"type":"shutdown"}"#).await.unwrap();
    host.send_line(r#"{"type":"tool_call","id":"2","name":"t","args":{}}"#)
        .await
        .unwrap(); // after shutdown: not read
    let mut all = Vec::new();
    let id = loop {
        let batch = jobs(&engine).await;
        let tool = batch.iter().find_map(|j| match j {
            Job::Tool(t) => Some(t.id),
            _ => None,
        });
        all.extend(batch);
        if let Some(id) = tool {
            break id;
        }
    };
    // Handlers may still write during the grace...
    engine
        .notify(zot_protocol::NotifyLevel::Info, "last words")
        .unwrap();
    // ...but the result of a cancelled tool is dropped.
    assert_eq!(
        engine
            .complete(id, Outcome::Tool(ToolOutcome::default()))
            .unwrap(),
        Completion::Dropped(DropReason::Cancelled)
    );
    all.extend(until_finished(&engine).await);
    let kinds: Vec<String> = all.iter().map(|j| j.to_json()).collect();
    assert_eq!(
        kinds,
        [
            // Cancelled by the shutdown before it was taken: marked so.
            r#"{"kind":"tool","id":1,"lane":"concurrent","invocation":"1","name":"t","args":{},"interactive":false,"cancelled":true}"#,
            r#"{"kind":"shutdown"}"#,
            r#"{"kind":"finished"}"#,
        ]
    );
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"notify","level":"info","message":"last words"}"#
    );
    assert_eq!(
        host.recv_line().await.unwrap(),
        r#"{"type":"shutdown_ack"}"#
    );
    assert_eq!(host.recv_line().await, None);
    // After the end: nothing is written, answers are dropped.
    assert!(engine
        .notify(zot_protocol::NotifyLevel::Info, "too late")
        .is_err());
    assert!(engine.next_jobs().await.is_empty());
    assert!(engine.take_jobs().is_empty());
    engine.finished().await;
}

#[tokio::test]
async fn eof_ends_the_session_without_ack_and_run_returns_ok() {
    let ext = Extension::new("x", "1");
    let mut host = TestHost::start(ext).await.unwrap();
    assert_eq!(host.close_stdin().await.unwrap(), []);
    assert_eq!(host.finished().await, Some(Ok(())));
}

#[tokio::test]
async fn a_local_close_ends_the_session_without_ack() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    engine.close();
    let jobs = until_finished(&engine).await;
    assert!(
        matches!(
            jobs.as_slice(),
            [Job::Shutdown, Job::Finished { error: None }]
        ),
        "{jobs:?}"
    );
    assert_eq!(host.recv_line().await, None);
}

/// A sink that works until `stuck` is set, then fails like a pipe the host
/// closed.
struct Stuckable {
    lines: Arc<Mutex<Vec<u8>>>,
    stuck: Arc<AtomicBool>,
}

impl FrameSink for Stuckable {
    fn write_all(&mut self, buf: &[u8], _wait: &WriteWait<'_>) -> io::Result<()> {
        if self.stuck.load(Ordering::SeqCst) {
            return Err(io::ErrorKind::BrokenPipe.into());
        }
        self.lines.lock().unwrap().extend_from_slice(buf);
        Ok(())
    }
}

#[tokio::test]
async fn a_closed_pipe_breaks_the_transport_and_ends_the_session() {
    let stuck = Arc::new(AtomicBool::new(false));
    let written = Arc::new(Mutex::new(Vec::new()));
    let (host_w, ext_r) = tokio::io::duplex(64 * 1024);
    let sink = Stuckable {
        lines: written.clone(),
        stuck: stuck.clone(),
    };
    let engine = Engine::start(config(), Transport::new(ext_r, sink)).unwrap();
    engine
        .register_tool(
            RegisterTool::new("t", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    let mut host_w = host_w;
    use tokio::io::AsyncWriteExt;
    let ack = line(&HostFrame::HelloAck(default_hello_ack()));
    host_w.write_all(ack.as_bytes()).await.unwrap();
    assert!(matches!(jobs(&engine).await.as_slice(), [Job::Hello(_)]));
    engine.hello_done().unwrap();
    host_w
        .write_all(b"{\"type\":\"tool_call\",\"id\":\"1\",\"name\":\"t\",\"args\":{}}\n")
        .await
        .unwrap();
    let Job::Tool(t) = jobs(&engine).await.remove(0) else {
        panic!()
    };
    stuck.store(true, Ordering::SeqCst);
    let err = engine
        .complete(t.id, Outcome::Tool(ToolOutcome::default()))
        .unwrap_err();
    assert!(
        matches!(err, CompleteError::Transport(WriteError::Broken(_))),
        "{err:?}"
    );
    let rest = until_finished(&engine).await;
    match rest.last() {
        Some(Job::Finished { error: Some(e) }) => assert!(e.contains("roken pipe"), "{e}"),
        other => panic!("{other:?}"),
    }
    let text = String::from_utf8(written.lock().unwrap().clone()).unwrap();
    assert!(text.ends_with("{\"type\":\"ready\"}\n"), "{text}");
}

#[cfg(unix)]
#[tokio::test]
async fn the_wake_fd_is_readable_while_jobs_are_queued() {
    fn readable(fd: i32) -> bool {
        let mut p = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, no wait.
        unsafe { libc::poll(&mut p, 1, 0) == 1 }
    }
    let (transport, mut host) = Transport::memory();
    let engine = Engine::start(config(), transport).unwrap();
    engine.subscribe("turn_start").unwrap();
    let fd = engine.wake_fd().unwrap();
    assert_eq!(engine.wake_fd().unwrap(), fd);
    host.recv_line().await.unwrap();
    assert!(!readable(fd));
    host.send(&HostFrame::HelloAck(default_hello_ack()))
        .await
        .unwrap();
    while !readable(fd) {
        tokio::task::yield_now().await;
    }
    let jobs = engine.take_jobs();
    assert!(matches!(jobs.as_slice(), [Job::Hello(_)]));
    assert!(!readable(fd));
    assert!(engine.take_jobs().is_empty());
    engine.hello_done().unwrap();
    for step in 1..=3 {
        host.send_line(&format!(
            r#"{{"type":"event","event":"turn_start","step":{step}}}"#
        ))
        .await
        .unwrap();
    }
    let mut events = 0;
    while events < 3 {
        while !readable(fd) {
            tokio::task::yield_now().await;
        }
        for j in engine.take_jobs() {
            let Job::Event { id, .. } = j else {
                panic!("{j:?}")
            };
            engine.complete(id, Outcome::Done).unwrap();
            events += 1;
        }
    }
    assert!(!readable(fd));
}

#[tokio::test]
async fn a_burst_of_frames_is_delivered_as_one_batch() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.subscribe("turn_start").unwrap()
    })
    .await;
    let burst: String = (1..=50)
        .map(|i| format!("{{\"type\":\"event\",\"event\":\"turn_start\",\"step\":{i}}}\n"))
        .collect();
    host.send_bytes(burst.as_bytes()).await.unwrap();
    let batch = jobs(&engine).await;
    assert_eq!(batch.len(), 50);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_never_interleave_frames() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |_| {}).await;
    let mut threads = Vec::new();
    for t in 0..4 {
        let engine = engine.clone();
        threads.push(std::thread::spawn(move || {
            for i in 0..200 {
                let msg = format!("{t}-{i}-{}", "z".repeat(1000 * (i % 7)));
                engine.notify(zot_protocol::NotifyLevel::Info, msg).unwrap();
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    let mut per_thread = [0usize; 4];
    for _ in 0..800 {
        let frame = recv(&mut host).await;
        let ExtFrame::Notify(n) = frame else { panic!() };
        let mut parts = n.message.splitn(3, '-');
        let t: usize = parts.next().unwrap().parse().unwrap();
        let i: usize = parts.next().unwrap().parse().unwrap();
        assert_eq!(per_thread[t], i, "frames of one writer stay in order");
        per_thread[t] += 1;
    }
}
