//! CPU placement: which core the harness and the extension run on
//! (`sched_setaffinity`).
//!
//! Two placements are measured. `split` pins the harness and the extension
//! to two different cores, so each side has a core of its own but every
//! message wakes a process on the other core. `shared` pins both to one core:
//! no cross-core wake-up, and the figures show the total CPU cost of a
//! message on both sides.

use std::io;

use serde::Serialize;

/// Where the harness and the extension run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Harness and extension on different cores.
    Split,
    /// Harness and extension on the same core.
    Shared,
}

impl Placement {
    /// Both placements, in report order.
    pub const ALL: [Placement; 2] = [Placement::Split, Placement::Shared];

    /// The name used on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Placement::Split => "split",
            Placement::Shared => "shared",
        }
    }

    /// Parses [`Placement::name`].
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == s)
    }

    /// One line for the report.
    pub fn describe(self) -> &'static str {
        match self {
            Placement::Split => "harness and extension pinned to different cores",
            Placement::Shared => "harness and extension pinned to one core (CPU-cost view)",
        }
    }
}

/// The cores chosen for the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CpuPlan {
    /// Every core this process may run on, at start.
    pub allowed: Vec<usize>,
    /// The harness's core (both placements).
    pub harness: usize,
    /// The extension's core in the `split` placement (`None` with one core).
    pub other: Option<usize>,
}

impl CpuPlan {
    /// Chooses the cores from the affinity mask the harness started with.
    pub fn detect() -> io::Result<Self> {
        let allowed = allowed_cpus()?;
        let Some(&harness) = allowed.first() else {
            return Err(io::Error::other("empty CPU affinity mask"));
        };
        Ok(CpuPlan {
            other: allowed.get(1).copied(),
            harness,
            allowed,
        })
    }

    /// `(harness core, extension core)` for a placement; `None` when the
    /// placement is impossible (split with a single core).
    pub fn cores(&self, p: Placement) -> Option<(usize, usize)> {
        match p {
            Placement::Split => self.other.map(|o| (self.harness, o)),
            Placement::Shared => Some((self.harness, self.harness)),
        }
    }
}

/// The cores the calling thread may run on.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    // SAFETY: `set` is a plain bit set owned by this frame; the kernel
    // writes at most `size_of::<cpu_set_t>()` bytes into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect())
    }
}

/// Pins the calling thread to `cpus`. Threads and processes it creates
/// afterwards inherit the mask.
pub fn pin_current_thread(cpus: &[usize]) -> io::Result<()> {
    // SAFETY: as in `allowed_cpus`; `CPU_SET` only touches bits inside `set`
    // for indices below `CPU_SETSIZE`, which is checked.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            if c >= libc::CPU_SETSIZE as usize {
                return Err(io::Error::other(format!("cpu {c} out of range")));
            }
            libc::CPU_SET(c, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}
