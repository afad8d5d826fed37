//! What a worksheet shows that its cell values alone do not say (docs/conventions.md §7 "Fidelity"): hidden
//! rows and columns that are exported (GT0219, a warning), values under an empty header that are not
//! (GT0218, a warning), and merged ranges over data cells, whose covered cells read as empty (GT0220, an
//! error). One diagnostic per run of rows, per column, per range: never one per cell.

use crate::diag::{column_letters, Code, Diagnostic};
use crate::read::{Merge, RawCell, RawRow, RawTable};

/// Hidden data rows and hidden field columns of `src`: one warning per run of consecutive hidden data rows,
/// one per source for the hidden field columns. `data` are the rows typed as data; `fields` the `(column,
/// field name)` pairs read.
pub fn hidden(
    src: &RawTable,
    data: &[&RawRow],
    fields: &[(usize, &str)],
    diags: &mut Vec<Diagnostic>,
) {
    if !src.hidden_rows.is_empty() {
        let hidden: Vec<usize> = data
            .iter()
            .map(|r| r.row)
            .filter(|r| src.hidden_rows.binary_search(r).is_ok())
            .collect();
        let mut runs: Vec<(usize, usize)> = vec![];
        for r in hidden {
            match runs.last_mut() {
                Some((_, end)) if *end + 1 == r => *end = r,
                _ => runs.push((r, r)),
            }
        }
        for (a, b) in runs {
            let what = if a == b {
                format!("row {a} is hidden")
            } else {
                format!("rows {a}-{b} are hidden")
            };
            diags.push(
                Diagnostic::cell_error(
                    Code::HiddenCells,
                    &src.origin(a),
                    None,
                    None,
                    None,
                    format!("{what} in the worksheet (by hand, by a filter or a collapsed outline), but exported like every row"),
                )
                .with_help("delete the rows that must not ship, or start their first cell with # to comment them out")
                .warning(),
            );
        }
    }
    let cols: Vec<&(usize, &str)> = fields
        .iter()
        .filter(|(c, _)| src.hidden_cols.binary_search(c).is_ok())
        .collect();
    if let (Some(first), Some(row)) = (cols.first(), data.first()) {
        let list = crate::diag::list::series(
            cols.iter()
                .map(|(c, f)| format!("{} ({f})", column_letters(*c))),
        );
        let what = if cols.len() == 1 {
            "is a hidden column"
        } else {
            "are hidden columns"
        };
        diags.push(
            Diagnostic::cell_error(
                Code::HiddenCells,
                &src.origin(row.row),
                Some(first.0),
                Some(first.1),
                None,
                format!("{list} {what} of the worksheet, but exported like every column"),
            )
            .with_help(
                "unhide the columns, or start their header with # to make them comment columns",
            )
            .warning(),
        );
    }
}

/// Values in note columns (an empty header) of data rows: one warning per column, at its first value. A
/// column that some row above the data labels (UnityGameFramework's `策划备注` in a `#` row) is a note column
/// on purpose and says nothing.
pub fn unheaded(
    src: &RawTable,
    header: &[RawCell],
    first_col: usize,
    skip: &dyn Fn(usize) -> bool,
    data: &[&RawRow],
    diags: &mut Vec<Diagnostic>,
) {
    let width = data.iter().map(|r| r.cells.len()).max().unwrap_or(0);
    let first_data = data.first().map_or(usize::MAX, |r| r.row);
    let labelled = |c: usize| {
        src.rows
            .iter()
            .take_while(|r| r.row < first_data)
            .any(|r| r.cells.get(c).is_some_and(|x| !x.is_blank()))
    };
    for c in first_col..width {
        let named = header.get(c).is_some_and(|h| !h.is_blank());
        if named || skip(c) || labelled(c) {
            continue;
        }
        let Some((row, cell)) = data
            .iter()
            .find_map(|r| r.cells.get(c).filter(|x| !x.is_blank()).map(|x| (r, x)))
        else {
            continue;
        };
        let n = data
            .iter()
            .filter(|r| r.cells.get(c).is_some_and(|x| !x.is_blank()))
            .count();
        let letter = column_letters(c);
        diags.push(
            Diagnostic::cell_error(
                Code::UnheadedValue,
                &src.origin(row.row),
                Some(c),
                None,
                Some(&cell.text()),
                format!(
                    "column {letter} has no header, so its {n} value{} {} not exported",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "is" } else { "are" }
                ),
            )
            .with_help(format!(
                "give column {letter} a header (a field of the schema), or start the header with # to make it a comment column"
            ))
            .warning(),
        );
    }
}

/// Merged ranges of `src` that cover a data cell of a field other than their top-left cell: errors at the
/// top-left cell naming the range. Returns the covered cells (`(row, column)`), which typing treats as failed
/// (not also "missing").
pub fn merged_data(
    src: &RawTable,
    data: &[&RawRow],
    fields: &[(usize, &str)],
    diags: &mut Vec<Diagnostic>,
) -> std::collections::HashSet<(usize, usize)> {
    let mut covered = std::collections::HashSet::new();
    let (Some(lo), Some(hi)) = (data.first(), data.last()) else {
        return covered;
    };
    for m in &src.merges {
        if m.rows.1 < lo.row || m.rows.0 > hi.row || (m.rows.0 == m.rows.1 && m.cols.0 == m.cols.1)
        {
            continue;
        }
        let cells: Vec<(usize, usize)> = data
            .iter()
            .filter(|r| (m.rows.0..=m.rows.1).contains(&r.row))
            .flat_map(|r| {
                fields
                    .iter()
                    .filter(|(c, _)| (m.cols.0..=m.cols.1).contains(c))
                    .map(move |(c, _)| (r.row, *c))
            })
            .filter(|&(r, c)| (r, c) != (m.rows.0, m.cols.0))
            .collect();
        if cells.is_empty() {
            continue;
        }
        covered.extend(cells.iter().copied());
        report(src, m, fields, diags);
    }
    covered
}

fn report(src: &RawTable, m: &Merge, fields: &[(usize, &str)], diags: &mut Vec<Diagnostic>) {
    let top = src
        .rows
        .iter()
        .find(|r| r.row == m.rows.0)
        .and_then(|r| r.cells.get(m.cols.0))
        .map(RawCell::text)
        .unwrap_or_default();
    let field = fields
        .iter()
        .find(|(c, _)| (m.cols.0..=m.cols.1).contains(c))
        .map(|(_, f)| *f);
    let range = m.a1();
    diags.push(
        Diagnostic::cell_error(
            Code::MergedData,
            &src.origin(m.rows.0),
            Some(m.cols.0),
            field,
            Some(&top),
            format!(
                "{range} is a merged range: Excel shows {top:?} across it, but only {}{} holds the value, so the other cells of the range read as empty",
                column_letters(m.cols.0),
                m.rows.0
            ),
        )
        .with_help(format!("unmerge {range} and fill every cell of it")),
    );
}
