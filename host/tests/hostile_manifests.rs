//! An `extension.json` that is not a small regular file — a FIFO, a symlink
//! to `/dev/zero`, a huge file, as a cloned project may carry under
//! `.zot/extensions` — is refused with one line naming it, by every command
//! that reads manifests, and the other extensions still load.
//!
//! Every command runs as a child process with a bounded wait (killed when
//! it does not end: a hang fails the test instead of stalling the suite)
//! and a bounded address space (reading `/dev/zero` to the end fails the
//! test instead of exhausting the machine).
#![cfg(unix)]

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::cli::*;
use common::*;
use serde_json::Value;

/// How long a command may run before the test calls it a hang (not a
/// timing assertion: these commands take well under a second).
const HANG: Duration = Duration::from_secs(60);

/// The address space a command may use: far above what listing a few
/// extensions needs, far below what reading `/dev/zero` reaches.
const ADDRESS_SPACE: libc::rlim_t = 2 << 30;

/// Runs `zot-host <args>`; kills it and fails when it runs past [`HANG`].
fn bounded(env: &Env, args: &[&str]) -> Output {
    let mut cmd = zot_cmd(env, args);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: ADDRESS_SPACE,
                rlim_max: ADDRESS_SPACE,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    let pid = child.id() as i32;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(HANG) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // SAFETY: kill(2) on our own child, not reaped yet (its waiter
            // is still waiting).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("zot-host {args:?} did not end within {HANG:?}: it hangs");
        }
    }
}

/// A project with a working extension `good` and the folder `bad`, whose
/// `extension.json` `make` creates; the manifest's path.
fn project_with(env: &Env, make: impl FnOnce(&Path)) -> PathBuf {
    env.ext_in(&project(env), "good", "good", quiet());
    let bad = project(env).join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let manifest = bad.join("extension.json");
    make(&manifest);
    manifest
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// `ext list --json`: the error of `bad`, after checking that `good` is
/// listed as enabled.
fn listed_error(env: &Env) -> String {
    let v = json_out(&bounded(env, &["ext", "list", "--json"]));
    let row = |name: &str| -> &Value {
        v.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {v:#}"))
    };
    assert_eq!(row("good")["state"], "enabled", "{v:#}");
    assert_eq!(row("bad")["state"], "error", "{v:#}");
    row("bad")["error"].as_str().unwrap().to_owned()
}

#[test]
fn a_fifo_manifest_is_refused_and_the_others_load() {
    let env = Env::new();
    let manifest = project_with(&env, mkfifo);
    let refusal = format!("{} is a FIFO, not a regular file", manifest.display());
    assert_eq!(listed_error(&env), refusal);
    let text = ok(&bounded(&env, &["ext", "list"]));
    assert!(text.contains(&refusal), "{text}");

    // A session loads `good` and names the refusal.
    let script = env.tmp.path().join("s.json");
    std::fs::write(&script, r#"{"mode": "print", "steps": []}"#).unwrap();
    let s = script.display().to_string();
    let out = bounded(&env, &["run", "--json", "--script", &s]);
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(all.contains(&refusal), "{all}");
    let loaded: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|o| o["kind"] == "loaded")
        .collect();
    assert_eq!(loaded.len(), 1, "{all}");
    assert_eq!(loaded[0]["ext"], "good", "{all}");

    // The commands that read one manifest.
    let e = fails(&bounded(&env, &["ext", "disable", "bad"]));
    assert!(e.contains(&refusal), "{e}");
    let bad = manifest.parent().unwrap().display().to_string();
    let e = fails(&bounded(&env, &["ext", "install", &bad]));
    assert!(
        e.contains(&refusal) && e.contains("nothing was installed"),
        "{e}"
    );
    let out = bounded(&env, &["dev", &bad]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(&refusal), "{}", stderr(&out));
}

#[test]
fn a_manifest_linked_to_dev_zero_is_refused_without_reading_it() {
    let env = Env::new();
    let manifest = project_with(&env, |p| {
        std::os::unix::fs::symlink("/dev/zero", p).unwrap();
    });
    assert_eq!(
        listed_error(&env),
        format!(
            "{} is a character device, not a regular file",
            manifest.display()
        )
    );
}

#[test]
fn a_manifest_over_1_mib_is_refused() {
    let env = Env::new();
    let manifest = project_with(&env, |p| {
        // Valid JSON: only its size is wrong.
        let mut text = br#"{"name": "bad", "exec": "python3"}"#.to_vec();
        text.resize(1024 * 1024 + 1, b' ');
        std::fs::write(p, text).unwrap();
    });
    assert_eq!(
        listed_error(&env),
        format!(
            "{} is larger than 1 MiB, the limit for a manifest",
            manifest.display()
        )
    );
}
