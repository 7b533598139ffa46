//! The Node and Python bindings wrap one core (`zot_ext_engine::binding`)
//! method for method: their engine classes have the same set of methods,
//! the core's, plus each runtime's own (its readiness signal; Python's
//! worker lane).

use std::collections::BTreeSet;
use std::path::Path;

use zot_ext_engine::binding::{METHODS, RUNTIME};

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of the block that starts with `header` and ends at the first
/// line that starts at column 0 after it.
fn block<'a>(text: &'a str, header: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with(header));
    assert!(lines.next().is_some(), "no {header:?}");
    lines
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .collect()
}

fn snake(camel: &str) -> String {
    let mut out = String::new();
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A method's name: the identifier before `(` of a declaration line.
fn method(line: &str, prefixes: &[&str]) -> Option<String> {
    let mut l = line.trim();
    for p in prefixes {
        l = l.strip_prefix(p).unwrap_or(l);
    }
    let name = &l[..l.find('(')?];
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| name.to_owned())
}

fn expected(binding: &str) -> BTreeSet<String> {
    let (_, extra) = RUNTIME.iter().find(|(b, _)| *b == binding).unwrap();
    METHODS
        .iter()
        .chain(extra.iter())
        .map(|m| m.to_string())
        .collect()
}

#[test]
fn node_and_python_wrap_the_same_core() {
    let dts = read("sdk-node/src/binding.d.ts");
    let node: BTreeSet<String> = block(&dts, "export declare class NativeEngine")
        .into_iter()
        .filter_map(|l| method(l, &["static ", "get "]))
        .map(|m| snake(&m))
        .collect();
    let pyi = read("sdk-python/python/zot_ext/_native.pyi");
    let python: BTreeSet<String> = block(&pyi, "class Engine:")
        .into_iter()
        .filter_map(|l| method(l, &["def "]).filter(|_| l.trim().starts_with("def ")))
        .collect();
    assert_eq!(node, expected("node"), "sdk-node/src/binding.d.ts");
    assert_eq!(python, expected("python"), "_native.pyi");
}
