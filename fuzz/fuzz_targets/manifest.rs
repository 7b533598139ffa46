//! libFuzzer entry of the `manifest` target; the check is
//! `zot_fuzz_harness::manifest` (tests/fuzz-harness), where the properties are
//! documented.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zot_fuzz_harness::manifest::check(data));
