//! gentable's end-to-end benchmark (issue 7; figures in docs/performance.md). Run through `Tools/bench.sh`.
//!
//! ```text
//! bench [--sets luban-shape,csv-1m,...] [--gentable PATH] [--no-baseline] [--runs N] [--floor-only]
//! ```
//!
//! For every synthetic set (generated on first use by `src/datagen.rs` into `target/bench-data/<set>/`, or
//! `$GENTABLE_BENCH_DATA/<set>/`) one
//! run reports, for the release `gentable build` child process:
//! * **cold**: no `.gentable-cache/`, no `generated/`;
//! * **no-op**: everything cached and nothing changed (median of `--runs`);
//! * **edit**: after one cell of one table changed (and again after it is changed back: both are shown);
//! * **peak memory**: the largest max RSS of those children (`wait4`), and its ratio to the input bytes;
//! * **read floor**: the time this machine needs just to read every cell with `csv` and `calamine`, files in
//!   parallel with rayon like gentable, no typing, validation or output; and the ratio cold / read floor;
//! * **baseline**: `benches/baseline.py` (openpyxl + csv + jsonschema, writing JSON) and the ratio
//!   baseline / cold.

mod datagen;
#[allow(dead_code)]
mod measure;

use measure::{run, secs};

use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Read every cell of every table file of `dir` (the read floor); returns the number of non-empty cells.
fn read_floor(dir: &Path) -> usize {
    use calamine::{open_workbook_auto, Data, Reader};
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("Table"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
        .par_iter()
        .map(|p| {
            if p.extension().is_some_and(|e| e == "csv") {
                let bytes = std::fs::read(p).unwrap();
                let mut rdr = csv::ReaderBuilder::new()
                    .has_headers(false)
                    .flexible(true)
                    .from_reader(&bytes[..]);
                let mut rec = csv::ByteRecord::new();
                let mut n = 0;
                while rdr.read_byte_record(&mut rec).unwrap() {
                    n += rec
                        .iter()
                        .filter(|f| !f.is_empty() && std::str::from_utf8(f).is_ok())
                        .count();
                }
                n
            } else {
                let mut wb = open_workbook_auto(p).unwrap();
                let mut n = 0;
                for sheet in wb.sheet_names().to_vec() {
                    let range = wb.worksheet_range(&sheet).unwrap();
                    n += range
                        .used_cells()
                        .filter(|(_, _, c)| **c != Data::Empty)
                        .count();
                }
                n
            }
        })
        .sum()
}

/// User + system CPU time this process has used so far (all threads), from `getrusage`.
fn self_cpu() -> Duration {
    // SAFETY: plain FFI call writing into a zeroed struct we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn main() {
    measure::child_mode();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let flag = |name: &str| args.iter().any(|a| a == name);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize().unwrap_or(repo);
    let sets: Vec<String> = arg("--sets")
        .map(|s| s.split(',').map(String::from).collect())
        .unwrap_or_else(|| datagen::SETS.iter().map(|s| s.to_string()).collect());
    let gentable = arg("--gentable")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("target/release/gentable"));
    assert!(
        gentable.exists(),
        "{} not found: run `cargo build --release` first (Tools/bench.sh does)",
        gentable.display()
    );
    let runs: usize = arg("--runs").and_then(|n| n.parse().ok()).unwrap_or(5);
    let python = if flag("--no-baseline") {
        None
    } else {
        let out = Command::new("python3")
            .arg(repo.join("benches/baseline.py"))
            .arg("--setup")
            .stderr(Stdio::inherit())
            .output()
            .expect("python3");
        assert!(out.status.success(), "baseline setup failed");
        Some(PathBuf::from(
            String::from_utf8(out.stdout).unwrap().trim().to_string(),
        ))
    };
    let logs = repo.join("target/bench-logs");
    std::fs::create_dir_all(&logs).unwrap();
    let root = datagen::data_root();
    println!(
        "| set | input | cold (CPU) | no-op | edit one cell (edit / undo) | peak RSS (× input) | read floor (CPU) | cold / floor, CPU | baseline | baseline / cold |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for set in &sets {
        let t = Instant::now();
        let dir = datagen::generate(&root, set);
        eprintln!(
            "bench: {set}: data ready in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        let input = datagen::input_bytes(&dir);
        let config = dir.join("gentable.toml");
        let build = |extra: &[&str]| {
            let mut c = Command::new(&gentable);
            c.arg("build")
                .arg("-c")
                .arg(&config)
                .arg("--quiet")
                .args(extra);
            c
        };
        let log = logs.join(format!("{set}.log"));
        // Read floor: best of two (the first also warms the page cache for everyone).
        let (floor, floor_cpu) = (0..2)
            .map(|_| {
                let t = Instant::now();
                let c = self_cpu();
                let n = read_floor(&dir);
                assert!(n > 0);
                (t.elapsed(), self_cpu() - c)
            })
            .min()
            .unwrap();
        eprintln!(
            "bench: {set}: read floor {} ({} CPU)",
            secs(floor),
            secs(floor_cpu)
        );
        if flag("--floor-only") {
            continue;
        }
        // Cold.
        let _ = std::fs::remove_dir_all(dir.join(".gentable-cache"));
        let _ = std::fs::remove_dir_all(dir.join("generated"));
        let cold = run(&mut build(&[]), &log);
        eprintln!(
            "bench: {set}: cold {} ({} CPU)",
            secs(cold.wall),
            secs(cold.cpu)
        );
        let mut peak = cold.max_rss_kb;
        // No-op.
        let mut noop: Vec<Duration> = (0..runs)
            .map(|_| {
                let r = run(&mut build(&[]), &log);
                peak = peak.max(r.max_rss_kb);
                r.wall
            })
            .collect();
        noop.sort();
        let noop = noop[noop.len() / 2];
        eprintln!("bench: {set}: no-op {}", secs(noop));
        // One cell edited, then changed back.
        datagen::edit_one_cell(&dir, set);
        let edit = run(&mut build(&[]), &log);
        datagen::restore(&dir, set);
        let undo = run(&mut build(&[]), &log);
        peak = peak.max(edit.max_rss_kb).max(undo.max_rss_kb);
        eprintln!(
            "bench: {set}: edit {} / undo {}",
            secs(edit.wall),
            secs(undo.wall)
        );
        let baseline = python.as_ref().map(|py| {
            let mut c = Command::new(py);
            c.arg(repo.join("benches/baseline.py")).arg(&dir);
            let r = run(&mut c, &logs.join(format!("{set}.baseline.log")));
            eprintln!("bench: {set}: baseline {}", secs(r.wall));
            r.wall
        });
        println!(
            "| {set} | {:.1} MB | {} ({}) | {} | {} / {} | {:.0} MB ({:.2}×) | {} ({}) | {:.2}× | {} | {} |",
            input as f64 / 1e6,
            secs(cold.wall),
            secs(cold.cpu),
            secs(noop),
            secs(edit.wall),
            secs(undo.wall),
            peak as f64 * 1024.0 / 1e6,
            peak as f64 * 1024.0 / input as f64,
            secs(floor),
            secs(floor_cpu),
            cold.cpu.as_secs_f64() / floor_cpu.as_secs_f64(),
            baseline.map(secs).unwrap_or_else(|| "-".into()),
            baseline
                .map(|b| format!("{:.1}×", b.as_secs_f64() / cold.wall.as_secs_f64()))
                .unwrap_or_else(|| "-".into()),
        );
    }
}
