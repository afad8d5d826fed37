//! gentable's fuzz targets: the bodies are in [`targets`] (shared with `tests/fuzz_corpus.rs`); see
//! docs/fuzzing.md.

pub mod targets;

/// Once per fuzzing process, before libFuzzer reads its corpus folders: put back the default panic hook, and
/// write the seed corpus of `target` ([`targets::seeds`]) into the folder named by `GENTABLE_FUZZ_SEEDS`, if
/// that is set.
///
/// libfuzzer-sys installs a hook that aborts on *every* panic, even one that gentable catches on purpose
/// (read/workbook.rs turns a panic of the workbook reader into GT0101). With the default hook a caught panic
/// is what it is in gentable, and an uncaught one still reaches libfuzzer-sys's `catch_unwind`, which aborts:
/// a crash, as before.
pub fn init(target: &str) {
    let _ = std::panic::take_hook();
    let Some(dir) = std::env::var_os("GENTABLE_FUZZ_SEEDS") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("create the seed folder");
    for (name, bytes) in targets::seeds(target) {
        std::fs::write(dir.join(name), bytes).expect("write a seed");
    }
}
