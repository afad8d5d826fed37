//! The layout of a table's sources: where the header, the comment rows and columns and the data are
//! (docs/conventions.md §2), from its `[tables.<Name>]` override.

use crate::config::{Limits, TableOverride};
use crate::read::{RawCell, RawRow};
use crate::typing::cell::Grammar;

/// Where the header, the comments and the data of a table's sources are (docs/conventions.md §2), from its
/// `[tables.<Name>]` override.
#[derive(Clone, Debug)]
pub struct Layout {
    /// 0-based first column read; columns to its left are never header or data.
    pub first_col: usize,
    /// 0-based column whose cell marks comment rows and the `header_marker` row.
    pub marker_col: usize,
    /// Prefix of comment rows (marker cell) and comment columns (header or column-marker cell).
    pub comment_marker: String,
    /// Explicit 1-based header row.
    pub header_row: Option<usize>,
    /// The header is the first row whose marker cell is exactly this (trimmed).
    pub header_marker: Option<String>,
    /// 1-based first data row.
    pub data_row: Option<usize>,
    /// 1-based row tagging comment columns.
    pub column_marker_row: Option<usize>,
    /// Top-level array separator of one cell.
    pub array_separator: char,
    /// `cell_dialect = "luban"`: compound cells are read in Luban's stream form (`typing/cell/stream.rs`).
    pub luban: bool,
    /// `null_text`: a cell of exactly this text is null in a nullable field.
    pub null_text: Option<String>,
    /// `ignore_unknown_columns`: headers naming no field are skipped.
    pub ignore_unknown_columns: bool,
    /// 0-based `tag_column`: its cell holds the row's tags (comma-separated).
    pub tag_col: Option<usize>,
    /// `[limits] nesting_depth`: the deepest nesting of a cell.
    pub max_depth: usize,
    /// Vertical sheets: the 0-based column of the values, if configured (`value_column`).
    pub value_col: Option<usize>,
    /// Vertical sheets: the 0-based column of the types (`type_column`).
    pub type_col: Option<usize>,
    /// `multi_row_fields`: list fields a continuation row adds elements to.
    pub multi_rows: Vec<String>,
}

impl Layout {
    /// The layout of an override (defaults: header = first non-comment row, columns from A, markers in the
    /// first column, comment marker `#`, array separator `|`), with the project's `[limits]`.
    pub fn of(ov: Option<&TableOverride>, limits: &Limits) -> Layout {
        let col = |c: Option<&String>| c.and_then(|c| crate::diag::column_from_letters(c));
        let first_col = col(ov.and_then(|o| o.first_column.as_ref())).unwrap_or(0);
        Layout {
            first_col,
            marker_col: col(ov.and_then(|o| o.marker_column.as_ref())).unwrap_or(first_col),
            comment_marker: ov
                .and_then(|o| o.comment_marker.clone())
                .unwrap_or_else(|| "#".into()),
            header_row: ov.and_then(|o| o.header_row),
            header_marker: ov
                .and_then(|o| o.header_marker.as_ref())
                .map(|m| m.trim().to_string()),
            data_row: ov.and_then(|o| o.data_row),
            column_marker_row: ov.and_then(|o| o.column_marker_row),
            array_separator: ov
                .and_then(|o| o.array_separator.as_deref())
                .and_then(|s| s.chars().next())
                .unwrap_or('|'),
            luban: ov.and_then(|o| o.cell_dialect.as_deref()) == Some("luban"),
            null_text: ov.and_then(|o| o.null_text.clone()),
            ignore_unknown_columns: ov.and_then(|o| o.ignore_unknown_columns) == Some(true),
            tag_col: col(ov.and_then(|o| o.tag_column.as_ref())),
            max_depth: limits.nesting_depth,
            value_col: col(ov.and_then(|o| o.value_column.as_ref())),
            type_col: col(ov.and_then(|o| o.type_column.as_ref())),
            multi_rows: ov
                .and_then(|o| o.multi_row_fields.clone())
                .unwrap_or_default(),
        }
    }

    /// How this table's compound cells are read ([`Grammar`]).
    pub fn grammar(&self) -> Grammar {
        Grammar {
            separator: self.array_separator,
            max_depth: self.max_depth,
        }
    }

    /// The text of the marker cell of `r`.
    pub fn marker(&self, r: &RawRow) -> String {
        r.cells
            .get(self.marker_col)
            .map(RawCell::text)
            .unwrap_or_default()
    }
    /// Blank from the first column on.
    pub fn is_blank(&self, r: &RawRow) -> bool {
        r.cells.iter().skip(self.first_col).all(RawCell::is_blank)
    }
    /// A comment row: its marker cell starts with the comment marker.
    pub fn is_comment(&self, r: &RawRow) -> bool {
        self.marker(r).starts_with(&self.comment_marker)
    }

    /// The index in `rows` of the header row: `header_row`, else the first row whose marker cell is
    /// `header_marker`, else the first row that is neither blank nor a comment.
    pub fn header(&self, rows: &[RawRow]) -> Option<usize> {
        match (self.header_row, &self.header_marker) {
            (Some(h), _) => rows.iter().position(|r| r.row == h),
            (None, Some(m)) => rows.iter().position(|r| self.marker(r).trim() == m),
            (None, None) => rows
                .iter()
                .position(|r| !self.is_blank(r) && !self.is_comment(r)),
        }
    }
}
