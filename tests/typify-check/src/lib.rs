//! The Rust types typify generates from `protocol/schema/*.json`.

#![allow(clippy::all, missing_docs, dead_code)]

pub mod ext_to_host {
    include!(concat!(env!("OUT_DIR"), "/ext_to_host.rs"));
}

pub mod host_to_ext {
    include!(concat!(env!("OUT_DIR"), "/host_to_ext.rs"));
}
