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
            continue; // JSON has no comments; these are zot_protocol::schema::files()
        }
        let first = f.contents.lines().next().unwrap_or_default();
        assert!(
            // Markdown carries it inside an HTML comment.
            first.ends_with(zot_codegen::render::HEADER)
                || first == format!("<!-- {} -->", zot_codegen::render::HEADER),
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
