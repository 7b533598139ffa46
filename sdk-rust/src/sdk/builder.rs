//! [`Extension`]: the builder of a Rust extension, and [`Registrar`] for
//! registrations made in the on-hello hook.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use zot_protocol::values::INTERCEPTABLE_EVENT_NAMES;
use zot_protocol::{InterceptRequest, PanelKey, PanelResize, RawJson, RegisterCommand};

use super::ctx::Ctx;
use super::handle::{ExtHandle, HostInfo};
use super::results::{HandlerResult, Response, ToolOutput};
use super::tool_spec::ToolSpec;
use crate::engine::runtime::fast_hash::FastMap;
use crate::engine::runtime::panic::{self, CatchPanic};
use crate::engine::session::registration;
use crate::engine::{EngineConfig, EventData, InterceptOutcome};

/// A lifecycle event as an event handler receives it.
pub type Event = EventData;

pub(crate) type BoxFut<T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'static>>;
pub(crate) type CommandFn = Arc<dyn Fn(String, Ctx) -> BoxFut<Response> + Send + Sync>;
pub(crate) type ToolFn = Arc<dyn Fn(RawJson, Ctx) -> BoxFut<ToolOutput> + Send + Sync>;
pub(crate) type EventFn = Arc<dyn Fn(Event, Ctx) -> BoxFut<()> + Send + Sync>;
pub(crate) type InterceptFn =
    Arc<dyn Fn(InterceptRequest, Ctx) -> BoxFut<InterceptOutcome> + Send + Sync>;
pub(crate) type HelloFn = Box<dyn FnOnce(&HostInfo, &mut Registrar<'_>) + Send>;

/// Every handler, in registration order.
#[derive(Default)]
pub(crate) struct Handlers {
    pub(crate) commands: Vec<(RegisterCommand, CommandFn)>,
    pub(crate) tools: Vec<(ToolSpec, ToolFn)>,
    pub(crate) events: Vec<(String, EventFn)>,
    /// In [`INTERCEPTABLE_EVENT_NAMES`] order.
    pub(crate) intercepts: [Option<InterceptFn>; 4],
    /// Registration mistakes, reported when the extension starts.
    pub(crate) errors: Vec<String>,
}

impl Handlers {
    pub(crate) fn add_tool(&mut self, spec: ToolSpec, f: ToolFn) {
        if let Some(e) = &spec.error {
            return self.errors.push(e.clone());
        }
        if let Err(e) = registration::check_tool(&spec.reg, spec.schema_origin()) {
            return self.errors.push(e.to_string());
        }
        // Hosts keep the first tool of a name, so a second is a mistake.
        let names = self.tools.iter().map(|(s, _)| s.name());
        if let Err(e) = registration::check_new_tool(spec.name(), names) {
            return self.errors.push(e.to_string());
        }
        self.tools.push((spec, f));
    }

    pub(crate) fn add_command(&mut self, reg: RegisterCommand, f: CommandFn) {
        if let Err(e) = registration::check_command(&reg.name) {
            return self.errors.push(e.to_string());
        }
        // Hosts keep the first command of a name (ignoring case).
        let names = self.commands.iter().map(|(r, _)| r.name.as_str());
        if let Err(e) = registration::check_new_command(&reg.name, names) {
            return self.errors.push(e.to_string());
        }
        self.commands.push((reg, f));
    }

    pub(crate) fn add_event<F, Fut, R>(&mut self, event: String, handler: F)
    where
        F: Fn(Event, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<()>,
    {
        if let Err(e) = registration::check_event(&event) {
            return self.errors.push(e.to_string());
        }
        let f: EventFn = Arc::new(move |ev, ctx| {
            let fut = handler(ev, ctx);
            Box::pin(async move { fut.await.into_result() })
        });
        // SDK-9: registering again replaces the handler without moving it.
        match self.events.iter_mut().find(|(n, _)| *n == event) {
            Some(slot) => slot.1 = f,
            None => self.events.push((event, f)),
        }
    }

    fn add_intercept(&mut self, event: &str, f: InterceptFn) {
        let i = INTERCEPTABLE_EVENT_NAMES
            .iter()
            .position(|e| *e == event)
            .expect("one of the four interceptable events");
        self.intercepts[i] = Some(f);
    }

    /// Registers a typed interceptor for `event`: `pick` takes its request
    /// out of the [`InterceptRequest`] union, the verdict becomes the
    /// engine's outcome.
    pub(crate) fn add_interceptor<T, V, F, Fut, R>(
        &mut self,
        event: &str,
        pick: fn(InterceptRequest) -> Option<T>,
        handler: F,
    ) where
        F: Fn(T, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<V>,
        T: 'static,
        V: Into<InterceptOutcome>,
    {
        // A failure is named with its type (a panic as `panic`): it becomes
        // the verdict's reason, which the user and the model read.
        self.add_intercept(
            event,
            Arc::new(move |req, ctx| match pick(req) {
                Some(r) => match panic::call(|| handler(r, ctx)) {
                    Ok(fut) => Box::pin(async move {
                        match CatchPanic::new(fut).await {
                            Ok(result) => result.into_typed_result().map(Into::into),
                            Err(p) => Err(format!("panic: {}", panic::message(&*p))),
                        }
                    }),
                    Err(msg) => Box::pin(std::future::ready(Err(format!("panic: {msg}")))),
                },
                None => mismatch(),
            }),
        );
    }

    /// The lookup tables the dispatcher uses once registration is over.
    pub(crate) fn tables(&self) -> Tables {
        Tables {
            commands: self
                .commands
                .iter()
                .map(|(r, f)| (r.name.clone(), f.clone()))
                .collect(),
            tools: self
                .tools
                .iter()
                .map(|(s, f)| (s.name().to_owned(), f.clone()))
                .collect(),
            events: self.events.iter().cloned().collect(),
            intercepts: self.intercepts.clone(),
        }
    }
}

fn mismatch<T: Send + 'static>() -> BoxFut<T> {
    Box::pin(std::future::ready(Err(
        "internal error: interception routed to the wrong handler".to_owned(),
    )))
}

/// Handlers by name, frozen after the handshake.
pub(crate) struct Tables {
    pub(crate) commands: FastMap<String, CommandFn>,
    pub(crate) tools: FastMap<String, ToolFn>,
    pub(crate) events: FastMap<String, EventFn>,
    pub(crate) intercepts: [Option<InterceptFn>; 4],
}

/// A zot extension written in Rust: register handlers, then
/// [`Extension::run_blocking`] (or [`Extension::run`]).
///
/// Handlers receive their arguments and a [`Ctx`]; they may return their
/// result directly or as `Result<_, E: Display>`, in which case an `Err`
/// becomes the error result with its message (as does a panic).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use zot_ext::{Extension, Response, ToolOutput};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct AddArgs { a: i64, b: i64 }
///
/// let ext = Extension::new("demo", "1.0.0")
///     .command("greet", "Say hello", |args, _ctx| async move { Response::prompt(format!("Hello, {args}")) })
///     .tool("add", "Add two integers", |args: AddArgs, _ctx| async move {
///         ToolOutput::text(format!("sum={}", args.a + args.b))
///     });
///
/// // `ext.run_blocking()` in `fn main`; here, driven in-process:
/// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
/// assert_eq!(host.command("greet", "Ada").await.unwrap().prompt, "Hello, Ada");
/// let result = host.tool("add", serde_json::json!({"a": 1, "b": 2})).await.unwrap();
/// assert_eq!(result.content[0].as_text(), Some("sum=3"));
/// # });
/// ```
pub struct Extension {
    pub(crate) handlers: Handlers,
    pub(crate) hello_hooks: Vec<HelloFn>,
    pub(crate) handle: ExtHandle,
    pub(crate) config: EngineConfig,
}

impl std::fmt::Debug for Extension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extension")
            .field("name", &self.config.name)
            .field("version", &self.config.version)
            .finish_non_exhaustive()
    }
}

impl Extension {
    /// A new extension. `name` should equal the manifest's `name`.
    ///
    /// ```
    /// let ext = zot_ext::Extension::new("weather", "0.1.0");
    /// assert_eq!(ext.handle().name(), "weather");
    /// ```
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        let mut config = EngineConfig::new(name, version);
        // Rust handlers reply on the engine's own runtime: batch the replies
        // of one scheduler pass into one write (bench/README.md).
        config.deferred_flush = true;
        Self {
            handle: ExtHandle::new(config.name.clone()),
            handlers: Handlers::default(),
            hello_hooks: Vec::new(),
            config,
        }
    }

    /// The handle for spontaneous frames, usable from anywhere once the
    /// extension runs.
    ///
    /// ```
    /// let ext = zot_ext::Extension::new("demo", "1.0.0");
    /// let handle = ext.handle();
    /// assert_eq!(handle.name(), "demo");
    /// ```
    pub fn handle(&self) -> ExtHandle {
        self.handle.clone()
    }

    /// Adjusts the engine configuration (grace periods, timeouts,
    /// advertised capabilities).
    ///
    /// ```
    /// use std::time::Duration;
    /// let ext = zot_ext::Extension::new("demo", "1.0.0")
    ///     .configure(|cfg| cfg.shutdown_grace = Duration::from_millis(200));
    /// # let _ = ext;
    /// ```
    pub fn configure(mut self, f: impl FnOnce(&mut EngineConfig)) -> Self {
        f(&mut self.config);
        self
    }

    /// Runs `hook` after `hello_ack` and before any registration is sent
    /// (SDK-7); what it registers through the [`Registrar`] is announced
    /// with the rest. Several hooks run in order.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, Response};
    ///
    /// let ext = Extension::new("demo", "1.0.0").on_hello(|host, reg| {
    ///     let cwd = host.cwd.clone();
    ///     reg.command("cwd", "Show the project directory", move |_args, _ctx| {
    ///         let cwd = cwd.clone();
    ///         async move { Response::display(cwd) }
    ///     });
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// assert_eq!(host.registration().commands[0].name, "cwd");
    /// # });
    /// ```
    pub fn on_hello(
        mut self,
        hook: impl FnOnce(&HostInfo, &mut Registrar<'_>) + Send + 'static,
    ) -> Self {
        self.hello_hooks.push(Box::new(hook));
        self
    }

    /// Routes keys of panel `panel_id` to `on_key`, in order, one at a time
    /// (panels opened later can register through [`ExtHandle::on_panel_key`]).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::sync::{Arc, Mutex};
    ///
    /// let keys = Arc::new(Mutex::new(Vec::new()));
    /// let seen = keys.clone();
    /// let ext = zot_ext::Extension::new("demo", "1.0.0")
    ///     .on_panel_key("main", move |key| seen.lock().unwrap().push(key.key.to_string()));
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// host.panel_key("main", "down", "").await.unwrap();
    /// host.panel_key("other", "up", "").await.unwrap(); // ignored
    /// host.shutdown().await.unwrap();
    /// assert_eq!(*keys.lock().unwrap(), ["down"]);
    /// # });
    /// ```
    pub fn on_panel_key(
        self,
        panel_id: &str,
        on_key: impl FnMut(&PanelKey) + Send + 'static,
    ) -> Self {
        self.handle.on_panel_key(panel_id, on_key);
        self
    }

    /// Calls `on_close` when the host closes panel `panel_id`.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// use std::sync::Arc;
    ///
    /// let closed = Arc::new(AtomicBool::new(false));
    /// let flag = closed.clone();
    /// let ext = zot_ext::Extension::new("demo", "1.0.0")
    ///     .on_panel_close("main", move || flag.store(true, Ordering::SeqCst));
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// host.panel_close("main").await.unwrap();
    /// host.shutdown().await.unwrap();
    /// assert!(closed.load(Ordering::SeqCst));
    /// # });
    /// ```
    pub fn on_panel_close(self, panel_id: &str, on_close: impl FnMut() + Send + 'static) -> Self {
        self.handle.on_panel_close(panel_id, on_close);
        self
    }

    /// Routes `panel_resize` frames of `panel_id` (code-only; no stored
    /// host sends them).
    ///
    /// ```
    /// let ext = zot_ext::Extension::new("demo", "1.0.0")
    ///     .on_panel_resize("main", |r| eprintln!("{}x{}", r.width, r.height));
    /// # let _ = ext;
    /// ```
    pub fn on_panel_resize(
        self,
        panel_id: &str,
        on_resize: impl FnMut(&PanelResize) + Send + 'static,
    ) -> Self {
        self.handle.on_panel_resize(panel_id, on_resize);
        self
    }
}

/// Registrations made in an on-hello hook ([`Extension::on_hello`]).
pub struct Registrar<'a> {
    pub(crate) handlers: &'a mut Handlers,
    pub(crate) handle: &'a ExtHandle,
}

impl std::fmt::Debug for Registrar<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registrar").finish_non_exhaustive()
    }
}

impl Registrar<'_> {
    /// The extension handle.
    pub fn ext(&self) -> &ExtHandle {
        self.handle
    }
}
