//! Builds the Rust targets' binaries before a run (`cargo build -p
//! bench-floor -p conformance-rust`, release by default), so a measurement
//! never runs stale or missing binaries.

use std::process::Command;

use crate::config::{Options, Profile};
use crate::error::{Error, Result};
use crate::targets::RUST_PACKAGES;

/// Builds the Rust targets; cargo's output goes to the terminal.
pub fn build(opts: &Options) -> Result<()> {
    build_packages(opts, RUST_PACKAGES)
}

/// Builds the reference host (separately: it is work in progress, and a
/// broken host must not keep the other targets from being measured).
pub fn build_host(opts: &Options) -> Result<()> {
    build_packages(opts, &["zot-host"])
}

fn build_packages(opts: &Options, packages: &[&str]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.arg("build").current_dir(&opts.root);
    for p in packages {
        cmd.args(["-p", p]);
    }
    if opts.profile == Profile::Release {
        cmd.arg("--release");
    }
    let status = cmd
        .status()
        .map_err(|e| Error::new(format!("running cargo: {e}")))?;
    if status.success() {
        Ok(())
    } else {
        Err(Error::new(format!(
            "cargo build of the Rust targets failed ({status})"
        )))
    }
}
