//! Tool arguments, checked once, here, for every SDK alike: before a tool
//! job is made, the arguments are checked against the tool's registered
//! JSON Schema (the `jsonschema` crate), so the Rust, Node and Python
//! extensions accept and refuse exactly the same arguments with the same
//! message (`invalid arguments: …`, naming the field).
//!
//! The rules on top of JSON Schema, each decided once:
//!
//! - Arguments are a JSON object, or the call is an error result.
//! - A whole number written as a float (`1.0`, `1e2`, `-0.0`) is an integer,
//!   as JSON Schema says; the handler gets it as an integer (`1`, `100`,
//!   `0`) in every language, so Rust's typed arguments take it as Node and
//!   Python already did.
//! - A value the schema types `integer` must lie within ±(2^53 − 1)
//!   ([`MAX_EXACT_INTEGER`]): every SDK hands it over exactly. Beyond that
//!   a JavaScript number is rounded (`9007199254740993` arrives as
//!   `…992`), and handing Node handlers a `bigint` for some values only
//!   would break `a + b` with a `TypeError` whenever one operand is small.
//!   One range for all three, the one RFC 7493 (I-JSON) recommends, rather
//!   than a range per language: the same call must get the same answer
//!   whatever language the extension is written in.
//! - A string with a lone UTF-16 surrogate (`"\ud800"`) cannot be handed
//!   to a Rust `String` or sent back in valid UTF-8; the call is refused
//!   with an error naming the field (never a dropped reply, never a silent
//!   U+FFFD).

use std::sync::{Arc, OnceLock};

use jsonschema::{Keyword, ValidationError, Validator};
use serde_json::{Map, Number, Value};
use zot_protocol::RawJson;

/// The largest integer magnitude every SDK represents exactly: 2^53 − 1
/// (JavaScript's `Number.MAX_SAFE_INTEGER`).
pub const MAX_EXACT_INTEGER: i64 = (1 << 53) - 1;

/// The keyword added next to every `"type": "integer"` of a tool schema
/// (a name no schema author uses).
const EXACT_INTEGER: &str = "x-zot-exact-integer";

/// The check of one tool's arguments. A schema the author gave is built
/// (and so checked against the JSON Schema meta-schema) when the tool is
/// registered; one an SDK derived from types is valid by construction and
/// is built on the first call, so that start-up neither runs the
/// meta-schema check nor pages in the validator's code (≈ 1.5 MiB).
pub(crate) struct ArgsCheck {
    schema: RawJson,
    validator: OnceLock<Result<Validator, String>>,
}

impl std::fmt::Debug for ArgsCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ArgsCheck")
    }
}

impl ArgsCheck {
    /// Builds the check of a schema the author gave; the error says what
    /// is wrong with it.
    pub(crate) fn compile(schema: &RawJson) -> Result<Arc<Self>, String> {
        let check = Self::deferred(schema);
        check.validator()?;
        Ok(check)
    }

    /// The check of a schema an SDK derived, built on the first call.
    pub(crate) fn deferred(schema: &RawJson) -> Arc<Self> {
        Arc::new(Self {
            schema: schema.clone(),
            validator: OnceLock::new(),
        })
    }

    fn validator(&self) -> Result<&Validator, String> {
        self.validator
            .get_or_init(|| build(&self.schema))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Checks `args`; returns them as the handler gets them (rewritten only
    /// when a whole number was written as a float), or the error message.
    pub(crate) fn check(&self, args: &RawJson) -> Result<Option<RawJson>, String> {
        let validator = self
            .validator()
            .map_err(|e| format!("the tool's schema cannot check arguments: {e}"))?;
        let mut value = parse(args)?;
        if !value.is_object() {
            return Err(format!(
                "invalid arguments: expected a JSON object, got {}",
                kind(&value)
            ));
        }
        // Every problem, not only the first: the model fixes them in one go
        // (listed only when there is one: `is_valid` does less per call).
        if !validator.is_valid(&value) {
            let problems: Vec<String> = validator
                .iter_errors(&value)
                .take(MAX_PROBLEMS)
                .map(|e| problem(&e))
                .collect();
            return Err(format!("invalid arguments: {}", problems.join("; ")));
        }
        if !whole_floats_to_integers(&mut value) {
            return Ok(None);
        }
        let text = serde_json::to_string(&value).map_err(|e| e.to_string())?;
        RawJson::from_string(text)
            .map(Some)
            .map_err(|e| e.to_string())
    }
}

/// Builds the validator of a tool's schema.
fn build(schema: &RawJson) -> Result<Validator, String> {
    let mut schema: Value = serde_json::from_str(schema.get()).map_err(|e| e.to_string())?;
    mark_integers(&mut schema);
    jsonschema::options()
        .with_keyword(EXACT_INTEGER, |_, _, _| Ok(Box::new(ExactInteger)))
        .build(&schema)
        .map_err(|e| e.to_string())
}

/// Parses the arguments, naming where a string could not be read (the
/// path is tracked only on a second reading, after a failed one).
fn parse(args: &RawJson) -> Result<Value, String> {
    if let Ok(value) = serde_json::from_str(args.get()) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_str(args.get());
    serde_path_to_error::deserialize::<_, Value>(&mut de).map_err(|e| {
        let inner = e.inner().to_string();
        let inner = inner.split(" at line ").next().unwrap_or_default();
        // The line was read as JSON already: an escape that cannot be decoded
        // now is a lone surrogate (leading or trailing).
        let what = if inner.contains("surrogate") || inner.contains("escape") {
            zot_protocol::LONE_SURROGATE.to_owned()
        } else {
            inner.to_owned()
        };
        match e.path().to_string().as_str() {
            "" | "." => format!("invalid arguments: {what}"),
            path => format!("invalid arguments: field `{path}`: {what}"),
        }
    })
}

/// `null`, `an array`…: what a value is, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// At most this many problems are listed in one message.
const MAX_PROBLEMS: usize = 8;

/// `field `a.b[0]`: …` (the Rust SDK's path style), or `missing field `x``.
fn problem(e: &ValidationError<'_>) -> String {
    if let jsonschema::error::ValidationErrorKind::Required { property } = e.kind() {
        let name = property
            .as_str()
            .map_or_else(|| property.to_string(), str::to_owned);
        let at = field_path(e);
        return if at.is_empty() {
            format!("missing field `{name}`")
        } else {
            format!("missing field `{at}.{name}`")
        };
    }
    match field_path(e) {
        path if path.is_empty() => e.to_string(),
        path => format!("field `{path}`: {e}"),
    }
}

/// The instance path of an error as `a.b[0]`.
fn field_path(e: &ValidationError<'_>) -> String {
    let mut path = String::new();
    for seg in e.instance_path().as_str().split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            path.push_str(&format!("[{seg}]"));
        } else {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&seg);
        }
    }
    path
}

/// Adds [`EXACT_INTEGER`] beside every `"type": "integer"` (alone or in a
/// list) of a schema. Values that are data, not schemas (`enum`, `const`,
/// `default`, `examples`), are left alone.
fn mark_integers(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let integer = match map.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
                _ => false,
            };
            for (key, sub) in map.iter_mut() {
                if !matches!(key.as_str(), "enum" | "const" | "default" | "examples") {
                    mark_integers(sub);
                }
            }
            if integer {
                map.insert(EXACT_INTEGER.to_owned(), Value::Bool(true));
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mark_integers),
        _ => {}
    }
}

/// Refuses an integer beyond ±[`MAX_EXACT_INTEGER`].
struct ExactInteger;

impl ExactInteger {
    fn in_range(v: &Value) -> bool {
        let Value::Number(n) = v else { return true };
        if let Some(i) = n.as_i64() {
            return i.unsigned_abs() <= MAX_EXACT_INTEGER as u64;
        }
        if n.is_u64() {
            return false; // beyond i64::MAX, so beyond the range
        }
        // A float: a fractional one fails `type` already; a whole one must
        // lie in the range.
        n.as_f64()
            .is_none_or(|f| f.fract() != 0.0 || f.abs() <= MAX_EXACT_INTEGER as f64)
    }
}

impl<'i> Keyword<'i> for ExactInteger {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if Self::in_range(instance) {
            return Ok(());
        }
        Err(ValidationError::custom(format!(
            "{instance} is outside the integers every SDK represents exactly (-{MAX_EXACT_INTEGER} to {MAX_EXACT_INTEGER})"
        )))
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        Self::in_range(instance)
    }
}

/// Rewrites whole floats within the exact range as integers (`1.0` → `1`,
/// `-0.0` → `0`); says whether anything changed.
fn whole_floats_to_integers(v: &mut Value) -> bool {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() <= MAX_EXACT_INTEGER as f64 {
                *n = Number::from(f as i64);
                return true;
            }
            false
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |acc, i| whole_floats_to_integers(i) | acc),
        Value::Object(map) => object_floats(map),
        _ => false,
    }
}

fn object_floats(map: &mut Map<String, Value>) -> bool {
    map.values_mut()
        .fold(false, |acc, v| whole_floats_to_integers(v) | acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(schema: &str, args: &str) -> Result<String, String> {
        let c = ArgsCheck::compile(&RawJson::from_string(schema.into()).unwrap()).unwrap();
        let args = RawJson::from_string(args.into()).map_err(|e| format!("raw: {e}"))?;
        c.check(&args)
            .map(|n| n.map_or_else(|| args.get().to_owned(), |n| n.get().to_owned()))
    }

    const ADD: &str =
        r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}"#;

    #[test]
    fn whole_floats_are_integers_and_reach_the_handler_as_such() {
        assert_eq!(
            check(ADD, r#"{"a":1.0,"b":1e2}"#).unwrap(),
            r#"{"a":1,"b":100}"#
        );
        assert_eq!(check(ADD, r#"{"a":-0.0}"#).unwrap(), r#"{"a":0}"#);
        // Untouched when nothing needs rewriting (bytes as sent).
        assert_eq!(check(ADD, r#"{ "a": 1 }"#).unwrap(), r#"{ "a": 1 }"#);
        assert!(check(ADD, r#"{"a":1.5}"#)
            .unwrap_err()
            .starts_with("invalid arguments: field `a`: 1.5 is not of type \"integer\""));
    }

    #[test]
    fn integers_beyond_the_exact_range_are_refused() {
        assert!(check(ADD, r#"{"a":9007199254740991}"#).is_ok());
        assert!(check(ADD, r#"{"a":-9007199254740991}"#).is_ok());
        for big in [
            "9007199254740992",
            "-9007199254740992",
            "9223372036854775808",
            "18446744073709551616",
            "1e300",
        ] {
            let e = check(ADD, &format!(r#"{{"b":{big}}}"#)).unwrap_err();
            assert!(
                e.starts_with("invalid arguments: field `b`: ")
                    && e.contains("outside the integers every SDK represents exactly"),
                "{big}: {e}"
            );
        }
        // A `number` is not an integer: large values are fine.
        let num = r#"{"type":"object","properties":{"x":{"type":"number"}}}"#;
        assert!(check(num, r#"{"x":1e300}"#).is_ok());
    }

    #[test]
    fn arguments_must_be_an_object() {
        for (args, got) in [
            ("null", "null"),
            ("[1]", "an array"),
            (r#""s""#, "a string"),
            ("5", "a number"),
        ] {
            assert_eq!(
                check(r#"{"type":"object"}"#, args).unwrap_err(),
                format!("invalid arguments: expected a JSON object, got {got}")
            );
        }
    }

    #[test]
    fn a_lone_surrogate_is_refused_naming_the_field() {
        let schema = r#"{"type":"object","properties":{"text":{"type":"string"}}}"#;
        for bad in [
            r#""a\ud800b""#,
            r#""\ud800""#,
            r#""\udc00x""#,
            r#"["\ud800"]"#,
        ] {
            let e = check(schema, &format!(r#"{{"text":{bad}}}"#)).unwrap_err();
            assert!(
                e.starts_with("invalid arguments: field `text")
                    && e.contains(": a string holds a lone UTF-16 surrogate"),
                "{bad}: {e}"
            );
        }
        // A valid pair is text.
        assert!(check(schema, r#"{"text":"\ud83d\ude00"}"#).is_ok());
    }

    #[test]
    fn errors_name_the_field() {
        let echo =
            r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#;
        assert_eq!(
            check(echo, "{}").unwrap_err(),
            "invalid arguments: missing field `text`"
        );
        assert_eq!(
            check(echo, r#"{"text":5}"#).unwrap_err(),
            r#"invalid arguments: field `text`: 5 is not of type "string""#
        );
        let nested =
            r#"{"type":"object","properties":{"xs":{"type":"array","items":{"type":"integer"}}}}"#;
        assert!(check(nested, r#"{"xs":[1,"x"]}"#)
            .unwrap_err()
            .starts_with("invalid arguments: field `xs[1]`: "));
        // Every problem is listed.
        assert_eq!(
            check(ADD, r#"{"a":"1","b":true}"#).unwrap_err(),
            r#"invalid arguments: field `a`: "1" is not of type "integer"; field `b`: true is not of type "integer""#
        );
    }

    #[test]
    fn data_that_looks_like_a_schema_is_not_marked() {
        let schema = r#"{"type":"object","properties":{"k":{"const":{"type":"integer"}}}}"#;
        assert!(check(schema, r#"{"k":{"type":"integer"}}"#).is_ok());
    }

    #[test]
    fn an_invalid_schema_does_not_compile() {
        let e = ArgsCheck::compile(&RawJson::from_string(r#"{"type":"nope"}"#.into()).unwrap())
            .unwrap_err();
        assert!(!e.is_empty());
    }
}
