//! `gentable textconv <file>`: a workbook (or a CSV file) as stable text for git's `textconv`, so that
//! `git diff` and `git log -p` show which cells changed (`.gitattributes`: `*.xlsx diff=gentable`, README).
//!
//! Every sheet is read exactly as `gentable build` reads it (each cell as Excel shows it, `read/`): a heading
//! per sheet, then one line per non-blank row, `row: cell | cell | …`, with the row number as the designer
//! sees it. Inside a cell `\`, `|`, line breaks and tabs are escaped (`\\`, `\|`, `\n`, `\r`, `\t`), so a cell
//! never spills into the next line or column, and trailing empty cells are left out. The text depends only on
//! the cells: re-saving a workbook without changing a cell changes nothing.

use crate::read::{RawCell, RawTable, SourceFile, WORKBOOK_EXT};
use std::fmt::Write;
use std::path::Path;

/// The text of the workbook or CSV file at `path`, or why it cannot be read.
pub fn textconv(path: &Path) -> Result<String, String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = SourceFile {
        path: path.to_path_buf(),
        rel: name.clone(),
        rel_in_folder: name.clone(),
    };
    let mut diags = vec![];
    // A file given to textconv is read within the default [limits] (it has no project).
    let limits = crate::config::Limits::default();
    let tables: Vec<RawTable> = if WORKBOOK_EXT.contains(&ext.as_str()) {
        crate::read::workbook::read_workbook(&file, &bytes, &limits, &|_| true, &mut diags)
    } else {
        let delim = if ext == "tsv" { b'\t' } else { b',' };
        crate::read::csv::read_csv_bytes(&name, &name, &bytes, None, delim, &limits, &mut diags)
            .into_iter()
            .collect()
    };
    if tables.is_empty() {
        if let Some(d) = diags.first() {
            return Err(format!("{}: {}", path.display(), d.message));
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "# gentable textconv {name}");
    for t in &tables {
        match &t.sheet {
            Some(s) => {
                let _ = writeln!(out, "== sheet {s}");
            }
            None => {
                let _ = writeln!(out, "== {name}");
            }
        }
        for r in &t.rows {
            let mut cells: Vec<String> = r.cells.iter().map(show).collect();
            while cells.last().is_some_and(|c| c.is_empty()) {
                cells.pop();
            }
            if cells.is_empty() {
                continue;
            }
            let _ = writeln!(out, "{}: {}", r.row, cells.join(" | "));
        }
    }
    for d in &diags {
        let _ = writeln!(out, "! {}", d);
    }
    Ok(out)
}

/// One cell's text, escaped so that it stays on its line and in its column.
fn show(c: &RawCell) -> String {
    let mut s = String::new();
    for ch in c.text().chars() {
        match ch {
            '\\' => s.push_str("\\\\"),
            '|' => s.push_str("\\|"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c => s.push(c),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_stay_on_their_line_and_in_their_column() {
        assert_eq!(
            show(&RawCell::Text("a|b\\c\nd\te".into())),
            "a\\|b\\\\c\\nd\\te"
        );
        assert_eq!(show(&RawCell::Int(3)), "3");
        assert_eq!(show(&RawCell::Empty), "");
    }
}
