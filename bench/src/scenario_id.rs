//! Which scenario: the names on the command line and in the results. What
//! each one measures and how lives in [`crate::scenarios`].

use serde::Serialize;

/// A scenario (group of figures measured in one process).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioId {
    /// Spawn → `hello` → `ready` → first tool result; RSS after start-up.
    Startup,
    /// Sequential `echo` round trips.
    Echo,
    /// Pipelined `echo` calls, a fixed number in flight.
    Pipelined,
    /// One-way `event` bursts closed by one `echo`.
    Events,
    /// 1 MiB payloads both ways; peak RSS.
    Payloads,
    /// `tool_cancel` → the handler's `cancelled` note.
    Cancel,
    /// `compose` → `call_tool` → host `tool_result` → result.
    CallTool,
    /// Host-side figures through `zot-host` (not per target).
    Host,
}

impl ScenarioId {
    /// Every scenario run once per target, in run order.
    pub const PER_TARGET: [ScenarioId; 7] = [
        ScenarioId::Startup,
        ScenarioId::Echo,
        ScenarioId::Pipelined,
        ScenarioId::Events,
        ScenarioId::Payloads,
        ScenarioId::Cancel,
        ScenarioId::CallTool,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ScenarioId::Startup => "startup",
            ScenarioId::Echo => "echo",
            ScenarioId::Pipelined => "pipelined",
            ScenarioId::Events => "events",
            ScenarioId::Payloads => "payloads",
            ScenarioId::Cancel => "cancel",
            ScenarioId::CallTool => "call_tool",
            ScenarioId::Host => "host",
        }
    }

    /// Parses [`ScenarioId::name`].
    pub fn parse(s: &str) -> Option<Self> {
        Self::PER_TARGET
            .into_iter()
            .chain([ScenarioId::Host])
            .find(|id| id.name() == s)
    }
}
