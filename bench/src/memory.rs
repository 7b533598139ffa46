//! Resident memory of a target, from `/proc/<pid>/status`.

use crate::error::{Error, Result};

/// Memory figures of one process, in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemStatus {
    /// `VmRSS`: resident now.
    pub rss_kib: u64,
    /// `VmHWM`: the peak resident size so far.
    pub hwm_kib: u64,
}

impl MemStatus {
    /// Reads the status of process `pid`.
    pub fn of(pid: u32) -> Result<Self> {
        let path = format!("/proc/{pid}/status");
        let text =
            std::fs::read_to_string(&path).map_err(|e| Error::new(format!("{path}: {e}")))?;
        Self::parse(&text).ok_or_else(|| Error::new(format!("{path}: no VmRSS/VmHWM")))
    }

    /// Parses the text of a status file.
    pub fn parse(text: &str) -> Option<Self> {
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse::<u64>().ok())
        };
        Some(MemStatus {
            rss_kib: field("VmRSS:")?,
            hwm_kib: field("VmHWM:")?,
        })
    }
}

/// KiB → MiB.
pub fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_status() {
        let s = "Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n";
        let m = MemStatus::parse(s).unwrap();
        assert_eq!((m.rss_kib, m.hwm_kib), (1024, 2048));
        assert!(MemStatus::of(std::process::id()).unwrap().rss_kib > 0);
    }
}
