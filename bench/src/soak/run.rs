//! One soak run: `zot-host run --json --wire <fifo>` with one extension,
//! its transcript read line by line (each tool result checked against its
//! call), its wire log counted in a thread, and the RSS of host and
//! extension sampled from `/proc` in another, every `sample_ms` and at the
//! milestones the targets refer to.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::plan::{expected_text, EVENTS_PROMPT};
use super::wire::{self, WireCounts};
use crate::error::{Error, Result};
use crate::memory::MemStatus;

/// Phases, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Spawn, handshake, readiness.
    Start,
    /// The tool calls (or the flood).
    Calls,
    /// The text-only prompts.
    Events,
    /// The `/note` commands.
    Notes,
    /// Shutdown.
    End,
}

impl Phase {
    fn from_u8(n: u8) -> Self {
        match n {
            0 => Phase::Start,
            1 => Phase::Calls,
            2 => Phase::Events,
            3 => Phase::Notes,
            _ => Phase::End,
        }
    }
}

/// One RSS sample.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sample {
    /// Seconds since the host was spawned.
    pub t_s: f64,
    /// Phase at the time.
    pub phase: Phase,
    /// Tool calls completed so far.
    pub calls: u64,
    /// Host `VmRSS`, KiB.
    pub host_kib: Option<u64>,
    /// Extension `VmRSS`, KiB.
    pub ext_kib: Option<u64>,
}

/// What the transcript showed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TranscriptCounts {
    /// Tool results (model calls and nested ones) that completed with the
    /// expected text.
    pub completed: u64,
    /// Tool results that did not (status, error or text), the first few.
    pub failed: u64,
    /// The first failures, as the transcript printed them.
    pub failures: Vec<String>,
    /// Prompts.
    pub prompts: u64,
    /// Notes printed.
    pub notes: u64,
    /// Notes the host reported as pushed out of its notes area.
    pub notes_dropped: u64,
    /// Host problems it reported (`disconnected`, `load_error`,
    /// `expect_failed`, `warning`, `diagnostic`).
    pub problems: Vec<String>,
}

/// The milestones the targets are checked at (KiB).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Milestones {
    /// Host RSS once every extension was ready.
    pub host_ready: Option<u64>,
    /// Host RSS after the first `baseline_calls` tool calls.
    pub host_baseline: Option<u64>,
    /// Extension RSS after `warmup_calls` tool calls.
    pub ext_warm: Option<u64>,
    /// Host RSS at the end of the last phase (before shutdown).
    pub host_end: Option<u64>,
    /// Extension RSS then.
    pub ext_end: Option<u64>,
    /// Largest extension RSS after the warm-up.
    pub ext_max_after_warmup: Option<u64>,
    /// Seconds the host was stopped (SIGSTOP) in mid-session, if it was.
    pub host_paused_s: Option<f64>,
    /// Largest host RSS sampled.
    pub host_peak: Option<u64>,
}

/// The result of one run.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Wall time, s.
    pub duration_s: f64,
    /// Host exit status.
    pub exit: Option<i32>,
    /// Transcript counts.
    pub transcript: TranscriptCounts,
    /// Wire counts.
    pub wire: WireCounts,
    /// Milestones.
    pub milestones: Milestones,
    /// Every sample.
    pub samples: Vec<Sample>,
    /// Why the run failed, if it did.
    pub error: Option<String>,
}

/// How to run the host once.
pub struct HostRun<'a> {
    /// `zot-host`.
    pub host: &'a Path,
    /// The extension directory.
    pub ext: &'a Path,
    /// The script file.
    pub script: &'a Path,
    /// Scratch directory (home, cwd, FIFO, stderr log).
    pub dir: &'a Path,
    /// Reference points.
    pub baseline_calls: u64,
    /// Extension warm-up.
    pub warmup_calls: u64,
    /// Sampling period.
    pub sample: Duration,
    /// Deadline of the whole run.
    pub timeout: Duration,
    /// Notes the last phase ends with (the end milestone is taken at the
    /// last one); 0: at the last tool result.
    pub final_notes: u64,
    /// Tool calls (model and nested) the run makes.
    pub total_calls: u64,
    /// Print progress to stderr.
    pub progress: Option<String>,
    /// How long the host is stopped once the notes phase began.
    pub pause: Duration,
}

/// State shared with the sampler thread.
struct Shared {
    t0: Instant,
    host_pid: u32,
    ext_pid: AtomicU64,
    phase: AtomicU8,
    calls: AtomicU64,
    stop: AtomicBool,
    samples: Mutex<Vec<Sample>>,
}

impl Shared {
    fn ext_pid(&self) -> Option<u32> {
        match self.ext_pid.load(Ordering::SeqCst) {
            0 => {
                let pid = children(self.host_pid).into_iter().next()?;
                self.ext_pid.store(u64::from(pid), Ordering::SeqCst);
                Some(pid)
            }
            p => Some(p as u32),
        }
    }

    fn sample(&self) -> Sample {
        let rss = |pid: Option<u32>| pid.and_then(|p| MemStatus::of(p).ok()).map(|m| m.rss_kib);
        let s = Sample {
            t_s: self.t0.elapsed().as_secs_f64(),
            phase: Phase::from_u8(self.phase.load(Ordering::SeqCst)),
            calls: self.calls.load(Ordering::SeqCst),
            host_kib: rss(Some(self.host_pid)),
            ext_kib: rss(self.ext_pid()),
        };
        self.samples
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(s);
        s
    }
}

/// The child processes of `pid` (any of its threads may have spawned them).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .filter_map(|t| t.ok())
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|s| {
            s.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

fn mkfifo(path: &Path) -> Result<()> {
    let _ = std::fs::remove_file(path);
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    // SAFETY: a valid NUL-terminated path; mkfifo(3) only creates the node.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(Error::new(format!(
            "mkfifo {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

impl HostRun<'_> {
    /// Runs the host to its end (or the deadline).
    pub fn run(&self) -> Result<RunReport> {
        for sub in ["home", "cwd"] {
            std::fs::create_dir_all(self.dir.join(sub))?;
        }
        let fifo = self.dir.join("wire.fifo");
        mkfifo(&fifo)?;
        let stderr = std::fs::File::create(self.dir.join("zot-host.stderr.log"))?;
        let mut child = Command::new(self.host)
            .arg("run")
            .arg("--script")
            .arg(self.script)
            .args(["--json", "--no-ext", "--wire"])
            .arg(&fifo)
            .arg("--zot-home")
            .arg(self.dir.join("home"))
            .arg("--cwd")
            .arg(self.dir.join("cwd"))
            .arg("-e")
            .arg(self.ext)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(|e| Error::new(format!("{}: {e}", self.host.display())))?;
        let shared = Arc::new(Shared {
            t0: Instant::now(),
            host_pid: child.id(),
            ext_pid: AtomicU64::new(0),
            phase: AtomicU8::new(Phase::Start as u8),
            calls: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            samples: Mutex::default(),
        });
        let wire_path = fifo.clone();
        let wire = std::thread::spawn(move || wire::count(&wire_path));
        let sampler = {
            let shared = shared.clone();
            let every = self.sample;
            std::thread::spawn(move || {
                while !shared.stop.load(Ordering::SeqCst) {
                    shared.sample();
                    std::thread::sleep(every);
                }
            })
        };
        let watchdog = Watchdog::arm(child.id(), self.timeout);
        let pauser = (!self.pause.is_zero()).then(|| {
            let (shared, pause) = (shared.clone(), self.pause);
            std::thread::spawn(move || pause_host(&shared, pause))
        });
        let mut m = Milestones::default();
        let read = self.read_transcript(&mut child, &shared, &mut m);
        let status = child.wait().ok();
        let timed_out = watchdog.disarm();
        shared.stop.store(true, Ordering::SeqCst);
        let _ = sampler.join();
        m.host_paused_s = pauser.and_then(|p| p.join().ok()).flatten();
        // A host that never opened the FIFO leaves the reader blocked in
        // open(2): opening the other end releases it.
        let _ = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo)
        };
        let wire = wire
            .join()
            .map_err(|_| Error::new("wire reader panicked"))?
            .unwrap_or_default();
        let _ = std::fs::remove_file(&fifo);
        let samples =
            std::mem::take(&mut *shared.samples.lock().unwrap_or_else(|e| e.into_inner()));
        m.host_peak = samples.iter().filter_map(|s| s.host_kib).max();
        m.ext_max_after_warmup = samples
            .iter()
            .filter(|s| s.calls >= self.warmup_calls && s.phase < Phase::End)
            .filter_map(|s| s.ext_kib)
            .chain(m.ext_end)
            .max();
        let (transcript, read_error) = match read {
            Ok(t) => (t, None),
            Err(e) => (TranscriptCounts::default(), Some(e.to_string())),
        };
        let exit = status.and_then(|s| s.code());
        let error = if timed_out {
            Some(format!("killed after {:?}", self.timeout))
        } else if let Some(e) = read_error {
            Some(e)
        } else if exit != Some(0) {
            Some(format!(
                "zot-host exited with {exit:?} (see {})",
                self.dir.join("zot-host.stderr.log").display()
            ))
        } else {
            None
        };
        Ok(RunReport {
            duration_s: shared.t0.elapsed().as_secs_f64(),
            exit,
            transcript,
            wire,
            milestones: m,
            samples,
            error,
        })
    }

    fn read_transcript(
        &self,
        child: &mut Child,
        shared: &Shared,
        m: &mut Milestones,
    ) -> Result<TranscriptCounts> {
        let stdout = child.stdout.take().ok_or_else(|| Error::new("no stdout"))?;
        let mut c = TranscriptCounts::default();
        // Expected result texts of calls still running, by transcript tool id.
        let mut running: std::collections::HashMap<String, String> = Default::default();
        let mut last_report = Instant::now();
        let set_phase = |p: Phase| shared.phase.store(p as u8, Ordering::SeqCst);
        for line in BufReader::with_capacity(1 << 16, stdout).lines() {
            let line = line?;
            let v: Value = serde_json::from_str(&line)?;
            match v["kind"].as_str().unwrap_or_default() {
                "tools" => {
                    m.host_ready = shared.sample().host_kib;
                    set_phase(Phase::Calls);
                }
                "user" => {
                    c.prompts += 1;
                    if v["text"] == EVENTS_PROMPT
                        && shared.phase.load(Ordering::SeqCst) < Phase::Events as u8
                    {
                        set_phase(Phase::Events);
                    }
                }
                "command" if shared.phase.load(Ordering::SeqCst) < Phase::Notes as u8 => {
                    set_phase(Phase::Notes)
                }
                "tool_call" => {
                    if let Some(want) =
                        expected_text(v["name"].as_str().unwrap_or_default(), &v["args"])
                    {
                        running.insert(v["tool_id"].as_str().unwrap_or_default().to_owned(), want);
                    }
                }
                "tool_result" => {
                    let id = v["tool_id"].as_str().unwrap_or_default();
                    let want = running.remove(id);
                    let ok = v["status"] == "completed"
                        && v["is_error"] == false
                        && want.as_deref().is_none_or(|w| v["text"] == w);
                    if ok {
                        c.completed += 1;
                    } else {
                        c.failed += 1;
                        if c.failures.len() < 10 {
                            c.failures.push(line.clone());
                        }
                    }
                    let done = shared.calls.fetch_add(1, Ordering::SeqCst) + 1;
                    if done == self.baseline_calls {
                        m.host_baseline = shared.sample().host_kib;
                    }
                    if done == self.warmup_calls {
                        m.ext_warm = shared.sample().ext_kib;
                    }
                    if self.final_notes == 0 && done == self.total_calls {
                        let s = shared.sample();
                        (m.host_end, m.ext_end) = (s.host_kib, s.ext_kib);
                    }
                }
                "note" => {
                    c.notes += 1;
                    if self.final_notes > 0 && c.notes == self.final_notes {
                        let s = shared.sample();
                        (m.host_end, m.ext_end) = (s.host_kib, s.ext_kib);
                    }
                }
                "notes_dropped" => c.notes_dropped += v["count"].as_u64().unwrap_or_default(),
                "exited" => set_phase(Phase::End),
                "disconnected" | "load_error" | "expect_failed" | "warning" | "diagnostic"
                    if c.problems.len() < 10 =>
                {
                    c.problems.push(line.clone());
                }
                _ => {}
            }
            if let Some(name) = &self.progress {
                if last_report.elapsed() >= Duration::from_secs(30) {
                    last_report = Instant::now();
                    let s = shared
                        .samples
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .last()
                        .copied();
                    eprintln!(
                        "zot-bench soak: {name}: {:.0} s, {:?}, {} calls, {} notes, host {} MiB, extension {} MiB",
                        shared.t0.elapsed().as_secs_f64(),
                        Phase::from_u8(shared.phase.load(Ordering::SeqCst)),
                        shared.calls.load(Ordering::SeqCst),
                        c.notes,
                        s.and_then(|s| s.host_kib).map_or(0, |k| k / 1024),
                        s.and_then(|s| s.ext_kib).map_or(0, |k| k / 1024),
                    );
                }
            }
        }
        Ok(c)
    }
}

/// Stops the host (SIGSTOP, what Ctrl-Z in its terminal does) for `pause`
/// once the notes phase began, then lets it go on; returns how long it was
/// stopped. Its extension keeps running meanwhile (its own process group)
/// and must lose nothing; the host's deadlines count only the time it runs
/// (a reply that arrived while it was stopped is read, not timed out). The
/// notes phase, because its requests are all of one kind (commands).
fn pause_host(shared: &Shared, pause: Duration) -> Option<f64> {
    // Polled: the transcript reader sets the phase as it streams.
    while shared.phase.load(Ordering::SeqCst) < Phase::Notes as u8 {
        if shared.stop.load(Ordering::SeqCst) {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = shared.host_pid as i32;
    let t = Instant::now();
    // SAFETY: kill(2) on the host's pid.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    std::thread::sleep(pause);
    // SAFETY: as above.
    unsafe { libc::kill(pid, libc::SIGCONT) };
    Some(t.elapsed().as_secs_f64())
}

/// Kills the host when the deadline passes.
struct Watchdog {
    done: Arc<(Mutex<bool>, std::sync::Condvar)>,
    fired: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn arm(pid: u32, after: Duration) -> Self {
        let done: Arc<(Mutex<bool>, std::sync::Condvar)> = Arc::default();
        let fired = Arc::new(AtomicBool::new(false));
        let thread = {
            let (done, fired) = (done.clone(), fired.clone());
            std::thread::spawn(move || {
                let (lock, cv) = &*done;
                let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
                let (guard, _) = cv
                    .wait_timeout_while(guard, after, |d| !*d)
                    .unwrap_or_else(|e| e.into_inner());
                if !*guard {
                    fired.store(true, Ordering::SeqCst);
                    // SAFETY: kill(2) on the host's pid; it then closes
                    // its extensions' pipes and they end.
                    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
                }
            })
        };
        Watchdog {
            done,
            fired,
            thread: Some(thread),
        }
    }

    /// Stops it; whether it had fired.
    fn disarm(mut self) -> bool {
        {
            let (lock, cv) = &*self.done;
            *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
            cv.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.fired.load(Ordering::SeqCst)
    }
}

/// Where a run keeps its files.
pub fn run_dir(target_dir: &Path, name: &str) -> PathBuf {
    target_dir.join("zot-bench").join("soak").join(name)
}
