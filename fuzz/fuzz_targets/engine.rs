//! libFuzzer entry of the `engine` target; the check is
//! `zot_fuzz_harness::engine` (tests/fuzz-harness), where the properties are
//! documented.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zot_fuzz_harness::engine::check(data));
