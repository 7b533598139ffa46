//! Errors a user can act on: an unknown `extension.json` key is named with
//! the key it most likely means; an extension that dies before `hello` shows
//! its last stderr lines in `run` and `ext doctor`; an install refused for a
//! Python virtual environment names the link that leaves and the fix.

mod common;

use common::cli::*;
use common::*;
use serde_json::json;

/// Rewrites `key` of the manifest in `dir` to `new_key`.
fn rename_key(dir: &std::path::Path, key: &str, new_key: &str) {
    let path = dir.join("extension.json");
    let mut m: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let v = m.remove(key).unwrap();
    m.insert(new_key.to_owned(), v);
    std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_manifest_key_is_named_with_the_key_it_means() {
    let env = Env::new();
    let spec = json!({"on_ack": [ready()]});
    let cases = [
        // Other tools' word for it: no spelling is close, the alias is.
        ("exec", "command", Some("exec")),
        ("exec", "exce", Some("exec")),
        ("name", "Name", Some("name")),
        ("args", "argumnets", Some("args")),
        ("language", "zzz", None),
    ];
    for (key, wrong, want) in cases {
        let dir = env.ext(&format!("x-{wrong}"), spec.clone());
        rename_key(&dir, key, wrong);
        let r = env.run(&[dir], json!({"steps": []})).await;
        let errs = r.kinds("load_error");
        assert_eq!(errs.len(), 1, "{wrong}: {:?}", r.obs);
        let msg = errs[0]["message"].as_str().unwrap();
        let named = format!("extension.json: manifest: unknown key {wrong:?}");
        assert!(msg.contains(&named), "{msg}");
        match want {
            Some(k) => assert!(msg.contains(&format!("(did you mean {k:?}?)")), "{msg}"),
            None => assert!(!msg.contains("did you mean"), "{msg}"),
        }
        assert!(
            msg.contains("the keys are name, version, exec, args, language, description, skills, enabled, $schema"),
            "{msg}"
        );
        assert!(
            !msg.contains("exec, theme, or skills is required"),
            "the misspelling is the error, not what it hid: {msg}"
        );
    }
    // `$schema` (for editors) is accepted.
    let dir = env.ext(
        "schema",
        json!({"on_ack": [cmd("ok"), ready()], "on": {"command_invoked:ok": display("fine")}}),
    );
    let path = dir.join("extension.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    m["$schema"] = json!("https://example.invalid/extension.schema.json");
    std::fs::write(&path, m.to_string()).unwrap();
    let r = env
        .run(&[dir], json!({"steps": [{"command": "/ok"}]}))
        .await;
    assert!(r.kinds("load_error").is_empty(), "{:?}", r.obs);
    assert!(r.text().contains("fine"));
}

#[test]
fn install_refuses_an_unknown_manifest_key() {
    let env = Env::new();
    let src = source(&env, "cmdext", "cmdext");
    rename_key(&src, "exec", "command");
    let err = fails(&zot(&env, &["ext", "install", &src.display().to_string()]));
    assert!(
        err.contains("unknown key \"command\" (did you mean \"exec\"?)")
            && err.contains("nothing was installed"),
        "{err}"
    );
    assert!(entries(&global(&env)).is_empty());
}

/// A start that fails like a Python extension missing a module.
fn missing_module() -> serde_json::Value {
    json!({"before_hello": [
        {"stderr": "Traceback (most recent call last):"},
        {"stderr": "  File \"main.py\", line 1, in <module>"},
        {"stderr": "    import requests"},
        {"stderr": "ModuleNotFoundError: No module named 'requests'"},
        {"exit": 1}
    ]})
}

#[tokio::test(flavor = "multi_thread")]
async fn run_shows_the_last_stderr_lines_of_an_extension_that_died_before_hello() {
    let env = Env::new();
    let dir = env.ext("nomod", missing_module());
    // An earlier run's lines are in the same log; they are not this failure.
    std::fs::create_dir_all(env.zot_home.join("logs")).unwrap();
    std::fs::write(
        env.zot_home.join("logs/ext-nomod.log"),
        "an earlier run's line\n",
    )
    .unwrap();
    let r = env.run(&[dir], json!({"steps": []})).await;
    let errs = r.kinds("load_error");
    assert_eq!(errs.len(), 1, "{:?}", r.obs);
    let msg = errs[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("extension exited before hello: exit status 1"),
        "{msg}"
    );
    assert!(
        msg.contains(
            "  stderr (last 4 lines):\n    Traceback (most recent call last):\n      File \"main.py\", line 1, in <module>\n        import requests\n    ModuleNotFoundError: No module named 'requests'"
        ),
        "{msg}"
    );
    assert!(!msg.contains("earlier run"), "{msg}");
    assert!(
        !msg.contains("[zot]"),
        "host lines are not the extension's: {msg}"
    );
    // The same through the command line, as a user sees it.
    let script = env.tmp.path().join("s.json");
    std::fs::write(&script, r#"{"steps": []}"#).unwrap();
    let o = zot(
        &env,
        &[
            "run",
            "--script",
            &script.display().to_string(),
            "--ext",
            &env.tmp.path().join("exts/nomod").display().to_string(),
        ],
    );
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        all.contains("ModuleNotFoundError: No module named 'requests'"),
        "{all}"
    );
}

#[test]
fn doctor_shows_the_last_stderr_lines_of_an_extension_that_died_before_hello() {
    let env = Env::new();
    env.ext_in(&global(&env), "nomod", "nomod", missing_module());
    let o = zot(&env, &["ext", "doctor", "--json"]);
    let v = json_out(&o);
    let ext = v["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "nomod")
        .unwrap()
        .clone();
    assert_eq!(ext["state"], "load_error", "{ext}");
    assert_eq!(
        ext["stderr"].as_array().unwrap().last().unwrap(),
        "ModuleNotFoundError: No module named 'requests'",
        "{ext}"
    );
    let text = stdout(&zot(&env, &["ext", "doctor"]));
    assert!(
        text.contains("stderr, last lines:\n")
            && text.contains("      ModuleNotFoundError: No module named 'requests'\n"),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn install_refusing_a_venv_names_the_link_that_leaves_and_the_fix() {
    use std::os::unix::fs::symlink;
    let env = Env::new();
    let src = source(&env, "withvenv", "withvenv");
    // What `python3 -m venv .venv` makes: the interpreter links out, its
    // aliases link to it, `lib64` links inside.
    let venv = src.join(".venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::create_dir_all(venv.join("lib")).unwrap();
    std::fs::write(venv.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    symlink("/usr/bin/python3", venv.join("bin/python")).unwrap();
    symlink("python", venv.join("bin/python3")).unwrap();
    symlink("python", venv.join("bin/python3.11")).unwrap();
    symlink("lib", venv.join("lib64")).unwrap();
    let err = fails(&zot(&env, &["ext", "install", &src.display().to_string()]));
    assert!(
        err.contains(
            "symbolic link .venv/bin/python -> /usr/bin/python3 points outside the extension directory; \
             .venv is a Python virtual environment"
        ),
        "{err}"
    );
    assert!(
        err.contains("python3 -m venv --copies .venv") && err.contains("docs/ship/python.md"),
        "{err}"
    );
    assert!(entries(&global(&env)).is_empty());

    // The fix it names works: a venv made with --copies installs, and its
    // interpreter runs from the installed copy.
    std::fs::remove_dir_all(&venv).unwrap();
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--copies", "--without-pip", ".venv"])
        .current_dir(&src)
        .status()
        .unwrap();
    assert!(made.success());
    ok(&zot(&env, &["ext", "install", &src.display().to_string()]));
    let py = global(&env).join("withvenv/.venv/bin/python");
    let out = std::process::Command::new(&py)
        .args(["-c", "import sys; print(sys.prefix)"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        global(&env).join("withvenv/.venv").display().to_string()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_exec_that_cannot_start_says_where_the_host_looked() {
    let env = Env::new();
    // A venv that was left out of the install (or never created).
    let venv = env.ext("novenv", json!({"on_ack": [ready()]}));
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(venv.join("extension.json")).unwrap())
            .unwrap();
    m["exec"] = json!(".venv/bin/python");
    std::fs::write(venv.join("extension.json"), m.to_string()).unwrap();
    // An interpreter that is not installed.
    let bare = env.ext("nointerp", json!({"on_ack": [ready()]}));
    m["name"] = json!("nointerp");
    m["exec"] = json!("python3.99-not-installed");
    std::fs::write(bare.join("extension.json"), m.to_string()).unwrap();
    let r = env.run(&[venv.clone(), bare], json!({"steps": []})).await;
    let msgs: Vec<&str> = r
        .kinds("load_error")
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    let want = format!(
        "spawn: {} does not exist; fix `exec` in extension.json, or create it",
        venv.join(".venv/bin/python").display()
    );
    assert!(msgs.iter().any(|m| m.contains(&want)), "{want} in {msgs:?}");
    assert!(
        msgs.iter()
            .any(|m| m.contains("spawn: \"python3.99-not-installed\" is not on PATH")),
        "{msgs:?}"
    );
}
