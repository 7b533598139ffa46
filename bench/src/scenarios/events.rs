//! One-way event absorption: bursts of `event` `tool_call` frames written
//! back to back, closed by one `echo` whose reply marks the end.

use std::time::Instant;

use super::{short_count, Better, Figure, Metric, ScenarioId};
use crate::config::Sizes;
use crate::error::{Error, Result};
use crate::frames;
use crate::session::Session;

/// Events in the warm-up burst. 100 were not enough for V8: Node's first
/// measured (1k) burst then still ran half-optimised code (~210k/s against
/// 350-520k/s once warm, measured 2026-12-01), so the 1k figure measured the
/// JIT, not the SDK. 10k events cost at most tens of milliseconds per run.
const WARMUP_BURST: usize = 10_000;

/// The metric id of a burst size.
pub fn metric_id(burst: usize) -> String {
    format!("events.burst_{burst}_per_s")
}

/// The figures (one per burst size).
pub fn metrics(sizes: &Sizes) -> Vec<Metric> {
    sizes
        .event_bursts
        .iter()
        .map(|&n| {
            Metric::new(
                ScenarioId::Events,
                metric_id(n),
                format!("events absorbed, {} burst", short_count(n)),
                "events/s",
                Better::Higher,
            )
        })
        .collect()
}

/// Writes one burst plus the closing `echo`; returns events per second.
fn burst(s: &mut Session, n: usize, seq: &mut u64, text: &str, buf: &mut Vec<u8>) -> Result<f64> {
    buf.clear();
    for _ in 0..n {
        *seq += 1;
        frames::event_tool_call(buf, *seq);
    }
    let id = s.next_id();
    frames::echo_call(buf, &id, text);
    let t = Instant::now();
    s.conn.send(buf)?;
    let (elapsed, is_error, _) = s.wait_result(&id, t)?;
    if is_error {
        return Err(Error::new("closing echo failed"));
    }
    Ok(n as f64 / elapsed.as_secs_f64())
}

/// Measures every burst size once, after a warm-up burst.
pub fn run(s: &mut Session, sizes: &Sizes) -> Result<Vec<Figure>> {
    let mut seq = 0;
    let mut buf = Vec::new();
    burst(s, WARMUP_BURST, &mut seq, &sizes.echo_text, &mut buf)?;
    sizes
        .event_bursts
        .iter()
        .map(|&n| {
            let rate = burst(s, n, &mut seq, &sizes.echo_text, &mut buf)?;
            Ok(Figure::new(metric_id(n), rate))
        })
        .collect()
}
