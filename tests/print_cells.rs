//! The cell grammar backwards (`typing::cell::print`): every value of every table of the repository's projects
//! (FunnyPitch, the torture set with every type and the hardest values, the examples), written as cell text
//! and read back with the table's own separator, is the same value. The designer's tools (`gentable diff`,
//! `gentable report`) show values in this spelling, so what they show is what a designer could type.

use gentable::ir::Value;
use gentable::typing::cell::{parse_cell_with, print::cell_text};
use std::path::{Path, PathBuf};

fn projects() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![
        root.join("gentable.toml"),
        root.join("tests/torture/gentable.toml"),
    ];
    let mut ex: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("gentable.toml"))
        .filter(|p| p.exists())
        .collect();
    ex.sort();
    out.extend(ex);
    out
}

#[test]
fn every_value_reads_back_from_its_printed_cell() {
    let mut checked = 0;
    let mut compound = 0;
    let mut failures = vec![];
    for cfg in projects() {
        let (loaded, v) = gentable::build::load_path(&cfg).unwrap();
        let p = &v.project;
        for t in &p.tables {
            let sep = loaded
                .config
                .tables
                .get(&t.name)
                .and_then(|o| o.array_separator.as_deref())
                .and_then(|s| s.chars().next())
                .unwrap_or('|');
            for row in &t.rows {
                for (f, value) in t.fields.iter().zip(&row.values) {
                    if matches!(value, Value::Null) {
                        continue;
                    }
                    let text = cell_text(p, &f.ty, value, sep);
                    checked += 1;
                    if matches!(
                        value,
                        Value::Array(_) | Value::Record(_) | Value::Map(_) | Value::Union(..)
                    ) {
                        compound += 1;
                    }
                    if text.is_empty() {
                        // An empty cell: typing gives an array or map field its empty value.
                        if !matches!(value, Value::Array(a) if a.is_empty())
                            && !matches!(value, Value::Map(m) if m.is_empty())
                        {
                            failures
                                .push(format!("{}.{}: {value:?} printed empty", t.name, f.name));
                        }
                        continue;
                    }
                    match parse_cell_with(
                        &text,
                        &f.ty,
                        p,
                        gentable::typing::cell::Grammar {
                            separator: sep,
                            max_depth: loaded.config.limits.nesting_depth,
                        },
                    ) {
                        Ok(back) if back == *value => {}
                        other => failures.push(format!(
                            "{} {}.{}: {value:?} printed as {text:?} reads back as {other:?}",
                            cfg.display(),
                            t.name,
                            f.name
                        )),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The set is real: thousands of cells, hundreds of them compound.
    assert!(
        checked > 2000 && compound > 300,
        "{checked} cells, {compound} compound"
    );
}

#[test]
fn printed_cells_are_the_plain_spelling() {
    let (_, v) =
        gentable::build::load_path(&Path::new(env!("CARGO_MANIFEST_DIR")).join("gentable.toml"))
            .unwrap();
    let p = &v.project;
    let lib = p.table("MoveRuleLib").unwrap();
    let fwd = lib
        .rows
        .iter()
        .find(|r| r.values[0] == Value::Str("Forward".into()))
        .unwrap();
    assert_eq!(
        cell_text(p, &lib.fields[1].ty, &fwd.values[1], '|'),
        "(x=0,y=1)"
    );
    let mp = p.table("MovePiece").unwrap();
    let soldier = mp
        .rows
        .iter()
        .find(|r| r.values[0] == Value::Str("Soldier".into()))
        .unwrap();
    assert_eq!(
        cell_text(p, &mp.fields[1].ty, &soldier.values[1], '|'),
        "StepMove_Forward|StepCapture_ForwardLeft|StepCapture_ForwardRight"
    );
}
