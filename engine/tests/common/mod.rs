//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::time::Duration;

use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::{Engine, EngineConfig, Job, MemoryHost, Transport};
use zot_protocol::{encode_frame, Capability, ExtFrame, Frame, HelloAck, HostFrame};

/// A `hello_ack` line with the given capabilities.
pub fn ack_with(caps: &[&str]) -> HelloAck {
    HelloAck {
        capabilities: caps.iter().map(|c| Capability::from(*c)).collect(),
        ..default_hello_ack()
    }
}

pub fn line(frame: &HostFrame) -> String {
    String::from_utf8(encode_frame(frame).unwrap()).unwrap()
}

/// A started engine whose handshake is done (registrations made by
/// `register` before `hello_done`), plus the host side positioned after
/// `ready`. Returns the announcement lines.
pub async fn engine_with(
    config: EngineConfig,
    ack: HelloAck,
    register: impl FnOnce(&Engine),
) -> (Engine, MemoryHost, Vec<String>) {
    let (transport, mut host) = Transport::memory();
    let engine = Engine::start(config, transport).unwrap();
    register(&engine);
    let hello = host.recv_line().await.unwrap();
    assert!(hello.starts_with(r#"{"type":"hello""#), "{hello}");
    host.send(&HostFrame::HelloAck(ack)).await.unwrap();
    let jobs = engine.next_jobs().await;
    assert!(matches!(jobs.as_slice(), [Job::Hello(_)]), "{jobs:?}");
    engine.hello_done().unwrap();
    let mut announced = Vec::new();
    loop {
        let l = host.recv_line().await.unwrap();
        let ready = l == r#"{"type":"ready"}"#;
        announced.push(l);
        if ready {
            break;
        }
    }
    (engine, host, announced)
}

pub fn config() -> EngineConfig {
    EngineConfig::new("test", "0.0.1")
}

/// The next line from the extension, decoded.
pub async fn recv(host: &mut MemoryHost) -> ExtFrame {
    let l = host.recv_line().await.expect("extension output closed");
    ExtFrame::decode_str(&l).unwrap_or_else(|e| panic!("bad frame {l}: {e}"))
}

/// Pulls batches until one is non-empty.
pub async fn jobs(engine: &Engine) -> Vec<Job> {
    loop {
        let j = engine.next_jobs().await;
        if !j.is_empty() {
            return j;
        }
    }
}

/// Pulls jobs until `Finished`, returning all of them.
pub async fn until_finished(engine: &Engine) -> Vec<Job> {
    let mut all = Vec::new();
    loop {
        let batch = engine.next_jobs().await;
        let done = batch.iter().any(|j| matches!(j, Job::Finished { .. }));
        all.extend(batch);
        if done {
            return all;
        }
    }
}

pub const SECOND: Duration = Duration::from_secs(1);
