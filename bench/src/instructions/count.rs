//! From two runs' totals to instructions per frame, and the ratios.

use serde::Serialize;

use crate::error::Result;

/// One run: frames fed after the warm-up, instructions the whole process
/// tree executed from start to exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Run {
    /// Frames of the workload.
    pub frames: u64,
    /// Instructions counted (`Ir`).
    pub instructions: u64,
}

/// Instructions per frame from a short and a long run of the same
/// workload: `(I(N2) − I(N1)) / (N2 − N1)`. Start-up, handshake, warm-up,
/// a JIT's compiling during the first N1 frames and the shutdown are in
/// both runs and cancel out.
pub fn per_frame(short: Run, long: Run) -> Result<f64> {
    if long.frames <= short.frames {
        bail!(
            "the long run ({} frames) must have more frames than the short one ({})",
            long.frames,
            short.frames
        );
    }
    if long.instructions < short.instructions {
        bail!(
            "the run of {} frames counted fewer instructions ({}) than the run of {} ({})",
            long.frames,
            long.instructions,
            short.frames,
            short.instructions
        );
    }
    Ok((long.instructions - short.instructions) as f64 / (long.frames - short.frames) as f64)
}

/// How much cheaper the target is than its baseline: baseline ÷ target
/// per frame, so that ≥ 1 means the target needs no more instructions (the
/// same direction as the throughput ratios). `None` when either is zero.
pub fn ratio(baseline: f64, target: f64) -> Option<f64> {
    (baseline > 0.0 && target > 0.0).then(|| baseline / target)
}

/// `56234.5` → `56.2k`, `1.2e6` → `1.20M`, `950` → `950`.
pub fn short(n: f64) -> String {
    if n >= 1e6 {
        format!("{:.2}M", n / 1e6)
    } else if n >= 1e4 {
        format!("{:.1}k", n / 1e3)
    } else if n >= 1e3 {
        format!("{:.2}k", n / 1e3)
    } else {
        format!("{n:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(frames: u64, instructions: u64) -> Run {
        Run {
            frames,
            instructions,
        }
    }

    #[test]
    fn start_up_cancels_out() {
        // 300M of start-up and shutdown, 50k per frame.
        let short = run(10_000, 300_000_000 + 10_000 * 50_000);
        let long = run(30_000, 300_000_000 + 30_000 * 50_000);
        assert_eq!(per_frame(short, long).unwrap(), 50_000.0);
        assert_eq!(per_frame(run(0, 7), run(4, 17)).unwrap(), 2.5);
    }

    #[test]
    fn refuses_runs_that_cannot_be_subtracted() {
        assert!(per_frame(run(10, 5), run(10, 9))
            .unwrap_err()
            .to_string()
            .contains("more frames"));
        assert!(per_frame(run(10, 9), run(20, 5))
            .unwrap_err()
            .to_string()
            .contains("fewer instructions"));
    }

    #[test]
    fn ratio_is_baseline_over_target() {
        assert_eq!(ratio(28_300.0, 56_600.0), Some(0.5));
        assert_eq!(ratio(10.0, 5.0), Some(2.0));
        assert_eq!(ratio(0.0, 5.0), None);
        assert_eq!(ratio(5.0, 0.0), None);
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short(56_234.5), "56.2k");
        assert_eq!(short(4_321.0), "4.32k");
        assert_eq!(short(950.4), "950");
        assert_eq!(short(1_200_000.0), "1.20M");
    }
}
