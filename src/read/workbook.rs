//! Workbook sources (`.xlsx`, `.xlsm`, `.xls`, `.xlsb`, `.ods`) through `calamine`: one raw table per
//! visible worksheet, each cell as Excel shows it (docs/conventions.md §7): formula cells give their stored
//! result (a formula without one is [`RawCell::NoResult`]), numbers their 15-digit value, date cells their
//! serial in the workbook's own date system (1900 or 1904), text is normalised, and a number whose format
//! changes what Excel shows carries that text. Hidden sheets are skipped unless a `sheets` glob selects them;
//! hidden rows and columns and merged ranges are recorded for typing. What calamine does not pass on is read
//! from the xlsx parts by [`super::xlsx`].
//!
//! Cells are read **sparsely**: xlsx and xlsb sheets through calamine's cell readers, one cell at a time,
//! never through a dense range sized by the sheet's declared `<dimension>` or by the distance between its
//! cells; each row holds its cells up to its last non-empty one. `.xls` and `.ods` are parsed whole by
//! calamine when the workbook is opened, after [`super::guard`] has bounded what that costs. While a sheet is
//! read, `[limits]` bound it (GT0104): a cell larger than `cell_bytes` is reported at its cell, more cell text
//! than `file_bytes` or more cells than `sheet_cells` (the sum of the rows' widths) stops the file.

use super::discover::SourceFile;
use super::guard;
use super::raw::{excel_number, Formatted, Merge, RawCell, RawRow, RawTable, Serial};
use crate::config::Limits;
use crate::diag::{Code, Diagnostic, RowOrigin};
use calamine::{Data, Reader};
use std::collections::BTreeMap;
use std::path::Path;

/// Every worksheet of `file` that is a table source (not `#…` sheets, not empty ones), from the workbook
/// `bytes` (see the module docs); problems go to `diags`. `keep_hidden(sheet)` says whether a hidden sheet
/// is read all the same (a `sheets` glob of gentable.toml selects it).
pub fn read_workbook(
    file: &SourceFile,
    bytes: &[u8],
    limits: &Limits,
    keep_hidden: &dyn Fn(&str) -> bool,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    read_workbook_in(file, bytes, limits, keep_hidden, false, diags, &mut vec![])
}

/// Why a worksheet that exists is not a table source (docs/conventions.md §2 "Skipped").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skipped {
    /// Its name starts with `#`: a comment sheet.
    Comment,
    /// No cell holds a value (a new workbook's unused `Sheet2`, a chart sheet).
    Empty,
}

/// [`read_workbook`], with the sheets named `#…` too when `hash_named` (a build never reads them), also
/// giving in `seen` every sheet it looked at, in workbook order, by its (NFC) name, with why it was skipped
/// (`None`: it was read, or could not be; a hidden sheet not kept is not listed).
#[allow(clippy::too_many_arguments)]
fn read_workbook_in(
    file: &SourceFile,
    bytes: &[u8],
    limits: &Limits,
    keep_hidden: &dyn Fn(&str) -> bool,
    hash_named: bool,
    diags: &mut Vec<Diagnostic>,
    seen: &mut Vec<(String, Option<Skipped>)>,
) -> Vec<RawTable> {
    let ext = file
        .path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let checked = match guard::check(&ext, bytes, limits) {
        Ok(c) => c,
        Err(why) => {
            diags.push(
                Diagnostic::file_error(
                    Code::LimitExceeded,
                    &file.rel,
                    format!("the workbook is not read: {why}"),
                )
                .with_help(LIMIT_HELP),
            );
            return vec![];
        }
    };
    // calamine panics on some damaged files (found by the `workbook` fuzz target: a cell reference whose
    // column letters overflow u32, `attempt to multiply with overflow` in its reference parser; release
    // builds check overflow in calamine too, Cargo.toml): such a file is unreadable, never a crash.
    let mut found = vec![];
    let read = catch_quietly(std::panic::AssertUnwindSafe(
        || match open_workbook_auto_bytes(&file.path, bytes) {
            Ok(wb) => {
                let merges = !matches!(wb, calamine::Sheets::Xlsx(_)) || checked.mentions_merges;
                let facts = matches!(wb, calamine::Sheets::Xlsx(_))
                    .then(|| super::xlsx::Workbook::open(bytes))
                    .flatten();
                let mut sheets = Sheets {
                    file,
                    limits,
                    text: 0,
                    diags: &mut found,
                    facts,
                    keep_hidden,
                    hash_named,
                    seen: &mut *seen,
                };
                sheets.read(wb, merges).unwrap_or_default()
            }
            Err(e) => {
                found.push(Diagnostic::file_error(
                    Code::UnreadableFile,
                    &file.rel,
                    format!("cannot open workbook: {e}"),
                ));
                vec![]
            }
        },
    ));
    match read {
        Ok(tables) => {
            diags.append(&mut found);
            tables
        }
        Err((why, at)) => {
            let message = match at {
                Some(at) => format!("cannot read workbook: the file is damaged (the xlsx/xls/ods reader stopped: {why}, in {at})"),
                None => format!("cannot read workbook: the file is damaged (the xlsx/xls/ods reader stopped: {why})"),
            };
            diags.push(
                Diagnostic::file_error(Code::UnreadableFile, &file.rel, message)
                    .with_help("re-save the workbook from Excel or LibreOffice"),
            );
            vec![]
        }
    }
}

thread_local! {
    /// True while this thread runs [`catch_quietly`]'s closure.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Where the last silenced panic on this thread happened (`calamine-0.38.0/src/xlsx/mod.rs:3112`).
    static PANICKED_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// `std::panic::catch_unwind(f)` without the default panic hook's message (`thread '…' panicked at …`, and
/// with `RUST_BACKTRACE=1` a backtrace) on stderr; the error is the panic's message and where it happened
/// (a crate's path from its own folder on: `calamine-0.38.0/src/xlsx/mod.rs:3112`), which the caller reports
/// as a diagnostic (GT0101). `f` is the whole read of one workbook: calamine's parsing, and gentable's own
/// code that reads its sheets, so a bug of gentable's there is reported the same way, with its location
/// (`src/read/workbook.rs:…`). The process-wide hook is wrapped once, the first time; panics on other
/// threads, or outside the closure on this one, still reach the previous hook (a hook a program embedding
/// gentable sets later replaces the wrapper, and the messages come back).
fn catch_quietly<R>(
    f: impl FnOnce() -> R + std::panic::UnwindSafe,
) -> Result<R, (String, Option<String>)> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                previous(info);
                return;
            }
            let at = info.location().map(|l| {
                let file = l.file();
                let file = file
                    .split("/registry/src/")
                    .nth(1)
                    .and_then(|r| r.split_once('/'))
                    .map_or(file, |(_, rest)| rest);
                format!("{file}:{}", l.line())
            });
            PANICKED_AT.with(|p| *p.borrow_mut() = at);
        }));
    });
    /// Resets the flag however the closure ends.
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    let _reset = Reset(QUIET.with(|q| q.replace(true)));
    std::panic::catch_unwind(f).map_err(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        (why, PANICKED_AT.with(|p| p.borrow_mut().take()))
    })
}

/// [`read_workbook`] of the file on disk, every sheet (hidden ones too; for tools that read a workbook
/// outside a build, e.g. `gentable import luban` and `gentable infer`): a file larger than `limits.file_bytes` is refused unread (GT0104), an
/// unreadable one is GT0101-class `UnreadableFile`.
pub fn read_workbook_file(
    file: &SourceFile,
    limits: &Limits,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    read_file_in(file, limits, false, diags, &mut vec![])
}

/// [`read_workbook_file`] with the sheets named `#…` too, which a build never reads: for `gentable import
/// luban`, since Luban reads every sheet whose A1 cell starts with `##`, whatever its name.
pub fn read_every_sheet_file(
    file: &SourceFile,
    limits: &Limits,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    read_file_in(file, limits, true, diags, &mut vec![])
}

/// [`read_workbook_file`], and every sheet of the workbook in order (NFC names), with why it was skipped
/// (`None`: it is a table source), so that a tool asked for a sheet that is no table can say that it exists
/// and why (`gentable infer --sheet`).
pub fn read_workbook_file_and_sheets(
    file: &SourceFile,
    limits: &Limits,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<RawTable>, Vec<(String, Option<Skipped>)>) {
    let mut seen = vec![];
    let tables = read_file_in(file, limits, false, diags, &mut seen);
    (tables, seen)
}

fn read_file_in(
    file: &SourceFile,
    limits: &Limits,
    hash_named: bool,
    diags: &mut Vec<Diagnostic>,
    seen: &mut Vec<(String, Option<Skipped>)>,
) -> Vec<RawTable> {
    let len = std::fs::metadata(&file.path).map(|m| m.len()).unwrap_or(0);
    if len > limits.file_bytes {
        diags.push(
            Diagnostic::file_error(
                Code::LimitExceeded,
                &file.rel,
                format!(
                    "the file is {len} bytes, more than [limits] file_bytes ({})",
                    guard::bytes_text(limits.file_bytes)
                ),
            )
            .with_help(LIMIT_HELP),
        );
        return vec![];
    }
    match std::fs::read(&file.path) {
        Ok(bytes) => read_workbook_in(file, &bytes, limits, &|_| true, hash_named, diags, seen),
        Err(e) => {
            diags.push(Diagnostic::file_error(
                Code::UnreadableFile,
                &file.rel,
                format!("cannot read file: {e}"),
            ));
            vec![]
        }
    }
}

const LIMIT_HELP: &str =
    "re-save the workbook from Excel, or raise the bound in [limits] of gentable.toml if the data is real";

/// `calamine::open_workbook_auto` on bytes in memory: the same format choice (by extension, else by trying
/// each format) and the same errors.
fn open_workbook_auto_bytes<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> Result<calamine::Sheets<std::io::Cursor<&'a [u8]>>, calamine::Error> {
    use calamine::{open_workbook_from_rs, Error, Ods, Sheets, Xls, Xlsb, Xlsx};
    let rs = || std::io::Cursor::new(bytes);
    Ok(match path.extension().and_then(|e| e.to_str()) {
        Some("xls" | "xla") => Sheets::Xls(open_workbook_from_rs(rs()).map_err(Error::Xls)?),
        Some("xlsx" | "xlsm" | "xlam") => {
            Sheets::Xlsx(open_workbook_from_rs(rs()).map_err(Error::Xlsx)?)
        }
        Some("xlsb") => Sheets::Xlsb(open_workbook_from_rs(rs()).map_err(Error::Xlsb)?),
        Some("ods") => Sheets::Ods(open_workbook_from_rs(rs()).map_err(Error::Ods)?),
        _ => {
            if let Ok(wb) = open_workbook_from_rs::<Xls<_>, _>(rs()) {
                Sheets::Xls(wb)
            } else if let Ok(wb) = open_workbook_from_rs::<Xlsx<_>, _>(rs()) {
                Sheets::Xlsx(wb)
            } else if let Ok(wb) = open_workbook_from_rs::<Xlsb<_>, _>(rs()) {
                Sheets::Xlsb(wb)
            } else if let Ok(wb) = open_workbook_from_rs::<Ods<_>, _>(rs()) {
                Sheets::Ods(wb)
            } else {
                return Err(Error::Msg("Cannot detect file format"));
            }
        }
    })
}

/// Reading the sheets of one workbook under its `[limits]` budget.
struct Sheets<'a> {
    file: &'a SourceFile,
    limits: &'a Limits,
    /// Cell text read from the file so far (bytes).
    text: u64,
    diags: &'a mut Vec<Diagnostic>,
    /// What the xlsx parts say beyond calamine (formats, formulas without a result, hidden rows and
    /// columns, merges); `None` for other formats.
    facts: Option<super::xlsx::Workbook<'a>>,
    keep_hidden: &'a dyn Fn(&str) -> bool,
    /// Read the sheets named `#…` too ([`read_every_sheet_file`]).
    hash_named: bool,
    /// Every sheet looked at, with why it was skipped ([`read_workbook_in`]).
    seen: &'a mut Vec<(String, Option<Skipped>)>,
}

/// The file is not read further (the reason is in the diagnostics).
struct Stop;

/// One sheet being read: its rows by 0-based index, each up to its last non-empty cell.
struct Sheet {
    name: String,
    rows: BTreeMap<u32, Vec<RawCell>>,
    /// The sum of the rows' widths.
    cells: u64,
    /// The number formats by 1-based row and 0-based column (xlsx).
    formats: std::collections::HashMap<(usize, usize), String>,
    /// The workbook's date system is 1904 (`<workbookPr date1904>`).
    date1904: bool,
}

impl Sheets<'_> {
    fn read<RS: std::io::Read + std::io::Seek>(
        &mut self,
        mut wb: calamine::Sheets<RS>,
        merges: bool,
    ) -> Result<Vec<RawTable>, Stop> {
        let date1904 = match &wb {
            calamine::Sheets::Xlsx(x) => x.has_1904_epoch(),
            calamine::Sheets::Xls(x) => x.has_1904_epoch(),
            _ => false,
        };
        let names: Vec<(String, bool)> = wb
            .sheets_metadata()
            .iter()
            .map(|s| (s.name.clone(), s.visible != calamine::SheetVisible::Visible))
            .collect();
        let mut out = Vec::new();
        for (name, hidden) in names {
            let comment = name.starts_with('#') && !self.hash_named;
            if hidden && !(self.keep_hidden)(&name) && !comment {
                continue;
            }
            let nfc = super::raw::normalize_text(&name).into_owned();
            if comment {
                self.seen.push((nfc, Some(Skipped::Comment)));
                continue;
            }
            self.seen.push((nfc, None));
            let f = self
                .facts
                .as_mut()
                .map(|w| w.facts(&name))
                .unwrap_or_default();
            let mut sheet = Sheet {
                name: name.clone(),
                rows: BTreeMap::new(),
                cells: 0,
                formats: f.formats,
                date1904,
            };
            let read = match &mut wb {
                calamine::Sheets::Xlsx(x) => match x.worksheet_cells_reader(&name) {
                    // A chart sheet has no cells.
                    Err(calamine::XlsxError::NotAWorksheet(_)) => Ok(()),
                    Err(e) => Err(e.to_string()),
                    Ok(mut cells) => loop {
                        match cells.next_cell() {
                            Ok(Some(c)) => {
                                let (r, col) = c.get_position();
                                self.put(&mut sheet, r, col, Cell::Ref(c.get_value()))?;
                            }
                            Ok(None) => break Ok(()),
                            Err(e) => break Err(e.to_string()),
                        }
                    },
                },
                calamine::Sheets::Xlsb(x) => match x.worksheet_cells_reader(&name) {
                    Err(e) => Err(e.to_string()),
                    Ok(mut cells) => loop {
                        match cells.next_cell() {
                            Ok(Some(c)) => {
                                let (r, col) = c.get_position();
                                self.put(&mut sheet, r, col, Cell::Ref(c.get_value()))?;
                            }
                            Ok(None) => break Ok(()),
                            Err(e) => break Err(e.to_string()),
                        }
                    },
                },
                // Parsed whole at open (bounded by `guard`): the used cells of the range.
                other => match other.worksheet_range(&name) {
                    Err(e) => Err(e.to_string()),
                    Ok(range) => {
                        let (r0, c0) = range.start().unwrap_or((0, 0));
                        for (r, c, d) in range.used_cells() {
                            self.put(
                                &mut sheet,
                                r0 + r as u32,
                                c0 + c as u32,
                                Cell::Data(d.clone()),
                            )?;
                        }
                        Ok(())
                    }
                },
            };
            if let Err(e) = read {
                let mut d = Diagnostic::file_error(
                    Code::UnreadableFile,
                    &self.file.rel,
                    format!("cannot read sheet: {e}"),
                );
                d.sheet = Some(name.clone());
                self.diags.push(d);
                continue;
            }
            // A formula without a stored result has no value for calamine: the xlsx parts give it.
            for (row, col, formula, placeholder) in &f.no_result {
                let cells = sheet.rows.entry(*row as u32 - 1).or_default();
                if cells.len() <= *col {
                    cells.resize(col + 1, RawCell::Empty);
                }
                cells[*col] = RawCell::NoResult(Box::new(super::raw::Uncalculated {
                    formula: formula.clone(),
                    placeholder: placeholder.clone(),
                }));
            }
            // An empty sheet (workbooks often keep an unused Sheet2/Sheet3) is no table.
            if sheet.rows.values().all(|r| r.iter().all(RawCell::is_blank)) {
                if let Some(last) = self.seen.last_mut() {
                    last.1 = Some(Skipped::Empty);
                }
                continue;
            }
            let merges = if self.facts.is_some() {
                f.merges
            } else if merges {
                merged_regions(&mut wb, &name)
            } else {
                vec![]
            };
            let name = super::raw::normalize_text(&name).into_owned();
            out.push(RawTable {
                name: name.clone(),
                file: self.file.rel.as_str().into(),
                sheet: Some(name.into()),
                hidden_rows: f.hidden_rows,
                hidden_cols: f.hidden_cols,
                rows: sheet
                    .rows
                    .into_iter()
                    .map(|(r, cells)| RawRow {
                        row: r as usize + 1,
                        cells,
                    })
                    .collect(),
                merges,
                unread: false,
            });
        }
        Ok(out)
    }

    /// Put the cell `value` at 0-based (`row`, `col`) of `sheet`, within the budget.
    fn put(&mut self, sheet: &mut Sheet, row: u32, col: u32, value: Cell) -> Result<(), Stop> {
        let cell = match value {
            // Text (most cells of a designer's sheet) straight from calamine's shared strings: no `String`
            // in between, and none at all for text short enough to sit inline in the raw cell.
            Cell::Ref(calamine::DataRef::SharedString(t)) => {
                (!t.is_empty()).then(|| RawCell::text_cell(std::borrow::Cow::Borrowed(t)))
            }
            other => {
                let d = match other {
                    Cell::Ref(r) => Data::from(r.clone()),
                    Cell::Data(d) => d,
                };
                let format = sheet.formats.get(&(row as usize + 1, col as usize));
                raw_cell(d, format.map(String::as_str), sheet.date1904)
            }
        };
        let Some(mut cell) = cell else {
            return Ok(());
        };
        // The cell's 1-based row; its `RowOrigin` is built only for a diagnostic, never per cell.
        let at_row = row as usize + 1;
        let len = match &cell {
            RawCell::Text(s) => s.len() as u64,
            RawCell::DateTime(s) | RawCell::Error(s) => s.len() as u64,
            _ => 0,
        };
        if len > self.limits.cell_bytes {
            let shown = super::raw::preview(&cell.text());
            self.diags.push(
                Diagnostic::cell_error(
                    Code::LimitExceeded,
                    &RowOrigin {
                        file: self.file.rel.as_str().into(),
                        sheet: Some(sheet.name.as_str().into()),
                        row: at_row,
                    },
                    Some(col as usize),
                    None,
                    Some(&shown),
                    format!(
                        "the cell holds {len} bytes of text, more than [limits] cell_bytes ({})",
                        self.limits.cell_bytes
                    ),
                )
                .with_help("shorten the cell, or raise [limits] cell_bytes in gentable.toml"),
            );
            cell = RawCell::Undecodable(shown);
        }
        self.text += len;
        if self.text > self.limits.file_bytes {
            let mut d = Diagnostic::file_error(
                Code::LimitExceeded,
                &self.file.rel,
                format!(
                    "the workbook's cells hold more than {} bytes of text ([limits] file_bytes); reading stopped at \
                     row {}",
                    self.limits.file_bytes, at_row
                ),
            )
            .with_help(LIMIT_HELP);
            d.sheet = Some(sheet.name.clone());
            self.diags.push(d);
            return Err(Stop);
        }
        let cells = sheet.rows.entry(row).or_default();
        let col = col as usize;
        if cells.len() <= col {
            sheet.cells += (col + 1 - cells.len()) as u64;
            if sheet.cells > self.limits.sheet_cells {
                let mut d = Diagnostic::file_error(
                    Code::LimitExceeded,
                    &self.file.rel,
                    format!(
                        "the sheet spans more than {} cells ([limits] sheet_cells, the sum of each row's columns up \
                         to its last value); reading stopped at {}{}",
                        self.limits.sheet_cells,
                        crate::diag::column_letters(col),
                        at_row
                    ),
                )
                .with_help(
                    "delete stray cells far right of the table (Ctrl+End shows the last one), or raise [limits] \
                     sheet_cells",
                );
                d.sheet = Some(sheet.name.clone());
                self.diags.push(d);
                return Err(Stop);
            }
            cells.resize(col + 1, RawCell::Empty);
        }
        cells[col] = cell;
        Ok(())
    }
}

/// A cell value as calamine gives it: borrowed from the streaming cell reader (xlsx, xlsb) or owned (a
/// range of the other formats).
enum Cell<'a> {
    Ref(&'a calamine::DataRef<'a>),
    Data(Data),
}

/// A calamine value as a raw cell, as Excel shows it (module docs), given its number `format` (xlsx) and the
/// workbook's date system; `None` for an empty cell (or an empty string).
fn raw_cell(d: Data, format: Option<&str>, date1904: bool) -> Option<RawCell> {
    Some(match d {
        Data::Empty => return None,
        Data::String(s) if s.is_empty() => return None,
        Data::String(s) => RawCell::text_cell(std::borrow::Cow::Owned(s)),
        Data::Int(i) => RawCell::Int(i),
        Data::Float(x) => {
            let v = excel_number(x);
            match format {
                Some(code) => formatted(v, code),
                None => RawCell::Float(v),
            }
        }
        Data::Bool(b) => RawCell::Bool(b),
        Data::Error(e) => RawCell::Error(e.to_string()),
        Data::DateTime(dt) => RawCell::Serial(Serial {
            value: dt.as_f64(),
            date1904,
            duration: dt.is_duration(),
        }),
        Data::DateTimeIso(s) | Data::DurationIso(s) => RawCell::DateTime(s),
    })
}

/// A number cell with the number format `code`: [`RawCell::Formatted`] when Excel shows it as other text
/// than its plain value, else the plain number.
fn formatted(v: f64, code: &str) -> RawCell {
    let shown = super::numfmt::render(code, v);
    if shown.as_deref() == Some(super::raw::number_text(v).as_str()) {
        return RawCell::Float(v);
    }
    RawCell::Formatted(Box::new(Formatted {
        value: v,
        shown,
        format: code.to_string(),
    }))
}

/// The merged regions of a worksheet (xlsx and xls; none for other formats or when they cannot be read).
fn merged_regions<RS: std::io::Read + std::io::Seek>(
    wb: &mut calamine::Sheets<RS>,
    sheet: &str,
) -> Vec<Merge> {
    let dims = match wb {
        calamine::Sheets::Xlsx(x) => x.merge_cells_by_sheet_name(sheet).ok(),
        calamine::Sheets::Xls(x) => x.merge_cells_by_sheet_name(sheet).ok(),
        _ => None,
    };
    dims.unwrap_or_default()
        .into_iter()
        .map(|d| Merge {
            rows: (d.start.0 as usize + 1, d.end.0 as usize + 1),
            cols: (d.start.1 as usize, d.end.1 as usize),
        })
        .collect()
}
