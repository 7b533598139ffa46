//! Test harness: temporary project / ZOT_HOME, fixture extensions written as
//! raw-frame specs for `fixtures/ext.py`, and fast deadlines.
#![allow(dead_code)]

pub mod cli;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};
use zot_host::session::script::Script;
use zot_host::transcript::Transcript;
use zot_host::wire::WireLog;
use zot_host::{run_script, RunOptions, RunOutcome, Timeouts};

pub struct Env {
    pub tmp: tempfile::TempDir,
    pub cwd: PathBuf,
    pub zot_home: PathBuf,
    pub timeouts: Timeouts,
    pub queue: Option<zot_host::QueueLimits>,
    /// A live model for the runs (`--model-url`); `None`: the scripted one.
    pub model: Option<std::sync::Arc<zot_host::model::LiveModel>>,
}

pub struct Run {
    pub obs: Vec<Value>,
    pub wire: Vec<Value>,
    pub failures: usize,
}

pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ext.py")
}

impl Env {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("project");
        let zot_home = tmp.path().join("home");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(&zot_home).unwrap();
        // The spec's deadlines: tests whose point is a deadline firing set a
        // short one in their script (`timeouts`), so that the others never
        // depend on how fast a loaded machine is.
        let timeouts = Timeouts::default();
        Self {
            cwd: cwd.canonicalize().unwrap(),
            zot_home,
            tmp,
            timeouts,
            queue: None,
            model: None,
        }
    }

    /// Writes an extension directory under `root` with a fixture spec.
    pub fn ext_in(&self, root: &Path, dir: &str, name: &str, spec: Value) -> PathBuf {
        let d = root.join(dir);
        std::fs::create_dir_all(&d).unwrap();
        let mut spec = spec;
        spec["name"] = json!(name);
        std::fs::write(d.join("spec.json"), spec.to_string()).unwrap();
        let manifest = json!({
            "name": name,
            "version": "1.0.0",
            "exec": "python3",
            "args": [fixture().display().to_string(), "spec.json"],
            "language": "python",
        });
        std::fs::write(d.join("extension.json"), manifest.to_string()).unwrap();
        d
    }

    /// An explicit (`--ext`) extension.
    pub fn ext(&self, name: &str, spec: Value) -> PathBuf {
        self.ext_in(&self.tmp.path().join("exts"), name, name, spec)
    }

    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.zot_home.join("logs").join(format!("ext-{name}.log")))
            .unwrap_or_default()
    }

    pub async fn run(&self, exts: &[PathBuf], script: Value) -> Run {
        let (wire, mem) = WireLog::memory();
        let out = self
            .run_with(exts, script, Transcript::new(), Some(wire))
            .await;
        Run {
            obs: out
                .observations
                .iter()
                .map(|o| serde_json::to_value(o).unwrap())
                .collect(),
            wire: mem.lines(),
            failures: out.failures,
        }
    }
}

impl Env {
    /// Runs a script with this transcript and wire log (`None`: no log).
    pub async fn run_with(
        &self,
        exts: &[PathBuf],
        script: Value,
        transcript: Transcript,
        wire: Option<WireLog>,
    ) -> RunOutcome {
        let script = Script::parse(&script.to_string(), "test").expect("script parses");
        let mut opts = RunOptions::new(self.cwd.clone(), self.zot_home.clone());
        opts.explicit = exts.to_vec();
        opts.wire = wire;
        opts.transcript = transcript;
        opts.timeouts = self.timeouts.clone();
        if let Some(q) = self.queue {
            opts.queue = q;
        }
        opts.model = self.model.clone();
        tokio::time::timeout(Duration::from_secs(60), run_script(&script, opts))
            .await
            .expect("run finishes")
    }
}

/// Registration helpers for specs.
/// Asserts that the process whose id the fixture wrote to `pidfile` no
/// longer exists: killed and reaped (a zombie would still answer).
pub fn assert_gone(pidfile: &Path) {
    let pid: i32 = std::fs::read_to_string(pidfile)
        .unwrap_or_else(|e| panic!("{}: {e}", pidfile.display()))
        .trim()
        .parse()
        .unwrap();
    // SAFETY: signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    assert!(!alive, "process {pid} still exists (not killed and reaped)");
}

/// The process id a fixture wrote to `pidfile`.
pub fn read_pid(pidfile: &Path) -> i32 {
    std::fs::read_to_string(pidfile)
        .unwrap_or_else(|e| panic!("{}: {e}", pidfile.display()))
        .trim()
        .parse()
        .unwrap()
}

/// Whether process `pid` lives. A zombie does not: it is dead and only waits
/// for its parent (for a grandchild, not the host) to reap it.
pub fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    stat_fields(pid).is_none_or(|(state, _)| !matches!(state, 'Z' | 'X'))
}

/// Living processes whose process group is `pgid` (Linux: from /proc).
pub fn group_members(pgid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| stat_fields(pid).is_some_and(|(s, g)| g == pgid && !matches!(s, 'Z' | 'X')))
        .collect()
}

/// State letter and process group from /proc/<pid>/stat.
fn stat_fields(pid: i32) -> Option<(char, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut rest = text[text.rfind(')')? + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    let _ppid = rest.next()?;
    Some((state, rest.next()?.parse().ok()?))
}

pub fn cmd(name: &str) -> Value {
    json!({"send": {"type": "register_command", "name": name}})
}

pub fn tool(name: &str) -> Value {
    json!({"send": {"type": "register_tool", "name": name, "schema": {"type": "object"}}})
}

pub fn ready() -> Value {
    json!({"send": {"type": "ready"}})
}

pub fn display(text: &str) -> Value {
    json!([{"send": {"type": "command_response", "id": "$in.id", "action": "display", "display": text}}])
}

pub fn text_result(text: &str) -> Value {
    json!([{"send": {"type": "tool_result", "id": "$in.id", "content": [{"type": "text", "text": text}]}}])
}

impl Run {
    /// Asserts that this replay of `script` saw what the live session
    /// did (`observed`), but for the processes' exits, which the live
    /// session had not reached yet.
    pub fn assert_replays(self, observed: &[zot_host::transcript::Observation], script: &Value) {
        assert_eq!(self.failures, 0, "{}", self.text());
        let replayed: Vec<Value> = self
            .obs
            .into_iter()
            .filter(|o| o["kind"] != "exited")
            .collect();
        let observed: Vec<Value> = observed
            .iter()
            .map(|o| serde_json::to_value(o).unwrap())
            .collect();
        assert_eq!(replayed, observed, "script: {script:#}");
    }

    pub fn kinds(&self, kind: &str) -> Vec<&Value> {
        self.obs.iter().filter(|o| o["kind"] == kind).collect()
    }

    /// One string field of every observation of a kind, in order.
    pub fn strs(&self, kind: &str, field: &str) -> Vec<&str> {
        self.kinds(kind)
            .into_iter()
            .map(|o| {
                o[field]
                    .as_str()
                    .unwrap_or_else(|| panic!("{kind} without a string {field:?}: {o}"))
            })
            .collect()
    }

    /// Frames in one direction for one extension.
    pub fn frames(&self, ext: &str, dir: &str) -> Vec<&Value> {
        self.wire
            .iter()
            .filter(|r| r["ext"] == ext && r["dir"] == dir)
            .map(|r| &r["frame"])
            .collect()
    }

    pub fn sent(&self, ext: &str, ty: &str) -> Vec<&Value> {
        self.frames(ext, "host->ext")
            .into_iter()
            .filter(|f| f["type"] == ty)
            .collect()
    }

    pub fn received(&self, ext: &str, ty: &str) -> Vec<&Value> {
        self.frames(ext, "ext->host")
            .into_iter()
            .filter(|f| f["type"] == ty)
            .collect()
    }

    pub fn events(&self, ext: &str) -> Vec<String> {
        self.sent(ext, "event")
            .iter()
            .map(|f| f["event"].as_str().unwrap().to_owned())
            .collect()
    }

    pub fn text(&self) -> String {
        serde_json::to_string(&self.obs).unwrap()
    }

    pub fn tool_results(&self) -> Vec<&Value> {
        self.kinds("tool_result")
    }
}
