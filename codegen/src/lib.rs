//! # zot-codegen
//!
//! Generates, from the `zot-protocol` crate (the single source of truth),
//! every derived file of the repository:
//!
//! - the JSON Schema of both directions (`protocol/schema/*.json`, exactly
//!   [`zot_protocol::schema::files`]);
//! - the TypeScript wire types (`sdk-node/src/generated/protocol.ts`);
//! - the Python wire types (`sdk-python/python/zot_ext/_protocol.py`) and the
//!   typed `Extension.on` overloads (`sdk-python/python/zot_ext/_events.py`);
//! - the field tables and the numbers of the docs (`docs/reference/`).
//!
//! The pipeline is schema → [`ir`] ([`lower`]) → source text ([`render`],
//! askama templates in `codegen/templates/`). Run `cargo run -p zot-codegen`
//! to write the files, `cargo run -p zot-codegen -- --check` to verify that
//! the committed ones are current.

#![warn(missing_docs)]

use std::path::{Path, PathBuf};

pub mod ir;
pub mod limits_md;
pub mod lower;
pub mod markdown;
pub mod naming;
pub mod render;

use ir::Section;
use lower::RootSpec;

/// Where the TypeScript types are written, relative to the workspace root.
pub const TYPESCRIPT_PATH: &str = "sdk-node/src/generated/protocol.ts";

/// Where the Python types are written, relative to the workspace root.
pub const PYTHON_PATH: &str = "sdk-python/python/zot_ext/_protocol.py";

/// Where the typed Python `on` overloads are written.
pub const PYTHON_EVENTS_PATH: &str = "sdk-python/python/zot_ext/_events.py";

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path relative to the workspace root, `/`-separated.
    pub path: String,
    /// The full contents.
    pub contents: String,
}

/// Why generation failed.
#[derive(Debug)]
pub enum Error {
    /// The schema uses a construct the generators cannot express.
    Lower(lower::LowerError),
    /// A name cannot be written in a target language, or a template failed.
    Render(render::RenderError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Lower(e) => write!(f, "cannot lower the schema: {e}"),
            Error::Render(e) => write!(f, "cannot render: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<lower::LowerError> for Error {
    fn from(e: lower::LowerError) -> Self {
        Error::Lower(e)
    }
}

impl From<render::RenderError> for Error {
    fn from(e: render::RenderError) -> Self {
        Error::Render(e)
    }
}

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("codegen/ has a parent")
        .to_path_buf()
}

/// The IR of both directions, built from [`zot_protocol::schema`].
pub fn module() -> Result<ir::Module, Error> {
    let ext = draft07(zot_protocol::schema::ext_to_host().to_value())?;
    let host = draft07(zot_protocol::schema::host_to_ext().to_value())?;
    Ok(lower::lower(&[
        RootSpec {
            name: "ExtFrame",
            section: Section::ExtToHost,
            conflict_prefix: "Ext",
            schema: &ext,
        },
        RootSpec {
            name: "HostFrame",
            section: Section::HostToExt,
            conflict_prefix: "Host",
            schema: &host,
        },
    ])?)
}

/// A schema of [`zot_protocol::schema`] as a typed draft-07 document.
fn draft07(schema: serde_json::Value) -> Result<schemars08::schema::RootSchema, Error> {
    serde_json::from_value(schema).map_err(|e| {
        Error::Lower(lower::LowerError {
            path: "/".to_owned(),
            message: format!("not a draft-07 schema: {e}"),
        })
    })
}

/// Renders every generated file in memory.
pub fn generate() -> Result<Vec<GeneratedFile>, Error> {
    let mut files: Vec<GeneratedFile> = zot_protocol::schema::files()
        .into_iter()
        .map(|(path, contents)| GeneratedFile {
            path: format!("protocol/{path}"),
            contents,
        })
        .collect();
    let module = module()?;
    files.push(GeneratedFile {
        path: TYPESCRIPT_PATH.to_owned(),
        contents: render::typescript(&module)?,
    });
    files.push(GeneratedFile {
        path: PYTHON_PATH.to_owned(),
        contents: render::python(&module)?,
    });
    files.push(GeneratedFile {
        path: PYTHON_EVENTS_PATH.to_owned(),
        contents: render::python_events(&module)?,
    });
    files.push(GeneratedFile {
        path: markdown::MARKDOWN_PATH.to_owned(),
        contents: markdown::markdown(&module),
    });
    files.push(GeneratedFile {
        path: limits_md::LIMITS_PATH.to_owned(),
        contents: limits_md::markdown(),
    });
    Ok(files)
}

/// The files whose copy under `root` is missing or differs.
pub fn stale<'f>(root: &Path, files: &'f [GeneratedFile]) -> Vec<&'f GeneratedFile> {
    files
        .iter()
        .filter(|f| {
            std::fs::read(root.join(&f.path)).ok().as_deref() != Some(f.contents.as_bytes())
        })
        .collect()
}

/// Writes the stale files under `root`; returns their paths.
pub fn write(root: &Path, files: &[GeneratedFile]) -> std::io::Result<Vec<String>> {
    let mut written = Vec::new();
    for f in stale(root, files) {
        let path = root.join(&f.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&path, &f.contents)?;
        written.push(f.path.clone());
    }
    Ok(written)
}
