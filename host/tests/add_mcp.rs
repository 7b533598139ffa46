//! `zot-host ext add-mcp NAME -- COMMAND…`: the manifest it installs runs
//! `zot-mcp wrap --name NAME -- COMMAND…`, and the install behaves like
//! `ext install`.

use std::process::Command;

fn zot_host(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zot-host"))
        .args(args)
        .current_dir(home)
        .env("ZOT_HOME", home.join("zot"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn installs_a_manifest_that_wraps_the_command() {
    let home = tempfile::tempdir().unwrap();
    let cmd = [
        "ext",
        "add-mcp",
        "everything",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-everything",
    ];
    let out = zot_host(home.path(), &cmd);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Installed everything"), "{stdout}");
    let manifest = home.path().join("zot/extensions/everything/extension.json");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
    assert_eq!(manifest["name"], "everything");
    assert_eq!(manifest["exec"], "zot-mcp");
    assert_eq!(
        manifest["args"],
        serde_json::json!([
            "wrap",
            "--name",
            "everything",
            "--",
            "npx",
            "-y",
            "@modelcontextprotocol/server-everything"
        ])
    );
    // A second add of the same name is refused like a second install.
    let again = zot_host(home.path(), &cmd);
    assert!(!again.status.success(), "a second install without --force");
    let mut forced = cmd.to_vec();
    forced.insert(3, "--force");
    assert!(zot_host(home.path(), &forced).status.success());
}

#[test]
fn a_command_is_required() {
    let home = tempfile::tempdir().unwrap();
    let out = zot_host(home.path(), &["ext", "add-mcp", "x"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
}
