//! Seeded, deterministic synthetic table sets for the benchmarks (issue 7).
//!
//! Every set is a complete gentable project under `target/bench-data/<set>/` (never committed):
//! `gentable.toml`, `schema/*.schema.json`, `Table/*.csv|xlsx`, plus `bench.json`, which tells the Python
//! baseline (`benches/baseline.py`) where each table's header and data are. The column mix is the one teams
//! keep: an integer primary key, CJK names and descriptions (with commas and quotes that need CSV quoting),
//! a string enum from a shared `$defs`, bounded integers, floats, a `1|2|3` integer array, a foreign key into
//! another table, a boolean and a patterned string.
//!
//! Sets:
//! * `luban-shape`: 500 workbooks × 1,000 rows in Luban's layout (`##var` header row marked in column A,
//!   `##type` and `##` comment rows, data from column B);
//! * `csv-1m`: one 1,000,000-row CSV (+ a 100-row `Shop.csv` its foreign key points at);
//! * `xlsx-200k`: one 200,000-row workbook (+ `Shop.csv`);
//! * `mixed-100`: 100 tables × 10,000 rows, even ones CSV, odd ones xlsx, each referencing the previous one;
//! * `load-10`, `load-100`, `load-500` (the load benchmark, `loadbench`): that many CSV tables × 1,000 rows,
//!   each referencing the previous one.
//!
//! The same seed gives byte-identical CSV files and the same cell values in workbooks. [`edit_one_cell`]
//! rewrites one table with one changed cell (the benchmark's "edit one cell" step) and [`restore`] puts it back.

use rayon::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// All set names of the build benchmark, in benchmark order.
pub const SETS: &[&str] = &["luban-shape", "csv-1m", "xlsx-200k", "mixed-100"];

/// The sets of the load benchmark (`loadbench`): 10, 100 and 500 CSV tables × 1,000 rows.
pub const LOAD_SETS: &[&str] = &["load-10", "load-100", "load-500"];

/// Bumped whenever the generated data changes shape (a stale set is regenerated).
const GENERATOR_VERSION: &str = "datagen-7";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    Csv,
    /// Plain layout: header in row 1.
    Xlsx,
    /// Luban layout: `##var`/`##type`/`##` rows, data from column B.
    LubanXlsx,
}

/// One table of a set.
#[derive(Clone, Debug)]
pub struct TableSpec {
    pub name: String,
    pub format: Format,
    pub rows: usize,
    /// Table the `ref` column references (its `id`s are `1..=rows` of that table).
    pub fk: Option<(String, usize)>,
    pub seed: u64,
    /// Text with full-width punctuation (`，。「」、`), as Chinese designers write it (the compile and load sets).
    pub fullwidth: bool,
    /// With `fullwidth`: one description in eight is a long paragraph of 3–6 such sentences (a skill's or a
    /// quest's text; the load sets).
    pub long_texts: bool,
    /// With `fullwidth`: ASCII mixed into the Chinese as designers write it: numbers with units and
    /// percentages (`造成120点伤害`, `+15%`), English terms (`HP`, `Buff`, `NPC`) and `{0}` placeholders (the
    /// build sets of issue 18).
    pub mixed_ascii: bool,
}

impl TableSpec {
    pub fn file_name(&self) -> String {
        match self.format {
            Format::Csv => format!("{}.csv", self.name),
            _ => format!("{}.xlsx", self.name),
        }
    }
}

/// The tables of `set`.
pub fn tables(set: &str) -> Vec<TableSpec> {
    let shop = || TableSpec {
        name: "Shop".into(),
        format: Format::Csv,
        rows: 100,
        fk: None,
        seed: 7,
        fullwidth: true,
        long_texts: true,
        mixed_ascii: true,
    };
    match set {
        "luban-shape" => (0..500)
            .map(|i| TableSpec {
                name: format!("Item{i:03}"),
                format: Format::LubanXlsx,
                rows: 1000,
                fk: (i > 0).then(|| (format!("Item{:03}", i - 1), 1000)),
                seed: 1000 + i as u64,
                fullwidth: true,
                long_texts: true,
                mixed_ascii: true,
            })
            .collect(),
        "csv-1m" => vec![
            TableSpec {
                name: "Big".into(),
                format: Format::Csv,
                rows: 1_000_000,
                fk: Some(("Shop".into(), 100)),
                seed: 11,
                fullwidth: true,
                long_texts: true,
                mixed_ascii: true,
            },
            shop(),
        ],
        "xlsx-200k" => vec![
            TableSpec {
                name: "Drop".into(),
                format: Format::Xlsx,
                rows: 200_000,
                fk: Some(("Shop".into(), 100)),
                seed: 12,
                fullwidth: true,
                long_texts: true,
                mixed_ascii: true,
            },
            shop(),
        ],
        "mixed-100" => (0..100)
            .map(|i| TableSpec {
                name: format!("Mixed{i:03}"),
                format: if i % 2 == 0 {
                    Format::Csv
                } else {
                    Format::Xlsx
                },
                rows: 10_000,
                fk: (i > 0).then(|| (format!("Mixed{:03}", i - 1), 10_000)),
                seed: 2000 + i as u64,
                fullwidth: true,
                long_texts: true,
                mixed_ascii: true,
            })
            .collect(),
        load if load.starts_with("load-") => {
            let n: usize = load["load-".len()..]
                .parse()
                .unwrap_or_else(|_| panic!("unknown set {set:?}; sets: {SETS:?}, {LOAD_SETS:?}"));
            (0..n)
                .map(|i| TableSpec {
                    name: format!("Item{i:03}"),
                    format: Format::Csv,
                    rows: 1000,
                    fk: (i > 0).then(|| (format!("Item{:03}", i - 1), 1000)),
                    seed: 3000 + i as u64,
                    fullwidth: true,
                    long_texts: true,
                    mixed_ascii: false,
                })
                .collect()
        }
        _ => match compile_set(set) {
            Some(n) => (0..n)
                .map(|i| TableSpec {
                    name: format!("Crate{i:03}"),
                    format: Format::Csv,
                    rows: COMPILE_ROWS,
                    fk: (i > 0).then(|| (format!("Crate{:03}", i - 1), COMPILE_ROWS)),
                    seed: 3000 + i as u64,
                    fullwidth: true,
                    long_texts: false,
                    mixed_ascii: false,
                })
                .collect(),
            None => panic!(
                "unknown set {set:?}; sets: {SETS:?}, {LOAD_SETS:?} and rust-<N> (the compile benchmark)"
            ),
        },
    }
}

/// Rows per table of the compile benchmark's sets (`rust-<N>`: N tables × this many rows).
pub const COMPILE_ROWS: usize = 1000;

/// `rust-<N>` (the compile benchmark, `src/compile.rs`): N CSV tables of [`COMPILE_ROWS`] rows with Chinese
/// text and full-width punctuation, each referencing the previous one.
pub fn compile_set(set: &str) -> Option<usize> {
    set.strip_prefix("rust-")?.parse().ok().filter(|n| *n > 0)
}

/// The table whose one cell [`edit_one_cell`] changes.
pub fn edit_target(set: &str) -> String {
    match set {
        "luban-shape" => "Item250".into(),
        "csv-1m" => "Big".into(),
        "xlsx-200k" => "Drop".into(),
        "mixed-100" => "Mixed051".into(),
        _ => match compile_set(set) {
            Some(n) => format!("Crate{:03}", n / 2),
            None => panic!("unknown set {set:?}"),
        },
    }
}

/// Where the sets live: `$GENTABLE_BENCH_DATA` if set (e.g. a tmpfs such as `/dev/shm/bench-data`, to take
/// the file system's file creation out of the figures), else `target/bench-data` of this checkout.
pub fn data_root() -> PathBuf {
    match std::env::var_os("GENTABLE_BENCH_DATA") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-data"),
    }
}

/// SplitMix64: small, seeded, deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const CJK: &str = "的一是了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切尔";

const WORDS: &[&str] = &[
    "sword", "shield", "potion", "arrow", "gem", "ring", "scroll", "boots", "helm", "cloak",
];

/// English terms designers leave in Chinese text.
const TERMS: &[&str] = &[
    "HP", "MP", "Buff", "Debuff", "NPC", "Boss", "CD", "PVP", "DPS", "VIP",
];

/// One ASCII run inside a Chinese clause: a number with a unit (`造成120点`), a percentage (`+15%`), an English
/// term (`Boss`) or a format placeholder (`{0}`).
fn mixed_ascii(rng: &mut Rng, out: &mut String) {
    match rng.below(4) {
        0 => {
            let _ = write!(out, "{}", 1 + rng.below(999));
            out.push('点');
        }
        1 => {
            let _ = write!(out, "+{}%", 1 + rng.below(60));
        }
        2 => out.push_str(TERMS[rng.below(TERMS.len() as u64) as usize]),
        _ => {
            let _ = write!(out, "{{{}}}", rng.below(3));
        }
    }
}

const QUALITY: &[&str] = &["White", "Green", "Blue", "Purple", "Orange"];

fn cjk(rng: &mut Rng, n: usize, out: &mut String) {
    // Every character of CJK is 3 bytes in UTF-8.
    let bytes = CJK.as_bytes();
    let count = bytes.len() / 3;
    for _ in 0..n {
        let i = rng.below(count as u64) as usize * 3;
        out.push_str(&CJK[i..i + 3]);
    }
}

/// One generated row, as the values a designer typed.
pub struct Row {
    pub id: i64,
    pub name: String,
    pub desc: String,
    pub quality: &'static str,
    pub level: i64,
    pub price: i64,
    pub weight: f64,
    pub tags: String,
    pub r#ref: Option<i64>,
    pub flag: bool,
    pub icon: String,
}

/// Row `i` (0-based) of `t`: a function of the table's seed and `i` only, so rows can be made in any order.
pub fn row(t: &TableSpec, i: usize) -> Row {
    let mut rng = Rng::new(t.seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
    let mut name = String::new();
    let n = 2 + rng.below(3) as usize;
    cjk(&mut rng, n, &mut name);
    let _ = write!(name, "_{}", i + 1);
    let mut desc = String::new();
    if t.fullwidth {
        // A designer's sentence: clauses joined by ，or 、, a 「quoted」 name, a closing 。, sometimes a
        // "quoted" word (which needs CSV quoting) and a second sentence.
        let clauses = 2 + rng.below(4);
        for c in 0..clauses {
            if c > 0 {
                desc.push(if rng.below(3) == 0 { '、' } else { '，' });
            }
            let n = 3 + rng.below(8) as usize;
            cjk(&mut rng, n, &mut desc);
            if t.mixed_ascii && rng.below(3) == 0 {
                mixed_ascii(&mut rng, &mut desc);
                cjk(&mut rng, 2, &mut desc);
            }
            if rng.below(4) == 0 {
                desc.push('「');
                cjk(&mut rng, 2, &mut desc);
                desc.push('」');
            }
        }
        desc.push('。');
        if t.long_texts && rng.below(8) == 0 {
            for _ in 0..3 + rng.below(4) {
                let clauses = 2 + rng.below(4);
                for c in 0..clauses {
                    if c > 0 {
                        desc.push(if rng.below(3) == 0 { '、' } else { '，' });
                    }
                    let n = 3 + rng.below(8) as usize;
                    cjk(&mut rng, n, &mut desc);
                }
                desc.push(if rng.below(6) == 0 { '！' } else { '。' });
            }
        }
        if rng.below(5) == 0 {
            desc.push_str("附加：\"限定\"");
            cjk(&mut rng, 6, &mut desc);
            desc.push('。');
        }
    } else {
        let words = 1 + rng.below(4);
        for w in 0..words {
            if w > 0 {
                desc.push_str(if rng.below(4) == 0 { ", " } else { " " });
            }
            let n = 3 + rng.below(8) as usize;
            cjk(&mut rng, n, &mut desc);
            if rng.below(3) == 0 {
                desc.push(' ');
                desc.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
            }
        }
        if rng.below(20) == 0 {
            desc.push_str(" \"限定\"");
        }
    }
    let quality = QUALITY[rng.below(QUALITY.len() as u64) as usize];
    let level = 1 + rng.below(100) as i64;
    let price = rng.below(1_000_000) as i64;
    let weight = rng.below(100_000) as f64 / 100.0;
    let ntags = rng.below(5);
    let tags: Vec<String> = (0..ntags).map(|_| rng.below(1000).to_string()).collect();
    let r#ref = t.fk.as_ref().map(|(_, n)| 1 + rng.below(*n as u64) as i64);
    Row {
        id: i as i64 + 1,
        name,
        desc,
        quality,
        level,
        price,
        weight,
        tags: tags.join("|"),
        r#ref,
        flag: rng.below(2) == 1,
        icon: format!("icon_{}", rng.below(100_000)),
    }
}

/// Column names in file order.
pub const COLUMNS: &[&str] = &[
    "id", "name", "desc", "quality", "level", "price", "weight", "tags", "ref", "flag", "icon",
];

fn weight_text(w: f64) -> String {
    // Two decimals at most, written the shortest way (what a spreadsheet shows).
    let s = format!("{w:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn csv_field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// The CSV text of `t`, with `edited` applied to one cell.
pub fn csv_text(t: &TableSpec, edited: bool) -> String {
    let mut out = String::with_capacity(t.rows * 110);
    out.push_str(&COLUMNS.join(","));
    out.push('\n');
    for i in 0..t.rows {
        let mut r = row(t, i);
        if edited && i == edit_row(t) {
            r.name.push('改');
        }
        let _ = write!(out, "{},", r.id);
        csv_field(&mut out, &r.name);
        out.push(',');
        csv_field(&mut out, &r.desc);
        let _ = writeln!(
            out,
            ",{},{},{},{},{},{},{},{}",
            r.quality,
            r.level,
            r.price,
            weight_text(r.weight),
            r.tags,
            r.r#ref.map(|x| x.to_string()).unwrap_or_default(),
            r.flag,
            r.icon
        );
    }
    out
}

fn edit_row(t: &TableSpec) -> usize {
    t.rows / 2
}

/// Write the workbook of `t` to `path`.
pub fn write_xlsx(t: &TableSpec, path: &Path, edited: bool) {
    use rust_xlsxwriter::Workbook;
    let mut wb = Workbook::new();
    let ws = wb.add_worksheet();
    ws.set_name(&t.name).expect("sheet name");
    let (c0, first_data) = match t.format {
        Format::LubanXlsx => {
            // Luban: column A marks rows; field names, types and descriptions are rows 1-3.
            let types = [
                "int", "string", "string", "Quality", "int", "int", "float", "list,int", "int",
                "bool", "string",
            ];
            let descs = [
                "编号", "名称", "描述", "品质", "等级", "价格", "重量", "标签", "引用", "开关",
                "图标",
            ];
            ws.write_string(0, 0, "##var").unwrap();
            ws.write_string(1, 0, "##type").unwrap();
            ws.write_string(2, 0, "##").unwrap();
            for (c, ((n, ty), d)) in COLUMNS.iter().zip(types).zip(descs).enumerate() {
                ws.write_string(0, c as u16 + 1, *n).unwrap();
                ws.write_string(1, c as u16 + 1, ty).unwrap();
                ws.write_string(2, c as u16 + 1, d).unwrap();
            }
            (1u16, 3u32)
        }
        _ => {
            for (c, n) in COLUMNS.iter().enumerate() {
                ws.write_string(0, c as u16, *n).unwrap();
            }
            (0u16, 1u32)
        }
    };
    for i in 0..t.rows {
        let mut r = row(t, i);
        if edited && i == edit_row(t) {
            r.name.push('改');
        }
        let y = first_data + i as u32;
        ws.write_number(y, c0, r.id as f64).unwrap();
        ws.write_string(y, c0 + 1, &r.name).unwrap();
        ws.write_string(y, c0 + 2, &r.desc).unwrap();
        ws.write_string(y, c0 + 3, r.quality).unwrap();
        ws.write_number(y, c0 + 4, r.level as f64).unwrap();
        ws.write_number(y, c0 + 5, r.price as f64).unwrap();
        ws.write_number(y, c0 + 6, r.weight).unwrap();
        if !r.tags.is_empty() {
            ws.write_string(y, c0 + 7, &r.tags).unwrap();
        }
        if let Some(x) = r.r#ref {
            ws.write_number(y, c0 + 8, x as f64).unwrap();
        }
        ws.write_boolean(y, c0 + 9, r.flag).unwrap();
        ws.write_string(y, c0 + 10, &r.icon).unwrap();
    }
    wb.save(path).expect("save workbook");
}

fn schema_json(t: &TableSpec) -> serde_json::Value {
    let mut r#ref = serde_json::json!({
        "type": "integer", "minimum": 1,
        "description": "A row of another table."
    });
    if let Some((target, _)) = &t.fk {
        r#ref["x-gentable-foreignKey"] = serde_json::Value::String(target.clone());
    }
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": t.name,
        "description": format!("Synthetic benchmark table {} ({} rows).", t.name, t.rows),
        "type": "object",
        "x-gentable-primaryKey": "id",
        "properties": {
            "id": {"type": "integer", "minimum": 1, "maximum": 100000000, "description": "Row id."},
            "name": {"type": "string", "minLength": 1, "description": "Display name (CJK)."},
            "desc": {"type": "string", "description": "Description."},
            "quality": {"$ref": "common.schema.json#/$defs/Quality"},
            "level": {"type": "integer", "minimum": 1, "maximum": 100},
            "price": {"type": "integer", "minimum": 0, "maximum": 1000000},
            "weight": {"type": "number", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 999}, "maxItems": 8},
            "ref": r#ref,
            "flag": {"type": "boolean"},
            "icon": {"type": "string", "pattern": "^icon_[0-9]+$"}
        },
        "required": ["id", "name", "quality", "level", "price", "weight", "flag", "icon"]
    })
}

const COMMON: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$defs": {
    "Quality": {
      "type": "string",
      "enum": ["White", "Green", "Blue", "Purple", "Orange"],
      "description": "Item quality."
    }
  }
}
"#;

/// Write one table's file (original or edited).
pub fn write_table(dir: &Path, t: &TableSpec, edited: bool) {
    let path = dir.join("Table").join(t.file_name());
    match t.format {
        Format::Csv => std::fs::write(&path, csv_text(t, edited)).expect("write csv"),
        _ => write_xlsx(t, &path, edited),
    }
}

/// Change one cell of the set's [`edit_target`] table (its file is rewritten).
pub fn edit_one_cell(dir: &Path, set: &str) {
    let target = edit_target(set);
    let t = tables(set).into_iter().find(|t| t.name == target).unwrap();
    write_table(dir, &t, true);
}

/// Undo [`edit_one_cell`].
pub fn restore(dir: &Path, set: &str) {
    let target = edit_target(set);
    let t = tables(set).into_iter().find(|t| t.name == target).unwrap();
    write_table(dir, &t, false);
}

/// Generate `set` under `root/<set>` unless it is there already (stamp file); returns its folder.
pub fn generate(root: &Path, set: &str) -> PathBuf {
    let dir = root.join(set);
    let stamp = dir.join(".datagen-stamp");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(GENERATOR_VERSION) {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("Table")).unwrap();
    std::fs::create_dir_all(dir.join("schema")).unwrap();
    let specs = tables(set);
    specs.par_iter().for_each(|t| write_table(&dir, t, false));
    std::fs::write(dir.join("schema/common.schema.json"), COMMON).unwrap();
    for t in &specs {
        let s = serde_json::to_string_pretty(&schema_json(t)).unwrap() + "\n";
        std::fs::write(dir.join(format!("schema/{}.schema.json", t.name)), s).unwrap();
    }
    let mut toml = format!(
        "# Synthetic benchmark set {set} (benches/common/datagen.rs); regenerate, never edit.\n\
         [project]\nname = \"Bench\"\ntables = [\"Table\"]\nschemas = \"schema\"\ngenerated = \"generated\"\n\n\
         [rust]\ncrate_name = \"bench_tables\"\n\n[csharp]\nnamespace = \"Bench.GameConfig\"\n"
    );
    if set.starts_with("load-") {
        // The load benchmark reads both formats (docs/data-format.md); `toml` ends inside [csharp].
        toml.push_str(
            "data = [\"json\", \"binary\"]\n\n[typescript]\ndata = [\"json\", \"binary\"]\n",
        );
    }
    let mut manifest = vec![];
    for t in &specs {
        let luban = t.format == Format::LubanXlsx;
        if luban {
            let _ = write!(
                toml,
                "\n[tables.{}]\nfirst_column = \"B\"\nmarker_column = \"A\"\nheader_marker = \"##var\"\n",
                t.name
            );
        }
        manifest.push(serde_json::json!({
            "name": t.name,
            "file": format!("Table/{}", t.file_name()),
            "format": if t.format == Format::Csv { "csv" } else { "xlsx" },
            "sheet": if t.format == Format::Csv { serde_json::Value::Null } else { serde_json::Value::String(t.name.clone()) },
            "header_row": 1,
            "data_row": if luban { 4 } else { 2 },
            "first_column": if luban { 1 } else { 0 },
            "schema": format!("schema/{}.schema.json", t.name),
        }));
    }
    std::fs::write(dir.join("gentable.toml"), toml).unwrap();
    std::fs::write(
        dir.join("bench.json"),
        serde_json::to_string_pretty(&serde_json::json!({ "set": set, "tables": manifest }))
            .unwrap(),
    )
    .unwrap();
    std::fs::write(&stamp, GENERATOR_VERSION).unwrap();
    dir
}

/// Total size in bytes of the files under `dir/Table`.
pub fn input_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir.join("Table"))
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
