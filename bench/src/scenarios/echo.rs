//! Sequential `echo` round trips: one call in flight, latency percentiles.

use super::{Better, Figure, Metric, ScenarioId};
use crate::config::Sizes;
use crate::error::{Error, Result};
use crate::session::Session;
use crate::stats::{percentile, sorted_micros};

/// The figures.
pub fn metrics() -> Vec<Metric> {
    let m = |id, label| Metric::new(ScenarioId::Echo, id, label, "µs", Better::Lower);
    vec![
        m("echo.p50_us", "echo round trip p50"),
        m("echo.p90_us", "echo round trip p90"),
        m("echo.p99_us", "echo round trip p99"),
    ]
}

/// Measures `sizes.echo_calls` round trips.
pub fn run(s: &mut Session, sizes: &Sizes) -> Result<Vec<Figure>> {
    let mut samples = Vec::with_capacity(sizes.echo_calls);
    for _ in 0..sizes.echo_calls {
        samples.push(s.echo(&sizes.echo_text)?);
    }
    let sorted = sorted_micros(&samples);
    let p = |q| percentile(&sorted, q).ok_or_else(|| Error::new("no echo samples"));
    Ok(vec![
        Figure::new("echo.p50_us", p(50.0)?),
        Figure::new("echo.p90_us", p(90.0)?),
        Figure::new("echo.p99_us", p(99.0)?),
    ])
}
