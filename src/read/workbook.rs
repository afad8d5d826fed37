//! Workbook sources (`.xlsx`, `.xlsm`, `.xls`, `.xlsb`, `.ods`) through `calamine`: one raw table per
//! worksheet; formula cells give their cached value; merged regions are recorded for the header conventions.

use super::discover::SourceFile;
use super::raw::{Merge, RawCell, RawRow, RawTable};
use crate::diag::{Code, Diagnostic};
use std::path::Path;

/// Every worksheet of `file` that is a table source (not `#…` sheets, not empty ones), from `bytes` when given.
pub fn read_workbook(
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
