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

/// Every frame payload type (and the event unions) carries
/// `#[schemars(inline)]`: a frame's fields are listed in its own `oneOf`
/// member, the shape codegen and typify read as a tagged union member, not
/// behind an `allOf` / `$ref` to a definition.
#[test]
fn every_frame_member_lists_its_own_fields() {
    fn check(members: &serde_json::Value, path: &str) {
        for member in members.as_array().expect("`oneOf` is an array") {
            let tag = ["type", "event"]
                .iter()
                .find_map(|t| member["properties"][t]["enum"][0].as_str())
                .unwrap_or("(unknown)");
            for key in ["allOf", "anyOf", "$ref"] {
                assert!(
                    member.get(key).is_none(),
                    "{path} member `{tag}` has `{key}`: add #[schemars(inline)] to its payload type"
                );
            }
            if let Some(nested) = member.get("oneOf") {
                check(nested, &format!("{path}/{tag}"));
            }
        }
    }
    for (name, root) in [
        ("ExtFrame", zot_protocol::schema::ext_to_host()),
        ("HostFrame", zot_protocol::schema::host_to_ext()),
    ] {
        check(&root.as_value()["oneOf"], name);
    }
}
