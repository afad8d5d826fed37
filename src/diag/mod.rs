//! **diag/** owns diagnostics: the finding, its typed [`Code`], and rendering ([`render`]). It is a base
//! module: it imports no stage.
//!
//! Diagnostics: every problem gentable finds, with the cell a designer must fix.
//!
//! A [`Diagnostic`] names the file, the sheet (workbooks), the 1-based row as the designer sees it, the A1 column
//! letter and header, the cell's text and what was expected. Runs collect *all* diagnostics into a
//! [`Diagnostics`] list, which sorts them deterministically (file, sheet, row, column, code).
//! Codes are stable (`GT0xxx`); `gentable explain CODE` describes each ([`code::Code::explanation`]).
//! Messages are written in English; [`lang`] gives them in Simplified Chinese at the edge (`--lang zh`), and
//! [`sarif`] writes a run's diagnostics as a SARIF log.

pub mod code;
pub mod foreign;
pub use code::{Class, Code};
pub mod hint;
pub mod lang;
pub mod list;
pub mod render;
pub mod sarif;
pub mod words;
mod zh;

use serde::Serialize;
use std::fmt;

/// Error or warning. `--deny warnings` promotes warnings to errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// Where a row came from: file (relative to the project root, `/`-separated), sheet, 1-based row. The file
/// and sheet names are shared by every row of a source (`Arc<str>`: a clone is a reference count, not an
/// allocation per row; issue 18, peak memory).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowOrigin {
    pub file: std::sync::Arc<str>,
    pub sheet: Option<std::sync::Arc<str>>,
    pub row: usize,
}

/// One finding. Fields are stable: they are the `--message-format json` object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code, e.g. `GT0201`.
    pub code: Code,
    pub message: String,
    pub file: String,
    pub sheet: Option<String>,
    /// 1-based row as the designer sees it (0 = whole file).
    pub row: usize,
    /// A1 column letters, e.g. `C` (None = whole row).
    pub column: Option<String>,
    /// Column header / schema property.
    pub field: Option<String>,
    pub cell_text: Option<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at a file (no row).
    pub fn file_error(code: Code, file: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            file: file.into(),
            sheet: None,
            row: 0,
            column: None,
            field: None,
            cell_text: None,
            help: None,
        }
    }
    /// An error at a cell of `origin`'s row.
    pub fn cell_error(
        code: Code,
        origin: &RowOrigin,
        col: Option<usize>,
        field: Option<&str>,
        cell_text: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            file: origin.file.to_string(),
            sheet: origin.sheet.as_deref().map(str::to_string),
            row: origin.row,
            column: col.map(column_letters),
            field: field.map(str::to_string),
            cell_text: cell_text.map(str::to_string),
            help: None,
        }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    pub fn warning(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }
    /// `file[:sheet]:row:COL` location prefix.
    pub fn location(&self) -> String {
        let mut s = self.file.clone();
        if let Some(sh) = &self.sheet {
            s.push_str(&format!("[{sh}]"));
        }
        if self.row > 0 {
            s.push_str(&format!(":{}", self.row));
            if let Some(c) = &self.column {
                s.push_str(&format!(":{c}"));
            }
        }
        s
    }
    fn sort_key(&self) -> (String, Option<String>, usize, usize, &'static str, String) {
        (
            self.file.clone(),
            self.sheet.clone(),
            self.row,
            self.column.as_deref().map(column_index).unwrap_or(0),
            self.code.as_str(),
            self.message.clone(),
        )
    }
}

impl fmt::Display for Diagnostic {
    /// One-line plain form: `error[GT0201]: file:row:COL (field): message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}[{}]: {}", self.code, self.location())?;
        if let Some(field) = &self.field {
            write!(f, " ({field})")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(t) = &self.cell_text {
            write!(f, "; cell text: {t:?}")?;
        }
        if let Some(h) = &self.help {
            write!(f, "; help: {h}")?;
        }
        Ok(())
    }
}

/// A collected list of diagnostics.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }
    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.items.extend(other);
    }
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }
    pub fn error_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
    pub fn warning_count(&self) -> usize {
        self.items
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count()
    }
    /// Sort deterministically and drop exact duplicates.
    pub fn sort(&mut self) {
        self.items.sort_by_key(|a| a.sort_key());
        self.items.dedup();
    }
    /// Promote warnings to errors (`--deny warnings`).
    pub fn deny_warnings(&mut self) {
        for d in &mut self.items {
            d.severity = Severity::Error;
        }
    }
}

/// A path as messages show it: relative to the project folder without a leading `./` (`generated/…`, like
/// `Table/PieceType.csv` and GitHub annotations), whatever the project file's folder was given as.
pub fn shown_path(p: &std::path::Path) -> std::path::PathBuf {
    p.strip_prefix(".").unwrap_or(p).to_path_buf()
}

/// 0-based column index → A1 letters (`0` → `A`, `26` → `AA`).
pub fn column_letters(mut col: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'A' + (col % 26) as u8);
        if col < 26 {
            break;
        }
        col = col / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).expect("ASCII")
}

/// A1 letters → 0-based column index (inverse of [`column_letters`]); `None` for non-letters.
pub fn column_from_letters(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let mut n: usize = 0;
    for b in s.bytes() {
        n = n
            .checked_mul(26)?
            .checked_add((b.to_ascii_uppercase() - b'A') as usize + 1)?;
    }
    Some(n - 1)
}

fn column_index(s: &str) -> usize {
    column_from_letters(s).map(|c| c + 1).unwrap_or(0)
}

/// Closest candidate to `needle` (Jaro–Winkler ≥ 0.7 or case-insensitive match), for "did you mean" hints.
pub fn closest<'a>(needle: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = needle.to_lowercase();
    let mut best: Option<(&str, f64)> = None;
    for c in candidates {
        let score = if c.to_lowercase() == lower {
            2.0
        } else {
            strsim::jaro_winkler(&lower, &c.to_lowercase())
        };
        if score >= 0.7 && best.is_none_or(|(_, s)| score > s) {
            best = Some((c, score));
        }
    }
    best.map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a1_letters_round_trip() {
        assert_eq!(column_letters(0), "A");
        assert_eq!(column_letters(25), "Z");
        assert_eq!(column_letters(26), "AA");
        assert_eq!(column_letters(27), "AB");
        assert_eq!(column_letters(701), "ZZ");
        assert_eq!(column_letters(702), "AAA");
        for i in 0..2000 {
            assert_eq!(column_from_letters(&column_letters(i)), Some(i));
        }
        assert_eq!(column_from_letters("c"), Some(2));
        assert_eq!(column_from_letters("1"), None);
    }
    #[test]
    fn closest_prefers_case_insensitive_then_similar() {
        let c = ["Soldier", "Minister", "Officer"];
        assert_eq!(closest("soldier", c), Some("Soldier"));
        assert_eq!(closest("Minster", c), Some("Minister"));
        assert_eq!(closest("zzz", c), None);
    }
}
