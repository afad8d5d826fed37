//! The raw cells of one table source, exactly as the file holds them: what [`super`] gives to typing.

use crate::diag::RowOrigin;

/// A raw cell as read from the file, before typing.
#[derive(Clone, Debug, PartialEq)]
pub enum RawCell {
    Empty,
    /// Text (all CSV cells; string cells of workbooks).
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// An Excel error value such as `#N/A` or `#DIV/0!`.
    Error(String),
    /// An Excel date/time serial (days since 1899-12-30) or ISO text.
    DateTime(String),
    /// A cell the reader has already reported, so typing skips it without further diagnostics: CSV bytes
    /// that are not valid in the file's encoding (GT0102, shown lossily), or a cell larger than `[limits]
    /// cell_bytes` (GT0104, shown as a [`preview`]).
    Undecodable(String),
}

impl RawCell {
    /// The cell as text (what a designer sees), for headers, comments and diagnostics.
    pub fn text(&self) -> String {
        match self {
            RawCell::Empty => String::new(),
            RawCell::Text(s)
            | RawCell::Error(s)
            | RawCell::DateTime(s)
            | RawCell::Undecodable(s) => s.clone(),
            RawCell::Int(i) => i.to_string(),
            RawCell::Float(f) => {
                let mut s = String::new();
                crate::ir::canonical::write_f64(&mut s, *f);
                s
            }
            RawCell::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        }
    }
    /// Empty or only white space (incl. NBSP).
    pub fn is_blank(&self) -> bool {
        match self {
            RawCell::Empty => true,
            RawCell::Text(s) => s.trim().is_empty(),
            _ => false,
        }
    }
}

/// One physical row: its 1-based row number (CSV: the line where the record starts) and cells from column A.
#[derive(Clone, Debug)]
pub struct RawRow {
    pub row: usize,
    pub cells: Vec<RawCell>,
}

/// A merged cell region of a worksheet (inclusive): 1-based rows as the designer sees them, 0-based columns.
/// Its value is the one of its top-left cell; the other cells read as empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Merge {
    pub rows: (usize, usize),
    pub cols: (usize, usize),
}

/// One table source: a CSV file or a worksheet.
#[derive(Clone, Debug)]
pub struct RawTable {
    /// Table name: file stem or sheet name, or the `[tables.<Name>]` whose `files`/`sheets` select it.
    pub name: String,
    /// Path relative to the project root, `/`-separated.
    pub file: String,
    pub sheet: Option<String>,
    pub rows: Vec<RawRow>,
    /// Merged regions (worksheets only; empty for CSV).
    pub merges: Vec<Merge>,
}

impl RawTable {
    pub fn origin(&self, row: usize) -> RowOrigin {
        RowOrigin {
            file: self.file.clone(),
            sheet: self.sheet.clone(),
            row,
        }
    }
}

/// A short form of a long cell for diagnostics: its first 80 characters and its size
/// (`"aaaa…" (400 MiB)`); short text unchanged.
pub fn preview(s: &str) -> String {
    const SHOWN: usize = 80;
    match s.char_indices().nth(SHOWN) {
        None => s.to_string(),
        Some((i, _)) => format!(
            "{}… ({} in all)",
            &s[..i],
            super::guard::bytes_text(s.len() as u64)
        ),
    }
}
