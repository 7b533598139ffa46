//! Placeholder: writes the JSON Schema files (the TypeScript/Python
//! generators land next).
fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocol");
    for (path, text) in zot_protocol::schema::files() {
        std::fs::write(root.join(path), text).unwrap();
    }
}
