//! What an xlsx worksheet says that calamine does not pass on, read from the parts themselves (ECMA-376
//! Part 1, SpreadsheetML): formulas without a stored result (`<c><f>…</f></c>` with no `<v>`), hidden rows
//! (`<row hidden="1">`) and columns (`<col hidden="1">`), merged ranges (`<mergeCell ref>`), and the number
//! format of each numeric cell whose format changes what Excel shows (`styles.xml` `cellXfs`/`numFmts`).
//!
//! A sheet part is decompressed once and scanned with `quick-xml` only when it mentions one of these
//! (`<f`, `hidden=`, `<mergeCell`, or a style whose format matters): most sheets cost one decompression.

use super::numfmt;
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;
use std::io::Read;

/// The parts of one xlsx workbook that [`SheetFacts`] need: sheet name → part path, and per cell style
/// (`s` attribute, an index of `cellXfs`) the number format code when it is one that changes the text Excel
/// shows for a number (not General, `@` or a date format).
pub struct Workbook<'a> {
    zip: zip::ZipArchive<std::io::Cursor<&'a [u8]>>,
    parts: HashMap<String, String>,
    formats: Vec<Option<String>>,
    /// `<calcPr fullCalcOnLoad="1"/>`: the writer asks to be recalculated on load, so its stored formula
    /// results are placeholders (libraries without a calculation engine write `0`).
    recalc: bool,
}

/// What one worksheet's XML says beyond its values (module docs). Rows are 1-based, columns 0-based.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SheetFacts {
    pub hidden_rows: Vec<usize>,
    pub hidden_cols: Vec<usize>,
    pub merges: Vec<super::raw::Merge>,
    /// Formula cells without a trustworthy result: `(row, col, formula text, stored placeholder)` (the text is
    /// empty for a shared formula's follower cells, which carry none of their own; the placeholder is `None`
    /// without a stored result, `Some` when the workbook asks to be recalculated on load).
    pub no_result: Vec<(usize, usize, String, Option<String>)>,
    /// Cells whose style has a number format that matters: `(row, col)` → format code.
    pub formats: HashMap<(usize, usize), String>,
}

fn attr(e: &BytesStart, name: &str) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.into_owned())
        })
}

fn truthy(v: Option<String>) -> bool {
    matches!(v.as_deref(), Some("1" | "true"))
}

/// `C3` → `(3, 2)`: 1-based row, 0-based column.
fn cell_ref(r: &str) -> Option<(usize, usize)> {
    let letters = r.bytes().take_while(u8::is_ascii_alphabetic).count();
    let col = crate::diag::column_from_letters(&r[..letters])?;
    let row: usize = r[letters..].parse().ok()?;
    Some((row, col))
}

impl<'a> Workbook<'a> {
    /// Open the xlsx in `bytes`: `None` when a part this needs is missing or malformed (calamine then reports
    /// what is wrong with the file, or reads it without these facts).
    pub fn open(bytes: &'a [u8]) -> Option<Workbook<'a>> {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).ok()?;
        let workbook = read_part(&mut zip, "xl/workbook.xml")?;
        let rels = read_part(&mut zip, "xl/_rels/workbook.xml.rels").unwrap_or_default();
        let mut targets: HashMap<String, String> = HashMap::new();
        each_start(&rels, |e| {
            if e.local_name().as_ref() == "Relationship" {
                if let (Some(id), Some(t)) = (attr(e, "Id"), attr(e, "Target")) {
                    let path = match t.strip_prefix('/') {
                        Some(abs) => abs.to_string(),
                        None => format!("xl/{t}"),
                    };
                    targets.insert(id, path);
                }
            }
        });
        let mut parts = HashMap::new();
        let mut recalc = false;
        each_start(&workbook, |e| {
            if e.local_name().as_ref() == "calcPr" {
                recalc = truthy(attr(e, "fullCalcOnLoad"));
            }
            if e.local_name().as_ref() == "sheet" {
                if let (Some(name), Some(id)) = (attr(e, "name"), attr(e, "id")) {
                    if let Some(p) = targets.get(&id) {
                        parts.insert(name, p.clone());
                    }
                }
            }
        });
        let formats = read_part(&mut zip, "xl/styles.xml")
            .map(|s| style_formats(&s))
            .unwrap_or_default();
        Some(Workbook {
            zip,
            parts,
            formats,
            recalc,
        })
    }

    /// The facts of the sheet named `sheet` (empty when its part cannot be read).
    pub fn facts(&mut self, sheet: &str) -> SheetFacts {
        let Some(path) = self.parts.get(sheet).cloned() else {
            return SheetFacts::default();
        };
        let Some(xml) = read_part(&mut self.zip, &path) else {
            return SheetFacts::default();
        };
        let styled = self.formats.iter().any(Option::is_some);
        let finder = |n: &[u8]| memchr::memmem::find(&xml, n).is_some();
        if !(finder(b"<f")
            || finder(b"hidden=")
            || finder(b"<mergeCell")
            || styled && finder(b" s=\""))
        {
            return SheetFacts::default();
        }
        scan(&xml, &self.formats, self.recalc)
    }
}

fn read_part(zip: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>, name: &str) -> Option<Vec<u8>> {
    let mut f = zip.by_name(name).ok()?;
    let mut buf = Vec::with_capacity(f.size() as usize);
    f.read_to_end(&mut buf).ok()?;
    Some(buf)
}

fn each_start(xml: &[u8], mut f: impl FnMut(&BytesStart)) {
    let mut r = quick_xml::Reader::from_reader(xml);
    let mut buf = vec![];
    loop {
        match r.read_event_into(&mut buf) {
            Ok(Event::Start(e) | Event::Empty(e)) => f(&e),
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
        buf.clear();
    }
}

/// Per `cellXfs` entry: its number format code if it changes what Excel shows for a number.
fn style_formats(styles: &[u8]) -> Vec<Option<String>> {
    let mut custom: HashMap<u32, String> = HashMap::new();
    let mut xfs: Vec<u32> = vec![];
    let mut in_cell_xfs = false;
    let mut r = quick_xml::Reader::from_reader(styles);
    let mut buf = vec![];
    loop {
        match r.read_event_into(&mut buf) {
            Ok(Event::Start(e) | Event::Empty(e)) => match e.local_name().as_ref() {
                "numFmt" => {
                    if let (Some(id), Some(code)) = (attr(&e, "numFmtId"), attr(&e, "formatCode")) {
                        if let Ok(id) = id.parse() {
                            custom.insert(id, code);
                        }
                    }
                }
                "cellXfs" => in_cell_xfs = true,
                "xf" if in_cell_xfs => {
                    xfs.push(
                        attr(&e, "numFmtId")
                            .and_then(|i| i.parse().ok())
                            .unwrap_or(0),
                    );
                }
                _ => {}
            },
            Ok(Event::End(e)) if e.local_name().as_ref() == "cellXfs" => in_cell_xfs = false,
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
        buf.clear();
    }
    xfs.into_iter()
        .map(|id| {
            let code = custom
                .get(&id)
                .cloned()
                .or_else(|| numfmt::builtin(id).map(str::to_string))?;
            let plain = code.eq_ignore_ascii_case("general") || code == "@";
            (!plain && !numfmt::is_date_format(&code)).then_some(code)
        })
        .collect()
}

/// One pass over a worksheet's XML collecting [`SheetFacts`]; `recalc`: stored formula results are
/// placeholders.
fn scan(xml: &[u8], formats: &[Option<String>], recalc: bool) -> SheetFacts {
    let mut facts = SheetFacts::default();
    let mut r = quick_xml::Reader::from_reader(xml);
    let mut buf = vec![];
    let (mut row, mut col) = (0usize, 0usize);
    // The cell being read: position, a formula (and its text), a value.
    struct Cell {
        pos: (usize, usize),
        formula: Option<String>,
        value: Option<String>,
    }
    let mut cell: Option<Cell> = None;
    let (mut in_f, mut in_v) = (false, false);
    loop {
        let ev = r.read_event_into(&mut buf);
        match ev {
            Ok(Event::Start(ref e) | Event::Empty(ref e)) => {
                let empty = matches!(ev, Ok(Event::Empty(_)));
                match e.local_name().as_ref() {
                    "row" => {
                        row = attr(e, "r").and_then(|x| x.parse().ok()).unwrap_or(row + 1);
                        col = 0;
                        if truthy(attr(e, "hidden")) {
                            facts.hidden_rows.push(row);
                        }
                    }
                    "col" if truthy(attr(e, "hidden")) => {
                        let n = |k: &str| attr(e, k).and_then(|x| x.parse::<usize>().ok());
                        if let (Some(a), Some(b)) = (n("min"), n("max")) {
                            // A hidden column range may run to the sheet's last column (XFD): keep it to
                            // the columns a table can have.
                            for c in a.max(1)..=b.min(a.max(1) + 16_384) {
                                facts.hidden_cols.push(c - 1);
                            }
                        }
                    }
                    "mergeCell" => {
                        if let Some((a, b)) =
                            attr(e, "ref").as_deref().and_then(|r| r.split_once(':'))
                        {
                            if let (Some(a), Some(b)) = (cell_ref(a), cell_ref(b)) {
                                facts.merges.push(super::raw::Merge {
                                    rows: (a.0, b.0),
                                    cols: (a.1, b.1),
                                });
                            }
                        }
                    }
                    "c" => {
                        let pos = attr(e, "r")
                            .and_then(|x| cell_ref(&x))
                            .unwrap_or((row, col));
                        col = pos.1 + 1;
                        if let Some(s) = attr(e, "s").and_then(|x| x.parse::<usize>().ok()) {
                            if let Some(Some(code)) = formats.get(s) {
                                facts.formats.insert(pos, code.clone());
                            }
                        }
                        if !empty {
                            cell = Some(Cell {
                                pos,
                                formula: None,
                                value: None,
                            });
                        }
                    }
                    "f" => {
                        if let Some(c) = &mut cell {
                            c.formula = Some(String::new());
                            in_f = !empty;
                        }
                    }
                    "v" | "is" => {
                        if let Some(c) = &mut cell {
                            c.value = Some(String::new());
                            in_v = !empty && e.local_name().as_ref() == "v";
                        }
                    }
                    _ => {}
                }
            }
            Ok(Event::Text(t)) if in_f => {
                if let Some(f) = cell.as_mut().and_then(|c| c.formula.as_mut()) {
                    f.push_str(&t.into_inner());
                }
            }
            Ok(Event::Text(t)) if in_v => {
                if let Some(v) = cell.as_mut().and_then(|c| c.value.as_mut()) {
                    v.push_str(&t.into_inner());
                }
            }
            Ok(Event::GeneralRef(g)) if in_f => {
                if let Some(f) = cell.as_mut().and_then(|c| c.formula.as_mut()) {
                    let name = g.into_inner();
                    match name.as_ref() {
                        "lt" => f.push('<'),
                        "gt" => f.push('>'),
                        "amp" => f.push('&'),
                        "quot" => f.push('"'),
                        "apos" => f.push('\''),
                        n => {
                            let code = match n.strip_prefix("#x") {
                                Some(h) => u32::from_str_radix(h, 16).ok(),
                                None => n.strip_prefix('#').and_then(|d| d.parse().ok()),
                            };
                            f.extend(code.and_then(char::from_u32));
                        }
                    }
                }
            }
            Ok(Event::End(e)) => match e.local_name().as_ref() {
                "f" => in_f = false,
                "v" => in_v = false,
                "c" => {
                    if let Some(c) = cell.take() {
                        match (c.formula, c.value) {
                            (Some(f), None) => facts.no_result.push((c.pos.0, c.pos.1, f, None)),
                            (Some(f), Some(v)) if recalc => {
                                facts.no_result.push((c.pos.0, c.pos.1, f, Some(v)))
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            },
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
        buf.clear();
    }
    facts.hidden_cols.sort_unstable();
    facts.hidden_cols.dedup();
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_formulas_hidden_rows_columns_merges_and_formats() {
        let xml = br#"<worksheet><cols><col min="2" max="3" width="9" hidden="1"/></cols><sheetData>
            <row r="1"><c r="A1" t="s"><v>0</v></c></row>
            <row r="3" hidden="1"><c r="A3"><v>1</v></c><c r="C3"><f>A3*2</f></c>
              <c r="D3" t="str"><f>""</f><v></v></c><c r="E3" s="1"><v>7</v></c><c r="F3"><f t="shared" si="0"/></c>
              <c r="G3"><f>IF(A3&lt;2,1,0)</f></c></row>
            </sheetData><mergeCells count="1"><mergeCell ref="A4:A5"/></mergeCells></worksheet>"#;
        let formats = vec![None, Some("000".to_string())];
        let f = scan(xml, &formats, false);
        assert_eq!(f.hidden_rows, vec![3]);
        assert_eq!(f.hidden_cols, vec![1, 2]);
        assert_eq!(
            f.no_result,
            vec![
                (3, 2, "A3*2".to_string(), None),
                (3, 5, String::new(), None),
                (3, 6, "IF(A3<2,1,0)".to_string(), None)
            ]
        );
        // Recalculated on load: every stored result is a placeholder.
        let r = scan(xml, &formats, true);
        assert_eq!(
            r.no_result[1],
            (3, 3, "\"\"".to_string(), Some(String::new()))
        );
        assert_eq!(f.formats.get(&(3, 4)).map(String::as_str), Some("000"));
        assert_eq!(
            f.merges,
            vec![super::super::raw::Merge {
                rows: (4, 5),
                cols: (0, 0)
            }]
        );
    }

    #[test]
    fn style_formats_keep_only_formats_that_change_the_text() {
        let styles = br#"<styleSheet><numFmts count="2"><numFmt numFmtId="164" formatCode="000"/>
            <numFmt numFmtId="165" formatCode="yyyy-mm-dd"/></numFmts>
            <cellStyleXfs count="1"><xf numFmtId="1"/></cellStyleXfs>
            <cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="49"/><xf numFmtId="2"/></cellXfs></styleSheet>"#;
        assert_eq!(
            style_formats(styles),
            vec![None, Some("000".into()), None, None, Some("0.00".into())]
        );
    }
}
