//! [`ToolSpec`]: everything `register_tool` carries besides the handler.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::Serialize;
use zot_protocol::{Exposure, RawJson, RegisterTool};

use crate::engine::SchemaOrigin;

/// A tool's registration: name, description, argument and output schemas,
/// namespace fields, exposure, and the `deferred` / `interactive` flags
/// (§4.3.3). Optional fields are sent only when set (SDK-12).
///
/// ```
/// use zot_ext::ToolSpec;
/// use zot_protocol::Exposure;
///
/// let spec = ToolSpec::new("add", "Add two integers")
///     .output_schema(&serde_json::json!({"type": "object", "properties": {"sum": {"type": "integer"}}}))
///     .namespace("math")
///     .namespace_description("Arithmetic")
///     .namespace_instructions("Integers only")
///     .exposure(Exposure::Codemode);
/// assert_eq!(spec.name(), "add");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub(crate) reg: RegisterTool,
    /// Whether the argument schema was given explicitly (otherwise a typed
    /// handler derives it).
    pub(crate) explicit_schema: bool,
    /// Whether the argument schema was written as JSON ([`Self::schema`])
    /// rather than derived from a type: only such a schema is checked
    /// against the JSON Schema meta-schema at registration.
    pub(crate) given_schema: bool,
    /// A serialization error to report at registration.
    pub(crate) error: Option<String>,
}

impl ToolSpec {
    /// A tool taking any object (`{"type":"object"}`) until a schema is set.
    ///
    /// ```
    /// let spec = zot_ext::ToolSpec::new("echo", "Echo the text");
    /// assert_eq!(spec.registration().schema.get(), r#"{"type":"object"}"#);
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            reg: RegisterTool::new(name, description, RawJson::object_schema()),
            explicit_schema: false,
            given_schema: false,
            error: None,
        }
    }

    fn raw<T: Serialize + ?Sized>(&mut self, what: &str, value: &T) -> Option<RawJson> {
        match RawJson::from_value(value) {
            Ok(r) => Some(r),
            Err(e) => {
                self.error = Some(format!("{what} of tool {:?}: {e}", self.reg.name));
                None
            }
        }
    }

    /// Sets the argument schema explicitly (a JSON Schema object). With a
    /// typed handler the arguments are still decoded into its type.
    ///
    /// ```
    /// let spec = zot_ext::ToolSpec::new("echo", "")
    ///     .schema(&serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}));
    /// assert!(spec.registration().schema.get().contains("required"));
    /// ```
    pub fn schema<T: Serialize + ?Sized>(mut self, schema: &T) -> Self {
        if let Some(r) = self.raw("schema", schema) {
            self.reg.schema = r;
            self.explicit_schema = true;
            self.given_schema = true;
        }
        self
    }

    /// Sets the argument schema from a type.
    ///
    /// ```
    /// #[derive(schemars::JsonSchema)]
    /// struct Args { city: String }
    ///
    /// let spec = zot_ext::ToolSpec::new("weather", "").schema_for::<Args>();
    /// assert!(spec.registration().schema.get().contains("city"));
    /// ```
    pub fn schema_for<T: JsonSchema>(mut self) -> Self {
        self.reg.schema = schema_of::<T>();
        self.explicit_schema = true;
        self.given_schema = false;
        self
    }

    /// Declares the JSON type of `structured_content` (§7.3).
    ///
    /// ```
    /// let spec = zot_ext::ToolSpec::new("add", "").output_schema(&serde_json::json!({"type": "object"}));
    /// assert!(spec.registration().output_schema.is_some());
    /// ```
    pub fn output_schema<T: Serialize + ?Sized>(mut self, schema: &T) -> Self {
        self.reg.output_schema = self.raw("output_schema", schema);
        self
    }

    /// Declares the output schema from a type.
    ///
    /// ```
    /// #[derive(schemars::JsonSchema)]
    /// struct Sum { sum: i64 }
    ///
    /// let spec = zot_ext::ToolSpec::new("add", "").output_schema_for::<Sum>();
    /// assert!(spec.registration().output_schema.as_ref().unwrap().get().contains("sum"));
    /// ```
    pub fn output_schema_for<T: JsonSchema>(mut self) -> Self {
        self.reg.output_schema = Some(schema_of::<T>());
        self
    }

    /// Discovery grouping (defaults to the extension name on the host).
    ///
    /// ```
    /// let spec = zot_ext::ToolSpec::new("add", "").namespace("math");
    /// assert_eq!(spec.registration().namespace, "math");
    /// ```
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.reg.namespace = namespace.into();
        self
    }

    /// Namespace description for discovery.
    ///
    /// ```
    /// let spec = zot_ext::ToolSpec::new("add", "").namespace_description("Arithmetic");
    /// assert_eq!(spec.registration().namespace_description, "Arithmetic");
    /// ```
    pub fn namespace_description(mut self, text: impl Into<String>) -> Self {
        self.reg.namespace_description = text.into();
        self
    }

    /// Namespace instructions for discovery.
    ///
    /// ```
    /// let spec = zot_ext::ToolSpec::new("add", "").namespace_instructions("Integers only");
    /// assert_eq!(spec.registration().namespace_instructions, "Integers only");
    /// ```
    pub fn namespace_instructions(mut self, text: impl Into<String>) -> Self {
        self.reg.namespace_instructions = text.into();
        self
    }

    /// How the tool is advertised (§7.1).
    ///
    /// ```
    /// use zot_protocol::Exposure;
    /// let spec = zot_ext::ToolSpec::new("add", "").exposure(Exposure::ModelOnly);
    /// assert_eq!(spec.registration().exposure, Some(Exposure::ModelOnly));
    /// ```
    pub fn exposure(mut self, exposure: Exposure) -> Self {
        self.reg.exposure = Some(exposure);
        self
    }

    /// Registers the tool hidden until a result activates it (legacy
    /// `deferred` flag, §7.2).
    ///
    /// ```
    /// let spec = zot_ext::ToolSpec::new("lazy", "").deferred();
    /// assert!(spec.registration().deferred);
    /// ```
    pub fn deferred(mut self) -> Self {
        self.reg.deferred = true;
        self
    }

    /// Marks the tool as waiting for user input (§7.4): no host deadline in
    /// the interactive TUI; the handler must end on cancellation.
    ///
    /// ```
    /// let spec = zot_ext::ToolSpec::new("ask", "").interactive();
    /// assert!(spec.registration().interactive);
    /// ```
    pub fn interactive(mut self) -> Self {
        self.reg.interactive = true;
        self
    }

    /// The tool name.
    pub fn name(&self) -> &str {
        &self.reg.name
    }

    /// Where the argument schema came from: [`SchemaOrigin::Given`] when
    /// set with [`Self::schema`], else derived from a type (or the
    /// default `{"type":"object"}`).
    pub(crate) fn schema_origin(&self) -> SchemaOrigin {
        if self.given_schema {
            SchemaOrigin::Given
        } else {
            SchemaOrigin::Derived
        }
    }

    /// The `register_tool` frame this spec produces.
    pub fn registration(&self) -> &RegisterTool {
        &self.reg
    }
}

/// The JSON Schema of `T` as a tool schema: draft-07 (what the model
/// providers accept), without `$schema` and the top-level `title`, which
/// providers do not need.
pub(crate) fn schema_of<T: JsonSchema>() -> RawJson {
    let mut schema = SchemaSettings::draft07()
        .with(|s| s.meta_schema = None)
        .into_generator()
        .into_root_schema_for::<T>();
    schema.remove("title");
    RawJson::from_value(&schema).expect("schemas always serialize")
}
