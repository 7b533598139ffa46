//! Drive an extension as its host from `cargo test`: in-process, or a process.
//!
//! [`TestHost`] runs the extension over the in-memory transport: it does the
//! handshake (and returns what the extension registered), invokes commands
//! and tools, sends events, interceptions and panel input, cancels, answers
//! the extension's `call_tool`s, and reads every frame the extension wrote.
//! No process is spawned and no host is needed.
//!
//! [`TestHost::spawn`] drives an extension *process* instead, written in any
//! language (a built binary, `node ext.js`, `python ext.py`, an MCP server
//! under `zot-mcp wrap`), with the same methods: its stdin and stdout are the
//! transport, its stderr is captured ([`HostHarness::stderr`]) and quoted when
//! it fails to start, and it is killed when the [`TestHost`] is dropped.
//!
//! ```no_run
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::process::Command;
//! use zot_ext::testing::TestHost;
//!
//! let mut cmd = Command::new("node");
//! cmd.arg("ext.js").current_dir("my-extension").env("LOG", "debug");
//! let mut host = TestHost::spawn(cmd).await.unwrap();
//! let result = host.tool("greet", serde_json::json!({"name": "Ada"})).await.unwrap();
//! assert!(!result.is_error);
//! host.shutdown().await.unwrap();
//! assert!(host.wait().await.unwrap().success());
//! # });
//! ```
//!
//! The host side is the engine's protocol-level harness
//! ([`HostHarness`], which the Node and Python testing helpers wrap too);
//! every one of its methods is callable on a [`TestHost`]. [`TestHost`] adds
//! what only a Rust extension has: starting an [`Extension`] and waiting for
//! its `run` to return.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use zot_ext::testing::TestHost;
//! use zot_ext::{Extension, Response};
//!
//! let ext = Extension::new("demo", "1.0.0")
//!     .command("echo", "Echo", |args, _ctx| async move { Response::display(args) });
//! let mut host = TestHost::start(ext).await.unwrap();
//! assert_eq!(host.registration().commands[0].name, "echo");
//! assert_eq!(host.command("echo", "hi").await.unwrap().display, "hi");
//! host.shutdown().await.unwrap();
//! # });
//! ```

use std::ops::{Deref, DerefMut};
use std::process::Command;
use std::sync::Arc;

use tokio::task::JoinHandle;
use zot_protocol::HelloAck;

pub use crate::engine::testing::{
    default_hello_ack, HostHarness, Registration, StderrMode, TestError,
};
use crate::engine::{MemoryHost, Transport};
use crate::{Extension, HostInfo, RunError};

/// A [`HostInfo`] for unit-testing code that takes one.
pub fn host_info(ack: HelloAck) -> HostInfo {
    HostInfo(Arc::new(ack))
}

/// The host side of an extension, in-process or a process: a
/// [`HostHarness`] (every method of it, through `Deref`) plus an in-process
/// extension's `run` task.
///
/// The waiting helpers ([`HostHarness::command`], [`HostHarness::tool`],
/// [`HostHarness::expect_call_tool`], [`HostHarness::wait_for`]...) read
/// until the frame they want and keep every other frame, in order, for
/// [`HostHarness::next_frame`] and [`HostHarness::drain`]; so a frame
/// written earlier (a render, a note) may come before the one a test
/// expects next. [`HostHarness::transcript`] has every line in write order.
pub struct TestHost {
    harness: HostHarness,
    task: Option<JoinHandle<Result<(), RunError>>>,
}

impl std::fmt::Debug for TestHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestHost")
            .field("registration", self.harness.registration())
            .finish_non_exhaustive()
    }
}

impl Deref for TestHost {
    type Target = HostHarness;

    fn deref(&self) -> &HostHarness {
        &self.harness
    }
}

impl DerefMut for TestHost {
    fn deref_mut(&mut self) -> &mut HostHarness {
        &mut self.harness
    }
}

impl TestHost {
    /// Starts `ext` in-process (on the current tokio runtime) and completes
    /// the handshake with [`default_hello_ack`].
    pub async fn start(ext: Extension) -> Result<Self, TestError> {
        Self::start_with(ext, default_hello_ack()).await
    }

    /// Like [`TestHost::start`] with a chosen `hello_ack` (e.g. without
    /// `call_tool`, or with `call_tool_durable`).
    pub async fn start_with(ext: Extension, ack: HelloAck) -> Result<Self, TestError> {
        let (transport, host) = Transport::memory();
        let task = tokio::spawn(ext.run_with(transport));
        let mut me = Self::connect(host, ack).await?;
        me.task = Some(task);
        Ok(me)
    }

    /// Starts `command` as an extension process (its stdin and stdout are
    /// the transport, its stderr is captured) and completes the handshake
    /// with [`default_hello_ack`]. Set the arguments, working directory and
    /// environment on `command`; the process is killed when the
    /// [`TestHost`] is dropped, and [`HostHarness::shutdown`] lets it exit on
    /// its own first. When it cannot start, or exits before the handshake
    /// ends, the error names the command and quotes the end of its stderr.
    pub async fn spawn(command: Command) -> Result<Self, TestError> {
        Self::spawn_with(command, default_hello_ack(), StderrMode::Capture).await
    }

    /// Like [`TestHost::spawn`] with a chosen `hello_ack` and a choice of
    /// where the process's stderr goes.
    pub async fn spawn_with(
        command: Command,
        ack: HelloAck,
        stderr: StderrMode,
    ) -> Result<Self, TestError> {
        Ok(Self {
            harness: HostHarness::spawn_with(command, ack, stderr).await?,
            task: None,
        })
    }

    /// Drives an engine started elsewhere (a binding's) over `host`: reads
    /// `hello` (which must be the first line), sends `ack`, and reads the
    /// registrations up to `ready`.
    pub async fn connect(host: MemoryHost, ack: HelloAck) -> Result<Self, TestError> {
        Ok(Self {
            harness: HostHarness::connect(host, ack).await?,
            task: None,
        })
    }

    /// Waits for the in-process extension's `run` to return (after its
    /// output closed); `None` for [`TestHost::connect`]ed engines and
    /// spawned processes (see [`HostHarness::wait`]).
    pub async fn finished(&mut self) -> Option<Result<(), RunError>> {
        let task = self.task.take()?;
        Some(task.await.unwrap_or_else(|e| Err(RunError::Task(e))))
    }
}
