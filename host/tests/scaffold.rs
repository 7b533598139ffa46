//! `zot-host new` from the command line: the folder it writes, and what it
//! refuses. (`scripts/test.d/45-scaffold.sh` runs each scaffold's own test
//! and `ext doctor` on it, which needs the Node and Python SDKs built.)

use std::process::Command;

fn new(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zot-host"))
        .arg("new")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn writes_a_ready_folder_in_each_language() {
    let tmp = tempfile::tempdir().unwrap();
    for (lang, code, test) in [
        ("rust", "src/main.rs", "src/main.rs"),
        ("node", "extension.mjs", "test/extension.test.mjs"),
        ("python", "extension.py", "tests/test_extension.py"),
    ] {
        let dir = tmp.path().join(lang);
        let o = new(&["My.Tool", "--lang", lang, "--dir", dir.to_str().unwrap()]);
        assert!(
            o.status.success(),
            "{lang}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (manifest, _) = zot_host::manifest::load_manifest(&dir).unwrap();
        assert_eq!(manifest.name, "My.Tool");
        for f in ["README.md", ".gitignore", ".zotignore", code, test] {
            assert!(dir.join(f).is_file(), "{lang}: {f}");
        }
        let code = std::fs::read_to_string(dir.join(code)).unwrap();
        assert!(
            code.contains("\"my-tool\"")
                && code.contains("\"my_tool_greet\"")
                && code.contains("turn_start"),
            "{lang}: {code}"
        );
        assert!(String::from_utf8_lossy(&o.stdout).contains(&dir.display().to_string()));
    }
}

#[test]
fn refuses_bad_names_and_used_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("x");
    for (name, says) in [
        ("../evil", "path separator"),
        ("a b", "holds ' '"),
        ("9lives", "start with a letter"),
    ] {
        let o = new(&[name, "--lang", "rust", "--dir", dir.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(
            err.contains(says) && err.lines().count() == 1,
            "{name}: {err}"
        );
        assert!(!dir.exists(), "{name}: a folder was left");
    }
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mine.txt"), "keep").unwrap();
    let o = new(&["ok", "--lang", "node", "--dir", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already exists and is not empty"));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}
