//! Runs every fuzz target's check, without libFuzzer, on
//! - every crasher kept in `fuzz/regressions/<target>/` (each one a bug
//!   that was found and fixed: it must keep passing), and
//! - every seed of the corpora (the shared vectors and the harness's
//!   sessions), so that the properties themselves are checked here.

use std::path::Path;

use zot_fuzz_harness::{seeds, Check, TARGETS};

fn check_of(target: &str) -> Check {
    TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .unwrap_or_else(|| panic!("no fuzz target {target:?}"))
        .1
}

#[test]
fn kept_crashers_pass() {
    let dir = seeds::repo_root().join("fuzz/regressions");
    let mut replayed = 0;
    for (target, check) in TARGETS {
        let Ok(entries) = std::fs::read_dir(dir.join(target)) else {
            continue;
        };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for path in files.iter().filter(|p| is_input(p)) {
            eprintln!(
                "replaying {target}/{}",
                path.file_name().unwrap().to_string_lossy()
            );
            check(&std::fs::read(path).expect("readable"));
            replayed += 1;
        }
    }
    eprintln!("{replayed} kept crashers replayed");
    // Every folder under fuzz/regressions is a target's.
    for e in std::fs::read_dir(&dir)
        .expect("fuzz/regressions exists")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            check_of(&name);
        }
    }
}

fn is_input(p: &Path) -> bool {
    p.is_file() && p.extension().is_none_or(|e| e != "md")
}

#[test]
fn every_seed_passes() {
    let all = seeds::all();
    for (target, _) in TARGETS {
        assert!(
            all.iter().filter(|s| s.target == *target).count() >= 5,
            "too few seeds for {target}"
        );
    }
    for seed in &all {
        eprintln!("{}/{}", seed.target, seed.name);
        check_of(seed.target)(&seed.data);
    }
}
