//! The session's view of the loaded extensions: the registry's answers it
//! asks for (a command or a tool by name, the tools the model is offered,
//! tools a result activates, how many registrations there are), the
//! extension that owns a name, and the pace of events. The registry, the
//! processes and their restart, reload and shutdown are
//! [`crate::process`]'s ([`Extensions::manager`]); the session takes the
//! registry's lock nowhere else.

use std::sync::{Arc, MutexGuard};

use crate::process::extension::LoadedExtension;
use crate::process::manager::Manager;
use crate::process::registry::{CommandReg, Registry, ToolReg, BUILTIN_COMMANDS};
use crate::process::shared::Shared;

/// The loaded extensions, as the session asks about them.
pub(crate) struct Extensions {
    mgr: Arc<Manager>,
}

impl Extensions {
    /// The extensions `mgr` loads.
    pub(crate) fn new(mgr: Arc<Manager>) -> Self {
        Self { mgr }
    }

    /// The manager: loading, restart, reload, shutdown, interception.
    pub(crate) fn manager(&self) -> &Arc<Manager> {
        &self.mgr
    }

    /// What the manager, the read loops and the session share.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        self.mgr.shared()
    }

    /// The loaded extension named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<Arc<LoadedExtension>> {
        self.mgr.get(name)
    }

    /// Waits until every connected extension's outbound queue has room for
    /// a burst of events (see [`Manager::pace`]).
    pub(crate) async fn pace(&self) {
        self.mgr.pace().await;
    }

    fn registry(&self) -> MutexGuard<'_, Registry> {
        self.shared()
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The command registered as `name` (case-insensitive).
    pub(crate) fn command(&self, name: &str) -> Option<CommandReg> {
        self.registry().command(name).cloned()
    }

    /// The lines of `/help`: the built-in commands, then each registered
    /// one with its extension and description.
    pub(crate) fn help(&self) -> Vec<String> {
        let reg = self.registry();
        let mut text: Vec<String> = BUILTIN_COMMANDS.iter().map(|c| format!("/{c}")).collect();
        text.extend(
            reg.commands()
                .map(|c| format!("/{} ({}) {}", c.name, c.ext, c.description)),
        );
        text
    }

    /// The tool names advertised to the model.
    pub(crate) fn advertised(&self) -> Vec<String> {
        self.registry().advertised()
    }

    /// The tool registered as `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<ToolReg> {
        self.registry().tool(name).cloned()
    }

    /// The tool registered as `name` if the caller may see it: the model
    /// sees what it is offered, `call_tool` the whole agent registry.
    pub(crate) fn callable_tool(&self, name: &str, via_call_tool: bool) -> Option<ToolReg> {
        let reg = self.registry();
        let visible = if via_call_tool {
            reg.in_agent(name)
        } else {
            reg.model_callable(name)
        };
        reg.tool(name).filter(|_| visible).cloned()
    }

    /// Activates deferred tools a result named.
    pub(crate) fn activate(&self, names: &[String]) {
        self.registry().activate(names);
    }

    /// Registration records (commands and tools, active or not).
    pub(crate) fn registrations(&self) -> usize {
        self.registry().records().len()
    }

    /// The tools advertised to the model, with their schemas: a built-in's
    /// own definition, else the registered one's.
    pub(crate) fn offered_tools(&self) -> Vec<crate::model::ChatTool> {
        let reg = self.registry();
        reg.advertised()
            .into_iter()
            .filter_map(|name| {
                let (description, parameters) =
                    match crate::session::tools::builtin::definition(&name) {
                        Some((d, p)) => (d.to_owned(), p),
                        None => {
                            let t = reg.tool(&name)?;
                            let schema = serde_json::from_str(t.def.schema.get())
                                .unwrap_or_else(|_| serde_json::json!({"type": "object"}));
                            (t.def.description.clone(), schema)
                        }
                    };
                Some(crate::model::ChatTool {
                    name,
                    description,
                    parameters,
                })
            })
            .collect()
    }
}
