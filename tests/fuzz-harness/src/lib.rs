//! The properties behind the cargo-fuzz targets in `fuzz/`.
//!
//! Each target is one function here taking arbitrary bytes and panicking
//! when a property does not hold; the fuzz targets are one-line wrappers.
//! Keeping the checks in a workspace crate means a crasher saved under
//! `fuzz/regressions/<target>/` is replayed by a plain `cargo test` (no
//! nightly, no libFuzzer; `tests/replay.rs`), and that the checks are
//! compiled, linted and run against the seed corpus in every CI run.
//!
//! | target | what it feeds | properties |
//! | --- | --- | --- |
//! | [`codec`] | one line, or a stream of lines | splitting in any pieces gives the same lines; whatever decodes re-encodes to a line that decodes to an equal frame; decoding does not depend on leading whitespace |
//! | [`engine`] | the host's side of the wire, to an extension | no panic; the extension writes only valid frames; every well-formed request is answered; the session ends |
//! | [`host_intake`] | an extension's stdout, to the host | no panic; every line read is in the wire log; no request is left waiting; diagnostics are one line each |
//! | [`manifest`] | `extension.json` | no panic; what parses is valid and survives a write and re-read; errors are one line naming the directory |
//!
//! Inputs of [`engine`] and [`host_intake`] start with one byte of options
//! (see each module); [`seeds`] writes the seed corpora from
//! `tests/vectors/`.

pub mod codec;
pub mod engine;
#[cfg(feature = "host")]
pub mod host_intake;
#[cfg(feature = "host")]
pub mod manifest;
mod panics;
#[cfg(feature = "host")]
pub mod seeds;

/// A target's check: panics when a property does not hold for the input.
pub type Check = fn(&[u8]);

/// The fuzz targets by name: the folder names under `fuzz/regressions/`,
/// the corpus folders and the `fuzz/fuzz_targets/*.rs` files.
pub const TARGETS: &[(&str, Check)] = &[
    ("codec", codec::check),
    ("engine", engine::check),
    #[cfg(feature = "host")]
    ("host_intake", host_intake::check),
    #[cfg(feature = "host")]
    ("manifest", manifest::check),
];

/// A current-thread runtime with the clock paused: deadlines pass as soon
/// as nothing else can run, so a run is quick and does not depend on the
/// machine's speed, and dropping it ends every task it still holds.
pub(crate) fn paused_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a current-thread runtime builds")
}

/// The sizes in which the first bytes of an input arrive: pieces of
/// `piece` bytes up to [`PIECEWISE`] bytes (the rest then comes in one
/// write). Small pieces find bugs at read boundaries; cutting a whole
/// session into single bytes would only make a run slow.
pub(crate) fn writes(piece: usize, len: usize) -> Vec<usize> {
    let piecewise = len.min(PIECEWISE);
    vec![piece; piecewise.div_ceil(piece)]
}

/// How many bytes of an input arrive in pieces (see [`writes`]).
pub(crate) const PIECEWISE: usize = 512;

/// Cuts `data` as [`writes`] says.
pub(crate) fn chunks(data: &[u8], piece: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    for n in writes(piece, data.len()) {
        let (chunk, more) = rest.split_at(n.min(rest.len()));
        out.push(chunk);
        rest = more;
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Diagnostics go through `tracing` to nowhere: the engine writes one
/// stderr line per malformed frame otherwise, which would slow fuzzing
/// down and bury libFuzzer's output.
pub(crate) fn quiet() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = tracing::subscriber::set_global_default(tracing::subscriber::NoSubscriber::new());
    });
}
