//! CSV sources: RFC 4180 (the `csv` crate, quoted newlines) on raw bytes, each field decoded on its own so an
//! invalid byte is reported at its exact cell. UTF-8 (BOM optional) unless the table's `encoding` says
//! otherwise; a byte-order mark always wins (UTF-8 or UTF-16: a file that says what it is, is that). Cell text
//! is normalised ([`RawCell::text_cell`]: `\r\n` in quoted fields becomes `\n`, NFC).
//!
//! A file of 8 MiB or more (after decoding UTF-16) is cut into parts of about 2 MiB at newlines outside
//! quoted cells and the parts are parsed on all cores (`Records::parallel`, issue 18); a part that turns out
//! not to end between two records (a quote in the middle of an unquoted field misleads the quote count), an
//! unclosed quote or too many cells sends the whole file to the one-parser reader again, which reports the
//! unclosed quote or the limit where it stops. With a one-thread pool the parts are not tried.

use super::raw::{RawCell, RawRow, RawTable};
use crate::config::Limits;
use crate::diag::{Code, Diagnostic, RowOrigin};

/// Parse CSV bytes into a raw table (see module docs for encodings). `encoding` is a WHATWG label.
/// `[limits]`: a field larger than `cell_bytes` is a GT0104 error at its cell (the csv parser holds one
/// record at a time); more cells than `sheet_cells` in all is a GT0104 error at that record and `None` (the
/// file is not read further).
pub fn read_csv_bytes(
    name: &str,
    rel: &str,
    bytes: &[u8],
    encoding: Option<&str>,
    delimiter: u8,
    limits: &Limits,
    diags: &mut Vec<Diagnostic>,
) -> Option<RawTable> {
    // One shared file name for the table and every row's origin.
    let file: std::sync::Arc<str> = rel.into();
    let mut table = RawTable {
        name: name.to_string(),
        file: file.clone(),
        ..Default::default()
    };
    // UTF-32 (its byte-order mark says so) is no encoding a CSV is read in; read as UTF-16 it would give a
    // NUL after every character.
    let utf32 = utf32(bytes).map(|(e, bom)| if bom {
        format!("the file is {e} text (its byte-order mark says so): CSV files are read as UTF-8, UTF-16 or a configured encoding")
    } else {
        format!("the file is {e} text without a byte-order mark: CSV files are read as UTF-8, UTF-16 or a configured encoding")
    });
    if let Some(m) = utf32 {
        diags.push(
            Diagnostic::file_error(Code::BadEncoding, rel, m)
                .with_help("save the file as \"CSV UTF-8\" (Excel: File > Save As > CSV UTF-8)"),
        );
        table.unread = true;
        return Some(table);
    }
    // UTF-16 (BOM or configured): decode the whole file first, then parse as UTF-8.
    let configured = encoding.and_then(|e| encoding_rs::Encoding::for_label(e.as_bytes()));
    let utf16 = match (bytes, configured) {
        ([0xFF, 0xFE, ..], _) => Some(encoding_rs::UTF_16LE),
        ([0xFE, 0xFF, ..], _) => Some(encoding_rs::UTF_16BE),
        (_, Some(e)) if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE => Some(e),
        _ => None,
    };
    // UTF-16 that lost its byte-order mark (Excel's "Unicode Text" re-saved by a tool that dropped it) read
    // as UTF-8 or GBK gives a NUL in every other character: say what the file is instead.
    if utf16.is_none() && !bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        if let Some(e16) = utf16_without_bom(bytes) {
            let read_as = configured.unwrap_or(encoding_rs::UTF_8).name();
            let label = if e16 == encoding_rs::UTF_16LE {
                "utf-16le"
            } else {
                "utf-16be"
            };
            // Excel's "Unicode Text" is tab-separated: say so when the first line has tabs.
            let tabs = delimiter != b'\t'
                && e16
                    .decode_without_bom_handling(&bytes[..bytes.len().min(4096) & !1])
                    .0
                    .lines()
                    .next()
                    .is_some_and(|l| l.contains('\t') && !l.contains(delimiter as char));
            let help = if tabs {
                format!("save the file as UTF-8, or set [tables.{name}] encoding = {label:?} and delimiter = \"\\t\" in gentable.toml (its columns are separated by tabs)")
            } else {
                format!("save the file as UTF-8, or set [tables.{name}] encoding = {label:?} in gentable.toml")
            };
            diags.push(
                Diagnostic::file_error(
                    Code::BadEncoding,
                    rel,
                    format!(
                        "the file is {} text without a byte-order mark (every other byte is 0), but it is read as {read_as}",
                        e16.name()
                    ),
                )
                .with_help(help),
            );
            table.unread = true;
            return Some(table);
        }
    }
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
                ).with_help(format!("re-export the sheet as \"Unicode Text\" or set [tables.{name}] encoding")));
                table.unread = true;
                return Some(table);
            }
        }
    } else if let Some(body) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        // A UTF-8 BOM wins over a configured encoding, as a UTF-16 one does: GBK text cannot start with it.
        (body, encoding_rs::UTF_8)
    } else {
        (bytes, configured.unwrap_or(encoding_rs::UTF_8))
    };
    let reader = Records {
        name,
        file: &file,
        enc,
        delimiter,
        limits,
    };
    if data.len() >= PARALLEL_BYTES && rayon::current_num_threads() > 1 {
        if let Some((rows, found)) = reader.parallel(data, PART_BYTES) {
            table.rows = rows;
            diags.extend(found);
            return Some(table);
        }
    }
    reader.sequential(data, &mut table, diags)?;
    Some(table)
}

/// Files at least this large are cut into parts parsed on all cores ([`Records::parallel`]) when the pool has
/// more than one thread; smaller ones, and those the parallel reader gives up on, are parsed on one thread
/// and decoded in parallel batches.
const PARALLEL_BYTES: usize = 8 << 20;

/// The size a big file's parts aim at: the file is split into `len / PART_BYTES` equal stretches, and each
/// part ends at the first newline after its stretch that an even number of quotes precedes (a record
/// boundary in RFC 4180 CSV, which the sentinel then proves).
const PART_BYTES: usize = 2 << 20;

/// How one CSV file's records become raw rows: its table's name, its shared file name, the encoding of its
/// fields, its delimiter and the `[limits]` of the build.
struct Records<'a> {
    name: &'a str,
    file: &'a std::sync::Arc<str>,
    enc: &'static encoding_rs::Encoding,
    delimiter: u8,
    limits: &'a Limits,
}

impl Records<'_> {
    fn reader<R: std::io::Read>(&self, input: R) -> csv::Reader<R> {
        csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(self.delimiter)
            .from_reader(input)
    }

    /// The rows of the whole file `data` (after its byte-order mark) on one parser; `None` when reading
    /// stopped at the `sheet_cells` limit (diagnosed).
    fn sequential(
        &self,
        data: &[u8],
        table: &mut RawTable,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<()> {
        let Records {
            name,
            file,
            enc,
            limits,
            ..
        } = *self;
        let mut rdr = self.reader(data);
        // Records are parsed in batches on this thread (record boundaries need the parser's state), and each
        // batch's fields are decoded, checked and normalised on all cores, in order, with at most one batch
        // of record copies held at a time. (Files under PARALLEL_BYTES, and those `parallel` gave up on.)
        let mut batch: Vec<(csv::ByteRecord, RowOrigin)> = Vec::with_capacity(BATCH_RECORDS);
        let mut spare: Vec<csv::ByteRecord> = vec![];
        let flush = |batch: &mut Vec<(csv::ByteRecord, RowOrigin)>,
                     spare: &mut Vec<csv::ByteRecord>,
                     table: &mut RawTable,
                     diags: &mut Vec<Diagnostic>| {
            use rayon::prelude::*;
            let rows: Vec<(RawRow, Vec<Diagnostic>)> = batch
                .par_iter()
                .with_min_len(256)
                .map(|(rec, origin)| record_row(rec, origin, name, enc, limits))
                .collect();
            for (row, d) in rows {
                table.rows.push(row);
                diags.extend(d);
            }
            spare.extend(batch.drain(..).map(|(rec, _)| rec));
        };
        // Line numbers: 1 + newlines before the record's first byte (the csv crate's own line counter lags
        // behind on CRLF), counted incrementally.
        let (mut counted_to, mut newlines) = (0usize, 0usize);
        let mut cell_count = 0u64;
        loop {
            let mut rec = spare.pop().unwrap_or_default();
            match rdr.read_byte_record(&mut rec) {
                Ok(false) => break,
                Ok(true) => {
                    let start = record_start(&rec, data);
                    if start >= counted_to {
                        newlines += memchr::memchr_iter(b'\n', &data[counted_to..start]).count();
                        counted_to = start;
                    }
                    let line = newlines + 1;
                    let origin = RowOrigin {
                        file: file.clone(),
                        sheet: None,
                        row: line,
                    };
                    cell_count += rec.len() as u64;
                    if cell_count > limits.sheet_cells {
                        flush(&mut batch, &mut spare, table, diags);
                        diags.push(
                        Diagnostic::cell_error(
                            Code::LimitExceeded,
                            &origin,
                            None,
                            None,
                            None,
                            format!(
                                "the file has more than {} cells ([limits] sheet_cells); reading stopped at this record",
                                limits.sheet_cells
                            ),
                        )
                        .with_help(format!("split the table into several files ([tables.{name}] files), or raise [limits] sheet_cells")),
                    );
                        return None;
                    }
                    // An unterminated quote makes the csv parser read the rest of the file into one cell, which
                    // would silently swallow every following row: a record that runs to the end of the file with
                    // an odd number of quote characters is an error at the line where it starts.
                    let end = rdr.position().byte() as usize;
                    let unclosed = end >= data.len()
                        && memchr::memchr_iter(b'"', &data[start.min(end)..end]).count() % 2 == 1;
                    batch.push((rec, origin.clone()));
                    if unclosed {
                        flush(&mut batch, &mut spare, table, diags);
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
                    if batch.len() >= BATCH_RECORDS {
                        flush(&mut batch, &mut spare, table, diags);
                    }
                }
                Err(e) => {
                    flush(&mut batch, &mut spare, table, diags);
                    let line = e.position().map(|p| p.line() as usize).unwrap_or(0);
                    let origin = RowOrigin {
                        file: file.clone(),
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
        flush(&mut batch, &mut spare, table, diags);
        Some(())
    }

    /// The rows and diagnostics of the whole file `data`, its parts ([`split`], about `part_bytes` each)
    /// parsed on all cores, each from its first record to its last, in file order: what [`Self::sequential`]
    /// gives. `None` when that cannot be shown, and the caller reads the whole file again on one parser: the
    /// file splits into fewer than two parts; a part does not end where a record ends (a quote in the middle
    /// of an unquoted field, `a"b`, makes the quote count lie about which newlines are inside quoted cells);
    /// the last record has an unclosed quote; the csv parser reports an error; or the file has more cells
    /// than `[limits] sheet_cells`. The one-parser reader reports the last three where it stops. A big file
    /// with stray quotes in unquoted fields so pays for both reads.
    fn parallel(&self, data: &[u8], part_bytes: usize) -> Option<(Vec<RawRow>, Vec<Diagnostic>)> {
        use rayon::prelude::*;
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        let bounds = split(data, part_bytes);
        if bounds.len() < 3 {
            return None;
        }
        let parts: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
        // Line of each part's first byte: 1 + the newlines before it.
        let newlines: Vec<usize> = parts
            .par_iter()
            .map(|&(a, b)| memchr::memchr_iter(b'\n', &data[a..b]).count())
            .collect();
        let mut first_lines = Vec::with_capacity(parts.len());
        let mut line = 1;
        for n in &newlines {
            first_lines.push(line);
            line += n;
        }
        let cells = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let last = parts.len() - 1;
        let read: Option<Vec<(Vec<RawRow>, Vec<Diagnostic>)>> = parts
            .par_iter()
            .enumerate()
            .with_max_len(1)
            .map(|(i, &(a, b))| {
                let part = &data[a..b];
                // Every part but the last is followed by one more byte: a record starts right after the
                // part exactly when the parser is between records there, whatever it was doing before.
                let sentinel: &[u8] = if i == last { b"" } else { b"x" };
                let mut rdr = self.reader(std::io::Read::chain(part, sentinel));
                let mut rec = csv::ByteRecord::new();
                let (mut rows, mut found) = (vec![], vec![]);
                let (mut counted_to, mut line) = (0usize, first_lines[i]);
                let mut ended = i == last;
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return None;
                    }
                    match rdr.read_byte_record(&mut rec) {
                        Ok(false) => break,
                        Ok(true) => {}
                        Err(_) => {
                            stop.store(true, Ordering::Relaxed);
                            return None;
                        }
                    }
                    let start = record_start(&rec, part);
                    if start >= part.len() && i != last {
                        // The sentinel's record: the part ended between records.
                        ended = start == part.len() && rec.as_slice() == b"x" && rec.len() == 1;
                        break;
                    }
                    line += memchr::memchr_iter(b'\n', &part[counted_to..start]).count();
                    counted_to = start;
                    let total =
                        cells.fetch_add(rec.len() as u64, Ordering::Relaxed) + rec.len() as u64;
                    if total > self.limits.sheet_cells {
                        stop.store(true, Ordering::Relaxed);
                        return None;
                    }
                    let origin = RowOrigin {
                        file: self.file.clone(),
                        sheet: None,
                        row: line,
                    };
                    let end = rdr.position().byte() as usize;
                    let unclosed = i == last
                        && end >= part.len()
                        && memchr::memchr_iter(b'"', &part[start.min(end)..end]).count() % 2 == 1;
                    if unclosed {
                        // Told by the sequential reader, which stops there.
                        stop.store(true, Ordering::Relaxed);
                        return None;
                    }
                    let (row, d) = record_row(&rec, &origin, self.name, self.enc, self.limits);
                    rows.push(row);
                    found.extend(d);
                }
                if !ended {
                    stop.store(true, Ordering::Relaxed);
                    return None;
                }
                Some((rows, found))
            })
            .collect();
        let read = read?;
        let mut rows = Vec::with_capacity(read.iter().map(|(r, _)| r.len()).sum());
        let mut diags = vec![];
        for (r, d) in read {
            rows.extend(r);
            diags.extend(d);
        }
        Some((rows, diags))
    }
}

/// The offset in `data` of the first byte of `rec`, a record parsed from `data` (at most `data.len()`): the
/// csv crate's record position, after the line ends it may still count as the record's (on CRLF).
fn record_start(rec: &csv::ByteRecord, data: &[u8]) -> usize {
    let mut start = rec
        .position()
        .map(|p| p.byte() as usize)
        .unwrap_or(0)
        .min(data.len());
    while start < data.len() && matches!(data[start], b'\r' | b'\n') {
        start += 1;
    }
    start
}

/// Where to cut CSV `data` into parts of about `part_bytes` for [`Records::parallel`]: offsets from 0 to
/// `data.len()`, each inner one just after a newline that an even number of quote characters precedes (in
/// RFC 4180 CSV, a newline outside every quoted cell). The quotes before each aimed-at offset are counted on
/// all cores; a part that finds no such newline before the next aimed-at offset joins the next part.
fn split(data: &[u8], part_bytes: usize) -> Vec<usize> {
    use rayon::prelude::*;
    let n = (data.len() / part_bytes.max(1)).max(1);
    let aims: Vec<usize> = (0..=n).map(|i| i * data.len() / n).collect();
    let quotes: Vec<usize> = aims
        .par_windows(2)
        .map(|w| memchr::memchr_iter(b'"', &data[w[0]..w[1]]).count())
        .collect();
    let mut bounds = vec![0];
    let mut before = 0usize;
    for i in 1..n {
        before += quotes[i - 1];
        let (aim, next) = (aims[i], aims[i + 1]);
        let mut odd = before % 2 == 1;
        let mut at = aim.max(*bounds.last().unwrap_or(&0));
        while let Some(j) = memchr::memchr2(b'"', b'\n', &data[at..next]) {
            let k = at + j;
            if data[k] == b'"' {
                odd = !odd;
            } else if !odd {
                bounds.push(k + 1);
                break;
            }
            at = k + 1;
        }
    }
    if *bounds.last().unwrap_or(&0) < data.len() {
        bounds.push(data.len());
    }
    bounds.dedup();
    bounds
}

/// The UTF-32 form `bytes` are in, with or without its byte-order mark ([`utf32_bom`],
/// [`utf32_without_bom`]), and whether they have the mark.
pub fn utf32(bytes: &[u8]) -> Option<(&'static str, bool)> {
    utf32_bom(bytes)
        .map(|e| (e, true))
        .or_else(|| utf32_without_bom(bytes).map(|e| (e, false)))
}

/// `"UTF-32LE"` or `"UTF-32BE"` when `bytes` start with that encoding's byte-order mark (`FF FE 00 00`,
/// `00 00 FE FF`; the first also starts a UTF-16LE file whose first character is U+0000, which no CSV file
/// has).
pub fn utf32_bom(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xFE, 0, 0, ..] => Some("UTF-32LE"),
        [0, 0, 0xFE, 0xFF, ..] => Some("UTF-32BE"),
        _ => None,
    }
}

/// `"UTF-32LE"` or `"UTF-32BE"` when `bytes` are UTF-32 text without a byte-order mark: a whole number of
/// 4-byte units (judged on the first 8 KiB), each a character other than U+0000 in that byte order. UTF-8,
/// GBK and UTF-16 text never are (their units read as UTF-32 are beyond U+10FFFF or hold a 0).
pub fn utf32_without_bom(bytes: &[u8]) -> Option<&'static str> {
    if bytes.len() < 8 || !bytes.len().is_multiple_of(4) {
        return None;
    }
    let sample = &bytes[..bytes.len().min(8192)];
    let text = |unit: fn([u8; 4]) -> u32| {
        sample.chunks_exact(4).all(|c| {
            let u = unit([c[0], c[1], c[2], c[3]]);
            u != 0 && char::from_u32(u).is_some()
        })
    };
    if text(u32::from_le_bytes) {
        Some("UTF-32LE")
    } else if text(u32::from_be_bytes) {
        Some("UTF-32BE")
    } else {
        None
    }
}

/// The UTF-16 form `bytes` are in when they look like UTF-16 text without a byte-order mark: ASCII-heavy
/// text (CSV's delimiters, digits, line breaks, Latin names) whose every other byte is 0 — the high byte of
/// each code unit, second in UTF-16LE, first in UTF-16BE — while the other byte of a unit is almost never 0,
/// and the whole decodes as that UTF-16. UTF-8 and GBK text never hold a 0 byte, so a real CSV file of either
/// is never taken for UTF-16. Judged on the first 8 KiB.
pub fn utf16_without_bom(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    if bytes.len() < 4 || bytes.len() % 2 == 1 {
        return None;
    }
    let sample = &bytes[..bytes.len().min(8192)];
    let units = sample.len() / 2;
    let (mut first, mut second) = (0usize, 0usize);
    for u in sample.chunks_exact(2) {
        first += usize::from(u[0] == 0);
        second += usize::from(u[1] == 0);
    }
    // At least a quarter of the units are ASCII (or Latin-1) characters, and the other byte is 0 in at most
    // one unit of 20 of those (U+0100, U+0200, … have a zero low byte; they are rare).
    let e = if second * 4 >= units && first * 20 <= second {
        encoding_rs::UTF_16LE
    } else if first * 4 >= units && second * 20 <= first {
        encoding_rs::UTF_16BE
    } else {
        return None;
    };
    e.decode_without_bom_handling_and_without_replacement(bytes)
        .is_some()
        .then_some(e)
}

/// Records per batch of [`read_csv_bytes`]: large enough that handing a batch to the cores costs nothing
/// next to decoding it, small enough that its record copies stay a few MB.
const BATCH_RECORDS: usize = 8192;

/// One record's raw row and the diagnostics of its cells: a field larger than `[limits] cell_bytes` (GT0104)
/// or not valid `enc` text (GT0102) becomes [`RawCell::Undecodable`] with its diagnostic; every other field
/// becomes a text cell ([`RawCell::text_cell`]: normalised).
fn record_row(
    rec: &csv::ByteRecord,
    origin: &RowOrigin,
    name: &str,
    enc: &'static encoding_rs::Encoding,
    limits: &Limits,
) -> (RawRow, Vec<Diagnostic>) {
    let mut diags = vec![];
    let mut cells = Vec::with_capacity(rec.len());
    for (col, field) in rec.iter().enumerate() {
        if field.len() as u64 > limits.cell_bytes {
            let shown = super::raw::preview(&String::from_utf8_lossy(field));
            diags.push(
                Diagnostic::cell_error(
                    Code::LimitExceeded,
                    origin,
                    Some(col),
                    None,
                    Some(&shown),
                    format!(
                        "the cell holds {} bytes, more than [limits] cell_bytes ({})",
                        field.len(),
                        limits.cell_bytes
                    ),
                )
                .with_help("shorten the cell (an unclosed quote can swallow the rest of the file), or raise [limits] cell_bytes"),
            );
            cells.push(RawCell::Undecodable(shown));
            continue;
        }
        let text = match enc.decode_without_bom_handling_and_without_replacement(field) {
            Some(s) => s,
            None => {
                let shown = escape_invalid(field, enc);
                diags.push(
                    Diagnostic::cell_error(
                        Code::BadEncoding,
                        origin,
                        Some(col),
                        None,
                        Some(&shown),
                        format!("the cell is not valid {} text", enc.name()),
                    )
                    .with_help(encoding_help(field, name, enc)),
                );
                cells.push(RawCell::Undecodable(shown));
                continue;
            }
        };
        cells.push(RawCell::text_cell(text));
    }
    (
        RawRow {
            row: origin.row,
            cells,
        },
        diags,
    )
}

/// The bytes of a cell that is not valid `enc` text, for messages and the report's source line: what decodes
/// is shown as text, every invalid byte as `\xD5` (never U+FFFD, which would hide which bytes they are).
fn escape_invalid(field: &[u8], enc: &'static encoding_rs::Encoding) -> String {
    let mut out = String::new();
    let mut rest = field;
    if enc != encoding_rs::UTF_8 {
        // Other encodings: which bytes are invalid depends on their neighbours; show every non-ASCII byte.
        for &b in field {
            if b.is_ascii() && !b.is_ascii_control() {
                out.push(b as char);
            } else {
                out.push_str(&format!("\\x{b:02X}"));
            }
        }
        return out;
    }
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let (ok, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(ok).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len()).max(1);
                for b in &bad[..n] {
                    out.push_str(&format!("\\x{b:02X}"));
                }
                rest = &bad[n..];
            }
        }
    }
    out
}

/// The fix for an undecodable cell of table `name`: when its bytes are valid GBK (the usual encoding of
/// Chinese CSV exports) the help says what they read as.
fn encoding_help(field: &[u8], name: &str, enc: &'static encoding_rs::Encoding) -> String {
    if enc == encoding_rs::UTF_8 {
        if let Some(t) = encoding_rs::GBK.decode_without_bom_handling_and_without_replacement(field)
        {
            return format!(
                "read as GBK these bytes say {t:?}: set [tables.{name}] encoding = \"gbk\" in gentable.toml, or save the file as UTF-8"
            );
        }
    }
    format!(
        "save the file as UTF-8, or set [tables.{name}] encoding in gentable.toml (e.g. \"gbk\")"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(bytes: &[u8], enc: Option<&str>, delim: u8) -> (RawTable, Vec<Diagnostic>) {
        let mut d = vec![];
        let t = read_csv_bytes(
            "T",
            "Table/T.csv",
            bytes,
            enc,
            delim,
            &Limits::default(),
            &mut d,
        )
        .unwrap();
        (t, d)
    }
    fn texts(t: &RawTable) -> Vec<(usize, Vec<String>)> {
        t.rows
            .iter()
            .map(|r| (r.row, r.cells.iter().map(RawCell::text).collect()))
            .collect()
    }

    /// Rows (line, cells) and diagnostics of `data` read by [`Records::sequential`] and by
    /// [`Records::parallel`] with parts of about `part_bytes` (`None` when the parallel reader declines).
    #[allow(clippy::type_complexity)]
    fn both_ways(
        data: &[u8],
        part_bytes: usize,
        limits: &Limits,
    ) -> (
        (Option<Vec<(usize, Vec<RawCell>)>>, Vec<Diagnostic>),
        Option<(Vec<(usize, Vec<RawCell>)>, Vec<Diagnostic>)>,
    ) {
        let file: std::sync::Arc<str> = "Table/T.csv".into();
        let r = Records {
            name: "T",
            file: &file,
            enc: encoding_rs::UTF_8,
            delimiter: b',',
            limits,
        };
        let cells = |rows: Vec<RawRow>| rows.into_iter().map(|r| (r.row, r.cells)).collect();
        let mut t = RawTable::default();
        let mut d = vec![];
        let done = r.sequential(data, &mut t, &mut d);
        let sequential = (done.map(|()| cells(t.rows)), d);
        let parallel = r
            .parallel(data, part_bytes)
            .map(|(rows, d)| (cells(rows), d));
        (sequential, parallel)
    }

    /// A big file's parts, parsed on all cores, give the rows, lines and diagnostics the one-thread reader
    /// gives: random CSV made of quotes, delimiters, CR, LF, CRLF, multi-line quoted cells, invalid UTF-8,
    /// Chinese text and blank lines, cut into parts of 1 to 97 bytes. Where a quote in an unquoted field
    /// (`a"b`) misleads the quote count, the parallel reader must decline rather than differ.
    #[test]
    fn parts_read_on_all_cores_give_what_one_parser_gives() {
        let limits = Limits::default();
        let pieces: [&[u8]; 12] = [
            b"a",
            b"12",
            b",",
            b",",
            b"\n",
            b"\r\n",
            b"\"x,\ny\"",
            b"\"say \"\"hi\"\"\"",
            "中文，「引号」".as_bytes(),
            b"\xff",
            b"\r",
            b"\"",
        ];
        let mut x: u64 = 0x2545F4914F6CDD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut agreed, mut declined) = (0, 0);
        for case in 0..3000 {
            let len = 1 + next() % 120;
            let mut data = vec![];
            for _ in 0..len {
                // The last two pieces (a lone CR, a lone quote) make malformed files: rarer.
                let k = next() as usize % if case % 4 == 0 { 12 } else { 10 };
                data.extend_from_slice(pieces[k]);
            }
            let part = 1 + next() as usize % 97;
            let (sequential, parallel) = both_ways(&data, part, &limits);
            match parallel {
                Some((rows, d)) => {
                    agreed += 1;
                    assert_eq!(
                        (Some(rows), d),
                        sequential,
                        "{:?} in parts of {part}",
                        String::from_utf8_lossy(&data)
                    );
                }
                None => declined += 1,
            }
        }
        // Well-formed files (three cases in four) are read in parts.
        assert!(
            agreed > 1500,
            "only {agreed} of 3000 read in parts ({declined} declined)"
        );

        // Line numbers after multi-line cells and CRLF, across parts.
        let data = "Id,Text\r\n1,\"a\r\nb\"\r\n2,c\r\n\r\n3,\"d\n\ne\"\n4,f\n".repeat(50);
        let (sequential, parallel) = both_ways(data.as_bytes(), 40, &limits);
        let (rows, d) = parallel.expect("a well-formed file is read in parts");
        assert_eq!(rows[1].0, 2);
        assert_eq!(rows[5].0, 10);
        assert_eq!(rows[6].0, 11);
        assert_eq!((Some(rows), d), sequential);

        // A quote inside an unquoted field, then a quoted newline: the quote count says the newline after
        // `x"y` is inside a quoted cell (it is not) and the one inside `"p\nq"` is not (it is). Declined.
        let data = b"1,x\"y\n2,\"p\nq\"\n3,z\n".repeat(20);
        let (sequential, parallel) = both_ways(&data, 9, &limits);
        assert!(parallel.is_none());
        assert_eq!(sequential.0.unwrap().len(), 60);

        // More cells than `sheet_cells`: declined, the sequential reader says where it stopped.
        let small = Limits {
            sheet_cells: 50,
            ..Limits::default()
        };
        let data = b"1,2,3\n".repeat(40);
        let (sequential, parallel) = both_ways(&data, 16, &small);
        assert!(parallel.is_none());
        assert!(sequential.0.is_none());
        assert_eq!(sequential.1.len(), 1);
        assert_eq!(sequential.1[0].code, Code::LimitExceeded);
    }

    /// A file past [`PARALLEL_BYTES`] goes through the parallel reader and reads as the one parser reads it;
    /// with an unclosed quote in its last record it is still reported at that record's line.
    #[test]
    fn a_big_file_reads_as_one_parser_reads_it() {
        let mut data = String::from("Id,Name,Text\n");
        let mut n = 0;
        while data.len() < PARALLEL_BYTES + (1 << 20) {
            n += 1;
            data.push_str(&format!(
                "{n},名字{n},\"他说：「好，\"\"走\"\"。」\r\n第二行\"\r\n"
            ));
        }
        let (table, d) = csv(data.as_bytes(), None, b',');
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(table.rows.len(), n + 1);
        let last = &table.rows[n];
        assert_eq!(last.row, 2 * n);
        assert_eq!(last.cells[2].text(), "他说：「好，\"走\"。」\n第二行");
        let (sequential, parallel) = both_ways(data.as_bytes(), PART_BYTES, &Limits::default());
        let (rows, d) = parallel.expect("read in parts");
        assert_eq!((Some(rows), d), sequential);

        data.push_str("99999999,x,\"never closed\n1,2,3\n");
        let (table, d) = csv(data.as_bytes(), None, b',');
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code, Code::MalformedCsv);
        assert_eq!(d[0].row, 2 * n + 2);
        assert_eq!(table.rows.len(), n + 2);
    }

    #[test]
    fn batches_keep_rows_lines_and_diagnostics_in_file_order() {
        // Three batches' worth of records: every 7th has a quoted line break (CRLF inside the quotes, so
        // lines and records differ), every 1000th an invalid UTF-8 byte; the last one opens a quote it
        // never closes.
        let n = 2 * BATCH_RECORDS + 123;
        let mut bytes: Vec<u8> = b"id,text\r\n".to_vec();
        let mut want_lines = vec![1];
        let mut want_bad = vec![];
        let mut line = 2;
        for i in 0..n {
            want_lines.push(line);
            if i % 1000 == 999 {
                bytes.extend_from_slice(format!("{i},").as_bytes());
                bytes.push(0xD5);
                bytes.extend_from_slice(format!("坏{i}\r\n").as_bytes());
                want_bad.push(line);
                line += 1;
            } else if i % 7 == 3 {
                bytes.extend_from_slice(format!("{i},\"第一行，{i}\r\n第二行\"\r\n").as_bytes());
                line += 2;
            } else {
                bytes.extend_from_slice(format!("{i},「文本」{i}\r\n").as_bytes());
                line += 1;
            }
        }
        want_lines.push(line);
        bytes.extend_from_slice(b"last,\"open\r\nrest");
        let (t, d) = csv(&bytes, None, b',');
        let lines: Vec<usize> = t.rows.iter().map(|r| r.row).collect();
        assert_eq!(lines, want_lines);
        assert_eq!(
            t.rows[4].cells[1],
            RawCell::Text("第一行，3\n第二行".into())
        );
        assert_eq!(
            t.rows[n].cells[1],
            RawCell::Text(format!("「文本」{}", n - 1).into())
        );
        let bad: Vec<usize> = d
            .iter()
            .filter(|x| x.code == Code::BadEncoding)
            .map(|x| x.row)
            .collect();
        assert_eq!(bad, want_bad);
        let last = d.last().unwrap();
        assert_eq!((last.code, last.row), (Code::MalformedCsv, line));
        assert_eq!(d.len(), want_bad.len() + 1);
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
                (2, vec!["1".into(), "two\nlines".into()]),
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

    fn utf16(text: &str, be: bool) -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
            .collect()
    }

    /// Excel's "Unicode Text" re-saved without its byte-order mark: one GT0102 at the file that names the
    /// encoding and the table's own `[tables.T]` section (never `<name>`), no rows, no cell errors — and the
    /// encoding it advises reads the file.
    #[test]
    fn utf16_without_a_bom_is_named_at_the_file() {
        let text = "Id\tName\r\n1\t弓箭手\r\n2\tKnight\r\n";
        for (be, label) in [(false, "utf-16le"), (true, "utf-16be")] {
            let bytes = utf16(text, be);
            for (configured, read_as) in [(None, "UTF-8"), (Some("gbk"), "GBK")] {
                let (t, d) = csv(&bytes, configured, b',');
                assert!(t.unread && t.rows.is_empty(), "{label}: {:?}", texts(&t));
                assert_eq!(d.len(), 1, "{d:?}");
                assert_eq!(
                    (d[0].code, d[0].row, d[0].column.as_deref()),
                    (Code::BadEncoding, 0, None)
                );
                assert_eq!(
                    d[0].message,
                    format!(
                        "the file is {} text without a byte-order mark (every other byte is 0), but it is read as {read_as}",
                        label.to_uppercase()
                    )
                );
                assert_eq!(
                    d[0].help.as_deref(),
                    Some(format!("save the file as UTF-8, or set [tables.T] encoding = \"{label}\" and delimiter = \"\\t\" in gentable.toml (its columns are separated by tabs)").as_str())
                );
            }
            // Tab-delimited already: only the encoding is missing.
            let (_, d) = csv(&bytes, None, b'\t');
            assert_eq!(
                d[0].help.as_deref(),
                Some(format!("save the file as UTF-8, or set [tables.T] encoding = \"{label}\" in gentable.toml").as_str())
            );
            // Following the advice reads the file.
            let (t, d) = csv(&bytes, Some(label), b'\t');
            assert!(d.is_empty() && !t.unread, "{d:?}");
            assert_eq!(texts(&t)[1].1, vec!["1".to_string(), "弓箭手".to_string()]);
        }
        // Comma-separated UTF-16LE: no word about tabs.
        let (_, d) = csv(&utf16("Id,Name\n1,Archer\n", false), None, b',');
        assert_eq!(
            d[0].help.as_deref(),
            Some("save the file as UTF-8, or set [tables.T] encoding = \"utf-16le\" in gentable.toml")
        );
    }

    /// What is not UTF-16 without a BOM is never taken for it: UTF-8 and GBK text (no 0 byte), text of CJK
    /// characters only (no 0 byte either), an odd length, a few stray NULs, binary data.
    #[test]
    fn utf16_detection_needs_the_pattern() {
        assert_eq!(utf16_without_bom("Id,Name\n1,弓箭手\n".as_bytes()), None);
        let (gbk, _, _) = encoding_rs::GBK.encode("ID,名称\n1,扎克镇\n");
        assert_eq!(utf16_without_bom(&gbk), None);
        assert_eq!(utf16_without_bom(&utf16("弓箭手战机", false)), None);
        assert_eq!(
            utf16_without_bom(&utf16("Id,Name\n1,x\n", false)),
            Some(encoding_rs::UTF_16LE)
        );
        assert_eq!(
            utf16_without_bom(&utf16("Id,Name\n1,x\n", true)),
            Some(encoding_rs::UTF_16BE)
        );
        let mut odd = utf16("Id,Name\n", false);
        odd.push(b'x');
        assert_eq!(utf16_without_bom(&odd), None);
        assert_eq!(utf16_without_bom(b"Id,Name\n1,a\x00b\n2,c\n"), None);
        assert_eq!(utf16_without_bom(&[0u8; 64]), None);
        // An unpaired surrogate: not UTF-16 after all.
        let mut bad = utf16("Id,Name\n1,x\n", false);
        bad.extend([0x00, 0xD8, b'a', 0x00]);
        assert_eq!(utf16_without_bom(&bad), None);
        // Configured UTF-16 and a BOM are read as before.
        let (t, d) = csv(&utf16("\u{feff}Id,Name\n1,x\n", false), None, b',');
        assert!(d.is_empty() && !t.unread);
        assert_eq!(texts(&t)[1].1, vec!["1".to_string(), "x".to_string()]);
    }

    /// A UTF-32 file (with its byte-order mark) is one encoding error at the file, never read as UTF-16 (a NUL
    /// after every character) in either byte order.
    #[test]
    fn utf32_is_named_at_the_file() {
        let text = "Id,Name\n1,弓箭手\n";
        for (be, name) in [(false, "UTF-32LE"), (true, "UTF-32BE")] {
            let mut bytes = vec![];
            for c in std::iter::once('\u{feff}').chain(text.chars()) {
                let u = c as u32;
                bytes.extend(if be { u.to_be_bytes() } else { u.to_le_bytes() });
            }
            let (t, d) = csv(&bytes, None, b',');
            assert!(t.unread && t.rows.is_empty());
            assert_eq!(d.len(), 1, "{d:?}");
            assert_eq!(d[0].code, Code::BadEncoding);
            assert_eq!(
                d[0].message,
                format!("the file is {name} text (its byte-order mark says so): CSV files are read as UTF-8, UTF-16 or a configured encoding")
            );
            assert_eq!(utf32_bom(&bytes), Some(name));
        }
        assert_eq!(utf32_bom(&utf16("\u{feff}Id\n", false)), None);
        // Without the mark, in either byte order: named too; UTF-8, GBK and UTF-16 text never are.
        for (be, name) in [(false, "UTF-32LE"), (true, "UTF-32BE")] {
            let bytes: Vec<u8> = text
                .chars()
                .flat_map(|c| {
                    if be {
                        (c as u32).to_be_bytes()
                    } else {
                        (c as u32).to_le_bytes()
                    }
                })
                .collect();
            let (t, d) = csv(&bytes, None, b',');
            assert!(t.unread && d.len() == 1, "{d:?}");
            assert_eq!(
                d[0].message,
                format!("the file is {name} text without a byte-order mark: CSV files are read as UTF-8, UTF-16 or a configured encoding")
            );
        }
        assert_eq!(utf32_without_bom(text.as_bytes()), None);
        assert_eq!(utf32_without_bom(&utf16(text, false)), None);
        assert_eq!(utf32_without_bom(&utf16(text, true)), None);
        let (gbk, _, _) = encoding_rs::GBK.encode("ID,名称\n1,扎克镇\n");
        assert_eq!(utf32_without_bom(&gbk), None);
    }

    /// The help of a cell that is not UTF-8 names the table's own section.
    #[test]
    fn encoding_help_names_the_table() {
        let (_, d) = csv(b"Id,Name\n1,Ma\xffge\n", None, b',');
        assert_eq!(
            d[0].help.as_deref(),
            Some("save the file as UTF-8, or set [tables.T] encoding in gentable.toml (e.g. \"gbk\")")
        );
        let (gbk, _, _) = encoding_rs::GBK.encode("Id,名称\n");
        let (_, d) = csv(&gbk, None, b',');
        assert_eq!(
            d[0].help.as_deref(),
            Some("read as GBK these bytes say \"名称\": set [tables.T] encoding = \"gbk\" in gentable.toml, or save the file as UTF-8")
        );
    }

    #[test]
    fn lf_and_crlf_files_read_the_same() {
        let lf = csv(b"id,line\n1,\"a\nb\"\n2,\"c\rd\"\n", None, b',').0;
        let crlf = csv(b"id,line\r\n1,\"a\r\nb\"\r\n2,\"c\rd\"\r\n", None, b',').0;
        assert_eq!(texts(&lf), texts(&crlf));
        assert_eq!(texts(&lf)[1].1[1], "a\nb");
        assert_eq!(texts(&lf)[2].1[1], "c\nd");
    }

    #[test]
    fn utf8_bom_wins_over_a_configured_encoding() {
        let (t, d) = csv("\u{feff}ID,名称\n1,扎克镇\n".as_bytes(), Some("gbk"), b',');
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(texts(&t)[1].1, vec!["1".to_string(), "扎克镇".to_string()]);
    }

    #[test]
    fn nfd_text_is_read_as_nfc() {
        let (t, _) = csv("id\nAme\u{301}lie\n".as_bytes(), None, b',');
        assert_eq!(t.rows[1].cells[0], RawCell::Text("Am\u{e9}lie".into()));
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
        // The cell and the row around it show the bytes, never U+FFFD; the help reads them as GBK.
        assert_eq!(
            d[1].cell_text.as_deref(),
            Some("\\xD4\\xFA\\xBF\\xCB\\xD5\\xF2")
        );
        assert!(
            d[1].help.as_deref().unwrap().contains("\"扎克镇\""),
            "{:?}",
            d[1].help
        );
        let (t, _) = csv(&gbk, None, b',');
        assert_eq!(t.rows[1].cells[1].text(), "\\xD4\\xFA\\xBF\\xCB\\xD5\\xF2");
    }
}
