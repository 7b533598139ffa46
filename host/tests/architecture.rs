//! The shape of the Rust crates' `src` (the host, the engine every SDK
//! shares, the Rust SDK, the protocol, zot-mcp), read from their text: no
//! import circles between a crate's modules, and no function longer than a
//! screen unless a comment says why it must be one piece.
//!
//! A module is one file (`a/b.rs` and `a/b/mod.rs` are `a::b`). Module `m`
//! depends on module `n` when the code of `m` (comments left out) names a
//! path into `n`: `crate::n::...`, `super::...`, `self::...` or, in a
//! `use`, a path that starts at one of `m`'s child modules. A path is
//! charged to the longest module it reaches into; what a `mod.rs` merely
//! declares (`mod x;`) is not a dependency, what it re-exports is. Code in
//! `#[cfg(test)]` modules inside a file is left out (its `super` is the
//! file itself).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate checked here, with what is known and left in it for now.
struct Checked {
    /// Its folder, beside this crate's.
    dir: &'static str,
    /// It has at least this many modules (a check that reads nothing
    /// must fail).
    min_modules: usize,
    /// Circles there today, each as the modules that reach one another:
    /// the list may only shrink (a circle gone must leave it, a new one
    /// fails).
    known_circles: &'static [&'static [&'static str]],
}

const CRATES: &[Checked] = &[
    Checked {
        dir: "host",
        min_modules: 50,
        known_circles: &[],
    },
    Checked {
        dir: "engine",
        min_modules: 30,
        known_circles: &[],
    },
    Checked {
        dir: "sdk-rust",
        min_modules: 10,
        // The dispatcher, its routes and its serial lane reach one another;
        // panels are kept on the handle that binds them.
        known_circles: &[
            &["sdk::dispatch", "sdk::routes", "sdk::serial"],
            &["sdk::handle", "sdk::panels"],
        ],
    },
    Checked {
        dir: "protocol",
        min_modules: 10,
        known_circles: &[],
    },
    Checked {
        dir: "mcp",
        min_modules: 5,
        known_circles: &[],
    },
];

/// A function may be this many lines, from `fn` to its closing brace.
const MAX_FN_LINES: usize = 80;

/// What a comment right above a longer function must say.
const ONE_PIECE: &str = "one piece";

fn src(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir)
        .join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let p = entry.expect("directory entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `a/b.rs` and `a/b/mod.rs` → `["a", "b"]`; `lib.rs` → `[]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("file under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    match last.as_str() {
        "mod.rs" | "lib.rs" => {}
        other => parts.push(other.trim_end_matches(".rs").to_owned()),
    }
    parts
}

/// The file's code lines without comments, string contents and inline test
/// modules (which stand for the file's own code, not its dependencies).
fn code_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_depth: Option<i64> = None;
    let mut depth: i64 = 0;
    let mut cfg_test = false;
    for line in clean(text).lines() {
        let trimmed = line.trim();
        let opens = line.matches('{').count() as i64;
        let closes = line.matches('}').count() as i64;
        if skip_depth.is_none() && cfg_test && is_inline_mod(trimmed) {
            skip_depth = Some(depth);
        }
        if trimmed.starts_with("#[cfg(test)]") {
            cfg_test = true;
        } else if !trimmed.is_empty() && !trimmed.starts_with("#[") {
            cfg_test = false;
        }
        depth += opens - closes;
        if let Some(d) = skip_depth {
            if depth <= d {
                skip_depth = None;
            }
            continue;
        }
        out.push(line.to_owned());
    }
    out
}

fn is_inline_mod(trimmed: &str) -> bool {
    let t = trimmed.strip_prefix("pub ").unwrap_or(trimmed);
    t.starts_with("mod ") && t.ends_with('{')
}

/// The text with comments removed and the contents of string and char
/// literals emptied (raw strings too); line breaks stay where they were.
fn clean(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Keeps the line breaks of what is skipped.
    let skip = |out: &mut String, from: usize, to: usize| {
        out.extend(c[from..to.min(c.len())].iter().filter(|&&x| x == '\n'));
    };
    while i < c.len() {
        let at = |k: usize| c.get(i + k).copied().unwrap_or('\0');
        let ident_before = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
        if at(0) == '/' && at(1) == '/' {
            let end = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
            i = end;
        } else if at(0) == '/' && at(1) == '*' {
            let (mut depth, mut j) = (1, i + 2);
            while j < c.len() && depth > 0 {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 1;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 1;
                }
                j += 1;
            }
            skip(&mut out, i, j);
            i = j;
        } else if !ident_before && (at(0) == 'r' || (at(0) == 'b' && at(1) == 'r')) && {
            let k = if at(0) == 'b' { 2 } else { 1 };
            let hashes = (0..).take_while(|&h| at(k + h) == '#').count();
            at(k + hashes) == '"'
        } {
            let k = if at(0) == 'b' { 2 } else { 1 };
            let hashes = (0..).take_while(|&h| at(k + h) == '#').count();
            let body = i + k + hashes + 1;
            let closing: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let closing: Vec<char> = closing.chars().collect();
            let end = (body..c.len())
                .find(|&j| c[j..].starts_with(&closing))
                .unwrap_or(c.len());
            out.push_str("\"\"");
            skip(&mut out, body, end);
            i = end + closing.len();
        } else if at(0) == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            skip(&mut out, i + 1, j);
            i = j + 1;
        } else if at(0) == '\'' && at(1) == '\\' {
            let end = (i + 2..c.len()).find(|&j| c[j] == '\'').unwrap_or(c.len());
            out.push_str("' '");
            i = end + 1;
        } else if at(0) == '\'' && at(2) == '\'' {
            out.push_str("' '");
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The module paths a file names: each a list of segments from the crate
/// root (not yet cut to a module).
fn named_paths(
    module: &[String],
    children: &BTreeSet<String>,
    code: &[String],
) -> Vec<Vec<String>> {
    let mut joined = code.join("\n");
    let mut out = Vec::new();
    // `use` trees, flattened (`use a::{b, c::d}` → a::b, a::c::d).
    let uses = use_statements(&joined);
    for (range, _) in uses.iter().rev() {
        joined.replace_range(range.clone(), "");
    }
    for (_, stmt) in uses {
        for path in flatten_use(&stmt) {
            if let Some(p) = absolute(module, children, &path, true) {
                out.push(p);
            }
        }
    }
    // Paths in the code itself.
    for path in inline_paths(&joined) {
        if let Some(p) = absolute(module, children, &path, false) {
            out.push(p);
        }
    }
    out
}

/// The `use ...;` statements: where each is and its tree.
fn use_statements(code: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while let Some(at) = code[i..].find("use ") {
        let start = i + at;
        let before = start.checked_sub(1).map(|b| bytes[b] as char);
        i = start + 4;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = code[i..].find(';') else {
            break;
        };
        out.push((
            start..i + end + 1,
            code[i..i + end].split_whitespace().collect::<String>(),
        ));
        i += end;
    }
    out
}

/// `a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e` (as segment lists).
fn flatten_use(tree: &str) -> Vec<Vec<String>> {
    fn go(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head: Vec<String> = tree[..open]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            let mut base = prefix.to_vec();
            base.extend(head);
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            for part in split_top(inner) {
                go(&base, part, out);
            }
        } else {
            let mut p = prefix.to_vec();
            let tree = tree.split(" as ").next().unwrap_or(tree);
            p.extend(
                tree.split("::")
                    .filter(|s| !s.is_empty())
                    .map(|s| s.split("as").next().unwrap_or(s).to_owned()),
            );
            out.push(p);
        }
    }
    let mut out = Vec::new();
    go(&[], tree, &mut out);
    out
}

/// Splits at the commas outside braces.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// `crate::...`, `super::...` and `self::...` paths outside `use`.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for root in ["crate::", "super::", "self::"] {
        let mut i = 0;
        while let Some(at) = code[i..].find(root) {
            let start = i + at;
            i = start + root.len();
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = code[start..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    out
}

/// A path as segments from the crate root, or `None` when it leaves the
/// crate (`std::`, other crates). A `use` may also start at a child module.
fn absolute(
    module: &[String],
    children: &BTreeSet<String>,
    path: &[String],
    in_use: bool,
) -> Option<Vec<String>> {
    let (first, rest) = path.split_first()?;
    match first.as_str() {
        "crate" => Some(rest.to_vec()),
        "self" => Some([module, rest].concat()),
        "super" => {
            let mut m = module.to_vec();
            m.pop();
            let mut rest = rest;
            while rest.first().is_some_and(|s| s == "super") {
                m.pop();
                rest = &rest[1..];
            }
            Some([m.as_slice(), rest].concat())
        }
        child if in_use && children.contains(child) => Some([module, path].concat()),
        _ => None,
    }
}

struct Crate {
    /// Module → its file (relative to src).
    files: BTreeMap<Vec<String>, String>,
    /// Module → the modules it depends on.
    deps: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

fn read_crate(src: &Path) -> Crate {
    let mut texts = BTreeMap::new();
    let mut files = BTreeMap::new();
    for f in rust_files(src) {
        if f.file_name().is_some_and(|n| n == "main.rs") {
            continue; // the binary: a crate of its own
        }
        let m = module_of(src, &f);
        let text = std::fs::read_to_string(&f).expect("read source");
        let rel = f
            .strip_prefix(src)
            .expect("under src")
            .display()
            .to_string();
        files.insert(m.clone(), rel);
        texts.insert(m, text);
    }
    let children_of = |m: &Vec<String>| -> BTreeSet<String> {
        files
            .keys()
            .filter(|k| k.len() == m.len() + 1 && k.starts_with(m))
            .map(|k| k[m.len()].clone())
            .collect()
    };
    let code: BTreeMap<_, _> = texts
        .iter()
        .map(|(m, t)| (m.clone(), code_lines(t)))
        .collect();
    let reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = code
        .iter()
        .map(|(m, lines)| (m.clone(), reexports(m, &children_of(m), lines)))
        .collect();
    let mut deps = BTreeMap::new();
    for (m, lines) in &code {
        let mut to = BTreeSet::new();
        for path in named_paths(m, &children_of(m), lines) {
            let target = resolve(&files, &reexports, path);
            // A folder's mod.rs is the vocabulary its files build on: a
            // module may use its ancestors (what they re-export counts
            // where it is defined, above).
            if &target != m && !m.starts_with(&target) {
                to.insert(target);
            }
        }
        deps.insert(m.clone(), to);
    }
    Crate { files, deps }
}

/// What a module re-exports (`pub use`, `pub(crate) use`): name → path.
fn reexports(
    module: &[String],
    children: &BTreeSet<String>,
    code: &[String],
) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let joined = code.join("\n");
    for (range, tree) in use_statements(&joined) {
        let head = joined[..range.start].trim_end();
        if !(head.ends_with("pub") || head.ends_with("pub(crate)")) {
            continue;
        }
        for path in flatten_use(&tree) {
            let Some(last) = path.last().cloned() else {
                continue;
            };
            if let Some(abs) = absolute(module, children, &path, true) {
                out.insert(last, abs);
            }
        }
    }
    out
}

/// The module a path reaches into: the longest module prefix, followed
/// through re-exports to where the name is defined.
fn resolve(
    files: &BTreeMap<Vec<String>, String>,
    reexports: &BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    mut path: Vec<String>,
) -> Vec<String> {
    for _ in 0..8 {
        let mut target = path.clone();
        while !target.is_empty() && !files.contains_key(&target) {
            target.pop();
        }
        let next = path.get(target.len());
        match next.and_then(|n| reexports.get(&target)?.get(n)) {
            Some(source) if source != &path => {
                let mut p = source.clone();
                p.extend(path[target.len() + 1..].iter().cloned());
                path = p;
            }
            _ => return target,
        }
    }
    path
}

fn name(m: &[String]) -> String {
    if m.is_empty() {
        "crate".to_owned()
    } else {
        m.join("::")
    }
}

/// One circle through each group of modules that reach one another
/// (Tarjan's strongly connected components, then a shortest way around).
/// A way around: modules, the first one again at the end.
type Circle = Vec<Vec<String>>;

fn circles(
    deps: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
) -> Vec<(BTreeSet<String>, Vec<Circle>)> {
    let nodes: Vec<&Vec<String>> = deps.keys().collect();
    let index_of: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            deps[*n]
                .iter()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    let groups = strongly_connected(&edges);
    let mut out = Vec::new();
    for g in groups.into_iter().filter(|g| g.len() > 1) {
        let set: BTreeSet<usize> = g.iter().copied().collect();
        let mut covered = BTreeSet::new();
        let mut loops = Vec::new();
        for &start in &set {
            if covered.contains(&start) {
                continue;
            }
            let path = shortest_loop(&edges, &set, start);
            covered.extend(path.iter().copied());
            loops.push(path.into_iter().map(|i| nodes[i].clone()).collect());
        }
        let members = set.iter().map(|&i| name(nodes[i])).collect();
        out.push((members, loops));
    }
    out.sort();
    out
}

fn strongly_connected(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct T<'a> {
        edges: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T<'_>, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on_stack[v] = true;
        for &w in &t.edges[v] {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on_stack[w] => t.low[v] = t.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut group = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            t.out.push(group);
        }
    }
    let n = edges.len();
    let mut t = T {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out
}

/// The shortest way from `start` back to itself inside `group`.
fn shortest_loop(edges: &[Vec<usize>], group: &BTreeSet<usize>, start: usize) -> Vec<usize> {
    let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &edges[v] {
            if !group.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![start];
                let mut at = v;
                while at != start {
                    path.push(at);
                    at = prev[&at];
                }
                path.push(start);
                let n = path.len();
                path[1..n - 1].reverse();
                return path;
            }
            if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}

#[test]
fn no_import_circles() {
    for checked in CRATES {
        no_new_circles_in(checked);
    }
}

fn no_new_circles_in(checked: &Checked) {
    let src = src(checked.dir);
    let krate = read_crate(&src);
    assert!(
        krate.files.len() >= checked.min_modules,
        "read only {} modules from {}",
        krate.files.len(),
        src.display()
    );
    let found = circles(&krate.deps);
    let known: BTreeSet<BTreeSet<String>> = checked
        .known_circles
        .iter()
        .map(|c| c.iter().map(|m| (*m).to_owned()).collect())
        .collect();
    let report: Vec<String> = found
        .iter()
        .filter(|(members, _)| !known.contains(members))
        .flat_map(|(_, loops)| loops)
        .map(|c| {
            c.iter()
                .map(|m| format!("{} ({})", name(m), krate.files[m]))
                .collect::<Vec<_>>()
                .join("\n    -> ")
        })
        .collect();
    assert!(
        report.is_empty(),
        "{} new import circle(s) in {}/src:\n  {}",
        report.len(),
        checked.dir,
        report.join("\n\n  ")
    );
    let gone: Vec<_> = known
        .iter()
        .filter(|k| !found.iter().any(|(members, _)| members == *k))
        .collect();
    assert!(
        gone.is_empty(),
        "circles no longer in {}/src (or changed): take them out of its known_circles: {gone:?}",
        checked.dir
    );
}

/// A function, from its `fn` line to its closing brace.
struct Function {
    file: String,
    line: usize,
    name: String,
    lines: usize,
    /// A comment right above says why it is one piece.
    excused: bool,
}

/// Every function with a body (rustfmt's layout: the closing brace sits at
/// the indentation of the `fn` line).
fn functions(rel: &str, text: &str) -> Vec<Function> {
    let original: Vec<&str> = text.lines().collect();
    let cleaned = clean(text);
    let lines: Vec<&str> = cleaned.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(name) = fn_name(l) else { continue };
        let indent = &l[..l.len() - l.trim_start().len()];
        // The signature ends with `{` (a body) or `;` (none).
        let Some(open) = (i..lines.len()).find(|&j| {
            let t = lines[j].trim_end();
            t.ends_with('{') || t.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = (open..lines.len())
            .find(|&j| lines[j].starts_with(indent) && lines[j][indent.len()..].starts_with('}'));
        let Some(close) = close else { continue };
        let mut above = i;
        let mut excused = false;
        while above > 0 {
            above -= 1;
            let t = original[above].trim_start();
            if t.starts_with("//") {
                excused |= t.contains(ONE_PIECE);
            } else if !t.starts_with("#[") {
                break;
            }
        }
        out.push(Function {
            file: rel.to_owned(),
            line: i + 1,
            name,
            lines: close - i + 1,
            excused,
        });
    }
    out
}

fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        match w {
            "pub" | "pub(crate)" | "pub(super)" | "async" | "const" | "unsafe" | "extern" => {}
            "fn" => {
                let next = words.next()?;
                let name: String = next
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                return (!name.is_empty()).then_some(name);
            }
            _ if w.starts_with("pub(") => {}
            _ => return None,
        }
    }
    None
}

#[test]
fn no_long_function_without_a_reason() {
    for checked in CRATES {
        no_long_functions_in(checked);
    }
}

fn no_long_functions_in(checked: &Checked) {
    let src = src(checked.dir);
    let mut report = Vec::new();
    for f in rust_files(&src) {
        let rel = f
            .strip_prefix(&src)
            .expect("under src")
            .display()
            .to_string();
        let text = std::fs::read_to_string(&f).expect("read source");
        report.extend(
            functions(&rel, &text)
                .into_iter()
                .filter(|f| f.lines > MAX_FN_LINES && !f.excused)
                .map(|f| {
                    format!(
                        "{}/src/{}:{} {} ({} lines)",
                        checked.dir, f.file, f.line, f.name, f.lines
                    )
                }),
        );
    }
    assert!(
        report.is_empty(),
        "functions over {MAX_FN_LINES} lines with no comment above saying why they are {ONE_PIECE:?}:\n  {}",
        report.join("\n  ")
    );
}

/// The checks above see what they claim to: a circle and a long function
/// written for the purpose are found.
#[test]
fn the_checks_find_what_they_look_for() {
    let mut deps = BTreeMap::new();
    let m = |s: &str| s.split("::").map(str::to_owned).collect::<Vec<_>>();
    let children = BTreeSet::new();
    let paths = named_paths(
        &m("a::b"),
        &children,
        &code_lines("use crate::c::{d::E, f};\nfn g() { super::h::i(); }\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::x::Y;\n}\n"),
    );
    assert_eq!(
        paths,
        vec![m("c::d::E"), m("c::f"), m("a::h::i")],
        "paths named, test module left out"
    );
    deps.insert(m("a"), BTreeSet::from([m("b")]));
    deps.insert(m("b"), BTreeSet::from([m("c")]));
    deps.insert(m("c"), BTreeSet::from([m("a")]));
    deps.insert(m("d"), BTreeSet::from([m("a")]));
    let found = circles(&deps);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, vec![vec![m("a"), m("b"), m("c"), m("a")]]);
    let body = "    let x = 1;\n".repeat(MAX_FN_LINES);
    let text = format!(
        "fn long() {{\n{body}}}\n\n// Kept as one piece: why.\nfn excused() {{\n{body}}}\n"
    );
    let found = functions("x.rs", &text);
    assert_eq!(found.len(), 2);
    assert!(found[0].lines > MAX_FN_LINES && !found[0].excused);
    assert!(found[1].excused);
}
