//! Reads newline-delimited frames (default: the shared test vectors) and
//! explains each line: its decoded frame type, or the precise decode error.
//!
//! ```text
//! cargo run -p zot-protocol --example explain -- [host|ext] [FILE]
//! ```

use std::io::BufReader;

use zot_protocol::codec::blocking::FrameReader;
use zot_protocol::{ExtFrame, Frame, HostFrame};

fn explain<F: Frame + std::fmt::Debug>(path: &str) -> std::io::Result<()> {
    let file = std::fs::File::open(path)?;
    let mut reader = FrameReader::<_, F>::new(BufReader::new(file));
    let (mut ok, mut bad) = (0, 0);
    loop {
        match reader.next_frame() {
            Ok(None) => break,
            Ok(Some(frame)) => {
                ok += 1;
                println!("  ✔ {}", frame.frame_type());
            }
            Err(e) if e.is_recoverable() => {
                bad += 1;
                println!("  ✘ {}: {e}", e.kind());
            }
            Err(e) => return Err(std::io::Error::other(e.to_string())),
        }
    }
    println!("{path}: {ok} frames decoded, {bad} lines rejected");
    Ok(())
}

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "host".into());
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/valid/");
    match dir.as_str() {
        "ext" => explain::<ExtFrame>(
            &args
                .next()
                .unwrap_or_else(|| format!("{root}ext_to_host.jsonl")),
        ),
        _ => explain::<HostFrame>(
            &args
                .next()
                .unwrap_or_else(|| format!("{root}host_to_ext.jsonl")),
        ),
    }
}
