//! Host configuration: identity, paths, host mode and every deadline.
//!
//! The defaults are the spec's constants from [`zot_protocol::limits`]; tests
//! shorten them through [`Timeouts`] instead of waiting for real deadlines.

use std::path::PathBuf;
use std::time::Duration;

use zot_protocol::limits;

/// How the host runs, which decides the mode-dependent rules (§14.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostMode {
    /// The interactive TUI: notes, panels, `submit`, interactive tools, `tool_prompt`.
    Interactive,
    /// Single-shot print mode: notes go to stderr, panels and `submit` are ignored.
    Print,
    /// JSON output mode: like print.
    Json,
    /// RPC mode: notes surface as `ext_notify` / `ext_display` / `ext_clear_notes` events.
    Rpc,
}

impl HostMode {
    /// Whether this is the interactive TUI.
    pub fn is_interactive(self) -> bool {
        self == Self::Interactive
    }

    /// The mode's name as written in scripts.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Interactive => "interactive",
            Self::Print => "print",
            Self::Json => "json",
            Self::Rpc => "rpc",
        }
    }
}

/// Every deadline the host applies. [`Default`] gives the spec's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeouts {
    /// N-3: reply deadline of a normal extension tool.
    pub tool_reply: Duration,
    /// N-5: interception reply deadline (after the write).
    pub intercept: Duration,
    /// N-6: `before_agent_start` deadline (write included).
    pub before_agent_start: Duration,
    /// N-7: slash-command response deadline.
    pub command: Duration,
    /// N-8: `call_tool` deadline (execution only, OP-1).
    pub call_tool: Duration,
    /// N-9: bound on a synchronous request write.
    pub write: Duration,
    /// N-10: grace for a cancelled frame that is mid-write.
    pub abandon_write_grace: Duration,
    /// N-12: shared shutdown grace.
    pub shutdown_grace: Duration,
    /// N-13: SIGTERM → SIGKILL.
    pub sigterm_to_sigkill: Duration,
    /// N-14: least exit wait per extension once the grace is spent.
    pub min_exit_wait: Duration,
    /// N-15: startup readiness grace.
    pub ready_grace: Duration,
    /// N-16: reload stop grace.
    pub reload_stop_grace: Duration,
    /// N-16: least reload readiness wait.
    pub reload_ready_grace: Duration,
    /// N-17: auto-ready idle window.
    pub auto_ready_idle: Duration,
    /// N-18: exit wait when stdout closes before `hello`.
    pub exit_before_hello: Duration,
    /// OP-4: bound on the wait for `hello`.
    pub hello: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            tool_reply: limits::TOOL_REPLY_TIMEOUT,
            intercept: limits::INTERCEPT_TIMEOUT,
            before_agent_start: limits::BEFORE_AGENT_START_TIMEOUT,
            command: limits::COMMAND_TIMEOUT,
            call_tool: limits::CALL_TOOL_TIMEOUT,
            write: limits::WRITE_TIMEOUT,
            abandon_write_grace: limits::ABANDON_WRITE_GRACE,
            shutdown_grace: limits::SHUTDOWN_GRACE,
            sigterm_to_sigkill: limits::SIGTERM_TO_SIGKILL,
            min_exit_wait: limits::MIN_EXIT_WAIT,
            ready_grace: limits::READY_GRACE,
            reload_stop_grace: limits::RELOAD_STOP_GRACE,
            reload_ready_grace: limits::RELOAD_READY_GRACE,
            auto_ready_idle: limits::AUTO_READY_IDLE,
            exit_before_hello: limits::EXIT_BEFORE_HELLO_GRACE,
            hello: limits::HELLO_TIMEOUT,
        }
    }
}

impl Timeouts {
    /// Every deadline and grace multiplied by `factor`: for emulators and
    /// slow machines (`zot-host run --time-scale`), where an extension's
    /// start-up or reply can take many times the spec's windows.
    pub fn scaled(&self, factor: f64) -> Self {
        let s = |d: Duration| d.mul_f64(factor);
        Self {
            tool_reply: s(self.tool_reply),
            intercept: s(self.intercept),
            before_agent_start: s(self.before_agent_start),
            command: s(self.command),
            call_tool: s(self.call_tool),
            write: s(self.write),
            abandon_write_grace: s(self.abandon_write_grace),
            shutdown_grace: s(self.shutdown_grace),
            sigterm_to_sigkill: s(self.sigterm_to_sigkill),
            min_exit_wait: s(self.min_exit_wait),
            ready_grace: s(self.ready_grace),
            reload_stop_grace: s(self.reload_stop_grace),
            reload_ready_grace: s(self.reload_ready_grace),
            auto_ready_idle: s(self.auto_ready_idle),
            exit_before_hello: s(self.exit_before_hello),
            hello: s(self.hello),
        }
    }
}

/// Parses a `--time-scale` factor: a number from 0.01 to 1000.
pub fn parse_time_scale(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(f) if (0.01..=1000.0).contains(&f) => Ok(f),
        _ => Err(format!("{text:?} is not a time scale: give a number from 0.01 to 1000 (e.g. 20 under qemu-user)")),
    }
}

/// Bounds of the per-extension outbound queue (N-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueLimits {
    /// Frames that may wait (the one in flight not counted).
    pub frames: usize,
    /// Bytes that may wait.
    pub bytes: usize,
}

impl Default for QueueLimits {
    fn default() -> Self {
        Self {
            frames: limits::OUTBOUND_QUEUE_FRAMES,
            bytes: limits::OUTBOUND_QUEUE_BYTES,
        }
    }
}

/// Everything the extension manager needs to load and talk to extensions.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// `hello_ack.zot_version`.
    pub zot_version: String,
    /// `hello_ack.provider`.
    pub provider: String,
    /// `hello_ack.model`.
    pub model: String,
    /// The user's project directory (`hello_ack.cwd`).
    pub cwd: PathBuf,
    /// `$ZOT_HOME` (logs live under `logs/`, global extensions under `extensions/`).
    pub zot_home: PathBuf,
    /// Host mode.
    pub mode: HostMode,
    /// Continuous mode: advertise `call_tool_durable`, require parents (§9.5).
    pub continuous: bool,
    /// Deadlines.
    pub timeouts: Timeouts,
    /// Outbound queue bounds.
    pub queue: QueueLimits,
}

impl HostConfig {
    /// A configuration with the spec's deadlines.
    pub fn new(cwd: PathBuf, zot_home: PathBuf) -> Self {
        Self {
            zot_version: concat!("zot-host/", env!("CARGO_PKG_VERSION")).to_owned(),
            provider: "scripted".to_owned(),
            model: "scripted-model".to_owned(),
            cwd,
            zot_home,
            mode: HostMode::Interactive,
            continuous: false,
            timeouts: Timeouts::default(),
            queue: QueueLimits::default(),
        }
    }

    /// `$ZOT_HOME/logs`.
    pub fn log_dir(&self) -> PathBuf {
        self.zot_home.join("logs")
    }

    /// `$ZOT_HOME/logs/ext-<name>.log`; only a checked name can build it.
    pub fn log_path(&self, name: &crate::store::name::ExtName) -> PathBuf {
        self.log_dir().join(format!("ext-{name}.log"))
    }
}
