//! Diagnostics of the issue-6 features: each bad cell is reported at its cell with a message a designer can
//! act on (date-times without a zone, unknown aliases and kinds, duplicate map keys, dotted columns, vertical
//! sheets, duplicates across the files of one table).

use gentable::diag::Diagnostic;

struct P(tempfile::TempDir);

impl P {
    fn new(toml: &str, files: &[(&str, &str)]) -> P {
        let dir = tempfile::tempdir().unwrap();
        let w = |rel: &str, text: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w("gentable.toml", &format!("[project]\nname = \"F\"\n{toml}"));
        for (rel, text) in files {
            w(rel, text);
        }
        P(dir)
    }
    fn diags(&self) -> Vec<Diagnostic> {
        let loaded = gentable::config::load(&self.0.path().join("gentable.toml")).unwrap();
        match gentable::build::load(&loaded) {
            Err(d) => d.items,
            Ok(v) => v.warnings,
        }
    }
}

fn show(d: &[Diagnostic]) -> Vec<String> {
    d.iter()
        .map(|d| format!("{} {} {}", d.code, d.location(), d.message))
        .collect()
}

const SCHEMA: &str = r##"{
  "type": "object",
  "x-gentable-primaryKey": "Id",
  "$defs": {
    "Hero": { "type": "string", "enum": ["Junkrat", "Mercy"], "x-gentable-enumAliases": { "Junkrat": ["狂鼠"] } },
    "Effect": {
      "x-gentable-discriminator": "kind",
      "oneOf": [
        { "type": "object", "properties": { "kind": { "const": "Damage" }, "amount": { "type": "integer" } }, "required": ["kind", "amount"] },
        { "type": "object", "properties": { "kind": { "const": "Stun" } }, "required": ["kind"] }
      ]
    }
  },
  "properties": {
    "Id": { "type": "integer" },
    "Hero": { "$ref": "#/$defs/Hero" },
    "At": { "type": "string", "format": "date-time" },
    "For": { "type": "string", "format": "duration" },
    "Odds": { "type": "object", "additionalProperties": { "type": "number" } },
    "Effect": { "$ref": "#/$defs/Effect" }
  },
  "required": ["Id"]
}"##;

fn unit(rows: &str) -> P {
    P::new(
        "",
        &[
            ("schema/Unit.schema.json", SCHEMA),
            (
                "Table/Unit.csv",
                &format!("Id,Hero,At,For,Odds,Effect\n{rows}"),
            ),
        ],
    )
}

#[test]
fn good_cells_pass() {
    let p = unit("1,狂鼠,2024-01-01T00:00:00+08:00,1h,a=1|b=2,Damage(3)\n2,Mercy,,,,Stun\n");
    assert_eq!(show(&p.diags()), Vec::<String>::new());
}

#[test]
fn a_date_time_needs_a_zone() {
    let d = unit("1,Mercy,2024-01-01 08:00,,,\n").diags();
    assert_eq!(d.len(), 1, "{:?}", show(&d));
    assert_eq!(d[0].location(), "Table/Unit.csv:2:C");
    assert!(
        d[0].message.contains("has no time zone offset"),
        "{}",
        d[0].message
    );
}

#[test]
fn bad_alias_kind_map_and_duration() {
    let d = unit("1,Ratt,,90,a=1|a=2,Heal(1)\n").diags();
    let s = show(&d);
    assert!(
        s.iter()
            .any(|x| x.starts_with("GT0203 Table/Unit.csv:2:B")
                && x.contains("\"Ratt\" is not a Hero")),
        "{s:#?}"
    );
    assert!(
        s.iter().any(
            |x| x.starts_with("GT0201 Table/Unit.csv:2:D") && x.contains("expected a duration")
        ),
        "{s:#?}"
    );
    assert!(
        s.iter().any(|x| x.starts_with("GT0205 Table/Unit.csv:2:E")
            && x.contains("the key \"a\" is given twice")),
        "{s:#?}"
    );
    assert!(
        s.iter().any(|x| x.starts_with("GT0203 Table/Unit.csv:2:F")
            && x.contains("\"Heal\" is not a kind of Effect")),
        "{s:#?}"
    );
}

#[test]
fn dotted_columns_check_the_kind_and_its_fields() {
    let p = P::new(
        "",
        &[
            ("schema/Unit.schema.json", SCHEMA),
            (
                "Table/Unit.csv",
                "Id,Effect.kind,Effect.amount\n1,Stun,5\n2,,7\n3,Damage,x\n",
            ),
        ],
    );
    let s = show(&p.diags());
    assert!(
        s.iter().any(|x| x.starts_with("GT0205 Table/Unit.csv:2:C")
            && x.contains("of kind Stun has no field \"amount\"")),
        "{s:#?}"
    );
    assert!(
        s.iter()
            .any(|x| x.starts_with("GT0205 Table/Unit.csv:3:C")
                && x.contains("no kind column value")),
        "{s:#?}"
    );
    assert!(
        s.iter()
            .any(|x| x.starts_with("GT0201 Table/Unit.csv:4:C")
                && x.contains("Effect Damage.amount")),
        "{s:#?}"
    );
}

#[test]
fn vertical_sheet_errors_at_their_cells() {
    let p = P::new(
        "[tables.Conf]\nlayout = \"vertical\"\n",
        &[
            (
                "schema/Conf.schema.json",
                r#"{"type":"object","x-gentable-mode":"one","properties":{"A":{"type":"integer"},"B":{"type":"string"}},"required":["A","B"]}"#,
            ),
            ("Table/Conf.csv", "#Field,Value\nA,x\nC,1\nA,2\n"),
        ],
    );
    let s = show(&p.diags());
    assert!(
        s.iter().any(|x| x.starts_with("GT0201 Table/Conf.csv:2:B")),
        "{s:#?}"
    );
    assert!(
        s.iter().any(|x| x.starts_with("GT0211 Table/Conf.csv:3:A")
            && x.contains("\"C\" is not a field of Conf")),
        "{s:#?}"
    );
    assert!(
        s.iter().any(|x| x.starts_with("GT0213 Table/Conf.csv:4:A")
            && x.contains("given twice (also in row 2)")),
        "{s:#?}"
    );
    assert!(
        s.iter()
            .any(|x| x.starts_with("GT0212") && x.contains("\"B\" is required but has no row")),
        "{s:#?}"
    );
}

#[test]
fn duplicates_across_the_files_of_one_table_name_both_locations() {
    let p = P::new(
        "[tables.Unit]\nfiles = [\"units/*.csv\"]\n",
        &[
            ("schema/Unit.schema.json", SCHEMA),
            ("Table/units/a.csv", "Id,Hero\n1,Mercy\n2,Mercy\n"),
            ("Table/units/b.csv", "Hero,Id\nMercy,3\nJunkrat,1\n"),
        ],
    );
    let d = p.diags();
    assert_eq!(d.len(), 1, "{:?}", show(&d));
    assert_eq!(d[0].location(), "Table/units/b.csv:3:B");
    assert!(
        d[0].message.contains("also at Table/units/a.csv:2:A"),
        "{}",
        d[0].message
    );
}

/// The sources of one table are concatenated in the order of its `files` globs, then in path order within a
/// glob (docs/conventions.md §2): `files = ["units/b.csv", "units/*.csv"]` reads b.csv, then a.csv and c.csv;
/// the rows keep that order in a list table and the first source's duplicate stays the one reported.
#[test]
fn files_globs_order_the_sources_of_one_table() {
    let schema = r#"{"title": "Unit", "type": "object", "x-gentable-mode": "list",
        "properties": {"Id": {"type": "integer"}}, "required": ["Id"]}"#;
    let order = |files: &str| -> Vec<String> {
        let p = P::new(
            &format!("[tables.Unit]\nfiles = {files}\n"),
            &[
                ("schema/Unit.schema.json", schema),
                ("Table/units/a.csv", "Id\n1\n2\n"),
                ("Table/units/b.csv", "Id\n3\n"),
                ("Table/units/c.csv", "Id\n4\n"),
            ],
        );
        let loaded = gentable::config::load(&p.0.path().join("gentable.toml")).unwrap();
        let v = gentable::build::load(&loaded).unwrap_or_else(|d| panic!("{:?}", show(&d.items)));
        let t = &v.project.tables[0];
        t.rows
            .iter()
            .map(|r| format!("{:?}", r.values[0]))
            .collect()
    };
    let ids = |v: &[&str]| v.iter().map(|i| format!("Int({i})")).collect::<Vec<_>>();
    assert_eq!(order(r#"["units/*.csv"]"#), ids(&["1", "2", "3", "4"]));
    assert_eq!(
        order(r#"["units/b.csv", "units/*.csv"]"#),
        ids(&["3", "1", "2", "4"])
    );
    assert_eq!(
        order(r#"["units/c.csv", "units/b.csv", "units/a.csv"]"#),
        ids(&["4", "3", "1", "2"])
    );
}

/// `x-gentable-aliases`: a column headed by an alias is the field's column (Luban's `alias=`), in a
/// horizontal and a vertical sheet; the field's name and an alias both present are one field given twice,
/// an error at the second column naming both.
#[test]
fn aliases_name_a_fields_column() {
    let schema = r#"{"title": "Unit", "type": "object", "x-gentable-primaryKey": "Id",
        "properties": {"Id": {"type": "integer"},
                       "Name": {"type": "string", "x-gentable-aliases": ["名称", "Name2"]}},
        "required": ["Id", "Name"]}"#;
    let names = |toml: &str, csv: &str| -> Result<Vec<String>, Vec<String>> {
        let p = P::new(
            toml,
            &[("schema/Unit.schema.json", schema), ("Table/Unit.csv", csv)],
        );
        let loaded = gentable::config::load(&p.0.path().join("gentable.toml")).unwrap();
        match gentable::build::load(&loaded) {
            Ok(v) => Ok(v.project.tables[0]
                .rows
                .iter()
                .map(|r| format!("{:?}", r.values[1]))
                .collect()),
            Err(d) => Err(show(&d.items)),
        }
    };
    assert_eq!(
        names("", "Id,名称\n1,甲\n2,乙\n"),
        Ok(vec!["Str(\"甲\")".to_string(), "Str(\"乙\")".to_string()])
    );
    assert_eq!(
        names("", "Name2,Id\n丙,1\n"),
        Ok(vec!["Str(\"丙\")".to_string()])
    );
    let both = names("", "Id,Name,名称\n1,甲,乙\n").unwrap_err();
    assert_eq!(both.len(), 1, "{both:?}");
    assert!(
        both[0].contains("Table/Unit.csv:1:C")
            && both[0].contains(
                "column \"名称\" and column B (\"Name\") both name the field \"Name\" (its name or an x-gentable-aliases name)"
            ),
        "{both:?}"
    );
    // An array may span columns under one header, never under its name and an alias (found by the
    // newcomer pass: the two columns were joined into one list).
    let tags = r#"{"title": "Unit", "type": "object", "x-gentable-primaryKey": "Id",
        "properties": {"Id": {"type": "integer"},
                       "Tags": {"type": "array", "items": {"type": "string"}, "x-gentable-aliases": ["标签"]}},
        "required": ["Id"]}"#;
    let p = P::new(
        "",
        &[
            ("schema/Unit.schema.json", tags),
            ("Table/Unit.csv", "Id,Tags,标签\n1,a|b,c\n"),
        ],
    );
    let raw = p.diags();
    // The diagnostic's field is the field, not the alias that headed its second column.
    assert_eq!(raw[0].field.as_deref(), Some("Tags"));
    let d = show(&raw);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].contains("Table/Unit.csv:1:C") && d[0].contains("both name the field \"Tags\""),
        "{d:?}"
    );
    let p = P::new(
        "",
        &[
            ("schema/Unit.schema.json", tags),
            ("Table/Unit.csv", "Id,标签,标签\n1,a,c\n"),
        ],
    );
    assert_eq!(show(&p.diags()), Vec::<String>::new());
    // Aliases that are not header texts, or that name two fields, are schema errors.
    for (aliases, message) in [
        (
            r#""名称""#,
            "x-gentable-aliases of \"Name\" must be a list of distinct header texts",
        ),
        (
            r#"[""]"#,
            "x-gentable-aliases of \"Name\" must be a list of distinct header texts",
        ),
        (
            r#"[" sp "]"#,
            "x-gentable-aliases of \"Name\" must be a list of distinct header texts",
        ),
        (
            r#"["a.b"]"#,
            "x-gentable-aliases of \"Name\" must be a list of distinct header texts",
        ),
        (
            r#"["x", "x"]"#,
            "x-gentable-aliases of \"Name\" must be a list of distinct header texts",
        ),
        (
            r#"["Id"]"#,
            "the alias \"Id\" of \"Name\" is also the name or an alias of \"Id\"",
        ),
    ] {
        let schema = format!(
            r#"{{"title": "Unit", "type": "object", "x-gentable-primaryKey": "Id",
            "properties": {{"Id": {{"type": "integer"}},
                            "Name": {{"type": "string", "x-gentable-aliases": {aliases}}}}},
            "required": ["Id"]}}"#
        );
        let p = P::new(
            "",
            &[
                ("schema/Unit.schema.json", schema.as_str()),
                ("Table/Unit.csv", "Id,Name\n1,a\n"),
            ],
        );
        let d = show(&p.diags());
        assert!(d.iter().any(|x| x.contains(message)), "{aliases}: {d:?}");
        // The same rules for the properties of a record (aliases head its Luban sub-header columns): they
        // went unchecked, and an alias equal to a sibling's name left the sub-column's field to property order.
        let record = format!(
            r#"{{"title": "Unit", "type": "object", "x-gentable-primaryKey": "Id",
            "properties": {{"Id": {{"type": "integer"}},
                            "Stats": {{"type": "object", "properties": {{
                                "Id": {{"type": "integer"}},
                                "Name": {{"type": "string", "x-gentable-aliases": {aliases}}}}}}}}},
            "required": ["Id"]}}"#
        );
        let p = P::new(
            "",
            &[
                ("schema/Unit.schema.json", record.as_str()),
                ("Table/Unit.csv", "Id,Stats.Id,Stats.Name\n1,2,a\n"),
            ],
        );
        let d = show(&p.diags());
        assert!(
            d.iter()
                .any(|x| x.contains("#/properties/Stats: ") && x.contains(message)),
            "record {aliases}: {d:?}"
        );
    }
    // A vertical (column-mode) sheet: field names in column A, values in B.
    assert_eq!(
        names("[tables.Unit]\nlayout = \"vertical\"\n", "Id,1\n名称,丁\n"),
        Ok(vec!["Str(\"丁\")".to_string()])
    );
}
