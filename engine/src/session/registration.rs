//! The rules a registration must meet, in one place for every SDK.
//!
//! Each SDK calls these (through its binding) at the call that registers —
//! `.tool(...)`, `@ext.tool`, `ext.on(...)` — so that a mistake fails there,
//! with the same text in Rust, TypeScript and Python, instead of as a log
//! line once the session runs. [`crate::Engine`]'s own `register_*` methods
//! apply the same checks.

use std::sync::Arc;

use zot_protocol::validate::{
    command_key, validate_command_name, validate_exposure, validate_tool_name, ValueError,
};
use zot_protocol::values::{INTERCEPTABLE_EVENT_NAMES, LIFECYCLE_EVENT_NAMES};
use zot_protocol::{RegisterCommand, RegisterTool};

use crate::requests::args::ArgsCheck;
use crate::Engine;

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RegisterError {
    /// The name breaks a protocol rule.
    #[error(transparent)]
    Invalid(#[from] ValueError),
    /// The tool's schema is not a JSON object.
    #[error("the schema of tool {0:?} must be a JSON object")]
    SchemaNotObject(String),
    /// The tool's schema is not a valid JSON Schema (the engine checks every
    /// call's arguments against it).
    #[error("the schema of tool {name:?} is not a valid JSON Schema: {message}")]
    InvalidSchema {
        /// The tool.
        name: String,
        /// What is wrong with the schema.
        message: String,
    },
    /// Not one of the four interceptable events.
    #[error("{0:?} cannot be intercepted (only before_agent_start, tool_call, turn_start, assistant_message)")]
    NotInterceptable(String),
    /// An event name must not be empty.
    #[error("event names must not be empty")]
    EmptyEvent,
    /// Not one of the lifecycle events.
    #[error("unknown event {0:?} (events: {events})", events = zot_protocol::values::LIFECYCLE_EVENT_NAMES.join(", "))]
    UnknownEvent(String),
    /// The tool's output schema is not a JSON object.
    #[error("the output schema of tool {0:?} must be a JSON object")]
    OutputSchemaNotObject(String),
    /// A tool of this name is already registered (hosts keep the first
    /// registration of a name, §6.2, so a second one could never run).
    #[error("duplicate tool name {0:?}: a tool of this name is already registered")]
    DuplicateTool(String),
    /// A command whose name differs only by case is already registered
    /// (hosts keep the first, §6.1).
    #[error("duplicate command name {name:?}: command {registered:?} is already registered (command names ignore case)")]
    DuplicateCommand {
        /// The name given.
        name: String,
        /// The name registered before.
        registered: String,
    },
    /// The registration frame could not be written.
    #[error("registration not sent: {0}")]
    Write(String),
}

/// Checks a slash command's name (docs/protocol.md §6.1).
pub fn check_command(name: &str) -> Result<(), RegisterError> {
    Ok(validate_command_name(name)?)
}

/// Where a tool's argument schema came from, which decides when the engine
/// builds its argument check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaOrigin {
    /// Written by the author as JSON: checked against the JSON Schema
    /// meta-schema when the tool is registered, so a mistake fails there.
    #[default]
    Given,
    /// Derived by an SDK from the handler's types (schemars, a Python
    /// signature or `TypedDict`, a zod schema): valid by construction, so
    /// the check is built on the tool's first call and start-up skips the
    /// meta-schema.
    Derived,
}

/// Checks a tool registration: its name, exposure and schemas. The input
/// schema must be a JSON Schema object; a [`SchemaOrigin::Given`] one must
/// also be one the engine can check arguments with.
pub fn check_tool(tool: &RegisterTool, origin: SchemaOrigin) -> Result<(), RegisterError> {
    compile_tool(tool, origin).map(drop)
}

/// [`check_tool`], keeping the argument check.
pub(crate) fn compile_tool(
    tool: &RegisterTool,
    origin: SchemaOrigin,
) -> Result<Arc<ArgsCheck>, RegisterError> {
    validate_tool_name(&tool.name)?;
    if let Some(e) = &tool.exposure {
        validate_exposure(e)?;
    }
    if !tool.schema.is_object() {
        return Err(RegisterError::SchemaNotObject(tool.name.clone()));
    }
    if tool.output_schema.as_ref().is_some_and(|s| !s.is_object()) {
        return Err(RegisterError::OutputSchemaNotObject(tool.name.clone()));
    }
    match origin {
        SchemaOrigin::Derived => Ok(ArgsCheck::deferred(&tool.schema)),
        SchemaOrigin::Given => {
            ArgsCheck::compile(&tool.schema).map_err(|message| RegisterError::InvalidSchema {
                name: tool.name.clone(),
                message,
            })
        }
    }
}

/// Checks that no command in `registered` has `name` (compared
/// case-insensitively, as hosts do, §6.1). Hosts keep the first
/// registration of a name, so a second one is a mistake, not a replacement.
pub fn check_new_command<'a>(
    name: &str,
    registered: impl IntoIterator<Item = &'a str>,
) -> Result<(), RegisterError> {
    let key = command_key(name);
    match registered.into_iter().find(|r| command_key(r) == key) {
        Some(r) => Err(RegisterError::DuplicateCommand {
            name: name.to_owned(),
            registered: r.to_owned(),
        }),
        None => Ok(()),
    }
}

/// Checks that no tool in `registered` has `name` (§6.2: exact match).
pub fn check_new_tool<'a>(
    name: &str,
    registered: impl IntoIterator<Item = &'a str>,
) -> Result<(), RegisterError> {
    if registered.into_iter().any(|r| r == name) {
        Err(RegisterError::DuplicateTool(name.to_owned()))
    } else {
        Ok(())
    }
}

/// Checks that `event` is one of the lifecycle events (§12.1). A misspelt
/// name would otherwise subscribe to an event that never comes.
pub fn check_event(event: &str) -> Result<(), RegisterError> {
    if event.is_empty() {
        return Err(RegisterError::EmptyEvent);
    }
    if LIFECYCLE_EVENT_NAMES.contains(&event) {
        Ok(())
    } else {
        Err(RegisterError::UnknownEvent(event.to_owned()))
    }
}

/// Checks that `event` is one of the four interceptable events (§11).
pub fn check_intercept(event: &str) -> Result<(), RegisterError> {
    if INTERCEPTABLE_EVENT_NAMES.contains(&event) {
        Ok(())
    } else {
        Err(RegisterError::NotInterceptable(event.to_owned()))
    }
}

/// Everything an extension registered before its session ran, handed to
/// the engine at once with [`Engine::register_all`].
#[derive(Debug, Clone, Default)]
pub struct Registrations {
    /// Slash commands.
    pub commands: Vec<RegisterCommand>,
    /// Tools, each with where its argument schema came from.
    pub tools: Vec<(RegisterTool, SchemaOrigin)>,
    /// Lifecycle events subscribed to.
    pub events: Vec<String>,
    /// Interceptable events intercepted.
    pub intercepts: Vec<String>,
}

impl Engine {
    /// Registers everything in `regs`, in order. A registration the engine
    /// refuses does not stop the others: it is logged as
    /// `<kind> "<name>" not registered: <why>` (the line `zot-host ext
    /// doctor` reports as a problem). Returns how many were refused.
    pub fn register_all(&self, regs: Registrations) -> usize {
        let mut refused = 0;
        let mut refuse = |kind: &str, name: &str, e: RegisterError| {
            refused += 1;
            self.log(&format!("{kind} {name:?} not registered: {e}"));
        };
        for c in regs.commands {
            let name = c.name.clone();
            if let Err(e) = self.register_command(c) {
                refuse("command", &name, e);
            }
        }
        for (t, origin) in regs.tools {
            let name = t.name.clone();
            if let Err(e) = self.register_tool(t, origin) {
                refuse("tool", &name, e);
            }
        }
        for e in &regs.events {
            if let Err(err) = self.subscribe(e) {
                refuse("event", e, err);
            }
        }
        for i in &regs.intercepts {
            if let Err(err) = self.intercept(i) {
                refuse("interceptor", i, err);
            }
        }
        refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zot_protocol::RawJson;

    #[test]
    fn a_misspelt_event_is_refused_with_the_valid_names() {
        let e = check_event("tool_reslt").unwrap_err().to_string();
        assert!(
            e.starts_with(r#"unknown event "tool_reslt" (events: session_start, "#),
            "{e}"
        );
        assert!(e.contains("tool_result"), "{e}");
        check_event("tool_result").unwrap();
    }

    #[test]
    fn a_tool_name_with_a_space_is_refused() {
        let tool = RegisterTool::new("my tool", "", RawJson::object_schema());
        let e = check_tool(&tool, SchemaOrigin::Derived)
            .unwrap_err()
            .to_string();
        assert!(e.contains("my tool"), "{e}");
    }

    #[test]
    fn a_name_registered_twice_is_refused_naming_both() {
        let e = check_new_command("Deploy", ["ship", "deploy"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"duplicate command name "Deploy": command "deploy" is already registered (command names ignore case)"#
        );
        check_new_command("deploy-all", ["deploy"]).unwrap();
        let e = check_new_tool("t", ["t"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"duplicate tool name "t": a tool of this name is already registered"#
        );
        check_new_tool("T", ["t"]).unwrap();
    }

    #[test]
    fn only_the_four_events_can_be_intercepted() {
        let e = check_intercept("session_start").unwrap_err().to_string();
        assert!(
            e.contains("before_agent_start, tool_call, turn_start, assistant_message"),
            "{e}"
        );
        check_intercept("turn_start").unwrap();
    }
}
