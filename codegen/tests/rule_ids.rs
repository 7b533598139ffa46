//! Every protocol rule the repository cites (`SDK-n`, `HOST-n`, `WIRE-n`,
//! `OP-n`, `N-n`, `§x.y`) resolves to an anchor in `docs/`, so a reader can
//! follow any citation in the code to the rule it names; and every relative
//! link inside `docs/` leads to a file (and anchor) that exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const PREFIXES: [&str; 5] = ["SDK-", "HOST-", "WIRE-", "OP-", "N-"];

/// The rule ids cited in `text`, each with its 1-based line. A range such
/// as `HOST-20..29`, or a pair such as `SDK-48/49`, cites both ends.
fn citations(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        for (i, _) in line.char_indices() {
            let boundary = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
            let rest = &line[i..];
            if let Some(after) = rest.strip_prefix('§') {
                let num: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let num = num.trim_end_matches('.');
                if !num.is_empty() {
                    out.push((format!("§{num}"), n + 1));
                }
                continue;
            }
            if !boundary {
                continue;
            }
            for p in PREFIXES {
                let Some(after) = rest.strip_prefix(p) else {
                    continue;
                };
                let num: String = after.chars().take_while(char::is_ascii_digit).collect();
                let next = after[num.len()..].chars().next();
                if num.is_empty() || next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    continue;
                }
                out.push((format!("{p}{num}"), n + 1));
                let tail = &after[num.len()..];
                if let Some(end) = tail.strip_prefix("..").or_else(|| tail.strip_prefix('/')) {
                    let end: String = end.chars().take_while(char::is_ascii_digit).collect();
                    if !end.is_empty() {
                        out.push((format!("{p}{end}"), n + 1));
                    }
                }
            }
        }
    }
    out
}

/// The anchor a citation resolves to: the id itself, or `s4.3.1` for `§4.3.1`.
fn anchor(id: &str) -> String {
    match id.strip_prefix('§') {
        Some(num) => format!("s{num}"),
        None => id.to_owned(),
    }
}

/// The `id="…"` anchors of every Markdown file under `docs/`.
fn anchors(docs: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for entry in ignore::WalkBuilder::new(docs).build().flatten() {
        if entry.path().extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for part in text.split("id=\"").skip(1) {
                if let Some(end) = part.find('"') {
                    out.insert(part[..end].to_owned());
                }
            }
        }
    }
    out
}

/// Every text file of the repository as git sees it (path relative to
/// `root`, contents).
fn text_files(root: &Path) -> Vec<(PathBuf, String)> {
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        // .gitignore counts in a source tree without .git too.
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    walk.flatten()
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .filter_map(|entry| {
            let path = entry.path();
            let text = std::fs::read_to_string(path).ok()?; // None: not text
            Some((path.strip_prefix(root).unwrap_or(path).to_owned(), text))
        })
        .collect()
}

/// The rules cited by every text file of the repository outside `docs/`.
fn cited(root: &Path) -> BTreeMap<String, (PathBuf, usize)> {
    let mut out = BTreeMap::new();
    for (rel, text) in text_files(root) {
        if rel.starts_with("docs") {
            continue;
        }
        for (id, line) in citations(&text) {
            out.entry(id).or_insert_with(|| (rel.clone(), line));
        }
    }
    out
}

#[test]
fn nothing_cites_the_spec_folder_beside_the_repository() {
    // The spec and the conformance contract this project was built from sit
    // in a folder beside the repository, which its users do not have: the
    // repository's own copies are docs/protocol.md and
    // docs/testing/conformance.md.
    let root = zot_codegen::workspace_root();
    // `PROTOCOL.md` alone is the same file by its name there.
    let outside = [
        "shared/PROTOCOL.md",
        "shared/conformance-extension.md",
        "PROTOCOL.md",
    ];
    let this_file = Path::new("codegen/tests/rule_ids.rs");
    let found: Vec<String> = text_files(&root)
        .into_iter()
        .filter(|(rel, _)| rel != this_file)
        .flat_map(|(rel, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, line)| outside.iter().any(|o| line.contains(o)))
                .map(|(i, _)| format!("{}:{}", rel.display(), i + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        found.is_empty(),
        "cites a file outside the repository (use docs/protocol.md or \
         docs/testing/conformance.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn citations_are_found() {
    let got: Vec<String> = citations(
        "// HOST-20..29, SDK-4/5; §4.3.1. (OP-3) N-18 §12\nUTF-8 WIRE-15x ZHOST-1 MY_OP-2",
    )
    .into_iter()
    .map(|(id, _)| id)
    .collect();
    assert_eq!(
        got,
        ["HOST-20", "HOST-29", "SDK-4", "SDK-5", "§4.3.1", "OP-3", "N-18", "§12"]
    );
}

#[test]
fn every_cited_rule_resolves_to_an_anchor_in_docs() {
    let root = zot_codegen::workspace_root();
    let anchors = anchors(&root.join("docs"));
    assert!(
        anchors.len() > 100,
        "docs/ holds {} anchors; is it there?",
        anchors.len()
    );
    let missing: Vec<String> = cited(&root)
        .into_iter()
        .filter(|(id, _)| !anchors.contains(&anchor(id)))
        .map(|(id, (file, line))| {
            format!(
                "{id} (cited at {}:{line}) has no id=\"{}\" in docs/",
                file.display(),
                anchor(&id)
            )
        })
        .collect();
    assert!(
        missing.is_empty(),
        "{} cited rules are not in the docs; add them to docs/protocol.md \
         (or fix the citation):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-`
/// and `_` dropped, spaces as `-`; repeats get `-1`, `-2`, ….
fn heading_anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let Some(title) = line.trim_start_matches('#').strip_prefix(' ') else {
            continue;
        };
        if !line.starts_with('#') {
            continue;
        }
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

#[test]
fn every_relative_link_in_docs_resolves() {
    let root = zot_codegen::workspace_root();
    let mut broken = Vec::new();
    let mut checked = 0;
    for entry in ignore::WalkBuilder::new(root.join("docs"))
        .build()
        .flatten()
    {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for part in text.split("](").skip(1) {
            let Some(end) = part.find(')') else { continue };
            let link = &part[..end];
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
            let target = if file.is_empty() {
                path.to_owned()
            } else {
                path.parent().unwrap().join(file)
            };
            checked += 1;
            if !target.exists() {
                broken.push(format!("{}: {link} (no such file)", path.display()));
                continue;
            }
            if anchor.is_empty() || target.is_dir() {
                continue;
            }
            let t = std::fs::read_to_string(&target).unwrap_or_default();
            let ids = anchors_in(&t);
            if !ids.contains(anchor) && !heading_anchors(&t).contains(anchor) {
                broken.push(format!("{}: {link} (no such anchor)", path.display()));
            }
        }
    }
    assert!(checked > 50, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

fn anchors_in(text: &str) -> BTreeSet<String> {
    text.split("id=\"")
        .skip(1)
        .filter_map(|p| p.find('"').map(|e| p[..e].to_owned()))
        .collect()
}
