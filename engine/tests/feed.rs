//! `Engine::feed`: a binding hands over the bytes it read; the engine reads
//! them by the same rules as its own read loop.

mod common;

use common::*;
use zot_ext_engine::{
    Engine, EngineConfig, Job, JobId, MemoryHost, Outcome, Transport, SERIAL_READ_AHEAD,
};
use zot_protocol::{ExtFrame, RawJson, RegisterTool};

const ACK: &str = r#"{"type":"hello_ack","protocol_version":1,"zot_version":"1","provider":"p","model":"m","cwd":"/"}"#;

fn line(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(b'\n');
    v
}

fn event(seq: usize) -> Vec<u8> {
    line(&format!(
        r#"{{"type":"event","event":"tool_call","session_id":"s","cwd":"/","sequence":{seq},"tool_id":"t{seq}","tool_name":"bash","tool_args":{{}}}}"#
    ))
}

/// A fed engine with tool `t` and a `tool_call` subscription, past `ready`.
async fn started() -> (Engine, MemoryHost) {
    let (transport, mut host) = Transport::memory_fed();
    let engine = Engine::start(EngineConfig::new("fed", "1"), transport).unwrap();
    engine
        .register_tool(RegisterTool::new("t", "", RawJson::object_schema()))
        .unwrap();
    engine.subscribe("tool_call").unwrap();
    assert!(host
        .recv_line()
        .await
        .unwrap()
        .starts_with(r#"{"type":"hello""#));
    // hello_ack and a request in one chunk: the request waits for the
    // on-hello hook.
    let mut chunk = line(ACK);
    chunk.extend(line(
        r#"{"type":"tool_call","id":"early","name":"t","args":{}}"#,
    ));
    let fed = engine.feed(&chunk);
    assert!(
        matches!(fed.jobs.as_slice(), [Job::Hello(_)]),
        "{:?}",
        fed.jobs
    );
    assert!(fed.paused, "held for the hook");
    engine.hello_done().unwrap();
    let mut ready = false;
    while !ready {
        ready = host.recv_line().await.unwrap() == r#"{"type":"ready"}"#;
    }
    // The held request was read once the hook was done.
    let early = match jobs(&engine).await.as_slice() {
        [Job::Tool(t)] => t.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(early.invocation, "early");
    engine
        .complete(early.id, Outcome::Tool(Default::default()))
        .unwrap();
    match recv(&mut host).await {
        ExtFrame::ToolResult(r) => assert_eq!(r.id, "early"),
        other => panic!("{other:?}"),
    }
    (engine, host)
}

#[tokio::test]
async fn lines_cut_anywhere_give_their_jobs_from_the_feed_that_completes_them() {
    let (engine, _host) = started().await;
    let bytes = line(r#"{"type":"tool_call","id":"a","name":"t","args":{"x":"y"}}"#);
    let (head, tail) = bytes.split_at(17);
    let fed = engine.feed(head);
    assert!(fed.jobs.is_empty() && !fed.paused && !fed.ended);
    let fed = engine.feed(tail);
    match fed.jobs.as_slice() {
        [Job::Tool(t)] => assert_eq!((t.invocation.as_str(), t.args.get()), ("a", r#"{"x":"y"}"#)),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_full_backlog_pauses_feeding_without_losing_bytes() {
    let (engine, _host) = started().await;
    let n = 3 * SERIAL_READ_AHEAD;
    let chunk: Vec<u8> = (0..n).flat_map(event).collect();
    let mut fed = engine.feed(&chunk);
    assert!(fed.paused, "paused at the bound");
    assert!(fed.jobs.len() <= SERIAL_READ_AHEAD + SERIAL_READ_AHEAD / 4);
    let mut seen = 0;
    while seen < n {
        assert!(
            !fed.jobs.is_empty(),
            "an empty feed after answering resumes"
        );
        for job in &fed.jobs {
            match job {
                Job::Event { id, .. } => engine.complete(*id, Outcome::Done).map(|_| ()).unwrap(),
                other => panic!("{other:?}"),
            }
        }
        seen += fed.jobs.len();
        fed = engine.feed(&[]);
    }
    assert_eq!(seen, n);
    assert!(!fed.paused);
}

#[tokio::test]
async fn shutdown_fed_ends_the_session_with_its_ack() {
    let (engine, mut host) = started().await;
    // A request and `shutdown` in one chunk: the request comes back from
    // the feed, its cancellation (caused by the shutdown) after it.
    let mut chunk = line(r#"{"type":"tool_call","id":"s","name":"t","args":{}}"#);
    chunk.extend(line(r#"{"type":"shutdown"}"#));
    let fed = engine.feed(&chunk);
    assert!(fed.ended);
    let tool = match fed.jobs.as_slice() {
        [Job::Tool(t)] => t.id,
        other => panic!("{other:?}"),
    };
    let rest = until_finished(&engine).await;
    assert!(
        rest.iter()
            .any(|j| matches!(j, Job::Cancel { id } if *id == tool)),
        "{rest:?}"
    );
    assert!(
        matches!(rest.last(), Some(Job::Finished { error: None })),
        "{rest:?}"
    );
    assert_eq!(recv(&mut host).await, ExtFrame::ShutdownAck);
    // Later bytes are ignored.
    assert!(
        engine
            .feed(&line(
                r#"{"type":"tool_call","id":"z","name":"t","args":{}}"#
            ))
            .ended
    );
}

#[tokio::test]
async fn the_end_of_input_reads_a_last_line_without_lf_then_closes() {
    let (engine, _host) = started().await;
    let fed = engine.feed(br#"{"type":"tool_call","id":"last","name":"t","args":{}}"#);
    assert!(fed.jobs.is_empty());
    let fed = engine.feed_end(None);
    assert!(fed.ended);
    assert!(
        matches!(fed.jobs.as_slice(), [Job::Tool(t)] if t.invocation == "last"),
        "{:?}",
        fed.jobs
    );
    let rest = until_finished(&engine).await;
    assert!(
        matches!(rest.last(), Some(Job::Finished { error: None })),
        "{rest:?}"
    );
}

#[tokio::test]
async fn input_that_ends_before_hello_ack_fails_the_handshake() {
    let (transport, _host) = Transport::memory_fed();
    let engine = Engine::start(EngineConfig::new("fed", "1"), transport).unwrap();
    assert!(engine.feed_end(Some("connection reset")).ended);
    let all = until_finished(&engine).await;
    match all.last() {
        Some(Job::Finished { error: Some(e) }) => assert!(e.contains("before hello_ack"), "{e}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn feeding_an_engine_that_reads_by_itself_does_nothing() {
    let (transport, _host) = Transport::memory();
    let engine = Engine::start(EngineConfig::new("x", "1"), transport).unwrap();
    let fed = engine.feed(ACK.as_bytes());
    assert!(fed.ended && fed.jobs.is_empty());
}

/// The handover: the engine reads the handshake from a real pipe, then a
/// binding takes the pipe, with a line the engine had begun, and feeds.
#[cfg(unix)]
mod handover {
    use std::io::Write;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use super::*;
    use zot_ext_engine::FrameSink;

    #[derive(Clone, Default)]
    struct Out(Arc<Mutex<Vec<u8>>>);

    impl FrameSink for Out {
        fn write_all(&mut self, buf: &[u8], _deadline: Instant) -> std::io::Result<()> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(())
        }
    }

    impl Out {
        fn lines(&self) -> Vec<String> {
            String::from_utf8(self.0.lock().unwrap().clone())
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect()
        }
    }

    fn pipe() -> (OwnedFd, std::fs::File) {
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills two fresh descriptors, which we own.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: both descriptors were just made by pipe(2) and nothing else owns them.
        unsafe {
            (
                OwnedFd::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        }
    }

    /// Reads what is in the (non-blocking) pipe now.
    fn read_now(fd: &OwnedFd) -> Vec<u8> {
        let mut buf = vec![0u8; 65536];
        // SAFETY: reading into our buffer.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        buf.truncate(n.max(0) as usize);
        buf
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_binding_takes_the_pipe_and_what_the_engine_had_buffered() {
        let (read, mut write) = pipe();
        let out = Out::default();
        let transport = Transport::fd(read, out.clone()).with_handover();
        let engine = Engine::start(EngineConfig::new("fed", "1"), transport).unwrap();
        engine
            .register_tool(RegisterTool::new("t", "", RawJson::object_schema()))
            .unwrap();
        // One write (atomic on a pipe): hello_ack, a request, half of the
        // next. The engine reads it whole, then holds the rest for the hook.
        let b = line(r#"{"type":"tool_call","id":"b","name":"t","args":{}}"#);
        let mut chunk = line(ACK);
        chunk.extend(line(
            r#"{"type":"tool_call","id":"a","name":"t","args":{}}"#,
        ));
        chunk.extend_from_slice(&b[..20]);
        write.write_all(&chunk).unwrap();
        assert!(matches!(jobs(&engine).await.as_slice(), [Job::Hello(_)]));
        // The binding takes the pipe during the hook (take_wire blocks until
        // the read loop stopped: not on this runtime's own thread).
        let e = engine.clone();
        let wire = tokio::task::spawn_blocking(move || e.take_wire())
            .await
            .unwrap()
            .expect("a pipe read through the reactor is handed over");
        assert!(engine.take_wire().is_none(), "taken once");
        let held = engine.feed(&[]);
        assert!(
            held.paused && held.jobs.is_empty(),
            "still held for the hook"
        );
        // The hook is done: the buffered request is read.
        engine.hello_done().unwrap();
        let a = match jobs(&engine).await.as_slice() {
            [Job::Tool(t)] => t.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(a.invocation, "a");
        // The rest of the half line arrives on the pipe the binding reads.
        write.write_all(&b[20..]).unwrap();
        let fed = engine.feed(&read_now(&wire));
        match fed.jobs.as_slice() {
            [Job::Tool(t)] => assert_eq!(t.invocation, "b"),
            other => panic!("{other:?}"),
        }
        engine
            .complete(a.id, Outcome::Tool(Default::default()))
            .unwrap();
        drop(write);
        assert!(engine.feed_end(None).ended);
        let rest = until_finished(&engine).await;
        assert!(
            matches!(rest.last(), Some(Job::Finished { error: None })),
            "{rest:?}"
        );
        let lines = out.lines();
        assert!(lines.iter().any(|l| l.contains(r#""id":"a""#)), "{lines:?}");
    }

    /// Issue 13, item 1: the binding asks for the pipe while the reader
    /// waits for room in a full event backlog (a burst of events, then the
    /// first request's batch makes the binding ask). The reader used to
    /// poll its spent `asked` future again and panic; the pipe is handed
    /// over instead, and every event arrives once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_binding_that_asks_while_the_event_backlog_is_full_takes_the_pipe() {
        let (read, mut write) = pipe();
        let transport = Transport::fd(read, Out::default()).with_handover();
        let engine = Engine::start(EngineConfig::new("fed", "1"), transport).unwrap();
        engine.subscribe("tool_call").unwrap();
        write.write_all(&line(ACK)).unwrap();
        assert!(matches!(jobs(&engine).await.as_slice(), [Job::Hello(_)]));
        engine.hello_done().unwrap();
        // Three times what the reader reads ahead, from a thread (the pipe
        // holds only part of it).
        let n = 3 * SERIAL_READ_AHEAD;
        let burst: Vec<u8> = (0..n).flat_map(event).collect();
        let writing = std::thread::spawn(move || write.write_all(&burst).map(|()| write));
        let event_ids = |batch: Vec<Job>| -> Vec<JobId> {
            batch
                .into_iter()
                .map(|j| match j {
                    Job::Event { id, .. } => id,
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        let mut open = Vec::new();
        while open.len() < SERIAL_READ_AHEAD {
            open.extend(event_ids(jobs(&engine).await));
        }
        // None answered: the reader now waits for room in the backlog.
        let e = engine.clone();
        let wire = tokio::task::spawn_blocking(move || e.take_wire())
            .await
            .unwrap()
            .expect("handed over while the backlog is full");
        // SAFETY: an `OwnedFd` stays open and unchanged while the `AsyncFd`
        // owns it.
        let wire = unsafe {
            tokio::io::unix::AsyncFd::register_with_interest(wire, tokio::io::Interest::READABLE)
        }
        .unwrap();
        let read_some = || async {
            loop {
                let mut ready = wire.readable().await.unwrap();
                let bytes = read_now(ready.get_inner());
                if !bytes.is_empty() {
                    return bytes;
                }
                ready.clear_ready();
            }
        };
        // Feeding keeps the bound: held until events are answered.
        let held = engine.feed(&read_some().await);
        assert!(held.paused && held.jobs.is_empty(), "{held:?}");
        let mut seen = open.len();
        engine.complete_serial(&open).unwrap();
        let mut fed = engine.feed(&[]);
        loop {
            let ids = event_ids(std::mem::take(&mut fed.jobs));
            seen += ids.len();
            engine.complete_serial(&ids).unwrap();
            if seen >= n {
                break;
            }
            fed = engine.feed(&if fed.paused {
                Vec::new()
            } else {
                read_some().await
            });
        }
        assert_eq!(seen, n, "every event once");
        drop(writing.join().unwrap().unwrap());
        assert!(read_now(wire.get_ref()).is_empty(), "nothing left");
        let fed = engine.feed_end(None);
        assert!(fed.ended);
        // The closing comes from this feed when it is quick, else queued.
        let mut end = fed.jobs;
        if !matches!(end.last(), Some(Job::Finished { .. })) {
            end.extend(until_finished(&engine).await);
        }
        assert!(
            matches!(end.last(), Some(Job::Finished { error: None })),
            "{end:?}"
        );
    }

    #[tokio::test]
    async fn an_engine_reading_a_memory_pipe_keeps_reading() {
        let (transport, _host) = Transport::memory();
        let engine = Engine::start(EngineConfig::new("x", "1"), transport.with_handover()).unwrap();
        assert!(engine.take_wire().is_none());
        // It reads by itself: fed bytes would mix with its stream.
        assert!(engine.feed(ACK.as_bytes()).ended);
    }
}

#[tokio::test]
async fn a_call_result_fed_comes_back_from_the_same_feed() {
    let (transport, mut host) = Transport::memory_fed();
    let engine = Engine::start(EngineConfig::new("fed", "1"), transport).unwrap();
    host.recv_line().await.unwrap(); // hello
    let ack = r#"{"type":"hello_ack","protocol_version":1,"zot_version":"1","provider":"p","model":"m","cwd":"/","capabilities":["call_tool"]}"#;
    assert!(matches!(
        engine.feed(&line(ack)).jobs.as_slice(),
        [Job::Hello(_)]
    ));
    engine.hello_done().unwrap();
    let call = engine
        .start_call(zot_ext_engine::CallRequest::new(
            "echo",
            RawJson::from_value(&serde_json::json!({})).unwrap(),
        ))
        .unwrap();
    let wire = loop {
        if let ExtFrame::CallTool(c) = recv(&mut host).await {
            break c.id;
        }
    };
    let answer = format!(r#"{{"type":"tool_result","id":"{wire}","name":"echo","content":[]}}"#);
    let fed = engine.feed(&line(&answer));
    assert!(
        matches!(fed.jobs.as_slice(), [Job::CallResult { call: c, result: Ok(_) }] if *c == call),
        "{:?}",
        fed.jobs
    );
}
