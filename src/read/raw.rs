//! The raw cells of one table source, exactly as the file holds them: what [`super`] gives to typing.
//!
//! Text is normalised here, once, for every format (docs/conventions.md §7 "Fidelity"): line breaks inside a
//! cell become `\n` (CSV `\r\n` in quoted fields, xlsx `_x000D_`, a lone `\r`) and text is Unicode NFC
//! ([`normalize_text`]), so a CRLF checkout, an NFD keyboard and an LF checkout give the same bytes. Numbers
//! of workbooks are the values Excel displays: 15 significant digits ([`excel_number`]).

use crate::diag::RowOrigin;
use std::borrow::Cow;

/// A raw cell as read from the file, before typing.
#[derive(Clone, Debug, PartialEq)]
pub enum RawCell {
    Empty,
    /// Text (all CSV cells; string cells of workbooks), normalised by [`normalize_text`]. Up to 24 bytes
    /// (an id, a number, a short name: most cells) are held inline, without an allocation of their own.
    Text(compact_str::CompactString),
    Int(i64),
    /// A workbook number as Excel displays it ([`excel_number`]: 15 significant digits).
    Float(f64),
    Bool(bool),
    /// An Excel error value such as `#N/A` or `#DIV/0!`.
    Error(String),
    /// An Excel date, time or duration cell (a number with a date or time format): its serial number.
    Serial(Serial),
    /// ISO 8601 text of a date, time or duration cell of an OpenDocument sheet (`2024-05-01T12:00:00`,
    /// `PT12H30M`).
    DateTime(String),
    /// A number whose cell format makes Excel show it differently from its plain value (`000` shows 7 as
    /// `007`): see [`Formatted`].
    Formatted(Box<Formatted>),
    /// A formula cell whose result gentable cannot trust: no stored result (`<c><f>A3*2</f></c>` without
    /// `<v>`), or a placeholder in a workbook that asks to be recalculated on load (`fullCalcOnLoad`, as
    /// libraries without a calculation engine write them). See [`Uncalculated`].
    NoResult(Box<Uncalculated>),
    /// A cell the reader has already reported, so typing skips it without further diagnostics: CSV bytes
    /// that are not valid in the file's encoding (GT0102, shown with the invalid bytes escaped: `\xD5`), or a
    /// cell larger than `[limits] cell_bytes` (GT0104, shown as a [`preview`]).
    Undecodable(String),
}

/// An Excel date/time serial number: days since the workbook's epoch (1900 system: day 1 = 1900-01-01 with
/// Excel's fictitious 1900-02-29 as day 60; 1904 system: day 0 = 1904-01-01), the fraction is the time of
/// day. Converted by [`crate::ir::time::excel_serial`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Serial {
    pub value: f64,
    /// The workbook uses the 1904 date system (`<workbookPr date1904="1"/>`).
    pub date1904: bool,
    /// The cell's format is a duration (`[h]:mm:ss`): the serial counts days of elapsed time.
    pub duration: bool,
}

/// A formula cell without a trustworthy result ([`RawCell::NoResult`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uncalculated {
    /// The formula text, without `=` (empty for a shared formula's follower cell, which has none of its own).
    pub formula: String,
    /// The placeholder the file stores (`0`) when the workbook asks to be recalculated on load; `None` when
    /// there is no stored result at all.
    pub placeholder: Option<String>,
}

/// A number shown through its number format (docs/conventions.md §7): the value, the text Excel shows
/// (`None` when gentable cannot reproduce the format, e.g. fractions or conditions) and the format code.
#[derive(Clone, Debug, PartialEq)]
pub struct Formatted {
    pub value: f64,
    pub shown: Option<String>,
    pub format: String,
}

impl RawCell {
    /// A text cell: empty text is [`RawCell::Empty`]; other text is normalised ([`normalize_text`]). Up to
    /// 24 bytes sit inline in the cell (no allocation); longer text is allocated, unless `s` is owned and
    /// normalisation leaves it as it is (its buffer is kept).
    pub fn text_cell(s: Cow<'_, str>) -> RawCell {
        if s.is_empty() {
            return RawCell::Empty;
        }
        RawCell::Text(match normalize_text(&s) {
            Cow::Owned(n) => n.into(),
            Cow::Borrowed(_) => match s {
                Cow::Borrowed(b) => compact_str::CompactString::new(b),
                Cow::Owned(o) => o.into(),
            },
        })
    }

    /// The cell as text (what a designer sees), for headers, comments and diagnostics.
    pub fn text(&self) -> String {
        match self {
            RawCell::Empty => String::new(),
            RawCell::Text(s) => s.to_string(),
            RawCell::Error(s) | RawCell::DateTime(s) | RawCell::Undecodable(s) => s.clone(),
            RawCell::Int(i) => i.to_string(),
            RawCell::Float(f) => number_text(*f),
            RawCell::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
            RawCell::Serial(s) => {
                crate::ir::time::excel_serial_text(s.value, s.date1904, s.duration)
            }
            RawCell::Formatted(f) => f.shown.clone().unwrap_or_else(|| number_text(f.value)),
            RawCell::NoResult(u) => format!("={}", u.formula),
        }
    }
    /// Empty or only white space (incl. NBSP): what a row of nothing but such cells looks like to a designer.
    pub fn is_blank(&self) -> bool {
        match self {
            RawCell::Empty => true,
            RawCell::Text(s) => s.trim().is_empty(),
            _ => false,
        }
    }
    /// No value at all: an empty cell. White-space-only text is a value of a string field
    /// (docs/conventions.md §7), and blank for every other type.
    pub fn is_empty(&self) -> bool {
        matches!(self, RawCell::Empty)
    }
}

/// The text of a number as the formula bar shows it: at most 15 significant digits, no exponent for
/// ordinary magnitudes (`0.3`, `1234567`, `1e+21`).
pub fn number_text(f: f64) -> String {
    let mut s = String::new();
    crate::ir::canonical::write_f64(&mut s, excel_number(f));
    s
}

/// The value Excel displays for a stored double: rounded to 15 significant digits, the precision Excel keeps
/// and shows (`0.1+0.2` is stored as `0.30000000000000004` and shown as `0.3`). `-0` becomes `0`.
///
/// A double whose shortest round-trip decimal has at most 15 significant digits is its own 15-digit
/// rounding (its distance to that decimal is under half an ulp, less than half a unit of the 15th digit), so
/// only doubles that need 16 or 17 digits are formatted and parsed again; whole numbers below 10^15 and
/// designers' decimals such as `0.25` or `12.5` cost one shortest-digits scan or nothing.
pub fn excel_number(f: f64) -> f64 {
    if !f.is_finite() || f == 0.0 {
        return if f == 0.0 { 0.0 } else { f };
    }
    if f.fract() == 0.0 && f.abs() < 1e15 {
        return f;
    }
    let mut buf = ryu_js::Buffer::new();
    let shortest = buf.format_finite(f);
    let mantissa = shortest.split(['e', 'E']).next().unwrap_or(shortest);
    // Significant digits: from the first non-zero digit to the last one.
    let (mut first, mut last, mut n) = (None, 0, 0);
    for b in mantissa.bytes().filter(u8::is_ascii_digit) {
        if b != b'0' {
            first.get_or_insert(n);
            last = n;
        }
        n += 1;
    }
    if first.is_some_and(|first| last - first < 15) {
        return f;
    }
    format!("{f:.14e}").parse().unwrap_or(f)
}

/// Normalise cell text (docs/conventions.md §7): `\r\n` and a lone `\r` become `\n`; the text becomes Unicode
/// NFC. Borrowed when nothing changes (the common case costs one scan).
pub fn normalize_text(s: &str) -> Cow<'_, str> {
    use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};
    let mut out: Cow<str> = Cow::Borrowed(s);
    if memchr::memchr(b'\r', s.as_bytes()).is_some() {
        out = Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"));
    }
    if !out.is_ascii()
        && !out.chars().all(nfc_inert)
        && is_nfc_quick(out.chars()) != IsNormalized::Yes
    {
        let n: String = out.nfc().collect();
        if n != out {
            out = Cow::Owned(n);
        }
    }
    out
}

/// Whether `c` can never change under NFC, whatever surrounds it: a Basic Multilingual Plane character with
/// NFC_Quick_Check = Yes and canonical combining class 0 (Unicode UAX #15 §9), as the `unicode-normalization`
/// crate's own tables say. Text made only of such characters is in NFC, so the common case (CJK, kana,
/// Hangul, full-width and CJK punctuation, Latin) is one table look-up per character; anything else goes
/// through the full quick check. The table (8 KiB) is built once from the crate's data.
fn nfc_inert(c: char) -> bool {
    use std::sync::OnceLock;
    use unicode_normalization::char::canonical_combining_class;
    use unicode_normalization::{is_nfc_quick, IsNormalized};
    static TABLE: OnceLock<Vec<u64>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut bits = vec![0u64; 0x10000 / 64];
        for cp in 0..0x10000u32 {
            let Some(ch) = char::from_u32(cp) else {
                continue;
            };
            if canonical_combining_class(ch) == 0
                && is_nfc_quick(std::iter::once(ch)) == IsNormalized::Yes
            {
                bits[cp as usize / 64] |= 1 << (cp % 64);
            }
        }
        bits
    });
    let cp = c as usize;
    cp < 0x10000 && table[cp / 64] & (1 << (cp % 64)) != 0
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

impl Merge {
    /// Whether the region covers the cell at 1-based `row`, 0-based `col`.
    pub fn covers(&self, row: usize, col: usize) -> bool {
        (self.rows.0..=self.rows.1).contains(&row) && (self.cols.0..=self.cols.1).contains(&col)
    }
    /// The region in A1 notation: `A4:A5`.
    pub fn a1(&self) -> String {
        use crate::diag::column_letters as l;
        format!(
            "{}{}:{}{}",
            l(self.cols.0),
            self.rows.0,
            l(self.cols.1),
            self.rows.1
        )
    }
}

/// One table source: a CSV file or a worksheet.
#[derive(Clone, Debug, Default)]
pub struct RawTable {
    /// Table name: file stem or sheet name (NFC), or the `[tables.<Name>]` whose `files`/`sheets` select it.
    pub name: String,
    /// Path relative to the project root, `/`-separated (shared with every row's [`RowOrigin`]).
    pub file: std::sync::Arc<str>,
    /// The worksheet's name (shared with every row's [`RowOrigin`]); `None` for CSV.
    pub sheet: Option<std::sync::Arc<str>>,
    pub rows: Vec<RawRow>,
    /// Merged regions (worksheets only; empty for CSV).
    pub merges: Vec<Merge>,
    /// 1-based rows hidden in the worksheet (`<row hidden="1">`: hidden by hand, by a filter or a collapsed
    /// outline), ascending.
    pub hidden_rows: Vec<usize>,
    /// 0-based columns hidden in the worksheet (`<col hidden="1">`), ascending.
    pub hidden_cols: Vec<usize>,
    /// The source could not be read at all (a file-level diagnostic says why, e.g. UTF-16 text without a
    /// byte-order mark): it has no rows, and typing neither reads nor reports it; its table is incomplete, so
    /// nothing is said about references into it.
    pub unread: bool,
}

impl RawTable {
    pub fn origin(&self, row: usize) -> RowOrigin {
        RowOrigin {
            file: self.file.clone(),
            sheet: self.sheet.clone(),
            row,
        }
    }
    /// The merged region covering a cell, if any (a one-cell region counts as none).
    pub fn merge_at(&self, row: usize, col: usize) -> Option<&Merge> {
        self.merges
            .iter()
            .find(|m| m.covers(row, col) && (m.rows.0 != m.rows.1 || m.cols.0 != m.cols.1))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_normalised_to_lf_and_nfc() {
        assert_eq!(normalize_text("a\r\nb\rc\nd"), "a\nb\nc\nd");
        // "Amélie" written with a combining accent (NFD, 65 CC 81) is the NFC word (C3 A9).
        let nfd = "Ame\u{301}lie";
        assert_eq!(normalize_text(nfd).as_bytes(), "Am\u{e9}lie".as_bytes());
        assert!(matches!(normalize_text("plain"), Cow::Borrowed(_)));
        assert!(matches!(normalize_text("战机，。「」"), Cow::Borrowed(_)));
        assert_eq!(RawCell::text_cell(Cow::Borrowed("")), RawCell::Empty);
        assert_eq!(
            RawCell::text_cell(Cow::Borrowed("\u{a0}")),
            RawCell::Text("\u{a0}".into())
        );
    }

    #[test]
    fn the_nfc_fast_path_agrees_with_full_normalization() {
        use unicode_normalization::UnicodeNormalization;
        // Every BMP character alone, after a base letter, and before the marks that compose with what
        // precedes them (combining acute, Hangul medial vowel and final consonant, kana voiced mark).
        let followers = ["", "\u{301}", "\u{1161}", "\u{11a8}", "\u{3099}", "，"];
        let mut checked = 0;
        for cp in 0..0x10000u32 {
            let Some(c) = char::from_u32(cp) else {
                continue;
            };
            for f in followers {
                for text in [format!("{c}{f}"), format!("a{c}{f}"), format!("攻{c}")] {
                    let want: String = text.replace('\r', "\n").nfc().collect();
                    assert_eq!(normalize_text(&text), want.as_str(), "U+{cp:04X} {f:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1_000_000);
        // Designers' text passes unchanged (borrowed).
        let line = "对敌方单体造成120点伤害，「眩晕」2回合。附加：\"限定\"Boss+15%";
        assert!(matches!(normalize_text(line), Cow::Borrowed(_)));
    }

    #[test]
    fn the_shortest_digits_fast_path_agrees_with_rounding_to_15_digits() {
        let slow = |f: f64| -> f64 { format!("{f:.14e}").parse().unwrap() };
        let mut values = vec![
            0.1 + 0.2,
            1.0 / 3.0,
            2.0 / 3.0,
            123456789012345.6,
            999999999999999.9,
            1e15,
            1e15 + 1.0,
            9007199254740993.0,
            1e21,
            1.7976931348623157e308,
            5e-324,
            2.2250738585072014e-308,
            0.000001,
            1.0000000000000002,
            0.9999999999999999,
        ];
        for k in 1..20_000 {
            values.push(k as f64 / 100.0);
            values.push(k as f64 / 7.0);
            values.push(k as f64 * 1.1);
            values.push((k as f64).sqrt());
        }
        // Arbitrary bit patterns (xorshift64), finite ones only.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x);
            if f.is_finite() && f != 0.0 {
                values.push(f);
            }
        }
        for f in values {
            for f in [f, -f] {
                assert_eq!(excel_number(f).to_bits(), slow(f).to_bits(), "{f:e}");
            }
        }
    }

    #[test]
    fn excel_numbers_have_15_significant_digits() {
        assert_eq!(excel_number(0.1 + 0.2), 0.3);
        assert_eq!(excel_number(3.0000000000000004), 3.0);
        assert_eq!(excel_number(-0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(excel_number(123456789012345.6), 123456789012346.0);
        assert_eq!(number_text(0.1 + 0.2), "0.3");
        assert_eq!(number_text(1e21), "1e+21");
    }
}
