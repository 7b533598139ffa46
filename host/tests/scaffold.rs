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

fn read(dir: &std::path::Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn writes_a_ready_folder_in_each_language() {
    let tmp = tempfile::tempdir().unwrap();
    for (lang, code, test) in [
        ("rust", "src/main.rs", "src/main.rs"),
        ("javascript", "extension.mjs", "test/extension.test.mjs"),
        ("node", "extension.mjs", "test/extension.test.mjs"),
        ("typescript", "src/extension.ts", "src/extension.test.ts"),
        ("ts", "src/extension.ts", "src/extension.test.ts"),
        ("python", "extension.py", "tests/test_extension.py"),
    ] {
        let dir = tmp.path().join(lang);
        let o = new(&[
            "My.Tool",
            "--lang",
            lang,
            "--dir",
            dir.to_str().unwrap(),
            "--published-sdk",
        ]);
        assert!(
            o.status.success(),
            "{lang}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (manifest, _) = zot_host::store::manifest::load_manifest(&dir).unwrap();
        assert_eq!(manifest.name, "My.Tool");
        for f in [
            "README.md",
            ".gitignore",
            ".zotignore",
            "session.json",
            code,
            test,
        ] {
            assert!(dir.join(f).is_file(), "{lang}: {f}");
        }
        let code = std::fs::read_to_string(dir.join(code)).unwrap();
        assert!(
            code.contains("\"my-tool\"")
                && code.contains("\"my_tool_greet\"")
                && code.contains("turn_start"),
            "{lang}: {code}"
        );
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(said.contains(&dir.display().to_string()), "{said}");
        assert!(
            said.contains("zot-host run --script session.json --ext ."),
            "{said}"
        );
        // The session script replays the scaffold's own command and tool.
        let script: serde_json::Value = serde_json::from_str(&read(&dir, "session.json")).unwrap();
        let text = script.to_string();
        assert!(
            text.contains("/my-tool Ada") && text.contains("my_tool_greet"),
            "{text}"
        );
    }
    // The published packages, at this version.
    let version = env!("CARGO_PKG_VERSION");
    let rust = read(&tmp.path().join("rust"), "Cargo.toml");
    assert!(rust.contains(&format!("zot-ext = \"{version}\"")) && !rust.contains("[patch"));
    let ts = read(&tmp.path().join("typescript"), "package.json");
    assert!(ts.contains(&format!("\"zot-ext\": \"^{version}\"")), "{ts}");
    let py = read(&tmp.path().join("python"), "pyproject.toml");
    assert!(py.contains(&format!("\"zot-ext>={version}\"")) && !py.contains("sources"));
    let manifest = read(&tmp.path().join("typescript"), "extension.json");
    assert!(manifest.contains("dist/index.js"), "{manifest}");
}

#[test]
fn sdk_from_a_checkout_wires_its_builds_in_each_toolchain() {
    let tmp = tempfile::tempdir().unwrap();
    let checkout = tmp.path().join("zot-ext");
    let sdk = checkout.join("target/sdk");
    std::fs::create_dir_all(checkout.join("sdk-rust")).unwrap();
    std::fs::create_dir_all(&sdk).unwrap();
    let tgz = sdk.join("zot-ext-0.1.0.tgz");
    let whl = sdk.join("zot_ext-0.1.0-cp39-abi3-linux_x86_64.whl");
    std::fs::write(&tgz, "").unwrap();
    std::fs::write(&whl, "").unwrap();
    let description = serde_json::json!({
        "version": "0.1.0", "checkout": checkout, "rust": checkout.join("sdk-rust"),
        "npm": tgz, "python": whl,
    });
    std::fs::write(sdk.join("zot-sdk.json"), description.to_string()).unwrap();
    let make = |lang: &str| {
        let dir = tmp.path().join(lang);
        let o = new(&[
            "x",
            "--lang",
            lang,
            "--dir",
            dir.to_str().unwrap(),
            "--sdk-from",
            checkout.to_str().unwrap(),
        ]);
        let said = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{lang}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(said.contains("comes from the zot-ext checkout"), "{said}");
        dir
    };
    let rust = read(&make("rust"), "Cargo.toml");
    let patch = format!(
        "[patch.crates-io]\nzot-ext = {{ path = \"{}\" }}",
        checkout.join("sdk-rust").display()
    );
    assert!(rust.contains(&patch), "{rust}");
    let js = read(&make("javascript"), "package.json");
    assert!(
        js.contains(&format!("\"zot-ext\": \"file:{}\"", tgz.display())),
        "{js}"
    );
    let py = read(&make("python"), "pyproject.toml");
    let source = format!(
        "[tool.uv.sources]\nzot-ext = {{ path = \"{}\" }}",
        whl.display()
    );
    assert!(py.contains(&source), "{py}");

    // A folder that is no checkout is refused, naming what to do.
    let o = new(&[
        "y",
        "--lang",
        "rust",
        "--dir",
        tmp.path().join("y").to_str().unwrap(),
        "--sdk-from",
        tmp.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("./dev install") && err.lines().count() == 1,
        "{err}"
    );
    assert!(!tmp.path().join("y").exists());
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
