//! libFuzzer entry of the `host_intake` target; the check is
//! `zot_fuzz_harness::host_intake` (tests/fuzz-harness), where the properties are
//! documented.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zot_fuzz_harness::host_intake::check(data));
