//! Writes the seed corpora: `zot-fuzz-seeds <dir>` fills `<dir>/<target>/`
//! (created if missing; existing files are kept, so a corpus that grew in
//! earlier runs keeps growing) and writes the dictionary
//! `<dir>/protocol.dict`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: zot-fuzz-seeds <corpus dir>");
        return ExitCode::from(2);
    };
    let seeds = zot_fuzz_harness::seeds::all();
    for seed in &seeds {
        let target = dir.join(seed.target);
        let path = target.join(format!("seed-{}", seed.name));
        if let Err(e) =
            std::fs::create_dir_all(&target).and_then(|()| std::fs::write(&path, &seed.data))
        {
            eprintln!("zot-fuzz-seeds: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    let dict = dir.join("protocol.dict");
    if let Err(e) = std::fs::write(&dict, zot_fuzz_harness::seeds::dictionary()) {
        eprintln!("zot-fuzz-seeds: cannot write {}: {e}", dict.display());
        return ExitCode::FAILURE;
    }
    println!(
        "{} seeds and protocol.dict written to {}",
        seeds.len(),
        dir.display()
    );
    ExitCode::SUCCESS
}
