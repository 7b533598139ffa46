//! Every number of the protocol (docs/protocol.md §15), as named constants.
//!
//! Each constant says what it bounds; the `N-x` tag is the row of the
//! catalogue it comes from. Durations are [`Duration`]s so that callers cannot
//! confuse seconds with milliseconds.

use std::time::Duration;

/// N-1: the protocol version carried in `hello_ack.protocol_version`.
/// Additive changes keep it at 1.
pub const PROTOCOL_VERSION: u32 = 1;

/// N-2: the largest frame, in bytes, *including* its terminating LF, that may
/// be sent or must be accepted in either direction (4 MiB).
pub const MAX_FRAME_BYTES: usize = 4 * 1024 * 1024;

/// The deepest nesting of arrays and objects a frame may have, the frame
/// object itself counting as one level (a reading taken, not a row of the
/// catalogue: the sources set no bound). The engine answers a deeper request
/// with its normal error reply and skips any other deeper frame.
///
/// Why 128: it is the nesting `serde_json` decodes by default (127 levels
/// below the root), the decoder every Rust handler parses its arguments
/// with. Free-form values (tool arguments, structured results) sit one level
/// below the frame, so each value of an accepted frame decodes in every SDK:
/// Rust's typed decode, Python's `json` (about one interpreter frame per
/// level out of the default recursion limit of 1,000; the engine's job batch
/// adds two levels) and Node's `JSON.parse` alike, and all three SDKs give
/// one answer. JSON handed to tools is rarely more than a dozen levels deep.
pub const MAX_FRAME_DEPTH: usize = 128;

/// The initial capacity of a line buffer: readers grow from here up to
/// [`MAX_FRAME_BYTES`] (the Go host and SDK start at 64 KiB too).
pub const INITIAL_LINE_BUFFER: usize = 64 * 1024;

/// N-3: how long the host waits for the `tool_result` of a normal
/// (non-interactive) tool before the call ends as `timed_out`.
pub const TOOL_REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// N-5: per-extension deadline for an `event_intercept_response` to a
/// `tool_call`, `turn_start` or `assistant_message` interception; counted
/// after the request was written. A miss means "allow, unchanged".
pub const INTERCEPT_TIMEOUT: Duration = Duration::from_secs(5);

/// N-6: per-extension deadline for a `before_agent_start` reply, including
/// the request write. A miss keeps the prompt and warns.
pub const BEFORE_AGENT_START_TIMEOUT: Duration = Duration::from_secs(5);

/// N-7: how long the host waits for a `command_response`.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// N-8: deadline of one `call_tool` (execution time, interactive tools
/// included; approval waits do not count, OP-1).
pub const CALL_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// N-9: bound on one synchronous host→extension request write; a write that
/// takes longer disconnects the extension.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// N-10: how long a cancelled frame that is already being written may take
/// to finish before the transport is closed.
pub const ABANDON_WRITE_GRACE: Duration = Duration::from_millis(250);

/// N-11: frames that may wait in one extension's outbound queue (the frame in
/// flight is not counted). One more disconnects the extension.
pub const OUTBOUND_QUEUE_FRAMES: usize = 256;

/// N-11: bytes that may wait in one extension's outbound queue (the frame in
/// flight is not counted). More disconnects the extension.
pub const OUTBOUND_QUEUE_BYTES: usize = 16 * 1024 * 1024;

/// N-12: the shutdown grace shared by all extensions: after `shutdown` the
/// host waits this long for the processes to exit.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// N-13: after SIGTERM, how long before SIGKILL.
pub const SIGTERM_TO_SIGKILL: Duration = Duration::from_secs(1);

/// N-14: the least time each extension still gets to exit once the shared
/// grace is spent, before it is sent SIGTERM.
pub const MIN_EXIT_WAIT: Duration = Duration::from_millis(100);

/// N-15: how long the host waits, in parallel, for all extensions to become
/// ready at startup.
pub const READY_GRACE: Duration = Duration::from_secs(3);

/// N-16: how long a reload waits for the old set to stop.
pub const RELOAD_STOP_GRACE: Duration = Duration::from_secs(2);

/// N-16: the least time a reload waits for the new set to become ready.
pub const RELOAD_READY_GRACE: Duration = Duration::from_secs(3);

/// N-17: with no frame for this long after the handshake (or after the last
/// frame) an extension that never sends `ready` is marked auto-ready.
pub const AUTO_READY_IDLE: Duration = Duration::from_millis(250);

/// N-18: when stdout closes before `hello`, how long the host waits for the
/// process to exit (to report its status) before killing it.
pub const EXIT_BEFORE_HELLO_GRACE: Duration = Duration::from_secs(1);

/// N-19: the reload status line dismisses itself after this long (a
/// terminal-UI rule: the reference host has no status line, see its README).
pub const RELOAD_STATUS_DISMISS: Duration = Duration::from_secs(5);

/// N-20: how long interactive shutdown waits for local swarm runners (the
/// reference host runs no swarm; kept for hosts that do).
pub const SWARM_SHUTDOWN_WAIT: Duration = Duration::from_secs(2);

/// N-21: the largest JSON-encoded `system_prompt` value a `before_agent_start`
/// reply may carry (1 MiB, measured on the encoded string).
pub const MAX_SYSTEM_PROMPT_BYTES: usize = 1024 * 1024;

/// N-22: the observation budget of event `result`s and `call_tool` replies:
/// text + base64 data + MIME type bytes together.
pub const OBSERVATION_BUDGET_BYTES: usize = 256 * 1024;

/// N-22: the most content blocks in an observed result.
pub const OBSERVATION_MAX_BLOCKS: usize = 128;

/// N-23: the most tool calls in one `call_tool` chain, the original included.
pub const MAX_TOOL_CALL_CHAIN: usize = 4;

/// N-24: the longest durable `call_tool` key, in bytes.
pub const MAX_CALL_KEY_BYTES: usize = 128;

/// N-25: compaction token estimates are serialized text bytes divided by this.
pub const TOKEN_ESTIMATE_DIVISOR: u64 = 4;

/// N-26: the first `sequence` number of a host's notifications (OP-24).
pub const FIRST_SEQUENCE: u64 = 1;

/// N-27: permission bits of an extension log file. The catalogue's stored
/// host used 0644; tightened to the owner alone because a log holds whatever
/// the extension prints to stderr, tokens included (issue 13).
pub const LOG_FILE_MODE: u32 = 0o600;

/// N-27: permission bits of the `logs/` directory (and of every folder the
/// host creates under `$ZOT_HOME`); 0755 in the catalogue, tightened with
/// [`LOG_FILE_MODE`].
pub const LOG_DIR_MODE: u32 = 0o700;

/// N-28: depth of the shallow clone made by `ext install <git-url>`.
pub const GIT_CLONE_DEPTH: u32 = 1;

/// N-29: the number of normalized panel key names (`up` … `rune`).
pub const PANEL_KEY_NAMES: usize = 14;

/// N-30: the number of `notify` levels.
pub const NOTIFY_LEVELS: usize = 4;

/// N-31: the number of observational lifecycle events.
pub const LIFECYCLE_EVENTS: usize = 14;

/// N-31: the number of interceptable events.
pub const INTERCEPTABLE_EVENTS: usize = 4;

/// OP-4 (reading taken): how long the host waits for the first line
/// (`hello`) before it kills the process and reports a handshake error.
/// Not a protocol constant; the sources set no bound.
pub const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
