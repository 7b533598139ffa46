//! Helpers for the tests of the `zot-host ext` command line: the built
//! binary against the temporary project and ZOT_HOME of an [`Env`], and git
//! remotes to install from.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use super::{ready, Env};

/// Runs the binary in the project directory with `ZOT_HOME` set.
pub fn zot(env: &Env, args: &[&str]) -> Output {
    zot_cmd(env, args).output().unwrap()
}

pub fn zot_cmd(env: &Env, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_zot-host"));
    c.args(args)
        .current_dir(&env.cwd)
        .env("ZOT_HOME", &env.zot_home)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null());
    c
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status,
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// Fails with status 1; returns stderr.
pub fn fails(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(1),
        "stdout: {}\nstderr: {}",
        stdout(o),
        stderr(o)
    );
    stderr(o)
}

pub fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(o), stderr(o)))
}

pub fn global(env: &Env) -> PathBuf {
    env.zot_home.join("extensions")
}

pub fn project(env: &Env) -> PathBuf {
    env.cwd.join(".zot").join("extensions")
}

/// Every name in a directory (dot names included), sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// A quiet extension that registers nothing and sends `ready`.
pub fn quiet() -> Value {
    json!({"on_ack": [ready()]})
}

/// An extension source directory outside ZOT_HOME.
pub fn source(env: &Env, dir: &str, name: &str) -> PathBuf {
    env.ext_in(&env.tmp.path().join("src"), dir, name, quiet())
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out).trim().to_owned()
}

/// A bare repository (`<tmp>/remotes/<name>.git`, branch `main`) holding a
/// fixture extension, and the working clone that pushes to it.
pub struct Remote {
    pub url: String,
    pub work: PathBuf,
}

impl Remote {
    pub fn new(env: &Env, name: &str) -> Self {
        let remotes = env.tmp.path().join("remotes");
        std::fs::create_dir_all(&remotes).unwrap();
        let bare = remotes.join(format!("{name}.git"));
        git(
            &remotes,
            &["init", "-q", "--bare", "-b", "main", &format!("{name}.git")],
        );
        let work = env.ext_in(&env.tmp.path().join("work"), name, name, quiet());
        git(&work, &["init", "-q", "-b", "main"]);
        git(&work, &["add", "."]);
        git(&work, &["commit", "-q", "-m", "first"]);
        git(
            &work,
            &["remote", "add", "origin", &bare.display().to_string()],
        );
        git(&work, &["push", "-q", "-u", "origin", "main"]);
        Self {
            url: format!("file://{}", bare.display()),
            work,
        }
    }

    /// Commits a change upstream; returns the new commit.
    pub fn commit(&self, file: &str, text: &str) -> String {
        std::fs::write(self.work.join(file), text).unwrap();
        git(&self.work, &["add", "."]);
        git(&self.work, &["commit", "-q", "-m", file]);
        git(&self.work, &["push", "-q", "origin", "main"]);
        git(&self.work, &["rev-parse", "HEAD"])
    }
}
