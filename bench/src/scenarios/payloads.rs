//! Large payloads (1 MiB): an `echo` of a 1 MiB text, `big` sending 1 MiB
//! out, and a 1 MiB `tool_result` event in (closed by a small `echo`), in
//! MB/s of payload; then the peak RSS (`VmHWM`) of the process.

use std::time::{Duration, Instant};

use super::{Better, Figure, Metric, ScenarioId};
use crate::config::Sizes;
use crate::error::{Error, Result};
use crate::frames;
use crate::memory::{mib, MemStatus};
use crate::session::Session;
use crate::stats::mb_per_s;

/// The figures.
pub fn metrics(sizes: &Sizes) -> Vec<Metric> {
    let size = size_label(sizes.payload_bytes);
    let m = |id: &str, label: String, unit, better| {
        Metric::new(ScenarioId::Payloads, id, label, unit, better)
    };
    vec![
        m(
            "payload.echo_mb_s",
            format!("{size} echo"),
            "MB/s",
            Better::Higher,
        ),
        m(
            "payload.big_mb_s",
            format!("{size} out (`big`)"),
            "MB/s",
            Better::Higher,
        ),
        m(
            "payload.event_in_mb_s",
            format!("{size} tool_result event in"),
            "MB/s",
            Better::Higher,
        ),
        m(
            "payload.peak_rss_mib",
            format!("peak RSS after {size} payloads"),
            "MiB",
            Better::Lower,
        ),
    ]
}

fn size_label(bytes: usize) -> String {
    if bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} B")
    }
}

/// Measures `sizes.payload_reps` of each kind (the extension's applicable
/// ones; the pipe only echoes).
pub fn run(s: &mut Session, sizes: &Sizes) -> Result<Vec<Figure>> {
    let n = sizes.payload_bytes;
    let reps = sizes.payload_reps.max(1);
    let text = "x".repeat(n);
    let mut figures = Vec::new();

    // Echo: the request carries the text in, the result carries it out.
    let mut total = Duration::ZERO;
    for _ in 0..reps {
        let id = s.next_id();
        let mut frame = Vec::with_capacity(n + 128);
        frames::echo_call(&mut frame, &id, &text);
        total += s.round_trip(&frame, &id, &text)?;
    }
    figures.push(Figure::new("payload.echo_mb_s", mb_per_s(n * reps, total)));

    if !s.pipe && s.info.has_tool("big") {
        let mut total = Duration::ZERO;
        let args = format!("{{\"bytes\":{n}}}");
        for _ in 0..reps {
            let id = s.next_id();
            let mut frame = Vec::new();
            frames::tool_call(&mut frame, &id, "big", &args);
            let t = Instant::now();
            s.conn.send(&frame)?;
            let (took, is_error, len) = s.wait_result(&id, t)?;
            if is_error || len != n {
                return Err(Error::new(format!("big: is_error {is_error}, {len} bytes")));
            }
            total += took;
        }
        figures.push(Figure::new("payload.big_mb_s", mb_per_s(n * reps, total)));
    }

    if !s.pipe && s.info.subscribes("tool_result") {
        let mut total = Duration::ZERO;
        for rep in 0..reps {
            let mut frame = Vec::with_capacity(n + 512);
            frames::event_tool_result(&mut frame, rep as u64 + 1, &text);
            let id = s.next_id();
            frames::echo_call(&mut frame, &id, &sizes.echo_text);
            let t = Instant::now();
            s.conn.send(&frame)?;
            let (took, is_error, _) = s.wait_result(&id, t)?;
            if is_error {
                return Err(Error::new("closing echo failed"));
            }
            total += took;
        }
        figures.push(Figure::new(
            "payload.event_in_mb_s",
            mb_per_s(n * reps, total),
        ));
    }

    let mem = MemStatus::of(s.conn.pid())?;
    figures.push(Figure::new("payload.peak_rss_mib", mib(mem.hwm_kib)));
    Ok(figures)
}
