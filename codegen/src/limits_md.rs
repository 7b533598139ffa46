//! `docs/reference/limits.md`: every number of the protocol (the `N-n` rows
//! of the protocol reference, §15) with its value read from
//! [`zot_protocol::limits`], so the docs cannot state a number the code
//! does not use.

use std::fmt::Write;
use std::time::Duration;

use zot_protocol::limits as l;

/// Where the table is written, relative to the workspace root.
pub const LIMITS_PATH: &str = "docs/reference/limits.md";

fn dur(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

fn bytes(n: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    if n >= MIB && n % MIB == 0 {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n % KIB == 0 {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

/// The rows: id, what it bounds, value, the constant(s) it comes from, notes.
fn rows() -> Vec<[String; 5]> {
    let r = |id: &str, what: &str, value: String, from: &str, notes: &str| {
        [id.into(), what.into(), value, from.into(), notes.into()]
    };
    vec![
        r("N-1", "protocol version", l::PROTOCOL_VERSION.to_string(), "PROTOCOL_VERSION", "in `hello_ack`; additions keep it"),
        r("N-2", "longest line, either direction (LF included)", bytes(l::MAX_FRAME_BYTES), "MAX_FRAME_BYTES", &format!("readers start at {} and grow; a longer line from an extension disconnects it", bytes(l::INITIAL_LINE_BUFFER))),
        r("N-3", "reply deadline of a normal tool", dur(l::TOOL_REPLY_TIMEOUT), "TOOL_REPLY_TIMEOUT", "then status `timed_out`"),
        r("N-4", "reply deadline of an interactive tool in an interactive host", "none".into(), "—", "cancellation and disconnect still end it"),
        r("N-5", "answer to `event_intercept` (`tool_call`, `turn_start`, `assistant_message`)", dur(l::INTERCEPT_TIMEOUT), "INTERCEPT_TIMEOUT", "per extension, after the write; missed = allow"),
        r("N-6", "answer to `before_agent_start`", dur(l::BEFORE_AGENT_START_TIMEOUT), "BEFORE_AGENT_START_TIMEOUT", "per extension, write included; missed = keep the prompt and warn"),
        r("N-7", "answer to `command_invoked`", dur(l::COMMAND_TIMEOUT), "COMMAND_TIMEOUT", ""),
        r("N-8", "one `call_tool`", dur(l::CALL_TOOL_TIMEOUT), "CALL_TOOL_TIMEOUT", "interactive tools too; approval waits do not count (OP-1)"),
        r("N-9", "one request write to an extension", dur(l::WRITE_TIMEOUT), "WRITE_TIMEOUT", "longer disconnects"),
        r("N-10", "finishing a half-written frame that was cancelled", dur(l::ABANDON_WRITE_GRACE), "ABANDON_WRITE_GRACE", "then the connection is closed"),
        r("N-11", "frames / bytes waiting for one extension", format!("{} / {}", l::OUTBOUND_QUEUE_FRAMES, bytes(l::OUTBOUND_QUEUE_BYTES)), "OUTBOUND_QUEUE_FRAMES, OUTBOUND_QUEUE_BYTES", "plus the one being written; more disconnects"),
        r("N-12", "shutdown grace, shared by all extensions", dur(l::SHUTDOWN_GRACE), "SHUTDOWN_GRACE", ""),
        r("N-13", "SIGTERM to SIGKILL", dur(l::SIGTERM_TO_SIGKILL), "SIGTERM_TO_SIGKILL", ""),
        r("N-14", "least wait per extension once the grace is spent", dur(l::MIN_EXIT_WAIT), "MIN_EXIT_WAIT", "before SIGTERM"),
        r("N-15", "readiness wait at start-up", dur(l::READY_GRACE), "READY_GRACE", "all extensions at once"),
        r("N-16", "reload: stop grace / least readiness wait", format!("{} / {}", dur(l::RELOAD_STOP_GRACE), dur(l::RELOAD_READY_GRACE)), "RELOAD_STOP_GRACE, RELOAD_READY_GRACE", ""),
        r("N-17", "idle time before auto-ready", dur(l::AUTO_READY_IDLE), "AUTO_READY_IDLE", ""),
        r("N-18", "exit wait when stdout closes before `hello`", dur(l::EXIT_BEFORE_HELLO_GRACE), "EXIT_BEFORE_HELLO_GRACE", "then the process is killed"),
        r("N-19", "reload status shown for", dur(l::RELOAD_STATUS_DISMISS), "RELOAD_STATUS_DISMISS", "errors stay in the chat"),
        r("N-20", "swarm runners at interactive shutdown", dur(l::SWARM_SHUTDOWN_WAIT), "SWARM_SHUTDOWN_WAIT", ""),
        r("N-21", "`system_prompt` answer, JSON-encoded", bytes(l::MAX_SYSTEM_PROMPT_BYTES), "MAX_SYSTEM_PROMPT_BYTES", ""),
        r("N-22", "observation budget", format!("{} and {} blocks", bytes(l::OBSERVATION_BUDGET_BYTES), l::OBSERVATION_MAX_BLOCKS), "OBSERVATION_BUDGET_BYTES, OBSERVATION_MAX_BLOCKS", "text + base64 + MIME bytes; event `result` and `call_tool` answers"),
        r("N-23", "tool-call chain", format!("{} calls", l::MAX_TOOL_CALL_CHAIN), "MAX_TOOL_CALL_CHAIN", "the first call included"),
        r("N-24", "durable call key", bytes(l::MAX_CALL_KEY_BYTES), "MAX_CALL_KEY_BYTES", "no `/`, no NUL"),
        r("N-25", "token estimate", format!("text bytes ÷ {}", l::TOKEN_ESTIMATE_DIVISOR), "TOKEN_ESTIMATE_DIVISOR", "compaction events"),
        r("N-26", "first `sequence`", l::FIRST_SEQUENCE.to_string(), "FIRST_SEQUENCE", "+1 per notification; restarts with the host"),
        r("N-27", "log file / `logs/` permissions", format!("0{:o} / 0{:o}", l::LOG_FILE_MODE, l::LOG_DIR_MODE), "LOG_FILE_MODE, LOG_DIR_MODE", "`$ZOT_HOME/logs/ext-<name>.log`, appended; owner only, since logs hold whatever extensions print"),
        r("N-28", "git install clone depth", l::GIT_CLONE_DEPTH.to_string(), "GIT_CLONE_DEPTH", ""),
        r("N-29", "panel key names", l::PANEL_KEY_NAMES.to_string(), "PANEL_KEY_NAMES", "plus `unknown`"),
        r("N-30", "notify levels", l::NOTIFY_LEVELS.to_string(), "NOTIFY_LEVELS", "`info`, `success`, `warn`, `error`"),
        r("N-31", "lifecycle events / interceptable events", format!("{} / {}", l::LIFECYCLE_EVENTS, l::INTERCEPTABLE_EVENTS), "LIFECYCLE_EVENTS, INTERCEPTABLE_EVENTS", "`before_agent_start` can only be intercepted"),
    ]
}

/// Renders the table.
pub fn markdown() -> String {
    let mut out = format!("<!-- {} -->\n", crate::render::HEADER);
    out.push_str(
        "
# Every number

The protocol's limits and deadlines, with the value the code uses
(`zot_protocol::limits`). What each one governs is explained in
[the protocol reference](../protocol.md#s15).

| # | what | value | constant | notes |
| --- | --- | --- | --- | --- |
",
    );
    for [id, what, value, from, notes] in rows() {
        let from = if from == "—" {
            from
        } else {
            from.split(", ")
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "| <a id=\"{id}\"></a>{id} | {what} | {value} | {from} | {notes} |"
        );
    }
    let _ = write!(
        out,
        "\nAlso bounded by the project (not protocol constants): a frame nests at most \
{} levels (`MAX_FRAME_DEPTH`), and the host waits {} for `hello` (`HELLO_TIMEOUT`, OP-4).\n",
        l::MAX_FRAME_DEPTH,
        dur(l::HELLO_TIMEOUT)
    );
    out
}
