//! The rules the spec puts on values, as functions returning typed errors.
//!
//! Hosts use them to refuse bad registrations and requests; SDKs use them to
//! fail early, in the author's process, with the same words.

use crate::limits::MAX_CALL_KEY_BYTES;
use crate::raw::RawJson;
use crate::values::Exposure;

/// A value that breaks a protocol rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// `exposure` is not one of the four values (§7.1).
    #[error("unknown exposure {value:?} (expected one of direct, codemode, deferred, model-only)")]
    UnknownExposure {
        /// The offending value.
        value: String,
    },
    /// A tool name that providers would reject.
    #[error("invalid tool name {name:?}: {reason}")]
    ToolName {
        /// The offending name.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A slash-command name that cannot be typed.
    #[error("invalid command name {name:?}: {reason}")]
    CommandName {
        /// The offending name.
        name: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A durable `call_tool` key (§9.5).
    #[error("invalid call key {key:?}: {reason}")]
    CallKey {
        /// The offending key.
        key: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A field that must hold a JSON object holds something else.
    #[error("`{field}` must be a JSON object")]
    NotAnObject {
        /// The field.
        field: &'static str,
    },
    /// A `tool_prompt` response without prompt or tool name (§10.3).
    #[error("tool_prompt requires a name and prompt")]
    ToolPromptIncomplete,
    /// A required text field is empty.
    #[error("`{field}` must not be empty")]
    Empty {
        /// The field.
        field: &'static str,
    },
}

/// Checks an `exposure` value: only the four documented ones are accepted.
pub fn validate_exposure(exposure: &Exposure) -> Result<(), ValueError> {
    match exposure {
        Exposure::Other(v) => Err(ValueError::UnknownExposure { value: v.clone() }),
        _ => Ok(()),
    }
}

/// Checks a tool name: 1 to 64 characters of `A-Z a-z 0-9 _ -`.
///
/// The spec only asks for an exact-match name; this is the pattern the model
/// providers (Anthropic, OpenAI) accept for tool definitions, so a name that
/// fails here would fail at the first model request instead.
pub fn validate_tool_name(name: &str) -> Result<(), ValueError> {
    let err = |reason| ValueError::ToolName {
        name: name.to_owned(),
        reason,
    };
    if name.is_empty() {
        return Err(err("it is empty"));
    }
    if name.len() > 64 {
        return Err(err("it is longer than 64 characters"));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(err("only letters, digits, `_` and `-` are allowed"));
    }
    Ok(())
}

/// Checks a slash-command name: non-empty, no leading `/`, no whitespace or
/// control characters (the user types it after `/`).
pub fn validate_command_name(name: &str) -> Result<(), ValueError> {
    let err = |reason| ValueError::CommandName {
        name: name.to_owned(),
        reason,
    };
    if name.is_empty() {
        return Err(err("it is empty"));
    }
    if name.starts_with('/') {
        return Err(err("register it without the leading `/`"));
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(err("it contains whitespace or control characters"));
    }
    Ok(())
}

/// The identity of a command name: commands match case-insensitively (§6.1),
/// so two names conflict exactly when their keys are equal.
pub fn command_key(name: &str) -> String {
    name.to_lowercase()
}

/// Checks a durable `call_tool` key: 1 to 128 bytes, no `/`, no NUL.
pub fn validate_call_key(key: &str) -> Result<(), ValueError> {
    let err = |reason| ValueError::CallKey {
        key: key.to_owned(),
        reason,
    };
    if key.is_empty() {
        return Err(err("it is empty"));
    }
    if key.len() > MAX_CALL_KEY_BYTES {
        return Err(err("it is longer than 128 bytes"));
    }
    if key.contains('/') {
        return Err(err("it contains `/`"));
    }
    if key.contains('\0') {
        return Err(err("it contains NUL"));
    }
    Ok(())
}

/// Checks that a field holds a JSON object (`args`, `tool_args`,
/// `modified_args`, WIRE-16).
pub fn validate_object(field: &'static str, value: &RawJson) -> Result<(), ValueError> {
    if value.is_object() {
        Ok(())
    } else {
        Err(ValueError::NotAnObject { field })
    }
}

/// Checks the fields of a `tool_prompt` command response (§10.3).
pub fn validate_tool_prompt(
    prompt: &str,
    tool_name: &str,
    tool_args: Option<&RawJson>,
) -> Result<(), ValueError> {
    if prompt.trim().is_empty() || tool_name.is_empty() {
        return Err(ValueError::ToolPromptIncomplete);
    }
    match tool_args {
        Some(args) => validate_object("tool_args", args),
        None => Err(ValueError::NotAnObject { field: "tool_args" }),
    }
}
