//! The registration methods of [`Extension`] (by value, for chaining) and
//! [`Registrar`] (by reference, in an on-hello hook), written once: the
//! `registrations!` macro gives each body to both types.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use zot_protocol::{
    AssistantMessageIntercept, BeforeAgentStartIntercept, EventPayload, InterceptRequest, RawJson,
    RegisterCommand, ToolCallIntercept, TurnStartIntercept,
};

use super::builder::{CommandFn, Event, Extension, Handlers, Registrar, ToolFn};
use super::ctx::Ctx;
use super::results::{
    HandlerResult, MessageVerdict, PromptVerdict, Response, ToolCallVerdict, ToolOutput,
    TurnVerdict,
};
use super::tool_spec::{schema_of, ToolSpec};
use crate::engine::EventData;

/// Gives each registration method to [`Extension`] (`fn m(self, …) ->
/// Self`, with the full documentation) and to [`Registrar`] (`fn m(&mut
/// self, …) -> &mut Self`, with the one-line summary and a link). The body
/// sees the [`Handlers`] as the identifier given after `&mut`.
macro_rules! registrations {
    ($(
        $(#[$doc:meta])*
        registrar: $summary:literal,
        fn $name:ident<$($gen:ident),*>(&mut $h:ident $(, $arg:ident: $ty:ty)*)
        where { $($bound:tt)* }
        $body:block
    )*) => {
        impl Extension {
            $(
                $(#[$doc])*
                pub fn $name<$($gen),*>(mut self $(, $arg: $ty)*) -> Self
                where
                    $($bound)*
                {
                    let $h = &mut self.handlers;
                    $body
                    self
                }
            )*
        }

        impl Registrar<'_> {
            $(
                #[doc = $summary]
                #[doc = ""]
                #[doc = concat!(
                    "The same as [`Extension::", stringify!($name),
                    "`] (rules and example there), from an on-hello hook."
                )]
                pub fn $name<$($gen),*>(&mut self $(, $arg: $ty)*) -> &mut Self
                where
                    $($bound)*
                {
                    let $h = &mut *self.handlers;
                    $body
                    self
                }
            )*
        }
    };
}

registrations! {
    /// Registers a slash command. The handler gets the text after the
    /// command name and returns a [`Response`]. Commands run concurrently.
    /// An invalid name, or one registered before (ignoring case), makes
    /// [`Extension::run`] return [`RunError::Register`](crate::RunError::Register).
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
    registrar: "Registers a slash command.",
    fn command<F, Fut, R>(&mut h, name: impl Into<String>, description: impl Into<String>, handler: F)
    where {
        F: Fn(String, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<Response>,
    }
    {
        let f: CommandFn = Arc::new(move |args, ctx| {
            let fut = handler(args, ctx);
            Box::pin(async move { fut.await.into_result() })
        });
        let reg = RegisterCommand { name: name.into(), description: description.into() };
        h.add_command(reg, f);
    }

    /// Registers a tool with typed arguments: the input schema is derived
    /// from `T` (schemars), and arguments that do not decode into `T` are
    /// answered with an error result naming the field. Tools run
    /// concurrently. An invalid name, or one registered before, makes
    /// [`Extension::run`] return [`RunError::Register`](crate::RunError::Register).
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
    registrar: "Registers a tool with typed arguments.",
    fn tool<T, F, Fut, R>(&mut h, name: impl Into<String>, description: impl Into<String>, handler: F)
    where {
        T: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(T, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    }
    {
        typed_tool(h, ToolSpec::new(name, description), handler);
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
    registrar: "Registers a tool with typed arguments and options.",
    fn tool_with<T, F, Fut, R>(&mut h, spec: ToolSpec, handler: F)
    where {
        T: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(T, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    }
    {
        typed_tool(h, spec, handler);
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
    registrar: "Registers a tool that receives its arguments as raw JSON text.",
    fn tool_raw<F, Fut, R>(&mut h, spec: ToolSpec, handler: F)
    where {
        F: Fn(RawJson, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolOutput>,
    }
    {
        let f: ToolFn = Arc::new(move |raw, ctx| {
            let fut = handler(raw, ctx);
            Box::pin(async move { fut.await.into_result() })
        });
        h.add_tool(spec, f);
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
    registrar: "Subscribes to a lifecycle event.",
    fn on<F, Fut, R>(&mut h, event: impl Into<String>, handler: F)
    where {
        F: Fn(Event, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<()>,
    }
    {
        h.add_event(event.into(), handler);
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
    registrar: "Subscribes to a lifecycle event, typed by its payload.",
    fn on_event<E, F, Fut, R>(&mut h, handler: F)
    where {
        E: EventPayload,
        F: Fn(E, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<()>,
    }
    {
        // An event of that name that did not decode as `E` (the engine
        // passes such a frame on as unknown) fails the handler, saying so
        // (logged, SDK-36), rather than vanishing.
        let handler = Arc::new(handler);
        h.add_event(E::NAME.to_owned(), move |event: Event, ctx: Ctx| {
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
    registrar: "Intercepts tool calls.",
    fn intercept_tool_call<F, Fut, R>(&mut h, handler: F)
    where {
        F: Fn(ToolCallIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<ToolCallVerdict>,
    }
    {
        h.add_interceptor("tool_call", |req| match req {
            InterceptRequest::ToolCall(r) => Some(r),
            _ => None,
        }, handler);
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
    registrar: "Intercepts the start of a model turn.",
    fn intercept_turn_start<F, Fut, R>(&mut h, handler: F)
    where {
        F: Fn(TurnStartIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<TurnVerdict>,
    }
    {
        h.add_interceptor("turn_start", |req| match req {
            InterceptRequest::TurnStart(r) => Some(r),
            _ => None,
        }, handler);
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
    registrar: "Intercepts visible assistant text.",
    fn intercept_assistant_message<F, Fut, R>(&mut h, handler: F)
    where {
        F: Fn(AssistantMessageIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<MessageVerdict>,
    }
    {
        h.add_interceptor("assistant_message", |req| match req {
            InterceptRequest::AssistantMessage(r) => Some(r),
            _ => None,
        }, handler);
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
    registrar: "Replaces, keeps or removes the system prompt before the agent starts.",
    fn intercept_before_agent_start<F, Fut, R>(&mut h, handler: F)
    where {
        F: Fn(BeforeAgentStartIntercept, Ctx) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: HandlerResult<PromptVerdict>,
    }
    {
        h.add_interceptor("before_agent_start", |req| match req {
            InterceptRequest::BeforeAgentStart(r) => Some(r),
            _ => None,
        }, handler);
    }
}

/// The typed tools' one body (`tool` and `tool_with`): the schema is
/// derived from `T` unless the spec gives one, and arguments are decoded
/// into `T` before the handler runs.
fn typed_tool<T, F, Fut, R>(h: &mut Handlers, mut spec: ToolSpec, handler: F)
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
        Err(msg) => Box::pin(std::future::ready(Err(msg))),
    });
    h.add_tool(spec, f);
}

/// Decodes tool arguments into `T`, naming the offending field on failure
/// (without serde_json's line and column: the arguments are one line the
/// model wrote, the field says where).
fn decode_args<T: DeserializeOwned>(raw: &RawJson) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let msg = strip_position(e.inner().to_string());
        if path == "." || path.is_empty() {
            format!("invalid arguments: {msg}")
        } else {
            format!("invalid arguments: field `{path}`: {msg}")
        }
    })
}

fn strip_position(msg: String) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_owned(),
        None => msg,
    }
}
