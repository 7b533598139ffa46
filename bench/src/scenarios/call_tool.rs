//! `call_tool` round trip: `tool_call` `compose` → the extension's
//! `call_tool` `echo` → the harness answers it as the host would → the
//! `compose` result. Only SDK targets have `compose`.

use std::time::Instant;

use super::{Better, Figure, Metric, ScenarioId};
use crate::config::Sizes;
use crate::error::{Error, Result};
use crate::frames;
use crate::session::Session;
use crate::stats::{median, sorted_micros};

/// `compose` calls before measuring.
const WARMUP: usize = 5;

/// The figures.
pub fn metrics() -> Vec<Metric> {
    vec![Metric::new(
        ScenarioId::CallTool,
        "call_tool.round_trip_us",
        "compose via call_tool, round trip (median)",
        "µs",
        Better::Lower,
    )]
}

/// One `compose` call, answering the nested `call_tool`.
fn compose(s: &mut Session, text: &str) -> Result<std::time::Duration> {
    let id = s.next_id();
    let mut frame = Vec::new();
    let args = serde_json::to_string(&serde_json::json!({ "text": text }))?;
    frames::tool_call(&mut frame, &id, "compose", &args);
    let t = Instant::now();
    s.conn.send(&frame)?;
    loop {
        let answer = {
            let r = s.conn.recv()?;
            match r.kind.as_ref() {
                "call_tool" => {
                    let call_id = r.id.as_deref().unwrap_or_default();
                    let name = r.name.as_deref().unwrap_or_default();
                    let args: serde_json::Value =
                        serde_json::from_str(r.args.map_or("{}", |a| a.get()))?;
                    let inner = args["text"].as_str().unwrap_or_default();
                    Some(frames::host_tool_result(call_id, name, inner))
                }
                "tool_result" if r.is_result_for(&id) => {
                    let took = t.elapsed();
                    let want = format!("composed:inner:{text}");
                    if r.is_error || r.first_text() != want {
                        return Err(Error::new(format!(
                            "compose: unexpected result `{}`",
                            r.first_text()
                        )));
                    }
                    return Ok(took);
                }
                _ => None,
            }
        };
        if let Some(frame) = answer {
            s.conn.send(&frame)?;
        }
    }
}

/// Measures `sizes.call_tool_reps` round trips after a short warm-up.
pub fn run(s: &mut Session, sizes: &Sizes) -> Result<Vec<Figure>> {
    for _ in 0..WARMUP {
        compose(s, "warm")?;
    }
    let mut samples = Vec::with_capacity(sizes.call_tool_reps);
    for _ in 0..sizes.call_tool_reps.max(1) {
        samples.push(compose(s, &sizes.echo_text)?);
    }
    let p50 = median(&sorted_micros(&samples)).ok_or_else(|| Error::new("no samples"))?;
    Ok(vec![Figure::new("call_tool.round_trip_us", p50)])
}
