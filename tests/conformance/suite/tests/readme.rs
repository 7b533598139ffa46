//! The README's quick starts are the `quickstart` examples, byte for byte, so
//! that the code a reader copies is the code the examples' parity run
//! (`zot-conformance --examples`) drives through the host in every language.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

/// The first fenced block of `lang` in the README's "Writing an extension"
/// section.
fn quick_start(readme: &str, lang: &str) -> String {
    let start = readme
        .find("## Writing an extension")
        .expect("README.md has a \"Writing an extension\" section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let fence = format!("```{lang}\n");
    let open = section
        .find(&fence)
        .unwrap_or_else(|| panic!("no ```{lang} block in \"Writing an extension\""))
        + fence.len();
    let len = section[open..]
        .find("```")
        .unwrap_or_else(|| panic!("the ```{lang} block is not closed"));
    section[open..open + len].to_owned()
}

#[test]
fn the_quick_starts_are_the_quickstart_examples() {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    for (lang, file) in [
        ("rust", "examples/rust/quickstart/src/main.rs"),
        ("js", "examples/node/quickstart/index.mjs"),
        ("python", "examples/python/quickstart/quickstart.py"),
    ] {
        let code =
            std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            quick_start(&readme, lang),
            code,
            "the README's ```{lang} quick start and {file} differ: change both"
        );
    }
}
