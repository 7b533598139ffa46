//! **Not API.** The entry point of the `host_intake` fuzz target (`fuzz/`),
//! compiled only with the `fuzzing` feature and hidden from the docs; it may
//! change or go away at any time.
//!
//! [`ext_output`] does with bytes what the host does with an extension's
//! stdout, without a process: the first line goes through the handshake
//! check, every later line through the extension's own read loop, into the
//! manager (registry, reply routing) and the session engine (notes,
//! panels, `submit`, `call_tool`), with the wire log on. It reports what
//! came of it; `zot-fuzz-harness` checks the properties.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::io::{AsyncWriteExt, BufReader};
use tokio::sync::oneshot::error::TryRecvError;
use zot_protocol::{Hello, LineReader};

use crate::config::{HostConfig, HostMode};
use crate::process::extension::{FrameHandler, LoadedExtension, NewExtension, ReplyKind};
use crate::process::hello::{first_line, HandshakeError};
use crate::process::manager::Manager;
use crate::process::outbound::Outbound;
use crate::process::spawn::ExtLog;
use crate::process::stop_all::StopBy;
use crate::session::engine::SessionEngine;
use crate::session::script::Script;
use crate::store::discovery::{DiscoveryOptions, Source};
use crate::store::manifest::Manifest;
use crate::store::name::ExtName;
use crate::transcript::Transcript;
use crate::wire::{Dir, WireLog};

/// How [`ext_output`] runs.
#[derive(Debug, Clone)]
pub struct IntakeOptions {
    /// The host mode (decides what spontaneous frames do, §14.4).
    pub mode: HostMode,
    /// Continuous mode (`call_tool` needs parents and keys, §9.5).
    pub continuous: bool,
    /// The sizes of the first writes to the stream, as a pipe delivers
    /// bytes, so that reading and handling interleave; the rest of the
    /// bytes follow in one write.
    pub writes: Vec<usize>,
}

/// How a request the host was waiting on ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestEnd {
    /// A reply (or a malformed reply naming its id) was routed to it.
    Answered,
    /// It was failed (the extension disconnected).
    Failed,
    /// Still waiting after the extension is gone: a request that would
    /// wait out its whole deadline.
    Waiting,
}

/// What [`ext_output`] saw.
#[derive(Debug)]
pub struct Intake {
    /// The handshake's verdict on the first line; `None` when there was no
    /// line at all.
    pub hello: Option<Result<Hello, HandshakeError>>,
    /// Why the read loop ended (`None` when the handshake failed).
    pub disconnect: Option<String>,
    /// The requests the host had sent before reading (a command, a tool
    /// call and an interception, ids `"1"`, `"2"`, `"3"`), and how each
    /// ended.
    pub requests: Vec<(String, RequestEnd)>,
    /// How many records the wire log has of lines read from the
    /// extension.
    pub lines_logged: usize,
    /// The extension's diagnostics (what `ext doctor` shows).
    pub diagnostics: Vec<String>,
}

/// The extension's manifest name in the report.
pub const NAME: &str = "fuzzed";

/// Runs `stdout` through the host's intake (see the module docs). Call it
/// on a current-thread runtime with the clock paused, so that deadlines
/// pass at once and a run is deterministic.
pub async fn ext_output(stdout: &[u8], opts: &IntakeOptions) -> Intake {
    let nowhere = PathBuf::from("/nonexistent/zot-fuzz");
    let mut cfg = HostConfig::new(nowhere.clone(), nowhere.clone());
    cfg.mode = opts.mode;
    cfg.continuous = opts.continuous;
    let (wire, records) = WireLog::memory();
    let (mgr, engine) = session(&cfg, &nowhere, &wire);
    let shared = mgr.shared().clone();
    let (writer, stdout_end) = feed(stdout.to_vec(), opts.writes.clone());
    let mut lines = LineReader::new(BufReader::new(stdout_end));
    let first = match lines.next_line().await {
        Ok(Some(line)) => Some(first_line(NAME, line, shared.wire.as_ref())),
        Ok(None) => None,
        Err(e) => Some(Err(HandshakeError::Malformed(e.to_string()))),
    };
    let hello = match first {
        Some(Ok(hello)) => hello,
        other => {
            writer.abort();
            return Intake {
                hello: other,
                disconnect: None,
                requests: Vec::new(),
                lines_logged: records.count(Dir::ExtToHost),
                diagnostics: Vec::new(),
            };
        }
    };
    let ext = peer(&mgr, &cfg, hello.clone(), wire, nowhere);
    mgr.adopt(ext.clone());
    let waiting: Vec<_> = [ReplyKind::Command, ReplyKind::Tool, ReplyKind::Intercept]
        .into_iter()
        .map(|kind| {
            let id = shared.next_id();
            let rx = ext.expect_reply(&id, kind);
            (id, rx)
        })
        .collect();
    if !matches!(cfg.mode, HostMode::Print | HostMode::Json) {
        engine.start_session();
    }
    ext.clone().read_loop(shared.clone(), lines).await;
    let _ = writer.await;
    let requests = waiting
        .into_iter()
        .map(|(id, mut rx)| {
            let end = match rx.try_recv() {
                Ok(_) => RequestEnd::Answered,
                Err(TryRecvError::Closed) => RequestEnd::Failed,
                Err(TryRecvError::Empty) => RequestEnd::Waiting,
            };
            (id, end)
        })
        .collect();
    engine.shutdown_by(StopBy::Eof).await;
    Intake {
        hello: Some(Ok(hello)),
        disconnect: ext.disconnect_reason(),
        requests,
        lines_logged: records.count(Dir::ExtToHost),
        diagnostics: ext.diagnostics(),
    }
}

/// A manager that discovers nothing and a session engine handling its
/// frames.
fn session(
    cfg: &HostConfig,
    nowhere: &std::path::Path,
    wire: &WireLog,
) -> (Arc<Manager>, Arc<SessionEngine>) {
    let discovery = DiscoveryOptions {
        cwd: nowhere.to_path_buf(),
        zot_home: nowhere.to_path_buf(),
        explicit: Vec::new(),
        no_discovery: true,
    };
    let mgr = Manager::new(
        cfg.clone(),
        discovery,
        Some(wire.clone()),
        Transcript::new(),
    );
    let engine = SessionEngine::new(mgr.clone(), &Script::default());
    let handler: Arc<dyn FrameHandler> = engine.clone();
    mgr.set_handler(Arc::downgrade(&handler));
    (mgr, engine)
}

/// The extension's stdout: `data` written in pieces of the sizes of
/// `writes`, then the rest at once, by a task of its own.
fn feed(
    data: Vec<u8>,
    writes: Vec<usize>,
) -> (tokio::task::JoinHandle<()>, tokio::io::DuplexStream) {
    let (mut pipe, stdout_end) = tokio::io::duplex(64 * 1024);
    let writer = tokio::spawn(async move {
        let mut rest = &data[..];
        for n in writes.into_iter().chain([usize::MAX]) {
            let (chunk, more) = rest.split_at(n.min(rest.len()));
            if chunk.is_empty() || pipe.write_all(chunk).await.is_err() {
                break;
            }
            rest = more;
            tokio::task::yield_now().await;
        }
    });
    (writer, stdout_end)
}

/// The handshaken extension, without a process; its stdin goes nowhere.
fn peer(
    mgr: &Manager,
    cfg: &HostConfig,
    hello: Hello,
    wire: WireLog,
    nowhere: PathBuf,
) -> Arc<LoadedExtension> {
    let outbound = Outbound::start(NAME, tokio::io::sink(), cfg.queue, Some(wire));
    let name = ExtName::new(NAME).expect("a plain name");
    LoadedExtension::new(NewExtension {
        name: NAME.to_owned(),
        dir: nowhere,
        manifest: Manifest {
            name: name.clone(),
            version: String::new(),
            exec: "fuzzed".to_owned(),
            args: Vec::new(),
            language: String::new(),
            description: String::new(),
            skills: Vec::new(),
            enabled: None,
        },
        source: Source::Explicit,
        rank: 0,
        hello,
        log: Arc::new(ExtLog::discard(&cfg.log_path(&name))),
        outbound,
        process: None,
        handler: mgr.handler_slot(),
    })
}
