//! What a target is fed while it is counted: the frames of one throughput
//! scenario, all written at once, closed by one `echo`.

use crate::conn::Reply;
use crate::error::{Error, Result};
use crate::frames;
use crate::scenario_id::ScenarioId;
use crate::session::Session;

/// The encoded frames: `n` `echo` calls (pipelined) or `n` `tool_call`
/// events (events), then one closing `echo`. Returns the bytes and how many
/// `tool_result`s end the run.
pub fn encode(s: &mut Session, scenario: ScenarioId, n: u64, text: &str) -> (Vec<u8>, u64) {
    let mut buf = Vec::new();
    let mut results = 1;
    if scenario == ScenarioId::Events {
        for seq in 1..=n {
            frames::event_tool_call(&mut buf, seq);
        }
    } else {
        for _ in 0..n {
            let id = s.next_id();
            frames::echo_call(&mut buf, &id, text);
        }
        results += n;
    }
    let id = s.next_id();
    frames::echo_call(&mut buf, &id, text);
    (buf, results)
}

/// Feeds the frames from a writer thread (the pipe would fill up with
/// replies otherwise) and waits for every result. Written at once rather
/// than through a 64-call window: under callgrind the target is always the
/// slower side, so it reads full pipe buffers every time and the count
/// does not depend on how the two sides' timing splits the batches.
pub fn feed(s: &mut Session, scenario: ScenarioId, n: u64, text: &str) -> Result<()> {
    let (buf, mut left) = encode(s, scenario, n, text);
    s.conn.send_reading(&buf, |line| {
        let r: Reply<'_> = serde_json::from_slice(line)?;
        if r.kind != "tool_result" {
            return Ok(false);
        }
        if r.is_error {
            return Err(Error::new(format!(
                "echo {} failed: {}",
                r.id.as_deref().unwrap_or("?"),
                r.first_text()
            )));
        }
        left -= 1;
        Ok(left == 0)
    })
}
