//! The schema hash of a table (docs/data-format.md §1): BLAKE3 over a canonical description of what its data
//! files hold — the row's fields and types, the mode and primary key, and every enum, record and union type
//! the row reaches. Two builds give a table the same schema hash exactly when a data file of one can be read
//! by the code of the other, field for field.
//!
//! Data files carry the hash in their header and generated code carries it as a constant, so a loader can
//! refuse a file written for another shape of the table before reading any row.

use crate::ir::canonical;
use crate::ir::{Field, Project, RecordForm, Table, Type};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// Domain prefix hashed before the description: a later format of the description gets a new prefix.
const DOMAIN: &[u8] = b"gentable-schema-hash-v1\n";

/// The schema hash of `table` in `project` (64 lowercase hex digits): BLAKE3 of `gentable-schema-hash-v1\n`
/// followed by the RFC 8785 canonical JSON of [`description`].
pub fn schema_hash(project: &Project, table: &Table) -> String {
    let mut h = blake3::Hasher::new();
    h.update(DOMAIN);
    h.update(canonical::json_value(&description(project, table)).as_bytes());
    h.finalize().to_hex().to_string()
}

/// What the schema hash covers, as JSON (docs/data-format.md §1):
/// `{"fields": [{"name", "type"}…], "mode", "primaryKey": [names], "table", "types": {name: definition}}`
/// (plus `"order": "source"` for a map table that keeps source order)
/// with a type written as `"bool"`, `"i8"`…`"u64"`, `"f64"`, `"string"`, `"datetime"`, `"duration"`,
/// `"json"`, `{"enum": name}`, `{"record": name}`, `{"union": name}`, `{"flags": name}`, `{"choice": name}`,
/// `{"array": type}`, `{"optional": type}` or `{"map": {"key": type, "value": type}}`, and a definition as
/// `{"enum": [members]}`, `{"record": [fields]}` (a tuple adds `"form": "tuple", "minItems", "rest"`, an
/// open record `"form": "open"`), `{"choice": [member types]}` or `{"union": {"discriminator", "variants":
/// [{"tag", "fields"}]}}`. Member, field and variant lists keep declaration order (the binary format numbers
/// enum members and union variants by it).
pub fn description(project: &Project, table: &Table) -> Value {
    let mut types = BTreeMap::new();
    let fields = fields_json(project, &table.fields, &mut types);
    let primary_key: Vec<&str> = table
        .primary_key
        .iter()
        .map(|&i| table.fields[i].name.as_str())
        .collect();
    let mut d = json!({
        "fields": fields,
        "mode": table.mode.keyword(),
        "primaryKey": primary_key,
        "table": table.name,
        "types": Value::Object(types.into_iter().collect::<Map<String, Value>>()),
    });
    // `order = "source"`: the rows of a map table are not sorted by key, which a loader must know (its
    // check of ascending keys, docs/data-format.md §5). Absent otherwise, so other tables keep their hash.
    if table.source_order {
        d["order"] = json!("source");
    }
    d
}

fn fields_json(project: &Project, fields: &[Field], types: &mut BTreeMap<String, Value>) -> Value {
    Value::Array(
        fields
            .iter()
            .map(|f| json!({"name": f.name, "type": type_json(project, &f.ty, types)}))
            .collect(),
    )
}

/// The description of `ty`; named types it reaches are added to `types` (each once, so recursive types end).
fn type_json(project: &Project, ty: &Type, types: &mut BTreeMap<String, Value>) -> Value {
    let named = |kind: &str, name: &str, types: &mut BTreeMap<String, Value>| {
        if !types.contains_key(name) {
            // Claimed before its definition is built: a type that reaches itself stops here.
            types.insert(name.to_string(), Value::Null);
            let def = match kind {
                "enum" | "flags" => {
                    json!({"enum": project.enums.get(name).map(|e| e.members.clone()).unwrap_or_default()})
                }
                "record" => match project.records.get(name) {
                    Some(r) => {
                        let fields = fields_json(project, &r.fields, types);
                        match r.form {
                            RecordForm::Closed => json!({ "record": fields }),
                            RecordForm::Open => json!({"record": fields, "form": "open"}),
                            RecordForm::Tuple { min, rest } => {
                                json!({"record": fields, "form": "tuple", "minItems": min, "rest": rest})
                            }
                        }
                    }
                    None => Value::Null,
                },
                "choice" => match project.choices.get(name) {
                    Some(c) => {
                        let members: Vec<Value> = c
                            .members
                            .iter()
                            .map(|m| type_json(project, m, types))
                            .collect();
                        json!({ "choice": members })
                    }
                    None => Value::Null,
                },
                _ => match project.unions.get(name) {
                    Some(u) => {
                        let variants: Vec<Value> = u
                            .variants
                            .iter()
                            .map(|v| json!({"tag": v.tag, "fields": fields_json(project, &v.fields, types)}))
                            .collect();
                        json!({"union": {"discriminator": u.discriminator, "variants": variants}})
                    }
                    None => Value::Null,
                },
            };
            types.insert(name.to_string(), def);
        }
        json!({ kind: name })
    };
    match ty {
        Type::Bool => json!("bool"),
        Type::Int(w) => json!(w.rust_name()),
        Type::Float => json!("f64"),
        Type::String => json!("string"),
        Type::DateTime(_) => json!("datetime"),
        Type::Date => json!("date"),
        Type::Time(_) => json!("time"),
        Type::Duration => json!("duration"),
        Type::Enum(n) => named("enum", n, types),
        Type::Flags(n) => named("flags", n, types),
        Type::Record(n) => named("record", n, types),
        Type::Union(n) => named("union", n, types),
        Type::Array(t) => json!({"array": type_json(project, t, types)}),
        Type::Optional(t) => json!({"optional": type_json(project, t, types)}),
        Type::Map(k, v) => {
            json!({"map": {"key": type_json(project, k, types), "value": type_json(project, v, types)}})
        }
        Type::Json => json!("json"),
        Type::Choice(n) => named("choice", n, types),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{EnumDef, IntWidth, TableMode};

    fn project(members: &[&str], width: IntWidth) -> Project {
        let mut p = Project::default();
        p.enums.insert(
            "Dir".into(),
            EnumDef {
                name: "Dir".into(),
                doc: "ignored".into(),
                members: members.iter().map(|m| m.to_string()).collect(),
                aliases: vec![],
                values: None,
                idents: vec![],
                origin: "x".into(),
            },
        );
        p.tables.push(Table {
            doc: "docs are not part of the hash".into(),
            primary_key: vec![0],
            ..Table::new(
                "Move",
                TableMode::Map,
                vec![
                    Field::new("Id", Type::Int(width)),
                    Field::new("Dirs", Type::Array(Box::new(Type::Enum("Dir".into())))),
                ],
            )
        });
        p
    }

    #[test]
    fn description_names_fields_types_and_reached_definitions() {
        let p = project(&["N", "S"], IntWidth::U8);
        assert_eq!(
            canonical::json_value(&description(&p, &p.tables[0])),
            r#"{"fields":[{"name":"Id","type":"u8"},{"name":"Dirs","type":{"array":{"enum":"Dir"}}}],"mode":"map","primaryKey":["Id"],"table":"Move","types":{"Dir":{"enum":["N","S"]}}}"#
        );
    }

    #[test]
    fn hash_changes_with_the_layout_not_with_docs() {
        let base = project(&["N", "S"], IntWidth::U8);
        let h = schema_hash(&base, &base.tables[0]);
        assert_eq!(h.len(), 64);
        // Member order is the binary enum index: reordering is a new layout.
        let swapped = project(&["S", "N"], IntWidth::U8);
        assert_ne!(h, schema_hash(&swapped, &swapped.tables[0]));
        let wider = project(&["N", "S"], IntWidth::U16);
        assert_ne!(h, schema_hash(&wider, &wider.tables[0]));
        let mut documented = project(&["N", "S"], IntWidth::U8);
        documented.tables[0].fields[0].doc = "the id".into();
        documented.enums.get_mut("Dir").unwrap().doc = "other".into();
        assert_eq!(h, schema_hash(&documented, &documented.tables[0]));
    }
}
