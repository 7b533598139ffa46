//! The JSON Schema of both directions, generated from the Rust types.
//!
//! The schemas are committed under `protocol/schema/` (written by
//! `zot-codegen`) and checked against these functions by the tests, so the
//! published files never drift from the code.

use schemars::gen::SchemaSettings;
use schemars::schema::RootSchema;

use crate::ext_frames::ExtFrame;
use crate::host_frames::HostFrame;

fn generator() -> schemars::gen::SchemaGenerator {
    SchemaSettings::draft07()
        .with(|s| s.option_add_null_type = false)
        .into_generator()
}

/// The schema of every frame an extension sends.
pub fn ext_to_host() -> RootSchema {
    let mut root = generator().into_root_schema_for::<ExtFrame>();
    set_title(
        &mut root,
        "zot extension protocol v1: extension → host frames",
    );
    root
}

/// The schema of every frame a host sends.
pub fn host_to_ext() -> RootSchema {
    let mut root = generator().into_root_schema_for::<HostFrame>();
    set_title(
        &mut root,
        "zot extension protocol v1: host → extension frames",
    );
    root
}

fn set_title(root: &mut RootSchema, title: &str) {
    root.schema.metadata().title = Some(title.to_owned());
}

/// The committed files: (path relative to `protocol/`, pretty JSON text).
pub fn files() -> Vec<(&'static str, String)> {
    let pretty = |r: &RootSchema| {
        let mut s = serde_json::to_string_pretty(r).expect("schemas serialize");
        s.push('\n');
        s
    };
    vec![
        ("schema/extension-to-host.json", pretty(&ext_to_host())),
        ("schema/host-to-extension.json", pretty(&host_to_ext())),
    ]
}
