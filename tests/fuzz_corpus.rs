//! The fuzz targets of `fuzz/` (issue 13 item 5; docs/fuzzing.md) on stable, in every test run: each
//! target's body runs on its whole seed corpus (the repository's own tables, workbooks, schemas and the
//! torture set's cells) and on every input under `fuzz/regressions/<target>/` (what the fuzzers found, kept
//! once fixed). `Tools/fuzz.sh` runs the same bodies under libFuzzer, coverage-guided.

#[path = "../fuzz/src/targets.rs"]
#[allow(dead_code)] // the libFuzzer binaries call the targets by name; the replay calls `run`
mod targets;

fn replay(name: &str, min_seeds: usize) {
    let seeds = targets::seeds(name);
    assert!(
        seeds.len() >= min_seeds,
        "{name}: only {} seeds found (the seed corpus is the repository's own files)",
        seeds.len()
    );
    let regressions = targets::regressions(name);
    for (what, data) in seeds.iter().chain(&regressions) {
        let r = std::panic::catch_unwind(|| targets::run(name, data));
        assert!(r.is_ok(), "fuzz target {name} panicked on {what}");
    }
    println!(
        "{name}: {} seeds, {} regressions",
        seeds.len(),
        regressions.len()
    );
}

#[test]
fn cell_target_on_its_corpus() {
    replay("cell", 200);
}

#[test]
fn csv_target_on_its_corpus() {
    replay("csv", 40);
}

#[test]
fn workbook_target_on_its_corpus() {
    replay("workbook", 2);
}

#[test]
fn schema_target_on_its_corpus() {
    replay("schema", 50);
}

#[test]
fn a_workbook_whose_cell_reference_overflows_is_unreadable_not_a_crash() {
    // Found by the `workbook` fuzz target: calamine's reference parser overflowed u32 on the column letters
    // of a cell reference (`attempt to multiply with overflow`, a panic in debug builds, a wrapped column in
    // release). Now GT0101 at the file.
    let path =
        targets::repo().join("fuzz/regressions/workbook/calamine-cell-reference-overflow.xlsx");
    let bytes = std::fs::read(&path).unwrap();
    let file = gentable::read::discover::SourceFile {
        path: "Table/Bad.xlsx".into(),
        rel: "Table/Bad.xlsx".into(),
        rel_in_folder: "Bad.xlsx".into(),
    };
    let mut diags = vec![];
    let tables = gentable::read::workbook::read_workbook(
        &file,
        &bytes,
        &gentable::config::Limits::default(),
        &|_| true,
        &mut diags,
    );
    assert!(tables.is_empty());
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].code, gentable::diag::Code::UnreadableFile);
    assert_eq!(diags[0].file, "Table/Bad.xlsx");
    assert!(
        diags[0].message.contains("the file is damaged"),
        "{}",
        diags[0].message
    );
}

/// Found by the `cell` fuzz target (fuzz/regressions/cell/time-offset-overflow.txt): a time-of-day cell
/// whose "offset" is a huge number overflowed `i32` while it was converted to seconds (a panic in debug
/// builds, a wrapped offset in release). It is a located error now, and real offsets still read.
#[test]
fn a_time_cell_with_a_huge_offset_is_an_error_not_an_overflow() {
    use gentable::typing::cell::time::parse_time;
    for cell in [
        "-247483648",
        "05:00+99999999:00",
        "05:00-24:00",
        "05:00+-5:00",
        "05:00++5",
    ] {
        let e = parse_time(cell, None).expect_err(cell);
        assert!(
            e.message.contains("is not a time zone offset"),
            "{cell}: {}",
            e.message
        );
    }
    assert_eq!(parse_time("05:00+08:00", None).ok(), Some(21 * 3600));
    assert_eq!(parse_time("05:30-01:30", None).ok(), Some(7 * 3600));
    assert_eq!(gentable::schema::parse_offset("+8"), Some(8 * 3600));
    assert_eq!(
        gentable::schema::parse_offset("-05:30"),
        Some(-(5 * 3600 + 30 * 60))
    );
    assert_eq!(gentable::schema::parse_offset("-247483648"), None);
}
