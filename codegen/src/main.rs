//! `cargo run -p zot-codegen [-- --check]`: writes (or checks) every file
//! generated from the protocol crate.

use std::process::ExitCode;

const USAGE: &str = "usage: zot-codegen [--check]

Writes the JSON Schema, TypeScript and Python files generated from
protocol/ (the zot-protocol crate). With --check, writes nothing and exits
with status 1 when a committed file is missing or differs.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => false,
        ["--check"] => true,
        ["-h" | "--help"] => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };

    let files = match zot_codegen::generate() {
        Ok(files) => files,
        Err(e) => {
            eprintln!("zot-codegen: {e}");
            return ExitCode::FAILURE;
        }
    };
    let root = zot_codegen::workspace_root();

    if check {
        let stale = zot_codegen::stale(&root, &files);
        if stale.is_empty() {
            println!(
                "zot-codegen: all {} generated files are up to date",
                files.len()
            );
            return ExitCode::SUCCESS;
        }
        for f in &stale {
            eprintln!("zot-codegen: stale: {}", f.path);
        }
        eprintln!(
            "zot-codegen: {} of {} generated files differ from protocol/; \
             regenerate them with `cargo run -p zot-codegen` and commit the result",
            stale.len(),
            files.len()
        );
        return ExitCode::FAILURE;
    }

    match zot_codegen::write(&root, &files) {
        Ok(written) if written.is_empty() => {
            println!(
                "zot-codegen: all {} generated files are up to date",
                files.len()
            );
            ExitCode::SUCCESS
        }
        Ok(written) => {
            for path in written {
                println!("zot-codegen: wrote {path}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("zot-codegen: cannot write: {e}");
            ExitCode::FAILURE
        }
    }
}
