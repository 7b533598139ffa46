//! [`ExtHandle`]: the extension's spontaneous actions, usable from anywhere
//! (handlers, background tasks, threads), and [`HostInfo`].

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde::Serialize;
use zot_protocol::{
    ExtFrame, HelloAck, HostToolResult, PanelKey, PanelRender, PanelResize, PanelSpec, RawJson,
    SubmitSlash,
};

use super::note::NoteArgs;
use crate::engine::panic;
use crate::engine::{CallRequest, CallToolError, Engine, Job, JobId, SendError};
use crate::lock;

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

type KeyFn = Box<dyn FnMut(&PanelKey) + Send>;
type CloseFn = Box<dyn FnMut() + Send>;
type ResizeFn = Box<dyn FnMut(&PanelResize) + Send>;

/// The handlers of one open panel, shared with the serial lane.
pub(crate) type PanelTarget = Arc<Mutex<PanelHandlers>>;

/// One registration of a panel. Each handler has its own lock, held only
/// while it runs: a handler may register handlers for its own panel (the
/// new registration shares the others without locking them).
#[derive(Default, Clone)]
pub(crate) struct PanelHandlers {
    on_key: Option<Arc<Mutex<KeyFn>>>,
    on_close: Option<Arc<Mutex<CloseFn>>>,
    on_resize: Option<Arc<Mutex<ResizeFn>>>,
}

pub(crate) struct Shared {
    pub(crate) name: String,
    pub(crate) engine: OnceLock<Engine>,
    pub(crate) host: OnceLock<HostInfo>,
    panels: Mutex<HashMap<String, Arc<Mutex<PanelHandlers>>>>,
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
                panels: Mutex::new(HashMap::new()),
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
        crate::engine::log::line(&self.shared.name, message.as_ref());
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

    /// Registering replaces the panel's handler object (moving the other
    /// handlers over) instead of mutating it: input bound to an older
    /// registration on arrival is then recognised as stale.
    fn set_panel(&self, panel_id: &str, change: impl FnOnce(&mut PanelHandlers)) {
        let mut panels = lock(&self.shared.panels);
        let mut fresh = panels
            .get(panel_id)
            .map(|old| lock(old).clone())
            .unwrap_or_default();
        change(&mut fresh);
        panels.insert(panel_id.to_owned(), Arc::new(Mutex::new(fresh)));
    }

    /// Routes `panel_key` frames for `panel_id` to `on_key` (in arrival
    /// order, one at a time), replacing an earlier key handler. Keys for
    /// panels without a handler are ignored (SDK-46).
    pub fn on_panel_key(&self, panel_id: &str, on_key: impl FnMut(&PanelKey) + Send + 'static) {
        self.set_panel(panel_id, |p| {
            p.on_key = Some(Arc::new(Mutex::new(Box::new(on_key))));
        });
    }

    /// Calls `on_close` when the host closes `panel_id` (Esc / Ctrl+C);
    /// the panel's handlers are forgotten afterwards.
    pub fn on_panel_close(&self, panel_id: &str, on_close: impl FnMut() + Send + 'static) {
        self.set_panel(panel_id, |p| {
            p.on_close = Some(Arc::new(Mutex::new(Box::new(on_close))));
        });
    }

    /// Routes `panel_resize` frames for `panel_id` (no stored host sends
    /// them; OP-14).
    pub fn on_panel_resize(
        &self,
        panel_id: &str,
        on_resize: impl FnMut(&PanelResize) + Send + 'static,
    ) {
        self.set_panel(panel_id, |p| {
            p.on_resize = Some(Arc::new(Mutex::new(Box::new(on_resize))));
        });
    }

    /// Forgets every handler of `panel_id`.
    pub fn forget_panel(&self, panel_id: &str) {
        lock(&self.shared.panels).remove(panel_id);
    }

    /// The panel a key, close or resize job is for, resolved when the job
    /// *arrives*: a command that reopens the same panel id afterwards must
    /// neither get older input nor lose its fresh registration to an older
    /// close, whatever the serial lane's progress.
    pub(crate) fn panel_target(&self, job: &Job) -> Option<PanelTarget> {
        match job {
            Job::PanelClose { panel_id, .. } => self.registered(panel_id),
            Job::PanelKey { key, .. } => self.registered(&key.panel_id),
            Job::PanelResize { resize, .. } => self.registered(&resize.panel_id),
            _ => None,
        }
    }

    /// `target` if it is still the active registration of `panel_id`
    /// (`close_panel` may have ended it after the input arrived).
    fn still_open(&self, target: Option<PanelTarget>, panel_id: &str) -> Option<PanelTarget> {
        let target = target?;
        let current = self.registered(panel_id)?;
        Arc::ptr_eq(&target, &current).then_some(target)
    }

    fn registered(&self, panel_id: &str) -> Option<PanelTarget> {
        lock(&self.shared.panels).get(panel_id).cloned()
    }

    pub(crate) fn dispatch_key(
        &self,
        target: Option<PanelTarget>,
        key: &PanelKey,
    ) -> Result<(), String> {
        let Some(p) = self.still_open(target, &key.panel_id) else {
            tracing::debug!(panel = %key.panel_id, "panel_key for an unknown panel; ignored");
            return Ok(());
        };
        // The registration's lock is not held while the handler runs.
        let f = lock(&p).on_key.clone();
        match f {
            Some(f) => panic::call(|| (lock(&f))(key)),
            None => Ok(()),
        }
    }

    pub(crate) fn dispatch_close(
        &self,
        target: Option<PanelTarget>,
        panel_id: &str,
    ) -> Result<(), String> {
        let Some(p) = target else {
            return Ok(());
        };
        {
            // Unregister only the registration the close arrived for: a
            // panel reopened meanwhile under the same id stays.
            let mut panels = lock(&self.shared.panels);
            if panels.get(panel_id).is_some_and(|cur| Arc::ptr_eq(cur, &p)) {
                panels.remove(panel_id);
            }
        }
        let f = lock(&p).on_close.clone();
        match f {
            Some(f) => panic::call(|| (lock(&f))()),
            None => Ok(()),
        }
    }

    pub(crate) fn dispatch_resize(
        &self,
        target: Option<PanelTarget>,
        r: &PanelResize,
    ) -> Result<(), String> {
        let Some(p) = self.still_open(target, &r.panel_id) else {
            return Ok(());
        };
        let f = lock(&p).on_resize.clone();
        match f {
            Some(f) => panic::call(|| (lock(&f))(r)),
            None => Ok(()),
        }
    }
}
