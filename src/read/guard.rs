//! Bounds checked on a workbook's container before `calamine` parses it (docs/conventions.md §1 "Limits").
//!
//! calamine inflates zip parts, keeps every shared string, reserves memory from counts and dimensions the
//! file *declares*, and reads whole `.xls` and `.ods` sheets into dense ranges when the workbook is opened.
//! A 1.5 KB file can declare a range of 549 GB, a 410 KB file can inflate to a 400 MiB string. [`check`]
//! streams the container once, with a fixed 64 KiB buffer, and refuses it with a message (the caller makes it
//! a GT0104 diagnostic at the file) when what calamine would allocate exceeds `[limits]`:
//!
//! * zip formats (xlsx, xlsm, xlsb, ods): the parts inflate to more than `workbook_inflated_bytes`, counted
//!   while inflating (declared sizes are not trusted);
//! * xlsx: one shared string larger than `cell_bytes`, or a declared `uniqueCount` above `sheet_cells`
//!   (calamine reserves that many strings up front);
//! * ods: the cells that calamine would build for the sheets of `content.xml`, repeated rows and columns
//!   expanded as it expands them, exceed `sheet_cells`, or their text exceeds `file_bytes`;
//! * xls: a sheet's DIMENSIONS record or the cells of the sheets span more than `sheet_cells` (calamine
//!   reserves the declared dimension and allocates the bounding box of every sheet at open).
//!
//! xlsx and xlsb sheets themselves are read sparsely by [`super::workbook`], which bounds them as it goes.
//! [`check`] also says whether any xlsx part mentions merged cells, so the reader can skip a second pass over
//! each sheet's XML when none does.

use crate::config::Limits;
use std::io::Read;

/// What [`check`] learnt about a workbook it accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// Some part of an xlsx mentions `mergeCell` (or the file is not a readable zip: assume it does).
    pub mentions_merges: bool,
}

/// Check the workbook `bytes` of format `ext` (lower-case extension; anything else is sniffed) against
/// `limits` (see the module docs). `Err` is the reason, for a GT0104 diagnostic. A file that is not a valid
/// container of its kind passes: calamine reports it.
pub fn check(ext: &str, bytes: &[u8], limits: &Limits) -> Result<Checked, String> {
    let is_cfb = bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]);
    match ext {
        "xls" | "xla" => xls(bytes, limits).map(|_| Checked::default()),
        _ if is_cfb => xls(bytes, limits).map(|_| Checked::default()),
        _ => zip(bytes, limits),
    }
}

/// Streamed inflation of every zip part, with the xlsx shared-string and ods content checks.
fn zip(bytes: &[u8], limits: &Limits) -> Result<Checked, String> {
    let Ok(mut archive) = zip::ZipArchive::new(std::io::Cursor::new(bytes)) else {
        return Ok(Checked {
            mentions_merges: true,
        });
    };
    let mut total: u64 = 0;
    let mut merges = false;
    let finder = memchr::memmem::Finder::new(b"mergeCell");
    for i in 0..archive.len() {
        // A part that cannot be opened (encrypted, unknown method) cannot be read by calamine either.
        let Ok(part) = archive.by_index(i) else {
            merges = true;
            continue;
        };
        let name = part.name().map(|n| n.into_owned()).unwrap_or_default();
        let mut counted = Counted {
            inner: part,
            total: &mut total,
            limit: limits.workbook_inflated_bytes,
        };
        let result = if name.eq_ignore_ascii_case("xl/sharedStrings.xml") {
            shared_strings(&mut counted, limits)
        } else if name == "content.xml" {
            ods_content(&mut counted, limits)
        } else {
            mentions(&mut counted, &finder).map(|m| merges |= m)
        };
        match result {
            Ok(()) => {}
            Err(Stop::Inflated) => {
                return Err(format!(
                    "the workbook inflates to more than {} ([limits] workbook_inflated_bytes): its part {name} alone \
                     is not fully read; a damaged or hostile file (zip bomb)",
                    bytes_text(limits.workbook_inflated_bytes)
                ))
            }
            Err(Stop::Io) => {
                // A corrupt part: calamine reports it when it reads the part.
                merges = true;
            }
            Err(Stop::Limit(why)) => return Err(format!("{name}: {why}")),
        }
    }
    Ok(Checked {
        mentions_merges: merges,
    })
}

/// Why a streamed check stopped.
enum Stop {
    /// The parts inflated past `workbook_inflated_bytes`.
    Inflated,
    /// The part could not be inflated (corrupt).
    Io,
    /// Another bound was exceeded: the reason.
    Limit(String),
}

/// A reader that adds what it reads to a running total and fails past a limit.
struct Counted<'a, R> {
    inner: R,
    total: &'a mut u64,
    limit: u64,
}

impl<R: Read> Counted<'_, R> {
    /// Read the next chunk into `buf`: the number of bytes (0 at the end).
    fn chunk(&mut self, buf: &mut [u8]) -> Result<usize, Stop> {
        let n = loop {
            match self.inner.read(buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(Stop::Io),
            }
        };
        *self.total += n as u64;
        if *self.total > self.limit {
            return Err(Stop::Inflated);
        }
        Ok(n)
    }
}

const CHUNK: usize = 64 * 1024;

/// Whether the part mentions `needle` (found across chunk boundaries too).
fn mentions<R: Read>(r: &mut Counted<R>, finder: &memchr::memmem::Finder) -> Result<bool, Stop> {
    let keep = finder.needle().len() - 1;
    let mut buf = vec![0u8; CHUNK + keep];
    let mut have = 0;
    let mut found = false;
    loop {
        let n = r.chunk(&mut buf[have..])?;
        if n == 0 {
            return Ok(found);
        }
        have += n;
        found |= finder.find(&buf[..have]).is_some();
        let tail = have.min(keep);
        buf.copy_within(have - tail..have, 0);
        have = tail;
    }
}

/// One XML token of [`Tags`]: a start tag (its name, its whole text for attributes, self-closing or not), an
/// end tag, or a run of character data (its length in bytes).
enum Tok<'a> {
    Start {
        name: &'a [u8],
        tag: &'a [u8],
        empty: bool,
    },
    End {
        name: &'a [u8],
    },
    Text(usize),
}

/// A streaming XML tokenizer with bounded memory: character data is counted, never kept; a tag's text is
/// kept up to [`MAX_TAG`] bytes (enough for every attribute calamine reads). Comments, processing
/// instructions and declarations are skipped; CDATA is character data. Malformed XML ends the scan (calamine
/// reports it).
struct Tags<'a, 'b, R> {
    r: &'a mut Counted<'b, R>,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    tag: Vec<u8>,
}

const MAX_TAG: usize = 64 * 1024;

impl<'a, 'b, R: Read> Tags<'a, 'b, R> {
    fn new(r: &'a mut Counted<'b, R>) -> Self {
        Tags {
            r,
            buf: vec![0; CHUNK],
            pos: 0,
            len: 0,
            tag: Vec::new(),
        }
    }

    fn byte(&mut self) -> Result<Option<u8>, Stop> {
        if self.pos == self.len {
            self.len = self.r.chunk(&mut self.buf)?;
            self.pos = 0;
            if self.len == 0 {
                return Ok(None);
            }
        }
        self.pos += 1;
        Ok(Some(self.buf[self.pos - 1]))
    }

    /// The next token, or `None` at the end of the part.
    fn next(&mut self) -> Result<Option<Tok<'_>>, Stop> {
        let mut text = 0usize;
        loop {
            // Character data up to the next '<'.
            if self.pos < self.len {
                let rest = &self.buf[self.pos..self.len];
                match memchr::memchr(b'<', rest) {
                    Some(i) => {
                        text += i;
                        self.pos += i + 1;
                    }
                    None => {
                        text += rest.len();
                        self.pos = self.len;
                        continue;
                    }
                }
            } else {
                match self.byte()? {
                    None if text > 0 => return Ok(Some(Tok::Text(text))),
                    None => return Ok(None),
                    Some(b'<') => {}
                    Some(_) => {
                        text += 1;
                        continue;
                    }
                }
            }
            if text > 0 {
                // Give the text first; the '<' is taken again on the next call.
                self.pos -= 1;
                if self.pos >= self.len {
                    // Cannot happen: `pos` was just past a '<' inside the buffer.
                    return Ok(None);
                }
                return Ok(Some(Tok::Text(text)));
            }
            // A markup construct: read it whole (tags kept up to MAX_TAG bytes).
            self.tag.clear();
            let first = match self.byte()? {
                Some(b) => b,
                None => return Ok(None),
            };
            match first {
                b'!' => {
                    // Comment, CDATA or declaration.
                    let mut head = vec![];
                    while head.len() < 7 {
                        match self.byte()? {
                            Some(b) => head.push(b),
                            None => return Ok(None),
                        }
                        if head == b"--" || head == b"[CDATA[" {
                            break;
                        }
                        if head.first() != Some(&b'-') && head.first() != Some(&b'[') {
                            break;
                        }
                    }
                    let (end, is_text): (&[u8], bool) = match head.as_slice() {
                        b"--" => (b"-->", false),
                        b"[CDATA[" => (b"]]>", true),
                        _ => (b">", false),
                    };
                    let mut n = 0usize;
                    let mut window: Vec<u8> = vec![];
                    loop {
                        let Some(b) = self.byte()? else {
                            return Ok(None);
                        };
                        window.push(b);
                        if window.len() > end.len() {
                            window.remove(0);
                        }
                        n += 1;
                        if window == end {
                            break;
                        }
                    }
                    if is_text {
                        return Ok(Some(Tok::Text(n - end.len())));
                    }
                    continue;
                }
                b'?' => {
                    let mut prev = 0u8;
                    loop {
                        let Some(b) = self.byte()? else {
                            return Ok(None);
                        };
                        if prev == b'?' && b == b'>' {
                            break;
                        }
                        prev = b;
                    }
                    continue;
                }
                _ => {}
            }
            let mut quote: Option<u8> = None;
            let mut b = first;
            loop {
                if self.tag.len() < MAX_TAG {
                    self.tag.push(b);
                }
                match (quote, b) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, b'"' | b'\'') => quote = Some(b),
                    (None, b'>') => break,
                    _ => {}
                }
                b = match self.byte()? {
                    Some(b) => b,
                    None => return Ok(None),
                };
            }
            self.tag.pop(); // '>'
            let tag = &self.tag[..];
            if let Some(rest) = tag.strip_prefix(b"/") {
                let name = rest
                    .split(|c| c.is_ascii_whitespace())
                    .next()
                    .unwrap_or(b"");
                return Ok(Some(Tok::End { name }));
            }
            let empty = tag.ends_with(b"/");
            let body = if empty { &tag[..tag.len() - 1] } else { tag };
            let name = body
                .split(|c| c.is_ascii_whitespace() || *c == b'/')
                .next()
                .unwrap_or(b"");
            return Ok(Some(Tok::Start {
                name,
                tag: body,
                empty,
            }));
        }
    }
}

/// The value of attribute `key` in a start tag's text (`key="value"` or `key='value'`).
fn attr<'t>(tag: &'t [u8], key: &[u8]) -> Option<&'t [u8]> {
    let mut i = 0;
    while let Some(at) = memchr::memmem::find(&tag[i..], key) {
        let start = i + at;
        let before_ok = start > 0 && tag[start - 1].is_ascii_whitespace();
        let mut j = start + key.len();
        while j < tag.len() && tag[j].is_ascii_whitespace() {
            j += 1;
        }
        if before_ok && tag.get(j) == Some(&b'=') {
            j += 1;
            while j < tag.len() && tag[j].is_ascii_whitespace() {
                j += 1;
            }
            let q = *tag.get(j)?;
            if q == b'"' || q == b'\'' {
                let end = memchr::memchr(q, &tag[j + 1..])?;
                return Some(&tag[j + 1..j + 1 + end]);
            }
        }
        i = start + key.len();
    }
    None
}

/// A decimal attribute value (saturating: a number too long for u64 is `u64::MAX`).
fn number(v: &[u8]) -> Option<u64> {
    let v = v.trim_ascii();
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0u64, |n, d| {
        n.saturating_mul(10).saturating_add((d - b'0') as u64)
    }))
}

/// The local part of a qualified name (`x:si` → `si`).
fn local(name: &[u8]) -> &[u8] {
    match memchr::memrchr(b':', name) {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

/// `xl/sharedStrings.xml`: no string larger than `cell_bytes`, no declared count above `sheet_cells`.
fn shared_strings<R: Read>(r: &mut Counted<R>, limits: &Limits) -> Result<(), Stop> {
    let mut tags = Tags::new(r);
    let mut index = 0u64;
    let mut current: Option<u64> = None;
    while let Some(tok) = tags.next()? {
        match tok {
            Tok::Start { name, tag, empty } => match local(name) {
                b"sst" => {
                    let declared = attr(tag, b"uniqueCount").and_then(number);
                    if let Some(n) = declared.filter(|n| *n > limits.sheet_cells) {
                        return Err(Stop::Limit(format!(
                            "the workbook declares {n} shared strings, more than [limits] sheet_cells ({})",
                            limits.sheet_cells
                        )));
                    }
                }
                b"si" if !empty => current = Some(0),
                b"si" => index += 1,
                _ => {}
            },
            Tok::End { name } if local(name) == b"si" => {
                current = None;
                index += 1;
            }
            Tok::End { .. } => {}
            Tok::Text(n) => {
                if let Some(c) = current.as_mut() {
                    *c += n as u64;
                    if *c > limits.cell_bytes {
                        return Err(Stop::Limit(format!(
                            "shared string {} is more than {} ([limits] cell_bytes)",
                            index + 1,
                            bytes_text(limits.cell_bytes)
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Columns and rows of a sheet as calamine bounds them (`MAX_COLUMNS`, `MAX_ROWS` of its ods reader).
const ODS_MAX_COLUMNS: u64 = 16_384;
const ODS_MAX_ROWS: u64 = 1_048_576;

/// `content.xml` of an ods: the cells calamine's reader would allocate (see the module docs).
fn ods_content<R: Read>(r: &mut Counted<R>, limits: &Limits) -> Result<(), Stop> {
    let mut tags = Tags::new(r);
    // Over every sheet of the file (calamine builds all of them at open): raw cells pushed per row, and the
    // text they clone.
    let (mut cells, mut text) = (0u64, 0u64);
    // The current sheet: rows so far (repeats expanded), first/last non-empty row, min/max column.
    let mut rows = 0u64;
    let mut span: Option<(u64, u64, u64, u64)> = None;
    // The current row: its repeat count, columns so far, last non-empty column + 1, and the current cell
    // (its repeat count, whether it has a value, the bytes of its tag and content).
    let mut row_repeats = 1u64;
    let (mut col, mut width) = (0u64, 0u64);
    let mut cell: Option<(u64, bool, u64)> = None;
    let over = |what: &str, n: u64, max: u64, key: &str| {
        Stop::Limit(format!(
            "its sheets would need {n} {what}, more than [limits] {key} ({max})"
        ))
    };
    let mut dense = 0u64;
    while let Some(tok) = tags.next()? {
        match tok {
            Tok::Start { name, tag, empty } => match name {
                b"table:table" if !empty => {
                    rows = 0;
                    span = None;
                }
                b"table:table-row" => {
                    row_repeats = attr(tag, b"table:number-rows-repeated")
                        .and_then(number)
                        .unwrap_or(1)
                        .min(ODS_MAX_ROWS.saturating_sub(rows));
                    col = 0;
                    width = 0;
                    if empty {
                        rows += row_repeats;
                    }
                }
                b"table:table-cell" | b"table:covered-table-cell" => {
                    let repeats = attr(tag, b"table:number-columns-repeated")
                        .and_then(number)
                        .unwrap_or(1)
                        .min(ODS_MAX_COLUMNS.saturating_sub(col));
                    let formula = attr(tag, b"table:formula").map_or(0, |f| f.len() as u64);
                    let valued = attr(tag, b"office:value-type").is_some() || formula > 0;
                    // calamine clones the value (its text) and the formula of a repeated cell.
                    let c = (repeats, valued || !empty, formula);
                    if empty {
                        finish_cell(c, &mut col, &mut width, &mut text);
                    } else {
                        cell = Some(c);
                    }
                }
                _ => {}
            },
            Tok::Text(n) => {
                if let Some(c) = cell.as_mut() {
                    c.2 += n as u64;
                    c.1 = true;
                }
            }
            Tok::End { name } => match name {
                b"table:table-cell" | b"table:covered-table-cell" => {
                    if let Some(c) = cell.take() {
                        finish_cell(c, &mut col, &mut width, &mut text);
                    }
                }
                b"table:table-row" => {
                    cells += width;
                    if width > 0 {
                        let (first, last) = (rows, rows + row_repeats - 1);
                        span = Some(match span {
                            None => (first, last, 0, width),
                            Some((f, _, lo, hi)) => (f, last, lo, hi.max(width)),
                        });
                    }
                    rows += row_repeats;
                }
                b"table:table" => {
                    if let Some((f, l, lo, hi)) = span.take() {
                        dense = dense.saturating_add((l - f + 1).saturating_mul(hi - lo));
                    }
                }
                _ => {}
            },
        }
        let total = cells.saturating_add(dense);
        if total > limits.sheet_cells {
            return Err(over("cells", total, limits.sheet_cells, "sheet_cells"));
        }
        if text > limits.file_bytes {
            return Err(over(
                "bytes of cell text",
                text,
                limits.file_bytes,
                "file_bytes",
            ));
        }
    }
    Ok(())
}

/// A finished ods cell `(repeats, has a value, bytes)`: calamine pushes it `repeats` times when it has a value.
fn finish_cell(c: (u64, bool, u64), col: &mut u64, width: &mut u64, text: &mut u64) {
    let (repeats, valued, bytes) = c;
    *col += repeats;
    if valued {
        *width = *col;
        *text = text.saturating_add(repeats.saturating_mul(bytes));
    }
}

/// A `.xls` (BIFF in an OLE compound file): every sheet's declared DIMENSIONS and the bounding box of its
/// cells, summed over the sheets (calamine allocates them all at open).
fn xls(bytes: &[u8], limits: &Limits) -> Result<(), String> {
    let Ok(mut cf) = cfb::CompoundFile::open(std::io::Cursor::new(bytes)) else {
        return Ok(());
    };
    let stream = match cf.open_stream("/Workbook") {
        Ok(s) => s,
        Err(_) => match cf.open_stream("/Book") {
            Ok(s) => s,
            Err(_) => return Ok(()),
        },
    };
    let mut r = std::io::BufReader::with_capacity(CHUNK, stream.take(bytes.len() as u64 * 2));
    let mut data = vec![0u8; u16::MAX as usize];
    let mut total = 0u64;
    let mut sheet = 0usize;
    // The current substream: its cells' bounding box (row, col) and its declared area.
    let mut bbox: Option<(u32, u32, u32, u32)> = None;
    let mut declared = 0u64;
    let mut close = |bbox: &mut Option<(u32, u32, u32, u32)>, declared: &mut u64, sheet: usize| {
        let area = bbox
            .take()
            .map(|(r0, r1, c0, c1)| (r1 - r0 + 1) as u64 * (c1 - c0 + 1) as u64)
            .unwrap_or(0);
        total = total.saturating_add(area.max(std::mem::take(declared)));
        if total > limits.sheet_cells {
            return Err(format!(
                "its sheets span {total} cells by sheet {sheet}, more than [limits] sheet_cells ({}): a \
                 declared dimension or far-apart cells",
                limits.sheet_cells
            ));
        }
        Ok(())
    };
    loop {
        let mut head = [0u8; 4];
        if r.read_exact(&mut head).is_err() {
            break;
        }
        let typ = u16::from_le_bytes([head[0], head[1]]);
        let len = u16::from_le_bytes([head[2], head[3]]) as usize;
        if r.read_exact(&mut data[..len]).is_err() {
            break;
        }
        let d = &data[..len];
        let u16_at = |i: usize| {
            d.get(i..i + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]) as u32)
        };
        let u32_at = |i: usize| {
            d.get(i..i + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let mut cell = |row: Option<u32>, c0: Option<u32>, c1: Option<u32>| {
            if let (Some(row), Some(c0), Some(c1)) = (row, c0, c1) {
                let (lo, hi) = (c0.min(c1), c0.max(c1));
                bbox = Some(match bbox {
                    None => (row, row, lo, hi),
                    Some((r0, r1, a, b)) => (r0.min(row), r1.max(row), a.min(lo), b.max(hi)),
                });
            }
        };
        match typ {
            // BOF: a new substream (the globals, a sheet, a chart).
            0x0809 => {
                close(&mut bbox, &mut declared, sheet.saturating_sub(1))?;
                sheet += 1;
            }
            // DIMENSIONS: calamine reserves rows × columns cells from it (BIFF8: 32-bit rows).
            0x0200 => {
                let (r0, r1, c0, c1) = match len {
                    10 => (u16_at(0), u16_at(2), u16_at(4), u16_at(6)),
                    14 | 16 => (u32_at(0), u32_at(4), u16_at(8), u16_at(10)),
                    _ => (None, None, None, None),
                };
                if let (Some(r0), Some(r1), Some(c0), Some(c1)) = (r0, r1, c0, c1) {
                    if r1 < r0 || c1 < c0 {
                        return Err(format!(
                            "sheet {} declares the inverted dimension rows {r0}..{r1}, columns {c0}..{c1}",
                            sheet.saturating_sub(1)
                        ));
                    }
                    declared = (r1 - r0 + 1) as u64 * (c1 - c0 + 1) as u64;
                    if declared > limits.sheet_cells {
                        return Err(format!(
                            "sheet {} declares {declared} cells, more than [limits] sheet_cells ({})",
                            sheet.saturating_sub(1),
                            limits.sheet_cells
                        ));
                    }
                }
            }
            // NUMBER, LABEL, RSTRING, BOOLERR, RK, LABELSST, FORMULA: row, column.
            0x0203 | 0x0204 | 0x00D6 | 0x0205 | 0x027E | 0x00FD | 0x0006 => {
                cell(u16_at(0), u16_at(2), u16_at(2));
            }
            // MULRK: row, first column, …, last column.
            0x00BD if len >= 6 => cell(u16_at(0), u16_at(2), u16_at(len - 2)),
            0x000A => close(&mut bbox, &mut declared, sheet.saturating_sub(1))?,
            _ => {}
        }
    }
    close(&mut bbox, &mut declared, sheet.saturating_sub(1))
}

/// `1 MiB`, `256 MiB`, `1 GiB`, or plain bytes.
pub fn bytes_text(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}
