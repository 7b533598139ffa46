//! The committed JSON Schema files must be exactly what the types produce.
//! Regenerate with `cargo run -p zot-codegen`.

#[test]
fn committed_schemas_match_the_types() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (path, expected) in zot_protocol::schema::files() {
        let committed = std::fs::read_to_string(root.join(path))
            .unwrap_or_else(|e| panic!("protocol/{path}: {e}; run `cargo run -p zot-codegen`"));
        assert!(
            committed == expected,
            "protocol/{path} is stale: run `cargo run -p zot-codegen`"
        );
    }
}

#[test]
fn every_frame_type_is_in_the_schema() {
    let ext = serde_json::to_string(&zot_protocol::schema::ext_to_host()).unwrap();
    for t in zot_protocol::ExtFrame::TYPES {
        assert!(
            ext.contains(&format!("\"{t}\"")),
            "`{t}` missing from the schema"
        );
    }
    let host = serde_json::to_string(&zot_protocol::schema::host_to_ext()).unwrap();
    for t in zot_protocol::HostFrame::TYPES {
        assert!(
            host.contains(&format!("\"{t}\"")),
            "`{t}` missing from the schema"
        );
    }
    for e in zot_protocol::values::LIFECYCLE_EVENT_NAMES {
        assert!(host.contains(&format!("\"{e}\"")), "event `{e}` missing");
    }
}
