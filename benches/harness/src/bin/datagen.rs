//! Synthetic benchmark data: `datagen [SET...]` writes `target/bench-data/<set>/` (all sets when none is
//! named). Seeded and deterministic; see `src/datagen.rs`.

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
