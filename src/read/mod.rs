//! Reading: files under the table folders → [`RawTable`]s of raw cells.
//!
//! Conventions (docs/conventions.md §2): one source per CSV file (`.csv`, `.tsv`; `.txt` only when
//! `gentable.toml` has a `[tables.<stem>]` entry or a `files` glob selects it) and per worksheet of every
//! `.xlsx`/`.xlsm`/`.xls`/`.xlsb`/`.ods`; Excel lock files `~$*`, hidden files, sheets named `#…` and empty
//! sheets are skipped, as are files matching `[project] ignore` globs. A source belongs to the table named by
//! its file stem or sheet name, unless a `[tables.<Name>] files`/`sheets` selection claims it ([`Sources`]);
//! the pipeline concatenates the sources of one table.
//!
//! CSV text is UTF-8 (BOM optional) unless overridden; a UTF-16 BOM always wins. CSV is parsed with the `csv`
//! crate (RFC 4180, quoted newlines) on raw bytes and each field is decoded on its own, so an invalid byte is
//! reported at its exact cell. Workbooks are read with `calamine`; formula cells give their cached value;
//! merged regions are recorded ([`RawTable::merges`]) for the header conventions.
//!
//! Nothing here interprets header or comment rows: that is [`crate::typing`]'s job.

use crate::config::Loaded;
use crate::diag::Code;
use crate::diag::{Diagnostic, RowOrigin};
use std::path::{Path, PathBuf};

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
    /// CSV bytes that are not valid in the file's encoding (shown lossily). The reader has already reported
    /// the cell (GT0102), so typing skips it without further diagnostics.
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

pub const WORKBOOK_EXT: &[&str] = &["xlsx", "xlsm", "xls", "xlsb", "ods"];

/// A file that holds one or more tables.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceFile {
    pub path: PathBuf,
    /// Relative to the project root, `/`-separated.
    pub rel: String,
    /// Relative to the table folder it was found in, `/`-separated (what `files` globs match).
    pub rel_in_folder: String,
}

/// Which table each source belongs to: the `[tables.<Name>] files`/`sheets` selections (docs/conventions.md §2).
pub struct Sources {
    /// `(table, files globs, sheets globs)` for every table with a selection, by table name.
    selections: Vec<(String, Option<globset::GlobSet>, Option<globset::GlobSet>)>,
}

impl Sources {
    /// Compile the selections of `loaded`'s `[tables]`. Bad globs are configuration errors (GT0002); the
    /// config loader rejects them already.
    pub fn new(loaded: &Loaded) -> Result<Self, Box<Diagnostic>> {
        let set = |name: &str,
                   key: &str,
                   globs: &Option<Vec<String>>|
         -> Result<Option<globset::GlobSet>, Box<Diagnostic>> {
            let Some(globs) = globs else { return Ok(None) };
            let bad = |e: globset::Error| {
                Box::new(Diagnostic::file_error(
                    Code::ProjectLayout,
                    "gentable.toml",
                    format!("[tables.{name}] {key}: bad glob: {e}"),
                ))
            };
            let mut b = globset::GlobSetBuilder::new();
            for g in globs {
                b.add(globset::Glob::new(g).map_err(bad)?);
            }
            b.build().map(Some).map_err(bad)
        };
        let mut selections = vec![];
        for (name, o) in &loaded.config.tables {
            if o.selects_sources() {
                selections.push((
                    name.clone(),
                    set(name, "files", &o.files)?,
                    set(name, "sheets", &o.sheets)?,
                ));
            }
        }
        Ok(Sources { selections })
    }

    /// True if some table's `files` glob selects this file (so a `.txt` file is a table file).
    pub fn selects_file(&self, rel_in_folder: &str) -> bool {
        self.selections
            .iter()
            .any(|(_, f, _)| f.as_ref().is_some_and(|f| f.is_match(rel_in_folder)))
    }

    /// The tables whose selection claims a CSV file (`sheet` = None) or a worksheet.
    pub fn claims(&self, rel_in_folder: &str, sheet: Option<&str>) -> Vec<&str> {
        self.selections
            .iter()
            .filter(|(_, files, sheets)| match sheet {
                None => files.as_ref().is_some_and(|f| f.is_match(rel_in_folder)),
                Some(sh) => {
                    files.as_ref().is_none_or(|f| f.is_match(rel_in_folder))
                        && sheets.as_ref().is_none_or(|s| s.is_match(sh))
                }
            })
            .map(|(n, _, _)| n.as_str())
            .collect()
    }

    /// The table a source belongs to: the one table claiming it, else `default` (file stem or sheet name)
    /// unless that table has a selection that does not include the source (`Ok(None)`: skipped).
    /// `Err` lists the tables when several claim it.
    pub fn table_of(
        &self,
        rel_in_folder: &str,
        sheet: Option<&str>,
        default: &str,
    ) -> Result<Option<String>, Vec<String>> {
        match self.claims(rel_in_folder, sheet).as_slice() {
            [one] => Ok(Some(one.to_string())),
            [] if self.selections.iter().any(|(n, _, _)| n == default) => Ok(None),
            [] => Ok(Some(default.to_string())),
            many => Err(many.iter().map(|s| s.to_string()).collect()),
        }
    }
}

/// List the table files under the configured folders, sorted by relative path.
// The one diagnostic is returned by value: callers put it straight into their list.
#[allow(clippy::result_large_err)]
pub fn discover(loaded: &Loaded) -> Result<Vec<SourceFile>, Diagnostic> {
    let sources = Sources::new(loaded).map_err(|d| *d)?;
    let mut ignore = globset::GlobSetBuilder::new();
    for g in &loaded.config.project.ignore {
        let glob = globset::Glob::new(g).map_err(|e| {
            Diagnostic::file_error(
                Code::ProjectLayout,
                "gentable.toml",
                format!("bad ignore glob {g:?}: {e}"),
            )
        })?;
        ignore.add(glob);
    }
    let ignore = ignore.build().map_err(|e| {
        Diagnostic::file_error(
            Code::ProjectLayout,
            "gentable.toml",
            format!("bad ignore globs: {e}"),
        )
    })?;
    let mut out = Vec::new();
    for dir in &loaded.config.project.tables {
        let abs = loaded.root.join(dir);
        if !abs.is_dir() {
            return Err(Diagnostic::file_error(
                Code::ProjectLayout,
                dir.to_string_lossy(),
                format!("table folder {} does not exist", abs.display()),
            ));
        }
        walk(&abs, &mut |p| {
            let rel_in_dir = p
                .strip_prefix(&abs)
                .unwrap_or(p)
                .to_string_lossy()
                .replace('\\', "/");
            if ignore.is_match(&rel_in_dir) {
                return;
            }
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("~$") || name.starts_with('.') {
                return;
            }
            let ext = p
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            let stem = p.file_stem().and_then(|e| e.to_str()).unwrap_or("");
            let is_table = match ext.as_str() {
                "csv" | "tsv" => true,
                "txt" => {
                    loaded.config.tables.contains_key(stem) || sources.selects_file(&rel_in_dir)
                }
                e => WORKBOOK_EXT.contains(&e),
            };
            if is_table {
                let rel = rel_path(&loaded.root, p);
                out.push(SourceFile {
                    path: p.to_path_buf(),
                    rel,
                    rel_in_folder: rel_in_dir,
                });
            }
        })
        .map_err(|e| {
            Diagnostic::file_error(
                Code::ProjectLayout,
                dir.to_string_lossy(),
                format!("cannot list folder: {e}"),
            )
        })?;
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let p = e.path();
        if e.file_type()?.is_dir() {
            if !e.file_name().to_string_lossy().starts_with('.') {
                walk(&p, f)?;
            }
        } else {
            f(&p);
        }
    }
    Ok(())
}

/// `p` relative to `root`, `/`-separated; falls back to the full path.
pub fn rel_path(root: &Path, p: &Path) -> String {
    let rel = pathdiff(p, root);
    rel.to_string_lossy().replace('\\', "/")
}

fn pathdiff(p: &Path, root: &Path) -> PathBuf {
    let (Ok(p), Ok(root)) = (p.canonicalize(), root.canonicalize()) else {
        return p.to_path_buf();
    };
    let pc: Vec<_> = p.components().collect();
    let rc: Vec<_> = root.components().collect();
    let common = pc.iter().zip(&rc).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..rc.len() {
        out.push("..");
    }
    for c in &pc[common..] {
        out.push(c);
    }
    out
}

/// Read every table source of `file`, each named by the table it belongs to ([`Sources::table_of`]).
/// A file that cannot be read at all yields one file-level diagnostic; cells that cannot be decoded yield cell
/// diagnostics and the table is still returned. A source claimed by two tables is a GT0002 error.
pub fn read_file(loaded: &Loaded, file: &SourceFile, diags: &mut Vec<Diagnostic>) -> Vec<RawTable> {
    read_file_with(loaded, file, None, diags)
}

/// [`read_file`] on the file's bytes when the caller has read them already (`None`: read from disk). The
/// result is the same as [`read_file`]'s for the same bytes (the pipeline hashes them for its cache).
pub fn read_file_with(
    loaded: &Loaded,
    file: &SourceFile,
    bytes: Option<&[u8]>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    let sources = match Sources::new(loaded) {
        Ok(s) => s,
        Err(d) => {
            diags.push(*d);
            return vec![];
        }
    };
    let table_of = |sheet: Option<&str>, default: &str, diags: &mut Vec<Diagnostic>| match sources
        .table_of(&file.rel_in_folder, sheet, default)
    {
        Ok(t) => t,
        Err(tables) => {
            let what = sheet
                .map(|s| format!("sheet {s:?}"))
                .unwrap_or_else(|| "the file".into());
            let mut d = Diagnostic::file_error(
                Code::ProjectLayout,
                &file.rel,
                format!(
                    "{what} is selected by the files/sheets of several tables: {}",
                    tables
                        .iter()
                        .map(|t| format!("[tables.{t}]"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .with_help(
                "narrow the files/sheets globs so that each file or sheet belongs to one table",
            );
            d.sheet = sheet.map(str::to_string);
            diags.push(d);
            None
        }
    };
    let ext = file
        .path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if WORKBOOK_EXT.contains(&ext.as_str()) {
        let mut out = read_workbook(file, bytes, diags);
        out.retain_mut(|t| match table_of(t.sheet.as_deref(), &t.name, diags) {
            Some(name) => {
                t.name = name;
                true
            }
            None => false,
        });
        out
    } else {
        let stem = file
            .path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        let Some(name) = table_of(None, &stem, diags) else {
            return vec![];
        };
        let ov = loaded.config.tables.get(&name);
        let enc = ov.and_then(|o| o.encoding.as_deref());
        let delim = ov
            .and_then(|o| o.delimiter.as_deref())
            .and_then(|d| d.bytes().next());
        let delim = delim.unwrap_or(if ext == "tsv" { b'\t' } else { b',' });
        let read = match bytes {
            Some(b) => Ok(std::borrow::Cow::Borrowed(b)),
            None => std::fs::read(&file.path).map(std::borrow::Cow::Owned),
        };
        match read {
            Ok(bytes) => vec![read_csv_bytes(&name, &file.rel, &bytes, enc, delim, diags)],
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
}

/// Parse CSV bytes into a raw table (see module docs for encodings). `encoding` is a WHATWG label.
pub fn read_csv_bytes(
    name: &str,
    rel: &str,
    bytes: &[u8],
    encoding: Option<&str>,
    delimiter: u8,
    diags: &mut Vec<Diagnostic>,
) -> RawTable {
    let mut table = RawTable {
        name: name.to_string(),
        file: rel.to_string(),
        sheet: None,
        rows: vec![],
        merges: vec![],
    };
    // UTF-16 (BOM or configured): decode the whole file first, then parse as UTF-8.
    let configured = encoding.and_then(|e| encoding_rs::Encoding::for_label(e.as_bytes()));
    let utf16 = match (bytes, configured) {
        ([0xFF, 0xFE, ..], _) => Some(encoding_rs::UTF_16LE),
        ([0xFE, 0xFF, ..], _) => Some(encoding_rs::UTF_16BE),
        (_, Some(e)) if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE => Some(e),
        _ => None,
    };
    let decoded_owned;
    let (data, enc): (&[u8], &'static encoding_rs::Encoding) = if let Some(e16) = utf16 {
        let body = if bytes.len() >= 2 && matches!(bytes[..2], [0xFF, 0xFE] | [0xFE, 0xFF]) {
            &bytes[2..]
        } else {
            bytes
        };
        match e16.decode_without_bom_handling_and_without_replacement(body) {
            Some(s) => {
                decoded_owned = s.into_owned().into_bytes();
                (&decoded_owned[..], encoding_rs::UTF_8)
            }
            None => {
                diags.push(Diagnostic::file_error(
                    Code::BadEncoding,
                    rel,
                    format!("the file is not valid {}: it has an unpaired surrogate or an odd byte count", e16.name()),
                ).with_help("re-export the sheet as \"Unicode Text\" or set [tables.<name>] encoding"));
                return table;
            }
        }
    } else {
        let body = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
        (body, configured.unwrap_or(encoding_rs::UTF_8))
    };
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(data);
    let mut rec = csv::ByteRecord::new();
    // Line numbers: 1 + newlines before the record's first byte (the csv crate's own line counter lags
    // behind on CRLF), counted incrementally.
    let (mut counted_to, mut newlines) = (0usize, 0usize);
    loop {
        match rdr.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {
                let mut start = rec
                    .position()
                    .map(|p| p.byte() as usize)
                    .unwrap_or(0)
                    .min(data.len());
                while start < data.len() && matches!(data[start], b'\r' | b'\n') {
                    start += 1;
                }
                if start >= counted_to {
                    newlines += data[counted_to..start]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count();
                    counted_to = start;
                }
                let line = newlines + 1;
                let mut cells = Vec::with_capacity(rec.len());
                for (col, field) in rec.iter().enumerate() {
                    let text = match enc.decode_without_bom_handling_and_without_replacement(field)
                    {
                        Some(s) => s.into_owned(),
                        None => {
                            let origin = RowOrigin {
                                file: rel.to_string(),
                                sheet: None,
                                row: line,
                            };
                            let shown = String::from_utf8_lossy(field).into_owned();
                            diags.push(
                                Diagnostic::cell_error(
                                    Code::BadEncoding,
                                    &origin,
                                    Some(col),
                                    None,
                                    Some(&shown),
                                    format!("the cell is not valid {} text", enc.name()),
                                )
                                .with_help("save the file as UTF-8, or set [tables.<name>] encoding in gentable.toml (e.g. \"gbk\")"),
                            );
                            cells.push(RawCell::Undecodable(shown));
                            continue;
                        }
                    };
                    cells.push(if text.is_empty() {
                        RawCell::Empty
                    } else {
                        RawCell::Text(text)
                    });
                }
                // An unterminated quote makes the csv parser read the rest of the file into one cell, which
                // would silently swallow every following row: a record that runs to the end of the file with
                // an odd number of quote characters is an error at the line where it starts.
                let end = rdr.position().byte() as usize;
                if end >= data.len()
                    && data[start.min(end)..end]
                        .iter()
                        .filter(|&&b| b == b'"')
                        .count()
                        % 2
                        == 1
                {
                    let origin = RowOrigin {
                        file: rel.to_string(),
                        sheet: None,
                        row: line,
                    };
                    diags.push(
                        Diagnostic::cell_error(
                            Code::MalformedCsv,
                            &origin,
                            None,
                            None,
                            None,
                            "malformed CSV: a quote (\") opened in this record is never closed, so every following line was read into one cell",
                        )
                        .with_help("close the quote; a literal quote inside a quoted cell is written twice (\"\")"),
                    );
                }
                table.rows.push(RawRow { row: line, cells });
            }
            Err(e) => {
                let line = e.position().map(|p| p.line() as usize).unwrap_or(0);
                let origin = RowOrigin {
                    file: rel.to_string(),
                    sheet: None,
                    row: line,
                };
                diags.push(Diagnostic::cell_error(
                    Code::MalformedCsv,
                    &origin,
                    None,
                    None,
                    None,
                    format!("malformed CSV: {e}"),
                ));
                break;
            }
        }
    }
    table
}

fn read_workbook(
    file: &SourceFile,
    bytes: Option<&[u8]>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    let opened = match bytes {
        None => calamine::open_workbook_auto(&file.path).map(|wb| read_sheets(file, wb, diags)),
        Some(b) => open_workbook_auto_bytes(&file.path, b).map(|wb| {
            let merges = !matches!(wb, calamine::Sheets::Xlsx(_)) || zip_mentions(b, b"mergeCell");
            read_sheets_with(file, wb, merges, diags)
        }),
    };
    match opened {
        Ok(tables) => tables,
        Err(e) => {
            diags.push(Diagnostic::file_error(
                Code::UnreadableFile,
                &file.rel,
                format!("cannot open workbook: {e}"),
            ));
            vec![]
        }
    }
}

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

/// True unless every part of the zip archive `bytes` is readable and none contains `needle` (an xlsx whose
/// parts never mention `mergeCell` has no merged regions, so they need not be parsed out of each sheet's XML,
/// which would read every sheet a second time).
fn zip_mentions(bytes: &[u8], needle: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut zip) = zip::ZipArchive::new(std::io::Cursor::new(bytes)) else {
        return true;
    };
    let finder = memchr::memmem::Finder::new(needle);
    let mut buf = vec![];
    for i in 0..zip.len() {
        let Ok(mut part) = zip.by_index(i) else {
            return true;
        };
        buf.clear();
        if part.read_to_end(&mut buf).is_err() || finder.find(&buf).is_some() {
            return true;
        }
    }
    false
}

fn read_sheets<RS: std::io::Read + std::io::Seek>(
    file: &SourceFile,
    wb: calamine::Sheets<RS>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    read_sheets_with(file, wb, true, diags)
}

/// [`read_sheets`]; `merges = false` when the workbook is known to have no merged regions.
fn read_sheets_with<RS: std::io::Read + std::io::Seek>(
    file: &SourceFile,
    mut wb: calamine::Sheets<RS>,
    merges: bool,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    use calamine::{Data, Reader};
    let names: Vec<String> = wb.sheet_names().to_vec();
    let mut out = Vec::new();
    for sheet in names {
        if sheet.starts_with('#') {
            continue;
        }
        let range = match wb.worksheet_range(&sheet) {
            Ok(r) => r,
            Err(e) => {
                let mut d = Diagnostic::file_error(
                    Code::UnreadableFile,
                    &file.rel,
                    format!("cannot read sheet: {e}"),
                );
                d.sheet = Some(sheet.clone());
                diags.push(d);
                continue;
            }
        };
        let merges = if merges {
            merged_regions(&mut wb, &sheet)
        } else {
            vec![]
        };
        let mut table = RawTable {
            name: sheet.clone(),
            file: file.rel.clone(),
            sheet: Some(sheet.clone()),
            rows: vec![],
            merges,
        };
        let (r0, c0) = range
            .start()
            .map(|(r, c)| (r as usize, c as usize))
            .unwrap_or((0, 0));
        for (i, row) in range.rows().enumerate() {
            let mut cells = vec![RawCell::Empty; c0];
            cells.extend(row.iter().map(|d| match d {
                Data::Empty => RawCell::Empty,
                Data::String(s) if s.is_empty() => RawCell::Empty,
                Data::String(s) => RawCell::Text(s.clone()),
                Data::Int(i) => RawCell::Int(*i),
                Data::Float(f) => RawCell::Float(*f),
                Data::Bool(b) => RawCell::Bool(*b),
                Data::Error(e) => RawCell::Error(e.to_string()),
                Data::DateTime(dt) => RawCell::DateTime(dt.as_f64().to_string()),
                Data::DateTimeIso(s) | Data::DurationIso(s) => RawCell::DateTime(s.clone()),
            }));
            table.rows.push(RawRow {
                row: r0 + i + 1,
                cells,
            });
        }
        // An empty sheet (workbooks often keep an unused Sheet2/Sheet3) is no table.
        if table
            .rows
            .iter()
            .all(|r| r.cells.iter().all(RawCell::is_blank))
        {
            continue;
        }
        out.push(table);
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(bytes: &[u8], enc: Option<&str>, delim: u8) -> (RawTable, Vec<Diagnostic>) {
        let mut d = vec![];
        let t = read_csv_bytes("T", "Table/T.csv", bytes, enc, delim, &mut d);
        (t, d)
    }
    fn texts(t: &RawTable) -> Vec<(usize, Vec<String>)> {
        t.rows
            .iter()
            .map(|r| (r.row, r.cells.iter().map(RawCell::text).collect()))
            .collect()
    }

    #[test]
    fn utf8_bom_crlf_and_quoted_newlines() {
        let (t, d) = csv(
            b"\xEF\xBB\xBFId,Name\r\n1,\"two\r\nlines\"\r\n2,\"say \"\"hi\"\"\"\r\n",
            None,
            b',',
        );
        assert!(d.is_empty());
        assert_eq!(
            texts(&t),
            vec![
                (1, vec!["Id".into(), "Name".into()]),
                (2, vec!["1".into(), "two\r\nlines".into()]),
                (4, vec!["2".into(), "say \"hi\"".into()]),
            ]
        );
    }

    #[test]
    fn unterminated_quote_is_an_error_at_its_record() {
        let (t, d) = csv(b"Id,Note\n1,\"hello\n2,fine\n3,ok\n", None, b',');
        assert_eq!(t.rows.len(), 2, "the rest of the file became one cell");
        let found: Vec<_> = d.iter().map(|d| (d.code, d.row)).collect();
        assert_eq!(found, vec![(Code::MalformedCsv, 2)]);
        // Balanced quotes, doubled quotes and quoted newlines are fine.
        let (_, d) = csv(b"Id,Note\n1,\"a \"\"b\"\"\nc\"\n2,x\n", None, b',');
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn utf16le_bom_tab_separated() {
        let text = "#\tId\tName\r\n\t1\t战机\r\n";
        let mut bytes = vec![0xFF, 0xFE];
        for u in text.encode_utf16() {
            bytes.extend(u.to_le_bytes());
        }
        let (t, d) = csv(&bytes, None, b'\t');
        assert!(d.is_empty());
        assert_eq!(
            texts(&t)[1],
            (2, vec!["".into(), "1".into(), "战机".into()])
        );
    }

    #[test]
    fn selections_claim_sources_and_restrict_their_table() {
        let toml = r#"
            [project]
            name = "P"
            [tables.AIConfig]
            sheets = ["AIConfig_*"]
            [tables.ExampleData]
            files = ["Data*.csv"]
            [tables.Both]
            files = ["Both.xlsx", "sub/*.csv"]
            sheets = ["Main"]
        "#;
        let config: crate::config::Config = toml::from_str(toml).unwrap();
        let loaded = Loaded {
            root: PathBuf::from("."),
            config,
        };
        let s = Sources::new(&loaded).unwrap();
        // sheets alone: any workbook; the sheet's own name is replaced.
        assert_eq!(
            s.table_of("x/AI.xlsx", Some("AIConfig_2"), "AIConfig_2"),
            Ok(Some("AIConfig".into()))
        );
        // files alone: every CSV matching; a CSV is never matched by `sheets`.
        assert_eq!(
            s.table_of("Data2.csv", None, "Data2"),
            Ok(Some("ExampleData".into()))
        );
        assert_eq!(
            s.table_of("AIConfig_1.csv", None, "AIConfig_1"),
            Ok(Some("AIConfig_1".into()))
        );
        // files + sheets: both must match for a sheet; CSV files only need `files`.
        assert_eq!(
            s.table_of("Both.xlsx", Some("Main"), "Main"),
            Ok(Some("Both".into()))
        );
        assert_eq!(
            s.table_of("Both.xlsx", Some("Other"), "Other"),
            Ok(Some("Other".into()))
        );
        assert_eq!(s.table_of("sub/b.csv", None, "b"), Ok(Some("Both".into())));
        // A source named like a selecting table but not selected is skipped.
        assert_eq!(
            s.table_of("old/ExampleData.csv", None, "ExampleData"),
            Ok(None)
        );
        assert_eq!(s.table_of("Other.xlsx", Some("Both"), "Both"), Ok(None));
        // Two claims.
        assert_eq!(
            s.table_of("Both.xlsx", Some("AIConfig_1"), "AIConfig_1"),
            Ok(Some("AIConfig".into()))
        );
        let toml2 = "[project]\nname = \"P\"\n[tables.A]\nsheets = [\"*\"]\n[tables.B]\nfiles = [\"b.xlsx\"]\n";
        let config: crate::config::Config = toml::from_str(toml2).unwrap();
        let s = Sources::new(&Loaded {
            root: PathBuf::from("."),
            config,
        })
        .unwrap();
        assert_eq!(
            s.table_of("b.xlsx", Some("S"), "S"),
            Err(vec!["A".to_string(), "B".to_string()])
        );
        assert!(s.selects_file("b.xlsx") && !s.selects_file("c.txt"));
    }

    #[test]
    fn gbk_override_and_invalid_utf8_cell() {
        let (gbk, _, _) = encoding_rs::GBK.encode("ID,名称\n1,扎克镇\n");
        let (t, d) = csv(&gbk, Some("gbk"), b',');
        assert!(d.is_empty());
        assert_eq!(texts(&t)[1].1, vec!["1".to_string(), "扎克镇".to_string()]);
        // The same bytes read as UTF-8: the error names the exact cells.
        let (_, d) = csv(&gbk, None, b',');
        let cells: Vec<_> = d
            .iter()
            .map(|d| (d.row, d.column.clone().unwrap(), d.code))
            .collect();
        assert_eq!(
            cells,
            vec![
                (1, "B".into(), Code::BadEncoding),
                (2, "B".into(), Code::BadEncoding)
            ]
        );
    }
}
