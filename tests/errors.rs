//! Every kind of designer mistake yields exactly the diagnostic a designer needs: stable code, file, sheet,
//! 1-based row, A1 column letter and field (docs/conventions.md §2; `gentable explain <code>`).
//!
//! Each test builds a small project in a temporary folder (gentable.toml, a schema, a CSV or an xlsx written
//! with rust_xlsxwriter), runs [`gentable::build::load`] and compares the whole diagnostic list, so an extra
//! or duplicated diagnostic fails too. The last tests run the `gentable` binary for exit codes and for the
//! promise that a failed build leaves `generated/` untouched.

use gentable::diag::{Diagnostic, Severity};
use rust_xlsxwriter::{Formula, Workbook};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The row schema of `Unit` used by most tests.
const UNIT_SCHEMA: &str = r##"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "x-gentable-primaryKey": "Id",
  "$defs": { "Side": { "type": "string", "enum": ["Red", "Blue"] } },
  "properties": {
    "Id": { "type": "integer", "minimum": 1 },
    "Name": { "type": "string", "pattern": "^[A-Z]" },
    "Hp": { "type": "integer", "minimum": 0, "maximum": 255 },
    "Side": { "$ref": "#/$defs/Side" },
    "Speed": { "type": "number", "minimum": 0 },
    "Tags": { "type": "array", "items": { "type": "integer" } },
    "Weapon": { "type": "string", "x-gentable-foreignKey": "Weapon" }
  },
  "required": ["Id", "Name", "Hp", "Side"]
}"##;

const WEAPON_SCHEMA: &str = r#"{
  "type": "object",
  "x-gentable-primaryKey": "Id",
  "properties": { "Id": { "type": "string" } },
  "required": ["Id"]
}"#;

const HEADER: &str = "Id,Name,Hp,Side,Speed,Tags,Weapon";
const ROW1: &str = "1,Archer,10,Red,1.5,1|2,Bow";
const ROW2: &str = "2,Knight,20,Blue,2,,Sword";

/// A throw-away project: `gentable.toml`, `schema/Unit.schema.json`, `schema/Weapon.schema.json`,
/// `Table/Weapon.csv` (Bow, Sword).
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(extra_toml: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let p = Project { dir };
        p.write(
            "gentable.toml",
            format!("[project]\nname = \"Errors\"\n\n{extra_toml}").as_bytes(),
        );
        p.write("schema/Unit.schema.json", UNIT_SCHEMA.as_bytes());
        p.write("schema/Weapon.schema.json", WEAPON_SCHEMA.as_bytes());
        p.write("Table/Weapon.csv", b"Id\nBow\nSword\n");
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
    /// `Table/Unit.csv` from lines.
    fn unit_csv(&self, lines: &[&str]) {
        self.write("Table/Unit.csv", (lines.join("\n") + "\n").as_bytes());
    }
    /// Every diagnostic of a load that must fail.
    fn diags(&self) -> Vec<Diagnostic> {
        let loaded =
            gentable::config::load(&self.path("gentable.toml")).expect("valid gentable.toml");
        match gentable::build::load(&loaded) {
            Ok(_) => panic!("the project was expected to fail"),
            Err(d) => d.items,
        }
    }
}

/// `(code, file, sheet, row, column, field)` of a diagnostic.
type Loc<'a> = (
    &'a str,
    &'a str,
    Option<&'a str>,
    usize,
    Option<&'a str>,
    Option<&'a str>,
);

fn loc(d: &Diagnostic) -> Loc<'_> {
    (
        d.code.as_str(),
        d.file.as_str(),
        d.sheet.as_deref(),
        d.row,
        d.column.as_deref(),
        d.field.as_deref(),
    )
}

/// The diagnostics must be exactly `expected` (in their sorted order), all errors.
fn assert_locs(d: &[Diagnostic], expected: &[Loc]) {
    let got: Vec<Loc> = d.iter().map(loc).collect();
    assert_eq!(
        got,
        expected,
        "diagnostics:\n{}",
        d.iter().map(|d| format!("{d}\n")).collect::<String>()
    );
    assert!(d.iter().all(|d| d.severity == Severity::Error));
}

const CSV: &str = "Table/Unit.csv";

#[test]
fn the_base_project_is_valid() {
    let p = Project::new("");
    p.unit_csv(&[HEADER, ROW1, ROW2]);
    let loaded = gentable::config::load(&p.path("gentable.toml")).unwrap();
    let v = gentable::build::load(&loaded).unwrap_or_else(|d| panic!("{:#?}", d.items));
    assert_eq!(v.project.table("Unit").unwrap().rows.len(), 2);
}

#[test]
fn wrong_type_is_reported_once() {
    let p = Project::new("");
    p.unit_csv(&[HEADER, ROW1, "2,Knight,abc,Blue,2,,Sword"]);
    let d = p.diags();
    // Hp is required: the bad cell must not also be reported as "missing required value".
    assert_locs(&d, &[("GT0201", CSV, None, 3, Some("C"), Some("Hp"))]);
    assert_eq!(d[0].cell_text.as_deref(), Some("abc"));
    assert_eq!(d[0].message, "expected an integer, found \"abc\"");
}

#[test]
fn out_of_range_for_the_integer_width() {
    let p = Project::new("");
    p.unit_csv(&[HEADER, "1,Archer,300,Red,1.5,1|2,Bow"]);
    let d = p.diags();
    assert_locs(&d, &[("GT0202", CSV, None, 2, Some("C"), Some("Hp"))]);
    assert_eq!(d[0].message, "300 does not fit in u8 (0..=255)");
}

#[test]
fn not_in_enum_with_closest_member() {
    let p = Project::new("");
    p.unit_csv(&[HEADER, ROW1, "2,Knight,20,Bleu,2,,Sword"]);
    let d = p.diags();
    assert_locs(&d, &[("GT0203", CSV, None, 3, Some("D"), Some("Side"))]);
    assert_eq!(d[0].cell_text.as_deref(), Some("Bleu"));
    assert!(
        d[0].help
            .as_deref()
            .unwrap()
            .starts_with("did you mean \"Blue\"?"),
        "{:?}",
        d[0].help
    );
}

#[test]
fn missing_required_value() {
    let p = Project::new("");
    p.unit_csv(&[HEADER, ROW1, "2,,20,Blue,2,,Sword"]);
    let d = p.diags();
    assert_locs(&d, &[("GT0204", CSV, None, 3, Some("B"), Some("Name"))]);
    assert_eq!(d[0].cell_text.as_deref(), Some(""));
}

#[test]
fn duplicate_primary_key_names_both_cells() {
    let p = Project::new("");
    p.unit_csv(&[HEADER, ROW1, ROW2, "1,Mage,5,Red,1,,Bow"]);
    let d = p.diags();
    assert_locs(&d, &[("GT0302", CSV, None, 4, Some("A"), Some("Id"))]);
    assert_eq!(
        d[0].message,
        "duplicate primary key \"1\" in Unit: also at Table/Unit.csv:2:A"
    );
}

#[test]
fn unknown_column_with_closest_name_hint() {
    let p = Project::new("");
    p.unit_csv(&["Id,Nmae,Hp,Side", "1,Archer,10,Red"]);
    let d = p.diags();
    // The misspelt header, and the required Name it leaves without a column.
    assert_locs(
        &d,
        &[
            ("GT0212", CSV, None, 1, None, Some("Name")),
            ("GT0211", CSV, None, 1, Some("B"), Some("Nmae")),
        ],
    );
    assert_eq!(
        d[0].help.as_deref(),
        Some("the header \"Nmae\" looks close; rename it to \"Name\"")
    );
    assert!(
        d[1].help
            .as_deref()
            .unwrap()
            .starts_with("did you mean \"Name\"?"),
        "{:?}",
        d[1].help
    );
}

/// A misspelt header close to an `x-gentable-aliases` entry (the sheet's own header text) is offered that
/// alias and its field, for an unknown column (GT0211), for the required field it leaves without a column
/// (GT0212) and for a vertical sheet's name cell; a header close to a field's name still gets the name.
#[test]
fn unknown_column_suggests_a_close_alias() {
    let p = Project::new("[tables.Const]\nlayout = \"vertical\"\n");
    p.write(
        "schema/Unit.schema.json",
        r#"{"type": "object", "x-gentable-primaryKey": "Id",
            "properties": {"Id": {"type": "integer"},
                           "Name": {"type": "string", "x-gentable-aliases": ["名称"]},
                           "Hp": {"type": "integer", "x-gentable-aliases": ["生命值"]}},
            "required": ["Id", "Name", "Hp"]}"#
            .as_bytes(),
    );
    p.write(
        "schema/Const.schema.json",
        r#"{"type": "object", "x-gentable-mode": "one",
            "properties": {"MaxHp": {"type": "integer", "x-gentable-aliases": ["最大生命"]}}}"#
            .as_bytes(),
    );
    p.unit_csv(&["Id,名称,生命量", "1,弓箭手,10"]);
    p.write("Table/Const.csv", "最大生命量,100\n".as_bytes());
    let d = p.diags();
    assert_locs(
        &d,
        &[
            (
                "GT0211",
                "Table/Const.csv",
                None,
                1,
                Some("A"),
                Some("最大生命量"),
            ),
            ("GT0212", CSV, None, 1, None, Some("Hp")),
            ("GT0211", CSV, None, 1, Some("C"), Some("生命量")),
        ],
    );
    assert_eq!(
        d[0].help.as_deref(),
        Some("did you mean \"最大生命\" (an x-gentable-aliases name of \"MaxHp\")?")
    );
    assert_eq!(
        d[1].help.as_deref(),
        Some("the header \"生命量\" looks close; rename it to \"生命值\" (an x-gentable-aliases name of \"Hp\")")
    );
    assert_eq!(
        d[2].help.as_deref(),
        Some("did you mean \"生命值\" (an x-gentable-aliases name of \"Hp\")? To keep a note column, start its header with #")
    );
    // The same in Chinese.
    let zh = |t: &str| gentable::diag::lang::message(t, gentable::diag::lang::Lang::Zh);
    assert_eq!(
        zh(d[2].help.as_deref().unwrap()),
        "是不是想写 \"生命值\"（字段 \"Hp\" 在 x-gentable-aliases 中的别名）？要保留备注列，请让表头以 # 开头"
    );
    // A header close to a field's name is offered the name.
    p.unit_csv(&["Id,名称,hp", "1,弓箭手,10"]);
    p.write("Table/Const.csv", "MaxHP,100\n".as_bytes());
    let d = p.diags();
    let helps: Vec<&str> = d.iter().filter_map(|d| d.help.as_deref()).collect();
    assert_eq!(
        helps,
        [
            "did you mean \"MaxHp\"?",
            "the header \"hp\" looks close; rename it to \"Hp\"",
            "did you mean \"Hp\"? To keep a note column, start its header with #",
        ]
    );
}

/// `gentable explain GT0213` describes both ways two columns name one field: a repeated header, and a
/// field's name beside one of its aliases (in both languages).
#[test]
fn explain_gt0213_describes_the_alias_case() {
    let en = gentable::diag::code::explain("GT0213").unwrap();
    assert!(
        en.contains("the field's name and one of its x-gentable-aliases")
            && en.contains("Id,Name,名称"),
        "{en}"
    );
    let zh = gentable::diag::code::explain_in("GT0213", gentable::diag::lang::Lang::Zh).unwrap();
    assert!(
        zh.contains("字段名和它的一个 x-gentable-aliases 别名") && zh.contains("Id,Name,名称"),
        "{zh}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(["explain", "GT0213"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("x-gentable-aliases"));
}

#[test]
fn bad_cell_grammar() {
    let p = Project::new("");
    p.unit_csv(&[
        HEADER,
        "1,Archer,10,Red,1.5,1||2,Bow",
        "2,Knight,20,Blue,2,[1,Sword",
    ]);
    let d = p.diags();
    // Row 3: "[1" is an unclosed bracket (the CSV has 7 cells, the last one being Sword).
    assert_locs(
        &d,
        &[
            ("GT0205", CSV, None, 2, Some("F"), Some("Tags")),
            ("GT0205", CSV, None, 3, Some("F"), Some("Tags")),
        ],
    );
    assert_eq!(d[0].message, "empty element");
    assert_eq!(d[1].message, "unclosed '['");
}

/// An xlsx named `Units.xlsx` with a sheet `Unit`; `cells(ws)` writes rows 2.. (row 1 is the header). Like a
/// file Excel saved, it does not ask to be recalculated on load, so the formula results it stores count.
fn unit_xlsx(p: &Project, cells: impl FnOnce(&mut rust_xlsxwriter::Worksheet)) {
    unit_xlsx_in(p, rust_xlsxwriter::CalculationMode::Manual, cells)
}

fn unit_xlsx_in(
    p: &Project,
    mode: rust_xlsxwriter::CalculationMode,
    cells: impl FnOnce(&mut rust_xlsxwriter::Worksheet),
) {
    let mut wb = Workbook::new();
    wb.set_calculation_mode(mode);
    let ws = wb.add_worksheet();
    ws.set_name("Unit").unwrap();
    for (c, h) in HEADER.split(',').enumerate() {
        ws.write_string(0, c as u16, h).unwrap();
    }
    cells(ws);
    std::fs::create_dir_all(p.path("Table")).unwrap();
    wb.save(p.path("Table/Units.xlsx")).unwrap();
}

#[test]
fn excel_error_cells() {
    let p = Project::new("");
    unit_xlsx(&p, |ws| {
        ws.write_number(1, 0, 1).unwrap();
        ws.write_string(1, 1, "Archer").unwrap();
        ws.write_formula(1, 2, Formula::new("=1/0").set_result("#DIV/0!"))
            .unwrap();
        ws.write_string(1, 3, "Red").unwrap();
        ws.write_formula(1, 4, Formula::new("=NA()").set_result("#N/A"))
            .unwrap();
    });
    let d = p.diags();
    let xlsx = "Table/Units.xlsx";
    assert_locs(
        &d,
        &[
            ("GT0207", xlsx, Some("Unit"), 2, Some("C"), Some("Hp")),
            ("GT0207", xlsx, Some("Unit"), 2, Some("E"), Some("Speed")),
        ],
    );
    assert_eq!(d[0].cell_text.as_deref(), Some("#DIV/0!"));
    assert_eq!(d[0].message, "the cell holds the Excel error #DIV/0!");
    assert_eq!(d[1].cell_text.as_deref(), Some("#N/A"));
    // rust_xlsxwriter's default asks Excel to recalculate on load (fullCalcOnLoad): the stored results are
    // then placeholders, and each formula is GT0208 naming it (docs/conventions.md §7).
    let p = Project::new("");
    unit_xlsx_in(&p, rust_xlsxwriter::CalculationMode::Automatic, |ws| {
        ws.write_number(1, 0, 1).unwrap();
        ws.write_string(1, 1, "Archer").unwrap();
        ws.write_formula(1, 2, Formula::new("=1/0")).unwrap();
        ws.write_string(1, 3, "Red").unwrap();
    });
    let d = p.diags();
    assert_locs(
        &d,
        &[("GT0208", xlsx, Some("Unit"), 2, Some("C"), Some("Hp"))],
    );
    assert!(d[0].message.contains("=1/0"), "{}", d[0].message);
}

#[test]
fn excel_float_in_an_integer_field() {
    let p = Project::new("");
    unit_xlsx(&p, |ws| {
        ws.write_number(1, 0, 1).unwrap();
        ws.write_string(1, 1, "Archer").unwrap();
        ws.write_number(1, 2, 7.5).unwrap();
        ws.write_string(1, 3, "Red").unwrap();
        // 3.0 is an integral float: accepted as 3.
        ws.write_number(2, 0, 3.0).unwrap();
        ws.write_string(2, 1, "Knight").unwrap();
        ws.write_number(2, 2, 20).unwrap();
        ws.write_string(2, 3, "Blue").unwrap();
    });
    let d = p.diags();
    assert_locs(
        &d,
        &[(
            "GT0206",
            "Table/Units.xlsx",
            Some("Unit"),
            2,
            Some("C"),
            Some("Hp"),
        )],
    );
    assert_eq!(d[0].cell_text.as_deref(), Some("7.5"));
    assert_eq!(d[0].message, "expected an integer, found the fraction 7.5");
}

#[test]
fn invalid_utf8_in_a_csv_cell_is_reported_once() {
    let p = Project::new("");
    // "Arch\xE9r": Latin-1 é, not UTF-8. Name is required: no extra "missing value".
    let csv = format!("{HEADER}\n1,Arch\u{FFFD}r,10,Red,1.5,,Bow\n").replace('\u{FFFD}', "\u{1}");
    let bytes: Vec<u8> = csv.bytes().map(|b| if b == 1 { 0xE9 } else { b }).collect();
    p.write("Table/Unit.csv", &bytes);
    let d = p.diags();
    assert_locs(&d, &[("GT0102", CSV, None, 2, Some("B"), None)]);
    assert_eq!(d[0].message, "the cell is not valid UTF-8 text");
    // The bytes are shown as they are, never as U+FFFD (docs/conventions.md §7).
    assert_eq!(d[0].cell_text.as_deref(), Some("Arch\\xE9r"));
}

/// A table file in UTF-16 without its byte-order mark (Excel's "Unicode Text" re-saved by a tool that dropped
/// it) is one GT0102 at the file naming the encoding and the table's own section, and nothing else: no header
/// or cell errors from reading it as UTF-8, no unused-override warning for its `[tables.Weapon]`, no missing
/// references into it.
#[test]
fn utf16_without_a_bom_is_one_error_at_the_file() {
    let p = Project::new("[tables.Weapon]\ndelimiter = \"\\t\"\n");
    let weapon: Vec<u8> = "Id\r\nBow\r\nSword\r\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    p.write("Table/Weapon.csv", &weapon);
    p.unit_csv(&[HEADER, ROW1, ROW2]);
    let d = p.diags();
    assert_locs(&d, &[("GT0102", "Table/Weapon.csv", None, 0, None, None)]);
    assert_eq!(
        d[0].message,
        "the file is UTF-16LE text without a byte-order mark (every other byte is 0), but it is read as UTF-8"
    );
    assert_eq!(
        d[0].help.as_deref(),
        Some("save the file as UTF-8, or set [tables.Weapon] encoding = \"utf-16le\" in gentable.toml")
    );
    // As the help says: the same bytes with the encoding declared are valid.
    p.write(
        "gentable.toml",
        b"[project]\nname = \"Errors\"\n\n[tables.Weapon]\nencoding = \"utf-16le\"\n",
    );
    let loaded = gentable::config::load(&p.path("gentable.toml")).unwrap();
    let v = gentable::build::load(&loaded).unwrap_or_else(|d| panic!("{:#?}", d.items));
    assert_eq!(v.project.table("Weapon").unwrap().rows.len(), 2);
}

/// A record over dotted columns whose sub-cell is not UTF-8 is reported once, by the reader (it was also
/// reported by typing, with an unfilled `[tables.<name>]` in its help).
#[test]
fn an_undecodable_dotted_cell_is_reported_once() {
    let p = Project::new("");
    p.write(
        "schema/Unit.schema.json",
        br#"{"type":"object","x-gentable-primaryKey":"Id","properties":{"Id":{"type":"integer"},
            "Pos":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"}},"required":["x","y"]}},
            "required":["Id","Pos"]}"#,
    );
    p.write("Table/Unit.csv", b"Id,Pos.x,Pos.y\n1,a\xffb,2\n");
    let d = p.diags();
    assert_locs(&d, &[("GT0102", CSV, None, 2, Some("B"), None)]);
    assert_eq!(
        d[0].help.as_deref(),
        Some(
            "save the file as UTF-8, or set [tables.Unit] encoding in gentable.toml (e.g. \"gbk\")"
        )
    );
}

/// Helps that tell the designer to configure the table name its own section, never `[tables.<Name>]`: a
/// header_marker no row has (GT0214, which had no Chinese either) and a CSV file over `[limits] sheet_cells`
/// (GT0104).
#[test]
fn helps_name_the_table_they_tell_to_configure() {
    let p = Project::new("[tables.Unit]\nheader_marker = \"##var\"\n");
    p.unit_csv(&[HEADER, ROW1]);
    let d = p.diags();
    assert_locs(&d, &[("GT0214", CSV, None, 0, None, None)]);
    let help = d[0].help.as_deref().unwrap();
    assert_eq!(
        help,
        "mark the field-name row, or correct [tables.Unit] header_marker / marker_column"
    );
    assert_eq!(
        gentable::diag::lang::message(help, gentable::diag::lang::Lang::Zh),
        "标出字段名所在的行，或改正 [tables.Unit] 的 header_marker / marker_column"
    );
    let p = Project::new("[limits]\nsheet_cells = 10\n");
    p.unit_csv(&[HEADER, ROW1, ROW2]);
    let d = p.diags();
    assert_locs(&d, &[("GT0104", CSV, None, 2, None, None)]);
    assert_eq!(
        d[0].help.as_deref(),
        Some("split the table into several files ([tables.Unit] files), or raise [limits] sheet_cells")
    );
}

#[test]
fn missing_required_column() {
    let p = Project::new("");
    p.unit_csv(&["Id,Name,Hp", "1,Archer,10"]);
    let d = p.diags();
    assert_locs(&d, &[("GT0212", CSV, None, 1, None, Some("Side"))]);
    assert_eq!(
        d[0].message,
        "required column \"Side\" is missing from the header row"
    );
}

#[test]
fn duplicate_column() {
    let p = Project::new("");
    p.unit_csv(&["Id,Name,Hp,Hp,Side", "1,Archer,10,11,Red"]);
    let d = p.diags();
    assert_locs(&d, &[("GT0213", CSV, None, 1, Some("D"), Some("Hp"))]);
    assert_eq!(
        d[0].message,
        "column \"Hp\" appears twice (also in column C)"
    );
}

#[test]
fn foreign_key_to_a_missing_key() {
    let p = Project::new("");
    p.unit_csv(&[HEADER, ROW1, "2,Knight,20,Blue,2,,Swrod"]);
    let d = p.diags();
    assert_locs(&d, &[("GT0304", CSV, None, 3, Some("G"), Some("Weapon"))]);
    assert_eq!(d[0].message, "\"Swrod\" is not a key of Weapon");
    assert_eq!(d[0].help.as_deref(), Some("did you mean \"Sword\"?"));
}

#[test]
fn json_schema_keywords() {
    let p = Project::new("");
    p.unit_csv(&[
        HEADER,
        "1,archer,10,Red,1.5,,Bow",
        "2,Knight,20,Blue,-2,,Sword",
    ]);
    let d = p.diags();
    assert_locs(
        &d,
        &[
            ("GT0301", CSV, None, 2, Some("B"), Some("Name")),
            ("GT0301", CSV, None, 3, Some("E"), Some("Speed")),
        ],
    );
    assert!(
        d[0].message.ends_with("(schema keyword pattern)"),
        "{}",
        d[0].message
    );
    assert_eq!(d[0].cell_text.as_deref(), Some("archer"));
    assert!(
        d[1].message.ends_with("(schema keyword minimum)"),
        "{}",
        d[1].message
    );
    // The cell as typed, not the validated number's JSON form (-2.0).
    assert_eq!(d[1].cell_text.as_deref(), Some("-2"));
}

/// GT0301's `cell_text` is the cell's text as read (as typed in a CSV file, as Excel shows a workbook cell),
/// never the validated value's JSON form (`1e+16`, `[1,2,3]`, `-2.0`, `1500.0`): in `--message-format json`,
/// from `build::load` and from `build::inspect` (the report's diagnostics).
#[test]
fn schema_keyword_findings_show_the_cell_text_as_read() {
    let p = Project::new("");
    p.write(
        "schema/Unit.schema.json",
        UNIT_SCHEMA
            .replace(
                r#""Speed": { "type": "number", "minimum": 0 }"#,
                r#""Speed": { "type": "number", "minimum": 0, "maximum": 100 }"#,
            )
            .replace(
                r#""items": { "type": "integer" } }"#,
                r#""items": { "type": "integer" }, "maxItems": 2 }"#,
            )
            .as_bytes(),
    );
    p.unit_csv(&[
        HEADER,
        "1,Archer,10,Red,10000000000000000,1|2|3,Bow",
        "2,Knight,20,Blue,-2,,Sword",
        "3,Mage,30,Red,1.50e3,,Bow",
    ]);
    let want = [
        (2, "E", "10000000000000000"),
        (2, "F", "1|2|3"),
        (3, "E", "-2"),
        (4, "E", "1.50e3"),
    ];
    let texts = |d: &[Diagnostic]| -> Vec<(usize, String, String)> {
        d.iter()
            .map(|d| {
                assert_eq!(d.code.as_str(), "GT0301", "{d}");
                (
                    d.row,
                    d.column.clone().unwrap(),
                    d.cell_text.clone().unwrap(),
                )
            })
            .collect()
    };
    let want_owned: Vec<(usize, String, String)> = want
        .iter()
        .map(|(r, c, t)| (*r, c.to_string(), t.to_string()))
        .collect();
    assert_eq!(texts(&p.diags()), want_owned);
    // The validator's words about the whole cell start with the cell's text too, not its JSON form.
    let messages: Vec<String> = p.diags().iter().map(|d| d.message.clone()).collect();
    assert_eq!(
        messages,
        [
            "10000000000000000 is greater than the maximum of 100 (schema keyword maximum)",
            "1|2|3 has more than 2 items (schema keyword maxItems)",
            "-2 is less than the minimum of 0 (schema keyword minimum)",
            "1.50e3 is greater than the maximum of 100 (schema keyword maximum)",
        ]
    );
    let loaded = gentable::config::load(&p.path("gentable.toml")).unwrap();
    assert_eq!(
        texts(&gentable::build::inspect(&loaded).diagnostics),
        want_owned
    );
    let out = gentable(p.dir.path(), &["check", "-q", "--message-format", "json"]);
    let json: Vec<(usize, String, String)> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["row"].as_u64().unwrap() as usize,
                v["column"].as_str().unwrap().to_string(),
                v["cell_text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(json, want_owned);
    // A workbook: the number as Excel shows it, the text cell as written.
    std::fs::remove_file(p.path(CSV)).unwrap();
    unit_xlsx(&p, |ws| {
        for (c, v) in ["1", "Archer", "10", "Red"].iter().enumerate() {
            ws.write_string(1, c as u16, *v).unwrap();
        }
        ws.write_number(1, 4, 1e16).unwrap();
        ws.write_string(1, 5, "1|2|3").unwrap();
        ws.write_string(1, 6, "Bow").unwrap();
    });
    let d = p.diags();
    assert_eq!(
        texts(&d),
        [
            (2, "E".to_string(), "10000000000000000".to_string()),
            (2, "F".to_string(), "1|2|3".to_string())
        ]
    );
    assert_eq!(d[0].sheet.as_deref(), Some("Unit"));
}

/// Column letters stay the sheet's real columns under the reading overrides (first_column, marker rows).
#[test]
fn overrides_keep_real_row_numbers_and_column_letters() {
    let p = Project::new(
        "[tables.Unit]\nfirst_column = \"B\"\nmarker_column = \"A\"\nheader_marker = \"##var\"\n",
    );
    p.unit_csv(&[
        "##,title row",
        &format!("##var,{HEADER}"),
        "##type,int,string,int,Side,float,int[],string",
        ",1,Archer,10,Red,1.5,,Bow",
        "##,a comment row between data rows",
        ",2,Knight,twenty,Blue,2,,Sword",
    ]);
    let d = p.diags();
    assert_locs(&d, &[("GT0201", CSV, None, 6, Some("D"), Some("Hp"))]);
}

/// A header merged across two columns names both: fine for an array field, a duplicate for a scalar.
#[test]
fn merged_header_spans_columns() {
    let p = Project::new("");
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    ws.set_name("Unit").unwrap();
    for (c, h) in ["Id", "Name", "Hp", "Side", "Tags"].iter().enumerate() {
        ws.write_string(0, c as u16, *h).unwrap();
    }
    ws.merge_range(0, 4, 0, 5, "Tags", &rust_xlsxwriter::Format::new())
        .unwrap(); // E1:F1
    for (r, row) in [[1.0, 10.0, 1.0, 2.0], [2.0, 20.0, 3.0, 4.0]]
        .iter()
        .enumerate()
    {
        let r = r as u32 + 1;
        ws.write_number(r, 0, row[0]).unwrap();
        ws.write_string(r, 1, "Archer").unwrap();
        ws.write_number(r, 2, row[1]).unwrap();
        ws.write_string(r, 3, "Red").unwrap();
        ws.write_number(r, 4, row[2]).unwrap();
        ws.write_number(r, 5, row[3]).unwrap();
    }
    std::fs::create_dir_all(p.path("Table")).unwrap();
    wb.save(p.path("Table/Units.xlsx")).unwrap();
    let loaded = gentable::config::load(&p.path("gentable.toml")).unwrap();
    let v = gentable::build::load(&loaded).unwrap_or_else(|d| panic!("{:#?}", d.items));
    let t = v.project.table("Unit").unwrap();
    let tags = t.field_index("Tags").unwrap();
    use gentable::ir::Value::{Array, Int};
    assert_eq!(t.rows[0].values[tags], Array(vec![Int(1), Int(2)]));
    assert_eq!(t.rows[1].values[tags], Array(vec![Int(3), Int(4)]));

    // The same merge over a scalar field is a duplicate column.
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    ws.set_name("Unit").unwrap();
    for (c, h) in ["Id", "Name", "Side"].iter().enumerate() {
        ws.write_string(0, c as u16, *h).unwrap();
    }
    ws.merge_range(0, 3, 0, 4, "Hp", &rust_xlsxwriter::Format::new())
        .unwrap(); // D1:E1
    ws.write_number(1, 0, 1).unwrap();
    wb.save(p.path("Table/Units.xlsx")).unwrap();
    let d = p.diags();
    assert_locs(
        &d,
        &[(
            "GT0213",
            "Table/Units.xlsx",
            Some("Unit"),
            1,
            Some("E"),
            Some("Hp"),
        )],
    );
}

/// Two tables selecting the same file is a layout (configuration) error naming both.
#[test]
fn a_source_selected_by_two_tables() {
    let p = Project::new("[tables.Unit]\nfiles = [\"Unit*.csv\"]\n\n[tables.Hero]\nfiles = [\"Units.csv\"]\nschema = \"Unit\"\n");
    p.write("Table/Units.csv", format!("{HEADER}\n{ROW1}\n").as_bytes());
    // The file then belongs to neither table, but the two sections are not also told that no file provides
    // their table (GT0003, as they were): the one error names them both.
    let d = p.diags();
    assert_locs(&d, &[("GT0002", "Table/Units.csv", None, 0, None, None)]);
    assert_eq!(
        d[0].message,
        "the file is selected by the files/sheets of several tables: [tables.Hero], [tables.Unit]"
    );
}

#[test]
fn bad_overrides_are_configuration_errors() {
    for (toml, needle) in [
        (
            "[tables.Unit]\nheader_row = 2\nheader_marker = \"##\"\n",
            "header_row and header_marker exclude each other",
        ),
        ("[tables.Unit]\nfiles = [\"[\"]\n", "files: bad glob"),
        (
            "[tables.Unit]\narray_separator = \"||\"\n",
            "array_separator must be one character",
        ),
        (
            "[tables.Unit]\nmarker_column = \"1\"\n",
            "marker_column must be letters",
        ),
        ("[tables.Unit]\ncolumn_marker_row = 0\n", "rows are 1-based"),
        ("[tables.Unit]\nsheet = [\"A\"]\n", "unknown field `sheet`"),
    ] {
        let p = Project::new(toml);
        let e = gentable::config::load(&p.path("gentable.toml"))
            .err()
            .unwrap_or_else(|| panic!("{toml} must be rejected"));
        assert!(format!("{e:#}").contains(needle), "{toml}: {e:#}");
    }
}

// ---- the binary ----

/// Every file under `dir` (skipping build folders) with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push((
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    let mut out = vec![];
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let name = e.file_name();
        if ["target", "node_modules", "bin", "obj"].contains(&name.to_string_lossy().as_ref()) {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// A temp copy of the FunnyPitch project (gentable.toml, Table/, schema/, generated/).
fn funnypitch_copy() -> tempfile::TempDir {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root.join("gentable.toml"), dir.path().join("gentable.toml")).unwrap();
    for sub in ["Table", "schema", "generated"] {
        copy_tree(&root.join(sub), &dir.path().join(sub));
    }
    dir
}

fn gentable(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gentable"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn build_with_one_bad_cell_exits_1_and_leaves_generated_unchanged() {
    let dir = funnypitch_copy();
    let before = snapshot(&dir.path().join("generated"));
    assert!(!before.is_empty());
    // Soldier's Tier (column C) becomes text.
    let csv_path = dir.path().join("Table/PieceType.csv");
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let line = csv
        .lines()
        .position(|l| l.starts_with("Soldier,Piece_Soldier,0,"))
        .expect("Soldier row")
        + 1;
    std::fs::write(
        &csv_path,
        csv.replacen("Soldier,Piece_Soldier,0,", "Soldier,Piece_Soldier,high,", 1),
    )
    .unwrap();

    let out = gentable(dir.path(), &["build", "--message-format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr:\n{stderr}");
    // Without -q the log ends with the summary, in every format (README: "-q drops the summary line").
    assert_eq!(
        stderr.lines().last(),
        Some("gentable: 1 error, 0 warnings; generated/ left unchanged"),
        "{stderr}"
    );
    let diags: Vec<serde_json::Value> = stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(diags.len(), 1, "{stderr}");
    let d = &diags[0];
    assert_eq!(
        (
            &d["code"],
            &d["file"],
            &d["row"],
            &d["column"],
            &d["field"],
            &d["cell_text"]
        ),
        (
            &"GT0201".into(),
            &"Table/PieceType.csv".into(),
            &line.into(),
            &"C".into(),
            &"Tier".into(),
            &"high".into()
        )
    );
    assert!(
        snapshot(&dir.path().join("generated")) == before,
        "generated/ changed after a failed build"
    );
    // No temporary files were left behind either (the snapshot covers generated/ only).
    assert!(!snapshot(dir.path())
        .iter()
        .any(|(p, _)| p.to_string_lossy().contains("gentable-tmp")));
}

/// The diagnostics of `gentable check --message-format json` in `dir`: (code, file, row).
fn check_json(dir: &Path) -> Vec<(String, String, u64)> {
    let out = gentable(dir, &["check", "-q", "--message-format", "json"]);
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (
                v["code"].as_str().unwrap().to_string(),
                v["file"].as_str().unwrap().to_string(),
                v["row"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// One broken workbook in FunnyPitch (MoveRules.xlsx: the MoveRule and MoveRuleLib sheets) reports exactly
/// its own error, once, at the file: MovePiece's view, whose moves are keys of MoveRule, no longer adds a
/// GT0407 ("must be a list of records or of keys of another table"), nor does an override of MoveRule add
/// GT0003 ("names a table that no file provides"); the references into MoveRule stay unchecked.
#[test]
fn one_broken_workbook_reports_exactly_its_error() {
    let dir = funnypitch_copy();
    std::fs::write(dir.path().join("Table/MoveRules.xlsx"), "not a workbook").unwrap();
    let toml = std::fs::read_to_string(dir.path().join("gentable.toml")).unwrap();
    std::fs::write(
        dir.path().join("gentable.toml"),
        format!("{toml}\n[tables.MoveRule]\norder = \"source\"\n"),
    )
    .unwrap();
    assert_eq!(
        check_json(dir.path()),
        [("GT0101".to_string(), "Table/MoveRules.xlsx".to_string(), 0)]
    );
}

/// A schema that does not build reports exactly its own error: the views that go through its table (a
/// foreign key to PieceType in InitPosition's and MovePiece's labels; `tables.Const.BoardWidth` for
/// InitPosition's size) no longer add GT0407 ("which has no rows here", "there is no table Const").
#[test]
fn one_broken_schema_reports_exactly_its_error() {
    for table in ["PieceType", "Const"] {
        let dir = funnypitch_copy();
        let path = dir.path().join(format!("schema/{table}.schema.json"));
        let mut schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        schema["type"] = "array".into();
        std::fs::write(&path, schema.to_string()).unwrap();
        assert_eq!(
            check_json(dir.path()),
            [(
                "GT0403".to_string(),
                format!("schema/{table}.schema.json"),
                0
            )],
            "{table}"
        );
    }
}

#[test]
fn configuration_errors_exit_2() {
    let dir = funnypitch_copy();
    let before = snapshot(&dir.path().join("generated"));
    let toml = std::fs::read_to_string(dir.path().join("gentable.toml")).unwrap();
    // An override the config rejects (two-character delimiter).
    std::fs::write(
        dir.path().join("gentable.toml"),
        format!("{toml}\n[tables.Lang]\ndelimiter = \";;\"\n"),
    )
    .unwrap();
    let out = gentable(dir.path(), &["build"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(
        stderr.contains("[tables.Lang] delimiter must be one ASCII character"),
        "{stderr}"
    );
    // A table folder that does not exist (a GT0002 layout error found by the pipeline).
    std::fs::write(
        dir.path().join("gentable.toml"),
        toml.replace("tables = [\"Table\"]", "tables = [\"Tabel\"]"),
    )
    .unwrap();
    let out = gentable(dir.path(), &["build"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr:\n{stderr}");
    assert!(stderr.contains("GT0002"), "{stderr}");
    // A missing project file.
    let out = gentable(dir.path(), &["check", "-c", "nope.toml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        snapshot(&dir.path().join("generated")) == before,
        "generated/ changed after a configuration error"
    );
}

#[test]
fn a_json_number_beyond_a_double_is_out_of_range_not_a_syntax_error() {
    // serde_json refuses 1e400 (it would be infinity); the designer is told the number is too large, in
    // a JSON-value field and in a JSON literal of an integer array, never "expected a JSON value".
    let p = Project::new("");
    let schema = UNIT_SCHEMA.replace(
        r#""Weapon": { "type": "string", "x-gentable-foreignKey": "Weapon" }"#,
        r#""Weapon": { "type": "string", "x-gentable-foreignKey": "Weapon" }, "Extra": {}"#,
    );
    assert_ne!(schema, UNIT_SCHEMA);
    p.write("schema/Unit.schema.json", schema.as_bytes());
    p.unit_csv(&[
        "Id,Name,Hp,Side,Speed,Tags,Weapon,Extra",
        "1,Archer,10,Red,1.5,1|2,Bow,1e400",
        "2,Knight,20,Blue,2,[1e400],Sword,[1]",
    ]);
    let d = p.diags();
    assert_locs(
        &d,
        &[
            ("GT0202", CSV, None, 2, Some("H"), Some("Extra")),
            ("GT0202", CSV, None, 3, Some("F"), Some("Tags")),
        ],
    );
    assert_eq!(
        d[0].message,
        "a number in \"1e400\" is out of range: JSON numbers are 64-bit doubles, at most ±1.7976931348623157e308"
    );
    assert_eq!(
        d[1].message,
        "a number in \"[1e400]\" is out of range: JSON numbers are 64-bit doubles, at most ±1.7976931348623157e308"
    );
}

#[test]
fn a_json_number_a_double_cannot_hold_exactly_is_an_error_not_rounded() {
    // 1e-400 would ship as 0 and a 30-digit integer rounded, in a JSON-value field or a JSON literal: each is
    // GT0202 naming the number and what would ship, as a number cell's inexact digits are.
    let p = Project::new("");
    let schema = UNIT_SCHEMA.replace(
        r#""Weapon": { "type": "string", "x-gentable-foreignKey": "Weapon" }"#,
        r#""Weapon": { "type": "string", "x-gentable-foreignKey": "Weapon" }, "Extra": {}"#,
    );
    p.write("schema/Unit.schema.json", schema.as_bytes());
    p.unit_csv(&[
        "Id,Name,Hp,Side,Speed,Tags,Weapon,Extra",
        "1,Archer,10,Red,1.5,1|2,Bow,1e-400",
        r#"2,Knight,20,Blue,2,[1e-400],Sword,"{""a"":[1,123456789012345678901234567890]}""#,
        r#"3,Mage,30,Red,2,[1],Bow,"{""a"":0.25,""b"":""1e-400""}""#,
    ]);
    let d = p.diags();
    assert_locs(
        &d,
        &[
            ("GT0202", CSV, None, 2, Some("H"), Some("Extra")),
            ("GT0202", CSV, None, 3, Some("F"), Some("Tags")),
            ("GT0202", CSV, None, 3, Some("H"), Some("Extra")),
        ],
    );
    assert_eq!(
        d[0].message,
        "the number 1e-400 in \"1e-400\" has no exact 64-bit float: it would ship as 0"
    );
    assert_eq!(
        d[1].message,
        "the number 1e-400 in \"[1e-400]\" has no exact 64-bit float: it would ship as 0"
    );
    assert_eq!(
        d[2].message,
        "the whole number 123456789012345678901234567890 in \"{\\\"a\\\":[1,123456789012345678901234567890]}\" is beyond 64-bit integers and has no exact 64-bit float: it would ship as 1.2345678901234568e+29"
    );
    assert!(d[0]
        .help
        .as_deref()
        .unwrap()
        .starts_with("write at most 15 significant digits"));
    assert_eq!(
        d[1].help.as_deref(),
        Some("write at most 15 significant digits (what Excel keeps), or make the field a string")
    );
}

#[test]
fn a_number_cell_beyond_a_double_says_out_of_range_whatever_its_sign() {
    // "-1e400 is too large" read oddly for a negative number; both signs are out of range.
    let p = Project::new("");
    p.unit_csv(&[
        HEADER,
        "1,Archer,10,Red,1e400,1|2,Bow",
        "2,Knight,20,Blue,-1e400,,Sword",
    ]);
    let d = p.diags();
    assert_locs(
        &d,
        &[
            ("GT0202", CSV, None, 2, Some("E"), Some("Speed")),
            ("GT0202", CSV, None, 3, Some("E"), Some("Speed")),
        ],
    );
    assert_eq!(
        d[0].message,
        "1e400 is out of range for a 64-bit float (at most ±1.7976931348623157e308)"
    );
    assert_eq!(
        d[1].message,
        "-1e400 is out of range for a 64-bit float (at most ±1.7976931348623157e308)"
    );
}
