//! The field tables of `docs/reference/wire-types.md`: every frame, event,
//! payload and value set of the [`Module`], as an extension author reads
//! them. The prose around them (`docs/protocol.md`) is written by hand; the
//! tables come from here so that they cannot drift from protocol/.

use std::fmt::Write;

use crate::ir::{Field, Module, Object, Section, Ty, TypeDef, Union};

/// Where the tables are written, relative to the workspace root.
pub const MARKDOWN_PATH: &str = "docs/reference/wire-types.md";

const INTRO: &str = "
# Wire types

Every frame and event of protocol version 1 with its fields, in the order
senders emit them. Generated from the `zot-protocol` crate, like the JSON
Schema in `protocol/schema/` and the TypeScript and Python types; the rules
that go with them are in [the protocol reference](../protocol.md).

Reading the tables: *required* keys are always present; an optional key is
omitted when it holds its default, and a reader treats a missing key as that
default (WIRE-11). Readers ignore keys they do not know (WIRE-4).
";

/// Renders the Markdown reference of `module`.
pub fn markdown(module: &Module) -> String {
    let mut out = format!("<!-- {} -->\n{INTRO}", crate::render::HEADER);
    for (section, title) in [
        (Section::ExtToHost, "Extension → host frames"),
        (Section::HostToExt, "Host → extension frames"),
    ] {
        let _ = write!(out, "\n## {title}\n");
        for def in module.section(section) {
            if let TypeDef::Union(u) = def {
                if is_root(module, u) {
                    union_body(module, u, 3, &mut out);
                }
            }
        }
    }
    out.push_str("\n## Shared payloads\n");
    for def in module.section(Section::Payloads) {
        match def {
            // Members of a union are shown under it.
            TypeDef::Object(o) if !is_member(module, &o.name) => {
                object(o, &format!("`{}`", o.name), 3, &mut out)
            }
            TypeDef::Object(_) => {}
            TypeDef::Union(u) => {
                let _ = write!(out, "\n### `{}`\n", u.name);
                doc(u.doc.as_deref(), &mut out);
                union_body(module, u, 4, &mut out);
            }
            TypeDef::StringSet(_) => {}
        }
    }
    out.push_str("\n## Value sets\n");
    for def in module.section(Section::ValueSets) {
        if let TypeDef::StringSet(s) = def {
            let _ = write!(out, "\n### `{}`\n", s.name);
            doc(s.doc.as_deref(), &mut out);
            let values: Vec<String> = s.values.iter().map(|v| format!("`{v}`")).collect();
            let _ = writeln!(out, "\nValues: {}.", values.join(", "));
            if s.open {
                out.push_str("Other strings are accepted and read as unknown values.\n");
            }
        }
    }
    out
}

/// Whether `u` is a direction's frame union (no other union lists it).
fn is_root(module: &Module, u: &Union) -> bool {
    !is_member(module, &u.name)
}

/// Whether some union lists the type `name` as a member.
fn is_member(module: &Module, name: &str) -> bool {
    module.types.iter().any(|t| match t {
        TypeDef::Union(o) => o.members.iter().any(|m| m.type_name == name),
        _ => false,
    })
}

/// Every member of `u`, each under its own heading at `level`.
fn union_body(module: &Module, u: &Union, level: usize, out: &mut String) {
    if u.open {
        let _ = writeln!(
            out,
            "\nAn unknown `{}` is not an error: the reader gets an unknown value carrying the raw frame.",
            u.tag
        );
    }
    for m in &u.members {
        let title = format!("`{}`", m.tag_value);
        match module.get(&m.type_name) {
            Some(TypeDef::Object(o)) => object(o, &title, level, out),
            Some(TypeDef::Union(inner)) => {
                let _ = write!(out, "\n{} {title}\n", "#".repeat(level));
                doc(inner.doc.as_deref(), out);
                union_body(module, inner, level + 1, out);
            }
            _ => {}
        }
    }
}

fn doc(text: Option<&str>, out: &mut String) {
    if let Some(t) = text {
        let _ = write!(out, "\n{}\n", t.trim());
    }
}

fn object(o: &Object, title: &str, level: usize, out: &mut String) {
    let _ = write!(out, "\n{} {title}\n", "#".repeat(level));
    doc(o.doc.as_deref(), out);
    let _ = write!(
        out,
        "\n| key | type | | meaning |\n| --- | --- | --- | --- |\n"
    );
    for f in &o.fields {
        row(f, out);
    }
}

fn row(f: &Field, out: &mut String) {
    let req = if f.optional { "optional" } else { "required" };
    let meaning = f
        .doc
        .as_deref()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|");
    let _ = writeln!(out, "| `{}` | {} | {req} | {meaning} |", f.name, ty(&f.ty));
}

fn ty(t: &Ty) -> String {
    match t {
        Ty::String => "string".into(),
        Ty::Integer => "integer".into(),
        Ty::Number => "number".into(),
        Ty::Boolean => "boolean".into(),
        Ty::Any => "any JSON".into(),
        Ty::JsonObject => "object".into(),
        Ty::Array(inner) => format!("array of {}", ty(inner)),
        Ty::Named(n) => format!("[`{n}`](#{})", n.to_ascii_lowercase()),
        Ty::Literal(v) => format!("`\"{v}\"`"),
    }
}
