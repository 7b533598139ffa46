//! Pipelined throughput: `echo` calls with a fixed number in flight. The
//! harness refills the window only when no whole reply is buffered, so the
//! refills go out in batches.

use std::time::Instant;

use super::{Better, Figure, Metric, ScenarioId};
use crate::config::Sizes;
use crate::error::{Error, Result};
use crate::frames;
use crate::session::Session;

/// The figures.
pub fn metrics(sizes: &Sizes) -> Vec<Metric> {
    vec![Metric::new(
        ScenarioId::Pipelined,
        "pipelined.calls_per_s",
        format!("pipelined echo, {} in flight", sizes.pipelined_depth),
        "calls/s",
        Better::Higher,
    )]
}

/// Measures `sizes.pipelined_calls` calls.
pub fn run(s: &mut Session, sizes: &Sizes) -> Result<Vec<Figure>> {
    let total = sizes.pipelined_calls;
    let depth = sizes.pipelined_depth.max(1);
    // All frames, back to back, with their start offsets.
    let mut buf = Vec::with_capacity(total * (sizes.echo_text.len() + 64));
    let mut offsets = Vec::with_capacity(total + 1);
    for _ in 0..total {
        offsets.push(buf.len());
        let id = s.next_id();
        frames::echo_call(&mut buf, &id, &sizes.echo_text);
    }
    offsets.push(buf.len());

    let (mut sent, mut done) = (0, 0);
    let t = Instant::now();
    while done < total {
        if sent < total && sent - done < depth && !s.conn.has_line() {
            let k = (depth - (sent - done)).min(total - sent);
            s.conn.send(&buf[offsets[sent]..offsets[sent + k]])?;
            sent += k;
        }
        if s.pipe {
            s.conn.recv_line()?;
            done += 1;
        } else {
            let r = s.conn.recv()?;
            if r.kind == "tool_result" {
                if r.is_error {
                    return Err(Error::new(format!("echo failed: {}", r.first_text())));
                }
                done += 1;
            }
        }
    }
    let elapsed = t.elapsed();
    Ok(vec![Figure::new(
        "pipelined.calls_per_s",
        total as f64 / elapsed.as_secs_f64(),
    )])
}
