//! Real tables that designers and tool authors elsewhere wrote (UnityGameFramework, tabtoy, ET, Luban), read in
//! place from `../shared/realdata/` (never copied into this repository; see its README.md and SOURCE.txt files)
//! through small gentable projects in `tests/realdata/<set>/` whose schemas were written for them.
//!
//! Each test asserts values of specific cells, so a reader regression (encoding, delimiter, header rows,
//! comment markers, merged headers, sheet selection, formula caches) shows up as a wrong value, not only as
//! an error. When the folder is missing the tests fail under `CI=true` and are skipped (with a note) otherwise.

// 3.14, 3.14159 and 3.1415926 are the designers' cell values, not approximations of PI.
#![allow(clippy::approx_constant)]

use gentable::build::{self, Validated};
use gentable::ir::{Row, Table, Value};
use std::path::{Path, PathBuf};

const REALDATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/realdata");

/// The realdata folder, or `None` (skip) when it is missing outside CI.
fn realdata() -> Option<PathBuf> {
    realdata_at(
        Path::new(REALDATA),
        std::env::var("CI").is_ok_and(|v| v == "true"),
    )
}

/// `dir` if it holds the real tables; else a panic when `ci`, a printed note and `None` otherwise.
fn realdata_at(dir: &Path, ci: bool) -> Option<PathBuf> {
    if dir.join("README.md").is_file() {
        return Some(dir.to_path_buf());
    }
    if ci {
        panic!(
            "the real-data folder {} is missing: CI must check out the shared real tables next to the \
             repository (../shared/realdata relative to the repository root)",
            dir.display()
        );
    }
    eprintln!(
        "note: skipping a real-data test: {} is missing (it is required when CI=true)",
        dir.display()
    );
    None
}

#[test]
fn a_missing_realdata_folder_skips_locally_and_fails_in_ci() {
    let missing = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realdata/no-such-folder");
    assert_eq!(realdata_at(&missing, false), None);
    let ci = std::panic::catch_unwind(|| realdata_at(&missing, true));
    let msg = ci.expect_err("CI=true must fail");
    let msg = msg
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(
        msg.contains("real-data folder") && msg.contains("no-such-folder is missing"),
        "{msg}"
    );
}

/// Load `tests/realdata/<set>/gentable.toml`; panics with every diagnostic on failure.
fn load(set: &str) -> Option<Validated> {
    realdata()?;
    let toml = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/realdata")
        .join(set)
        .join("gentable.toml");
    match build::load_path(&toml) {
        Ok((_, v)) => {
            assert!(
                v.warnings.is_empty(),
                "{set}: unexpected warnings: {:#?}",
                v.warnings
            );
            Some(v)
        }
        Err(e) => panic!("{set}: {e:#}"),
    }
}

fn table<'a>(v: &'a Validated, name: &str) -> &'a Table {
    v.project.table(name).unwrap_or_else(|| {
        panic!(
            "no table {name}; tables: {:?}",
            v.project.tables.iter().map(|t| &t.name).collect::<Vec<_>>()
        )
    })
}

/// The row whose (single, integer) primary key is `key`.
fn row(t: &Table, key: i128) -> &Row {
    let pk = t.primary_key[0];
    t.rows
        .iter()
        .find(|r| r.values[pk] == Value::Int(key))
        .unwrap_or_else(|| panic!("{}: no row {key}", t.name))
}

fn val<'a>(t: &Table, r: &'a Row, field: &str) -> &'a Value {
    let i = t
        .field_index(field)
        .unwrap_or_else(|| panic!("{}: no field {field}", t.name));
    &r.values[i]
}

fn keys(t: &Table) -> Vec<i128> {
    let pk = t.primary_key[0];
    t.rows
        .iter()
        .map(|r| {
            if let Value::Int(i) = r.values[pk] {
                i
            } else {
                panic!("non-integer key")
            }
        })
        .collect()
}

fn int(n: i128) -> Value {
    Value::Int(n)
}
fn float(f: f64) -> Value {
    Value::Float(f)
}
fn text(s: &str) -> Value {
    Value::Str(s.into())
}
fn ints(xs: &[i128]) -> Value {
    Value::Array(xs.iter().map(|&x| Value::Int(x)).collect())
}
fn floats(xs: &[f64]) -> Value {
    Value::Array(xs.iter().map(|&x| Value::Float(x)).collect())
}
fn texts(xs: &[&str]) -> Value {
    Value::Array(xs.iter().map(|x| text(x)).collect())
}

/// Assert `(field, value)` pairs of one row.
fn check(t: &Table, r: &Row, expected: &[(&str, Value)]) {
    for (f, v) in expected {
        assert_eq!(
            val(t, r, f),
            v,
            "{} {}:{} field {f}",
            t.name,
            r.origin.file,
            r.origin.row
        );
    }
}

#[test]
fn starforce_utf16_tab_separated_ugf_tables() {
    let Some(v) = load("starforce-ugf-utf16-tsv") else {
        return;
    };
    let names: Vec<&str> = v.project.tables.iter().map(|t| t.name.as_str()).collect();
    // Sound/UIForm/Entity/Asteroid.txt have no [tables] entry: .txt files are tables only when configured.
    assert_eq!(names, ["Aircraft", "Test", "Weapon"]);

    let a = table(&v, "Aircraft");
    assert_eq!(keys(a), [10000, 10002]);
    // Column C has an empty name (designer notes 玩家战机/敌人战机): not a field.
    assert_eq!(
        a.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>()[..3],
        ["Id", "ThrusterId", "WeaponId0"]
    );
    let r = row(a, 10000);
    assert!(
        r.origin
            .file
            .ends_with("starforce-ugf-utf16-tsv/Aircraft.txt"),
        "{}",
        r.origin.file
    );
    assert_eq!(
        (r.origin.row, r.origin.sheet.as_deref()),
        (5, None),
        "CRLF lines counted once"
    );
    assert_eq!(r.column(0), Some(1), "Id is column B");
    check(
        a,
        r,
        &[
            ("ThrusterId", int(20000)),
            ("WeaponId0", int(30000)),
            ("WeaponId1", int(0)),
            ("ArmorId0", int(40000)),
            ("DeadEffectId", int(70000)),
            ("DeadSoundId", int(20000)),
        ],
    );
    let r = row(a, 10002);
    assert_eq!(r.origin.row, 6);
    check(
        a,
        r,
        &[
            ("ThrusterId", int(20001)),
            ("WeaponId0", int(30001)),
            ("ArmorId0", int(40001)),
            ("DeadSoundId", int(20001)),
        ],
    );

    let w = table(&v, "Weapon");
    assert_eq!(keys(w), [30000]);
    check(
        w,
        row(w, 30000),
        &[
            ("Attack", int(100)),
            ("AttackInterval", float(0.2)),
            ("BulletId", int(50000)),
            ("BulletSpeed", float(20.0)),
            ("BulletSoundId", int(10000)),
        ],
    );

    // The all-types table: Excel-quoted cells ("128,128,128,255", """2019-02-04 09:59:59""") and
    // comma lists read with array_separator = ",".
    let t = table(&v, "Test");
    assert_eq!(keys(t), [1]);
    check(
        t,
        row(t, 1),
        &[
            ("BoolValue", Value::Bool(true)),
            ("ByteValue", int(240)),
            ("CharValue", text("A")),
            ("Color32Value", ints(&[128, 128, 128, 255])),
            ("ColorValue", floats(&[0.1, 0.1, 0.1, 0.1])),
            ("CommentValue", text("这一列也是备注")),
            ("DateTimeValue", text("\"2019-02-04 09:59:59\"")),
            ("DecimalValue", float(3.1415926)),
            ("DoubleValue", float(3.1415926)),
            ("FloatValue", float(3.1415926)),
            ("IntValue", int(32768)),
            ("LongValue", int(31415926)),
            ("QuaternionValue", floats(&[0.1, 0.1, 0.1, 0.1])),
            ("RectValue", floats(&[20.0, 20.0, 20.0, 20.0])),
            ("SByteValue", int(120)),
            ("ShortValue", int(16000)),
            ("StringValue", text("字符串")),
            ("UIntValue", int(6000000)),
            ("ULongValue", int(6000000)),
            ("UShortValue", int(60000)),
            ("Vector2Value", floats(&[12.98, 23.12])),
            ("Vector3Value", floats(&[12.34, 23.22, 34.22])),
            ("Vector4Value", floats(&[12.01, 23.0, 34.88, 45.99])),
        ],
    );
}

/// StarForce's enemy aircraft 10002 uses weapon 30001, which Weapon.txt does not have: with the foreign key
/// declared, gentable reports that exact cell.
#[test]
fn starforce_dangling_weapon_reference_is_reported_at_its_cell() {
    let Some(data) = realdata() else { return };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realdata/starforce-ugf-utf16-tsv");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("schema")).unwrap();
    for t in ["Aircraft", "Weapon"] {
        let file = format!("schema/{t}.schema.json");
        let mut s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(src.join(&file)).unwrap()).unwrap();
        if t == "Aircraft" {
            s["properties"]["WeaponId0"]["x-gentable-foreignKey"] = "Weapon".into();
        }
        std::fs::write(dir.path().join(&file), s.to_string()).unwrap();
    }
    let folder = data.join("starforce-ugf-utf16-tsv").canonicalize().unwrap();
    let toml = format!(
        "[project]\nname = \"S\"\ntables = [{:?}]\n\n[tables.Aircraft]\ndelimiter = \"\\t\"\nheader_row = 2\n\n\
         [tables.Weapon]\ndelimiter = \"\\t\"\nheader_row = 2\n",
        folder.to_string_lossy()
    );
    std::fs::write(dir.path().join("gentable.toml"), toml).unwrap();
    let loaded = gentable::config::load(&dir.path().join("gentable.toml")).unwrap();
    let d = build::load(&loaded)
        .err()
        .expect("the dangling reference must fail the load")
        .items;
    assert_eq!(d.len(), 1, "{d:#?}");
    let d = &d[0];
    assert_eq!(d.code, "GT0304");
    assert!(
        d.file.ends_with("starforce-ugf-utf16-tsv/Aircraft.txt"),
        "{}",
        d.file
    );
    assert_eq!(
        (
            d.row,
            d.column.as_deref(),
            d.field.as_deref(),
            d.cell_text.as_deref()
        ),
        (6, Some("E"), Some("WeaponId0"), Some("30001"))
    );
    assert_eq!(d.help.as_deref(), Some("did you mean \"30000\"?"));
}

/// tabtoy's GBK CSV: two files form one table; repeated headers are multi-column arrays; `|` arrays; the
/// trailing ",,,," rows are blank.
#[test]
fn tabtoy_gbk_csv_two_files_one_table() {
    let Some(v) = load("tabtoy-v3-gbk-csv") else {
        return;
    };
    let t = table(&v, "ExampleData");
    assert_eq!(keys(t), [100, 200, 300, 400]);
    let r = row(t, 100);
    assert!(
        r.origin.file.ends_with("tabtoy-v3-gbk-csv/Data.csv"),
        "{}",
        r.origin.file
    );
    assert_eq!(r.origin.row, 2);
    check(
        t,
        r,
        &[
            ("名称", text("扎克镇")),
            ("比例", float(3.14)),
            ("精度", float(1.602176)),
            ("技能列表", ints(&[3, 1, 2])), // columns E, G, H
            ("类型", text("狂鼠")),         // ActorType alias of Junkrat, read as text
            ("增益", int(100)),
            ("标记", texts(&["a", "b"])), // a|b
            ("多列", ints(&[1, 3])),      // columns K, L
        ],
    );
    check(
        t,
        row(t, 200),
        &[
            ("名称", text("阿努比斯神庙")),
            ("精度", float(3.14159)),
            ("技能列表", ints(&[100, 90])), // G is empty
            ("类型", text("法鸡")),
            ("增益", int(1)),
            ("标记", texts(&["c"])),
            ("多列", ints(&[4])), // L is empty
        ],
    );
    let r = row(t, 300);
    assert!(
        r.origin.file.ends_with("tabtoy-v3-gbk-csv/Data2.csv"),
        "{}",
        r.origin.file
    );
    assert_eq!(r.origin.row, 2);
    check(
        t,
        r,
        &[
            ("名称", text("花村")),
            ("比例", float(79.4)),
            ("类型", text("源氏")),
            ("技能列表", ints(&[])),
            ("增益", Value::Null),
        ],
    );
    check(
        t,
        row(t, 400),
        &[
            ("名称", text("艾兴瓦尔德")),
            ("比例", float(0.63)),
            ("类型", text("天使")),
        ],
    );

    let e = table(&v, "ExtendData");
    let vals: Vec<&Value> = e.rows.iter().map(|r| val(e, r, "附加")).collect();
    assert_eq!(vals, [&float(1.1), &float(1.2)]);
}

/// The same tabtoy data as an xlsx written by WPS (numbers are float cells; styled empty rows at the end).
#[test]
fn tabtoy_wps_xlsx() {
    let Some(v) = load("tabtoy-v3-xlsx") else {
        return;
    };
    assert_eq!(v.project.tables.len(), 1);
    let t = table(&v, "ExampleData");
    assert_eq!(keys(t), [100, 200]);
    let r = row(t, 100);
    assert!(
        r.origin.file.ends_with("tabtoy-v3-xlsx/Data.xlsx"),
        "{}",
        r.origin.file
    );
    assert_eq!(
        (r.origin.sheet.as_deref(), r.origin.row),
        (Some("Sheet1"), 2)
    );
    check(
        t,
        r,
        &[
            ("名称", text("扎克镇")),
            ("比例", float(3.14)),
            ("精度", float(1.602176)),
            ("技能列表", ints(&[3, 1, 2])),
            ("类型", text("狂鼠")),
            ("增益", int(100)),
            ("标记", texts(&["a", "b"])),
            ("多列", ints(&[1, 3])),
        ],
    );
    check(
        t,
        row(t, 200),
        &[
            ("名称", text("阿努比斯神庙")),
            ("技能列表", ints(&[100, 90])),
            ("多列", ints(&[4])),
            ("标记", texts(&["c"])),
        ],
    );
}

/// ET's exporter layout: names in row 4, data from row 6 and column C, '#'-tagged columns in row 2, formula
/// ids, and several sheets concatenated into one table.
#[test]
fn et_excel_unit_ai_and_scene_configs() {
    let Some(v) = load("et-excel-xlsx") else {
        return;
    };
    let u = table(&v, "UnitConfig");
    assert_eq!(keys(u), [1001, 1002]);
    let r = row(u, 1001);
    assert!(
        r.origin.file.ends_with("et-excel-xlsx/UnitConfig.xlsx"),
        "{}",
        r.origin.file
    );
    assert_eq!(
        (r.origin.sheet.as_deref(), r.origin.row),
        (Some("UnitProto"), 6)
    );
    assert_eq!(r.column(0), Some(2), "Id is column C");
    check(
        u,
        r,
        &[
            ("Type", int(1)),
            ("Name", text("米克尔")),
            ("Desc", text("带有强力攻击技能")),
            ("Position", int(1)),
            ("Height", int(178)),
            ("Weight", int(68)),
        ],
    );
    check(
        u,
        row(u, 1002),
        &[
            ("Name", text("米克尔2")),
            ("Position", int(2)),
            ("Height", int(278)),
            ("Weight", int(78)),
        ],
    );

    // Ids are formulas (=D6*100+E6): their cached values.
    let a = table(&v, "AIConfig");
    assert_eq!(keys(a), [101, 102, 201]);
    assert!(a.field_index("Desc").is_none(), "Desc is tagged # in row 2");
    let r = row(a, 101);
    assert_eq!(
        (r.origin.sheet.as_deref(), r.origin.row),
        (Some("AIConfig_1"), 6)
    );
    check(
        a,
        r,
        &[
            ("AIConfigId", int(1)),
            ("Order", int(1)),
            ("Name", text("AI_Attack")),
            ("NodeParams", ints(&[])),
        ],
    );
    check(
        a,
        row(a, 102),
        &[
            ("AIConfigId", int(1)),
            ("Order", int(2)),
            ("Name", text("AI_XunLuo")),
        ],
    );
    let r = row(a, 201);
    assert_eq!(
        (r.origin.sheet.as_deref(), r.origin.row),
        (Some("AIConfig_2"), 6)
    );
    check(
        a,
        r,
        &[
            ("AIConfigId", int(2)),
            ("Order", int(1)),
            ("Name", text("AI_XunLuo")),
        ],
    );

    // StartSceneConfig@s.xlsx: three sheets (one with a Chinese name) form one table.
    let s = table(&v, "StartSceneConfig");
    assert_eq!(keys(s), [1, 2, 3, 4, 5, 6, 200, 300, 301, 302, 303, 304]);
    let r = row(s, 200);
    assert!(
        r.origin
            .file
            .ends_with("et-excel-xlsx/StartSceneConfig@s.xlsx"),
        "{}",
        r.origin.file
    );
    assert_eq!(r.origin.sheet.as_deref(), Some("Robot区"));
    check(
        s,
        r,
        &[
            ("Process", int(1)),
            ("Zone", int(2)),
            ("SceneType", text("Robot")),
            ("Name", text("Robot01")),
            ("OuterPort", Value::Null),
        ],
    );
    check(
        s,
        row(s, 1),
        &[
            ("SceneType", text("Realm")),
            ("Name", text("Realm")),
            ("OuterPort", int(10002)),
        ],
    );
    let r = row(s, 304);
    assert_eq!(
        (r.origin.sheet.as_deref(), r.origin.row),
        (Some("Router"), 10)
    );
    check(
        s,
        r,
        &[
            ("SceneType", text("Router")),
            ("Name", text("Router04")),
            ("OuterPort", int(10304)),
        ],
    );
}

/// Without `column_marker_row`, ET's '#'-tagged Desc column of AIConfig is an unknown column: the override is
/// what skips it.
#[test]
fn et_excel_designer_column_needs_the_column_marker_row() {
    let Some(data) = realdata() else { return };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realdata/et-excel-xlsx");
    let dir = tempfile::tempdir().unwrap();
    let toml = format!(
        "[project]\nname = \"E\"\ntables = [{:?}]\nschemas = {:?}\nignore = [\"UnitConfig.xlsx\", \"StartSceneConfig@s.xlsx\"]\n\n\
         [tables.AIConfig]\nsheets = [\"AIConfig_*\"]\nheader_row = 4\ndata_row = 6\nfirst_column = \"C\"\n",
        data.join("et-excel-xlsx").canonicalize().unwrap().to_string_lossy(),
        src.join("schema").to_string_lossy()
    );
    std::fs::write(dir.path().join("gentable.toml"), toml).unwrap();
    let loaded = gentable::config::load(&dir.path().join("gentable.toml")).unwrap();
    let d = build::load(&loaded)
        .err()
        .expect("Desc is not in the schema")
        .items;
    let got: Vec<_> = d
        .iter()
        .map(|d| {
            (
                d.code.as_str(),
                d.sheet.as_deref(),
                d.row,
                d.column.as_deref(),
                d.field.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("GT0211", Some("AIConfig_1"), 4, Some("G"), Some("Desc")),
            ("GT0211", Some("AIConfig_2"), 4, Some("G"), Some("Desc")),
        ],
        "{d:#?}"
    );
}

/// Luban's dialect: '##' markers in column A, the first '##' row holds the names, a header merged over E1:K1
/// is one list field, an Excel lock file and an empty Sheet3 are skipped.
#[test]
fn et_luban_item_and_unit() {
    let Some(v) = load("et-luban-branch-xlsx") else {
        return;
    };
    let names: Vec<&str> = v.project.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["Container", "Item", "Unit", "VoidCaster"],
        "no Sheet3, nothing from ~$Buff.xlsx"
    );

    let i = table(&v, "Item");
    assert_eq!(keys(i), [1001, 1002, 1003]);
    let r = row(i, 1001);
    assert_eq!((r.origin.sheet.as_deref(), r.origin.row), (Some("Item"), 4));
    assert_eq!(r.column(0), Some(1), "id is column B");
    check(
        i,
        r,
        &[
            ("name", text("测试物品")),
            ("type", int(1)),
            ("sub_type", int(101)),
            ("quality", int(1)),
            ("sale_price", texts(&["1002,1", "1003,2"])),
            ("pile_limit", int(10)),
            ("condition_data", ints(&[])),
            ("container_type", int(1)),
            ("icon", Value::Null),
            ("desc", text("测试描述文本")),
            ("get_source", text("冒险\\n商店")), // a literal backslash-n, kept as written
        ],
    );
    check(
        i,
        row(i, 1003),
        &[
            ("type", int(2)),
            ("sub_type", int(201)),
            ("pile_limit", int(1)),
            ("sale_price", ints(&[])),
        ],
    );

    let c = table(&v, "Container");
    assert_eq!(keys(c), [1, 2, 3, 4, 5, 6, 99]);
    check(
        c,
        row(c, 1),
        &[
            ("name", text("常规")),
            ("type", int(1)),
            ("Capacity", int(1000)),
        ],
    );
    check(
        c,
        row(c, 6),
        &[
            ("name", text("魔法马车")),
            ("type", int(2)),
            ("Capacity", int(100)),
        ],
    );
    check(
        c,
        row(c, 99),
        &[("name", text("隐藏")), ("Capacity", int(1000))],
    );

    let u = table(&v, "Unit");
    assert_eq!(keys(u), [1001, 1002, 1003, 1004]);
    let r = row(u, 1001);
    assert!(
        r.origin.file.ends_with("et-luban-branch-xlsx/Unit.xlsx"),
        "{}",
        r.origin.file
    );
    assert_eq!((r.origin.sheet.as_deref(), r.origin.row), (Some("unit"), 4));
    check(
        u,
        r,
        &[
            ("name", text("米克尔")),
            ("desc", Value::Null),
            (
                "attributes#sep=",
                texts(&["力量=80", "生命=800", "先攻=50"]),
            ),
            ("unit_type", Value::Enum("Npc".into())),
        ],
    );
    check(
        u,
        row(u, 1003),
        &[
            ("name", text("homo")),
            (
                "attributes#sep=",
                texts(&["力量=200", "生命=200", "先攻=20"]),
            ),
        ],
    );
    // D7 is the number 1 in a string field: its text.
    check(
        u,
        row(u, 1004),
        &[
            ("name", text("狗鱼")),
            ("desc", text("1")),
            (
                "attributes#sep=",
                texts(&["力量=90", "生命=500", "先攻=53"]),
            ),
        ],
    );

    let vc = table(&v, "VoidCaster");
    assert_eq!(keys(vc), [9001]);
    check(
        vc,
        row(vc, 9001),
        &[
            ("name", text("无")),
            ("attributes", texts(&[])),
            ("unit_type", text("Npc")),
        ],
    );
}
