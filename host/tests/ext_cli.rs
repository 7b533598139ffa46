//! `zot-host ext ...` (HOST-177..187) against temporary ZOT_HOMEs, through
//! the built binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::cli::*;
use common::*;
use serde_json::{json, Value};

#[test]
fn list_shows_every_state_with_source_and_path_and_json() {
    let env = Env::new();
    env.ext_in(&global(&env), "alpha", "alpha", quiet());
    env.ext_in(&project(&env), "alpha", "alpha", quiet());
    let off = env.ext_in(&global(&env), "off", "off", quiet());
    let m = std::fs::read_to_string(off.join("extension.json")).unwrap();
    std::fs::write(
        off.join("extension.json"),
        m.replacen(
            '{',
            r#"{"enabled": false, "description": "turned off", "#,
            1,
        ),
    )
    .unwrap();
    let theme = global(&env).join("nice-theme");
    std::fs::create_dir_all(&theme).unwrap();
    std::fs::write(theme.join("extension.json"), r#"{"name": "nice-theme"}"#).unwrap();
    std::fs::write(theme.join("theme.json"), "{}").unwrap();
    let broken = global(&env).join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("extension.json"), r#"{"name": "#).unwrap();
    let explicit = env.ext("beta", quiet());

    let text = ok(&zot(&env, &["ext", "list"]));
    let head = text.lines().next().unwrap();
    for col in ["NAME", "VERSION", "LANGUAGE", "STATE", "SOURCE", "PATH"] {
        assert!(head.contains(col), "{text}");
    }
    assert!(text.contains("shadowed by"), "{text}");
    assert!(
        text.contains("turned off"),
        "descriptions are shown: {text}"
    );
    assert!(text.contains("parse manifest"), "{text}");

    let v = json_out(&zot(
        &env,
        &[
            "ext",
            "list",
            "--json",
            "-e",
            &explicit.display().to_string(),
        ],
    ));
    let rows = v.as_array().unwrap();
    let row = |name: &str, source: &str| {
        rows.iter()
            .find(|r| r["name"] == name && r["source"] == source)
            .unwrap_or_else(|| panic!("{name}/{source} in {v:#}"))
            .clone()
    };
    assert_eq!(row("beta", "explicit")["state"], "enabled");
    let a = row("alpha", "project");
    assert_eq!(a["state"], "enabled");
    assert_eq!(a["version"], "1.0.0");
    assert_eq!(a["language"], "python");
    assert_eq!(a["path"], project(&env).join("alpha").display().to_string());
    let shadowed = row("alpha", "global");
    assert_eq!(shadowed["state"], "shadowed");
    assert_eq!(shadowed["shadowed_by"], a["path"]);
    assert_eq!(row("off", "global")["state"], "disabled");
    assert_eq!(row("off", "global")["description"], "turned off");
    assert_eq!(row("nice-theme", "global")["state"], "theme-only");
    let b = row("broken", "global");
    assert_eq!(b["state"], "error");
    assert!(
        b["error"].as_str().unwrap().contains("parse manifest"),
        "{b}"
    );

    // --no-ext keeps only the explicit path.
    let v = json_out(&zot(
        &env,
        &[
            "ext",
            "list",
            "--json",
            "--no-ext",
            "-e",
            &explicit.display().to_string(),
        ],
    ));
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");

    // Nothing installed: a hint instead of an empty table.
    let empty = Env::new();
    let text = ok(&zot(&empty, &["ext", "list"]));
    assert!(text.contains("zot-host ext install"), "{text}");
}

#[test]
fn install_from_a_directory_copies_it_and_force_replaces() {
    let env = Env::new();
    let src = source(&env, "greeter", "greeter");
    std::fs::create_dir_all(src.join("lib")).unwrap();
    std::fs::write(src.join("lib/data.txt"), "v1").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("lib/data.txt", src.join("data-link")).unwrap();

    let text = ok(&zot(&env, &["ext", "install", &src.display().to_string()]));
    let dest = global(&env).join("greeter");
    assert!(
        text.contains(&format!("Installed greeter 1.0.0 into {}", dest.display())),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(dest.join("lib/data.txt")).unwrap(),
        "v1"
    );
    #[cfg(unix)]
    {
        let link = dest.join("data-link");
        assert!(
            link.symlink_metadata().unwrap().file_type().is_symlink(),
            "copied as a link"
        );
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            Path::new("lib/data.txt")
        );
    }
    assert_eq!(entries(&global(&env)), vec!["greeter"], "no staging left");

    // The same name again: refused, with the way out.
    std::fs::write(src.join("lib/data.txt"), "v2").unwrap();
    let err = fails(&zot(&env, &["ext", "install", &src.display().to_string()]));
    assert!(
        err.contains("already installed") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dest.join("lib/data.txt")).unwrap(),
        "v1"
    );

    // The same manifest name under another directory name is refused too.
    let err = fails(&zot(
        &env,
        &[
            "ext",
            "install",
            &src.display().to_string(),
            "--name",
            "other",
        ],
    ));
    assert!(err.contains("\"greeter\" is already installed"), "{err}");

    let text = ok(&zot(
        &env,
        &["ext", "install", "--force", &src.display().to_string()],
    ));
    assert!(text.contains("Replaced"), "{text}");
    assert_eq!(
        std::fs::read_to_string(dest.join("lib/data.txt")).unwrap(),
        "v2"
    );
    assert_eq!(entries(&global(&env)), vec!["greeter"]);
}

#[test]
fn install_rolls_back_when_the_manifest_is_missing_or_invalid() {
    let env = Env::new();
    let src = env.tmp.path().join("src");
    // No manifest at all.
    let bare = src.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(bare.join("main.py"), "").unwrap();
    let err = fails(&zot(&env, &["ext", "install", &bare.display().to_string()]));
    assert!(err.contains("no extension.json"), "{err}");
    // Unparseable, and parseable but unusable (no exec, theme or skills).
    for (dir, text, want) in [
        ("garbled", "{\"name\": ", "parse manifest"),
        (
            "nothing",
            "{\"name\": \"nothing\"}",
            "exec, theme, or skills is required",
        ),
        ("nameless", "{\"exec\": \"x\"}", "name is required"),
    ] {
        let d = src.join(dir);
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/file"), "x").unwrap();
        std::fs::write(d.join("extension.json"), text).unwrap();
        let err = fails(&zot(&env, &["ext", "install", &d.display().to_string()]));
        assert!(
            err.contains(want) && err.contains("nothing was installed"),
            "{err}"
        );
        assert!(
            entries(&global(&env)).is_empty(),
            "{dir}: {:?}",
            entries(&global(&env))
        );
    }
    // A git repository without a manifest: cloned, checked, removed.
    let remote = Remote::new(&env, "nomanifest");
    git(&remote.work, &["rm", "-q", "extension.json"]);
    git(&remote.work, &["commit", "-q", "-m", "drop manifest"]);
    git(&remote.work, &["push", "-q", "origin", "main"]);
    let err = fails(&zot(&env, &["ext", "install", &remote.url]));
    assert!(
        err.contains("no extension.json") && err.contains("nothing was installed"),
        "{err}"
    );
    assert!(
        entries(&global(&env)).is_empty(),
        "{:?}",
        entries(&global(&env))
    );
}

#[test]
fn install_refuses_names_and_links_that_leave_the_extensions_dir() {
    let env = Env::new();
    let src = source(&env, "plain", "plain");
    let s = src.display().to_string();
    let outside = env.tmp.path().join("evil");
    for name in [
        "../evil",
        &outside.display().to_string(),
        ".hidden",
        "a/b",
        "..",
    ] {
        let err = fails(&zot(&env, &["ext", "install", &s, "--name", name]));
        assert!(err.contains("must be a single plain name"), "{name}: {err}");
    }
    assert!(!outside.exists());
    assert!(!env.zot_home.join("evil").exists());
    assert!(entries(&global(&env)).is_empty());

    // A manifest name that would put the log file elsewhere.
    let sneaky = env.tmp.path().join("src").join("sneaky");
    std::fs::create_dir_all(&sneaky).unwrap();
    std::fs::write(
        sneaky.join("extension.json"),
        r#"{"name": "../../evil", "exec": "python3"}"#,
    )
    .unwrap();
    let err = fails(&zot(
        &env,
        &["ext", "install", &sneaky.display().to_string()],
    ));
    assert!(err.contains("not a plain name"), "{err}");
    assert!(entries(&global(&env)).is_empty());

    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        std::fs::write(env.tmp.path().join("secret"), "s").unwrap();
        for (dir, target) in [
            ("abs-link", env.tmp.path().join("secret")),
            ("rel-link", PathBuf::from("../../secret")),
            // `up` leads to the extension root, so `up/..` is above it,
            // although `sub/up/../secret` reads as if it stayed inside.
            ("via-link", PathBuf::from("up/../secret")),
        ] {
            let d = source(&env, dir, dir);
            std::fs::create_dir_all(d.join("sub")).unwrap();
            symlink("..", d.join("sub").join("up")).unwrap();
            symlink(&target, d.join("sub").join("link")).unwrap();
            let err = fails(&zot(&env, &["ext", "install", &d.display().to_string()]));
            assert!(
                err.contains("points outside the extension directory"),
                "{dir}: {err}"
            );
            assert!(entries(&global(&env)).is_empty(), "{dir} rolled back");
        }
    }
}

#[test]
fn git_install_and_update_report_the_old_and_new_commit() {
    let env = Env::new();
    let remote = Remote::new(&env, "gitext");
    let first = git(&remote.work, &["rev-parse", "HEAD"]);
    let text = ok(&zot(&env, &["ext", "install", &remote.url]));
    let dest = global(&env).join("gitext");
    assert!(text.contains("Installed gitext"), "{text}");
    assert_eq!(git(&dest, &["rev-parse", "HEAD"]), first);
    assert_eq!(
        git(&dest, &["rev-parse", "--is-shallow-repository"]),
        "true"
    );
    // A non-git install next to it is skipped with a note.
    ok(&zot(
        &env,
        &[
            "ext",
            "install",
            &source(&env, "copied", "copied").display().to_string(),
        ],
    ));

    let text = ok(&zot(&env, &["update"]));
    assert!(
        text.contains(&format!("gitext: up to date at {}", &first[..12])),
        "{text}"
    );
    assert!(
        text.contains("copied: skipped (not a git install: it was copied from a folder (no .git)"),
        "{text}"
    );

    let second = remote.commit("NEWS", "more");
    let text = ok(&zot(&env, &["ext", "update", "gitext"]));
    assert!(
        text.contains(&format!(
            "gitext: updated {} → {}",
            &first[..12],
            &second[..12]
        )),
        "{text}"
    );
    assert_eq!(git(&dest, &["rev-parse", "HEAD"]), second);
    assert_eq!(std::fs::read_to_string(dest.join("NEWS")).unwrap(), "more");

    let third = remote.commit("NEWS", "even more");
    let v = json_out(&zot(&env, &["update", "--json"]));
    let g = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "gitext")
        .unwrap();
    assert_eq!(g["status"], "updated");
    assert_eq!(g["old"], second.as_str());
    assert_eq!(g["new"], third.as_str());

    // Disabled extensions are skipped, even when named.
    ok(&zot(&env, &["ext", "disable", "gitext"]));
    git(&dest, &["commit", "-q", "-am", "disable locally"]);
    let text = ok(&zot(&env, &["ext", "update", "gitext"]));
    assert!(text.contains("gitext: skipped (disabled"), "{text}");
    let err = fails(&zot(&env, &["ext", "update", "nope"]));
    assert!(
        err.contains("no installed extension named \"nope\""),
        "{err}"
    );
}

#[test]
fn update_refuses_local_changes_and_diverged_history_and_goes_on() {
    let env = Env::new();
    let dirty = Remote::new(&env, "dirty");
    let diverged = Remote::new(&env, "diverged");
    let fine = Remote::new(&env, "fine");
    for r in [&dirty, &diverged, &fine] {
        ok(&zot(&env, &["ext", "install", &r.url]));
    }
    let dirty_dir = global(&env).join("dirty");
    let diverged_dir = global(&env).join("diverged");
    std::fs::write(dirty_dir.join("spec.json"), "{\"edited\": true}").unwrap();
    let dirty_head = git(&dirty_dir, &["rev-parse", "HEAD"]);
    dirty.commit("NEWS", "upstream");
    std::fs::write(diverged_dir.join("LOCAL"), "mine").unwrap();
    git(&diverged_dir, &["add", "LOCAL"]);
    git(&diverged_dir, &["commit", "-q", "-m", "local work"]);
    let local_head = git(&diverged_dir, &["rev-parse", "HEAD"]);
    diverged.commit("NEWS", "upstream");
    let fine_new = fine.commit("NEWS", "upstream");

    let o = zot(&env, &["update"]);
    fails(&o);
    let text = stdout(&o);
    assert!(
        text.contains("dirty: FAILED: local changes to tracked files"),
        "{text}"
    );
    assert!(
        text.contains("diverged: FAILED: history diverged"),
        "{text}"
    );
    assert!(text.contains("fine: updated"), "{text}");
    assert!(text.contains("2 update(s) failed"), "{text}");
    // Refused installs are left exactly as they were.
    assert_eq!(git(&dirty_dir, &["rev-parse", "HEAD"]), dirty_head);
    assert_eq!(
        std::fs::read_to_string(dirty_dir.join("spec.json")).unwrap(),
        "{\"edited\": true}"
    );
    assert_eq!(git(&diverged_dir, &["rev-parse", "HEAD"]), local_head);
    assert_eq!(
        git(&global(&env).join("fine"), &["rev-parse", "HEAD"]),
        fine_new
    );
}

#[test]
fn enable_and_disable_edit_only_the_enabled_value() {
    let env = Env::new();
    let dir = global(&env).join("fmt-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let original =
        "{\n\t\"name\":   \"fmt\",\n\t\"exec\" : \"python3\",\n\t\"args\": [ \"a\",\"b\" ]\n}\n";
    std::fs::write(dir.join("extension.json"), original).unwrap();
    let read = || std::fs::read_to_string(dir.join("extension.json")).unwrap();

    let text = ok(&zot(&env, &["ext", "disable", "fmt"]));
    assert!(text.contains("fmt is now disabled"), "{text}");
    let disabled = "{\n\t\"name\":   \"fmt\",\n\t\"exec\" : \"python3\",\n\t\"args\": [ \"a\",\"b\" ],\n\t\"enabled\": false\n}\n";
    assert_eq!(read(), disabled);
    let text = ok(&zot(&env, &["ext", "disable", "fmt"]));
    assert!(text.contains("already disabled"), "{text}");
    // By directory name, and only the value changes.
    ok(&zot(&env, &["ext", "enable", "fmt-dir"]));
    assert_eq!(read(), disabled.replace("false", "true"));
    let v = json_out(&zot(&env, &["ext", "list", "--json"]));
    assert_eq!(v[0]["state"], "enabled");

    // The same name in the project and globally: ambiguous, nothing changes.
    env.ext_in(&project(&env), "fmt", "fmt", quiet());
    let before = std::fs::read_to_string(project(&env).join("fmt/extension.json")).unwrap();
    let err = fails(&zot(&env, &["ext", "disable", "fmt"]));
    assert!(err.contains("matches 2 installs"), "{err}");
    assert!(err.contains(&dir.display().to_string()), "{err}");
    assert!(
        err.contains(&project(&env).join("fmt").display().to_string()),
        "{err}"
    );
    assert!(err.contains("--global or --project"), "{err}");
    assert_eq!(read(), disabled.replace("false", "true"));
    assert_eq!(
        std::fs::read_to_string(project(&env).join("fmt/extension.json")).unwrap(),
        before
    );
    ok(&zot(&env, &["ext", "disable", "fmt", "--project"]));
    let after = std::fs::read_to_string(project(&env).join("fmt/extension.json")).unwrap();
    assert_eq!(after, before.replacen('}', ",\"enabled\":false}", 1));
    assert_eq!(read(), disabled.replace("false", "true"));

    let err = fails(&zot(&env, &["ext", "enable", "ghost"]));
    assert!(
        err.contains("no installed extension named \"ghost\"") && err.contains("installed: fmt"),
        "{err}"
    );
}

#[test]
fn remove_asks_unless_yes_and_has_the_rm_alias() {
    let env = Env::new();
    let a = env.ext_in(&global(&env), "a-dir", "a", quiet());
    let b = env.ext_in(&project(&env), "b", "b", quiet());
    let err = fails(&zot(&env, &["ext", "remove", "a"]));
    assert!(
        err.contains("stdin is not a terminal") && err.contains("--yes"),
        "{err}"
    );
    assert!(a.exists());
    let text = ok(&zot(&env, &["ext", "remove", "-y", "a"]));
    assert!(
        text.contains(&format!("Removed a (global) at {}", a.display())),
        "{text}"
    );
    assert!(!a.exists());
    assert!(
        entries(&global(&env)).is_empty(),
        "{:?}",
        entries(&global(&env))
    );
    ok(&zot(&env, &["ext", "rm", "--yes", "b"]));
    assert!(!b.exists());
    let err = fails(&zot(&env, &["ext", "rm", "-y", "b"]));
    assert!(err.contains("no installed extension named \"b\""), "{err}");
}

#[test]
fn logs_print_and_follow_the_extension_log() {
    let env = Env::new();
    let logs = env.zot_home.join("logs");
    let err = fails(&zot(&env, &["ext", "logs", "talker"]));
    assert!(
        err.contains(&logs.join("ext-talker.log").display().to_string()),
        "the error names the path: {err}"
    );
    std::fs::create_dir_all(&logs).unwrap();
    let log = logs.join("ext-talker.log");
    std::fs::write(&log, "[zot] starting talker/1.0.0\nhello from stderr\n").unwrap();
    assert_eq!(
        ok(&zot(&env, &["ext", "logs", "talker"])),
        "[zot] starting talker/1.0.0\nhello from stderr\n"
    );
    // An install in a directory with another name: resolved to its manifest name.
    env.ext_in(&global(&env), "talker-dir", "talker", quiet());
    assert!(ok(&zot(&env, &["ext", "logs", "talker-dir"])).contains("hello from stderr"));

    #[cfg(unix)]
    {
        use std::io::{BufRead, BufReader, Write};
        let mut child = zot_cmd(&env, &["ext", "logs", "talker", "--follow"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        for want in ["[zot] starting talker/1.0.0\n", "hello from stderr\n"] {
            line.clear();
            out.read_line(&mut line).unwrap();
            assert_eq!(line, want);
        }
        let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        writeln!(f, "appended later").unwrap();
        line.clear();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, "appended later\n");
        // Ctrl-C ends it cleanly.
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let status = child.wait().unwrap();
        assert!(status.success(), "{status:?}");
    }
}

fn doctor_fixture(env: &Env) {
    // Healthy: a command and a tool, sends ready.
    env.ext_in(
        &global(env),
        "alpha",
        "alpha",
        json!({"on_ack": [cmd("greet"), tool("echo"), ready()]}),
    );
    // Conflicting: case clash, built-in command, duplicate tool, built-in tool.
    env.ext_in(
        &global(env),
        "beta",
        "beta",
        json!({"on_ack": [cmd("GREET"), cmd("help"), tool("echo"), tool("bash"), tool("beta_only"), ready()]}),
    );
    // Crashing before hello.
    env.ext_in(
        &global(env),
        "crasher",
        "crasher",
        json!({"before_hello": [{"stderr": "boom"}, {"exit": 3}]}),
    );
    // Disabled.
    let off = env.ext_in(&global(env), "off", "off", quiet());
    let m = std::fs::read_to_string(off.join("extension.json")).unwrap();
    std::fs::write(
        off.join("extension.json"),
        m.replacen('{', "{\"enabled\":false,", 1),
    )
    .unwrap();
    // Shadowed: the project install of the same name wins.
    env.ext_in(&global(env), "dup", "dup", quiet());
    env.ext_in(&project(env), "dup", "dup", quiet());
}

#[test]
fn doctor_reports_a_mix_and_exits_non_zero() {
    let env = Env::new();
    doctor_fixture(&env);
    let o = zot(&env, &["ext", "doctor", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v = json_out(&o);
    assert_eq!(v["ok"], false);
    let exts = v["extensions"].as_array().unwrap();
    let ext = |name: &str, source: &str| {
        exts.iter()
            .find(|e| e["name"] == name && e["source"] == source)
            .unwrap_or_else(|| panic!("{name}/{source} in {v:#}"))
            .clone()
    };
    let logs = env.zot_home.join("logs");
    let alpha = ext("alpha", "global");
    assert_eq!(alpha["state"], "ready");
    assert_eq!(alpha["health"], "ok");
    assert_eq!(
        alpha["log"],
        logs.join("ext-alpha.log").display().to_string()
    );
    assert_eq!(
        alpha["commands"],
        json!([{"name": "greet", "active": true}])
    );
    assert_eq!(alpha["tools"], json!([{"name": "echo", "active": true}]));

    let beta = ext("beta", "global");
    assert_eq!(beta["state"], "ready");
    assert_eq!(beta["health"], "problem");
    let active: Vec<(String, bool)> = beta["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["active"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        active,
        vec![
            ("echo".into(), false),
            ("bash".into(), false),
            ("beta_only".into(), true)
        ]
    );

    let crasher = ext("crasher", "global");
    assert_eq!(crasher["state"], "load_error");
    assert!(
        crasher["error"]
            .as_str()
            .unwrap()
            .contains("exited before hello: exit status 3"),
        "{crasher}"
    );
    assert_eq!(
        crasher["log"],
        logs.join("ext-crasher.log").display().to_string()
    );
    assert_eq!(ext("off", "global")["state"], "disabled");
    let dup = ext("dup", "global");
    assert_eq!(dup["state"], "shadowed");
    assert_eq!(
        dup["shadowed_by"],
        project(&env).join("dup").display().to_string()
    );
    assert_eq!(ext("dup", "project")["state"], "ready");

    let conflicts: Vec<(String, String, String, String)> = v["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap().to_owned(),
                c["type"].as_str().unwrap().to_owned(),
                c["name"].as_str().unwrap().to_owned(),
                c["winner"]["ext"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let c = |k: &str, t: &str, n: &str, w: &str| (k.into(), t.into(), n.into(), w.into());
    for want in [
        c("case_clash", "command", "GREET", "alpha"),
        c("builtin", "command", "help", "built-in"),
        c("duplicate", "tool", "echo", "alpha"),
        c("builtin", "tool", "bash", "built-in"),
    ] {
        assert!(conflicts.contains(&want), "{want:?} in {conflicts:?}");
    }
    assert_eq!(conflicts.len(), 4, "{conflicts:?}");
    // 4 conflicts and 1 failed start.
    assert_eq!(v["summary"]["problems"], 5, "{v:#}");

    // The extensions were shut down cleanly: shutdown acknowledged, exit 0.
    let log = env.log("alpha");
    assert!(log.contains("shutdown_ack received"), "{log}");
    assert!(log.contains("exited: exit status 0"), "{log}");

    // The readable report says the same, without colour off a terminal.
    let o = zot(&env, &["ext", "doctor"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        !text.contains("\x1b["),
        "no colour when stdout is not a terminal"
    );
    for want in [
        "✓ alpha 1.0.0 (global): ready",
        "✗ crasher 1.0.0 (global): failed to start",
        "extension exited before hello: exit status 3",
        "- off 1.0.0 (global): disabled",
        "- dup 1.0.0 (global): shadowed",
        "command /GREET of beta: case clash with /greet of alpha",
        "tool echo of beta: duplicate of echo of alpha",
        "command /help of beta: shadowed by the built-in command",
        "tool bash of beta: shadowed by the built-in tool",
        "5 problems",
        &logs.join("ext-crasher.log").display().to_string(),
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
}

#[test]
fn doctor_passes_on_a_healthy_set_and_warns_about_auto_ready() {
    let env = Env::new();
    env.ext_in(
        &global(&env),
        "alpha",
        "alpha",
        json!({"on_ack": [cmd("greet"), ready()]}),
    );
    // A legacy extension that never sends `ready`: auto-ready is a warning.
    env.ext_in(
        &global(&env),
        "legacy",
        "legacy",
        json!({"on_ack": [cmd("old")]}),
    );
    let theme = global(&env).join("nice-theme");
    std::fs::create_dir_all(theme.join("themes")).unwrap();
    std::fs::write(theme.join("extension.json"), r#"{"name": "nice-theme"}"#).unwrap();
    std::fs::write(theme.join("themes/theme.json"), "{}").unwrap();
    let o = zot(&env, &["ext", "doctor"]);
    let text = ok(&o);
    assert!(text.contains("✓ alpha 1.0.0 (global): ready"), "{text}");
    assert!(
        text.contains("! legacy 1.0.0 (global): auto-ready"),
        "{text}"
    );
    assert!(text.contains("✓ nice-theme (global): theme-only"), "{text}");
    assert!(text.contains("0 problems"), "{text}");
    let v = json_out(&zot(&env, &["ext", "doctor", "--json"]));
    assert_eq!(v["ok"], true);
    assert_eq!(
        v["summary"],
        json!({"healthy": 2, "warnings": 1, "problems": 0})
    );
}

#[test]
fn doctor_says_what_to_run_for_a_python_without_the_sdk() {
    let env = Env::new();
    let dir = env.ext_in(
        &global(&env),
        "snake",
        "snake",
        json!({"before_hello": [
            {"stderr": "ModuleNotFoundError: No module named 'zot_ext'"},
            {"exit": 1}
        ]}),
    );
    let o = zot(&env, &["ext", "doctor"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    let venv = format!("python3 -m venv {}/.venv", dir.display());
    assert!(
        text.contains("fix: the python3 on PATH has no zot_ext") && text.contains(&venv),
        "{text}"
    );
    let v = json_out(&zot(&env, &["ext", "doctor", "--json"]));
    assert!(
        v["extensions"][0]["fix"].as_str().unwrap().contains(&venv),
        "{v:#}"
    );
}

#[test]
fn doctor_shows_registrations_refused_after_start_as_problems() {
    let env = Env::new();
    // The lines an SDK writes when a registration it held is refused.
    let refused = [
        r#"tool "my tool" not registered: invalid tool name "my tool""#,
        r#"registration refused: duplicate tool name "t": a tool of this name is already registered"#,
    ];
    env.ext_in(
        &global(&env),
        "sloppy",
        "sloppy",
        json!({"on_ack": [
            cmd("fine"),
            {"stderr": format!("[sloppy] {}", refused[0])},
            {"stderr": format!("[sloppy] {}", refused[1])},
            {"stderr": "[sloppy] a line that only mentions: not registered: here"},
            ready()
        ]}),
    );
    // A refusal left in the log by an earlier run does not count.
    env.ext_in(&global(&env), "tidy", "tidy", quiet());
    let logs = env.zot_home.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(
        logs.join("ext-tidy.log"),
        format!("[tidy] {}\n", refused[0]),
    )
    .unwrap();

    let v = json_out(&zot(&env, &["ext", "doctor", "--json"]));
    assert_eq!(v["ok"], false, "{v:#}");
    let ext = |name: &str| {
        v["extensions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()
            .clone()
    };
    let sloppy = ext("sloppy");
    assert_eq!(sloppy["state"], "ready");
    assert_eq!(sloppy["health"], "problem");
    assert_eq!(sloppy["refused"], json!(refused));
    assert_eq!(ext("tidy")["health"], "ok");
    assert_eq!(
        v["summary"],
        json!({"healthy": 1, "warnings": 0, "problems": 2})
    );

    let o = zot(&env, &["ext", "doctor"]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    for want in [
        "✗ sloppy 1.0.0 (global): ready",
        &format!("refused: {}", refused[0]),
        &format!("refused: {}", refused[1]),
        "✓ tidy 1.0.0 (global): ready",
        "2 problems",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
}

#[test]
fn run_takes_repeatable_ext_paths_and_no_ext() {
    let env = Env::new();
    env.ext_in(&global(&env), "installed", "installed", quiet());
    let one = env.ext("one", quiet());
    let two = env.ext("two", quiet());
    let script = env.tmp.path().join("s.json");
    std::fs::write(&script, r#"{"mode": "print", "steps": []}"#).unwrap();
    let loaded = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["run", "--json", "--script"];
        let s = script.display().to_string();
        args.push(&s);
        args.extend_from_slice(extra);
        let out = ok(&zot(&env, &args));
        out.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|o| o["kind"] == "loaded")
            .map(|o| {
                format!(
                    "{}:{}",
                    o["ext"].as_str().unwrap(),
                    o["source"].as_str().unwrap()
                )
            })
            .collect()
    };
    let (o, t) = (one.display().to_string(), two.display().to_string());
    assert_eq!(
        loaded(&["-e", &o, "--ext", &t]),
        vec!["one:--ext", "two:--ext", "installed:global"]
    );
    assert_eq!(
        loaded(&["-e", &o, "-e", &t, "--no-ext"]),
        vec!["one:--ext", "two:--ext"]
    );
}

#[test]
fn help_everywhere_and_shell_completions() {
    let env = Env::new();
    for sub in [
        "list", "doctor", "install", "remove", "rm", "enable", "disable", "logs", "update",
    ] {
        let text = ok(&zot(&env, &["ext", sub, "--help"]));
        assert!(text.contains("Usage: zot-host ext"), "{sub}: {text}");
    }
    ok(&zot(&env, &["update", "--help"]));
    let text = ok(&zot(&env, &["ext", "help"]));
    assert!(
        text.contains("install") && text.contains("Examples"),
        "{text}"
    );
    let o = zot(&env, &["ext", "frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unrecognized subcommand"),
        "{}",
        stderr(&o)
    );
    for shell in ["bash", "zsh", "fish"] {
        let text = ok(&zot(&env, &["completions", shell]));
        assert!(
            text.contains("zot-host") && text.contains("doctor"),
            "{shell}"
        );
    }
}
