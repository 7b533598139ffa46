//! What handlers return: tool outputs, command responses, interception
//! verdicts, and the conversion that lets any of them be wrapped in a
//! `Result<_, E: Display>`.

use std::any::Any;
use std::fmt::Display;

use serde::Serialize;
use zot_protocol::validate::validate_tool_prompt;
use zot_protocol::{CommandAction, ContentBlock, PanelSpec, RawJson};

use super::error::{type_label, Error};
use crate::engine::{CommandOutcome, InterceptOutcome, ToolOutcome};

/// The result of a tool handler: model-facing content blocks, plus optional
/// structured content and deferred tools to activate.
///
/// ```
/// use zot_ext::ToolOutput;
///
/// let out = ToolOutput::text("sum=3")
///     .with_structured(&serde_json::json!({"sum": 3}))
///     .activate(["lazy"]);
/// assert!(!out.is_error());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolOutput(pub(crate) ToolOutcome);

impl ToolOutput {
    /// One text block.
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::text("hello");
    /// assert_eq!(out.content()[0].as_text(), Some("hello"));
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Self::blocks(vec![ContentBlock::text(text)])
    }

    /// An error result (`is_error`) with one text block.
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::error("missing text");
    /// assert!(out.is_error());
    /// ```
    pub fn error(message: impl Into<String>) -> Self {
        Self(ToolOutcome::error(message))
    }

    /// Any content blocks.
    ///
    /// ```
    /// use zot_ext::ToolOutput;
    /// use zot_protocol::ContentBlock;
    ///
    /// let out = ToolOutput::blocks(vec![ContentBlock::text("a"), ContentBlock::text("b")]);
    /// assert_eq!(out.content().len(), 2);
    /// ```
    pub fn blocks(content: Vec<ContentBlock>) -> Self {
        Self(ToolOutcome {
            content,
            ..ToolOutcome::default()
        })
    }

    /// One image block from raw bytes (base64-encoded here, WIRE-20).
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::image_bytes("image/png", b"\x89PNG");
    /// assert_eq!(out.content()[0].type_name(), "image");
    /// ```
    pub fn image_bytes(mime_type: impl Into<String>, bytes: &[u8]) -> Self {
        Self::blocks(vec![image_block(mime_type, bytes)])
    }

    /// A result whose content is the JSON text of `value` and whose
    /// `structured_content` is `value` itself (for tools declaring an
    /// `output_schema`; the text keeps clients that ignore structured
    /// content informed).
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::structured(&serde_json::json!({"sum": 3}));
    /// assert_eq!(out.content()[0].as_text(), Some(r#"{"sum":3}"#));
    /// ```
    pub fn structured<T: Serialize + ?Sized>(value: &T) -> Self {
        match RawJson::from_value(value) {
            Ok(raw) => {
                let mut out = Self::text(raw.get());
                out.0.structured_content = Some(raw);
                out
            }
            Err(e) => Self::error(format!("cannot serialize structured content: {e}")),
        }
    }

    /// Adds a text block.
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::text("a").with_text("b");
    /// assert_eq!(out.content().len(), 2);
    /// ```
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.0.content.push(ContentBlock::text(text));
        self
    }

    /// Adds an image block from raw bytes.
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::text("image").with_image_bytes("image/png", &[1, 2, 3]);
    /// assert_eq!(out.content()[1].type_name(), "image");
    /// ```
    pub fn with_image_bytes(mut self, mime_type: impl Into<String>, bytes: &[u8]) -> Self {
        self.0.content.push(image_block(mime_type, bytes));
        self
    }

    /// Sets `structured_content` (keeping the content blocks as they are).
    /// A value that cannot be serialized turns the result into an error.
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::text("sum=3").with_structured(&serde_json::json!({"sum": 3}));
    /// assert_eq!(out.structured_content().unwrap().get(), r#"{"sum":3}"#);
    /// ```
    pub fn with_structured<T: Serialize + ?Sized>(mut self, value: &T) -> Self {
        match RawJson::from_value(value) {
            Ok(raw) => {
                self.0.structured_content = Some(raw);
                self
            }
            Err(e) => Self::error(format!("cannot serialize structured content: {e}")),
        }
    }

    /// Names registered deferred tools to activate after this result.
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::text("loaded").activate(["lazy"]);
    /// assert_eq!(out.activate_tools(), ["lazy"]);
    /// ```
    pub fn activate<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.0
            .activate_tools
            .extend(tools.into_iter().map(Into::into));
        self
    }

    /// Marks the result as an error (or not).
    ///
    /// ```
    /// let out = zot_ext::ToolOutput::text("partial").with_error(true);
    /// assert!(out.is_error());
    /// ```
    pub fn with_error(mut self, is_error: bool) -> Self {
        self.0.is_error = is_error;
        self
    }

    /// The content blocks.
    pub fn content(&self) -> &[ContentBlock] {
        &self.0.content
    }

    /// Whether this is an error result.
    pub fn is_error(&self) -> bool {
        self.0.is_error
    }

    /// The tools to activate.
    pub fn activate_tools(&self) -> &[String] {
        &self.0.activate_tools
    }

    /// The structured content.
    pub fn structured_content(&self) -> Option<&RawJson> {
        self.0.structured_content.as_ref()
    }

    /// The engine outcome.
    pub fn into_outcome(self) -> ToolOutcome {
        self.0
    }
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

fn image_block(mime_type: impl Into<String>, bytes: &[u8]) -> ContentBlock {
    ContentBlock::image(mime_type, base64(bytes))
}

/// Standard base64 with padding.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        out.push(A[(n >> 18) as usize & 63] as char);
        out.push(A[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 {
            A[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if chunk.len() > 2 {
            A[n as usize & 63] as char
        } else {
            '='
        });
    }
    out
}

/// The response of a command handler (§10.2).
///
/// ```
/// use zot_ext::Response;
///
/// let r = Response::display("done");
/// assert_eq!(r.outcome().display, "done");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Response(pub(crate) CommandOutcome);

impl Response {
    fn action(action: CommandAction) -> Self {
        Self(CommandOutcome {
            action,
            ..CommandOutcome::default()
        })
    }

    /// Sends `prompt` to the agent as a user message.
    ///
    /// ```
    /// let r = zot_ext::Response::prompt("Hello, world");
    /// assert_eq!(r.outcome().prompt, "Hello, world");
    /// ```
    pub fn prompt(prompt: impl Into<String>) -> Self {
        let mut r = Self::action(CommandAction::Prompt);
        r.0.prompt = prompt.into();
        r
    }

    /// Submits `prompt` and runs `tool_name` with `args` first (§10.3). The
    /// fields are validated here (SDK-18): an empty name or prompt, or
    /// arguments that are not a JSON object, give an error response instead.
    ///
    /// ```
    /// use serde_json::json;
    /// use zot_ext::Response;
    ///
    /// let ok = Response::tool_prompt("echo", &json!({"text": "hi"}), "and push");
    /// assert!(ok.outcome().error.is_empty());
    /// let bad = Response::tool_prompt("echo", &json!([1]), "and push");
    /// assert_eq!(bad.outcome().error, "`tool_args` must be a JSON object");
    /// ```
    pub fn tool_prompt<T: Serialize + ?Sized>(
        tool_name: impl Into<String>,
        args: &T,
        prompt: impl Into<String>,
    ) -> Self {
        let args = match RawJson::from_value(args) {
            Ok(a) => a,
            Err(e) => return Self::error(format!("tool_prompt args: {e}")),
        };
        let (tool_name, prompt) = (tool_name.into(), prompt.into());
        if let Err(e) = validate_tool_prompt(&prompt, &tool_name, Some(&args)) {
            return Self::error(e.to_string());
        }
        let mut r = Self::action(CommandAction::ToolPrompt);
        r.0.prompt = prompt;
        r.0.tool_name = tool_name;
        r.0.tool_args = Some(args);
        r
    }

    /// Puts `text` into the editor.
    ///
    /// ```
    /// let r = zot_ext::Response::insert("text");
    /// assert_eq!(r.outcome().insert, "text");
    /// ```
    pub fn insert(text: impl Into<String>) -> Self {
        let mut r = Self::action(CommandAction::Insert);
        r.0.insert = text.into();
        r
    }

    /// Shows `text` once as a note.
    ///
    /// ```
    /// let r = zot_ext::Response::display("shown");
    /// assert_eq!(r.outcome().display, "shown");
    /// ```
    pub fn display(text: impl Into<String>) -> Self {
        let mut r = Self::action(CommandAction::Display);
        r.0.display = text.into();
        r
    }

    /// Opens a panel.
    ///
    /// ```
    /// use zot_protocol::PanelSpec;
    ///
    /// let r = zot_ext::Response::open_panel(PanelSpec { id: "p".into(), ..Default::default() });
    /// assert_eq!(r.outcome().open_panel.as_ref().unwrap().id, "p");
    /// ```
    pub fn open_panel(panel: PanelSpec) -> Self {
        let mut r = Self::action(CommandAction::OpenPanel);
        r.0.open_panel = Some(panel);
        r
    }

    /// Does nothing (the handler did its work itself).
    ///
    /// ```
    /// let r = zot_ext::Response::noop();
    /// assert_eq!(r.outcome().action.as_str(), "noop");
    /// ```
    pub fn noop() -> Self {
        Self::action(CommandAction::Noop)
    }

    /// A `noop` with an error shown to the user.
    ///
    /// ```
    /// let r = zot_ext::Response::error("command failed: x");
    /// assert_eq!(r.outcome().error, "command failed: x");
    /// ```
    pub fn error(message: impl Into<String>) -> Self {
        let mut r = Self::noop();
        r.0.error = message.into();
        r
    }

    /// The engine outcome.
    pub fn outcome(&self) -> &CommandOutcome {
        &self.0
    }

    /// The engine outcome, by value.
    pub fn into_outcome(self) -> CommandOutcome {
        self.0
    }
}

/// The verdict of a `tool_call` interceptor (§11.2).
///
/// ```
/// use zot_ext::ToolCallVerdict;
///
/// let v = ToolCallVerdict::modify(&serde_json::json!({"command": "echo GUARDED: ls"}));
/// assert!(matches!(v, ToolCallVerdict::ModifyArgs(_)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCallVerdict {
    /// Let the call run unchanged.
    Allow,
    /// Refuse the call; the reason is the model's error text.
    Block(String),
    /// Run it with these arguments (a JSON object).
    ModifyArgs(RawJson),
}

impl ToolCallVerdict {
    /// [`ToolCallVerdict::Block`].
    pub fn block(reason: impl Into<String>) -> Self {
        Self::Block(reason.into())
    }

    /// [`ToolCallVerdict::ModifyArgs`] from any serializable value (a value
    /// that does not serialize to an object is ignored by the engine, with
    /// a diagnostic).
    pub fn modify<T: Serialize + ?Sized>(args: &T) -> Self {
        match RawJson::from_value(args) {
            Ok(raw) => Self::ModifyArgs(raw),
            Err(e) => Self::Block(format!("cannot serialize modified args: {e}")),
        }
    }
}

/// The verdict of a `turn_start` interceptor (§11.3).
///
/// ```
/// let v = zot_ext::TurnVerdict::block("step limit");
/// assert_eq!(v, zot_ext::TurnVerdict::Block("step limit".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnVerdict {
    /// Let the turn start.
    Allow,
    /// Stop the turn; the user sees the reason.
    Block(String),
}

impl TurnVerdict {
    /// [`TurnVerdict::Block`].
    pub fn block(reason: impl Into<String>) -> Self {
        Self::Block(reason.into())
    }
}

/// The verdict of an `assistant_message` interceptor (§11.4).
///
/// ```
/// let v = zot_ext::MessageVerdict::replace("[redacted]");
/// assert_eq!(v, zot_ext::MessageVerdict::Replace("[redacted]".into()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageVerdict {
    /// Show the message unchanged.
    Allow,
    /// Hide the message from the user.
    Block(String),
    /// Show this text instead (an empty or unchanged text is no change).
    Replace(String),
}

impl MessageVerdict {
    /// [`MessageVerdict::Block`].
    pub fn block(reason: impl Into<String>) -> Self {
        Self::Block(reason.into())
    }

    /// [`MessageVerdict::Replace`].
    pub fn replace(text: impl Into<String>) -> Self {
        Self::Replace(text.into())
    }
}

/// The verdict of a `before_agent_start` hook (§11.5).
///
/// ```
/// let v = zot_ext::PromptVerdict::replace("You are terse.");
/// assert_eq!(zot_ext::PromptVerdict::remove(), zot_ext::PromptVerdict::Replace(String::new()));
/// # let _ = v;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptVerdict {
    /// Keep the current prompt (the field is omitted).
    Keep,
    /// Use exactly this prompt (`""` removes it).
    Replace(String),
}

impl PromptVerdict {
    /// [`PromptVerdict::Replace`].
    pub fn replace(prompt: impl Into<String>) -> Self {
        Self::Replace(prompt.into())
    }

    /// Removes the system prompt (`Replace("")`).
    pub fn remove() -> Self {
        Self::Replace(String::new())
    }
}

impl From<ToolCallVerdict> for InterceptOutcome {
    fn from(v: ToolCallVerdict) -> Self {
        match v {
            ToolCallVerdict::Allow => Self::default(),
            ToolCallVerdict::Block(reason) => Self {
                block: true,
                reason,
                ..Self::default()
            },
            ToolCallVerdict::ModifyArgs(args) => Self {
                modified_args: Some(args),
                ..Self::default()
            },
        }
    }
}

impl From<TurnVerdict> for InterceptOutcome {
    fn from(v: TurnVerdict) -> Self {
        match v {
            TurnVerdict::Allow => Self::default(),
            TurnVerdict::Block(reason) => Self {
                block: true,
                reason,
                ..Self::default()
            },
        }
    }
}

impl From<MessageVerdict> for InterceptOutcome {
    fn from(v: MessageVerdict) -> Self {
        match v {
            MessageVerdict::Allow => Self::default(),
            MessageVerdict::Block(reason) => Self {
                block: true,
                reason,
                ..Self::default()
            },
            MessageVerdict::Replace(text) => Self {
                replace_text: Some(text),
                ..Self::default()
            },
        }
    }
}

impl From<PromptVerdict> for InterceptOutcome {
    fn from(v: PromptVerdict) -> Self {
        match v {
            PromptVerdict::Keep => Self::default(),
            PromptVerdict::Replace(p) => Self {
                system_prompt: Some(p),
                ..Self::default()
            },
        }
    }
}

/// A handler's return value: `T` itself, or a `Result<T, E>` whose error
/// becomes the failure message (an `is_error` result, a command error, a
/// blocking verdict...).
pub trait HandlerResult<T> {
    /// The value, or the failure message.
    fn into_result(self) -> Result<T, String>;

    /// The value, or the failure as `Type: message`, the error's type
    /// first (`ParseIntError: invalid digit found in string`): how a
    /// failed interceptor's verdict names it, as TypeScript and Python
    /// name the exception's class. A failure without a type of its own
    /// (text, a boxed error) says `Error`.
    fn into_typed_result(self) -> Result<T, String>
    where
        Self: Sized,
    {
        self.into_result().map_err(|m| format!("Error: {m}"))
    }
}

impl<T, E: Display + 'static> HandlerResult<T> for Result<T, E> {
    fn into_result(self) -> Result<T, String> {
        self.map_err(|e| e.to_string())
    }

    fn into_typed_result(self) -> Result<T, String> {
        self.map_err(|e| {
            // The SDK's `Error` names the error it was converted from.
            let label = (&e as &dyn Any)
                .downcast_ref::<Error>()
                .map_or_else(type_label::<E>, Error::kind);
            format!("{label}: {e}")
        })
    }
}

macro_rules! plain_result {
    ($($t:ty),*) => {$(
        impl HandlerResult<$t> for $t {
            fn into_result(self) -> Result<$t, String> {
                Ok(self)
            }
        }
    )*};
}

plain_result!(
    ToolOutput,
    Response,
    ToolCallVerdict,
    TurnVerdict,
    MessageVerdict,
    PromptVerdict,
    ()
);

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn a_typed_failure_names_the_error_type_or_error() {
        use super::HandlerResult;
        let e = "x".parse::<i64>().map(|_| ()).into_typed_result();
        assert_eq!(
            e.unwrap_err(),
            "ParseIntError: invalid digit found in string"
        );
        let e: Result<(), &str> = Err("oops");
        assert_eq!(e.into_typed_result().unwrap_err(), "Error: oops");
        let e: Result<(), Box<dyn std::error::Error>> = Err("oops".into());
        assert_eq!(e.into_typed_result().unwrap_err(), "Error: oops");
    }

    #[test]
    fn the_sdk_error_names_the_error_it_was_converted_from() {
        use super::HandlerResult;
        use crate::Error;
        let parsed = "x".parse::<i64>().map(|_| ()).map_err(Error::from);
        assert_eq!(
            parsed.into_typed_result().unwrap_err(),
            "ParseIntError: invalid digit found in string"
        );
        let text: Result<(), Error> = Err(Error::msg("negative"));
        assert_eq!(text.into_typed_result().unwrap_err(), "Error: negative");
    }

    #[test]
    fn base64_matches_the_standard_alphabet_with_padding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xff, 0xfe, 0xfd, 0x00]), "//79AA==");
    }
}
