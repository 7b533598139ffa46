//! libFuzzer entry of the `codec` target; the check is
//! `zot_fuzz_harness::codec` (tests/fuzz-harness), where the properties are
//! documented.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| zot_fuzz_harness::codec::check(data));
