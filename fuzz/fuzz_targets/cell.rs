//! Fuzz target `cell`: [`gentable_fuzz::targets::cell`] (docs/fuzzing.md). With `GENTABLE_FUZZ_SEEDS=<dir>`
//! the seed corpus is written to `<dir>` first (Tools/fuzz.sh passes it as a corpus folder).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: gentable_fuzz::init("cell"),
    |data: &[u8]| gentable_fuzz::targets::cell(data)
);
