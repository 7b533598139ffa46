//! Start-up: spawn → `hello`, → `ready`, → the first tool result (an `echo`
//! sent right after `ready`), and the memory right after that.

use super::{Better, Figure, Metric, ScenarioId};
use crate::config::Sizes;
use crate::error::{Error, Result};
use crate::memory::{mib, MemStatus};
use crate::session::Session;

/// The figures.
pub fn metrics() -> Vec<Metric> {
    let m = |id, label, unit, better| Metric::new(ScenarioId::Startup, id, label, unit, better);
    vec![
        m("startup.hello_ms", "spawn → hello", "ms", Better::Lower),
        m("startup.ready_ms", "spawn → ready", "ms", Better::Lower),
        m(
            "startup.first_result_ms",
            "spawn → first tool result",
            "ms",
            Better::Lower,
        ),
        m(
            "startup.rss_mib",
            "RSS after start-up",
            "MiB",
            Better::Lower,
        ),
        m(
            "startup.hwm_mib",
            "peak RSS during start-up",
            "MiB",
            Better::Lower,
        ),
    ]
}

/// Measures a session that was just started (no warm-up).
pub fn run(s: &mut Session, sizes: &Sizes) -> Result<Vec<Figure>> {
    let times = s
        .times
        .ok_or_else(|| Error::new("start-up needs an extension"))?;
    s.echo(&sizes.echo_text)?;
    let first = s.spawned.elapsed();
    let mem = MemStatus::of(s.conn.pid())?;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    Ok(vec![
        Figure::new("startup.hello_ms", ms(times.hello)),
        Figure::new("startup.ready_ms", ms(times.ready)),
        Figure::new("startup.first_result_ms", ms(first)),
        Figure::new("startup.rss_mib", mib(mem.rss_kib)),
        Figure::new("startup.hwm_mib", mib(mem.hwm_kib)),
    ])
}
