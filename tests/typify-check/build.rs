//! Runs typify on the committed schemas of both directions and writes the
//! generated Rust modules into `OUT_DIR`.

use std::path::{Path, PathBuf};

use schemars08::schema::{RootSchema, Schema};
use typify::{TypeSpace, TypeSpaceSettings};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let schema_dir = manifest.join("../../protocol/schema");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    for (file, root_name, module) in [
        ("extension-to-host.json", "ExtFrame", "ext_to_host.rs"),
        ("host-to-extension.json", "HostFrame", "host_to_ext.rs"),
    ] {
        let path = schema_dir.join(file);
        println!("cargo::rerun-if-changed={}", path.display());
        let code = generate(&path, root_name);
        std::fs::write(out.join(module), code).unwrap();
    }
}

/// The typify output for one schema file, its root type named `root_name`.
fn generate(path: &Path, root_name: &str) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let root: RootSchema = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a draft-07 schema: {e}", path.display()));
    // typify names a root type after its `title`, a sentence here; drop it
    // so that the root gets the Rust name instead (metadata only).
    let mut schema = root.schema;
    if let Some(meta) = schema.metadata.as_mut() {
        meta.title = None;
    }
    let mut space = TypeSpace::new(TypeSpaceSettings::default().with_struct_builder(false));
    space
        .add_ref_types(root.definitions)
        .unwrap_or_else(|e| panic!("typify rejects the definitions of {}: {e}", path.display()));
    space
        .add_type_with_name(&Schema::Object(schema), Some(root_name.to_owned()))
        .unwrap_or_else(|e| panic!("typify rejects the root of {}: {e}", path.display()));
    space.to_stream().to_string()
}
