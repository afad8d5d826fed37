//! Test support for the emitters: a hand-built project that exercises every type and naming corner, its
//! canonical data, and the lookup of the external compilers (mono `mcs`, `tsc`).

use crate::config::Config;
use crate::ir::canonical;
use crate::ir::{EnumDef, Field, IntWidth, Project, RecordDef, Row, Table, TableMode, Type, Value};
use std::path::{Path, PathBuf};

fn field(name: &str, ty: Type, doc: &str) -> Field {
    Field {
        doc: doc.into(),
        ..Field::new(name, ty)
    }
}

fn opt(t: Type) -> Type {
    Type::Optional(Box::new(t))
}

fn arr(t: Type) -> Type {
    Type::Array(Box::new(t))
}

fn row(values: Vec<Value>) -> Row {
    Row::new(values)
}

fn s(v: &str) -> Value {
    Value::Str(v.into())
}

fn e(v: &str) -> Value {
    Value::Enum(v.into())
}

fn vec2(x: i128, y: i128, label: Option<&str>) -> Value {
    Value::Record(vec![
        Value::Int(x),
        Value::Int(y),
        label.map(s).unwrap_or(Value::Null),
    ])
}

/// Text that tries to break out of every comment and string syntax.
pub const NASTY: &str =
    "*/ </summary> <b>&amp; \"q\" \\ {{x}} ${y} `z` \u{2028}ls\u{2029}ps\u{85}nel\r\nnext */";

fn table(name: &str, mode: TableMode, fields: Vec<Field>, pk: Vec<usize>, rows: Vec<Row>) -> Table {
    Table {
        doc: format!("The {name} table. {NASTY}"),
        primary_key: pk,
        rows,
        ..Table::new(name, mode, fields)
    }
}

/// A project with: a map table with an enum, records, optionals, arrays (nested, of optionals, of records),
/// 64-bit integers beyond 2^53, keyword-named fields (`class`, `params`, `delete`, `constructor`, `Key`,
/// `ToString`, a field named like its class, a non-ASCII name); a composite-key map table; a singleton; list
/// tables (one named `Load`, one empty).
pub fn project() -> Project {
    let mut p = Project {
        name: format!("Sample {NASTY}"),
        ..Default::default()
    };
    p.enums.insert(
        "Dir".into(),
        EnumDef {
            name: "Dir".into(),
            doc: format!("Direction. {NASTY}"),
            members: [
                "Forward",
                "Left",
                "Back Right",
                "class",
                "quo\"te*/",
                "名字",
                "{{x}}${y}`",
            ]
            .map(String::from)
            .to_vec(),
            aliases: vec![],
            values: None,
            idents: vec![],
            origin: "common.schema.json#/$defs/Dir".into(),
        },
    );
    p.enums.insert(
        "Tier".into(),
        EnumDef {
            name: "Tier".into(),
            doc: String::new(),
            members: vec!["Gold".into(), "Silver".into()],
            aliases: vec![],
            values: None,
            idents: vec![],
            origin: String::new(),
        },
    );
    p.records.insert(
        "Vec2".into(),
        RecordDef {
            name: "Vec2".into(),
            doc: "A 2-D vector.".into(),
            fields: vec![
                field("x", Type::Int(IntWidth::I32), "Column."),
                field("y", Type::Int(IntWidth::I32), "Row."),
                field("label", opt(Type::String), NASTY),
            ],
            origin: String::new(),
            form: Default::default(),
        },
    );
    p.records.insert(
        "Effect".into(),
        RecordDef {
            name: "Effect".into(),
            doc: String::new(),
            fields: vec![
                field("kind", Type::Enum("Dir".into()), ""),
                field("amounts", arr(Type::Float), ""),
                field("at", opt(Type::Record("Vec2".into())), ""),
                field("ToString", Type::Int(IntWidth::I8), ""),
                field("Effect", Type::String, "Named like its class."),
            ],
            origin: String::new(),
            form: Default::default(),
        },
    );

    let piece_fields = vec![
        field("Id", Type::Int(IntWidth::U16), "Primary key."),
        field("Name", Type::String, NASTY),
        field("class", Type::Enum("Dir".into()), "A keyword."),
        field("params", arr(Type::Int(IntWidth::I32)), ""),
        field("delete", opt(Type::String), ""),
        field("constructor", opt(Type::Bool), ""),
        field("Big", Type::Int(IntWidth::I64), ""),
        field("Ubig", opt(Type::Int(IntWidth::U64)), ""),
        field("Pos", Type::Record("Vec2".into()), ""),
        field("Path", arr(Type::Record("Vec2".into())), ""),
        field("Ratio", Type::Float, ""),
        field("Grid", arr(arr(Type::Int(IntWidth::U8))), ""),
        field("Maybe", arr(opt(Type::Int(IntWidth::I16))), ""),
        field("PieceType", Type::String, "Named like its class."),
        field("名字", Type::String, "Non-ASCII name."),
        field("Effects", arr(Type::Record("Effect".into())), ""),
        field(
            "Key",
            Type::String,
            "Takes the name of the synthetic key property.",
        ),
        field("Facing", opt(Type::Enum("Dir".into())), ""),
        field("Score", opt(Type::Float), ""),
        field("Target", opt(Type::Record("Vec2".into())), ""),
        field("Notes", opt(arr(Type::String)), ""),
        field("Small", Type::Int(IntWidth::I8), ""),
        field("Medium", Type::Int(IntWidth::U32), ""),
        field("Flag", Type::Bool, ""),
    ];
    let effect = |kind: &str, amounts: &[f64], at: Option<Value>| {
        Value::Record(vec![
            e(kind),
            Value::Array(amounts.iter().map(|&f| Value::Float(f)).collect()),
            at.unwrap_or(Value::Null),
            Value::Int(-128),
            s("fx"),
        ])
    };
    let piece_rows = vec![
        row(vec![
            Value::Int(1),
            s("Pawn"),
            e("Forward"),
            Value::Array(vec![
                Value::Int(1),
                Value::Int(-2147483648),
                Value::Int(2147483647),
            ]),
            s("gone"),
            Value::Bool(true),
            Value::Int((1 << 53) + 1),
            Value::Int(u64::MAX as i128),
            vec2(0, 1, None),
            Value::Array(vec![vec2(1, 2, Some("a")), vec2(-3, 4, Some(NASTY))]),
            Value::Float(0.1),
            Value::Array(vec![
                Value::Array(vec![Value::Int(0), Value::Int(255)]),
                Value::Array(vec![]),
            ]),
            Value::Array(vec![Value::Int(-32768), Value::Null, Value::Int(32767)]),
            s("self"),
            s("名字"),
            Value::Array(vec![effect(
                "quo\"te*/",
                &[0.30000000000000004, -2.5e-10, 1e-6, 1e-7],
                Some(vec2(5, 6, None)),
            )]),
            s("k1"),
            e("名字"),
            Value::Float(1e21),
            vec2(7, 8, Some("t")),
            Value::Array(vec![s("n1"), s("")]),
            Value::Int(-128),
            Value::Int(u32::MAX as i128),
            Value::Bool(false),
        ]),
        row(vec![
            Value::Int(2),
            s("a\"b\\c\n\t\u{1}\u{1f}\u{7f}"),
            e("Back Right"),
            Value::Array(vec![]),
            Value::Null,
            Value::Null,
            Value::Int(i64::MIN as i128),
            Value::Null,
            vec2(-1, -1, Some("")),
            Value::Array(vec![]),
            Value::Float(5e-324),
            Value::Array(vec![]),
            Value::Array(vec![Value::Null]),
            s(""),
            s(""),
            Value::Array(vec![]),
            s("k2"),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Int(127),
            Value::Int(0),
            Value::Bool(true),
        ]),
        row(vec![
            Value::Int(65535),
            s("€😀\u{2028}</script> {{x}} ${y} `z` \u{fb33}"),
            e("{{x}}${y}`"),
            Value::Array(vec![Value::Int(0)]),
            s("*/"),
            Value::Bool(false),
            Value::Int((1 << 53) - 1),
            Value::Int(1 << 53),
            vec2(2147483647, -2147483648, None),
            Value::Array(vec![vec2(0, 0, None)]),
            Value::Float(1.7976931348623157e308),
            Value::Array(vec![Value::Array(vec![Value::Int(7)])]),
            Value::Array(vec![]),
            s("x"),
            s("y"),
            Value::Array(vec![
                effect("class", &[], None),
                effect("Left", &[-0.0, 100.0, 1e20], None),
            ]),
            s("k3"),
            e("class"),
            Value::Float(-123.456e-300),
            Value::Null,
            Value::Array(vec![]),
            Value::Int(0),
            Value::Int(4000000000),
            Value::Bool(false),
        ]),
    ];
    p.tables.push(table(
        "Const",
        TableMode::One,
        vec![
            field("MaxSteps", Type::Int(IntWidth::I32), "Steps per turn."),
            field("Gravity", Type::Float, ""),
            field("Title", Type::String, ""),
            field("Big Number", Type::Int(IntWidth::I64), ""),
            field("toString", Type::String, ""),
        ],
        vec![],
        vec![row(vec![
            Value::Int(12),
            Value::Float(-9.81),
            s("Funny \"Pitch\""),
            Value::Int(i64::MAX as i128),
            s("ts keyword"),
        ])],
    ));
    p.tables.push(table(
        "Empty",
        TableMode::List,
        vec![field("X", Type::Int(IntWidth::I32), "")],
        vec![],
        vec![],
    ));
    // Issue-6 types: a recursive union whose discriminator is a keyword, maps (string and 64-bit keys),
    // flags, date-times and durations, a unique key with a lookup.
    p.unions.insert(
        "Act".into(),
        crate::ir::UnionDef {
            name: "Act".into(),
            doc: format!("An action. {NASTY}"),
            discriminator: "type".into(),
            variants: vec![
                crate::ir::Variant {
                    tag: "class".into(),
                    doc: NASTY.into(),
                    fields: vec![
                        field("amount", Type::Int(IntWidth::I32), ""),
                        field("next", opt(Type::Union("Act".into())), "Recursive."),
                    ],
                },
                crate::ir::Variant {
                    tag: "名字".into(),
                    doc: String::new(),
                    fields: vec![],
                },
                crate::ir::Variant {
                    tag: "Move".into(),
                    doc: String::new(),
                    fields: vec![
                        field("to", Type::Record("Vec2".into()), ""),
                        field("dirs", Type::Flags("Dir".into()), ""),
                    ],
                },
            ],
            origin: String::new(),
        },
    );
    let map = |k: Type, v: Type| Type::Map(Box::new(k), Box::new(v));
    let act_class =
        |amount: i128, next: Value| Value::union("class".into(), vec![Value::Int(amount), next]);
    let mut extras = table(
        "Extras",
        TableMode::List,
        vec![
            field("Name", Type::String, ""),
            field("Act", Type::Union("Act".into()), ""),
            field("Acts", arr(opt(Type::Union("Act".into()))), ""),
            field("ByName", map(Type::String, Type::Union("Act".into())), ""),
            field("Big", map(Type::Int(IntWidth::I64), Type::String), ""),
            field("Dirs", Type::Flags("Dir".into()), ""),
            field("At", Type::DateTime(None), ""),
            field("Until", opt(Type::DateTime(Some(3600))), ""),
            field("For", Type::Duration, ""),
            field("Day", Type::Date, ""),
            field("Reset", opt(Type::Time(Some(28_800))), ""),
        ],
        vec![],
        vec![
            row(vec![
                s("one"),
                act_class(-5, act_class(6, Value::Null)),
                Value::Array(vec![
                    Value::Null,
                    Value::union("名字".into(), vec![]),
                    Value::union(
                        "Move".into(),
                        vec![
                            vec2(1, 2, Some(NASTY)),
                            Value::Array(vec![e("Forward"), e("名字")]),
                        ],
                    ),
                ]),
                Value::Map(vec![
                    (s("b"), Value::union("名字".into(), vec![])),
                    (s("é"), act_class(1, Value::Null)),
                    // IR order: UTF-8 bytes (｡ is EF BD A1, 😀 is F0 9F 98 80); JCS writes them the other way.
                    (s("｡"), act_class(3, Value::Null)),
                    (s("😀"), act_class(2, Value::Null)),
                ]),
                Value::Map(vec![
                    (Value::Int(i64::MIN as i128), s(NASTY)),
                    (Value::Int(-1), s("")),
                    (Value::Int(9), s("nine")),
                    (Value::Int(10), s("ten")),
                    (Value::Int(i64::MAX as i128), s("max")),
                ]),
                Value::Array(vec![e("Forward"), e("class"), e("{{x}}${y}`")]),
                Value::DateTime(crate::ir::time::MIN_SECONDS),
                Value::DateTime(crate::ir::time::MAX_SECONDS),
                Value::Duration(-1),
                Value::Date(crate::ir::time::MIN_DAYS),
                Value::Time(86_399),
            ]),
            row(vec![
                s("two"),
                Value::union("名字".into(), vec![]),
                Value::Array(vec![]),
                Value::Map(vec![]),
                Value::Map(vec![]),
                Value::Array(vec![]),
                Value::DateTime(1_714_536_000),
                Value::Null,
                Value::Duration(crate::ir::time::MAX_DURATION_MS),
                Value::Date(crate::ir::time::MAX_DAYS),
                Value::Null,
            ]),
        ],
    );
    extras.unique_keys = vec![vec![0]];
    p.tables.push(extras);
    p.tables.push(table(
        "Load",
        TableMode::List,
        vec![
            field("value", Type::String, "C# contextual keyword."),
            field("At", opt(Type::Float), ""),
        ],
        vec![],
        vec![
            row(vec![s("first"), Value::Float(1e-7)]),
            row(vec![s("second"), Value::Null]),
            row(vec![s("third"), Value::Float(1e20)]),
        ],
    ));
    p.tables.push(table(
        "Move",
        TableMode::Map,
        vec![
            field("Piece", Type::String, ""),
            field("Step", Type::Int(IntWidth::I32), ""),
            field("Tier", Type::Enum("Tier".into()), ""),
            field("Tags", arr(Type::String), ""),
        ],
        vec![0, 2, 1],
        vec![
            row(vec![
                s("Pawn"),
                Value::Int(1),
                e("Gold"),
                Value::Array(vec![s("a"), s("b")]),
            ]),
            row(vec![
                s("Pawn"),
                Value::Int(2),
                e("Gold"),
                Value::Array(vec![s("c")]),
            ]),
            row(vec![
                s("Pawn"),
                Value::Int(1),
                e("Silver"),
                Value::Array(vec![]),
            ]),
        ],
    ));
    p.tables.push(table(
        "PieceType",
        TableMode::Map,
        piece_fields,
        vec![0],
        piece_rows,
    ));
    add_references(&mut p);
    p
}

fn fk(mut f: Field, table: &str, field: Option<&str>) -> Field {
    f.foreign_keys = vec![(table.into(), field.map(String::from))];
    f
}

/// Foreign keys of every shape the typed references resolve (issue 15): an optional integer of another width
/// than the key (`PieceType.Next`), a string found by a unique key (`Move.Piece` → `PieceType.Name`), a field of
/// a record inside an array (`Effect.source`), a field of a union kind reached through unions, arrays of
/// nullable unions and map values (`Act` kind `class` `by`), nested arrays (`Extras.Owners`), an optional
/// array (`Extras.Spares`), the primary key named explicitly by an `i64` (`Extras.Lead`), an array of optional
/// keys (`Extras.Mates`), an optional array of arrays (`Extras.Squads`), map values (`Extras.Ranks`) and an
/// optional map (`Extras.Guards`).
fn add_references(p: &mut Project) {
    fn by_kind(v: &mut Value) {
        match v {
            Value::Union(uv) => {
                if uv.tag == "class" && uv.values.len() == 2 {
                    uv.values.push(Value::Int(2));
                }
                uv.values.iter_mut().for_each(by_kind);
            }
            Value::Array(items) | Value::Record(items) => items.iter_mut().for_each(by_kind),
            Value::Map(entries) => entries.iter_mut().for_each(|(_, v)| by_kind(v)),
            _ => {}
        }
    }
    let opt_u16 = || opt(Type::Int(IntWidth::U16));
    p.records.get_mut("Effect").unwrap().fields.push(fk(
        field("source", opt_u16(), "The piece that casts it."),
        "PieceType",
        None,
    ));
    p.unions.get_mut("Act").unwrap().variants[0].fields.push(fk(
        field("by", opt_u16(), "Who acts."),
        "PieceType",
        None,
    ));
    let piece = p.tables.iter_mut().find(|t| t.name == "PieceType").unwrap();
    piece.fields.push(fk(
        field(
            "Next",
            opt(Type::Int(IntWidth::I32)),
            "The piece after this one.",
        ),
        "PieceType",
        None,
    ));
    piece.unique_keys.push(vec![1]);
    for (row, next) in piece
        .rows
        .iter_mut()
        .zip([Value::Int(2), Value::Null, Value::Int(1)])
    {
        row.values.push(next);
        if let Value::Array(effects) = &mut row.values[15] {
            for (i, e) in effects.iter_mut().enumerate() {
                if let Value::Record(fs) = e {
                    fs.push(if i == 0 {
                        Value::Int(65535)
                    } else {
                        Value::Null
                    });
                }
            }
        }
    }
    let moves = p.tables.iter_mut().find(|t| t.name == "Move").unwrap();
    moves.fields[0].foreign_keys = vec![("PieceType".into(), Some("Name".into()))];
    let extras = p.tables.iter_mut().find(|t| t.name == "Extras").unwrap();
    extras.fields.push(fk(
        field(
            "Owners",
            arr(arr(Type::Int(IntWidth::U16))),
            "Nested references.",
        ),
        "PieceType",
        None,
    ));
    extras.fields.push(fk(
        field(
            "Spares",
            opt(arr(Type::Int(IntWidth::U16))),
            "An optional array of references.",
        ),
        "PieceType",
        None,
    ));
    let owners = [
        Value::Array(vec![
            Value::Array(vec![Value::Int(1), Value::Int(2)]),
            Value::Array(vec![Value::Int(65535)]),
        ]),
        Value::Array(vec![]),
    ];
    // The primary key named explicitly (`PieceType.Id`), by a field of another width.
    extras.fields.push(fk(
        field("Lead", Type::Int(IntWidth::I64), "The key spelled out."),
        "PieceType",
        Some("Id"),
    ));
    let spares = [
        Value::Array(vec![Value::Int(2), Value::Int(1)]),
        Value::Null,
    ];
    // Deeper nestings: an array of optional keys, an optional array of arrays, keys as map values.
    let u16_ = || Type::Int(IntWidth::U16);
    let map = |k: Type, v: Type| Type::Map(Box::new(k), Box::new(v));
    for (name, ty, doc) in [
        (
            "Mates",
            arr(opt(u16_())),
            "An array of optional references.",
        ),
        (
            "Squads",
            opt(arr(arr(u16_()))),
            "An optional array of arrays of references.",
        ),
        (
            "Ranks",
            map(Type::String, u16_()),
            "References as map values.",
        ),
        (
            "Guards",
            opt(map(Type::String, u16_())),
            "An optional map of references.",
        ),
    ] {
        extras
            .fields
            .push(fk(field(name, ty, doc), "PieceType", None));
    }
    let ints = |ks: &[i128]| Value::Array(ks.iter().map(|&k| Value::Int(k)).collect());
    let deeper = [
        [
            Value::Array(vec![Value::Int(1), Value::Null, Value::Int(65535)]),
            Value::Array(vec![ints(&[2]), ints(&[1, 2])]),
            Value::Map(vec![
                (Value::Str("a".into()), Value::Int(1)),
                (Value::Str("b".into()), Value::Int(65535)),
            ]),
            Value::Map(vec![(Value::Str("g".into()), Value::Int(2))]),
        ],
        [
            Value::Array(vec![]),
            Value::Null,
            Value::Map(vec![]),
            Value::Null,
        ],
    ];
    for ((((row, o), sp), lead), more) in extras
        .rows
        .iter_mut()
        .zip(owners)
        .zip(spares)
        .zip([65535, 1])
        .zip(deeper)
    {
        row.values.iter_mut().for_each(by_kind);
        row.values.push(o);
        row.values.push(sp);
        row.values.push(Value::Int(lead));
        row.values.extend(more);
    }
}

/// The data files of `p`: table name → `data/<Table>.json` contents (one row per line, with the table's
/// hashes: [`super::data::json`]).
pub fn data(p: &Project) -> Vec<(String, String)> {
    p.tables
        .iter()
        .map(|t| {
            let layout = super::data::schema_hash(p, t);
            (t.name.clone(), super::data::json::render(p, t, &layout).0)
        })
        .collect()
}

/// The canonical JSON of every table of `p` (what `ToCanonicalJson` / `canonicalTables` must write):
/// table name → `[row,…]`.
pub fn canonical(p: &Project) -> Vec<(String, String)> {
    p.tables
        .iter()
        .map(|t| (t.name.clone(), canonical::table_json(p, t)))
        .collect()
}

/// Per table of `p`: the BLAKE3 of its canonical data (the `dataHash` of its data file).
pub fn data_hashes(p: &Project) -> std::collections::BTreeMap<String, String> {
    canonical(p)
        .into_iter()
        .map(|(n, c)| (n, blake3::hash(c.as_bytes()).to_hex().to_string()))
        .collect()
}

/// Write `files` (relative paths) under `dir`.
pub fn write_files<'a>(dir: &Path, files: impl IntoIterator<Item = (&'a String, &'a String)>) {
    for (rel, text) in files {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A default configuration with the namespace used by the tests.
pub fn config() -> Config {
    let mut c = Config::default();
    c.csharp.namespace = "Sample.Config".into();
    c
}

/// `Some(path)` of an executable found on `PATH`; `None` if missing and not on CI. On CI (`CI=true`) a
/// missing tool fails the test: compiled-output tests must never be skipped silently there.
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .unwrap_or_default();
    require(found, name)
}

/// `Some(path)` if `path` exists; otherwise fails on CI and skips (with a message) elsewhere.
pub fn require(found: Option<PathBuf>, what: &str) -> Option<PathBuf> {
    if found.is_none() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{what} is required on CI (CI=true) but was not found");
        }
        eprintln!("skipping: {what} not found");
    }
    found
}

/// Run a command, panicking with its output unless it succeeds; returns stdout.
pub fn run(cmd: &mut std::process::Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        panic!(
            "{cmd:?} failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stdout
}

/// Finite doubles that stress shortest round-trip formatting: every power of two, the extremes, values near
/// the layout boundaries (1e-7, 1e21) and pseudo-random bit patterns; 12 000 in all, or
/// `GENTABLE_TEST_DOUBLES` for a longer soak.
pub fn doubles() -> Vec<f64> {
    let mut v: Vec<f64> = vec![
        0.1,
        0.2,
        0.3,
        1e21,
        1e20,
        1e-7,
        1e-6,
        5e-324,
        f64::MAX,
        f64::MIN_POSITIVE,
        -0.0,
        123.456,
        9007199254740993.0,
    ];
    v.extend((-1074..=1023).map(|e| 2f64.powi(e)));
    v.extend(
        (-1074..=1023)
            .map(|e| -(2f64.powi(e)) * 3.0)
            .filter(|f| f.is_finite()),
    );
    v.extend((-30..=30).map(|e| 10f64.powi(e)));
    v.extend((-30..=30).map(|e| 1.5 * 10f64.powi(e)));
    // Ties: N + 0.25 for N in [2^49, 2^51) is exactly halfway between two shortest forms (…2 and …3);
    // ECMAScript prints the even one, Rust's `{:e}` the upper one. N + 0.75 (…7 or …8): the upper digit
    // is already the even one, and nothing may change.
    v.extend((0..800u64).map(|i| {
        (1u64 << 49) as f64
            + (i * 3_456_789_012_345 % (3u64 << 49)) as f64
            + if i % 2 == 0 { 0.25 } else { 0.75 }
    }));
    v.push(890713491284145.0 + 0.25);
    let mut x: u64 = 0x9E3779B97F4A7C15;
    let n: usize = std::env::var("GENTABLE_TEST_DOUBLES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12_000);
    while v.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let f = f64::from_bits(x);
        if f.is_finite() {
            v.push(f);
        }
        // Short decimals (few significant digits) too.
        let short = (x % 100_000) as f64 * 10f64.powi((x >> 40) as i32 % 40 - 20);
        v.push(short);
    }
    v
}

/// The generated loader a broken-data case runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loader {
    CSharp,
    TypeScript,
}

/// One broken data file: the table whose file is replaced, its new text, and the message each loader must
/// print (`None`: the case does not apply to that loader).
pub struct Broken {
    pub table: &'static str,
    pub text: String,
    pub csharp: Option<&'static str>,
    pub typescript: Option<&'static str>,
    /// The table's data file is missing (an I/O failure).
    pub remove: bool,
}

/// Every broken-data case of the sample project's canonical `data` ([`data`]), shared by the C# and
/// TypeScript loader tests: unknown and missing fields, wrong types and ranges, big integers, enum members,
/// null, non-finite numbers, booleans, duplicates, truncated and trailing JSON, wrong row counts.
pub fn broken_data(data: &[(String, String)]) -> Vec<Broken> {
    let piece = data
        .iter()
        .find(|(n, _)| n == "PieceType")
        .expect("the sample has PieceType")
        .1
        .clone();
    let file = |t: &str| -> &str {
        &data
            .iter()
            .find(|(n, _)| n == t)
            .unwrap_or_else(|| panic!("the sample has {t}"))
            .1
    };
    let both = |table, text: String, m: &'static str| Broken {
        table,
        text,
        csharp: Some(m),
        typescript: Some(m),
        remove: false,
    };
    vec![
        both(
            "PieceType",
            piece.replacen("\n{", "\n{\"Extra\":1,", 1),
            "PieceType.json[0]: unknown field \"Extra\"",
        ),
        both(
            "PieceType",
            piece.replacen("\"Name\":\"Pawn\",", "", 1),
            "PieceType.json[0]: missing field \"Name\"",
        ),
        both(
            "PieceType",
            piece.replacen("\"Id\":1,", "\"Id\":\"1\",", 1),
            "PieceType.json[0].Id: expected an integer, got string \"1\"",
        ),
        both(
            "PieceType",
            piece.replacen("\"Id\":1,", "\"Id\":70000,", 1),
            "PieceType.json[0].Id: expected an integer from 0 to 65535",
        ),
        both(
            "PieceType",
            piece.replacen("\"Id\":1,", "\"Id\":1.5,", 1),
            "PieceType.json[0].Id: expected an integer, got number 1.5",
        ),
        both(
            "PieceType",
            piece.replacen(
                "\"Big\":\"9007199254740993\"",
                "\"Big\":9007199254740993",
                1,
            ),
            "PieceType.json[0].Big: expected a decimal string",
        ),
        both(
            "PieceType",
            piece.replacen("\"Big\":\"9007199254740993\"", "\"Big\":\"12\"", 1),
            "PieceType.json[0].Big: expected a JSON number",
        ),
        both(
            "PieceType",
            piece.replacen("\"class\":\"Forward\"", "\"class\":\"Fwd\"", 1),
            "PieceType.json[0].class: expected one of the Dir members Forward, Left",
        ),
        both(
            "PieceType",
            piece.replacen("\"delete\":\"gone\"", "\"delete\":null", 1),
            "PieceType.json[0].delete: expected a string, got null",
        ),
        both(
            "PieceType",
            piece.replacen("\"Ratio\":0.1", "\"Ratio\":1e999", 1),
            "PieceType.json[0].Ratio: expected a finite number",
        ),
        both(
            "PieceType",
            piece.replacen("[-32768,null,32767]", "[-32768,null,\"x\"]", 1),
            "PieceType.json[0].Maybe[2]: expected an integer",
        ),
        both(
            "PieceType",
            piece.replacen("\"Flag\":false", "\"Flag\":0", 1),
            "PieceType.json[0].Flag: expected true or false, got number 0",
        ),
        Broken {
            table: "PieceType",
            text: piece.replacen("\"Flag\":false", "\"Flag\":false,\"Flag\":true", 1),
            csharp: Some("PieceType.json[0]: duplicate member \"Flag\""),
            typescript: None,
            remove: false,
        },
        Broken {
            table: "PieceType",
            text: piece[..piece.len() - 2].to_string(),
            csharp: Some("PieceType.json:5:2: malformed JSON"),
            typescript: Some("PieceType.json: malformed JSON"),
            remove: false,
        },
        Broken {
            table: "PieceType",
            text: piece.replacen("\"Id\":2,", "\"Id\":1,", 1),
            csharp: Some("PieceType: duplicate primary key PieceTypeId(1)"),
            typescript: Some("PieceType: duplicate primary key 1"),
            remove: false,
        },
        Broken {
            table: "PieceType",
            text: piece.replacen("\n{", "\n{\"toString\":1,", 1),
            csharp: None,
            typescript: Some("PieceType.json[0]: unknown field \"toString\""),
            remove: false,
        },
        both(
            "Const",
            rows_replaced(file("Const"), "[]"),
            "Const.json: expected an array of exactly one row, got an array",
        ),
        both(
            "Load",
            rows_replaced(file("Load"), "{}"),
            "Load.json: expected an array of rows, got an object",
        ),
        Broken {
            table: "Load",
            text: format!("{} x", file("Load")),
            csharp: Some("malformed JSON: unexpected text after the JSON value"),
            typescript: None,
            remove: false,
        },
        // The data-file layout (docs/data-format.md §2): a bare rows array (the layout before it), another
        // table's file, another layout version.
        both(
            "Load",
            "[{\"value\":\"a\"}]".into(),
            "Load.json: not a gentable data file",
        ),
        both(
            "Load",
            file("Const").to_string(),
            "Load.json: holds table \"Const\", expected Load",
        ),
        both(
            "Load",
            file("Load").replacen("\"format\":1,", "\"format\":2,", 1),
            "Load.json: data file format 2; this code reads format 1",
        ),
        // Integrity (issue 15): a file from another build, for another schema, with rows missing; a missing
        // file; references that name no row.
        both(
            "PieceType",
            replace_hash(&piece, "dataHash"),
            "PieceType.json: is from another build of the tables: its dataHash is 0000000000000000000000000000000000000000000000000000000000000000, this code was generated with ",
        ),
        both(
            "PieceType",
            replace_hash(&piece, "schemaHash"),
            "PieceType.json: was written for another shape of table PieceType: its schemaHash is 0000000000000000000000000000000000000000000000000000000000000000, this code reads ",
        ),
        both(
            "PieceType",
            piece.replacen("\"rowCount\":3,", "\"rowCount\":4,", 1),
            "PieceType.json: has 3 rows but its header says 4 (a truncated or edited file) (table PieceType)",
        ),
        Broken {
            table: "Load",
            text: String::new(),
            csharp: Some("Load.json: cannot read "),
            typescript: Some("Load.json: cannot read "),
            remove: true,
        },
        both(
            "PieceType",
            piece.replacen("\"Next\":2,", "\"Next\":9,", 1),
            "PieceType.json[0].Next: no row of table PieceType has the key 9 (table PieceType)",
        ),
        both(
            "PieceType",
            piece.replacen("\"source\":65535", "\"source\":7", 1),
            "PieceType.json[0].Effects[0].source: no row of table PieceType has the key 7 (table PieceType)",
        ),
        both(
            "Extras",
            file("Extras").replacen("[[1,2],[65535]]", "[[1,2],[7]]", 1),
            "Extras.json[0].Owners[1][0]: no row of table PieceType has the key 7 (table Extras)",
        ),
        both(
            "Extras",
            file("Extras").replacen("{\"amount\":1,\"by\":2,", "{\"amount\":1,\"by\":3,", 1),
            "Extras.json[0].ByName[\"é\"].by: no row of table PieceType has the key 3 (table Extras)",
        ),
        both(
            "Move",
            file("Move").replacen("\"Piece\":\"Pawn\"", "\"Piece\":\"Pawm\"", 1),
            "Move.json[0].Piece: no row of table PieceType has the key \"Pawm\" (table Move)",
        ),
    ]
}

/// The data file `file` with the header's `member` (`dataHash`, `schemaHash`) replaced by 64 zeros.
fn replace_hash(file: &str, member: &str) -> String {
    let key = format!("\"{member}\":\"");
    let at = file.find(&key).expect("a header hash") + key.len();
    format!("{}{}{}", &file[..at], "0".repeat(64), &file[at + 64..])
}

/// The data file `file` with its rows array replaced by the JSON text `rows`.
fn rows_replaced(file: &str, rows: &str) -> String {
    let at = file.find("\"rows\":").expect("a data file") + "\"rows\":".len();
    format!("{}{rows}}}\n", &file[..at])
}

/// Run every [`broken_data`] case of `loader` in its own folder under `root`: `load(folder)` runs the
/// generated loader on it, which must exit with code 3 and print the case's message on stderr.
pub fn check_broken_data(
    root: &Path,
    data: &[(String, String)],
    loader: Loader,
    load: impl Fn(&Path) -> std::process::Output,
) {
    let mut ran = 0;
    for (i, case) in broken_data(data).iter().enumerate() {
        let expected = match loader {
            Loader::CSharp => case.csharp,
            Loader::TypeScript => case.typescript,
        };
        let Some(expected) = expected else { continue };
        let case_dir = root.join(format!("case{i}"));
        std::fs::create_dir(&case_dir).unwrap();
        for (name, json) in data {
            let text = if name == case.table { &case.text } else { json };
            if !(case.remove && name == case.table) {
                std::fs::write(case_dir.join(format!("{name}.json")), text).unwrap();
            }
        }
        let out = load(&case_dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "case {i}: {stderr}");
        assert!(
            stderr.contains(expected),
            "case {i}: expected {expected:?} in {stderr:?}"
        );
        ran += 1;
    }
    assert!(ran >= 28, "{ran} cases");
}

/// A content hash for emitter tests.
pub const HASH: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// Emit `project` with `emit` (one backend's `emit`), every table, [`HASH`] as both hashes.
pub fn emit_sample(
    emit: fn(&super::EmitContext) -> anyhow::Result<super::Files>,
    project: &Project,
    root: &Path,
    config: &Config,
) -> super::Files {
    emit(&super::EmitContext {
        project,
        config,
        content_hash: HASH,
        project_hash: HASH,
        data_hashes: &data_hashes(project),
        root,
        only: None,
    })
    .expect("the sample project emits")
}
