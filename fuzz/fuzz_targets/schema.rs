//! Fuzz target `schema`: [`gentable_fuzz::targets::schema`] (docs/fuzzing.md). With `GENTABLE_FUZZ_SEEDS=<dir>`
//! the seed corpus is written to `<dir>` first (Tools/fuzz.sh passes it as a corpus folder).
#![no_main]

libfuzzer_sys::fuzz_target!(
    init: gentable_fuzz::init("schema"),
    |data: &[u8]| gentable_fuzz::targets::schema(data)
);
