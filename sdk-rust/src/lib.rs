//! The zot extension runtime and Rust SDK (filled by the sdk-rust issue).
