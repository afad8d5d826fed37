//! Issue 16's acceptance test: import Luban's own example project (`../shared/realdata/luban-examples/
//! DataTables/luban.conf`) into a temporary folder, build it, and compare every table Luban exported
//! (`luban-json-output/*.json`) with gentable's canonical data after the documented mapping
//! (docs/migrating-from-luban.md "Comparing with Luban's export"): enum member names → Luban's integer
//! values, flags → the OR of their values, date-times → Unix seconds, maps → Luban's `[[key, value], …]`
//! (compared as sets of pairs: canonical JSON orders keys), everything else as is.
//!
//! It prints the tables that are equal, those that differ (with the first difference) and those left out
//! (with the importer's reason), and fails when the equal set is not the one recorded below (a regression,
//! or an improvement to record in the README and the migration guide).

use serde_json::{json, Value as J};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn luban_dir() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata/luban-examples");
    p.is_dir().then_some(p)
}

/// The tables whose every row and value equal Luban's export (see docs/migrating-from-luban.md).
const EQUAL: &[&str] = &[
    "TbGlobalConfig",
    "TbItem",
    "TbPatchDemo",
    "TbAutoImport1",
    "TbAutoImport2",
    "TbDefineFromExcel2",
    "TbDemoGroup",
    "TbDemoGroup_C",
    "TbDemoGroup_E",
    "TbDemoGroup_S",
    "TbDetectCsvEncoding",
    "TbItem2",
    "TbMultiIndexList",
    "TbMultiUnionIndexList",
    "TbNotIndexList",
    "TbPath",
    "TbTestBeRef",
    "TbTestBeRef2",
    "TbTestFieldVariant2",
    "TbTestGlobal",
    "TbTestIndex",
    "TbTestMap",
    "TbTestMapper",
    "TbTestMultiColumn",
    "TbTestRange",
    "TbTestRef",
    "TbTestSet",
    "TbTestSize",
];

struct Schemas {
    dir: PathBuf,
    defs: J,
}

impl Schemas {
    fn resolve<'a>(&'a self, s: &'a J) -> &'a J {
        match s.get("$ref").and_then(J::as_str) {
            Some(r) => {
                let name = r.rsplit('/').next().unwrap_or_default();
                let name = name.replace("%24", "$");
                &self.defs["$defs"][name.as_str()]
            }
            None => s,
        }
    }
}

/// Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn unix(s: &str) -> Option<i64> {
    // Canonical form: YYYY-MM-DDTHH:MM:SSZ.
    let n = |a: usize, b: usize| s.get(a..b)?.parse::<i64>().ok();
    Some(
        days_from_civil(n(0, 4)?, n(5, 7)?, n(8, 10)?) * 86400
            + n(11, 13)? * 3600
            + n(14, 16)? * 60
            + n(17, 19)?,
    )
}

/// gentable's canonical value `v` of schema `s` in Luban's JSON form.
fn to_luban(sc: &Schemas, s: &J, v: &J) -> J {
    let s = sc.resolve(s);
    if let Some(values) = s.get("x-gentable-enumValues") {
        if let Some(name) = v.as_str() {
            return values[name].clone();
        }
    }
    if s.get("x-gentable-flags") == Some(&json!(true)) {
        let item = sc.resolve(&s["items"]);
        let bits = v
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|m| {
                        item["x-gentable-enumValues"][m.as_str().unwrap_or("")].as_i64()
                    })
                    .fold(0, |x, y| x | y)
            })
            .unwrap_or(0);
        return json!(bits);
    }
    if s.get("format") == Some(&json!("date-time")) {
        return v.as_str().and_then(unix).map(J::from).unwrap_or(v.clone());
    }
    if let Some(branches) = s.get("oneOf").and_then(J::as_array) {
        let tag = v.get("$type").cloned().unwrap_or(J::Null);
        for b in branches {
            if b["properties"]["$type"]["const"] == tag {
                return object(sc, b, v);
            }
        }
        return v.clone();
    }
    match (s.get("type").and_then(J::as_str), v) {
        (Some("array"), J::Array(a)) => {
            J::Array(a.iter().map(|x| to_luban(sc, &s["items"], x)).collect())
        }
        (Some("object"), J::Object(m)) if s.get("additionalProperties").is_some() => {
            let key_int = s.get("x-gentable-mapKey").is_some();
            // Enum keys (`propertyNames`): member names → values, like enum values.
            let key_enum = s.get("propertyNames").map(|p| sc.resolve(p));
            let mut pairs: Vec<J> = m
                .iter()
                .map(|(k, x)| {
                    let k = match key_enum {
                        Some(e) => e["x-gentable-enumValues"]
                            .get(k)
                            .cloned()
                            .unwrap_or(json!(k)),
                        None if key_int => k.parse::<i64>().map(J::from).unwrap_or(json!(k)),
                        None => json!(k),
                    };
                    json!([k, to_luban(sc, &s["additionalProperties"], x)])
                })
                .collect();
            pairs.sort_by_key(|p| p.to_string());
            J::Array(pairs)
        }
        (Some("object"), J::Object(_)) => object(sc, s, v),
        _ => v.clone(),
    }
}

fn object(sc: &Schemas, s: &J, v: &J) -> J {
    let mut out = serde_json::Map::new();
    for (k, ps) in s["properties"].as_object().into_iter().flatten() {
        if let Some(x) = v.get(k) {
            out.insert(k.clone(), to_luban(sc, ps, x));
        }
    }
    J::Object(out)
}

/// Luban's maps as sorted pairs too, recursively (its order is the sheet's; canonical JSON sorts keys).
fn sort_maps(sc: &Schemas, s: &J, v: &J) -> J {
    let s = sc.resolve(s);
    if let Some(branches) = s.get("oneOf").and_then(J::as_array) {
        let tag = v.get("$type").cloned().unwrap_or(J::Null);
        if let Some(b) = branches
            .iter()
            .find(|b| b["properties"]["$type"]["const"] == tag)
        {
            return sort_object(sc, b, v);
        }
    }
    match (s.get("type").and_then(J::as_str), v) {
        (Some("object"), J::Array(pairs)) if s.get("additionalProperties").is_some() => {
            let mut p: Vec<J> = pairs
                .iter()
                .map(|kv| {
                    json!([
                        kv[0].clone(),
                        sort_maps(sc, &s["additionalProperties"], &kv[1])
                    ])
                })
                .collect();
            p.sort_by_key(|p| p.to_string());
            J::Array(p)
        }
        (Some("array"), J::Array(a)) => {
            J::Array(a.iter().map(|x| sort_maps(sc, &s["items"], x)).collect())
        }
        (Some("object"), J::Object(_)) => sort_object(sc, s, v),
        _ => v.clone(),
    }
}

fn sort_object(sc: &Schemas, s: &J, v: &J) -> J {
    let mut out = serde_json::Map::new();
    for (k, x) in v.as_object().into_iter().flatten() {
        let ps = s["properties"].get(k).cloned().unwrap_or(J::Null);
        out.insert(k.clone(), sort_maps(sc, &ps, x));
    }
    J::Object(out)
}

/// Numbers compared as f64 (Luban writes `float` fields with f32 precision: `1.28` is `1.28` either way).
fn first_difference(a: &J, b: &J, path: &str) -> Option<String> {
    match (a, b) {
        (J::Number(x), J::Number(y)) if x.as_f64() == y.as_f64() => None,
        (J::Array(x), J::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} vs {} elements", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| first_difference(p, q, &format!("{path}[{i}]")))
        }
        (J::Object(x), J::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let d = first_difference(
                    x.get(k).unwrap_or(&J::Null),
                    y.get(k).unwrap_or(&J::Null),
                    &format!("{path}.{k}"),
                );
                if d.is_some() {
                    return d;
                }
            }
            None
        }
        _ if a == b => None,
        _ => Some(format!("{path}: gentable {a} vs Luban {b}")),
    }
}

/// The committed `tests/luban` project (compiled by the conformance harness, checked by up_to_date) is what a
/// fresh import makes.
#[test]
fn committed_import_is_up_to_date() {
    let Some(luban) = luban_dir() else {
        eprintln!("warning: ../shared/realdata/luban-examples is missing; skipped");
        return;
    };
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/luban");
    let r = gentable::import::luban::command(
        &luban.join("DataTables/luban.conf"),
        &out,
        true,
        "+08:00",
    );
    assert_eq!(r.exit_code, 0, "tests/luban is not a fresh import (re-run `gentable import luban ../shared/realdata/luban-examples/DataTables/luban.conf --out tests/luban`):\n{}{}", r.stdout, r.stderr);
}

/// Explicit enum values, Luban's member spelling and the sheet's row order, read through the generated Rust.
#[test]
fn generated_rust_keeps_enum_values_names_and_row_order() {
    use datatables_tables::enums::{EMajorType, EMinorType};
    use datatables_tables::tb_item::TbItem;
    assert_eq!(EMinorType::DIAMOND.value(), 101);
    assert_eq!(
        EMinorType::from_value(1102),
        Some(EMinorType::DESIGN_DRAWING)
    );
    assert_eq!(EMinorType::from_value(7), None);
    assert_eq!(EMajorType::CURRENCY.value(), 1);
    // Flags of an enum with explicit values: bit i is member i (A = 1, B = 2 are bits 0 and 1).
    use datatables_tables::enums::{DemoFlag, DemoFlagFlags};
    let ab = DemoFlagFlags::A.union(DemoFlagFlags::B);
    assert!(ab.contains(DemoFlag::A) && ab.contains(DemoFlag::B) && !ab.contains(DemoFlag::C));
    assert_eq!(ab.iter().collect::<Vec<_>>(), [DemoFlag::A, DemoFlag::B]);
    // #AutoImport1.xlsx row 10001 writes x13_2 one column per flag: `1 | TRUE |` is A and B.
    let row = datatables_tables::tb_auto_import1::TbAutoImport1::all()[1];
    assert_eq!(row.x13_2, ab);
    // A column-mode (`##column`) singleton: names in column A, `##type` in B, the value in D.
    let g = datatables_tables::tb_global_config::TbGlobalConfig::get();
    assert_eq!((g.x1, g.x2, g.x6), (1101001101, 150, 4));
    assert_eq!(g.x7, [1, 2, 3, 4]);
    // Keys of an enum with explicit values order by value (FOOD = 403 sorts before SPECIAL_TOOL = 424).
    assert!(EMinorType::FOOD < EMinorType::SPECIAL_TOOL);
    let all = TbItem::all();
    assert_eq!(all.len(), 16);
    // Luban's sheet lists 1022490001 before 1021490001: not sorted by key, and kept so.
    assert_eq!((all[13].id.0, all[14].id.0), (1022490001, 1021490001));
    assert_eq!(all[0].name, "钻石");
    assert_eq!(all[0].minor_type, EMinorType::DIAMOND);
    // Polymorphic rows (TbItem2): the kind from the __type__ column, each kind's own fields.
    use datatables_tables::enums::{DemoEnum, ItemBaseKind};
    use datatables_tables::tb_item2::TbItem2;
    let e = TbItem2::all()[2];
    assert_eq!(
        (e.kind, e.id.0, e.attr, e.value),
        (ItemBaseKind::Equipment, 2001, Some(DemoEnum::A), Some(100))
    );
    assert_eq!((e.num, e.duration), (None, None));
    let d = TbItem2::all()[8];
    assert_eq!(
        (d.kind, d.name, d.duration),
        (ItemBaseKind::Decorator, "帽子", Some(100))
    );
    // The sheet's order is kept; lookups by key still find every row.
    for r in all {
        assert_eq!(TbItem::get(r.id).map(|x| x.name), Some(r.name));
    }
}

#[test]
fn luban_example_project_imports_builds_and_matches_lubans_export() {
    let Some(luban) = luban_dir() else {
        eprintln!("warning: ../shared/realdata/luban-examples is missing; skipped");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path();
    let conf = luban.join("DataTables/luban.conf");
    let r = gentable::import::luban::command(&conf, out, false, "+08:00");
    assert_eq!(r.exit_code, 0, "import failed:\n{}\n{}", r.stdout, r.stderr);
    // The importer never writes into the Luban project, and a re-import (and --check) changes nothing.
    let again = gentable::import::luban::command(&conf, out, true, "+08:00");
    assert_eq!(
        again.exit_code, 0,
        "import --check after import:\n{}{}",
        again.stdout, again.stderr
    );
    assert!(again.stdout.contains("(up to date)"), "{}", again.stdout);
    let build = gentable::build::run(&gentable::build::Request {
        config: out.join("gentable.toml"),
        action: gentable::build::Action::Build,
        cache: false,
        deny_warnings: false,
        quiet: true,
        format: gentable::diag::render::Format::Human,
        max_per_kind: 0,
        lang: gentable::diag::lang::Lang::En,
        wait: gentable::build::lock::Wait::Yes,
    });
    let text: String = build.output.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        build.exit_code, 0,
        "the imported project does not build:\n{text}"
    );
    // Reasons the importer gave for tables it left out.
    let mut left_out: BTreeMap<String, String> = BTreeMap::new();
    for line in r.stdout.lines() {
        if let Some(rest) = line.trim().strip_prefix("table ") {
            if let Some((t, why)) = rest.split_once(": ") {
                if why.contains("left out") {
                    left_out
                        .entry(t.to_string())
                        .or_insert_with(|| why.to_string());
                }
            }
        }
    }
    let sc = Schemas {
        dir: out.join("schema"),
        defs: serde_json::from_str(
            &std::fs::read_to_string(out.join("schema/luban.schema.json")).unwrap(),
        )
        .unwrap(),
    };
    // Luban's `all` target is the Rust output (groups c, s, e): its data is generated/data/rust/.
    let data = out.join("generated/data/rust");
    let mut equal = vec![];
    let mut differ = vec![];
    let mut missing = vec![];
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for e in std::fs::read_dir(&sc.dir).unwrap().filter_map(Result::ok) {
        let p = e.path();
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let j: J = serde_json::from_str(&text).unwrap();
        if let Some(full) = j.get("x-gentable-luban").and_then(J::as_str) {
            names.insert(
                format!("{}.json", full.replace('.', "_").to_lowercase()),
                j["title"].as_str().unwrap().to_string(),
            );
        }
    }
    let mut files: Vec<_> = std::fs::read_dir(luban.join("luban-json-output"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    files.sort();
    for f in &files {
        let file = f.file_name().unwrap().to_string_lossy().to_string();
        let Some(table) = names.get(&file) else {
            let why = left_out
                .iter()
                .find(|(t, _)| format!("{}.json", t.replace('.', "_").to_lowercase()) == file)
                .map(|(_, w)| w.clone())
                .unwrap_or_else(|| "not a table of the imported project".into());
            missing.push(format!("{file}: {why}"));
            continue;
        };
        let schema: J = serde_json::from_str(
            &std::fs::read_to_string(sc.dir.join(format!("{table}.schema.json"))).unwrap(),
        )
        .unwrap();
        let ours = data.join(format!("{table}.json"));
        let Ok(ours) = std::fs::read_to_string(&ours) else {
            missing.push(format!(
                "{file}: {table} is not in the `all` output (its export groups)"
            ));
            continue;
        };
        // A data file is `{"gentable": header, "rows": [...]}` (docs/data-format.md §2).
        let ours: J = serde_json::from_str::<J>(&ours).unwrap()["rows"].clone();
        let theirs: J = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let row = json!({"type": "object", "properties": schema["properties"]});
        let ours = J::Array(
            ours.as_array()
                .unwrap()
                .iter()
                .map(|r| to_luban(&sc, &row, r))
                .collect(),
        );
        let theirs = J::Array(
            theirs
                .as_array()
                .unwrap()
                .iter()
                .map(|r| sort_maps(&sc, &row, r))
                .collect(),
        );
        match first_difference(&ours, &theirs, table) {
            None => equal.push(table.clone()),
            Some(d) => differ.push(format!("{table} ({file}): {d}")),
        }
    }
    println!("equal ({}): {}", equal.len(), equal.join(", "));
    println!("differ ({}):", differ.len());
    for d in &differ {
        println!("  {d}");
    }
    println!("not compared ({}):", missing.len());
    for m in &missing {
        println!("  {m}");
    }
    assert_eq!(equal, EQUAL, "the set of tables equal to Luban's export changed: update EQUAL, the README and docs/migrating-from-luban.md");
}

/// `gentable import luban` of the project at `luban` into `out`, which must succeed: its report.
fn import_ok(luban: &Path, out: &Path) -> gentable::import::write::Report {
    let r = gentable::import::luban::command(&luban.join("luban.conf"), out, false, "+08:00");
    assert_eq!(r.exit_code, 0, "{}{}", r.stdout, r.stderr);
    r
}

/// `gentable build` of the project whose file is `config` (no cache, English, quiet): its exit code and
/// the rendered diagnostics.
fn build_project(config: &Path) -> (i32, String) {
    let b = gentable::build::run(&gentable::build::Request {
        config: config.to_path_buf(),
        action: gentable::build::Action::Build,
        cache: false,
        deny_warnings: false,
        quiet: true,
        format: gentable::diag::render::Format::Human,
        max_per_kind: 0,
        lang: gentable::diag::lang::Lang::En,
        wait: gentable::build::lock::Wait::Yes,
    });
    let text: String = b.output.iter().map(|(_, t)| t.as_str()).collect();
    (i32::from(b.exit_code), text)
}

/// A workbook at `path` whose one sheet (`Sheet1`) holds `rows` as text cells; an empty string is no cell.
fn write_xlsx<'a, R: AsRef<[&'a str]>>(path: &Path, rows: &[R]) {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet();
    for (r, row) in rows.iter().enumerate() {
        for (c, v) in row.as_ref().iter().enumerate() {
            if !v.is_empty() {
                ws.write_string(r as u32, c as u16, *v).unwrap();
            }
        }
    }
    wb.save(path).unwrap();
}

/// A Luban project in `dir`: luban.conf, `Defines/<name>` files and data workbooks written by `xlsx`.
fn tiny_luban(dir: &Path, defines: &[(&str, &str)]) {
    std::fs::create_dir_all(dir.join("Defines")).unwrap();
    std::fs::create_dir_all(dir.join("Datas")).unwrap();
    std::fs::write(
        dir.join("luban.conf"),
        r#"{"groups": [{"names": ["c"], "default": true}], "schemaFiles": [{"fileName": "Defines", "type": ""}], "dataDir": "Datas", "targets": [{"name": "all", "groups": ["c"]}]}"#,
    )
    .unwrap();
    for (n, text) in defines {
        std::fs::write(dir.join("Defines").join(n), text).unwrap();
    }
}

fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.insert(e.path(), std::fs::read(e.path()).unwrap());
            }
        }
    }
    out
}

#[test]
fn bad_luban_input_gets_located_diagnostics_and_the_luban_files_stay_unchanged() {
    // A malformed XML define: the file and the line.
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(&luban, &[("a.xml", "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"x\" type=\"int\">\n</module>\n")]);
    let before = snapshot(&luban);
    let r = gentable::import::luban::command(&luban.join("luban.conf"), &out, false, "+08:00");
    assert_eq!(r.exit_code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("error[GT0601]: malformed XML"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("Defines/a.xml:4"), "{}", r.stderr);
    assert!(
        !out.join("gentable.toml").exists(),
        "nothing is written on errors"
    );
    assert_eq!(snapshot(&luban), before);

    // An unknown type: the var's line; a good table beside it is not enough to write anything.
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("b.xml", "<module name=\"m\">\n  <bean name=\"B\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"x\" type=\"lsit,int\"/>\n  </bean>\n  <table name=\"TbB\" value=\"B\" input=\"b.xlsx\"/>\n</module>\n")],
    );
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet();
    for (c, v) in ["##var", "id", "x"].iter().enumerate() {
        ws.write_string(0, c as u16, *v).unwrap();
    }
    ws.write_number(1, 1, 1.0).unwrap();
    wb.save(luban.join("Datas/b.xlsx")).unwrap();
    let before = snapshot(&luban);
    let r = gentable::import::luban::command(&luban.join("luban.conf"), &out, false, "+08:00");
    assert_eq!(r.exit_code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("unknown type \"lsit\""), "{}", r.stderr);
    assert!(r.stderr.contains("Defines/b.xml:4"), "{}", r.stderr);
    assert_eq!(snapshot(&luban), before);

    // A broken ##type row of an auto-import workbook: the sheet and the cell.
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(&luban, &[]);
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet().set_name("数据").unwrap();
    for (r, row) in [["##var", "id", "pos"], ["##type", "int", "(list#sep=,"]]
        .iter()
        .enumerate()
    {
        for (c, v) in row.iter().enumerate() {
            ws.write_string(r as u32, c as u16, *v).unwrap();
        }
    }
    wb.save(luban.join("Datas/#Broken.xlsx")).unwrap();
    let before = snapshot(&luban);
    let r = gentable::import::luban::command(&luban.join("luban.conf"), &out, false, "+08:00");
    assert_eq!(r.exit_code, 2, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("bad type \"(list#sep=,\" of field \"pos\""),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("Datas/#Broken.xlsx[数据]:2:C"),
        "{}",
        r.stderr
    );
    assert_eq!(snapshot(&luban), before);
}

/// Row tags (`tag_column`) chosen per output: Luban's `dev`/`test` rows, `--excludeTag dev`.
#[test]
fn row_tags_are_chosen_per_output() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::create_dir_all(d.join("Table")).unwrap();
    std::fs::create_dir_all(d.join("schema")).unwrap();
    std::fs::write(
        d.join("gentable.toml"),
        "[project]\nname = \"Tags\"\n[rust]\ncrate_name = \"tags\"\nexclude_tags = [\"dev\"]\n[typescript]\ninclude_tags = [\"test\"]\n[tables.T]\nfirst_column = \"B\"\nmarker_column = \"A\"\nheader_row = 1\ntag_column = \"A\"\n",
    )
    .unwrap();
    std::fs::write(
        d.join("Table/T.csv"),
        "#tag,Id,Name\n,1,正式\ndev,2,测试数据\ntest,3,测试\n\"dev,test\",4,两个\n,5,永远\n",
    )
    .unwrap();
    std::fs::write(
        d.join("schema/T.schema.json"),
        r#"{"type":"object","properties":{"Id":{"type":"integer"},"Name":{"type":"string"}},"required":["Id","Name"],"x-gentable-primaryKey":"Id"}"#,
    )
    .unwrap();
    let out = gentable::build::run(&gentable::build::Request {
        config: d.join("gentable.toml"),
        action: gentable::build::Action::Build,
        cache: false,
        deny_warnings: false,
        quiet: true,
        format: gentable::diag::render::Format::Human,
        max_per_kind: 0,
        lang: gentable::diag::lang::Lang::En,
        wait: gentable::build::lock::Wait::Yes,
    });
    assert_eq!(out.exit_code, 0, "{:?}", out.output);
    let ids = |p: &str| -> Vec<i64> {
        let j: J = serde_json::from_str(&std::fs::read_to_string(d.join(p)).unwrap()).unwrap();
        j["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["Id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids("generated/data/T.json"), [1, 2, 3, 4, 5]);
    assert_eq!(ids("generated/data/rust/T.json"), [1, 3, 5]);
    assert_eq!(ids("generated/data/typescript/T.json"), [1, 3, 4, 5]);
}

/// Multi-row records (Luban's `*field`, `multi_row_fields`): a row whose other cells are empty continues the
/// record above; a multi-row field that is not a list or map is an error.
#[test]
fn multi_row_fields_continue_the_record_above() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::create_dir_all(d.join("Table")).unwrap();
    std::fs::create_dir_all(d.join("schema")).unwrap();
    let toml = |fields: &str| {
        format!("[project]\nname = \"Multi\"\n[rust]\ncrate_name = \"multi\"\n[tables.T]\nfirst_column = \"B\"\nmarker_column = \"A\"\nheader_marker = \"##var\"\ncell_dialect = \"luban\"\nmulti_row_fields = [{fields}]\n")
    };
    std::fs::write(d.join("gentable.toml"), toml("\"items\", \"bonus\"")).unwrap();
    std::fs::write(
        d.join("Table/T.csv"),
        "##var,id,name,*items,*bonus\n## ,编号,名字,道具,奖励\n,1,长剑，锋利,\"1,2\",\"1,10\"\n,,,3,\"2,20\"\n,,,,\"3,30\"\n,2,盾,4,\n,,,5;6,\n",
    )
    .unwrap();
    std::fs::write(
        d.join("schema/T.schema.json"),
        r#"{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"},"items":{"type":"array","items":{"type":"integer"}},"bonus":{"type":"object","additionalProperties":{"type":"integer"},"x-gentable-mapKey":{"type":"integer"}}},"required":["id","name","items","bonus"],"x-gentable-primaryKey":"id"}"#,
    )
    .unwrap();
    let build = || {
        gentable::build::run(&gentable::build::Request {
            config: d.join("gentable.toml"),
            action: gentable::build::Action::Build,
            cache: false,
            deny_warnings: false,
            quiet: true,
            format: gentable::diag::render::Format::Human,
            max_per_kind: 0,
            lang: gentable::diag::lang::Lang::En,
            wait: gentable::build::lock::Wait::Yes,
        })
    };
    let out = build();
    assert_eq!(out.exit_code, 0, "{:?}", out.output);
    let j: J =
        serde_json::from_str(&std::fs::read_to_string(d.join("generated/data/T.json")).unwrap())
            .unwrap();
    assert_eq!(
        j["rows"],
        json!([
            {"id": 1, "name": "长剑，锋利", "items": [1, 2, 3], "bonus": {"1": 10, "2": 20, "3": 30}},
            {"id": 2, "name": "盾", "items": [4, 5, 6], "bonus": {}}
        ])
    );
    // A key given again by a continuation row is an error at that row.
    std::fs::write(
        d.join("Table/T.csv"),
        "##var,id,name,*items,*bonus\n,1,剑,1,\"1,10\"\n,,,,\"1,11\"\n",
    )
    .unwrap();
    let out = build();
    let text: String = out.output.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(out.exit_code, 1, "{text}");
    assert!(text.contains("T.csv:3"), "{text}");
    assert!(
        text.contains("\"bonus\" continues the record above"),
        "{text}"
    );
    // A multi-row field must be a list or a map.
    std::fs::write(d.join("gentable.toml"), toml("\"name\"")).unwrap();
    let out = build();
    let text: String = out.output.iter().map(|(_, t)| t.as_str()).collect();
    assert!(
        text.contains("multi_row_fields names \"name\", which is not a list or map field"),
        "{text}"
    );
}

/// `gentable import luban --lang zh` (or a zh locale): the list of changes, the summary and the diagnostics
/// are Chinese; names and paths stay as written.
#[test]
fn the_import_speaks_chinese_when_asked() {
    use gentable::diag::lang::Lang;
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"name\" type=\"string\"/>\n  </bean>\n  <table name=\"TbA\" value=\"A\" input=\"a.xlsx\"/>\n</module>\n")],
    );
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet();
    for (c, v) in ["##var", "id", "name"].iter().enumerate() {
        ws.write_string(0, c as u16, *v).unwrap();
    }
    ws.write_number(1, 1, 1.0).unwrap();
    ws.write_string(1, 2, "剑").unwrap();
    wb.save(luban.join("Datas/a.xlsx")).unwrap();
    let conf = luban.join("luban.conf");
    let r = gentable::import::luban::command_in(&conf, &out, false, "+08:00", Lang::Zh);
    assert_eq!(r.exit_code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("创建 gentable.toml\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!(
            "从 {} 导入了 1 张表到 {}\n",
            conf.display(),
            out.display()
        )),
        "{}",
        r.stdout
    );
    let again = gentable::import::luban::command_in(&conf, &out, true, "+08:00", Lang::Zh);
    assert!(again.stdout.ends_with("（已是最新）\n"), "{}", again.stdout);

    // A type Luban rejects: the diagnostic and the closing line in Chinese.
    std::fs::write(
        luban.join("Defines/a.xml"),
        "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"name\" type=\"lsit,int\"/>\n  </bean>\n  <table name=\"TbA\" value=\"A\" input=\"a.xlsx\"/>\n</module>\n",
    )
    .unwrap();
    let r = gentable::import::luban::command_in(&conf, &out, false, "+08:00", Lang::Zh);
    assert_eq!(r.exit_code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("错误[GT0601]: 字段 name：类型 \"lsit,int\" 有误：未知的类型 \"lsit\"：只有 list、array、set 和 map 在逗号后接元素类型"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.ends_with("1 个错误；没有写入任何文件\n"),
        "{}",
        r.stderr
    );
    let bad = gentable::import::luban::command_in(&conf, &out, false, "8h", Lang::Zh);
    assert_eq!(
        bad.stderr,
        "错误：--time-zone 必须是固定的时差，如 +08:00 或 UTC，而不是 \"8h\"\n"
    );
}

/// CSV inputs: Luban detects each file's encoding; the importer chooses the table's `encoding` from every
/// file's bytes (a BOM is read as it says under any label; non-UTF-8 files must decode as GBK and are named
/// in a note), reads the header marker (`##` or `##var`) from the first file, and lists the files in Luban's
/// `input` order, which is the order their rows are read in. Files that need two encodings leave the table out.
#[test]
fn csv_inputs_get_their_encoding_header_and_order() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"name\" type=\"string\"/>\n  </bean>\n  <table name=\"TbA\" value=\"A\" input=\"u16.csv,gbk.csv\"/>\n  <table name=\"TbMixed\" value=\"A\" input=\"utf8.csv,gbk2.csv\"/>\n  <table name=\"TbAmb\" value=\"A\" input=\"amb.csv\"/>\n  <table name=\"TbU16\" value=\"A\" input=\"u16nobom.csv\"/>\n  <table name=\"TbEmpty\" value=\"A\" input=\"empty.csv\"/>\n  <table name=\"TbLatin\" value=\"A\" input=\"latin.csv\"/>\n  <table name=\"TbBomGbk\" value=\"A\" input=\"bomgbk.csv\"/>\n  <table name=\"TbBad\" value=\"A\" input=\"bad.xlsx\"/>\n</module>\n")],
    );
    let gbk = |text: &str| encoding_rs::GBK.encode(text).0.into_owned();
    let mut u16 = vec![0xFE, 0xFF];
    for u in "##,id,name\r\n,2,乙\r\n".encode_utf16() {
        u16.extend(u.to_be_bytes());
    }
    let d = luban.join("Datas");
    std::fs::write(d.join("u16.csv"), u16).unwrap();
    std::fs::write(d.join("gbk.csv"), gbk("##,id,name\n,\n,1,测试编码\n")).unwrap();
    std::fs::write(d.join("utf8.csv"), "##var,id,name\n,3,丙\n").unwrap();
    std::fs::write(d.join("gbk2.csv"), gbk("##var,id,name\n,4,丁\n")).unwrap();
    // GBK bytes that are also valid UTF-8 (`药` is D2 A9, UTF-8 `ҩ`; found by the newcomer pass).
    let amb = gbk("##var,id,name\n,1,药\n,2,魔石\n");
    assert!(std::str::from_utf8(&amb).is_ok());
    std::fs::write(d.join("amb.csv"), amb).unwrap();
    let u16: Vec<u8> = "##var,id,name\n,5,x\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    std::fs::write(d.join("u16nobom.csv"), u16).unwrap();
    std::fs::write(d.join("empty.csv"), "").unwrap();
    // UTF-8 whose bytes GBK also decodes (found by the second breaker: read as GBK, every cell garbled).
    let latin = "##var,id,name\n,1,角度90°\n,2,Café\n";
    assert!(encoding_rs::GBK
        .decode_without_bom_handling_and_without_replacement(latin.as_bytes())
        .is_some());
    std::fs::write(d.join("latin.csv"), latin).unwrap();
    // A UTF-8 BOM before GBK bytes, and a workbook that is no workbook: each leaves its table out, not the
    // import (found by the second breaker: both aborted it, nothing written).
    let mut bomgbk = vec![0xEF, 0xBB, 0xBF];
    bomgbk.extend(gbk("##var,id,name\n,1,测试\n"));
    std::fs::write(d.join("bomgbk.csv"), bomgbk).unwrap();
    std::fs::write(d.join("bad.xlsx"), "not a zip").unwrap();
    let before = snapshot(&luban);
    let r = import_ok(&luban, &out);
    assert_eq!(snapshot(&luban), before);
    assert!(
        r.stdout
            .contains("not UTF-8 and without a byte-order mark: Datas/gbk.csv; read as GBK"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("table m.TbMixed: its CSV files need two encodings, UTF-8 (Datas/utf8.csv) and GBK (Datas/gbk2.csv)"),
        "{}",
        r.stdout
    );
    let toml = std::fs::read_to_string(out.join("gentable.toml")).unwrap();
    assert!(
        toml.contains("[tables.TbA]\nfiles = [\"u16.csv\", \"gbk.csv\"]\nencoding = \"gbk\"\n"),
        "{toml}"
    );
    assert!(toml.contains("header_marker = \"##\""), "{toml}");
    assert!(!toml.contains("[tables.TbMixed]"), "{toml}");
    assert!(
        toml.contains("[tables.TbAmb]\nfiles = [\"amb.csv\"]\nfirst_column"),
        "{toml}"
    );
    assert!(
        r.stdout.contains("table m.TbAmb: Datas/amb.csv is valid UTF-8 and valid GBK: read as UTF-8 (ҩħʯ); if its text is 药魔石 (GBK), set [tables.X] encoding = \"gbk\""),
        "{}",
        r.stdout
    );
    assert!(
        toml.contains("[tables.TbLatin]\nfiles = [\"latin.csv\"]\nfirst_column"),
        "{toml}"
    );
    for t in ["TbBomGbk", "TbBad"] {
        assert!(!toml.contains(&format!("[tables.{t}]")), "{toml}");
        assert!(
            r.stdout.contains(&format!("table m.{t}: Datas/"))
                && r.stdout
                    .lines()
                    .any(|l| l.contains(&format!("table m.{t}:")) && l.ends_with("table left out")),
            "{}",
            r.stdout
        );
    }
    assert!(
        r.stdout.contains(
            "table m.TbU16: Datas/u16nobom.csv holds NUL bytes, which no table text has (UTF-16 without a byte-order mark?)"
        ),
        "{}",
        r.stdout
    );
    assert!(!toml.contains("[tables.TbU16]"), "{toml}");
    assert!(
        r.stdout
            .contains("table m.TbEmpty: the sheet has no ##var row"),
        "{}",
        r.stdout
    );
    let (code, text) = build_project(&out.join("gentable.toml"));
    assert_eq!(code, 0, "{text}");
    let data = std::fs::read_to_string(out.join("generated/data/TbA.json")).unwrap();
    let rows: Vec<&str> = data.lines().skip(1).take(2).collect();
    assert_eq!(
        rows,
        [
            "{\"id\":2,\"name\":\"乙\"},",
            "{\"id\":1,\"name\":\"测试编码\"}"
        ],
        "{data}"
    );
    let data = std::fs::read_to_string(out.join("generated/data/TbLatin.json")).unwrap();
    assert!(
        data.contains("\"角度90°\"") && data.contains("\"Café\""),
        "{data}"
    );
}

/// A table of a polymorphic bean (Luban's `__type__` column, TbItem2): one flat row per kind, each kind's
/// fields required and the other kinds' forbidden, so a value in another kind's column or a missing one is
/// an error at its cell or row, never dropped; an unknown kind is an error at the `__type__` cell.
#[test]
fn polymorphic_rows_check_each_kinds_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"Base\">\n    <var name=\"id\" type=\"int\"/>\n    <bean name=\"A\">\n      <var name=\"a\" type=\"int\"/>\n    </bean>\n    <bean name=\"B\">\n      <var name=\"b\" type=\"int\"/>\n    </bean>\n  </bean>\n  <table name=\"TbP\" value=\"Base\" input=\"p.xlsx\"/>\n</module>\n")],
    );
    let write = |rows: &[[&str; 5]]| write_xlsx(&luban.join("Datas/p.xlsx"), rows);
    let header = [
        ["##var", "__type__", "id", "a", "b"],
        ["##type", "", "int", "int", "int"],
    ];
    write(&[
        header[0],
        header[1],
        ["", "A", "1", "5", ""],
        ["", "B", "2", "", "7"],
    ]);
    import_ok(&luban, &out);
    let build = |out: &Path| build_project(&out.join("gentable.toml"));
    let (code, text) = build(&out);
    assert_eq!(code, 0, "{text}");
    let data = std::fs::read_to_string(out.join("generated/data/TbP.json")).unwrap();
    let rows: Vec<&str> = data.lines().skip(1).take(2).collect();
    assert_eq!(
        rows,
        [
            "{\"$type\":\"A\",\"a\":5,\"id\":1},",
            "{\"$type\":\"B\",\"b\":7,\"id\":2}"
        ],
        "{data}"
    );
    // A's row with a value in B's column, B's row without its own, and a kind that does not exist.
    write(&[
        header[0],
        header[1],
        ["", "A", "1", "5", "9"],
        ["", "B", "2", "", ""],
        ["", "C", "3", "", ""],
    ]);
    let (code, text) = build(&out);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("9 is not allowed here: this field must be empty (its schema is false)")
            && text.contains("p.xlsx[Sheet1]:3:5"),
        "{text}"
    );
    assert!(
        text.contains("\"b\" is a required property") && text.contains("p.xlsx[Sheet1]:4"),
        "{text}"
    );
    assert!(
        text.contains("\"C\" is not a BaseKind") && text.contains("p.xlsx[Sheet1]:5:2"),
        "{text}"
    );
    assert_eq!(text.matches("error[").count(), 3, "{text}");
}

/// `sheet@file` inputs keep Luban's order (`s2@w.xlsx,s1@w.xlsx` reads s2 first: the importer writes
/// `sheets` in input order and sources follow the `sheets` globs' order; found by the newcomer pass). A whole
/// workbook beside single sheets, or single sheets of two workbooks, are read when one `files`/`sheets`
/// selection reads exactly Luban's sheets (a whole workbook's sheets are written out); a table whose inputs
/// no selection can read in Luban's order is left out with what each would read.
#[test]
fn sheet_inputs_keep_lubans_order_and_what_one_selection_cannot_say_is_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"id\" type=\"int\"/>\n  </bean>\n  <table name=\"TbS\" value=\"A\" mode=\"list\" input=\"s2@w.xlsx,s1@w.xlsx\"/>\n  <table name=\"TbMixed\" value=\"A\" mode=\"list\" input=\"t2@w2.xlsx,v.xlsx\"/>\n  <table name=\"TbCross\" value=\"A\" mode=\"list\" input=\"s1@w.xlsx,t2@w2.xlsx\"/>\n  <table name=\"TbOrder\" value=\"A\" mode=\"list\" input=\"s2@w.xlsx,t1@w2.xlsx,s1@w.xlsx\"/>\n  <table name=\"TbPaths\" value=\"A\" mode=\"list\" input=\"./v.xlsx,dir\"/>\n  <table name=\"TbSub\" value=\"A\" mode=\"list\" input=\"sub/s2@sw.xlsx\"/>\n</module>\n")],
    );
    let workbook = |name: &str, sheets: &[(&str, f64)]| {
        let mut wb = rust_xlsxwriter::Workbook::new();
        for (s, id) in sheets {
            let ws = wb.add_worksheet().set_name(*s).unwrap();
            ws.write_string(0, 0, "##var").unwrap();
            ws.write_string(0, 1, "id").unwrap();
            ws.write_number(1, 1, *id).unwrap();
        }
        wb.save(luban.join("Datas").join(name)).unwrap();
    };
    workbook("w.xlsx", &[("s1", 1.0), ("s2", 2.0)]);
    workbook("w2.xlsx", &[("t1", 3.0), ("t2", 4.0)]);
    workbook("v.xlsx", &[("v", 5.0)]);
    // Luban's path forms (`./`, `dir/sheet@file`) and a folder whose `_`, `.` and `~` entries it skips
    // (all found by the second breaker).
    std::fs::create_dir_all(luban.join("Datas/sub")).unwrap();
    std::fs::create_dir_all(luban.join("Datas/dir/_old")).unwrap();
    workbook("sub/sw.xlsx", &[("s2", 6.0)]);
    workbook("dir/d.xlsx", &[("d", 7.0)]);
    workbook("dir/_draft.xlsx", &[("d", 8.0)]);
    workbook("dir/_old/x.xlsx", &[("d", 9.0)]);
    let r = import_ok(&luban, &out);
    assert!(
        r.stdout.contains("table m.TbOrder: one files/sheets selection cannot read the sheets Luban reads: it would read w.xlsx[s2], w.xlsx[s1], w2.xlsx[t1], where Luban reads w.xlsx[s2], w2.xlsx[t1], w.xlsx[s1]; table left out"),
        "{}",
        r.stdout
    );
    let toml = std::fs::read_to_string(out.join("gentable.toml")).unwrap();
    assert!(!toml.contains("[tables.TbOrder]"), "{toml}");
    assert!(toml.contains("sheets = [\"s2\", \"s1\"]"), "{toml}");
    assert!(
        toml.contains(
            "[tables.TbMixed]\nfiles = [\"w2.xlsx\", \"v.xlsx\"]\nsheets = [\"t2\", \"v\"]\n"
        ),
        "{toml}"
    );
    assert!(
        toml.contains(
            "[tables.TbCross]\nfiles = [\"w.xlsx\", \"w2.xlsx\"]\nsheets = [\"s1\", \"t2\"]\n"
        ),
        "{toml}"
    );
    assert!(
        toml.contains(
            "[tables.TbPaths]\nfiles = [\"v.xlsx\", \"dir/d.xlsx\"]\nsheets = [\"v\", \"d\"]\n"
        ),
        "{toml}"
    );
    assert!(
        toml.contains("[tables.TbSub]\nfiles = [\"sub/sw.xlsx\"]\nsheets = [\"s2\"]\n"),
        "{toml}"
    );
    let (code, text) = build_project(&out.join("gentable.toml"));
    assert_eq!(code, 0, "{text}");
    let ids = |t: &str| -> Vec<i64> {
        let data = std::fs::read_to_string(out.join(format!("generated/data/{t}.json"))).unwrap();
        let j: J = serde_json::from_str(&data).unwrap();
        j["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids("TbS"), [2, 1]);
    assert_eq!(ids("TbMixed"), [4, 5]);
    assert_eq!(ids("TbCross"), [1, 4]);
    assert_eq!(ids("TbPaths"), [5, 7]);
    assert_eq!(ids("TbSub"), [6]);
}

/// Kinds of one polymorphic bean with one short name in two modules (`m.Circle`, `m2.Circle`): the first's
/// tag is `Circle`, the second's `m2.Circle`, and `Circle` is never also the second's alias (found by the
/// newcomer pass: the enum's aliases clashed and the table was left out); `m.Circle` names the first.
#[test]
fn kinds_of_one_short_name_in_two_modules_are_told_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[
            ("a.xml", "<module name=\"m\">\n  <bean name=\"Shape\">\n    <var name=\"id\" type=\"int\"/>\n    <bean name=\"Circle\">\n      <var name=\"r\" type=\"int\"/>\n    </bean>\n  </bean>\n  <table name=\"TbShape\" value=\"Shape\" input=\"p.xlsx\"/>\n</module>\n"),
            ("b.xml", "<module name=\"m2\">\n  <bean name=\"Circle\" parent=\"m.Shape\">\n    <var name=\"d\" type=\"int\"/>\n  </bean>\n</module>\n"),
        ],
    );
    let rows: [[&str; 5]; 5] = [
        ["##var", "__type__", "id", "r", "d"],
        ["##type", "", "int", "int", "int"],
        ["", "Circle", "1", "5", ""],
        ["", "m2.Circle", "2", "", "6"],
        ["", "m.Circle", "3", "7", ""],
    ];
    write_xlsx(&luban.join("Datas/p.xlsx"), &rows);
    let r = import_ok(&luban, &out);
    let (code, text) = build_project(&out.join("gentable.toml"));
    assert_eq!(code, 0, "{text}\n{}", r.stdout);
    let data = std::fs::read_to_string(out.join("generated/data/TbShape.json")).unwrap();
    let rows: Vec<&str> = data.lines().skip(1).take(3).collect();
    assert_eq!(
        rows,
        [
            "{\"$type\":\"Circle\",\"id\":1,\"r\":5},",
            "{\"$type\":\"m2.Circle\",\"d\":6,\"id\":2},",
            "{\"$type\":\"Circle\",\"id\":3,\"r\":7}"
        ],
        "{data}"
    );
}

/// Luban's bracketed header (`[b` … `b]`, test/multi_column.xlsx): a bean over unmerged columns reads
/// them as one stream, as a merged header does; a value in a column past the bean's fields is an error at
/// its cell, never dropped.
#[test]
fn bracketed_headers_spread_a_bean_over_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"Foo\">\n    <var name=\"y1\" type=\"int\"/>\n    <var name=\"y2\" type=\"int\"/>\n  </bean>\n  <bean name=\"T\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"b\" type=\"Foo\"/>\n  </bean>\n  <table name=\"TbT\" value=\"T\" input=\"t.xlsx\"/>\n</module>\n")],
    );
    let write = |rows: &[[&str; 5]]| write_xlsx(&luban.join("Datas/t.xlsx"), rows);
    let head = [["##", "id", "[b", "", "b]"], ["##+", "", "y1", "y2", ""]];
    write(&[head[0], head[1], ["", "1", "5", "6", ""]]);
    import_ok(&luban, &out);
    let build = || build_project(&out.join("gentable.toml"));
    let (code, text) = build();
    assert_eq!(code, 0, "{text}");
    let data = std::fs::read_to_string(out.join("generated/data/TbT.json")).unwrap();
    assert!(
        data.contains("{\"b\":{\"y1\":5,\"y2\":6},\"id\":1}"),
        "{data}"
    );
    write(&[head[0], head[1], ["", "1", "5", "6", "7"]]);
    let (code, text) = build();
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("\"7\" is left over after the value (2 of 3 parts used)")
            && text.contains("t.xlsx[Sheet1]:3:3"),
        "{text}"
    );
    // A bracket closed by another name, or not at all, is an error at the header (found by the second
    // breaker: the column after a mismatched close was dropped as unknown).
    for (h, message, at) in [
        (
            ["##", "id", "[b#sep=;", "", "c]"],
            "the header \"c]\" comes before b] closes the bracket [b of column C",
            "t.xlsx[Sheet1]:1:5",
        ),
        (
            ["##", "id", "[b", "", ""],
            "the bracket [b is not closed by b]",
            "t.xlsx[Sheet1]:1:3",
        ),
    ] {
        write(&[h, head[1], ["", "1", "5", "6", ""]]);
        let (code, text) = build();
        assert_eq!(code, 1, "{text}");
        assert!(text.contains(message) && text.contains(at), "{text}");
    }
}

/// A workbook at `path` with the sheets `(name, hidden, rows)` in that order, every cell text (an empty
/// string is no cell).
fn write_book(path: &Path, sheets: &[(&str, bool, &[&[&str]])]) {
    let mut wb = rust_xlsxwriter::Workbook::new();
    for (name, hidden, rows) in sheets {
        let ws = wb.add_worksheet().set_name(*name).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, v) in row.iter().enumerate() {
                if !v.is_empty() {
                    ws.write_string(r as u32, c as u16, *v).unwrap();
                }
            }
        }
        if *hidden {
            ws.set_hidden(true);
        }
    }
    wb.save(path).unwrap();
}

/// A Luban table whose input names a whole workbook reads every sheet whose A1 cell starts with `##`,
/// hidden ones too, in workbook order, and skips the others (notes): the importer writes those sheets as
/// the table's `sheets`, and the build reads exactly them, the hidden one included. Inputs whose sheets one
/// `files`/`sheets` selection cannot say (another workbook's notes sheet has a read sheet's name), or a read
/// sheet gentable never reads (named `#…`), leave the table out with the reason, in the report and in
/// gentable.toml.
#[test]
fn whole_workbook_inputs_read_the_sheets_luban_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"v\" type=\"int\"/>\n  </bean>\n  <table name=\"TbW\" value=\"A\" input=\"w.xlsx\"/>\n  <table name=\"TbTwo\" value=\"A\" input=\"w.xlsx,w2.xlsx\"/>\n  <table name=\"TbClash\" value=\"A\" input=\"w.xlsx,w3.xlsx\"/>\n  <table name=\"TbHash\" value=\"A\" input=\"w4.xlsx\"/>\n</module>\n")],
    );
    let head: &[&str] = &["##var", "id", "v"];
    let d = luban.join("Datas");
    write_book(
        &d.join("w.xlsx"),
        &[
            ("说明", false, &[&["这张表的说明"], &["", "id 是编号"]]),
            ("s1", false, &[head, &["", "1", "10"]]),
            ("hid", true, &[head, &["", "2", "20"]]),
            ("s3", false, &[head, &["", "3", "30"]]),
        ],
    );
    write_book(
        &d.join("w2.xlsx"),
        &[
            ("s3", false, &[head, &["", "4", "40"]]),
            ("s4", false, &[head, &["", "5", "50"]]),
        ],
    );
    // A notes sheet named like a sheet Luban reads in w.xlsx: one selection would read it too.
    write_book(
        &d.join("w3.xlsx"),
        &[
            ("s1", false, &[&["备注"]]),
            ("s5", false, &[head, &["", "6", "60"]]),
        ],
    );
    write_book(
        &d.join("w4.xlsx"),
        &[
            ("t", false, &[head, &["", "7", "70"]]),
            ("#t2", false, &[head, &["", "8", "80"]]),
        ],
    );
    let r = import_ok(&luban, &out);
    let toml = std::fs::read_to_string(out.join("gentable.toml")).unwrap();
    assert!(
        toml.contains("[tables.TbW]\nfiles = [\"w.xlsx\"]\nsheets = [\"s1\", \"hid\", \"s3\"]\n"),
        "{toml}"
    );
    assert!(
        toml.contains(
            "[tables.TbTwo]\nfiles = [\"w.xlsx\", \"w2.xlsx\"]\nsheets = [\"s1\", \"hid\", \"s3\", \"s4\"]\n"
        ),
        "{toml}"
    );
    for t in ["TbClash", "TbHash"] {
        assert!(!toml.contains(&format!("[tables.{t}]")), "{toml}");
    }
    let clash = "one files/sheets selection cannot read the sheets Luban reads: it would read w.xlsx[s1], w.xlsx[hid], w.xlsx[s3], w3.xlsx[s1], w3.xlsx[s5], where Luban reads w.xlsx[s1], w.xlsx[hid], w.xlsx[s3], w3.xlsx[s5]";
    let hash = "Luban reads the sheet #t2 of Datas/w4.xlsx (its A1 cell starts with ##), which gentable never reads (a sheet named #… is a comment): rename the sheet";
    for (t, why) in [("TbClash", clash), ("TbHash", hash)] {
        assert!(
            r.stdout
                .contains(&format!("table m.{t}: {why}; table left out\n")),
            "{}",
            r.stdout
        );
        assert!(toml.contains(&format!("#   m.{t}: {why}\n")), "{toml}");
    }
    let (code, text) = build_project(&out.join("gentable.toml"));
    assert_eq!(code, 0, "{text}");
    let rows = |t: &str| -> Vec<String> {
        let data = std::fs::read_to_string(out.join(format!("generated/data/{t}.json"))).unwrap();
        let j: serde_json::Value = serde_json::from_str(&data).unwrap();
        j["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| format!("{}:{}", r["id"], r["v"]))
            .collect()
    };
    assert_eq!(rows("TbW"), ["1:10", "2:20", "3:30"]);
    assert_eq!(rows("TbTwo"), ["1:10", "2:20", "3:30", "4:40", "5:50"]);
    // The reasons in Chinese.
    let zh = gentable::import::luban::command_in(
        &luban.join("luban.conf"),
        &out,
        true,
        "+08:00",
        gentable::diag::lang::Lang::Zh,
    );
    assert!(
        zh.stdout.contains("table m.TbClash: 一个 files/sheets 选择无法读取 Luban 读取的那些工作表：它会读取 w.xlsx[s1]、w.xlsx[hid]、w.xlsx[s3]、w3.xlsx[s1]、w3.xlsx[s5]，而 Luban 读取 w.xlsx[s1]、w.xlsx[hid]、w.xlsx[s3]、w3.xlsx[s5]；已略去该表"),
        "{}",
        zh.stdout
    );
    assert!(
        zh.stdout.contains("table m.TbHash: Luban 读取 Datas/w4.xlsx 的工作表 #t2（其 A1 单元格以 ## 开头），而 gentable 从不读取它（以 # 开头命名的工作表是注释）：请重命名该工作表；已略去该表"),
        "{}",
        zh.stdout
    );
}

/// `--check` compares with what a fresh import writes: a table the last import left out for its data
/// errors, whose data builds now, makes the check fail (a fresh import adds it), and passes once imported.
#[test]
fn check_sees_a_left_out_table_that_would_now_import() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"v\" type=\"int\"/>\n  </bean>\n  <table name=\"TbA\" value=\"A\" input=\"a.xlsx\"/>\n  <table name=\"TbB\" value=\"A\" input=\"b.xlsx\"/>\n</module>\n")],
    );
    let d = luban.join("Datas");
    write_xlsx(&d.join("a.xlsx"), &[["##var", "id", "v"], ["", "1", "abc"]]);
    write_xlsx(&d.join("b.xlsx"), &[["##var", "id", "v"], ["", "2", "20"]]);
    let conf = luban.join("luban.conf");
    let r = import_ok(&luban, &out);
    assert!(
        r.stdout
            .contains("table m.TbA: left out: its data does not build (GT0"),
        "{}",
        r.stdout
    );
    let toml = std::fs::read_to_string(out.join("gentable.toml")).unwrap();
    assert!(
        !toml.contains("[tables.TbA]") && toml.contains("[tables.TbB]"),
        "{toml}"
    );
    let check = gentable::import::luban::command(&conf, &out, true, "+08:00");
    assert_eq!(check.exit_code, 0, "{}{}", check.stdout, check.stderr);
    // A check imports nothing, and says so.
    assert!(
        check.stdout.contains(&format!(
            "1 table of {} checked against {} (up to date)",
            conf.display(),
            out.display()
        )) && !check.stdout.contains("imported from"),
        "{}",
        check.stdout
    );
    // The designer fixes the cell: a fresh import would add TbA, so the check fails.
    write_xlsx(&d.join("a.xlsx"), &[["##var", "id", "v"], ["", "1", "10"]]);
    let check = gentable::import::luban::command(&conf, &out, true, "+08:00");
    assert_eq!(check.exit_code, 1, "{}{}", check.stdout, check.stderr);
    assert!(
        check.stdout.contains("would update gentable.toml\n    ")
            && check.stdout.contains("\n    +[tables.TbA]\n")
            && check
                .stdout
                .contains("would create schema/TbA.schema.json\n")
            && check
                .stdout
                .contains("(out of date: re-run without --check)"),
        "{}",
        check.stdout
    );
    assert!(
        check
            .stderr
            .contains("error[GT0602]: re-importing would change 2 file(s)"),
        "{}",
        check.stderr
    );
    // --check wrote nothing.
    assert_eq!(
        std::fs::read_to_string(out.join("gentable.toml")).unwrap(),
        toml
    );
    assert!(!out.join("schema/TbA.schema.json").exists());
    import_ok(&luban, &out);
    let check = gentable::import::luban::command(&conf, &out, true, "+08:00");
    assert_eq!(check.exit_code, 0, "{}{}", check.stdout, check.stderr);
    let (code, text) = build_project(&out.join("gentable.toml"));
    assert_eq!(code, 0, "{text}");
    let data = std::fs::read_to_string(out.join("generated/data/TbA.json")).unwrap();
    assert!(data.contains("{\"id\":1,\"v\":10}"), "{data}");
}

/// A re-import after a designer's typo leaves the table out and removes its schema: that is an error
/// (exit 1) naming the table and the located cause, in the check and in the import, never a quiet success.
#[test]
fn a_table_left_out_on_re_import_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"v\" type=\"int\"/>\n  </bean>\n  <table name=\"TbA\" value=\"A\" input=\"a.xlsx\"/>\n  <table name=\"TbB\" value=\"A\" input=\"b.xlsx\"/>\n</module>\n")],
    );
    let d = luban.join("Datas");
    write_xlsx(&d.join("a.xlsx"), &[["##var", "id", "v"], ["", "1", "10"]]);
    write_xlsx(&d.join("b.xlsx"), &[["##var", "id", "v"], ["", "2", "20"]]);
    let conf = luban.join("luban.conf");
    import_ok(&luban, &out);
    assert!(out.join("schema/TbA.schema.json").exists());
    // The typo: an int cell holds text.
    write_xlsx(&d.join("a.xlsx"), &[["##var", "id", "v"], ["", "1", "abc"]]);
    let check = gentable::import::luban::command(&conf, &out, true, "+08:00");
    assert_eq!(check.exit_code, 1, "{}{}", check.stdout, check.stderr);
    assert!(
        check.stderr.contains(
            "error: table TbA was imported before and is left out now, its schema to be removed: GT0201: expected an integer, found \"abc\" at "
        ) && check.stderr.contains("Datas/a.xlsx[Sheet1]:2"),
        "{}",
        check.stderr
    );
    assert!(out.join("schema/TbA.schema.json").exists());
    let r = gentable::import::luban::command(&conf, &out, false, "+08:00");
    assert_eq!(r.exit_code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(
            "error: table TbA was imported before and is left out now, its schema removed: GT0201: expected an integer"
        ) && r.stderr.contains("help: fix the data and re-import"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains("remove schema/TbA.schema.json"),
        "{}",
        r.stdout
    );
    // Once it is out, a re-import with the same data removes nothing more: no error.
    let again = gentable::import::luban::command(&conf, &out, false, "+08:00");
    assert_eq!(again.exit_code, 0, "{}{}", again.stdout, again.stderr);
}

/// gentable.toml names every table the import left out with its reason, where a migrating studio looks for
/// a table it misses: one without spreadsheet inputs, and one whose data does not build (its first error,
/// located in the data file as seen from the project).
#[test]
fn gentable_toml_names_each_left_out_table_with_its_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"A\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"v\" type=\"int\"/>\n  </bean>\n  <table name=\"TbJson\" value=\"A\" input=\"j.json\"/>\n  <table name=\"TbBad\" value=\"A\" input=\"a.xlsx\"/>\n  <table name=\"TbGood\" value=\"A\" input=\"b.xlsx\"/>\n</module>\n")],
    );
    let d = luban.join("Datas");
    std::fs::write(d.join("j.json"), "[]").unwrap();
    write_xlsx(&d.join("a.xlsx"), &[["##var", "id", "v"], ["", "1", "abc"]]);
    write_xlsx(&d.join("b.xlsx"), &[["##var", "id", "v"], ["", "2", "20"]]);
    let r = import_ok(&luban, &out);
    let toml = std::fs::read_to_string(out.join("gentable.toml")).unwrap();
    let expected = "\n# Tables left out by the import, each with its reason (the import's report lists all it could not map):\n#   m.TbJson: no spreadsheet input\n#   m.TbBad: its data does not build (GT0201: expected an integer, found \"abc\" at ../luban/Datas/a.xlsx[Sheet1]:2)\n";
    assert!(toml.contains(expected), "{toml}");
    // The report says the same at each table.
    assert!(
        r.stdout.contains("  table m.TbJson: no spreadsheet input: table left out\n")
            && r.stdout.contains("  table m.TbBad: left out: its data does not build (GT0201: expected an integer, found \"abc\" at ../luban/Datas/a.xlsx[Sheet1]:2)\n"),
        "{}",
        r.stdout
    );
    assert!(
        toml.contains("[tables.TbGood]") && !toml.contains("[tables.TbBad]"),
        "{toml}"
    );
}

/// Luban reads a kind's name in a cell as the first kind, in declaration order, whose name or alias it is,
/// and rejects a kind's alias that is another kind's name or alias (`DefBean.Compile`: "alias 重复"). The
/// importer rejects such an alias too, at the kind (a cell holding it would name two kinds); two kinds of
/// one short name in two modules are Luban's own, and where the one declared first is not the one whose
/// `$type` the short name is (`m2.Circle` before `m.Circle` of `m.Shape`), cells holding it are read
/// differently: the importer reports it rather than pick silently.
#[test]
fn kind_names_follow_lubans_declaration_order_or_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[
            ("a.xml", "<module name=\"m2\">\n  <bean name=\"Circle\" parent=\"m.Shape\">\n    <var name=\"d\" type=\"int\"/>\n  </bean>\n</module>\n"),
            ("b.xml", "<module name=\"m\">\n  <bean name=\"Shape\">\n    <var name=\"id\" type=\"int\"/>\n    <bean name=\"Circle\">\n      <var name=\"r\" type=\"int\"/>\n    </bean>\n  </bean>\n  <table name=\"TbShape\" value=\"Shape\" input=\"p.xlsx\"/>\n</module>\n"),
        ],
    );
    let rows: [[&str; 5]; 4] = [
        ["##var", "__type__", "id", "r", "d"],
        ["##type", "", "int", "int", "int"],
        ["", "Circle", "1", "5", ""],
        ["", "m2.Circle", "2", "", "6"],
    ];
    write_xlsx(&luban.join("Datas/p.xlsx"), &rows);
    let r = import_ok(&luban, &out);
    assert!(
        r.stdout.contains("  bean m.Shape: a cell \"Circle\" names the kind m.Circle, whose $type it is; Luban reads it as m2.Circle, the first kind declared with that name or alias: such cells are read differently\n"),
        "{}",
        r.stdout
    );
    let (code, text) = build_project(&out.join("gentable.toml"));
    assert_eq!(code, 0, "{text}");
    let data = std::fs::read_to_string(out.join("generated/data/TbShape.json")).unwrap();
    let rows: Vec<&str> = data.lines().skip(1).take(2).collect();
    assert_eq!(
        rows,
        [
            "{\"$type\":\"Circle\",\"id\":1,\"r\":5},",
            "{\"$type\":\"m2.Circle\",\"d\":6,\"id\":2}"
        ],
        "{data}"
    );

    // An alias that is another kind's name, and one that is an earlier kind's alias: Luban's definition
    // errors, located at the kind.
    for (defs, message, at) in [
        (
            "<module name=\"m\">\n  <bean name=\"Shape\">\n    <var name=\"id\" type=\"int\"/>\n    <bean name=\"A\" alias=\"B\">\n      <var name=\"a\" type=\"int\"/>\n    </bean>\n    <bean name=\"B\">\n      <var name=\"b\" type=\"int\"/>\n    </bean>\n  </bean>\n</module>\n",
            "error[GT0601]: bean m.A has the alias \"B\", which is already the name or alias of m.B, another kind of m.Shape: Luban rejects it too (a cell \"B\" would name both kinds); rename the alias",
            "Defines/a.xml:4",
        ),
        (
            "<module name=\"m\">\n  <bean name=\"Shape\">\n    <var name=\"id\" type=\"int\"/>\n    <bean name=\"A\" alias=\"圆\">\n      <var name=\"a\" type=\"int\"/>\n    </bean>\n    <bean name=\"B\" alias=\"圆\">\n      <var name=\"b\" type=\"int\"/>\n    </bean>\n  </bean>\n</module>\n",
            "error[GT0601]: bean m.B has the alias \"圆\", which is already the name or alias of m.A, another kind of m.Shape: Luban rejects it too (a cell \"圆\" would name both kinds); rename the alias",
            "Defines/a.xml:7",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
        tiny_luban(&luban, &[("a.xml", defs)]);
        let r = gentable::import::luban::command(&luban.join("luban.conf"), &out, false, "+08:00");
        assert_eq!(r.exit_code, 2, "{}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(message) && r.stderr.contains(at), "{}", r.stderr);
        assert!(!out.join("gentable.toml").exists());
    }
}

/// A field's Luban `alias` names its column wherever gentable names columns: a table's header, and (in the
/// Luban dialect) a bean field's sub-column in a `##+`/`##var` sub-header row, as Luban looks a bean's field
/// up by its name, then its alias. Where nothing is named (the kinds of a polymorphic field, read by
/// position), the importer writes no alias and says so.
#[test]
fn field_aliases_name_sub_columns_and_are_not_written_where_they_name_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (luban, out) = (tmp.path().join("luban"), tmp.path().join("out"));
    tiny_luban(
        &luban,
        &[("a.xml", "<module name=\"m\">\n  <bean name=\"Foo\">\n    <var name=\"y1\" type=\"int\" alias=\"甲\"/>\n    <var name=\"y2\" type=\"int\"/>\n  </bean>\n  <bean name=\"Shape\">\n    <bean name=\"Circle\">\n      <var name=\"r\" type=\"int\" alias=\"半径\"/>\n    </bean>\n  </bean>\n  <bean name=\"T\">\n    <var name=\"id\" type=\"int\"/>\n    <var name=\"b\" type=\"Foo\"/>\n    <var name=\"s\" type=\"Shape#sep=,\"/>\n  </bean>\n  <table name=\"TbT\" value=\"T\" input=\"t.xlsx\"/>\n</module>\n")],
    );
    let write = |rows: &[[&str; 5]]| write_xlsx(&luban.join("Datas/t.xlsx"), rows);
    let head = ["##", "id", "[b", "b]", "s"];
    write(&[
        head,
        ["##+", "", "甲", "y2", ""],
        ["", "1", "5", "6", "Circle,3"],
    ]);
    let r = import_ok(&luban, &out);
    let defs: J = serde_json::from_str(
        &std::fs::read_to_string(out.join("schema/luban.schema.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        defs["$defs"]["Foo"]["properties"]["y1"]["x-gentable-aliases"],
        json!(["甲"])
    );
    let circle = &defs["$defs"]["Shape"]["oneOf"][0]["properties"]["r"];
    assert!(circle.get("x-gentable-aliases").is_none(), "{circle}");
    assert!(
        r.stdout.contains("  bean m.Circle.r: alias=半径: not written where the bean is a kind of a polymorphic field, whose values are read by position (in a table whose rows are polymorphic, it still names the column)\n"),
        "{}",
        r.stdout
    );
    let build = || build_project(&out.join("gentable.toml"));
    let (code, text) = build();
    assert_eq!(code, 0, "{text}\n{}", r.stdout);
    let data = std::fs::read_to_string(out.join("generated/data/TbT.json")).expect(&r.stdout);
    assert!(
        data.contains("{\"b\":{\"y1\":5,\"y2\":6},\"id\":1,\"s\":{\"$type\":\"Circle\",\"r\":3}}"),
        "{data}"
    );
    // The alias in another field's place is still an error at the header, never a cell in another field.
    write(&[
        head,
        ["##+", "", "y2", "甲", ""],
        ["", "1", "5", "6", "Circle,3"],
    ]);
    let (code, text) = build();
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("the sub-columns of \"b\" named in the sub-header row (##var or ##+: y2 | 甲) are not its fields in order"),
        "{text}"
    );
}

#[test]
fn an_output_folder_not_created_yet_is_seen_from_where_it_will_be() {
    // `import luban luban.conf --out ../o1` from the Luban folder, o1 not there yet: the project's `tables`
    // path was computed from an unresolved `lb/../o1` and came out one `..` short ("../../Datas").
    let tmp = tempfile::tempdir().unwrap();
    let lb = tmp.path().join("lb");
    std::fs::create_dir_all(lb.join("Datas")).unwrap();
    let rel = gentable::import::luban::relative(&lb.join("../o1"), &lb.join("Datas"));
    assert_eq!(rel, "../lb/Datas");
    let rel = gentable::import::luban::relative(&lb.join("./new/deep/../x"), &lb.join("Datas"));
    assert_eq!(rel, "../../Datas");
    assert_eq!(
        gentable::import::luban::relative(&lb.join("Datas/../Datas"), &lb.join("Datas")),
        "."
    );
}
