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
//! - the field tables and the numbers of the docs (`docs/reference/`);
//! - from `zot-ext-engine`'s contract ([`zot_ext_engine::binding::contract`]), the
//!   messages between the engine and the Node and Python bindings: their
//!   JSON Schema (`engine/schema/contract.json`) and their TypeScript
//!   (`sdk-node/src/generated/contract.ts`) and Python
//!   (`sdk-python/python/zot_ext/_contract.py`) types, which import the
//!   protocol types they carry.
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

/// Where the TypeScript contract types are written.
pub const TYPESCRIPT_CONTRACT_PATH: &str = "sdk-node/src/generated/contract.ts";

/// Where the Python contract types are written.
pub const PYTHON_CONTRACT_PATH: &str = "sdk-python/python/zot_ext/_contract.py";

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

/// The IR of the engine ↔ binding contract, and the names it takes from the
/// protocol module (`protocol`, from [`module`]).
///
/// A definition of the contract schema that the protocol module declares
/// too (a content block, a panel spec, a value set) is the protocol's type:
/// it is dropped and referred to, never declared twice.
pub fn contract_module(protocol: &ir::Module) -> Result<(ir::Module, Vec<String>), Error> {
    let mut schema = zot_ext_engine::binding::contract::schema().to_value();
    let shared: Vec<String> = schema
        .get("definitions")
        .and_then(|d| d.as_object())
        .map(|d| {
            d.keys()
                .filter(|k| protocol.get(k).is_some())
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if let Some(defs) = schema
        .get_mut("definitions")
        .and_then(|d| d.as_object_mut())
    {
        for name in &shared {
            defs.remove(name);
        }
    }
    refer_to_protocol(&mut schema, &shared);
    let schema = draft07(schema)?;
    let module = lower::lower(&[RootSpec {
        name: "Job",
        section: Section::Contract,
        conflict_prefix: "",
        schema: &schema,
    }])?;
    let mut imports = Vec::new();
    for def in &module.types {
        for name in named_types(def) {
            if module.get(&name).is_some() || imports.contains(&name) {
                continue;
            }
            if protocol.get(&name).is_none() {
                return Err(Error::Lower(lower::LowerError {
                    path: format!("contract/{}", def.name()),
                    message: format!("`{name}` is neither a contract nor a protocol type"),
                }));
            }
            imports.push(name);
        }
    }
    imports.sort();
    Ok((module, imports))
}

/// Rewrites `#/definitions/<shared>` to the protocol reference.
fn refer_to_protocol(v: &mut serde_json::Value, shared: &[String]) {
    match v {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::String(r)) = map.get_mut("$ref") {
                if let Some(name) = r.strip_prefix("#/definitions/") {
                    if shared.iter().any(|s| s == name) {
                        *r = format!("{}{name}", lower::PROTOCOL_REF);
                    }
                }
            }
            map.values_mut().for_each(|v| refer_to_protocol(v, shared));
        }
        serde_json::Value::Array(items) => {
            items.iter_mut().for_each(|v| refer_to_protocol(v, shared))
        }
        _ => {}
    }
}

/// The named types a declaration refers to.
fn named_types(def: &ir::TypeDef) -> Vec<String> {
    fn walk(ty: &ir::Ty, out: &mut Vec<String>) {
        match ty {
            ir::Ty::Named(n) => out.push(n.clone()),
            ir::Ty::Array(item) => walk(item, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match def {
        ir::TypeDef::Object(o) => o.fields.iter().for_each(|f| walk(&f.ty, &mut out)),
        ir::TypeDef::Union(u) => out.extend(u.members.iter().map(|m| m.type_name.clone())),
        ir::TypeDef::StringSet(_) => {}
    }
    out
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
    let (path, contents) = zot_ext_engine::binding::contract::file();
    files.push(GeneratedFile {
        path: format!("engine/{path}"),
        contents,
    });
    let (contract, imports) = contract_module(&module)?;
    files.push(GeneratedFile {
        path: TYPESCRIPT_CONTRACT_PATH.to_owned(),
        contents: render::typescript_contract(&contract, &imports)?,
    });
    files.push(GeneratedFile {
        path: PYTHON_CONTRACT_PATH.to_owned(),
        contents: render::python_contract(&contract, &imports)?,
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
