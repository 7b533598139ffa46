//! Faults around installed extensions (issue 13 items 6, 7, 10; issue 14
//! point 6): names that would build paths outside `$ZOT_HOME`, commands
//! killed half-way, concurrent installs, git left running, file modes, and
//! what a folder install copies.
//!
//! A command is stopped at a named point with the test-only pause hook
//! (`ZOT_HOST_TEST_PAUSE=<point>:<fifo>`, `cli::test_hook`): opening the
//! FIFO for writing returns once the command waits there.
#![cfg(unix)]

mod common;

use std::fs::{self, File};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::cli::*;
use common::*;
use serde_json::{json, Value};

/// How long a command may take to reach a pause point or a process to go
/// away before the test calls it a hang (not a timing assertion).
const HANG: Duration = Duration::from_secs(60);

/// A pause point: the FIFO the command blocks on.
struct Pause {
    point: &'static str,
    fifo: PathBuf,
}

impl Pause {
    fn new(env: &Env, point: &'static str) -> Self {
        let fifo = env.tmp.path().join(format!("pause-{point}"));
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        Self { point, fifo }
    }

    /// Starts `zot-host <args>` that will stop at the point.
    fn spawn(&self, env: &Env, args: &[&str]) -> Child {
        zot_cmd(env, args)
            .env(
                "ZOT_HOST_TEST_PAUSE",
                format!("{}:{}", self.point, self.fifo.display()),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Waits until the command is at the point; dropping the returned file
    /// lets it go on.
    fn reached(&self) -> File {
        let fifo = self.fifo.clone();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(File::options().write(true).open(fifo));
        });
        rx.recv_timeout(HANG)
            .unwrap_or_else(|_| panic!("the command never reached {:?}", self.point))
            .unwrap()
    }
}

fn kill(child: &mut Child, sig: i32) {
    // SAFETY: kill(2) on our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

/// Waits until process `pid` has ended (a zombie counts: it runs no more),
/// through a pidfd, which becomes readable when the process exits.
#[cfg(target_os = "linux")]
fn wait_gone(pid: i32, what: &str) {
    // SAFETY: pidfd_open takes a pid and flags, and returns a new descriptor.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    if fd < 0 {
        // Already gone and reaped.
        assert_eq!(
            std::io::Error::last_os_error().raw_os_error(),
            Some(libc::ESRCH)
        );
        return;
    }
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; the descriptor is closed right after.
    let n = unsafe { libc::poll(&mut p, 1, HANG.as_millis() as i32) };
    // SAFETY: `fd` is ours and is not used after this.
    unsafe { libc::close(fd) };
    assert_eq!(n, 1, "{what} (pid {pid}) is still running");
}

/// Every name in `dir` that starts with `prefix`.
fn named(dir: &Path, prefix: &str) -> Vec<String> {
    entries(dir)
        .into_iter()
        .filter(|n| n.starts_with(prefix))
        .collect()
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// A source folder with a few files to copy.
fn bulky_source(env: &Env, dir: &str, name: &str) -> PathBuf {
    let src = source(env, dir, name);
    fs::create_dir_all(src.join("data")).unwrap();
    for i in 0..5 {
        fs::write(src.join(format!("data/part{i}")), vec![b'x'; 64 * 1024]).unwrap();
    }
    src
}

// ---- issue 13 item 6: names -------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn a_manifest_name_with_a_path_in_it_never_builds_a_path() {
    let env = Env::new();
    // `logs/ext-x/../../../pwned.log` is `<tmp>/pwned.log`, outside ZOT_HOME.
    let bad = "x/../../../pwned";
    let escape = env.tmp.path().join("pwned.log");
    let dir = project(&env).join("evil");
    fs::create_dir_all(&dir).unwrap();
    let manifest = json!({"name": bad, "exec": "python3", "args": [fixture().display().to_string(), "spec.json"]});
    fs::write(dir.join("extension.json"), manifest.to_string()).unwrap();
    fs::write(
        dir.join("spec.json"),
        json!({"name": bad, "on_ack": [ready()]}).to_string(),
    )
    .unwrap();
    let good = env.ext("good", quiet());

    let r = env.run(&[good], json!({"steps": []})).await;
    let errs = r.strs("load_error", "message");
    let want = format!(
        "{}: manifest: name \"{bad}\" is not a plain name",
        dir.join("extension.json").display()
    );
    assert!(errs.iter().any(|m| m.contains(&want)), "{errs:?}");
    assert!(!escape.exists(), "run wrote {}", escape.display());

    let out = zot(&env, &["ext", "doctor", "--json"]);
    let report = json_out(&out);
    let evil = report["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["dir"] == dir.display().to_string())
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(evil["state"], "manifest_error");
    assert!(evil["error"].as_str().unwrap().contains(&want), "{evil}");
    assert!(!escape.exists(), "doctor wrote {}", escape.display());
    assert!(
        !env.zot_home.join("logs/ext-x").exists(),
        "no folder made from the name"
    );
    // `ext logs` checks its argument with the same rule.
    let err = fails(&zot(&env, &["ext", "logs", bad]));
    assert!(err.contains("invalid extension name"), "{err}");
    assert!(err.contains("path separator"), "{err}");
}

// ---- issue 13 item 7: interrupted commands ----------------------------------

#[test]
fn a_killed_install_is_cleaned_up_by_the_next_run_and_doctor_says_so() {
    let env = Env::new();
    let src = bulky_source(&env, "greeter", "greeter");
    let arg = src.display().to_string();

    // Killed mid-copy: the staging folder stays behind.
    let pause = Pause::new(&env, "copy");
    let mut child = pause.spawn(&env, &["ext", "install", &arg]);
    let gate = pause.reached();
    kill(&mut child, libc::SIGKILL);
    child.wait().unwrap();
    drop(gate);
    let debris = named(&global(&env), ".zot-install-");
    assert_eq!(debris.len(), 1, "{:?}", entries(&global(&env)));

    let text = zot(&env, &["ext", "doctor"]);
    let text = stdout(&text);
    let path = global(&env).join(&debris[0]);
    assert!(text.contains("Cleaned up"), "{text}");
    assert!(
        text.contains(&format!("removed {} (", path.display()))
            && text.contains("left by an interrupted `ext install`"),
        "{text}"
    );
    assert!(
        entries(&global(&env)).is_empty(),
        "{:?}",
        entries(&global(&env))
    );

    // Killed again; this time the next install cleans up and says so.
    let mut child = pause.spawn(&env, &["ext", "install", &arg]);
    let gate = pause.reached();
    kill(&mut child, libc::SIGKILL);
    child.wait().unwrap();
    drop(gate);
    assert_eq!(named(&global(&env), ".zot-install-").len(), 1);
    let text = ok(&zot(&env, &["ext", "install", &arg]));
    assert!(text.contains("Cleaned up: removed "), "{text}");
    assert!(text.contains("Installed greeter"), "{text}");
    assert_eq!(entries(&global(&env)), vec!["greeter"]);
    // Doctor has nothing more to clean.
    let report = json_out(&zot(&env, &["ext", "doctor", "--json"]));
    assert_eq!(report["cleaned"], json!([]), "{report}");
}

#[test]
fn a_live_install_is_not_swept_by_a_concurrent_command() {
    let env = Env::new();
    let src = bulky_source(&env, "slow", "slow");
    let pause = Pause::new(&env, "copy");
    let child = pause.spawn(&env, &["ext", "install", &src.display().to_string()]);
    let gate = pause.reached();
    let report = json_out(&zot(&env, &["ext", "doctor", "--json"]));
    assert_eq!(report["cleaned"], json!([]), "{report}");
    assert_eq!(named(&global(&env), ".zot-install-").len(), 1);
    drop(gate);
    let out = child.wait_with_output().unwrap();
    ok(&out);
    assert_eq!(entries(&global(&env)), vec!["slow"]);
}

#[test]
fn a_force_install_killed_before_the_final_rename_gets_the_old_copy_back() {
    let env = Env::new();
    let old = source(&env, "greeter", "greeter");
    fs::write(old.join("VERSION"), "old").unwrap();
    ok(&zot(&env, &["ext", "install", &old.display().to_string()]));
    let new = bulky_source(&env, "greeter2", "greeter");

    let pause = Pause::new(&env, "commit");
    let mut child = pause.spawn(
        &env,
        &[
            "ext",
            "install",
            "--force",
            "--name",
            "greeter",
            &new.display().to_string(),
        ],
    );
    let gate = pause.reached();
    kill(&mut child, libc::SIGKILL);
    child.wait().unwrap();
    drop(gate);
    // The old copy was moved aside into the staging folder.
    assert!(!global(&env).join("greeter").exists());

    let out = stdout(&zot(&env, &["ext", "doctor"]));
    let dest = global(&env).join("greeter");
    assert!(
        out.contains(&format!(
            "restored {} (it was being replaced)",
            dest.display()
        )),
        "{out}"
    );
    assert_eq!(fs::read_to_string(dest.join("VERSION")).unwrap(), "old");
    assert_eq!(entries(&global(&env)), vec!["greeter"]);
}

#[test]
fn of_two_concurrent_installs_of_one_name_exactly_one_wins() {
    let env = Env::new();
    let a = source(&env, "a", "same");
    let b = source(&env, "b", "same");
    let pause = Pause::new(&env, "commit");
    // `a` stops after its "already installed?" check, holding the name.
    let first = pause.spawn(&env, &["ext", "install", &a.display().to_string()]);
    let gate = pause.reached();
    let err = fails(&zot(&env, &["ext", "install", &b.display().to_string()]));
    assert!(
        err.contains("another zot-host is installing, updating or removing \"same\" right now"),
        "{err}"
    );
    assert!(err.contains("nothing was installed"), "{err}");
    drop(gate);
    let text = ok(&first.wait_with_output().unwrap());
    assert!(text.contains("Installed same"), "{text}");
    assert_eq!(entries(&global(&env)), vec!["a"]);
}

/// A git install whose next fetch hangs in the transport: `uploadpack` is a
/// script that reports its pid through a FIFO, then reads stdin until git
/// goes away (as a real transport does).
#[cfg(target_os = "linux")]
fn hanging_fetch(env: &Env) -> (PathBuf, PathBuf) {
    let remote = Remote::new(env, "gitext");
    ok(&zot(env, &["ext", "install", &remote.url]));
    let dest = global(env).join("gitext");
    let fifo = env.tmp.path().join("upload-pack-ready");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let script = env.tmp.path().join("upload-pack");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\necho $$ > '{}'\nexec cat > /dev/null\n",
            fifo.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    git(
        &dest,
        &[
            "config",
            "remote.origin.uploadpack",
            &script.display().to_string(),
        ],
    );
    (dest, fifo)
}

/// Reads the transport's pid from the FIFO; returns it and its process group.
#[cfg(target_os = "linux")]
fn transport_started(fifo: &Path) -> (i32, i32) {
    let fifo = fifo.to_owned();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(fs::read_to_string(fifo));
    });
    let pid: i32 = rx
        .recv_timeout(HANG)
        .expect("git never started the transport")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After "(comm)": state, ppid, pgrp.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let pgrp: i32 = rest.split(' ').nth(2).unwrap().parse().unwrap();
    (pid, pgrp)
}

#[cfg(target_os = "linux")]
#[test]
fn git_does_not_outlive_a_killed_update() {
    let env = Env::new();
    let (dest, fifo) = hanging_fetch(&env);
    let mut host = zot_cmd(&env, &["ext", "update", "gitext"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (transport, group) = transport_started(&fifo);
    assert_ne!(group, host.id() as i32, "git runs in a group of its own");
    kill(&mut host, libc::SIGKILL);
    host.wait().unwrap();
    // `group` is git's pid: git leads its own group.
    wait_gone(group, "git fetch");
    wait_gone(transport, "git's transport");
    git(&dest, &["config", "--unset", "remote.origin.uploadpack"]);
    let text = ok(&zot(&env, &["ext", "update", "gitext"]));
    assert!(text.contains("gitext: up to date"), "{text}");
}

#[cfg(target_os = "linux")]
#[test]
fn sigterm_during_an_update_stops_git_and_the_update() {
    let env = Env::new();
    let (dest, fifo) = hanging_fetch(&env);
    let mut host = zot_cmd(&env, &["ext", "update", "gitext"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (transport, group) = transport_started(&fifo);
    kill(&mut host, libc::SIGTERM);
    let out = host.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128 + libc::SIGTERM), "{out:?}");
    let err = stderr(&out);
    assert!(err.contains("interrupted by signal 15"), "{err}");
    assert!(
        stdout(&out).contains("gitext: FAILED: interrupted by signal 15 while `git fetch --quiet` ran; git was stopped"),
        "{}",
        stdout(&out)
    );
    // zot-host waited for git before it exited: nothing of it runs on.
    wait_gone(group, "git fetch");
    wait_gone(transport, "git's transport");
    git(&dest, &["config", "--unset", "remote.origin.uploadpack"]);
    let text = ok(&zot(&env, &["ext", "update", "gitext"]));
    assert!(text.contains("gitext: up to date"), "{text}");
}

// ---- issue 13 item 10: modes ------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
async fn logs_are_0600_and_host_folders_0700() {
    let env = Env::new();
    // A log an older host left world-readable is tightened when next opened.
    let logs = env.zot_home.join("logs");
    fs::create_dir_all(&logs).unwrap();
    fs::set_permissions(&logs, fs::Permissions::from_mode(0o755)).unwrap();
    let old = logs.join("ext-old.log");
    fs::write(&old, "secret\n").unwrap();
    fs::set_permissions(&old, fs::Permissions::from_mode(0o644)).unwrap();
    let a = env.ext("fresh", quiet());
    let b = env.ext("old", quiet());
    env.run(&[a, b], json!({"steps": []})).await;
    assert_eq!(mode(&logs), 0o700);
    assert_eq!(mode(&logs.join("ext-fresh.log")), 0o600);
    assert_eq!(mode(&old), 0o600);
    assert!(fs::read_to_string(&old).unwrap().starts_with("secret\n"));

    // Folders made by a command on a fresh ZOT_HOME.
    let home = env.tmp.path().join("fresh-home");
    let src = source(&env, "greeter", "greeter");
    let out = zot_cmd(&env, &["ext", "install", &src.display().to_string()])
        .env("ZOT_HOME", &home)
        .output()
        .unwrap();
    ok(&out);
    assert_eq!(mode(&home), 0o700);
    assert_eq!(mode(&home.join("extensions")), 0o700);
    assert_eq!(mode(&home.join("locks")), 0o700);
}

// ---- issue 14 point 6: what a folder install copies --------------------------

/// A working folder as authors have them: a Cargo project whose manifest
/// runs its release binary, an empty `.git` from `cargo new`, ignored
/// build output, a Node-style `dist/` and `node_modules/`, a `.zotignore`.
fn working_folder(env: &Env) -> PathBuf {
    let src = env.tmp.path().join("src/worky");
    fs::create_dir_all(&src).unwrap();
    let w = |rel: &str, text: &str| {
        let p = src.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    };
    w("Cargo.toml", "[package]\nname = \"worky\"\n");
    w("src/main.rs", "fn main() {}\n");
    w(".gitignore", "/target\n/dist\nnode_modules/\n*.log\n");
    w(".zotignore", "notes/\n!keep.log\n");
    w("notes/todo.md", "private\n");
    w("keep.log", "kept\n");
    w("debug.log", "noise\n");
    w("target/release/deps/libbig.rlib", &"x".repeat(100_000));
    w("target/debug/worky", "old build\n");
    w("dist/index.js", "// entry\n");
    w("dist/lib/util.js", "// module beside it\n");
    w("node_modules/dep/index.js", "// dependency\n");
    w(
        "spec.json",
        &json!({"name": "worky", "on_ack": [ready()]}).to_string(),
    );
    let bin = src.join("target/release/worky");
    fs::write(
        &bin,
        format!(
            "#!/bin/sh\nexec python3 '{}' spec.json\n",
            fixture().display()
        ),
    )
    .unwrap();
    fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
    w(
        "extension.json",
        &json!({"name": "worky", "exec": "./target/release/worky", "args": ["dist/index.js"]})
            .to_string(),
    );
    // `cargo new` runs `git init`: a repository without a commit.
    git(&src, &["init", "-q"]);
    src
}

/// Every file below `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_folder_install_copies_what_running_needs_and_says_what_it_left_out() {
    let env = Env::new();
    let src = working_folder(&env);
    let text = ok(&zot(&env, &["ext", "install", &src.display().to_string()]));
    let dest = global(&env).join("worky");
    assert_eq!(
        files(&dest),
        vec![
            ".gitignore",
            ".zotignore",
            "Cargo.toml",
            "dist/index.js",
            "dist/lib/util.js",
            "extension.json",
            "keep.log",
            "node_modules/dep/index.js",
            "spec.json",
            "src/main.rs",
            "target/release/worky",
        ]
    );
    assert_eq!(
        mode(&dest.join("target/release/worky")),
        0o755,
        "the binary stays executable"
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("Left out "))
        .unwrap_or_else(|| panic!("{text}"));
    let names = ".git/, debug.log, notes/, target/ (all but what extension.json names). ";
    assert!(
        line.starts_with("Left out ") && line.contains(names),
        "{line}"
    );
    assert!(line.contains(" KiB not needed to run: "), "{line}");
    assert!(
        line.contains("a `!<path>` line in .zotignore keeps one"),
        "{line}"
    );
    // What was kept is what it runs on.
    let report = json_out(&zot(&env, &["ext", "doctor", "--json"]));
    assert_eq!(report["extensions"][0]["state"], "ready", "{report}");
    // Not a git install, and update says so instead of failing.
    let text = ok(&zot(&env, &["update"]));
    assert!(
        text.contains("worky: skipped (not a git install: it was copied from a folder (no .git)"),
        "{text}"
    );
}

#[test]
fn zotignore_can_drop_node_modules_and_a_named_file_is_never_left_out() {
    let env = Env::new();
    let src = source(&env, "lean", "lean");
    fs::create_dir_all(src.join("node_modules/dep")).unwrap();
    fs::write(src.join("node_modules/dep/index.js"), "").unwrap();
    fs::create_dir_all(src.join("bin")).unwrap();
    fs::write(src.join("bin/tool"), "").unwrap();
    fs::write(src.join(".gitignore"), "bin/\nspec.json\n").unwrap();
    fs::write(src.join(".zotignore"), "node_modules/\n").unwrap();
    // The manifest names spec.json (an argument): kept although ignored.
    ok(&zot(&env, &["ext", "install", &src.display().to_string()]));
    let dest = global(&env).join("lean");
    assert_eq!(
        files(&dest),
        vec![".gitignore", ".zotignore", "extension.json", "spec.json"]
    );
}

#[test]
fn update_calls_an_uncommitted_or_borrowed_git_folder_not_a_git_install() {
    let env = Env::new();
    // Installs an older host copied with their `.git`.
    let fresh = env.ext_in(&global(&env), "fresh", "fresh", quiet());
    git(&fresh, &["init", "-q"]);
    // An empty `.git` folder inside another repository (ZOT_HOME's parent).
    git(env.tmp.path(), &["init", "-q"]);
    let hollow = env.ext_in(&global(&env), "hollow", "hollow", quiet());
    fs::create_dir(hollow.join(".git")).unwrap();

    let text = ok(&zot(&env, &["update"]));
    assert!(
        text.contains(&format!(
            "fresh: skipped (not a git install: {} has no commits",
            fresh.join(".git").display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "hollow: skipped (not a git install: {} is not a git repository of its own",
            hollow.join(".git").display()
        )),
        "{text}"
    );
    let v: Value = json_out(&zot(&env, &["update", "--json"]));
    assert!(
        v.as_array()
            .unwrap()
            .iter()
            .all(|r| r["status"] == "skipped"),
        "{v}"
    );
}
