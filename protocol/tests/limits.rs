//! Every number of docs/protocol.md's table of limits (N-1 .. N-31), as the spec
//! writes it. The constants are used everywhere else by name; this file is
//! the one place that says what their values must be, so an edit to one of
//! them cannot pass unnoticed.

use std::time::Duration;

use zot_protocol::limits::*;

const MIB: usize = 1024 * 1024;
const KIB: usize = 1024;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn millis(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

#[test]
fn sizes_and_counts_are_the_specs() {
    assert_eq!(PROTOCOL_VERSION, 1, "N-1");
    assert_eq!(MAX_FRAME_BYTES, 4 * MIB, "N-2: 4 MiB, both directions");
    assert_eq!(
        INITIAL_LINE_BUFFER,
        64 * KIB,
        "N-2: readers start with 64 KiB"
    );
    assert_eq!(OUTBOUND_QUEUE_FRAMES, 256, "N-11");
    assert_eq!(OUTBOUND_QUEUE_BYTES, 16 * MIB, "N-11");
    assert_eq!(MAX_SYSTEM_PROMPT_BYTES, 1_048_576, "N-21");
    assert_eq!(OBSERVATION_BUDGET_BYTES, 256 * KIB, "N-22");
    assert_eq!(OBSERVATION_MAX_BLOCKS, 128, "N-22");
    assert_eq!(MAX_TOOL_CALL_CHAIN, 4, "N-23");
    assert_eq!(MAX_CALL_KEY_BYTES, 128, "N-24");
    assert_eq!(TOKEN_ESTIMATE_DIVISOR, 4, "N-25");
    assert_eq!(FIRST_SEQUENCE, 1, "N-26");
    // N-27 says 0644 / 0755; tightened on purpose (see the constants).
    assert_eq!(LOG_FILE_MODE, 0o600, "N-27");
    assert_eq!(LOG_DIR_MODE, 0o700, "N-27");
    assert_eq!(GIT_CLONE_DEPTH, 1, "N-28");
    assert_eq!(PANEL_KEY_NAMES, 14, "N-29");
    assert_eq!(NOTIFY_LEVELS, 4, "N-30");
    assert_eq!(LIFECYCLE_EVENTS, 14, "N-31");
    assert_eq!(INTERCEPTABLE_EVENTS, 4, "N-31");
}

#[test]
fn deadlines_and_graces_are_the_specs() {
    assert_eq!(TOOL_REPLY_TIMEOUT, secs(60), "N-3");
    assert_eq!(INTERCEPT_TIMEOUT, secs(5), "N-5");
    assert_eq!(BEFORE_AGENT_START_TIMEOUT, secs(5), "N-6");
    assert_eq!(COMMAND_TIMEOUT, secs(30), "N-7");
    assert_eq!(CALL_TOOL_TIMEOUT, secs(60), "N-8");
    assert_eq!(WRITE_TIMEOUT, secs(5), "N-9");
    assert_eq!(ABANDON_WRITE_GRACE, millis(250), "N-10");
    assert_eq!(SHUTDOWN_GRACE, secs(2), "N-12");
    assert_eq!(SIGTERM_TO_SIGKILL, secs(1), "N-13");
    assert_eq!(MIN_EXIT_WAIT, millis(100), "N-14");
    assert_eq!(READY_GRACE, secs(3), "N-15");
    assert_eq!(RELOAD_STOP_GRACE, secs(2), "N-16");
    assert!(RELOAD_READY_GRACE >= secs(3), "N-16: at least 3 s");
    assert_eq!(AUTO_READY_IDLE, millis(250), "N-17");
    assert_eq!(EXIT_BEFORE_HELLO_GRACE, secs(1), "N-18");
    assert_eq!(RELOAD_STATUS_DISMISS, secs(5), "N-19");
    assert_eq!(SWARM_SHUTDOWN_WAIT, secs(2), "N-20");
    // OP-4 (an open point): the project's bound on the wait for `hello`.
    assert_eq!(HELLO_TIMEOUT, secs(10), "OP-4");
}

#[test]
fn the_counted_value_sets_have_that_many_members() {
    use zot_protocol::values::{
        NotifyLevel, PanelKeyName, INTERCEPTABLE_EVENT_NAMES, LIFECYCLE_EVENT_NAMES,
    };
    // N-29: 14 names from `up` to `rune`, plus `unknown` (the stored TUI's).
    let keys = PanelKeyName::KNOWN;
    assert_eq!(keys.first(), Some(&"up"), "N-29");
    assert_eq!(
        keys.iter().position(|k| *k == "rune"),
        Some(PANEL_KEY_NAMES - 1),
        "N-29"
    );
    assert_eq!(&keys[PANEL_KEY_NAMES..], ["unknown"], "N-29");
    assert_eq!(NotifyLevel::KNOWN.len(), NOTIFY_LEVELS, "N-30");
    assert_eq!(LIFECYCLE_EVENT_NAMES.len(), LIFECYCLE_EVENTS, "N-31");
    assert_eq!(
        INTERCEPTABLE_EVENT_NAMES.len(),
        INTERCEPTABLE_EVENTS,
        "N-31"
    );
    // `before_agent_start` is intercept-only; the other three overlap.
    let only_intercept: Vec<_> = INTERCEPTABLE_EVENT_NAMES
        .iter()
        .filter(|n| !LIFECYCLE_EVENT_NAMES.contains(n))
        .collect();
    assert_eq!(only_intercept, [&"before_agent_start"], "N-31");
}
