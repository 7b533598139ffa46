//! The committed generated files are exactly what the generator renders now.
//! Regenerate with `cargo run -p zot-codegen`.

#[test]
fn committed_files_are_current() {
    let files = zot_codegen::generate().expect("generation succeeds");
    let root = zot_codegen::workspace_root();
    let stale: Vec<&str> = zot_codegen::stale(&root, &files)
        .into_iter()
        .map(|f| f.path.as_str())
        .collect();
    assert!(
        stale.is_empty(),
        "stale generated files: {}; run `cargo run -p zot-codegen`",
        stale.join(", ")
    );
}

#[test]
fn every_file_but_the_json_schemas_starts_with_the_header() {
    for f in zot_codegen::generate().unwrap() {
        if f.path.ends_with(".json") {
            continue; // JSON has no comments (the protocol's and the contract's schemas)
        }
        let first = f.contents.lines().next().unwrap_or_default();
        let header = if f.path == zot_codegen::TYPESCRIPT_CONTRACT_PATH
            || f.path == zot_codegen::PYTHON_CONTRACT_PATH
        {
            zot_codegen::render::CONTRACT_HEADER
        } else {
            zot_codegen::render::HEADER
        };
        assert!(
            // Markdown carries it inside an HTML comment.
            first.ends_with(header) || first == format!("<!-- {header} -->"),
            "{} starts with {first:?}",
            f.path
        );
    }
}

#[test]
fn the_schema_files_are_the_protocol_crates() {
    let generated = zot_codegen::generate().unwrap();
    for (path, text) in zot_protocol::schema::files() {
        let f = generated
            .iter()
            .find(|f| f.path == format!("protocol/{path}"))
            .unwrap_or_else(|| panic!("protocol/{path} is not generated"));
        assert_eq!(f.contents, text);
    }
}
