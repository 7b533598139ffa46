//! A pause point for the fault tests, inert unless they ask for it.
//!
//! With `ZOT_HOST_TEST_PAUSE=<point>:<fifo>` in the environment, the first
//! time the command reaches `<point>` it opens the FIFO for reading, which
//! blocks until the test opens it for writing (the test then knows where
//! the command is), and reads until the test closes it. A test can kill the
//! command there, or run another one first; no sleeping, no polling.

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};

/// The environment variable.
pub const PAUSE_ENV: &str = "ZOT_HOST_TEST_PAUSE";

static PAUSED: AtomicBool = AtomicBool::new(false);

/// Pauses at `point` when the test environment asks for it (once).
pub fn pause(point: &str) {
    let Some(v) = std::env::var_os(PAUSE_ENV) else {
        return;
    };
    let v = v.to_string_lossy();
    let Some((p, fifo)) = v.split_once(':') else {
        return;
    };
    if p != point || PAUSED.swap(true, Ordering::SeqCst) {
        return;
    }
    if let Ok(mut f) = std::fs::File::open(fifo) {
        let mut sink = Vec::new();
        let _ = f.read_to_end(&mut sink);
    }
}
