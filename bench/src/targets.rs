//! The targets measured side by side, and how each one is started.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::Options;
use crate::error::Result;
use crate::spawn::LaunchSpec;

/// What a target stands for in the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The minimal Rust extension every figure is divided by.
    Floor,
    /// The conformance extension written with a project SDK.
    Sdk,
    /// The same benchmark extension written with zot's own SDK (not this
    /// project's): compared with, never checked against the goals.
    Upstream,
    /// A hand-rolled script without SDK (what users write today).
    Raw,
    /// A plain line echo through the pipes (`cat`): the OS floor.
    Os,
}

/// How a target is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// An extension directory with an `extension.json`.
    Extension {
        /// The directory (relative to the workspace root).
        dir: PathBuf,
        /// Replaces the manifest's `exec` (a binary under the target dir).
        exec_override: Option<PathBuf>,
    },
    /// A program that echoes its input lines (`cat`).
    LinePipe {
        /// Program name, looked up on `PATH`.
        program: String,
    },
}

/// A Go extension built before it is probed: its sources are copied into a
/// scratch module under the target dir whose generated `go.mod` replaces
/// the SDK module with a local checkout, then `go build` runs there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoBuild {
    /// The extension's Go sources (`*.go`; the extension directory).
    pub src: PathBuf,
    /// The local checkout of [`GO_SDK_MODULE`] (`--go-sdk`, `ZOT_GO_SDK`).
    pub sdk: Option<PathBuf>,
    /// The scratch module directory; the binary is built into it.
    pub scratch: PathBuf,
    /// The binary's file name.
    pub binary: &'static str,
}

impl GoBuild {
    /// Path of the built binary.
    pub fn binary_path(&self) -> PathBuf {
        self.scratch.join(self.binary)
    }
}

/// The module path of zot's Go SDK (package `packages/agent/ext`).
pub const GO_SDK_MODULE: &str = "github.com/patriceckhart/zot";

/// One target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Short name (`--only`, JSON keys, table columns).
    pub name: &'static str,
    /// What it is, in a few words.
    pub what: &'static str,
    /// Its role.
    pub role: Role,
    /// For SDK targets: the raw script it is compared with.
    pub raw_baseline: Option<&'static str>,
    /// How it is started.
    pub launch: Launch,
    /// For Go targets: how its binary is built (in the probe, unless
    /// `--no-build`).
    pub go_build: Option<GoBuild>,
}

/// The column of the goal tables a target's checks go in: an SDK's twin
/// of a raw script (the same extension, written with the SDK) is that SDK's.
pub fn sdk_column(target: &str) -> &str {
    match target {
        "rust-twin" => "rust-sdk",
        "node-twin" => "node-sdk",
        "python-twin" => "python-sdk",
        other => other,
    }
}

/// Name of the floor target.
pub const FLOOR: &str = "floor";

/// Every target, in table order.
pub fn catalog(opts: &Options) -> Vec<Target> {
    let bin = opts.bin_dir();
    let ext = |dir: &str, exec: Option<&str>| Launch::Extension {
        dir: opts.root.join(dir),
        exec_override: exec.map(|e| bin.join(e)),
    };
    let go_sdk = GoBuild {
        src: opts.root.join("bench/go-sdk"),
        sdk: opts.go_sdk.clone(),
        scratch: opts.target_dir.join("zot-bench/go-sdk"),
        binary: "bench-go-sdk",
    };
    vec![
        Target {
            name: FLOOR,
            what: "minimal Rust extension (bench/floor)",
            role: Role::Floor,
            raw_baseline: None,
            launch: ext("bench/floor", Some("bench-floor")),
            go_build: None,
        },
        Target {
            name: "rust-sdk",
            what: "conformance extension, Rust SDK",
            role: Role::Sdk,
            raw_baseline: None,
            launch: ext("tests/conformance/rust", Some("conformance-rust")),
            go_build: None,
        },
        Target {
            name: "rust-twin",
            what: "the floor's extension, Rust SDK (bench/twin/rust)",
            role: Role::Sdk,
            raw_baseline: None,
            launch: ext("bench/twin/rust", Some("bench-twin-rust")),
            go_build: None,
        },
        Target {
            name: "node-sdk",
            what: "conformance extension, Node SDK",
            role: Role::Sdk,
            raw_baseline: Some("raw-node"),
            launch: ext("tests/conformance/node", None),
            go_build: None,
        },
        Target {
            name: "python-sdk",
            what: "conformance extension, Python SDK",
            role: Role::Sdk,
            raw_baseline: Some("raw-python"),
            launch: ext("tests/conformance/python", None),
            go_build: None,
        },
        Target {
            name: "node-twin",
            what: "the raw Node script's extension, Node SDK (bench/twin/node)",
            role: Role::Sdk,
            raw_baseline: Some("raw-node"),
            launch: ext("bench/twin/node", None),
            go_build: None,
        },
        Target {
            name: "python-twin",
            what: "the raw Python script's extension, Python SDK (bench/twin/python)",
            role: Role::Sdk,
            raw_baseline: Some("raw-python"),
            launch: ext("bench/twin/python", None),
            go_build: None,
        },
        Target {
            name: "go-sdk",
            what: "benchmark extension, zot's Go SDK (bench/go-sdk)",
            role: Role::Upstream,
            raw_baseline: None,
            launch: Launch::Extension {
                dir: go_sdk.src.clone(),
                exec_override: Some(go_sdk.binary_path()),
            },
            go_build: Some(go_sdk),
        },
        Target {
            name: "raw-node",
            what: "hand-rolled Node script (bench/raw/node)",
            role: Role::Raw,
            raw_baseline: None,
            launch: ext("bench/raw/node", None),
            go_build: None,
        },
        Target {
            name: "raw-python",
            what: "hand-rolled Python script (bench/raw/python)",
            role: Role::Raw,
            raw_baseline: None,
            launch: ext("bench/raw/python", None),
            go_build: None,
        },
        Target {
            name: "mcp-wrap",
            what: "hand-rolled Python MCP server through zot-mcp wrap (bench/mcp-wrap)",
            role: Role::Raw,
            raw_baseline: Some("raw-python"),
            launch: ext("bench/mcp-wrap", Some("zot-mcp")),
            go_build: None,
        },
        Target {
            name: "pipe-cat",
            what: "plain line echo through `cat` (OS floor)",
            role: Role::Os,
            raw_baseline: None,
            launch: Launch::LinePipe {
                program: "cat".into(),
            },
            go_build: None,
        },
    ]
}

/// The cargo packages whose binaries the Rust targets run.
pub const RUST_PACKAGES: &[&str] = &[
    "bench-floor",
    "bench-twin-rust",
    "conformance-rust",
    "zot-mcp",
];

impl Target {
    /// Resolves how to start it; an error means the target is missing.
    pub fn launch_spec(&self, root: &Path) -> Result<LaunchSpec> {
        match &self.launch {
            Launch::Extension { dir, exec_override } => {
                if !dir.join("extension.json").is_file() {
                    bail!("{} has no extension.json (not written yet?)", dir.display());
                }
                LaunchSpec::for_extension(dir, exec_override.as_deref())
            }
            Launch::LinePipe { program } => LaunchSpec::program(program, root),
        }
    }

    /// Whether it speaks the protocol (everything but the pipe echo).
    pub fn is_extension(&self) -> bool {
        matches!(self.launch, Launch::Extension { .. })
    }
}
