//! The host's default deadlines and queue bounds are the spec's numbers
//! (docs/protocol.md N-3 .. N-18, OP-4), field by field. The other tests shorten
//! the deadlines they mean to fire, so this is where a swapped or mistyped
//! default would show.

use std::time::Duration;

use zot_host::config::{QueueLimits, Timeouts};

#[test]
fn default_deadlines_are_the_specs() {
    let t = Timeouts::default();
    let s = Duration::from_secs;
    let ms = Duration::from_millis;
    assert_eq!(t.tool_reply, s(60), "N-3");
    assert_eq!(t.intercept, s(5), "N-5");
    assert_eq!(t.before_agent_start, s(5), "N-6");
    assert_eq!(t.command, s(30), "N-7");
    assert_eq!(t.call_tool, s(60), "N-8");
    assert_eq!(t.write, s(5), "N-9");
    assert_eq!(t.abandon_write_grace, ms(250), "N-10");
    assert_eq!(t.shutdown_grace, s(2), "N-12");
    assert_eq!(t.sigterm_to_sigkill, s(1), "N-13");
    assert_eq!(t.min_exit_wait, ms(100), "N-14");
    assert_eq!(t.ready_grace, s(3), "N-15");
    assert_eq!(t.reload_stop_grace, s(2), "N-16");
    assert!(t.reload_ready_grace >= s(3), "N-16");
    assert_eq!(t.auto_ready_idle, ms(250), "N-17");
    assert_eq!(t.exit_before_hello, s(1), "N-18");
    assert_eq!(t.hello, s(10), "OP-4");
}

#[test]
fn default_queue_bounds_are_the_specs() {
    let q = QueueLimits::default();
    assert_eq!(q.frames, 256, "N-11");
    assert_eq!(q.bytes, 16 * 1024 * 1024, "N-11");
}
