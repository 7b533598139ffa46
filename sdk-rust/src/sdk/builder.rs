//! [`Extension`]: the builder of a Rust extension, and [`Registrar`] for
//! registrations made in the on-hello hook.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use zot_protocol::validate::command_key;
use zot_protocol::values::INTERCEPTABLE_EVENT_NAMES;
use zot_protocol::{
    AssistantMessageIntercept, BeforeAgentStartIntercept, EventPayload, InterceptRequest, PanelKey,
    PanelResize, RawJson, RegisterCommand, ToolCallIntercept, TurnStartIntercept,
};

use super::ctx::Ctx;
use super::handle::{ExtHandle, HostInfo};
use super::results::{
    HandlerResult, MessageVerdict, PromptVerdict, Response, ToolCallVerdict, ToolOutput,
    TurnVerdict,
};
use super::tool_spec::{schema_of, ToolSpec};
use crate::engine::fast_hash::FastMap;
use crate::engine::registration;
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

/// Decodes tool arguments into `T`, naming the offending field on failure.
fn decode_args<T: DeserializeOwned>(raw: &RawJson) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        if path == "." || path.is_empty() {
            format!("invalid arguments: {}", e.inner())
        } else {
            format!("invalid arguments: field `{path}`: {}", e.inner())
        }
    })
}

fn strip_position(msg: String) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg,
    }
}

impl Handlers {
    pub(crate) fn add_command<F, Fut, R>(&mut self, name: String, description: String, handler: F)
    where
        F: Fn(String, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<Response>,
    {
        if let Err(e) = registration::check_command(&name) {
            return self.errors.push(e.to_string());
        }
        let f: CommandFn = Arc::new(move |args, ctx| {
            let fut = handler(args, ctx);
            Box::pin(async move { fut.await.into_result() })
        });
        let reg = RegisterCommand { name, description };
        let key = command_key(&reg.name);
        match self
            .commands
            .iter_mut()
            .find(|(r, _)| command_key(&r.name) == key)
        {
            Some(slot) => *slot = (reg, f),
            None => self.commands.push((reg, f)),
        }
    }

    pub(crate) fn add_tool(&mut self, spec: ToolSpec, f: ToolFn) {
        if let Some(e) = &spec.error {
            return self.errors.push(e.clone());
        }
        if let Err(e) = registration::check_tool(&spec.reg) {
            return self.errors.push(e.to_string());
        }
        match self.tools.iter_mut().find(|(s, _)| s.name() == spec.name()) {
            Some(slot) => *slot = (spec, f),
            None => self.tools.push((spec, f)),
        }
    }

    pub(crate) fn add_typed_tool<T, F, Fut, R>(&mut self, mut spec: ToolSpec, handler: F)
    where
        T: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(T, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    {
        if !spec.explicit_schema {
            spec.reg.schema = schema_of::<T>();
        }
        let f: ToolFn = Arc::new(move |raw, ctx| match decode_args::<T>(&raw) {
            Ok(args) => {
                let fut = handler(args, ctx);
                Box::pin(async move { fut.await.into_result() })
            }
            Err(msg) => Box::pin(std::future::ready(Err(strip_position(msg)))),
        });
        self.add_tool(spec, f);
    }

    pub(crate) fn add_raw_tool<F, Fut, R>(&mut self, spec: ToolSpec, handler: F)
    where
        F: Fn(RawJson, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    {
        let f: ToolFn = Arc::new(move |raw, ctx| {
            let fut = handler(raw, ctx);
            Box::pin(async move { fut.await.into_result() })
        });
        self.add_tool(spec, f);
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

    /// A handler of one known event, typed by its payload (`E::NAME` is the
    /// subscription). An event of that name that did not decode as `E`
    /// (the engine passes such a frame on as unknown) fails the handler
    /// with a message saying so (logged, SDK-36) rather than vanishing.
    pub(crate) fn add_typed_event<E, F, Fut, R>(&mut self, handler: F)
    where
        E: EventPayload,
        F: Fn(E, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<()>,
    {
        let handler = Arc::new(handler);
        self.add_event(E::NAME.to_owned(), move |event: Event, ctx: Ctx| {
            let handler = handler.clone();
            async move {
                let payload = match event {
                    EventData::Known(e) => E::from_event(e),
                    EventData::Unknown(_) => None,
                };
                match payload {
                    Some(p) => handler(p, ctx).await.into_result(),
                    None => Err(format!("a {} event did not decode as its payload", E::NAME)),
                }
            }
        });
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
    fn add_typed_interceptor<T, V, F, Fut, R>(
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
        self.add_intercept(
            event,
            Arc::new(move |req, ctx| match pick(req) {
                Some(r) => {
                    let fut = handler(r, ctx);
                    Box::pin(async move { fut.await.into_result().map(Into::into) })
                }
                None => mismatch(),
            }),
        );
    }

    pub(crate) fn add_tool_call_interceptor<F, Fut, R>(&mut self, handler: F)
    where
        F: Fn(ToolCallIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolCallVerdict>,
    {
        self.add_typed_interceptor(
            "tool_call",
            |req| match req {
                InterceptRequest::ToolCall(r) => Some(r),
                _ => None,
            },
            handler,
        );
    }

    pub(crate) fn add_turn_start_interceptor<F, Fut, R>(&mut self, handler: F)
    where
        F: Fn(TurnStartIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<TurnVerdict>,
    {
        self.add_typed_interceptor(
            "turn_start",
            |req| match req {
                InterceptRequest::TurnStart(r) => Some(r),
                _ => None,
            },
            handler,
        );
    }

    pub(crate) fn add_assistant_message_interceptor<F, Fut, R>(&mut self, handler: F)
    where
        F: Fn(AssistantMessageIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<MessageVerdict>,
    {
        self.add_typed_interceptor(
            "assistant_message",
            |req| match req {
                InterceptRequest::AssistantMessage(r) => Some(r),
                _ => None,
            },
            handler,
        );
    }

    pub(crate) fn add_before_agent_start_interceptor<F, Fut, R>(&mut self, handler: F)
    where
        F: Fn(BeforeAgentStartIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<PromptVerdict>,
    {
        self.add_typed_interceptor(
            "before_agent_start",
            |req| match req {
                InterceptRequest::BeforeAgentStart(r) => Some(r),
                _ => None,
            },
            handler,
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

    /// Registers a slash command. The handler gets the text after the
    /// command name and returns a [`Response`]. Commands run concurrently.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, Response};
    ///
    /// let ext = Extension::new("demo", "1.0.0")
    ///     .command("echo", "Echo the arguments", |args, _ctx| async move { Response::display(args) });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// assert_eq!(host.command("echo", "hi there").await.unwrap().display, "hi there");
    /// # });
    /// ```
    pub fn command<F, Fut, R>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        F: Fn(String, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<Response>,
    {
        self.handlers
            .add_command(name.into(), description.into(), handler);
        self
    }

    /// Registers a tool with typed arguments: the input schema is derived
    /// from `T` (schemars), and arguments that do not decode into `T` are
    /// answered with an error result naming the field. Tools run
    /// concurrently.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, ToolOutput};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Args { city: String }
    ///
    /// let ext = Extension::new("weather", "1.0.0")
    ///     .tool("forecast", "Weather for a city", |args: Args, _ctx| async move {
    ///         ToolOutput::text(format!("sunny in {}", args.city))
    ///     });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// assert!(host.registration().tools[0].schema.get().contains("city"));
    /// let bad = host.tool("forecast", serde_json::json!({"city": 7})).await.unwrap();
    /// assert!(bad.is_error);
    /// assert!(bad.content[0].as_text().unwrap().contains("city"));
    /// # });
    /// ```
    pub fn tool<T, F, Fut, R>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        T: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(T, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    {
        self.tool_with(ToolSpec::new(name, description), handler)
    }

    /// Registers a typed tool with options (output schema, namespace,
    /// exposure, deferred, interactive; an explicit schema overrides the
    /// derived one).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, ToolOutput, ToolSpec};
    /// use zot_protocol::Exposure;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Add { a: i64, b: i64 }
    ///
    /// let spec = ToolSpec::new("add", "Add two integers")
    ///     .output_schema(&serde_json::json!({"type": "object", "properties": {"sum": {"type": "integer"}}}))
    ///     .exposure(Exposure::Codemode);
    /// let ext = Extension::new("math", "1.0.0").tool_with(spec, |a: Add, _ctx| async move {
    ///     ToolOutput::text(format!("sum={}", a.a + a.b)).with_structured(&serde_json::json!({"sum": a.a + a.b}))
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// let r = host.tool("add", serde_json::json!({"a": 2, "b": 3})).await.unwrap();
    /// assert_eq!(r.structured_content.unwrap().get(), r#"{"sum":5}"#);
    /// # });
    /// ```
    pub fn tool_with<T, F, Fut, R>(mut self, spec: ToolSpec, handler: F) -> Self
    where
        T: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(T, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    {
        self.handlers.add_typed_tool(spec, handler);
        self
    }

    /// Registers a tool that receives its arguments as raw JSON text; the
    /// schema is the spec's (`{"type":"object"}` unless set).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, ToolOutput, ToolSpec};
    ///
    /// let ext = Extension::new("demo", "1.0.0").tool_raw(ToolSpec::new("raw", "Echo raw args"), |args, _ctx| async move {
    ///     ToolOutput::text(args.get())
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// let r = host.tool("raw", serde_json::json!({"x": [1, 2]})).await.unwrap();
    /// assert_eq!(r.content[0].as_text(), Some(r#"{"x":[1,2]}"#));
    /// # });
    /// ```
    pub fn tool_raw<F, Fut, R>(mut self, spec: ToolSpec, handler: F) -> Self
    where
        F: Fn(RawJson, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    {
        self.handlers.add_raw_tool(spec, handler);
        self
    }

    /// Subscribes to a lifecycle event. Event handlers run in arrival
    /// order, one at a time (SDK-35); a failing handler is logged
    /// (SDK-36). The `ctx` is cancelled when the session ends.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::sync::{Arc, Mutex};
    /// use zot_ext::Extension;
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let ext = Extension::new("demo", "1.0.0").on("turn_start", move |event, _ctx| {
    ///     let log = log.clone();
    ///     async move { log.lock().unwrap().push(event.name().to_owned()) }
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// host.send_json(r#"{"type":"event","event":"turn_start","step":1}"#).await.unwrap();
    /// host.shutdown().await.unwrap();
    /// assert_eq!(*seen.lock().unwrap(), ["turn_start"]);
    /// # });
    /// ```
    pub fn on<F, Fut, R>(mut self, event: impl Into<String>, handler: F) -> Self
    where
        F: Fn(Event, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<()>,
    {
        self.handlers.add_event(event.into(), handler);
        self
    }

    /// Subscribes to a lifecycle event, typed by its payload: the event is
    /// the payload type ([`EventPayload`], one per event of the protocol,
    /// e.g. [`ToolResultEvent`](zot_protocol::ToolResultEvent)) and the
    /// handler gets it decoded. The same rules as [`Extension::on`] (which
    /// stays for events this protocol version does not list, by name); the
    /// two share one subscription per event name, the last registered
    /// handler wins.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use std::sync::{Arc, Mutex};
    /// use zot_ext::Extension;
    /// use zot_protocol::TurnStartEvent;
    ///
    /// let steps = Arc::new(Mutex::new(Vec::new()));
    /// let log = steps.clone();
    /// let ext = Extension::new("demo", "1.0.0").on_event(move |event: TurnStartEvent, _ctx| {
    ///     let log = log.clone();
    ///     async move { log.lock().unwrap().push(event.step) }
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// host.send_json(r#"{"type":"event","event":"turn_start","step":3}"#).await.unwrap();
    /// host.shutdown().await.unwrap();
    /// assert_eq!(*steps.lock().unwrap(), [3]);
    /// # });
    /// ```
    pub fn on_event<E, F, Fut, R>(mut self, handler: F) -> Self
    where
        E: EventPayload,
        F: Fn(E, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<()>,
    {
        self.handlers.add_typed_event(handler);
        self
    }

    /// Intercepts tool calls (§11.2): allow, block with a reason, or
    /// rewrite the arguments. A failing interceptor blocks (SDK-45).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, ToolCallVerdict};
    ///
    /// let ext = Extension::new("guard", "1.0.0").intercept_tool_call(|call, _ctx| async move {
    ///     if call.tool_name == "bash" && call.tool_args.get().contains("rm -rf") {
    ///         ToolCallVerdict::block("refused")
    ///     } else {
    ///         ToolCallVerdict::Allow
    ///     }
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// let r = host.intercept_json(r#"{"type":"event_intercept","id":"1","event":"tool_call","tool_name":"bash","tool_args":{"command":"rm -rf /"}}"#).await.unwrap();
    /// assert!(r.block);
    /// # });
    /// ```
    pub fn intercept_tool_call<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(ToolCallIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolCallVerdict>,
    {
        self.handlers.add_tool_call_interceptor(handler);
        self
    }

    /// Intercepts the start of a model turn (§11.3): allow or block.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, TurnVerdict};
    ///
    /// let ext = Extension::new("limits", "1.0.0").intercept_turn_start(|turn, _ctx| async move {
    ///     if turn.step >= 99 { TurnVerdict::block("step limit") } else { TurnVerdict::Allow }
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// let r = host.intercept_json(r#"{"type":"event_intercept","id":"1","event":"turn_start","step":99}"#).await.unwrap();
    /// assert_eq!((r.block, r.reason.as_str()), (true, "step limit"));
    /// # });
    /// ```
    pub fn intercept_turn_start<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(TurnStartIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<TurnVerdict>,
    {
        self.handlers.add_turn_start_interceptor(handler);
        self
    }

    /// Intercepts visible assistant text (§11.4): allow, hide, or replace
    /// what the user sees.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, MessageVerdict};
    ///
    /// let ext = Extension::new("redact", "1.0.0").intercept_assistant_message(|msg, _ctx| async move {
    ///     MessageVerdict::replace(msg.text.replace("SECRET", "[redacted]"))
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// let r = host.intercept_json(r#"{"type":"event_intercept","id":"1","event":"assistant_message","text":"a SECRET"}"#).await.unwrap();
    /// assert_eq!(r.replace_text, "a [redacted]");
    /// # });
    /// ```
    pub fn intercept_assistant_message<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(AssistantMessageIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<MessageVerdict>,
    {
        self.handlers.add_assistant_message_interceptor(handler);
        self
    }

    /// Replaces, keeps or removes the system prompt before the agent
    /// starts (§11.5). A failing hook keeps the prompt.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use zot_ext::{Extension, PromptVerdict};
    ///
    /// let ext = Extension::new("persona", "1.0.0").intercept_before_agent_start(|req, _ctx| async move {
    ///     PromptVerdict::replace(format!("{}\nBe terse.", req.system_prompt))
    /// });
    /// let mut host = zot_ext::testing::TestHost::start(ext).await.unwrap();
    /// let r = host.intercept_json(r#"{"type":"event_intercept","id":"1","event":"before_agent_start","system_prompt":"Base"}"#).await.unwrap();
    /// assert_eq!(r.system_prompt, Some(Some("Base\nBe terse.".to_owned())));
    /// # });
    /// ```
    pub fn intercept_before_agent_start<F, Fut, R>(mut self, handler: F) -> Self
    where
        F: Fn(BeforeAgentStartIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<PromptVerdict>,
    {
        self.handlers.add_before_agent_start_interceptor(handler);
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
    /// Registers a command; see [`Extension::command`].
    pub fn command<F, Fut, R>(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> &mut Self
    where
        F: Fn(String, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<Response>,
    {
        self.handlers
            .add_command(name.into(), description.into(), handler);
        self
    }

    /// Registers a typed tool; see [`Extension::tool`].
    pub fn tool<T, F, Fut, R>(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> &mut Self
    where
        T: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(T, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    {
        self.handlers
            .add_typed_tool(ToolSpec::new(name, description), handler);
        self
    }

    /// Registers a typed tool with options; see [`Extension::tool_with`].
    pub fn tool_with<T, F, Fut, R>(&mut self, spec: ToolSpec, handler: F) -> &mut Self
    where
        T: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(T, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    {
        self.handlers.add_typed_tool(spec, handler);
        self
    }

    /// Registers a raw-JSON tool; see [`Extension::tool_raw`].
    pub fn tool_raw<F, Fut, R>(&mut self, spec: ToolSpec, handler: F) -> &mut Self
    where
        F: Fn(RawJson, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    {
        self.handlers.add_raw_tool(spec, handler);
        self
    }

    /// Subscribes to an event; see [`Extension::on`].
    pub fn on<F, Fut, R>(&mut self, event: impl Into<String>, handler: F) -> &mut Self
    where
        F: Fn(Event, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<()>,
    {
        self.handlers.add_event(event.into(), handler);
        self
    }

    /// Subscribes to an event, typed by its payload; see
    /// [`Extension::on_event`].
    pub fn on_event<E, F, Fut, R>(&mut self, handler: F) -> &mut Self
    where
        E: EventPayload,
        F: Fn(E, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<()>,
    {
        self.handlers.add_typed_event(handler);
        self
    }

    /// See [`Extension::intercept_tool_call`].
    pub fn intercept_tool_call<F, Fut, R>(&mut self, handler: F) -> &mut Self
    where
        F: Fn(ToolCallIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolCallVerdict>,
    {
        self.handlers.add_tool_call_interceptor(handler);
        self
    }

    /// See [`Extension::intercept_turn_start`].
    pub fn intercept_turn_start<F, Fut, R>(&mut self, handler: F) -> &mut Self
    where
        F: Fn(TurnStartIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<TurnVerdict>,
    {
        self.handlers.add_turn_start_interceptor(handler);
        self
    }

    /// See [`Extension::intercept_assistant_message`].
    pub fn intercept_assistant_message<F, Fut, R>(&mut self, handler: F) -> &mut Self
    where
        F: Fn(AssistantMessageIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<MessageVerdict>,
    {
        self.handlers.add_assistant_message_interceptor(handler);
        self
    }

    /// See [`Extension::intercept_before_agent_start`].
    pub fn intercept_before_agent_start<F, Fut, R>(&mut self, handler: F) -> &mut Self
    where
        F: Fn(BeforeAgentStartIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<PromptVerdict>,
    {
        self.handlers.add_before_agent_start_interceptor(handler);
        self
    }

    /// The extension handle.
    pub fn ext(&self) -> &ExtHandle {
        self.handle
    }
}
