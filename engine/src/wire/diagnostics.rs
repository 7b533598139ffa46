//! Diagnostics a peer can cause over and over, rate-limited: a host that
//! sends 72,000 malformed lines gets a few of them quoted on stderr and then
//! a count, not 72,000 lines.
//!
//! Each kind ([`Repeated`]) is shown verbatim [`RepeatLimit::verbatim`]
//! times per [`RepeatLimit::interval`], counted beyond that, and the count
//! is said in one line when the interval ends (a timer on the engine's
//! runtime, running only while a kind is being suppressed) and when the
//! session closes. Some kinds are said once per session. Memory is one
//! counter per kind, whatever the peer sends.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::runtime::Handle;

use crate::lock;

/// How often a repeated diagnostic is shown verbatim
/// ([`crate::EngineConfig::repeat_limit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RepeatLimit {
    /// Lines of one kind shown verbatim per interval (10 by default).
    pub verbatim: u32,
    /// The interval (10 s by default): what was suppressed in it is counted
    /// in one line at its end.
    pub interval: Duration,
}

impl Default for RepeatLimit {
    fn default() -> Self {
        Self {
            verbatim: 10,
            interval: Duration::from_secs(10),
        }
    }
}

/// The diagnostics a peer can repeat at will.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeated {
    /// A line that does not decode into a host frame (SDK-50).
    MalformedFrame,
    /// A line over the size limit (SDK-51).
    OversizeLine,
    /// A frame nested deeper than `MAX_FRAME_DEPTH`.
    TooDeep,
    /// A frame `type` this version does not know (SDK-50).
    UnknownFrame,
    /// An `event_intercept` of an unknown event without an id.
    InterceptWithoutId,
    /// A `hello_ack` after the first (SDK-5): said once per session.
    DuplicateHelloAck,
}

impl Repeated {
    const COUNT: usize = 6;

    const ALL: [Self; Self::COUNT] = [
        Self::MalformedFrame,
        Self::OversizeLine,
        Self::TooDeep,
        Self::UnknownFrame,
        Self::InterceptWithoutId,
        Self::DuplicateHelloAck,
    ];

    fn label(self) -> &'static str {
        match self {
            Self::MalformedFrame => "malformed host frame",
            Self::OversizeLine => "oversize host line",
            Self::TooDeep => "too deeply nested host frame",
            Self::UnknownFrame => "unknown host frame type",
            Self::InterceptWithoutId => "event_intercept without id",
            Self::DuplicateHelloAck => "duplicate hello_ack",
        }
    }

    /// Said once per session rather than per interval.
    fn once(self) -> bool {
        matches!(self, Self::DuplicateHelloAck)
    }
}

/// The state of one kind in the current interval.
#[derive(Default, Clone, Copy)]
struct Window {
    /// An interval is running (its end is scheduled, unless once-only).
    open: bool,
    shown: u32,
    suppressed: u64,
}

/// The rate limiter of one engine.
pub(crate) struct Diagnostics {
    name: String,
    limit: RepeatLimit,
    windows: Mutex<[Window; Repeated::COUNT]>,
}

impl Diagnostics {
    pub(crate) fn new(name: &str, limit: RepeatLimit) -> Arc<Self> {
        Arc::new(Self {
            name: name.to_owned(),
            limit,
            windows: Mutex::new([Window::default(); Repeated::COUNT]),
        })
    }

    /// Says `message()` unless this kind already said enough in the current
    /// interval; then counts it (the message is not even formatted).
    pub(crate) fn say(
        self: &Arc<Self>,
        rt: &Handle,
        kind: Repeated,
        message: impl FnOnce() -> String,
    ) {
        let verbatim = if kind.once() { 1 } else { self.limit.verbatim };
        let (show, schedule) = {
            let mut windows = lock(&self.windows);
            let w = &mut windows[kind as usize];
            let schedule = !w.open && !kind.once();
            w.open = true;
            if w.shown < verbatim {
                w.shown += 1;
                (true, schedule)
            } else {
                w.suppressed += 1;
                (false, schedule)
            }
        };
        if schedule {
            let this = Arc::clone(self);
            let after = self.limit.interval;
            rt.spawn(async move {
                tokio::time::sleep(after).await;
                this.end_interval(kind);
            });
        }
        if show {
            crate::runtime::log::diag(&self.name, &message());
        }
    }

    /// The interval of `kind` is over: the count of what it suppressed.
    fn end_interval(&self, kind: Repeated) {
        let suppressed = std::mem::take(&mut lock(&self.windows)[kind as usize]).suppressed;
        self.summary(kind, suppressed);
    }

    /// The session closes: the counts of every kind.
    pub(crate) fn flush(&self) {
        let windows = std::mem::take(&mut *lock(&self.windows));
        for kind in Repeated::ALL {
            self.summary(kind, windows[kind as usize].suppressed);
        }
    }

    fn summary(&self, kind: Repeated, suppressed: u64) {
        if suppressed == 0 {
            return;
        }
        let shown = if kind.once() {
            "only the first is shown".to_owned()
        } else {
            format!(
                "the first {} are shown every {:?}",
                self.limit.verbatim, self.limit.interval
            )
        };
        crate::runtime::log::diag(
            &self.name,
            &format!(
                "suppressed {} more {:?} diagnostics ({shown})",
                grouped(suppressed),
                kind.label()
            ),
        );
    }
}

/// `71990` as `71,990`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(71_990), "71,990");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }
}
