//! The reserved-name corpus (issue 13 item 4): two projects under `tests/reserved/` whose names are every
//! entry of gentable's reserved-name tables (`src/naming/keywords.rs`: Rust 2021 keywords, prelude names
//! and reserved module names, C# 7.2 keywords with the contextual ones, TypeScript/JavaScript reserved
//! words and globals, Windows device names) and the names generated code gives its own locals:
//!
//! * `tests/reserved/tables`: one table named by each name (Windows device names excepted: a table name is
//!   its data file's name, and those are refused, GT0217), and the table `Fields` whose fields are every
//!   name, with unique-key lookups on some of them (over 300 fields, so its TypeScript reader and writer are
//!   split into parts: one function of that many field checks fails `tsc` with TS2563);
//! * `tests/reserved/types`: a record type named by each name, the enum `Word` whose members are every name
//!   (the table `Members` has a row per member), a flags enum, a record whose fields are every name and a
//!   polymorphic record whose kinds are every name.
//!
//! Their generated code is committed and, like every project's, compiled and run in all three languages by
//! the conformance harness (Rust with warnings as errors, C# 7.2 with mcs, TypeScript with strict tsc), so a
//! name that escapes its language's rules fails CI. The inputs are written by this file
//! (`GENTABLE_BLESS=1 cargo test --test reserved`, then `GENTABLE_BLESS=1 cargo test --test up_to_date`); the
//! first test fails when they no longer match the tables.

use gentable::naming::{self, Case};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reserved")
}

/// Every name of every reserved-name table, one per identifier (names that become the same identifiers in
/// every language, `Self` and `self`, are one entry: the first in table order).
fn corpus() -> Vec<String> {
    let tables: [&[&str]; 7] = [
        naming::RUST_KEYWORDS,
        naming::RUST_PRELUDE_TYPES,
        naming::RUST_RESERVED_MODULES,
        naming::CSHARP_KEYWORDS,
        naming::TS_KEYWORDS,
        naming::TS_GLOBALS,
        naming::WINDOWS_DEVICES,
    ];
    let mut seen = BTreeSet::new();
    let mut out = vec![];
    for t in tables.into_iter().chain([GENERATED_LOCALS]) {
        for n in t {
            if seen.insert(naming::case(n, Case::Snake)) {
                out.push(n.to_string());
            }
        }
    }
    out
}

/// Names the generated code gives its own locals and parameters (`TryGetBy…(…, out Row found)`, `bool has`,
/// `foreach (var row in list)`, `gentableRow => …`): a field, key or table of the same name must not
/// collide with them (helper-15 found a unique key named `has` failing in mcs with CS0128).
const GENERATED_LOCALS: &[&str] = &[
    "has",
    "row",
    "found",
    "candidate",
    "list",
    "gentableRow",
    "rows",
    "file",
    "table",
    "key",
    "parts",
    "value",
    "at",
];

/// Enum members with characters that must never reach generated code raw (issue 13: an enum member with
/// U+202E broke the Rust doc comment).
const HOSTILE: &[&str] = &[
    "Red\u{202e}eulB",
    "iso\u{2066}late\u{2069}",
    "zero\u{200b}width",
    "two\nlines",
    "end */ comment",
    "quote\" and \\",
];

/// A `$defs` key as a URI fragment of a JSON pointer: percent-encoded beyond unreserved ASCII.
fn pointer(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~$".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn json(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

/// A CSV field (the names need no quoting, but be safe).
fn csv(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The TOML key of a table section (`[tables."Self"]`).
fn toml_key(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The input files of both projects: path under `tests/reserved` → content.
fn inputs() -> BTreeMap<String, String> {
    let names = corpus();
    let mut out = BTreeMap::new();
    // --- tables/: a table per name, and every name as a field.
    // Table names are file names: no devices, and one per case-insensitive spelling (`BigInt`, `bigint`).
    let mut lower = BTreeSet::new();
    let table_names: Vec<&String> = names
        .iter()
        .filter(|n| !naming::is_device(n) && lower.insert(naming::collision_key(n)))
        .collect();
    let mut toml = String::from(
        "# The reserved-name corpus: written by tests/reserved.rs (GENTABLE_BLESS=1 cargo test --test reserved).\n\
         [project]\nname = \"ReservedTables\"\n\n[rust]\ncrate_name = \"reserved_tables\"\n\n[csharp]\nnamespace = \"Reserved.Tables\"\ndata = [\"json\", \"binary\"]\n\n[typescript]\ndata = [\"json\", \"binary\"]\n",
    );
    for (i, n) in table_names.iter().enumerate() {
        toml.push_str(&format!(
            "\n[tables.{}]\nfiles = [\"t/{i:03}.csv\"]\nschema = \"Row\"\n",
            toml_key(n)
        ));
        out.insert(
            format!("tables/Table/t/{i:03}.csv"),
            format!("Id,Value\n1,{i}\n2,{}\n", i + 1),
        );
    }
    out.insert("tables/gentable.toml".into(), toml);
    out.insert(
        "tables/schema/Row.schema.json".into(),
        json(&serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "A table named by a reserved name.",
            "type": "object",
            "x-gentable-primaryKey": "Id",
            "properties": {"Id": {"type": "integer"}, "Value": {"type": "integer"}},
            "required": ["Id", "Value"]
        })),
    );
    let mut props = serde_json::Map::new();
    props.insert("Id".into(), serde_json::json!({"type": "integer"}));
    for n in &names {
        props.insert(
            n.clone(),
            serde_json::json!({"type": "integer", "description": format!("The field {n}.")}),
        );
    }
    // Lookups (method names made from field names) on a few of the hardest.
    let uniques: Vec<Vec<&str>> = [
        "type",
        "self",
        "await",
        "constructor",
        "string",
        "None",
        "has",
        "row",
        "found",
        "candidate",
        "list",
    ]
    .iter()
    .filter(|n| names.iter().any(|m| m == *n))
    .map(|n| vec![*n])
    .collect();
    out.insert(
        "tables/schema/Fields.schema.json".into(),
        json(&serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "Every reserved name as a field.",
            "type": "object",
            "x-gentable-primaryKey": "Id",
            "x-gentable-unique": uniques,
            "properties": props,
            // Lookups are generated for unique keys of required fields only.
            "required": std::iter::once("Id").chain(uniques.iter().map(|u| u[0])).collect::<Vec<_>>()
        })),
    );
    let header: Vec<String> = std::iter::once("Id".to_string())
        .chain(names.iter().map(|n| csv(n)))
        .collect();
    let rows: Vec<String> = (1..=2)
        .map(|r| {
            std::iter::once(r.to_string())
                .chain((0..names.len()).map(|i| (r * 1000 + i).to_string()))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    out.insert(
        "tables/Table/Fields.csv".into(),
        format!("{}\n{}\n", header.join(","), rows.join("\n")),
    );
    // --- types/: records, enum members, record fields, union kinds.
    out.insert(
        "types/gentable.toml".into(),
        "# The reserved-name corpus: written by tests/reserved.rs (GENTABLE_BLESS=1 cargo test --test reserved).\n\
         [project]\nname = \"ReservedTypes\"\n\n[rust]\ncrate_name = \"reserved_types\"\n\n[csharp]\nnamespace = \"Reserved.Types\"\ndata = [\"json\", \"binary\"]\n\n[typescript]\ndata = [\"json\", \"binary\"]\n"
            .into(),
    );
    // Records by every ASCII name: a `$ref` to a non-ASCII `$defs` key must be percent-encoded, which the
    // schema loader does not decode yet (issue 19); `COM¹` and the like are fields, members and kinds here.
    // Type names are C# file names too: one per case-insensitive spelling.
    let mut lower = BTreeSet::new();
    let record_names: Vec<&String> = names
        .iter()
        .filter(|n| n.is_ascii() && lower.insert(naming::collision_key(n)))
        .collect();
    let mut defs = serde_json::Map::new();
    for n in &record_names {
        defs.insert(
            n.to_string(),
            serde_json::json!({"type": "object", "description": format!("A record named {n}."),
                "properties": {"v": {"type": "integer"}}, "required": ["v"]}),
        );
    }
    // Flags: the names flags code declares itself, and the start of the corpus (at most 64 members).
    let mut flag_members: Vec<String> = [
        "None", "All", "Empty", "Bits", "Contains", "Iter", "HasFlag",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for n in &names {
        if flag_members.len() == 60 {
            break;
        }
        if !flag_members
            .iter()
            .any(|m| naming::case(m, Case::Snake) == naming::case(n, Case::Snake))
        {
            flag_members.push(n.clone());
        }
    }
    // And members no identifier rule may let through raw: bidirectional controls, invisible characters, a
    // line break, a doc-comment terminator (they reach doc comments and string literals).
    let mut members = names.clone();
    members.extend(HOSTILE.iter().map(|s| s.to_string()));
    defs.insert(
        "Word".into(),
        serde_json::json!({"type": "string", "description": "Every reserved name as an enum member.", "enum": members}),
    );
    defs.insert(
        "Flag".into(),
        serde_json::json!({"type": "string", "description": "Reserved names as flags.", "enum": flag_members}),
    );
    let mut all_fields = serde_json::Map::new();
    for n in &names {
        all_fields.insert(n.clone(), serde_json::json!({"type": "integer"}));
    }
    defs.insert(
        "AllFields".into(),
        serde_json::json!({"type": "object", "description": "Every reserved name as a record field.",
            "properties": all_fields}),
    );
    let mut variants: Vec<serde_json::Value> = names
        .iter()
        .map(|n| {
            serde_json::json!({"type": "object", "properties": {"kind": {"const": n}, "v": {"type": "integer", "default": 0}},
                "required": ["kind"]})
        })
        .collect();
    // And a kind whose fields are every name: over 300 fields, so its TypeScript reader is split into parts.
    let mut wide = all_fields.clone();
    wide.insert("kind".into(), serde_json::json!({"const": "WideKind"}));
    variants.push(serde_json::json!({"type": "object", "properties": wide, "required": ["kind"]}));
    defs.insert(
        "Choice".into(),
        serde_json::json!({"description": "Every reserved name as a kind.", "oneOf": variants, "x-gentable-discriminator": "kind"}),
    );
    out.insert(
        "types/schema/common.schema.json".into(),
        json(&serde_json::json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs})),
    );
    out.insert(
        "types/schema/Members.schema.json".into(),
        json(&serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "A row per member of Word, with a kind of Choice and a set of flags.",
            "type": "object",
            "x-gentable-primaryKey": "Id",
            "properties": {
                "Id": {"type": "integer"},
                "Member": {"$ref": "common.schema.json#/$defs/Word"},
                "Kind": {"$ref": "common.schema.json#/$defs/Choice"},
                "Flags": {"type": "array", "items": {"$ref": "common.schema.json#/$defs/Flag"}, "x-gentable-flags": true}
            },
            "required": ["Id", "Member", "Kind"]
        })),
    );
    let member_rows: Vec<String> = members
        .iter()
        .enumerate()
        .map(|(i, n)| {
            // Kinds are the corpus names; the hostile members take the first ones again.
            let kind = &names[i % names.len()];
            let flags: Vec<&str> = flag_members
                .iter()
                .skip(i % flag_members.len())
                .take(3)
                .map(String::as_str)
                .collect();
            // A scalar cell is unescaped by the cell grammar: a backslash is written twice.
            let cell = n.replace('\\', "\\\\");
            // The first row holds the wide kind with every field, as JSON.
            let kind = if i == 0 {
                let mut o = serde_json::Map::new();
                o.insert("kind".into(), "WideKind".into());
                for (j, f) in names.iter().enumerate() {
                    o.insert(f.clone(), j.into());
                }
                serde_json::Value::Object(o).to_string()
            } else {
                format!("{kind}({i})")
            };
            format!(
                "{},{},{},{}",
                i + 1,
                csv(&cell),
                csv(&kind),
                csv(&flags.join("|"))
            )
        })
        .collect();
    out.insert(
        "types/Table/Members.csv".into(),
        format!("Id,Member,Kind,Flags\n{}\n", member_rows.join("\n")),
    );
    let mut rprops = serde_json::Map::new();
    rprops.insert("Id".into(), serde_json::json!({"type": "integer"}));
    rprops.insert(
        "All".into(),
        serde_json::json!({"$ref": "common.schema.json#/$defs/AllFields"}),
    );
    for (i, n) in record_names.iter().enumerate() {
        rprops.insert(
            format!("r{i:03}"),
            serde_json::json!({"$ref": format!("common.schema.json#/$defs/{}", pointer(n))}),
        );
    }
    out.insert(
        "types/schema/Records.schema.json".into(),
        json(&serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "description": "A field of every record type named by a reserved name, and the record whose fields are every name.",
            "type": "object",
            "x-gentable-primaryKey": "Id",
            "properties": rprops,
            "required": ["Id"]
        })),
    );
    let mut header = vec!["Id".to_string(), "All".to_string()];
    header.extend((0..record_names.len()).map(|i| format!("r{i:03}")));
    let all: Vec<String> = (0..names.len()).map(|i| i.to_string()).collect();
    let mut row = vec!["1".to_string(), csv(&format!("({})", all.join(",")))];
    row.extend((0..record_names.len()).map(|i| format!("({i})")));
    out.insert(
        "types/Table/Records.csv".into(),
        format!("{}\n{}\n", header.join(","), row.join(",")),
    );
    collisions(&mut out);
    out
}

/// `collisions/`: names and sizes that met what the generated code declares itself (helper-16's findings on
/// 8586f8a, each of which built and then failed to compile or load): a unique key on a field named `Key`
/// (the primary key's `byKey` map in C# and TypeScript), a field `GentableLink` of a row with references
/// (C#'s link method), a table named `Text` beside `[localization]` (C#'s `Tables.Text(key, language)`), and
/// a table of 400 optional fields read from binary data (mono refused one `newobj` of 400 conditional reads).
fn collisions(out: &mut BTreeMap<String, String>) {
    out.insert(
        "collisions/gentable.toml".into(),
        "# Written by tests/reserved.rs (GENTABLE_BLESS=1 cargo test --test reserved).\n\
         [project]\nname = \"Collisions\"\n\n[rust]\ncrate_name = \"reserved_collisions\"\n\n\
         [csharp]\nnamespace = \"Reserved.Collisions\"\ndata = [\"json\", \"binary\"]\n\n\
         [typescript]\ndata = [\"json\", \"binary\"]\n\n\
         [localization]\ntable = \"Text\"\nkey = \"Key\"\nlanguages = [\"zh\", \"en\"]\n"
            .into(),
    );
    let schema =
        |description: &str, pk: &str, props: serde_json::Value, extra: serde_json::Value| {
            let mut o = serde_json::json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "description": description,
                "type": "object",
                "x-gentable-primaryKey": pk,
                "properties": props,
                "required": [pk]
            });
            for (k, v) in extra.as_object().unwrap() {
                o[k] = v.clone();
            }
            json(&o)
        };
    out.insert(
        "collisions/schema/Text.schema.json".into(),
        schema(
            "The localization table, named like Tables.Text(key, language).",
            "Key",
            serde_json::json!({"Key": {"type": "string"}, "zh": {"type": "string"}, "en": {"type": "string"}}),
            serde_json::json!({}),
        ),
    );
    out.insert(
        "collisions/Table/Text.csv".into(),
        "Key,zh,en\nItem_1,一号，「甲」,One\nItem_2,二号,Two\n".into(),
    );
    out.insert(
        "collisions/schema/Target.schema.json".into(),
        schema(
            "What Item.T names.",
            "Id",
            serde_json::json!({"Id": {"type": "string"}}),
            serde_json::json!({}),
        ),
    );
    out.insert("collisions/Table/Target.csv".into(), "Id\nA\nB\n".into());
    out.insert(
        "collisions/schema/Item.schema.json".into(),
        schema(
            "A unique key on Key, a reference and a field GentableLink.",
            "Id",
            serde_json::json!({
                "Id": {"type": "integer"},
                "Key": {"type": "string"},
                "T": {"type": "string", "x-gentable-foreignKey": "Target"},
                "GentableLink": {"type": "integer"},
                "NameKey": {"type": "string", "x-gentable-text": true},
                "Open": {"$ref": "#/$defs/Open"}
            }),
            // A unique key gets lookups only when its fields are required. An open record with a reference
            // (helper-18: its TypeScript literal lacked the reference property, TS2741).
            serde_json::json!({
                "x-gentable-unique": [["Key"]],
                "required": ["Id", "Key"],
                "$defs": {"Open": {"type": "object",
                    "properties": {"t": {"type": "string", "x-gentable-foreignKey": "Target"}},
                    "additionalProperties": {"type": "integer"}}}
            }),
        ),
    );
    out.insert(
        "collisions/Table/Item.csv".into(),
        "Id,Key,T,GentableLink,NameKey,Open\n1,a,A,10,Item_1,\"{\"\"t\"\":\"\"B\"\",\"\"zz\"\":2}\"\n2,b,B,20,Item_2,\n"
            .into(),
    );
    // 400 optional fields of four kinds: text, integer, enum, reference.
    let mut props = serde_json::Map::new();
    props.insert("Id".into(), serde_json::json!({"type": "integer"}));
    for i in 0..400 {
        props.insert(
            format!("F{i:03}"),
            match i % 4 {
                0 => serde_json::json!({"type": "string"}),
                1 => serde_json::json!({"type": "integer"}),
                2 => serde_json::json!({"type": "string", "enum": ["Red", "Blue"]}),
                _ => serde_json::json!({"type": "string", "x-gentable-foreignKey": "Target"}),
            },
        );
    }
    out.insert(
        "collisions/schema/Wide.schema.json".into(),
        schema(
            "400 optional fields, read from binary data through locals in C#.",
            "Id",
            serde_json::Value::Object(props),
            serde_json::json!({}),
        ),
    );
    let header: Vec<String> = std::iter::once("Id".to_string())
        .chain((0..400).map(|i| format!("F{i:03}")))
        .collect();
    // Row 1 fills every field, row 2 every third one (the others are absent).
    let rows: Vec<String> = (1..=2)
        .map(|r| {
            std::iter::once(r.to_string())
                .chain((0..400).map(|i| {
                    if r == 2 && i % 3 != 0 {
                        return String::new();
                    }
                    match i % 4 {
                        0 => format!("文本{i}，「{r}」"),
                        1 => (i * r).to_string(),
                        2 => if i % 8 == 2 { "Red" } else { "Blue" }.to_string(),
                        _ => if r == 1 { "A" } else { "B" }.to_string(),
                    }
                }))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    out.insert(
        "collisions/Table/Wide.csv".into(),
        format!("{}\n{}\n", header.join(","), rows.join("\n")),
    );
}

/// The files now under `tests/reserved` that [`inputs`] owns (everything but `generated/`).
fn on_disk() -> BTreeSet<String> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeSet<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if e.path().is_dir() {
                // Outputs, and the build cache of a hand-run build.
                if name != "generated" && !name.starts_with('.') {
                    walk(&e.path(), &r, out);
                }
            } else {
                out.insert(r);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(&root(), "", &mut out);
    out
}

#[test]
fn the_corpus_projects_hold_every_reserved_name() {
    let want = inputs();
    if std::env::var_os("GENTABLE_BLESS").is_some() {
        for stale in on_disk() {
            if !want.contains_key(&stale) {
                std::fs::remove_file(root().join(&stale)).unwrap();
            }
        }
        for (rel, text) in &want {
            let p = root().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
                std::fs::write(&p, text).unwrap();
            }
        }
        return;
    }
    let mut problems = vec![];
    for (rel, text) in &want {
        if std::fs::read_to_string(root().join(rel)).ok().as_deref() != Some(text) {
            problems.push(format!("stale: tests/reserved/{rel}"));
        }
    }
    for extra in on_disk() {
        if !want.contains_key(&extra) {
            problems.push(format!("extra: tests/reserved/{extra}"));
        }
    }
    assert!(
        problems.is_empty(),
        "the corpus does not match src/naming/keywords.rs; run GENTABLE_BLESS=1 cargo test --test reserved, then \
         GENTABLE_BLESS=1 cargo test --test up_to_date:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_name_builds_and_every_identifier_is_escaped() {
    let names = corpus();
    assert!(names.len() > 250, "{} names", names.len());
    for project in ["tables", "types"] {
        let cfg = root().join(project).join("gentable.toml");
        let (loaded, validated) =
            gentable::build::load_path(&cfg).unwrap_or_else(|e| panic!("{project}: {e}"));
        let files = gentable::build::generate(&loaded, &validated)
            .unwrap_or_else(|e| panic!("{project}: {e:#}"));
        // Windows device names become other code file names.
        for f in files.keys() {
            let stem = f.rsplit('/').next().unwrap();
            assert!(!naming::is_device(stem), "{project}: {f}");
        }
    }
    // The table corpus has a table per non-device name: each has its data file, named by the table.
    let (loaded, validated) =
        gentable::build::load_path(&root().join("tables/gentable.toml")).unwrap();
    let files = gentable::build::generate(&loaded, &validated).unwrap();
    let tables: BTreeSet<&str> = validated
        .project
        .tables
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    for n in names.iter().filter(|n| !naming::is_device(n)) {
        let t = tables
            .iter()
            .find(|t| naming::collision_key(t) == naming::collision_key(n))
            .unwrap_or_else(|| panic!("no table for {n}"));
        assert!(
            files.contains_key(&format!("data/{t}.json")),
            "no data file for table {t}"
        );
    }
    // Spot checks of the rules, in the generated text (build outputs are bytes: the Rust crate embeds
    // binary data files).
    let text =
        |files: &gentable::emit::Outputs, rel: &str| String::from_utf8(files[rel].clone()).unwrap();
    let lib = text(&files, "rust/code/src/lib.rs");
    assert!(lib.contains("pub mod lib_;"));
    assert!(lib.contains("pub mod main_;"));
    assert!(lib.contains("pub mod core_;"));
    assert!(lib.contains("pub mod str_;"));
    assert!(files.contains_key("ts/tables/ReadonlyMap_.ts"));
    let types = gentable::build::load_path(&root().join("types/gentable.toml")).unwrap();
    let tfiles = gentable::build::generate(&types.0, &types.1).unwrap();
    assert!(
        tfiles.contains_key("csharp/Aux_.cs"),
        "{:?}",
        tfiles
            .keys()
            .filter(|k| k.contains("ux"))
            .collect::<Vec<_>>()
    );
    let records = text(&tfiles, "ts/records.ts");
    assert!(records.contains("export interface ReadonlyMap_ "));
    assert!(records.contains("export interface Date_ "));
}
