//! Cancellation latency: `tool_call` `sleep` 60000 ms, an `echo` round trip
//! (so the call has surely been dispatched), then `tool_cancel`, timed until
//! the handler's `notify` `cancelled <ms>` arrives.

use std::time::Instant;

use super::{Better, Figure, Metric, ScenarioId};
use crate::config::Sizes;
use crate::error::{Error, Result};
use crate::frames;
use crate::session::Session;
use crate::stats::{median, sorted_micros};

/// The figures.
pub fn metrics() -> Vec<Metric> {
    vec![Metric::new(
        ScenarioId::Cancel,
        "cancel.latency_us",
        "tool_cancel → handler's `cancelled` note (median)",
        "µs",
        Better::Lower,
    )]
}

/// Measures `sizes.cancel_reps` cancellations.
pub fn run(s: &mut Session, sizes: &Sizes) -> Result<Vec<Figure>> {
    let mut samples = Vec::with_capacity(sizes.cancel_reps);
    for _ in 0..sizes.cancel_reps.max(1) {
        let id = s.next_id();
        let mut call = Vec::new();
        frames::tool_call(&mut call, &id, "sleep", r#"{"ms":60000}"#);
        s.conn.send(&call)?;
        s.echo(&sizes.echo_text)?;
        let cancel = frames::tool_cancel(&id);
        let t = Instant::now();
        s.conn.send(&cancel)?;
        loop {
            let r = s.conn.recv()?;
            if r.kind == "notify"
                && r.message
                    .as_deref()
                    .is_some_and(|m| m.starts_with("cancelled"))
            {
                samples.push(t.elapsed());
                break;
            }
            if r.is_result_for(&id) && !r.is_error {
                return Err(Error::new("sleep finished instead of being cancelled"));
            }
        }
    }
    let p50 = median(&sorted_micros(&samples)).ok_or_else(|| Error::new("no samples"))?;
    Ok(vec![Figure::new("cancel.latency_us", p50)])
}
