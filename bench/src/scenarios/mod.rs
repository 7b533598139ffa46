//! The scenarios. Each per-target scenario runs in a fresh process of the
//! target (after a warm-up) and returns named figures; the host-side group
//! ([`host`]) drives the reference host instead.

pub mod call_tool;
pub mod cancel;
pub mod echo;
pub mod events;
pub mod host;
pub mod payloads;
pub mod pipelined;
pub mod startup;

use serde::Serialize;

use crate::config::Sizes;
use crate::error::Result;
use crate::handshake::ExtInfo;
pub use crate::scenario_id::ScenarioId;
use crate::session::Session;
use crate::targets::Target;

impl ScenarioId {
    /// The figures this scenario produces.
    pub fn metrics(self, sizes: &Sizes) -> Vec<Metric> {
        match self {
            ScenarioId::Startup => startup::metrics(),
            ScenarioId::Echo => echo::metrics(),
            ScenarioId::Pipelined => pipelined::metrics(sizes),
            ScenarioId::Events => events::metrics(sizes),
            ScenarioId::Payloads => payloads::metrics(sizes),
            ScenarioId::Cancel => cancel::metrics(),
            ScenarioId::CallTool => call_tool::metrics(),
            ScenarioId::Host => host::metrics(sizes),
        }
    }

    /// Whether the scenario applies to a target; `Err` says why not.
    /// `info` is what the extension announced (`None` for the pipe echo).
    pub fn applies(
        self,
        target: &Target,
        info: Option<&ExtInfo>,
    ) -> std::result::Result<(), String> {
        let Some(info) = info.filter(|_| target.is_extension()) else {
            return match self {
                ScenarioId::Echo | ScenarioId::Pipelined | ScenarioId::Payloads => Ok(()),
                _ => Err("line echo only".into()),
            };
        };
        let need_tool = |t: &str| {
            if info.has_tool(t) {
                Ok(())
            } else {
                Err(format!("no `{t}` tool"))
            }
        };
        match self {
            ScenarioId::Startup | ScenarioId::Echo | ScenarioId::Pipelined => need_tool("echo"),
            ScenarioId::Events => {
                need_tool("echo")?;
                if info.subscribes("tool_call") {
                    Ok(())
                } else {
                    Err("not subscribed to `tool_call`".into())
                }
            }
            ScenarioId::Payloads => need_tool("echo"),
            ScenarioId::Cancel => {
                need_tool("sleep")?;
                if info.has_capability("tool_cancel") {
                    Ok(())
                } else {
                    Err("no `tool_cancel` capability".into())
                }
            }
            ScenarioId::CallTool => {
                need_tool("compose")?;
                if info.has_capability("call_tool") {
                    Ok(())
                } else {
                    Err("no `call_tool` capability".into())
                }
            }
            ScenarioId::Host => Err("host-side scenario".into()),
        }
    }

    /// Whether the fresh process gets the small `echo` warm-up first (all
    /// but start-up, which measures the cold path).
    pub fn warms_up(self) -> bool {
        self != ScenarioId::Startup
    }

    /// Runs a per-target scenario on a started (and warmed-up) session.
    pub fn run(self, s: &mut Session, sizes: &Sizes) -> Result<Vec<Figure>> {
        match self {
            ScenarioId::Startup => startup::run(s, sizes),
            ScenarioId::Echo => echo::run(s, sizes),
            ScenarioId::Pipelined => pipelined::run(s, sizes),
            ScenarioId::Events => events::run(s, sizes),
            ScenarioId::Payloads => payloads::run(s, sizes),
            ScenarioId::Cancel => cancel::run(s, sizes),
            ScenarioId::CallTool => call_tool::run(s, sizes),
            ScenarioId::Host => bail!("the host scenarios do not run per target"),
        }
    }
}

/// Whether lower or higher values are better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Times, memory.
    Lower,
    /// Rates.
    Higher,
}

/// A figure's definition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Metric {
    /// Stable id (`echo.p50_us`, JSON key).
    pub id: String,
    /// Row label in the table.
    pub label: String,
    /// Unit.
    pub unit: &'static str,
    /// Direction.
    pub better: Better,
    /// The scenario measuring it.
    pub scenario: ScenarioId,
}

impl Metric {
    /// A definition.
    pub fn new(
        scenario: ScenarioId,
        id: impl Into<String>,
        label: impl Into<String>,
        unit: &'static str,
        better: Better,
    ) -> Self {
        Metric {
            id: id.into(),
            label: label.into(),
            unit,
            better,
            scenario,
        }
    }
}

/// One measured value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    /// [`Metric::id`].
    pub metric: String,
    /// The value, in the metric's unit.
    pub value: f64,
}

impl Figure {
    /// A value.
    pub fn new(metric: impl Into<String>, value: f64) -> Self {
        Figure {
            metric: metric.into(),
            value,
        }
    }
}

/// `1000` → `1k`, `100000` → `100k`.
pub fn short_count(n: usize) -> String {
    if n >= 1_000_000 && n % 1_000_000 == 0 {
        format!("{}M", n / 1_000_000)
    } else if n >= 1000 && n % 1000 == 0 {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}
