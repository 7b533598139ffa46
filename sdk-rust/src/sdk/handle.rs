//! [`ExtHandle`]: the extension's spontaneous actions, usable from anywhere
//! (handlers, background tasks, threads), and [`HostInfo`].

use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde::Serialize;
use zot_protocol::{
    ExtFrame, HelloAck, HostToolResult, PanelRender, PanelSpec, RawJson, SubmitSlash,
};

use super::note::NoteArgs;
use crate::engine::{CallRequest, CallToolError, Engine, JobId, SendError};

tokio::task_local! {
    /// The tool job whose handler is running on this task: the parent of
    /// calls made through [`ExtHandle::call_tool`].
    pub(crate) static CURRENT_TOOL: JobId;
}

/// What the host said in `hello_ack` (SDK-6): host version, provider,
/// model, the user's `cwd`, `extension_dir`, `data_dir` and capabilities.
/// Dereferences to [`HelloAck`].
///
/// ```
/// # let info = zot_ext::testing::host_info(zot_protocol::HelloAck { cwd: "/work".into(), ..Default::default() });
/// let project = &info.cwd; // the user's project, not the process cwd
/// assert_eq!(project, "/work");
/// ```
#[derive(Debug, Clone)]
pub struct HostInfo(pub(crate) Arc<HelloAck>);

impl HostInfo {
    /// Whether the host accepts `call_tool`.
    pub fn supports_call_tool(&self) -> bool {
        self.0.has(&zot_protocol::Capability::CallTool)
    }

    /// Whether the host accepts durable call keys (`call_tool_durable`).
    pub fn supports_durable_calls(&self) -> bool {
        self.0.has(&zot_protocol::Capability::CallToolDurable)
    }
}

impl Deref for HostInfo {
    type Target = HelloAck;

    fn deref(&self) -> &HelloAck {
        &self.0
    }
}

/// Options of one `call_tool`: a durable key and a deadline.
///
/// ```
/// use std::time::Duration;
/// let opts = zot_ext::CallOptions::new().key("first-echo").timeout(Duration::from_secs(20));
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallOptions {
    pub(crate) key: Option<String>,
    pub(crate) timeout: Option<Duration>,
}

impl CallOptions {
    /// No key, the default 60 s deadline.
    pub fn new() -> Self {
        Self::default()
    }

    /// A durable key (§9.5): validated locally, sent only to hosts that
    /// advertise `call_tool_durable`.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The deadline; after it `call_tool_cancel` is sent and the call fails.
    pub fn timeout(mut self, after: Duration) -> Self {
        self.timeout = Some(after);
        self
    }
}

pub(crate) struct Shared {
    pub(crate) name: String,
    pub(crate) engine: OnceLock<Engine>,
    pub(crate) host: OnceLock<HostInfo>,
    pub(crate) panels: Mutex<super::panels::Panels>,
}

/// The extension's handle: send notes, panels and prompts, call host tools
/// and route panel input, from handlers or from anywhere else.
///
/// Get it with [`crate::Extension::handle`] (before `run`), or from a
/// handler's [`crate::Ctx::ext`]. Cheap to clone. Sending before the
/// session started fails with [`SendError::Write`]; frames sent before the
/// handshake is announced are held and follow `ready`.
///
/// ```
/// use zot_ext::Extension;
/// use zot_protocol::NotifyLevel;
///
/// let ext = Extension::new("demo", "1.0.0");
/// let handle = ext.handle();
/// std::thread::spawn(move || {
///     // e.g. from a file watcher:
///     let _ = handle.notify("file changed", NotifyLevel::Info);
/// });
/// ```
#[derive(Clone)]
pub struct ExtHandle {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for ExtHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExtHandle")
            .field("name", &self.shared.name)
            .finish_non_exhaustive()
    }
}

fn not_running() -> SendError {
    SendError::Write(crate::engine::WriteError::Closed)
}

impl ExtHandle {
    pub(crate) fn new(name: String) -> Self {
        Self {
            shared: Arc::new(Shared {
                name,
                engine: OnceLock::new(),
                host: OnceLock::new(),
                panels: Mutex::new(super::panels::Panels::default()),
            }),
        }
    }

    fn engine(&self) -> Result<&Engine, SendError> {
        self.shared.engine.get().ok_or_else(not_running)
    }

    /// The extension name.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The host's `hello_ack`, once the handshake happened.
    pub fn host(&self) -> Option<&HostInfo> {
        self.shared.host.get()
    }

    /// Shows a note (`notify`): `handle.notify("done", NotifyLevel::Info)`
    /// (the message first, as in every SDK; the 0.1 order `(level,
    /// message)` still compiles, deprecated).
    pub fn notify<M, L>(&self, message: M, level: L) -> Result<(), SendError>
    where
        (M, L): NoteArgs,
    {
        let (message, level) = super::note::note((message, level), |line| self.log(line));
        self.engine()?.notify(level, message)
    }

    /// Removes this extension's notes (`clear_notes`).
    pub fn clear_notes(&self) -> Result<(), SendError> {
        self.engine()?.clear_notes()
    }

    /// Submits a prompt as if typed (`submit`; interactive hosts only).
    pub fn submit(&self, text: impl Into<String>) -> Result<(), SendError> {
        self.engine()?.submit(text)
    }

    /// Runs a slash command as if typed (`submit_slash`).
    pub fn submit_slash(&self, text: impl Into<String>) -> Result<(), SendError> {
        self.engine()?
            .send(ExtFrame::SubmitSlash(SubmitSlash { text: text.into() }))
    }

    /// Opens a panel outside any command (spontaneous `open_panel`).
    pub fn open_panel(&self, panel: PanelSpec) -> Result<(), SendError> {
        self.engine()?.open_panel(panel)
    }

    /// Redraws a panel (`panel_render`).
    pub fn render_panel(&self, render: PanelRender) -> Result<(), SendError> {
        self.engine()?.render_panel(render)
    }

    /// Redraws a panel's body rows only (title and footer: see
    /// [`ExtHandle::render_panel`]).
    pub fn render_lines<I, S>(&self, panel_id: &str, lines: I) -> Result<(), SendError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.render_panel(PanelRender {
            panel_id: panel_id.to_owned(),
            lines: lines.into_iter().map(Into::into).collect(),
            ..PanelRender::default()
        })
    }

    /// Closes a panel (`panel_close`) and forgets its key, close and resize
    /// handlers (the host does not echo the close back).
    pub fn close_panel(&self, panel_id: &str) -> Result<(), SendError> {
        self.forget_panel(panel_id);
        self.engine()?.close_panel(panel_id)
    }

    /// Writes `[<name>] message` to stderr (stdout is the wire).
    pub fn log(&self, message: impl AsRef<str>) {
        crate::engine::runtime::log::line(&self.shared.name, message.as_ref());
    }

    /// Calls a host tool. Inside a tool handler's task the call's
    /// `parent_id` is that invocation (SDK-26); elsewhere it has none.
    pub async fn call_tool<A: Serialize + ?Sized>(
        &self,
        name: &str,
        args: &A,
    ) -> Result<HostToolResult, CallToolError> {
        self.call_tool_with(name, args, CallOptions::new()).await
    }

    /// [`ExtHandle::call_tool`] with a key and/or deadline.
    pub async fn call_tool_with<A: Serialize + ?Sized>(
        &self,
        name: &str,
        args: &A,
        opts: CallOptions,
    ) -> Result<HostToolResult, CallToolError> {
        let parent = CURRENT_TOOL.try_with(|j| *j).ok();
        self.call(parent, name, args, opts).await
    }

    pub(crate) async fn call<A: Serialize + ?Sized>(
        &self,
        parent: Option<JobId>,
        name: &str,
        args: &A,
        opts: CallOptions,
    ) -> Result<HostToolResult, CallToolError> {
        let engine = self.shared.engine.get().ok_or(CallToolError::NotReady)?;
        let args = RawJson::from_value(args).map_err(|_| CallToolError::InvalidRequest)?;
        let req = CallRequest {
            parent,
            name: name.to_owned(),
            args,
            key: opts.key,
            timeout: opts.timeout,
        };
        engine.call_tool(req).await
    }
}
