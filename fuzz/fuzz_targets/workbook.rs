//! Fuzz target `workbook`: [`gentable_fuzz::targets::workbook`] (docs/fuzzing.md). With `GENTABLE_FUZZ_SEEDS=<dir>`
//! the seed corpus is written to `<dir>` first (Tools/fuzz.sh passes it as a corpus folder).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: gentable_fuzz::init("workbook"),
    |data: &[u8]| gentable_fuzz::targets::workbook(data)
);
