//! Synthetic benchmark data: `datagen [SET...]` writes `target/bench-data/<set>/` (or
//! `$GENTABLE_BENCH_DATA/<set>/`; all sets when none is named). Seeded and deterministic; see `src/datagen.rs`. `datagen --edit SET` changes the one cell the
//! benchmark edits, `datagen --undo SET` changes it back (to time a one-cell edit by hand).

#[path = "../datagen.rs"]
#[allow(dead_code)]
mod datagen;

fn main() {
    let mut sets: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if sets.is_empty() {
        sets = datagen::SETS.iter().map(|s| s.to_string()).collect();
    }
    let root = datagen::data_root();
    let flag = |f: &str| std::env::args().any(|a| a == f);
    if flag("--edit") || flag("--undo") {
        for set in &sets {
            let dir = datagen::generate(&root, set);
            if flag("--edit") {
                datagen::edit_one_cell(&dir, set);
            } else {
                datagen::restore(&dir, set);
            }
        }
        return;
    }
    for set in &sets {
        let t = std::time::Instant::now();
        let dir = datagen::generate(&root, set);
        eprintln!(
            "datagen: {set}: {} ({:.1} MB of tables) in {:.1} s",
            dir.display(),
            datagen::input_bytes(&dir) as f64 / 1e6,
            t.elapsed().as_secs_f64()
        );
    }
}
