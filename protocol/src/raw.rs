//! [`RawJson`]: a JSON value kept as its wire text.
//!
//! Tool arguments, schemas and structured results pass through the engine
//! and the host untouched most of the time, so they are never parsed into a
//! `serde_json::Value` tree on the way: the text is validated once and carried
//! as is, and only the code that finally needs the data decodes it (straight
//! into its own typed struct).

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// A JSON value carried as its (validated) wire text.
///
/// Equality compares the text, so `{"a":1}` and `{ "a": 1 }` differ: this type
/// is about preserving bytes, not about JSON semantics.
///
/// One exception: the text never holds a line feed. Frames are lines, and
/// the text is written into them as is, so a pretty-printed value would
/// split its frame in two. In valid JSON a raw LF can only be whitespace
/// (inside a string it is escaped), so each one is kept as a space: the
/// value is the same.
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// Wraps text that must be one valid JSON value.
    pub fn from_string(json: String) -> Result<Self, serde_json::Error> {
        RawValue::from_string(json).map(Self::one_line)
    }

    /// Serializes any value to its compact JSON text.
    pub fn from_value<T: Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(Self::one_line)
    }

    /// Wraps validated text, its line feeds (whitespace) made spaces.
    fn one_line(raw: Box<RawValue>) -> Self {
        if memchr::memchr(b'\n', raw.get().as_bytes()).is_none() {
            return Self(raw);
        }
        // Replacing whitespace keeps the JSON valid; were it refused, the
        // original is still a valid value.
        match RawValue::from_string(raw.get().replace('\n', " ")) {
            Ok(one) => Self(one),
            Err(_) => Self(raw),
        }
    }

    /// `{}`.
    pub fn empty_object() -> Self {
        Self::from_string("{}".to_owned()).expect("`{}` is valid JSON")
    }

    /// `{"type":"object"}`: the schema of a tool that takes any object.
    pub fn object_schema() -> Self {
        Self::from_string(r#"{"type":"object"}"#.to_owned()).expect("valid JSON")
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Whether the value is a JSON object (checked on the text, no parse).
    pub fn is_object(&self) -> bool {
        self.get().trim_start().starts_with('{')
    }

    /// Whether the value is JSON `null`.
    pub fn is_null(&self) -> bool {
        self.get().trim() == "null"
    }

    /// Decodes the value into `T`.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// Decodes the value into a `serde_json::Value` tree, for display and
    /// observation. The text is checked as JSON's grammar checks it, and a
    /// `Value` holds less: a lone UTF-16 surrogate escape (`"\ud800"`) or a
    /// number beyond `f64` (`1e400`) is valid JSON a peer may send, and
    /// comes back as the value's text, a JSON string, rather than failing.
    /// Code that needs the data itself decodes it with [`Self::parse`] and
    /// handles the error.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::from_str(self.get())
            .unwrap_or_else(|_| serde_json::Value::String(self.get().to_owned()))
    }

    /// The size of the text in bytes.
    pub fn len(&self) -> usize {
        self.get().len()
    }

    /// Whether the text is empty (never true for a valid value).
    pub fn is_empty(&self) -> bool {
        self.get().is_empty()
    }
}

impl std::fmt::Debug for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get())
    }
}

impl std::fmt::Display for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RawJson {}

impl From<&serde_json::Value> for RawJson {
    fn from(v: &serde_json::Value) -> Self {
        Self::from_value(v).expect("a Value always serializes")
    }
}

impl From<serde_json::Value> for RawJson {
    fn from(v: serde_json::Value) -> Self {
        Self::from(&v)
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(d).map(Self::one_line)
    }
}

impl JsonSchema for RawJson {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("AnyValue")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::from(true)
    }

    fn inline_schema() -> bool {
        true
    }
}

/// Deserializes a `register_tool.schema` where `null` means "any object"
/// (OP-35: the Go SDK emits `null` when unset and hosts accept it).
pub(crate) fn schema_or_object<'de, D: Deserializer<'de>>(d: D) -> Result<RawJson, D::Error> {
    let raw = RawJson::deserialize(d)?;
    Ok(if raw.is_null() {
        RawJson::object_schema()
    } else {
        raw
    })
}

/// Deserializes a field where `null` must stay distinguishable from absence
/// (`event_intercept_response.system_prompt`: absent keeps the prompt, `null`
/// is a failure). Absent → `None` (via `#[serde(default)]`), `null` →
/// `Some(None)`, a string → `Some(Some(s))`.
pub(crate) fn present_or_null<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}
