//! Linker set-up for a Node-API addon (napi-rs).

fn main() {
    napi_build::setup();
}
