//! # zot-mcp
//!
//! Bridges zot extensions and the Model Context Protocol (MCP).
//! `zot-mcp wrap -- COMMAND [ARGS…]` runs an MCP server over stdio and
//! offers its tools to a zot host as an extension (README.md says what maps
//! to what, and what does not).

pub mod client;
pub mod content;
pub mod names;
pub mod serve;
pub mod wrap;
