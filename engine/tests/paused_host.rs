//! A host that stops reading (Ctrl-Z in its terminal, a busy machine) loses
//! nothing: the extension waits for it as long as the pipe is open, reads no
//! new requests meanwhile, and answers everything once the host reads again.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::SchemaOrigin;
use zot_ext_engine::{Engine, EngineConfig, Job, Outcome, ToolOutcome, Transport};
use zot_protocol::{encode_frame, ContentBlock, ExtFrame, Frame, HostFrame, RawJson, RegisterTool};

const CALLS: usize = 2000;
const ARG_BYTES: usize = 4096;

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe(2) fills two fresh descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both are ours.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

/// Answers every `echo` call with its `text` argument, counting answers.
fn drive(engine: Engine, rt: tokio::runtime::Handle, answered: Arc<AtomicUsize>) {
    loop {
        for job in rt.block_on(engine.next_jobs()) {
            match job {
                Job::Hello(_) => engine.hello_done().unwrap(),
                Job::Tool(t) => {
                    let args: serde_json::Value = serde_json::from_str(t.args.get()).unwrap();
                    let text = args["text"].as_str().unwrap().to_owned();
                    let out = ToolOutcome {
                        content: vec![ContentBlock::text(text)],
                        ..ToolOutcome::default()
                    };
                    engine.complete(t.id, Outcome::Tool(out)).unwrap();
                    answered.fetch_add(1, Ordering::SeqCst);
                }
                Job::Finished { .. } => return,
                _ => {}
            }
        }
    }
}

fn host_line(frame: &HostFrame) -> Vec<u8> {
    encode_frame(frame).unwrap()
}

#[test]
fn a_host_that_stops_reading_for_longer_than_5_s_loses_no_reply() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (ext_in, host_out) = pipe();
    let (host_in, ext_out) = pipe();
    let engine = {
        let _guard = rt.enter();
        Engine::start(
            EngineConfig::new("echo", "1.0.0"),
            Transport::pipes(ext_in, ext_out).unwrap(),
        )
        .unwrap()
    };
    engine
        .register_tool(
            RegisterTool::new("echo", "", RawJson::object_schema()),
            SchemaOrigin::Given,
        )
        .unwrap();
    let answered = Arc::new(AtomicUsize::new(0));
    let driver = {
        let (handle, answered) = (rt.handle().clone(), answered.clone());
        std::thread::spawn(move || drive(engine, handle, answered))
    };
    let writer = std::thread::spawn(move || {
        let mut out = std::fs::File::from(host_out);
        out.write_all(&host_line(&HostFrame::HelloAck(default_hello_ack())))
            .unwrap();
        let text = "x".repeat(ARG_BYTES);
        for i in 0..CALLS {
            let line = format!(
                r#"{{"type":"tool_call","id":"{i}","name":"echo","args":{{"text":"{text}"}}}}"#
            );
            out.write_all(line.as_bytes()).unwrap();
            out.write_all(b"\n").unwrap();
        }
        out
    });

    // The host stops reading for longer than the 5 s a write used to get.
    std::thread::sleep(Duration::from_secs(6));
    let while_paused = answered.load(Ordering::SeqCst);
    assert!(
        while_paused < 200,
        "{while_paused} calls were answered while the host read nothing: reading should have paused"
    );
    assert!(
        !writer.is_finished(),
        "the extension stopped reading requests"
    );

    // The host reads again: every reply arrives, whole and in full.
    let mut lines = BufReader::new(std::fs::File::from(host_in)).lines();
    let mut results = 0;
    while results < CALLS {
        let line = lines.next().expect("the extension ended early").unwrap();
        match ExtFrame::decode_str(&line).unwrap() {
            ExtFrame::ToolResult(r) => {
                assert!(!r.is_error, "{line}");
                assert_eq!(r.content[0].as_text().map(str::len), Some(ARG_BYTES));
                results += 1;
            }
            ExtFrame::Hello(_) | ExtFrame::RegisterTool(_) | ExtFrame::Ready => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    let mut out = writer.join().unwrap();
    out.write_all(&host_line(&HostFrame::Shutdown)).unwrap();
    let last = lines.next().expect("shutdown_ack").unwrap();
    assert!(matches!(
        ExtFrame::decode_str(&last).unwrap(),
        ExtFrame::ShutdownAck
    ));
    driver.join().unwrap();
}
