//! # zot-bench
//!
//! A benchmark harness for the zot extension protocol. It plays the host
//! directly against extension directories (spawn per `extension.json`,
//! handshake, then scenarios) and measures every target side by side
//! against a minimal Rust extension, the floor (`bench/floor`), in two CPU
//! placements. See `bench/README.md` for the scenarios and how to read the
//! ratios.
//!
//! ```no_run
//! let opts = zot_bench::config::Options::parse(["--quick".to_owned()]).unwrap().unwrap();
//! let report = zot_bench::runner::run(&opts).unwrap();
//! println!("{}", report.to_markdown());
//! ```

#![warn(missing_docs)]

#[macro_use]
pub mod error;

pub mod affinity;
pub mod config;
pub mod conn;
pub mod frames;
pub mod goals;
pub mod handshake;
pub mod instructions;
pub mod lines;
pub mod memory;
pub mod meta;
pub mod prebuild;
pub mod report;
pub mod results;
pub mod runner;
pub mod scenario_id;
pub mod scenarios;
pub mod session;
pub mod soak;
pub mod spawn;
pub mod stats;
pub mod targets;

pub use error::{Error, Result};
