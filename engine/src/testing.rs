//! Drive an extension as its host, from tests: an engine in-process, or an
//! extension process.
//!
//! [`HostHarness`] plays the host over the in-memory transport
//! ([`Transport::memory`](crate::Transport::memory)): it does the handshake
//! (and returns what the extension registered), invokes commands and tools,
//! sends events, interceptions and panel input, cancels, answers the
//! extension's `call_tool`s, and reads every frame the extension wrote. No
//! process is spawned and no host is needed.
//!
//! [`HostHarness::spawn`] drives an extension *process* the same way
//! instead (any language: a built binary, `node ext.js`, `python ext.py`,
//! `zot-mcp wrap -- ...`): its stdin and stdout are the transport, its stderr
//! is captured ([`HostHarness::stderr`]) or inherited, and it is killed and
//! reaped when the harness is dropped.
//!
//! The harness speaks the protocol, not a language: [`HostHarness::connect`]
//! drives any engine over a [`MemoryHost`], and [`HostHarness::send_json`] /
//! [`HostHarness::next_frame_json`] / [`HostHarness::transcript`] carry JSON,
//! so the Rust SDK's `zot_ext::testing::TestHost` and the Node and Python
//! testing helpers are all this same type.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use zot_ext_engine::testing::{default_hello_ack, HostHarness};
//! use zot_ext_engine::{Engine, EngineConfig, Job, Transport};
//!
//! let (transport, host) = Transport::memory();
//! let engine = Engine::start(EngineConfig::new("demo", "1.0.0"), transport).unwrap();
//! let driver = tokio::spawn(async move {
//!     loop {
//!         for job in engine.next_jobs().await {
//!             match job {
//!                 Job::Hello(_) => engine.hello_done().unwrap(),
//!                 Job::Finished { .. } => return,
//!                 _ => {}
//!             }
//!         }
//!     }
//! });
//! let mut host = HostHarness::connect(host, default_hello_ack()).await.unwrap();
//! assert_eq!(host.registration().hello.name, "demo");
//! assert!(matches!(host.shutdown().await.unwrap().last(), Some(zot_protocol::ExtFrame::ShutdownAck)));
//! driver.await.unwrap();
//! # });
//! ```

use std::collections::VecDeque;
use std::process::{Command, ExitStatus};

use serde::Serialize;
use zot_protocol::{
    CallTool, Capability, CommandInvoked, CommandResponse, ContentBlock, EventInterceptResponse,
    ExtFrame, Frame, Hello, HelloAck, HostFrame, HostToolResult, InterceptRequest, LifecycleEvent,
    PanelClose, PanelKey, RawJson, RegisterCommand, RegisterTool, ToolCall, ToolCancel, ToolResult,
};

use crate::MemoryHost;

mod process;

use process::ProcessLink;
pub use process::StderrMode;

/// What the harness could not do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TestError {
    /// The extension closed its output before the expected frame came.
    #[error("the extension closed its output")]
    Closed,
    /// The extension wrote something that is not a valid frame.
    #[error("malformed frame from the extension: {0}")]
    Malformed(String),
    /// The handshake went wrong.
    #[error("handshake: {0}")]
    Handshake(String),
    /// Writing to the extension failed.
    #[error("i/o: {0}")]
    Io(String),
    /// An argument was not valid JSON.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// The extension process could not be started.
    #[error("cannot start {0}")]
    Spawn(String),
    /// A spawned extension process closed its output before the frame a
    /// waiting helper expected: the command, how it exited and the end of
    /// its stderr.
    #[error("{0}")]
    Exited(String),
}

/// What the extension announced during the handshake.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Registration {
    /// Its `hello`.
    pub hello: Hello,
    /// `register_command` frames, in order.
    pub commands: Vec<RegisterCommand>,
    /// `register_tool` frames, in order.
    pub tools: Vec<RegisterTool>,
    /// `subscribe.events`, accumulated in order.
    pub events: Vec<String>,
    /// `subscribe.intercept`, accumulated in order.
    pub intercepts: Vec<String>,
    /// How many `subscribe` frames were sent.
    pub subscribe_frames: usize,
}

/// The `hello_ack` the harness sends by default: protocol 1, capability
/// `call_tool`, `zot_version`/`provider`/`model` = `test`, `cwd` and
/// `extension_dir` = the current directory, `data_dir` = the temp directory.
pub fn default_hello_ack() -> HelloAck {
    let cwd = std::env::current_dir()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    HelloAck {
        protocol_version: zot_protocol::limits::PROTOCOL_VERSION,
        capabilities: vec![Capability::CallTool],
        zot_version: "test".into(),
        provider: "test".into(),
        model: "test".into(),
        cwd: cwd.clone(),
        extension_dir: cwd,
        data_dir: std::env::temp_dir().display().to_string(),
    }
}

/// The host side of an extension, in-process or a spawned process.
///
/// The waiting helpers ([`HostHarness::command`], [`HostHarness::tool`],
/// [`HostHarness::expect_call_tool`], [`HostHarness::wait_for`]...) read until the
/// frame they want and keep every other frame, in order, for
/// [`HostHarness::next_frame`] and [`HostHarness::drain`]; so a frame written
/// earlier (a render, a note) may come before the one a test expects next.
/// [`HostHarness::transcript`] has every line in write order.
pub struct HostHarness {
    host: Link,
    /// Lines read but not consumed yet.
    backlog: VecDeque<String>,
    transcript: Vec<String>,
    registration: Registration,
    next_id: u64,
    /// The extension's output closed.
    closed: bool,
}

impl std::fmt::Debug for HostHarness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHarness")
            .field("registration", &self.registration)
            .finish_non_exhaustive()
    }
}

/// The transport the harness drives.
enum Link {
    Memory(MemoryHost),
    Process(Box<ProcessLink>),
}

impl Link {
    async fn send_line(&mut self, line: &str) -> std::io::Result<()> {
        match self {
            Link::Memory(h) => h.send_line(line).await,
            Link::Process(p) => {
                let mut bytes = line.as_bytes().to_vec();
                if !line.ends_with('\n') {
                    bytes.push(b'\n');
                }
                p.send_bytes(&bytes)
            }
        }
    }

    async fn send(&mut self, frame: &HostFrame) -> std::io::Result<()> {
        match self {
            Link::Memory(h) => h.send(frame).await,
            Link::Process(p) => {
                let line = zot_protocol::encode_frame(frame).map_err(std::io::Error::other)?;
                p.send_bytes(&line)
            }
        }
    }

    fn close_input(&mut self) {
        match self {
            Link::Memory(h) => h.close_input(),
            Link::Process(p) => p.close_input(),
        }
    }

    async fn recv_line(&mut self) -> Option<String> {
        match self {
            Link::Memory(h) => h.recv_line().await,
            Link::Process(p) => p.recv_line().await,
        }
    }

    fn try_recv_line(&mut self) -> Option<String> {
        match self {
            Link::Memory(h) => h.try_recv_line(),
            Link::Process(p) => p.try_recv_line(),
        }
    }
}

/// How long a process that closed its output gets to exit before it is
/// killed (it normally exits right after).
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

impl HostHarness {
    fn new(host: Link) -> Self {
        Self {
            host,
            backlog: VecDeque::new(),
            transcript: Vec::new(),
            registration: Registration::default(),
            next_id: 1,
            closed: false,
        }
    }

    /// Drives an engine started elsewhere (a binding's) over `host`: reads
    /// `hello` (which must be the first line), sends `ack`, and reads the
    /// registrations up to `ready`.
    pub async fn connect(host: MemoryHost, ack: HelloAck) -> Result<Self, TestError> {
        let mut me = Self::new(Link::Memory(host));
        me.handshake(ack).await?;
        Ok(me)
    }

    /// Starts `command` as an extension process (its stdin and stdout are
    /// the transport, its stderr is captured) and completes the handshake
    /// with `ack`. The process is killed and reaped when the harness is
    /// dropped; [`HostHarness::shutdown`] lets it exit on its own first.
    pub async fn spawn(command: Command, ack: HelloAck) -> Result<Self, TestError> {
        Self::spawn_with(command, ack, StderrMode::Capture).await
    }

    /// [`HostHarness::spawn`] with a choice of where the process's stderr
    /// goes.
    pub async fn spawn_with(
        command: Command,
        ack: HelloAck,
        stderr: StderrMode,
    ) -> Result<Self, TestError> {
        let label = process::describe(&command);
        let link = ProcessLink::spawn(command, stderr)
            .map_err(|e| TestError::Spawn(format!("`{label}`: {e}")))?;
        let mut me = Self::new(Link::Process(Box::new(link)));
        match me.handshake(ack).await {
            Ok(()) => Ok(me),
            Err(e) => Err(TestError::Handshake(me.explain(&e).await)),
        }
    }

    async fn handshake(&mut self, ack: HelloAck) -> Result<(), TestError> {
        let first = self
            .read_line()
            .await
            .map_err(|_| TestError::Handshake("closed its output before hello".into()))?;
        match ExtFrame::decode_str(&first) {
            Ok(ExtFrame::Hello(h)) => self.registration.hello = h,
            other => {
                return Err(TestError::Handshake(format!(
                    "first line is not hello: {other:?}"
                )))
            }
        }
        self.send(&HostFrame::HelloAck(ack)).await?;
        loop {
            let line = self
                .read_line()
                .await
                .map_err(|_| TestError::Handshake("closed its output before ready".into()))?;
            match ExtFrame::decode_str(&line) {
                Ok(ExtFrame::RegisterCommand(c)) => self.registration.commands.push(c),
                Ok(ExtFrame::RegisterTool(t)) => self.registration.tools.push(t),
                Ok(ExtFrame::Subscribe(s)) => {
                    self.registration.subscribe_frames += 1;
                    self.registration.events.extend(s.events);
                    self.registration.intercepts.extend(s.intercept);
                }
                Ok(ExtFrame::Ready) => return Ok(()),
                Ok(other) => {
                    return Err(TestError::Handshake(format!(
                        "unexpected {:?} before ready",
                        other.type_name()
                    )))
                }
                Err(e) => return Err(TestError::Malformed(e.to_string())),
            }
        }
    }

    /// `e` as a message that, for an extension process, names the command
    /// and says whether and how it exited, with the end of its captured
    /// stderr. (Once the process closed its output, waits a few seconds at
    /// most for its exit status and the end of its stderr.)
    pub async fn explain(&mut self, e: &TestError) -> String {
        let closed = self.closed;
        let Link::Process(p) = &mut self.host else {
            return e.to_string();
        };
        if closed {
            let _ = tokio::time::timeout(EXIT_GRACE, async {
                p.wait().await;
                p.stderr_closed().await;
            })
            .await;
        }
        let state = match p.exit_status() {
            Some(s) => format!("it exited ({s})"),
            None => "it is still running".to_owned(),
        };
        let what = match e {
            TestError::Handshake(m) => m.clone(),
            other => other.to_string(),
        };
        format!("`{}`: {what}; {state}{}", p.label(), p.stderr_tail())
    }

    /// What a spawned extension process wrote on its stderr so far (`None`
    /// in-process or when its stderr is inherited).
    pub fn stderr(&self) -> Option<String> {
        match &self.host {
            Link::Process(p) => p.stderr(),
            Link::Memory(_) => None,
        }
    }

    /// A spawned extension process's exit status, if it exited (never
    /// waits; `None` in-process).
    pub fn exit_status(&self) -> Option<ExitStatus> {
        match &self.host {
            Link::Process(p) => p.exit_status(),
            Link::Memory(_) => None,
        }
    }

    /// Waits for a spawned extension process to exit (after
    /// [`HostHarness::shutdown`] or [`HostHarness::close_stdin`], or on its
    /// own) and returns its status; `None` in-process.
    pub async fn wait(&mut self) -> Option<ExitStatus> {
        match &mut self.host {
            Link::Process(p) => p.wait().await,
            Link::Memory(_) => None,
        }
    }

    /// A future that resolves once a spawned extension process exited, with
    /// its status, without borrowing the harness (so it can be awaited while
    /// the harness is in use); `None` at once in-process.
    pub fn exited(&self) -> impl std::future::Future<Output = Option<ExitStatus>> + Send + 'static {
        let exited = match &self.host {
            Link::Process(p) => Some(p.exited()),
            Link::Memory(_) => None,
        };
        async move {
            match exited {
                Some(f) => f.await,
                None => None,
            }
        }
    }

    /// Kills a spawned extension process now (nothing in-process); it is
    /// reaped in the background, and [`HostHarness::wait`] returns its status.
    pub fn kill(&mut self) {
        if let Link::Process(p) = &self.host {
            p.kill();
        }
    }

    /// Once the output closed: lets a process exit, killing it after
    /// [`EXIT_GRACE`].
    async fn reap(&mut self) {
        if let Link::Process(p) = &mut self.host {
            if tokio::time::timeout(EXIT_GRACE, p.wait()).await.is_err() {
                p.kill();
                p.wait().await;
            }
        }
    }

    /// What the extension announced.
    pub fn registration(&self) -> &Registration {
        &self.registration
    }

    /// Every line the extension wrote so far, in order (`hello` first).
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    async fn read_line(&mut self) -> Result<String, TestError> {
        let Some(line) = self.host.recv_line().await else {
            self.closed = true;
            return Err(TestError::Closed);
        };
        self.transcript.push(line.clone());
        Ok(line)
    }

    fn fresh_id(&mut self, prefix: &str) -> String {
        let id = format!("{prefix}-{}", self.next_id);
        self.next_id += 1;
        id
    }

    /// Sends a host frame.
    pub async fn send(&mut self, frame: &HostFrame) -> Result<(), TestError> {
        self.host
            .send(frame)
            .await
            .map_err(|e| TestError::Io(e.to_string()))
    }

    /// Sends one line as is (any JSON, valid or not).
    pub async fn send_json(&mut self, line: &str) -> Result<(), TestError> {
        self.host
            .send_line(line)
            .await
            .map_err(|e| TestError::Io(e.to_string()))
    }

    /// The next frame the extension wrote (frames skipped by the waiting
    /// helpers come first), as its JSON line.
    pub async fn next_frame_json(&mut self) -> Result<String, TestError> {
        match self.backlog.pop_front() {
            Some(l) => Ok(l),
            None => self.read_line().await,
        }
    }

    /// The next frame the extension wrote, decoded.
    pub async fn next_frame(&mut self) -> Result<ExtFrame, TestError> {
        let line = self.next_frame_json().await?;
        ExtFrame::decode_str(&line).map_err(|e| TestError::Malformed(e.to_string()))
    }

    /// The next frame if one was already written (never waits).
    pub fn try_next_frame(&mut self) -> Option<ExtFrame> {
        let line = match self.backlog.pop_front() {
            Some(l) => l,
            None => {
                let l = self.host.try_recv_line()?;
                self.transcript.push(l.clone());
                l
            }
        };
        ExtFrame::decode_str(&line).ok()
    }

    /// Reads until `pick` accepts a frame; other frames stay queued for
    /// [`HostHarness::next_frame`]. When a spawned process closes its output
    /// first, the error is [`TestError::Exited`].
    pub async fn wait_for<T>(
        &mut self,
        mut pick: impl FnMut(&ExtFrame) -> Option<T>,
    ) -> Result<T, TestError> {
        for i in 0..self.backlog.len() {
            if let Ok(f) = ExtFrame::decode_str(&self.backlog[i]) {
                if let Some(v) = pick(&f) {
                    self.backlog.remove(i);
                    return Ok(v);
                }
            }
        }
        loop {
            let line = match self.read_line().await {
                Err(TestError::Closed) if matches!(self.host, Link::Process(_)) => {
                    return Err(TestError::Exited(self.explain(&TestError::Closed).await));
                }
                other => other?,
            };
            let frame =
                ExtFrame::decode_str(&line).map_err(|e| TestError::Malformed(e.to_string()))?;
            if let Some(v) = pick(&frame) {
                return Ok(v);
            }
            self.backlog.push_back(line);
        }
    }

    /// Invokes a command and waits for its response.
    pub async fn command(&mut self, name: &str, args: &str) -> Result<CommandResponse, TestError> {
        let id = self.fresh_id("cmd");
        self.send(&HostFrame::CommandInvoked(CommandInvoked {
            id: id.clone(),
            name: name.to_owned(),
            args: args.to_owned(),
        }))
        .await?;
        self.command_response(&id).await
    }

    /// Waits for the `command_response` to `id`.
    pub async fn command_response(&mut self, id: &str) -> Result<CommandResponse, TestError> {
        self.wait_for(|f| match f {
            ExtFrame::CommandResponse(r) if r.id == id => Some(r.clone()),
            _ => None,
        })
        .await
    }

    /// Sends a `tool_call` without waiting; returns its id.
    pub async fn start_tool<A: Serialize>(
        &mut self,
        name: &str,
        args: A,
    ) -> Result<String, TestError> {
        let id = self.fresh_id("tool");
        self.start_tool_with_id(&id, name, args).await?;
        Ok(id)
    }

    /// Sends a `tool_call` with a chosen id.
    pub async fn start_tool_with_id<A: Serialize>(
        &mut self,
        id: &str,
        name: &str,
        args: A,
    ) -> Result<(), TestError> {
        let args = RawJson::from_value(&args).map_err(|e| TestError::Json(e.to_string()))?;
        self.send(&HostFrame::ToolCall(ToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            args,
        }))
        .await
    }

    /// Calls a tool and waits for its result.
    pub async fn tool<A: Serialize>(
        &mut self,
        name: &str,
        args: A,
    ) -> Result<ToolResult, TestError> {
        let id = self.start_tool(name, args).await?;
        self.tool_result(&id).await
    }

    /// Waits for the `tool_result` to `id`.
    pub async fn tool_result(&mut self, id: &str) -> Result<ToolResult, TestError> {
        self.wait_for(|f| match f {
            ExtFrame::ToolResult(r) if r.id == id => Some(r.clone()),
            _ => None,
        })
        .await
    }

    /// Sends `tool_cancel` for `id`.
    pub async fn cancel_tool(&mut self, id: &str) -> Result<(), TestError> {
        self.send(&HostFrame::ToolCancel(ToolCancel { id: id.to_owned() }))
            .await
    }

    /// Sends an interception and waits for its response.
    pub async fn intercept(
        &mut self,
        request: &InterceptRequest,
    ) -> Result<EventInterceptResponse, TestError> {
        self.send(&HostFrame::EventIntercept(request.clone()))
            .await?;
        self.intercept_response(request.id()).await
    }

    /// Sends an `event_intercept` given as JSON and waits for its response.
    pub async fn intercept_json(
        &mut self,
        line: &str,
    ) -> Result<EventInterceptResponse, TestError> {
        #[derive(serde::Deserialize)]
        struct Id {
            id: String,
        }
        let id: Id = serde_json::from_str(line).map_err(|e| TestError::Json(e.to_string()))?;
        self.send_json(line).await?;
        self.intercept_response(&id.id).await
    }

    /// Waits for the `event_intercept_response` to `id`.
    pub async fn intercept_response(
        &mut self,
        id: &str,
    ) -> Result<EventInterceptResponse, TestError> {
        self.wait_for(|f| match f {
            ExtFrame::EventInterceptResponse(r) if r.id == id => Some(r.clone()),
            _ => None,
        })
        .await
    }

    /// Sends a lifecycle event.
    pub async fn event(&mut self, event: &LifecycleEvent) -> Result<(), TestError> {
        self.send(&HostFrame::Event(event.clone())).await
    }

    /// Sends a `panel_key` (`key` is a key name such as `up` or `rune`).
    pub async fn panel_key(
        &mut self,
        panel_id: &str,
        key: &str,
        text: &str,
    ) -> Result<(), TestError> {
        self.send(&HostFrame::PanelKey(PanelKey {
            panel_id: panel_id.to_owned(),
            key: key.into(),
            text: text.to_owned(),
        }))
        .await
    }

    /// Sends the host's `panel_close`.
    pub async fn panel_close(&mut self, panel_id: &str) -> Result<(), TestError> {
        self.send(&HostFrame::PanelClose(PanelClose {
            panel_id: panel_id.to_owned(),
        }))
        .await
    }

    /// Waits for the extension's next `call_tool`.
    pub async fn expect_call_tool(&mut self) -> Result<CallTool, TestError> {
        self.wait_for(|f| match f {
            ExtFrame::CallTool(c) => Some(c.clone()),
            _ => None,
        })
        .await
    }

    /// Answers a `call_tool` with one text block.
    pub async fn answer_call(
        &mut self,
        call: &CallTool,
        text: &str,
        is_error: bool,
    ) -> Result<(), TestError> {
        self.send(&HostFrame::ToolResult(HostToolResult {
            id: call.id.clone(),
            name: call.name.clone(),
            content: vec![ContentBlock::text(text)],
            is_error,
            truncated: false,
        }))
        .await
    }

    /// Sends `shutdown` and reads everything the extension still writes
    /// until its output closes (`shutdown_ack` last).
    /// An extension process is then given a few seconds to exit (and
    /// killed after them).
    pub async fn shutdown(&mut self) -> Result<Vec<ExtFrame>, TestError> {
        self.send(&HostFrame::Shutdown).await?;
        let frames = self.drain().await?;
        self.reap().await;
        Ok(frames)
    }

    /// Closes the extension's stdin (EOF) and reads everything it still
    /// writes until its output closes.
    /// An extension process is then given a few seconds to exit.
    pub async fn close_stdin(&mut self) -> Result<Vec<ExtFrame>, TestError> {
        self.host.close_input();
        let frames = self.drain().await?;
        self.reap().await;
        Ok(frames)
    }

    /// Every remaining frame until the extension's output closes.
    pub async fn drain(&mut self) -> Result<Vec<ExtFrame>, TestError> {
        let mut out = Vec::new();
        loop {
            match self.next_frame().await {
                Ok(f) => out.push(f),
                Err(TestError::Closed) => return Ok(out),
                Err(e) => return Err(e),
            }
        }
    }
}
