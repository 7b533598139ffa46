//! `zot-host dev` driven in a pseudo-terminal, as a person would: the
//! prompt's commands, completion, history, a failed build that keeps the
//! running extension, a rebuild and restart on a change, ignored changes,
//! Ctrl-C. Every wait is for output, never for time.

mod common;

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
use serde_json::{json, Value};

use common::{cmd, display, ready, text_result, tool};

/// How long any one expected output may take before the test gives up
/// (a failsafe against a hang; nothing waits for it to pass).
const FAILSAFE: Duration = Duration::from_secs(60);

/// Drops terminal control sequences and carriage returns.
fn plain(raw: &str) -> String {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                // CSI sequences run to their final byte; others are two
                // characters long.
                if chars.next() == Some('[') {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
            }
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

struct Term {
    master: std::fs::File,
    out: Arc<(Mutex<String>, Condvar)>,
    seen: usize,
    child: Child,
}

/// A failed expectation must not leave `zot-host dev` running (its own
/// session keeps it alive after the test process is gone).
impl Drop for Term {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Term {
    fn spawn(args: &[&Path], path_first: &Path) -> Self {
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        rustix::termios::tcsetwinsize(
            &master,
            rustix::termios::Winsize {
                ws_row: 40,
                ws_col: 200,
                ws_xpixel: 0,
                ws_ypixel: 0,
            },
        )
        .unwrap();
        let slave = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(name.to_str().unwrap())
            .unwrap();
        let path = format!(
            "{}:{}",
            path_first.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut c = Command::new(env!("CARGO_BIN_EXE_zot-host"));
        c.arg("dev")
            .args(args)
            .env("TERM", "xterm")
            .env("PATH", path)
            .stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        // SAFETY: setsid is async-signal-safe; the child gets its own
        // session, as a shell gives a program in a terminal.
        unsafe {
            c.pre_exec(|| {
                rustix::process::setsid()?;
                Ok(())
            });
        }
        let child = c.spawn().unwrap();
        let master = std::fs::File::from(master);
        let out = Arc::new((Mutex::new(String::new()), Condvar::new()));
        let (mut r, o) = (master.try_clone().unwrap(), out.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the child and its descendants closed the terminal.
            while let Ok(n) = r.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut s = o.0.lock().unwrap_or_else(|e| e.into_inner());
                s.push_str(&String::from_utf8_lossy(&buf[..n]));
                o.1.notify_all();
            }
        });
        Self {
            master,
            out,
            seen: 0,
            child,
        }
    }

    /// Everything shown so far, without control sequences.
    fn screen(&self) -> String {
        plain(&self.out.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Waits until `needle` is shown after what earlier expectations
    /// matched; returns what was shown up to it.
    fn expect(&mut self, needle: &str) -> String {
        let start = Instant::now();
        let mut raw = self.out.0.lock().unwrap();
        loop {
            let text = plain(&raw);
            if let Some(i) = text.get(self.seen..).and_then(|t| t.find(needle)) {
                let upto = text[self.seen..self.seen + i + needle.len()].to_owned();
                self.seen += i + needle.len();
                return upto;
            }
            let left = FAILSAFE.saturating_sub(start.elapsed());
            assert!(
                !left.is_zero(),
                "never shown: {needle:?}\n--- shown (the last match at {}):\n{text}",
                self.seen
            );
            raw = self.out.1.wait_timeout(raw, left).unwrap().0;
        }
    }

    fn send(&mut self, keys: &str) {
        self.master.write_all(keys.as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    /// Types keys as a person does, one at a time, each once the last one
    /// was echoed.
    fn typ(&mut self, keys: &str) {
        for c in keys.chars() {
            self.send(&c.to_string());
            if !c.is_control() {
                self.expect(&c.to_string());
            }
        }
    }

    /// Types a line once the prompt is up.
    fn line(&mut self, line: &str) {
        self.prompt();
        self.typ(line);
        self.send("\r");
    }

    /// Waits for the prompt (drawn again after each line printed above it).
    fn prompt(&mut self) {
        self.expect("dev-ext> ");
    }
}

/// The fixture extension's spec: `/greet` answers with `version`.
fn spec(version: &str, pidfile: &Path) -> Value {
    json!({
        "on_ack": [
            {"write_pid": pidfile.display().to_string()},
            cmd("greet"), cmd("menu"), tool("echo"),
            {"send": {"type": "subscribe", "events": ["turn_start"]}},
            ready()
        ],
        "on": {
            "command_invoked:greet": display(&format!("{version} {{in.args}}")),
            "command_invoked:menu": [{"send": {"type": "command_response", "id": "$in.id", "action": "open_panel",
                "open_panel": {"id": "m", "title": "Menu", "lines": ["first"]}}}],
            "panel_key": [{"send": {"type": "panel_render", "panel_id": "$in.panel_id", "lines": ["key:{in.key}"]}}],
            "tool_call:echo": text_result("echoed {in.args.x}"),
            "event:turn_start": [{"send": {"type": "notify", "level": "info", "message": "turn {in.step}"}}]
        }
    })
}

#[test]
fn dev_rebuilds_restarts_and_drives_the_extension() {
    let env = common::Env::new();
    let pidfile = env.tmp.path().join("pid");
    let dir = env.ext("dev-ext", spec("v1", &pidfile));
    // A tsconfig.json makes `dev` build with tsc; this tsc (first on PATH)
    // fails while the spec holds BROKEN, as a compiler on a bad edit.
    std::fs::write(dir.join("tsconfig.json"), "{}").unwrap();
    std::fs::write(dir.join(".gitignore"), "scratch/\n").unwrap();
    let bin = env.tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let tsc = bin.join("tsc");
    std::fs::write(
        &tsc,
        "#!/bin/sh\nif grep -q BROKEN spec.json; then\n  echo 'spec.json(1,1): error TS1005: the fixture is broken' >&2\n  exit 2\nfi\necho 'tsc: compiled'\n",
    )
    .unwrap();
    std::fs::set_permissions(&tsc, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let mut t = Term::spawn(
        &[
            &dir,
            Path::new("--zot-home"),
            &env.zot_home,
            Path::new("--cwd"),
            &env.cwd,
        ],
        &bin,
    );
    t.expect("building: tsc -p .");
    t.expect("built");
    t.expect("watching");

    // A command, and completion of its name from the registrations.
    t.line("/greet Ada");
    t.expect("v1 Ada");
    t.prompt();
    t.typ("/gr");
    t.send("\t");
    t.expect("/greet ");
    t.typ("Bo");
    t.send("\r");
    t.expect("v1 Bo");
    // History: Up brings the last line back.
    t.prompt();
    t.send("\u{1b}[A");
    t.expect("/greet Bo");
    t.send("\r");
    t.expect("v1 Bo");

    // A tool, an event, a panel key; completion of a tool name.
    t.prompt();
    t.typ("tool ec");
    t.send("\t");
    t.expect("tool echo ");
    t.typ(r#"{"x": 41}"#);
    t.send("\r");
    t.expect("echoed 41");
    t.line(r#"event turn_start {"step": 7}"#);
    t.expect("turn 7");
    t.line("/menu");
    t.expect("first");
    t.line("panel down");
    t.expect("key:down");
    t.line("panel esc");
    t.expect("closed by user");
    t.line("frobnicate");
    t.expect("unknown input `frobnicate`");

    // An ignored change, then a broken build: shown, and v1 keeps running.
    std::fs::create_dir_all(dir.join("scratch")).unwrap();
    std::fs::write(dir.join("scratch/notes.txt"), "x").unwrap();
    let broken = {
        // Were it restarted anyway, `/greet` would answer "broken".
        let mut s = spec("broken", &pidfile);
        s["note"] = json!("BROKEN");
        s
    };
    std::fs::write(dir.join("spec.json"), broken.to_string()).unwrap();
    let shown = t.expect("error TS1005: the fixture is broken");
    assert!(
        !shown.contains("scratch"),
        "an ignored change counted:\n{shown}"
    );
    t.expect("the running extension is kept");
    t.line("/greet Cy");
    t.expect("v1 Cy");

    // Fixed: rebuilt, restarted, the new code answers.
    std::fs::write(dir.join("spec.json"), spec("v2", &pidfile).to_string()).unwrap();
    t.expect("tsc: compiled");
    t.expect("reloaded extensions: 1 stopped, 1 loaded, 1 ready, 0 errors");
    t.line("/greet Di");
    t.expect("v2 Di");

    // Ctrl-C quits, and the extension is stopped.
    t.prompt();
    t.send("\u{3}");
    let status = t.child.wait().unwrap();
    assert!(status.success(), "{status:?}\n{}", t.screen());
    common::assert_gone(&pidfile);
}

#[test]
fn pasted_text_is_shown_whole_before_the_next_key() {
    // Keys that arrive in one read (a paste, fast typing) are all shown at
    // once, not up to the first one until the next key.
    let env = common::Env::new();
    let pidfile = env.tmp.path().join("pid");
    let dir = env.ext("dev-ext", spec("v1", &pidfile));
    let mut t = Term::spawn(
        &[
            &dir,
            Path::new("--zot-home"),
            &env.zot_home,
            Path::new("--cwd"),
            &env.cwd,
        ],
        env.tmp.path(),
    );
    t.expect("watching");
    t.prompt();
    t.send("/greet pasted text");
    t.expect("/greet pasted text");
    t.send("\r");
    t.expect("v1 pasted text");
    t.prompt();
    t.send("\u{3}");
    let status = t.child.wait().unwrap();
    assert!(status.success(), "{status:?}\n{}", t.screen());
    common::assert_gone(&pidfile);
}

#[test]
fn a_folder_without_a_manifest_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_zot-host"))
        .arg("dev")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("has no extension.json"), "{err}");
}
