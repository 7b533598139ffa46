//! Command and tool registries (§6, HOST-35..43, HOST-72..76).
//!
//! First come, first served *in load order* (OP-3): a registration loses to
//! an earlier one of the same key when that one comes from an extension of
//! lower rank, or from the same extension. Losers, built-in shadowing and
//! skipped tools are recorded as diagnostics and never dispatched.

use std::collections::{BTreeMap, BTreeSet};

use zot_protocol::validate::{
    command_key, validate_command_name, validate_exposure, validate_tool_name,
};
use zot_protocol::values::BUILTIN_TOOL_NAMES;
use zot_protocol::{Exposure, RegisterTool};

/// Built-in slash commands of the reference host; they shadow extension
/// commands (HOST-38). `/clear` is deliberately not one: clearing is a script
/// step, so that an extension may own `/clear`.
pub const BUILTIN_COMMANDS: [&str; 4] = ["help", "reload-ext", "new", "exit"];

/// The note of a registration deactivated because its extension
/// disconnected (not a conflict).
pub const DISCONNECTED_NOTE: &str = "extension disconnected";

/// The built-in tools of the reference host (OP-2: every tool the host
/// registers itself shadows extension tools).
pub const BUILTIN_TOOLS: [&str; 5] = BUILTIN_TOOL_NAMES;

/// An active command registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandReg {
    /// Owning extension.
    pub ext: String,
    /// Load rank of the owner.
    pub rank: usize,
    /// Registered (canonical) spelling.
    pub name: String,
    /// Description.
    pub description: String,
}

/// An active tool registration.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolReg {
    /// Owning extension.
    pub ext: String,
    /// Load rank of the owner.
    pub rank: usize,
    /// The registration as received.
    pub def: RegisterTool,
    /// Effective exposure.
    pub exposure: Exposure,
}

/// One registration attempt, for `ext doctor`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RegRecord {
    /// Extension.
    pub ext: String,
    /// `command` or `tool`.
    pub kind: &'static str,
    /// Name as registered.
    pub name: String,
    /// Whether it is (still) the active registration.
    pub active: bool,
    /// Why not, when inactive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The registries of one extension manager.
#[derive(Debug, Default)]
pub struct Registry {
    commands: BTreeMap<String, CommandReg>,
    tools: BTreeMap<String, ToolReg>,
    records: Vec<RegRecord>,
    activated: BTreeSet<String>,
    /// Names of extension tools in the agent's registry (built at readiness
    /// and on reload, HOST-34, OP-9); `None` before the first build.
    agent_tools: Option<BTreeSet<String>>,
    displaced: Vec<(String, String)>,
}

impl Registry {
    /// Registers a command; returns a diagnostic when it is not active.
    /// A registration displaced by one of lower rank (OP-3) is reported
    /// through [`Registry::take_displaced`].
    pub fn register_command(
        &mut self,
        ext: &str,
        rank: usize,
        name: &str,
        description: &str,
    ) -> Option<String> {
        if let Err(e) = validate_command_name(name) {
            return Some(self.record(ext, "command", name, Some(format!("{e}; skipped"))));
        }
        let key = command_key(name);
        if BUILTIN_COMMANDS.contains(&key.as_str()) {
            return Some(self.record(
                ext,
                "command",
                name,
                Some(format!("command /{name} is shadowed by a built-in command")),
            ));
        }
        let conflict =
            format!("command /{name} conflicts with another extension registering the same name");
        if let Some(cur) = self.commands.get(&key) {
            if cur.rank <= rank {
                return Some(self.record(ext, "command", name, Some(conflict)));
            }
            // A lower-ranked extension took the name first; load order wins.
            let old = cur.clone();
            let note = format!(
                "command /{} conflicts with another extension registering the same name",
                old.name
            );
            self.deactivate(&old.ext, "command", &old.name, note.clone());
            self.displaced.push((old.ext, note));
        }
        self.commands.insert(
            key,
            CommandReg {
                ext: ext.to_owned(),
                rank,
                name: name.to_owned(),
                description: description.to_owned(),
            },
        );
        self.record(ext, "command", name, None);
        None
    }

    /// Registers a tool; returns a diagnostic when it is not active.
    pub fn register_tool(&mut self, ext: &str, rank: usize, def: RegisterTool) -> Option<String> {
        let name = def.name.clone();
        if let Err(e) = validate_tool_name(&name) {
            return Some(self.record(ext, "tool", &name, Some(format!("{e}; skipped"))));
        }
        if let Some(exp) = &def.exposure {
            // The validator's message quotes the value escaped: it is the
            // extension's text, and a diagnostic stays one line.
            if let Err(e) = validate_exposure(exp) {
                return Some(self.record(
                    ext,
                    "tool",
                    &name,
                    Some(format!("tool \"{name}\" has {e}; skipped")),
                ));
            }
        }
        if BUILTIN_TOOLS.contains(&name.as_str()) {
            return Some(self.record(
                ext,
                "tool",
                &name,
                Some(format!("tool {name} is shadowed by a built-in tool")),
            ));
        }
        let conflict =
            format!("tool {name} conflicts with another extension registering the same name");
        if let Some(cur) = self.tools.get(&name) {
            if cur.rank <= rank {
                return Some(self.record(ext, "tool", &name, Some(conflict)));
            }
            let old = cur.ext.clone();
            self.deactivate(&old, "tool", &name, conflict.clone());
            self.displaced.push((old, conflict.clone()));
        }
        let exposure = def.effective_exposure();
        self.tools.insert(
            name.clone(),
            ToolReg {
                ext: ext.to_owned(),
                rank,
                def,
                exposure,
            },
        );
        self.record(ext, "tool", &name, None);
        None
    }

    fn record(
        &mut self,
        ext: &str,
        kind: &'static str,
        name: &str,
        note: Option<String>,
    ) -> String {
        let msg = note.clone().unwrap_or_default();
        self.records.push(RegRecord {
            ext: ext.to_owned(),
            kind,
            name: name.to_owned(),
            active: note.is_none(),
            note,
        });
        msg
    }

    fn deactivate(&mut self, ext: &str, kind: &str, name: &str, note: String) {
        if let Some(r) = self
            .records
            .iter_mut()
            .find(|r| r.ext == ext && r.kind == kind && r.name == name && r.active)
        {
            r.active = false;
            r.note = Some(note);
        }
    }

    /// Diagnostics `(extension, message)` of registrations that lost their
    /// active state to a lower-ranked extension since the last call.
    pub fn take_displaced(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.displaced)
    }

    /// The active registration of a command, matched case-insensitively.
    pub fn command(&self, name: &str) -> Option<&CommandReg> {
        self.commands.get(&command_key(name))
    }

    /// The active registration of a tool (exact name).
    pub fn tool(&self, name: &str) -> Option<&ToolReg> {
        self.tools.get(name)
    }

    /// Active commands, sorted by key.
    pub fn commands(&self) -> impl Iterator<Item = &CommandReg> {
        self.commands.values()
    }

    /// Active tools, sorted by name.
    pub fn tools(&self) -> impl Iterator<Item = &ToolReg> {
        self.tools.values()
    }

    /// Every registration attempt, in processing order.
    pub fn records(&self) -> &[RegRecord] {
        &self.records
    }

    /// Removes an extension's commands and tools from dispatch (HOST-154).
    pub fn remove_extension(&mut self, ext: &str) {
        self.commands.retain(|_, c| c.ext != ext);
        self.tools.retain(|_, t| t.ext != ext);
        for r in self.records.iter_mut().filter(|r| r.ext == ext && r.active) {
            r.active = false;
            r.note = Some(DISCONNECTED_NOTE.into());
        }
    }

    /// Clears everything (reload, §16.8 step 1).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Drops every registration of `ext` (it is restarted alone; what it
    /// registers next comes back at its load rank).
    pub fn forget_ext(&mut self, ext: &str) {
        self.commands.retain(|_, c| c.ext != ext);
        let tools: Vec<String> = self
            .tools
            .iter()
            .filter(|(_, t)| t.ext == ext)
            .map(|(name, _)| name.clone())
            .collect();
        for name in &tools {
            self.tools.remove(name);
            self.activated.remove(name);
        }
        self.records.retain(|r| r.ext != ext);
        self.displaced.retain(|(e, _)| e != ext);
    }

    /// Builds the agent's tool registry from the current registrations.
    pub fn build_agent_tools(&mut self) {
        self.agent_tools = Some(self.tools.keys().cloned().collect());
    }

    /// Whether an extension tool is in the agent's registry (registered
    /// before the last build, or activated since).
    pub fn in_agent(&self, name: &str) -> bool {
        self.tools.contains_key(name)
            && (self.activated.contains(name)
                || self.agent_tools.as_ref().is_some_and(|s| s.contains(name)))
    }

    /// Whether the model may call the tool directly: in the agent's registry
    /// and advertised (`direct`, `model-only`, or an activated deferred tool).
    pub fn model_callable(&self, name: &str) -> bool {
        let Some(t) = self.tools.get(name) else {
            return false;
        };
        self.in_agent(name)
            && match t.exposure {
                Exposure::Direct | Exposure::ModelOnly => true,
                Exposure::Deferred => self.activated.contains(name),
                _ => false,
            }
    }

    /// Activates registered deferred tools by name; unknown names are ignored
    /// (HOST-72). Returns the names activated.
    pub fn activate(&mut self, names: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for n in names {
            if let Some(t) = self.tools.get(n) {
                if t.exposure == Exposure::Deferred && self.activated.insert(n.clone()) {
                    out.push(n.clone());
                }
            }
        }
        out
    }

    /// The tool names advertised to the model: built-ins plus model-callable
    /// extension tools, sorted.
    pub fn advertised(&self) -> Vec<String> {
        let mut v: Vec<String> = BUILTIN_TOOLS.iter().map(|s| (*s).to_owned()).collect();
        v.extend(
            self.tools
                .keys()
                .filter(|n| self.model_callable(n))
                .cloned(),
        );
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zot_protocol::RawJson;

    fn tool(name: &str) -> RegisterTool {
        RegisterTool::new(name, "", RawJson::object_schema())
    }

    #[test]
    fn commands_conflict_by_case_first_in_load_order_wins() {
        let mut r = Registry::default();
        assert!(r.register_command("b", 1, "Greet", "").is_none());
        assert!(r.register_command("b", 1, "greet", "").is_some());
        // A lower-rank extension registering later still wins (OP-3).
        assert!(r.register_command("a", 0, "GREET", "").is_none());
        assert_eq!(r.command("greet").unwrap().name, "GREET");
        assert!(r
            .register_command("c", 2, "help", "")
            .unwrap()
            .contains("built-in"));
    }

    #[test]
    fn tools_builtin_shadow_exposure_and_activation() {
        let mut r = Registry::default();
        assert!(r
            .register_tool("a", 0, tool("bash"))
            .unwrap()
            .contains("built-in"));
        let mut bad = tool("x");
        bad.exposure = Some(Exposure::from("weird"));
        assert_eq!(
            r.register_tool("a", 0, bad).unwrap(),
            "tool \"x\" has unknown exposure \"weird\" \
             (expected one of direct, codemode, deferred, model-only); skipped"
        );
        // The extension's text is quoted escaped: the diagnostic stays one
        // line (found by the host_intake fuzz target).
        let mut forged = tool("y");
        forged.exposure = Some(Exposure::from("x\nzot-host: all good"));
        let note = r.register_tool("a", 0, forged).unwrap();
        assert!(!note.contains('\n'), "{note:?}");
        assert!(note.contains(r#""x\nzot-host: all good""#), "{note:?}");
        let mut lazy = tool("lazy");
        lazy.deferred = true;
        r.register_tool("a", 0, lazy);
        r.register_tool("a", 0, tool("echo"));
        assert!(r.register_tool("b", 1, tool("echo")).is_some());
        r.build_agent_tools();
        assert!(!r.model_callable("lazy"));
        assert_eq!(r.activate(&["lazy".into(), "nope".into()]), vec!["lazy"]);
        assert!(r.model_callable("lazy"));
        assert_eq!(r.tool("echo").unwrap().ext, "a");
    }
}
