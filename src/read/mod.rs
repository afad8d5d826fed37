//! **read/** owns files → raw cells: discovery, table selection, CSV and workbook reading. It may import
//! the configuration, diagnostics and the IR's number formatting; never `schema/`, `typing/` or later stages.
//!
//! Reading: files under the table folders → [`RawTable`]s of raw cells.
//!
//! Conventions (docs/conventions.md §2): one source per CSV file (`.csv`, `.tsv`; `.txt` only when
//! `gentable.toml` has a `[tables.<stem>]` entry or a `files` glob selects it) and per worksheet of every
//! `.xlsx`/`.xlsm`/`.xls`/`.xlsb`/`.ods`; Excel lock files `~$*`, hidden files, sheets named `#…` and empty
//! sheets are skipped, as are files matching `[project] ignore` globs. A source belongs to the table named by
//! its file stem or sheet name, unless a `[tables.<Name>] files`/`sheets` selection claims it ([`Sources`]);
//! the pipeline concatenates the sources of one table.
//!
//! CSV text is UTF-8 (BOM optional) unless overridden; a byte-order mark always wins. CSV is parsed with the
//! `csv` crate (RFC 4180, quoted newlines) on raw bytes and each field is decoded on its own, so an invalid
//! byte is reported at its exact cell. Workbooks are read with `calamine`, plus what it does not pass on from
//! the xlsx parts ([`xlsx`]): formula cells give their stored result, numbers the value Excel shows, number
//! formats that change the text ([`numfmt`]); hidden sheets are skipped unless selected; merged regions and
//! hidden rows and columns are recorded for typing. All text is normalised once, here ([`raw::normalize_text`]:
//! `\n` line breaks, NFC), so every later stage compares keys, foreign keys and enum members as NFC.
//!
//! Nothing here interprets header or comment rows: that is [`crate::typing`]'s job.

pub mod csv;
pub mod discover;
pub mod guard;
pub mod numfmt;
pub mod raw;
pub mod workbook;
pub mod xlsx;

pub use discover::{discover, rel_path, SourceFile, Sources, WORKBOOK_EXT};
pub use raw::{Merge, RawCell, RawRow, RawTable};

use crate::config::Loaded;
use crate::diag::{Code, Diagnostic};

/// Read every table source of `file`, each named by the table it belongs to ([`Sources::table_of`]), from
/// `bytes` when the caller has read them already (the build hashes them for its cache), else from disk.
/// A file that cannot be read at all yields one file-level diagnostic; cells that cannot be decoded yield cell
/// diagnostics and the table is still returned. A source claimed by two tables is a GT0002 error.
pub fn read_file(
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
                    crate::diag::list::series(tables.iter().map(|t| format!("[tables.{t}]")))
                ),
            )
            .with_help(
                "narrow the files/sheets globs so that each file or sheet belongs to one table",
            );
            d.sheet = sheet.map(str::to_string);
            diags.push(d);
            vec![]
        }
    };
    let limits = &loaded.config.limits;
    let read;
    let bytes: &[u8] = match bytes {
        Some(b) => b,
        None => {
            if let Some(d) = too_large(loaded, file) {
                diags.push(d);
                return vec![];
            }
            read = match std::fs::read(&file.path) {
                Ok(b) => b,
                Err(e) => {
                    diags.push(Diagnostic::file_error(
                        Code::UnreadableFile,
                        &file.rel,
                        format!("cannot read file: {e}"),
                    ));
                    return vec![];
                }
            };
            &read
        }
    };
    if bytes.len() as u64 > limits.file_bytes {
        diags.push(file_too_large(&file.rel, bytes.len() as u64, limits));
        return vec![];
    }
    let ext = file
        .path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if WORKBOOK_EXT.contains(&ext.as_str()) {
        let mut out = vec![];
        let keep_hidden = |sheet: &str| sources.selects_sheet(&file.rel_in_folder, sheet);
        for t in workbook::read_workbook(file, bytes, limits, &keep_hidden, diags) {
            let names = table_of(t.sheet.as_deref(), &t.name, diags);
            // A shared source (`shared_sources`) is a source of each of its tables.
            if let Some((last, rest)) = names.split_last() {
                for name in rest {
                    out.push(RawTable {
                        name: name.clone(),
                        ..t.clone()
                    });
                }
                out.push(RawTable {
                    name: last.clone(),
                    ..t
                });
            }
        }
        out
    } else {
        // NFC: macOS file systems hand out file names in NFD.
        let stem =
            raw::normalize_text(file.path.file_stem().and_then(|s| s.to_str()).unwrap_or(""))
                .into_owned();
        let mut out = vec![];
        for name in table_of(None, &stem, diags) {
            out.extend(read_csv(loaded, file, &name, &ext, bytes, diags));
        }
        out
    }
}

/// One CSV file as a source of table `name` (its encoding and delimiter from `[tables.<name>]`).
fn read_csv(
    loaded: &Loaded,
    file: &SourceFile,
    name: &str,
    ext: &str,
    bytes: &[u8],
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    {
        let name = name.to_string();
        let limits = &loaded.config.limits;
        let ov = loaded.config.tables.get(&name);
        let enc = ov.and_then(|o| o.encoding.as_deref());
        let delim = ov
            .and_then(|o| o.delimiter.as_deref())
            .and_then(|d| d.bytes().next());
        let delim = delim.unwrap_or(if ext == "tsv" { b'\t' } else { b',' });
        csv::read_csv_bytes(&name, &file.rel, bytes, enc, delim, limits, diags)
            .into_iter()
            .collect()
    }
}

/// The GT0104 diagnostic of a table file larger than `[limits] file_bytes`, if `file` is (by its size on
/// disk, before reading it).
pub fn too_large(loaded: &Loaded, file: &SourceFile) -> Option<Diagnostic> {
    let len = std::fs::metadata(&file.path).ok()?.len();
    (len > loaded.config.limits.file_bytes)
        .then(|| file_too_large(&file.rel, len, &loaded.config.limits))
}

fn file_too_large(rel: &str, len: u64, limits: &crate::config::Limits) -> Diagnostic {
    Diagnostic::file_error(
        Code::LimitExceeded,
        rel,
        format!(
            "the file is {len} bytes, more than [limits] file_bytes ({})",
            guard::bytes_text(limits.file_bytes)
        ),
    )
    .with_help(
        "split the table into several files ([tables.<Name>] files), or raise [limits] file_bytes",
    )
}
