//! `conformance-rust`: the conformance extension over stdin/stdout.

fn main() -> std::process::ExitCode {
    let ext = conformance_rust::extension();
    ext.handle().log("conformance started");
    match ext.run_blocking() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("[conformance] {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
