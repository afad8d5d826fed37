//! Issue 13's attacks, one regression test each (every one failed on `main` before the hardening):
//! resource bombs (`[limits]`), output paths made from names, reserved names, the atomic commit of
//! `generated/` with its project lock, and terminal escaping of cell previews.
//!
//! Bombs run the `gentable` binary under `ulimit -v` ([`MEMORY_KB`]), so "memory stays bounded" is a
//! failing assertion, not a hope: a build that needs more address space than that aborts and the test fails.
//!
//! Every attack that is refused (exit 1 or 2) is also checked in Simplified Chinese ([`Project::run`]):
//! `gentable check` in English and in Chinese, each message and help whole Chinese with Chinese list
//! joiners (`tests/common/zh.rs`, as `tests/messages.rs` checks its corpora).

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A throw-away project folder.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    /// `gentable.toml` (`[project] name = "Hard"` and `extra`) and the files `(path, content)`.
    fn new(extra_toml: &str, files: &[(&str, &[u8])]) -> Project {
        let p = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        p.write(
            "gentable.toml",
            format!("[project]\nname = \"Hard\"\n{extra_toml}\n").as_bytes(),
        );
        for (rel, bytes) in files {
            p.write(rel, bytes);
        }
        p
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
    fn write(&self, rel: &str, bytes: &[u8]) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    /// Run `gentable <args> -c gentable.toml` with at most [`MEMORY_KB`] of address space; a refused run
    /// (exit 1 or 2) has its diagnostics checked in Chinese too ([`common::zh::problems_of`]).
    fn run(&self, args: &[&str]) -> Run {
        let r = run_bounded(self.dir.path(), args);
        if matches!(r.code, Some(1 | 2)) {
            let toml = self.path("gentable.toml");
            let (_, problems) =
                common::zh::problems_of(&toml, &format!("gentable {}", args.join(" ")));
            assert!(
                problems.is_empty(),
                "the attack's diagnostics are not whole Chinese with --lang zh:\n{}",
                problems.join("\n")
            );
        }
        r
    }
}

/// Address space a bomb may use: 1.5 GiB (`ulimit -v`, in KiB). A normal build of these projects needs a
/// few hundred MiB of address space (mostly thread stacks and allocator arenas).
const MEMORY_KB: u64 = 1536 * 1024;

/// What a run printed and how it ended.
struct Run {
    code: Option<i32>,
    stderr: String,
    stdout: String,
    seconds: f64,
}

fn run_bounded(dir: &Path, args: &[&str]) -> Run {
    let started = std::time::Instant::now();
    let out: Output = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_KB} && exec \"$0\" \"$@\" -c gentable.toml"
        ))
        .arg(env!("CARGO_BIN_EXE_gentable"))
        .args(args)
        .current_dir(dir)
        .env("CI", "true")
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The rows of `generated/data/<table>.json` as compact JSON (`[{"Id":1}]`).
fn rows(p: &Project, table: &str) -> String {
    let text = std::fs::read_to_string(p.path(&format!("generated/data/{table}.json"))).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    serde_json::to_string(&doc["rows"]).unwrap()
}

impl Run {
    /// Assert a clean failure (exit 1: data errors) whose output contains every one of `needles`.
    fn fails_with(&self, needles: &[&str]) {
        assert_eq!(
            self.code,
            Some(1),
            "expected exit 1 (a located data error), got {:?} after {:.1} s:\n{}",
            self.code,
            self.seconds,
            self.stderr
        );
        for n in needles {
            assert!(
                self.stderr.contains(n),
                "missing {n:?} in:\n{}",
                self.stderr
            );
        }
    }
    fn succeeds(&self) {
        assert_eq!(
            self.code,
            Some(0),
            "expected success, got {:?}:\n{}{}",
            self.code,
            self.stdout,
            self.stderr
        );
    }
}

// ---------------------------------------------------------------------------------------------------------
// 3. Unbounded resources.

/// A table `Tree` whose `Node` column is a record that holds itself (`next`).
const TREE_SCHEMA: &str = r##"{
  "type": "object",
  "$defs": {
    "Node": {
      "type": "object",
      "properties": { "v": { "type": "integer" }, "next": { "$ref": "#/$defs/Node" } },
      "required": ["v"]
    }
  },
  "properties": { "Id": { "type": "integer" }, "Node": { "$ref": "#/$defs/Node" } },
  "required": ["Id"]
}"##;

/// A `Node` cell `depth` levels deep: `(1,(1,(1)))` is 3.
fn nested(depth: usize) -> String {
    "(1,".repeat(depth - 1) + "(1)" + &")".repeat(depth - 1)
}

#[test]
fn a_cell_nested_2000_deep_is_a_located_error_not_a_stack_overflow() {
    // main: SIGABRT (stack overflow); 1,000 deep took 4.6 s (quadratic).
    let cell = nested(2000);
    let p = Project::new(
        "",
        &[
            ("schema/Tree.schema.json", TREE_SCHEMA.as_bytes()),
            (
                "Table/Tree.csv",
                format!("Id,Node\n1,\"{cell}\"\n").as_bytes(),
            ),
        ],
    );
    let r = p.run(&["check"]);
    r.fails_with(&[
        "GT0104",
        "Table/Tree.csv:2:2",
        "column B, field \"Node\"",
        "nested 2000 levels deep, more than the limit of 32",
    ]);
    assert!(r.seconds < 10.0, "took {:.1} s", r.seconds);
    // Within the limit the same shape is read (and the limit is configurable).
    let ok = nested(32);
    let p = Project::new(
        "[limits]\nnesting_depth = 40",
        &[
            ("schema/Tree.schema.json", TREE_SCHEMA.as_bytes()),
            (
                "Table/Tree.csv",
                format!("Id,Node\n1,\"{ok}\"\n2,\"{}\"\n", nested(40)).as_bytes(),
            ),
        ],
    );
    p.run(&["build"]).succeeds();
    let data = rows(&p, "Tree");
    assert_eq!(data.matches("\"next\"").count(), 31 + 39, "{data}");
    assert!(
        data.starts_with("[{\"Id\":1,\"Node\":{\"next\":{\"next\":"),
        "{data}"
    );
}

#[test]
fn a_json_literal_nested_deeper_than_the_limit_says_so() {
    // main: "a cell starting with '{' must be a JSON object" for anything deeper than serde_json's 128.
    let deep = "{\"v\":1,\"next\":".repeat(200) + "{\"v\":1}" + &"}".repeat(200);
    let p = Project::new(
        "",
        &[
            ("schema/Tree.schema.json", TREE_SCHEMA.as_bytes()),
            (
                "Table/Tree.csv",
                format!("Id,Node\n1,\"{}\"\n", deep.replace('"', "\"\"")).as_bytes(),
            ),
        ],
    );
    let r = p.run(&["check"]);
    r.fails_with(&[
        "GT0104",
        "the JSON literal is nested 201 levels deep, more than the limit of 32",
    ]);
    assert!(!r.stderr.contains("must be a JSON object"), "{}", r.stderr);
}

/// An xlsx written by rust_xlsxwriter: sheet `T` with the header `Id`, rows `1` and `2`, and `extra` cells
/// `(row, col, number)` (0-based).
fn xlsx(extra: &[(u32, u16, f64)]) -> Vec<u8> {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet().set_name("T").unwrap();
    ws.write_string(0, 0, "Id").unwrap();
    ws.write_number(1, 0, 1).unwrap();
    ws.write_number(2, 0, 2).unwrap();
    for &(r, c, v) in extra {
        ws.write_number(r, c, v).unwrap();
    }
    wb.save_to_buffer().unwrap()
}

const ID_SCHEMA: &[u8] =
    br#"{"type":"object","x-gentable-primaryKey":"Id","properties":{"Id":{"type":"integer"}},"required":["Id"]}"#;

#[test]
fn one_number_at_xfd1048576_is_read_sparsely() {
    // main: a 549 GB allocation (calamine's dense range from A1 to XFD1048576): the process aborts.
    // The last row has an Id too; XFD has no header, so it is a note column.
    let p = Project::new(
        "",
        &[
            ("schema/T.schema.json", ID_SCHEMA),
            (
                "Table/T.xlsx",
                &xlsx(&[(1_048_575, 0, 3.0), (1_048_575, 16_383, 7.0)]),
            ),
        ],
    );
    let r = p.run(&["build"]);
    r.succeeds();
    assert_eq!(rows(&p, "T"), "[{\"Id\":1},{\"Id\":2},{\"Id\":3}]");
    assert!(r.seconds < 20.0, "took {:.1} s", r.seconds);
}

#[test]
fn a_number_at_cv1000000_costs_nothing() {
    // main: 150 s and 6.3 GB (a dense 100 × 1,000,000 range).
    let p = Project::new(
        "",
        &[
            ("schema/T.schema.json", ID_SCHEMA),
            (
                "Table/T.xlsx",
                &xlsx(&[(999_999, 0, 3.0), (999_999, 99, 7.0)]),
            ),
        ],
    );
    let r = p.run(&["build"]);
    r.succeeds();
    assert!(r.seconds < 20.0, "took {:.1} s", r.seconds);
}

#[test]
fn far_right_cells_in_every_row_stop_at_sheet_cells() {
    // Each row is read up to its last value: 300 rows with a value at XFD need 4.9 M cells.
    let extra: Vec<(u32, u16, f64)> = (3..303).map(|r| (r, 16_383, 1.0)).collect();
    let p = Project::new(
        "[limits]\nsheet_cells = 1000000",
        &[
            ("schema/T.schema.json", ID_SCHEMA),
            ("Table/T.xlsx", &xlsx(&extra)),
        ],
    );
    p.run(&["check"]).fails_with(&[
        "GT0104",
        "Table/T.xlsx[T]",
        "the sheet spans more than 1000000 cells ([limits] sheet_cells",
        "reading stopped at XFD",
    ]);
}

/// A minimal xlsx (one sheet `T`, column A: `Id` and the shared string 0 in A2) whose shared strings part
/// is `sst` (`{}` is replaced by the `<si>` elements).
fn xlsx_with_shared_strings(sst_open: &str, si: &[&[u8]]) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opt = SimpleFileOptions::default().compression_level(Some(6));
    let parts: [(&str, &str); 5] = [
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>"#,
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#,
        ),
        (
            "xl/workbook.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="T" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
        ),
        (
            "xl/_rels/workbook.xml.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#,
        ),
        (
            "xl/worksheets/sheet1.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Id</t></is></c></row><row r="2"><c r="A2" t="s"><v>0</v></c></row></sheetData></worksheet>"#,
        ),
    ];
    for (name, text) in parts {
        z.start_file(name, opt).unwrap();
        z.write_all(text.as_bytes()).unwrap();
    }
    z.start_file("xl/sharedStrings.xml", opt).unwrap();
    z.write_all(sst_open.as_bytes()).unwrap();
    for s in si {
        z.write_all(b"<si><t>").unwrap();
        z.write_all(s).unwrap();
        z.write_all(b"</t></si>").unwrap();
    }
    z.write_all(b"</sst>").unwrap();
    z.finish().unwrap().into_inner()
}

const SST: &str = r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1">"#;

#[test]
fn a_shared_string_that_inflates_to_400_mib_is_refused_before_it_is_parsed() {
    // main: accepted after 68 s, 1.65 GB of memory and 801 MB written.
    let bomb = vec![b'A'; 400 << 20];
    let file = xlsx_with_shared_strings(SST, &[&bomb]);
    drop(bomb);
    assert!(file.len() < 1 << 20, "{} bytes", file.len());
    let p = Project::new(
        "",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.xlsx", &file)],
    );
    let r = p.run(&["build"]);
    r.fails_with(&[
        "GT0104",
        "Table/T.xlsx",
        "shared string 1 is more than 1 MiB ([limits] cell_bytes)",
    ]);
    assert!(!p.path("generated").exists());
    assert!(r.seconds < 20.0, "took {:.1} s", r.seconds);
}

#[test]
fn parts_that_inflate_past_the_limit_are_refused_while_inflating() {
    let big = vec![b'7'; 3 << 20];
    let file = xlsx_with_shared_strings(SST, &[&big]);
    let p = Project::new(
        "[limits]\nworkbook_inflated_bytes = 2097152\ncell_bytes = 8388608",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.xlsx", &file)],
    );
    p.run(&["check"]).fails_with(&[
        "GT0104",
        "the workbook inflates to more than 2 MiB ([limits] workbook_inflated_bytes)",
    ]);
}

#[test]
fn a_declared_shared_string_count_is_not_trusted() {
    // calamine reserves `uniqueCount` strings up front: 10^15 of them abort the process.
    let sst = SST.replace("uniqueCount=\"1\"", "uniqueCount=\"1000000000000000\"");
    let file = xlsx_with_shared_strings(&sst, &[b"1"]);
    let p = Project::new(
        "",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.xlsx", &file)],
    );
    p.run(&["check"]).fails_with(&[
        "GT0104",
        "declares 1000000000000000 shared strings, more than [limits] sheet_cells",
    ]);
    // The same workbook with an honest count is read.
    let file = xlsx_with_shared_strings(SST, &[b"5"]);
    let p = Project::new(
        "",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.xlsx", &file)],
    );
    p.run(&["build"]).succeeds();
    assert_eq!(rows(&p, "T"), "[{\"Id\":5}]");
}

#[test]
fn csv_files_and_cells_over_their_limits_are_located_errors() {
    let rows: String = (1..=200).map(|i| format!("{i}\n")).collect();
    let p = Project::new(
        "[limits]\nfile_bytes = 100",
        &[
            ("schema/T.schema.json", ID_SCHEMA),
            ("Table/T.csv", format!("Id\n{rows}").as_bytes()),
        ],
    );
    p.run(&["check"]).fails_with(&[
        "GT0104",
        "Table/T.csv",
        "the file is 695 bytes, more than [limits] file_bytes (100 bytes)",
    ]);
    let schema = br#"{"type":"object","properties":{"Id":{"type":"integer"},"Note":{"type":"string"}},"required":["Id"]}"#;
    let long = "说".repeat(400);
    let p = Project::new(
        "[limits]\ncell_bytes = 1000\nsheet_cells = 50",
        &[
            ("schema/T.schema.json", schema),
            (
                "Table/T.csv",
                format!("Id,Note\n1,{long}\n2,ok\n").as_bytes(),
            ),
        ],
    );
    p.run(&["check"]).fails_with(&[
        "GT0104",
        "Table/T.csv:2:2",
        "the cell holds 1200 bytes, more than [limits] cell_bytes (1000)",
    ]);
    let many: String = (1..=40).map(|i| format!("{i},x\n")).collect();
    let p = Project::new(
        "[limits]\nsheet_cells = 50",
        &[
            ("schema/T.schema.json", schema),
            ("Table/T.csv", format!("Id,Note\n{many}").as_bytes()),
        ],
    );
    p.run(&["check"]).fails_with(&[
        "GT0104",
        "Table/T.csv:26",
        "the file has more than 50 cells ([limits] sheet_cells)",
    ]);
}

#[test]
fn bad_limits_are_configuration_errors() {
    for (toml, msg) in [
        (
            "[limits]\nnesting_depth = 129",
            "nesting_depth must be 1 to 128",
        ),
        ("[limits]\ncell_bytes = 0", "cell_bytes must be at least 1"),
        ("[limits]\nsheet_cels = 5", "unknown field `sheet_cels`"),
    ] {
        let p = Project::new(toml, &[("schema/T.schema.json", ID_SCHEMA)]);
        let r = p.run(&["check"]);
        assert_eq!(r.code, Some(2), "{toml}: {}", r.stderr);
        assert!(r.stderr.contains(msg), "{toml}: {}", r.stderr);
    }
}

/// An ods whose one sheet has `rows` rows of `cells` (the `<table:table-cell …>` elements of one row).
fn ods(rows: usize, cells: &str) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    z.start_file("mimetype", stored).unwrap();
    z.write_all(b"application/vnd.oasis.opendocument.spreadsheet")
        .unwrap();
    let opt = SimpleFileOptions::default().compression_level(Some(6));
    z.start_file("META-INF/manifest.xml", opt).unwrap();
    z.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#).unwrap();
    z.start_file("content.xml", opt).unwrap();
    z.write_all(br#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="T"><table:table-row><table:table-cell office:value-type="string"><text:p>Id</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell office:value-type="float" office:value="1"><text:p>1</text:p></table:table-cell></table:table-row>"#).unwrap();
    for _ in 0..rows {
        z.write_all(b"<table:table-row>").unwrap();
        z.write_all(cells.as_bytes()).unwrap();
        z.write_all(b"</table:table-row>").unwrap();
    }
    z.write_all(b"</table:table></office:spreadsheet></office:body></office:document-content>")
        .unwrap();
    z.finish().unwrap().into_inner()
}

#[test]
fn ods_repeated_columns_are_counted_before_calamine_expands_them() {
    // calamine expands number-columns-repeated at open: 2,000 rows of 16,384 copies are 32 M cells (1.8 GB).
    let bomb = ods(
        2000,
        r#"<table:table-cell table:number-columns-repeated="16384" office:value-type="float" office:value="1"/>"#,
    );
    assert!(bomb.len() < 100_000, "{} bytes", bomb.len());
    let p = Project::new(
        "",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.ods", &bomb)],
    );
    p.run(&["check"]).fails_with(&[
        "GT0104",
        "Table/T.ods",
        "content.xml: its sheets would need",
        "more than [limits] sheet_cells (20000000)",
    ]);
    // LibreOffice's own trailing repeats of empty cells and rows cost nothing.
    let normal = ods(
        1,
        r#"<table:table-cell office:value-type="float" office:value="2"><text:p>2</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16383"/></table:table-row><table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="16384"/>"#,
    );
    let p = Project::new(
        "",
        &[
            ("schema/T.schema.json", ID_SCHEMA),
            ("Table/T.ods", &normal),
        ],
    );
    p.run(&["build"]).succeeds();
    assert_eq!(rows(&p, "T"), "[{\"Id\":1},{\"Id\":2}]");
}

/// A BIFF8 `.xls` with one sheet `T` whose substream holds `records` `(type, data)` after its BOF.
fn xls(records: &[(u16, Vec<u8>)]) -> Vec<u8> {
    fn rec(out: &mut Vec<u8>, typ: u16, data: &[u8]) {
        out.extend(typ.to_le_bytes());
        out.extend((data.len() as u16).to_le_bytes());
        out.extend(data);
    }
    let bof = |dt: u16| {
        let mut d = vec![];
        d.extend(0x0600u16.to_le_bytes());
        d.extend(dt.to_le_bytes());
        d.extend([0u8; 12]);
        d
    };
    let mut globals = vec![];
    rec(&mut globals, 0x0809, &bof(0x0005));
    // BOUNDSHEET8 with the sheet's offset filled in below: lbPlyPos, hsState, dt, cch, fHighByte, "T".
    let bound_at = globals.len() + 4;
    rec(&mut globals, 0x0085, &[0, 0, 0, 0, 0, 0, 1, 0, b'T']);
    rec(&mut globals, 0x000A, &[]);
    let offset = globals.len() as u32;
    globals[bound_at..bound_at + 4].copy_from_slice(&offset.to_le_bytes());
    let mut stream = globals;
    rec(&mut stream, 0x0809, &bof(0x0010));
    for (t, d) in records {
        rec(&mut stream, *t, d);
    }
    rec(&mut stream, 0x000A, &[]);
    let mut cf = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).unwrap();
    cf.create_stream("/Workbook")
        .unwrap()
        .write_all(&stream)
        .unwrap();
    cf.flush().unwrap();
    cf.into_inner().into_inner()
}

/// A BIFF8 LABEL-free NUMBER record: row, column, XF 0, the value.
fn xls_number(row: u16, col: u16, v: f64) -> (u16, Vec<u8>) {
    let mut d = vec![];
    d.extend(row.to_le_bytes());
    d.extend(col.to_le_bytes());
    d.extend(0u16.to_le_bytes());
    d.extend(v.to_le_bytes());
    (0x0203, d)
}

#[test]
fn an_xls_dimension_is_not_allocated() {
    // calamine reserves the DIMENSIONS record's rows × columns at open: 4 × 10^9 rows abort the process.
    let mut dims = vec![];
    dims.extend(0u32.to_le_bytes());
    dims.extend(4_000_000_000u32.to_le_bytes());
    dims.extend(0u16.to_le_bytes());
    dims.extend(200u16.to_le_bytes());
    dims.extend(0u16.to_le_bytes());
    let bomb = xls(&[(0x0200, dims), xls_number(0, 0, 1.0)]);
    let p = Project::new(
        "",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.xls", &bomb)],
    );
    p.run(&["check"]).fails_with(&[
        "GT0104",
        "Table/T.xls",
        "sheet 1 declares 804000000201 cells, more than [limits] sheet_cells",
    ]);
    // Cells far apart: calamine allocates their bounding box.
    let apart = xls(&[xls_number(0, 0, 1.0), xls_number(65_535, 255, 2.0)]);
    let p = Project::new(
        "[limits]\nsheet_cells = 1000000",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.xls", &apart)],
    );
    p.run(&["check"])
        .fails_with(&["GT0104", "its sheets span 16777216 cells"]);
    // An ordinary sheet: LABEL "Id", NUMBER 1 and 2.
    let mut label = vec![0, 0, 0, 0, 0, 0];
    label.extend(2u16.to_le_bytes());
    label.push(0);
    label.extend(b"Id");
    let fine = xls(&[
        (0x0204, label),
        xls_number(1, 0, 1.0),
        xls_number(2, 0, 2.0),
    ]);
    let p = Project::new(
        "",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.xls", &fine)],
    );
    p.run(&["build"]).succeeds();
    assert_eq!(rows(&p, "T"), "[{\"Id\":1},{\"Id\":2}]");
}

// ---------------------------------------------------------------------------------------------------------
// 5. Terminal output.

#[test]
fn bidi_controls_in_cells_are_escaped_in_human_and_github_output() {
    // main: the row and the message printed U+202E raw, so `Red\u{202e}eulB` showed as `RedBlue`.
    let schema = br##"{"type":"object","$defs":{"Side":{"type":"string","enum":["Red","Blue"]}},
        "properties":{"Id":{"type":"integer"},"Side":{"$ref":"#/$defs/Side"},"Note":{"type":"string"}},"required":["Id"]}"##;
    let p = Project::new(
        "",
        &[
            ("schema/T.schema.json", schema),
            (
                "Table/T.csv",
                "Id,Side,Note\n1,Red\u{202e}eulB,\u{1b}[2J\u{2066}x\n".as_bytes(),
            ),
        ],
    );
    let human = p.run(&["check"]);
    human.fails_with(&["GT0203", "Red\\u{202e}eulB"]);
    for raw in ['\u{202e}', '\u{1b}', '\u{2066}'] {
        assert!(
            !human.stderr.contains(raw),
            "raw {raw:?} in:\n{}",
            human.stderr
        );
    }
    assert!(
        human
            .stderr
            .contains("\\u{202e} is U+202E RIGHT-TO-LEFT OVERRIDE"),
        "{}",
        human.stderr
    );
    // The row shown escapes every cell, the other cells' characters named too.
    assert!(
        human.stderr.contains("\\u{1b}[2J\\u{2066}x"),
        "{}",
        human.stderr
    );
    assert!(human.stderr.contains("U+001B ESCAPE"), "{}", human.stderr);
    let gh = p.run(&["check", "--message-format", "github"]);
    assert!(
        gh.stderr.contains("Red\\\\u{202e}eulB") || gh.stderr.contains("Red\\u{202e}eulB"),
        "{}",
        gh.stderr
    );
    assert!(!gh.stderr.contains('\u{202e}'), "{}", gh.stderr);
    // JSON is for machines: the exact text, JSON-escaped.
    let json = p.run(&["check", "--message-format", "json"]);
    let line: serde_json::Value =
        serde_json::from_str(json.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(line["cell_text"], "Red\u{202e}eulB");
}

// ---------------------------------------------------------------------------------------------------------
// 1. Output paths are made, never taken; 4. names that break generated code; 5. a too-long name.

/// A project whose table `name` is selected by `[tables."<name>"] files` from `Table/A.csv`.
fn named_table(name: &str) -> Project {
    let key = name.replace('\\', "\\\\").replace('"', "\\\"");
    Project::new(
        &format!("[tables.\"{key}\"]\nfiles = [\"A.csv\"]\nschema = \"A\""),
        &[
            ("schema/A.schema.json", ID_SCHEMA),
            ("Table/A.csv", b"Id\n1\n"),
        ],
    )
}

#[test]
fn table_names_that_are_not_file_names_are_refused_at_their_source() {
    // main: `../../escaped` wrote <project>/escaped.json, `a/b` wrote generated/data/a/b.json, `C:evil` an
    // alternate data stream on Windows, CON/aux/nul.txt device names, `..` a Rust E0255.
    for (name, why) in [
        ("../../escaped", "path separator"),
        ("a/b", "path separator"),
        ("a\\b", "path separator"),
        ("C:evil", "Windows forbids"),
        ("CON", "Windows device name"),
        ("aux", "Windows device name"),
        ("nul.txt", "Windows device name"),
        ("..", "names a folder"),
        ("x\u{202e}y", "U+202E"),
        ("trailing.", "ends with a dot"),
    ] {
        let p = named_table(name);
        let r = p.run(&["build"]);
        r.fails_with(&["GT0217", "Table/A.csv", "cannot name its files", why]);
        assert!(
            !p.path("escaped.json").exists() && !p.path("generated").exists(),
            "{name:?}"
        );
        assert!(
            !r.stderr.contains("GT0003"),
            "{name:?}: no unused-override warning too:\n{}",
            r.stderr
        );
    }
    // A sheet name too (Excel itself allows `aux`).
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet().set_name("aux").unwrap();
    ws.write_string(0, 0, "Id").unwrap();
    ws.write_number(1, 0, 1).unwrap();
    let p = Project::new(
        "",
        &[
            ("schema/aux.schema.json", ID_SCHEMA),
            ("Table/Book.xlsx", &wb.save_to_buffer().unwrap()),
        ],
    );
    p.run(&["check"]).fails_with(&[
        "GT0217",
        "Table/Book.xlsx[aux]",
        "\"aux\" is a Windows device name",
    ]);
}

#[test]
fn a_240_character_table_name_is_a_located_error_and_writes_nothing() {
    // main: an unlocated "File name too long" after creating empty folders.
    let name = "道".repeat(240);
    // The file stem may be at most 255 bytes on Linux, so the long name comes from a selection.
    let p2 = named_table(&name);
    let r = p2.run(&["build"]);
    r.fails_with(&[
        "GT0217",
        "Table/A.csv",
        "bytes long, more than the 255 a file name may have",
    ]);
    assert!(!p2.path("generated").exists());
}

#[test]
fn table_names_that_differ_only_in_case_are_refused() {
    let p = Project::new(
        "",
        &[
            ("schema/Item.schema.json", ID_SCHEMA),
            ("schema/item.schema.json", ID_SCHEMA),
            ("Table/a/Item.csv", b"Id\n1\n"),
            ("Table/b/item.csv", b"Id\n2\n"),
        ],
    );
    p.run(&["check"]).fails_with(&[
        "GT0217",
        "Table/b/item.csv",
        "differs from the table \"Item\" only in case",
    ]);
}

#[test]
fn reserved_names_are_escaped_not_written_raw() {
    // main: a table `lib` wrote src/lib.rs twice (GT0406), `main` made a binary crate without `main`; a field
    // `await` gave C# CS1525; a flags member `None` gave CS0102; `$defs` ReadonlyMap/Date shadowed TS globals;
    // an enum member with U+202E broke the Rust doc comment (rustc's text-direction lint).
    let schema = br##"{"type":"object","x-gentable-primaryKey":"Id",
        "$defs":{"Flag":{"type":"string","enum":["None","Fire"]},
                 "Side":{"type":"string","enum":["Red\u202eeulB","Blue"]},
                 "ReadonlyMap":{"type":"object","properties":{"v":{"type":"integer"}}},
                 "Date":{"type":"object","properties":{"v":{"type":"integer"}}}},
        "properties":{"Id":{"type":"integer"},"await":{"type":"integer"},
          "Flags":{"type":"array","items":{"$ref":"#/$defs/Flag"},"x-gentable-flags":true},
          "Side":{"$ref":"#/$defs/Side"},"M":{"$ref":"#/$defs/ReadonlyMap"},"D":{"$ref":"#/$defs/Date"}},
        "required":["Id"]}"##;
    let p = Project::new(
        "",
        &[
            ("schema/lib.schema.json", ID_SCHEMA),
            ("schema/main.schema.json", ID_SCHEMA),
            ("schema/T.schema.json", schema),
            ("Table/lib.csv", b"Id\n1\n"),
            ("Table/main.csv", b"Id\n1\n"),
            (
                "Table/T.csv",
                "Id,await,Flags,Side,M,D\n1,2,None|Fire,Red\u{202e}eulB,(1),(2)\n".as_bytes(),
            ),
        ],
    );
    p.run(&["build"]).succeeds();
    let read = |rel: &str| std::fs::read_to_string(p.path(&format!("generated/{rel}"))).unwrap();
    let lib = read("rust/code/src/lib.rs");
    assert!(
        lib.contains("pub mod lib_;") && lib.contains("pub mod main_;"),
        "{lib}"
    );
    assert!(
        p.path("generated/rust/code/src/lib_.rs").exists()
            && !p.path("generated/rust/code/src/main.rs").exists()
    );
    let cs = read("csharp/T.cs");
    assert!(
        cs.contains("int? await_") && cs.contains("this.Await = await_;"),
        "{cs}"
    );
    let flag = read("csharp/Flag.cs");
    assert!(
        flag.contains("None = 0,") && flag.contains("None_ = 1U << 0,"),
        "{flag}"
    );
    let ts = read("ts/records.ts");
    assert!(
        ts.contains("export interface ReadonlyMap_ ") && ts.contains("export interface Date_ "),
        "{ts}"
    );
    let enums = read("rust/code/src/enums.rs");
    assert!(
        enums.contains("Red\\u{202e}eulB") && !enums.contains('\u{202e}'),
        "{enums}"
    );
    // Every one of these compiles in its language: tests/reserved (conformance) holds them all.
}

#[test]
fn a_project_name_with_a_newline_cannot_edit_cargo_toml() {
    // main: the name was pasted into `description = "…"`, so a newline started a new line of Cargo.toml.
    let p = Project::new(
        "",
        &[
            ("schema/T.schema.json", ID_SCHEMA),
            ("Table/T.csv", b"Id\n1\n"),
        ],
    );
    p.write(
        "gentable.toml",
        b"[project]\nname = \"Hard\\\"\\n[dependencies]\\nevil = \\\"1\\\"\"\n",
    );
    p.run(&["build"]).succeeds();
    let text = std::fs::read_to_string(p.path("generated/rust/Cargo.toml")).unwrap();
    let cargo: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(
        cargo["package"]["description"].as_str(),
        Some("Hard\"\n[dependencies]\nevil = \"1\" rule tables, generated by gentable")
    );
    // Its only dependency is its own code crate, generated beside it.
    let deps = cargo["dependencies"].as_table().unwrap();
    assert_eq!(deps.len(), 1, "{text}");
    assert_eq!(deps["tables_code"]["path"].as_str(), Some("code"), "{text}");
}

#[test]
fn a_workbook_calamine_panics_on_is_a_diagnostic_without_a_panic_message() {
    // fuzz/regressions/workbook: calamine's reference parser overflows on this file. The panic is caught
    // (GT0101); its message and, with RUST_BACKTRACE=1, a backtrace reached stderr all the same.
    let bad = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/regressions/workbook/calamine-cell-reference-overflow.xlsx"),
    )
    .unwrap();
    let p = Project::new(
        "",
        &[("schema/T.schema.json", ID_SCHEMA), ("Table/T.xlsx", &bad)],
    );
    let r = p.run(&["build"]);
    // The panic's message and where it happened, from calamine's folder on (no machine path).
    r.fails_with(&[
        "GT0101",
        "the file is damaged",
        "overflow, in calamine-",
        "/src/",
    ]);
    assert!(!r.stderr.contains(".cargo/registry"), "{}", r.stderr);
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["build", "-c", "gentable.toml"])
        .current_dir(p.dir.path())
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("GT0101"), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("stack backtrace"),
        "{stderr}"
    );
}

/// A symbolic link at an output's path in `generated/` (a file, or the
/// `data` folder) made every later build fail with a bare "File exists (os error 17)", and a link to a file
/// that held the output's bytes counted as unchanged, so `generated/` kept reading from outside. The output
/// now replaces the link, and nothing outside `generated/` is written.
#[cfg(unix)]
#[test]
fn a_symbolic_link_at_an_output_path_gives_way_to_the_output() {
    let p = Project::new(
        "",
        &[
            ("schema/Item.schema.json", ID_SCHEMA),
            ("schema/Gear.schema.json", ID_SCHEMA),
            ("Table/Item.csv", b"Id\n1\n2\n"),
            ("Table/Gear.csv", b"Id\n7\n"),
        ],
    );
    assert_eq!(p.run(&["build"]).code, Some(0));
    let item = p.path("generated/data/Item.json");
    let gear = p.path("generated/data/Gear.json");
    let (item_bytes, gear_bytes) = (std::fs::read(&item).unwrap(), std::fs::read(&gear).unwrap());
    // Item.json: a link to a copy of its own bytes; Gear.json: a link to another file.
    let outside = tempfile::tempdir().unwrap();
    let same = outside.path().join("same.json");
    let other = outside.path().join("other.json");
    std::fs::write(&same, &item_bytes).unwrap();
    std::fs::write(&other, b"not gentable's").unwrap();
    std::fs::remove_file(&item).unwrap();
    std::fs::remove_file(&gear).unwrap();
    std::os::unix::fs::symlink(&same, &item).unwrap();
    std::os::unix::fs::symlink(&other, &gear).unwrap();
    let r = p.run(&["build"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    for (path, bytes) in [(&item, &item_bytes), (&gear, &gear_bytes)] {
        let m = std::fs::symlink_metadata(path).unwrap();
        assert!(
            m.file_type().is_file(),
            "{} is still a link",
            path.display()
        );
        assert_eq!(&std::fs::read(path).unwrap(), bytes);
    }
    assert_eq!(std::fs::read(&other).unwrap(), b"not gentable's");
    assert_eq!(std::fs::read(&same).unwrap(), item_bytes);
    // The whole data folder a link to a folder outside.
    let data = p.path("generated/data");
    let elsewhere = outside.path().join("data");
    std::fs::rename(&data, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &data).unwrap();
    std::fs::write(elsewhere.join("Item.json"), b"edited outside").unwrap();
    let r = p.run(&["build"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    assert!(std::fs::symlink_metadata(&data).unwrap().is_dir());
    assert_eq!(std::fs::read(&item).unwrap(), item_bytes);
    assert_eq!(
        std::fs::read(elsewhere.join("Item.json")).unwrap(),
        b"edited outside"
    );
    // And the next build finds everything unchanged.
    let r = p.run(&["build"]);
    assert!(r.stderr.contains("(0 written"), "{}{}", r.stdout, r.stderr);
    // With the incremental cache (found by the breaker helper): a link to the output's own bytes, moved
    // outside, is stale for `build --check` and replaced by the next cached build; so is a link to a folder.
    let moved = outside.path().join("moved.json");
    std::fs::rename(&item, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &item).unwrap();
    let r = p.run(&["build", "--check"]);
    assert_ne!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let folder = outside.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::remove_file(&gear).unwrap();
    std::os::unix::fs::symlink(&folder, &gear).unwrap();
    let r = p.run(&["build"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    for (path, bytes) in [(&item, &item_bytes), (&gear, &gear_bytes)] {
        assert!(std::fs::symlink_metadata(path).unwrap().is_file());
        assert_eq!(&std::fs::read(path).unwrap(), bytes);
    }
    assert_eq!(std::fs::read(&moved).unwrap(), item_bytes);
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
}
