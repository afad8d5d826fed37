//! What the reference checks share: the atoms of a value as key text, and every foreign-key value of a
//! project with where it sits.

use crate::ir::{Field, Project, Row, Table, Type, Value};

/// One foreign-key value of a row ([`each_reference`]).
pub(super) struct Reference<'p> {
    pub table: &'p Table,
    /// The field that declares the key (a table field, or a field of a record or polymorphic record).
    pub field: &'p Field,
    /// The declared targets: `field.foreign_keys`, or `field.key_foreign_keys` for a map key.
    pub targets: &'p [(String, Option<String>)],
    pub row: &'p Row,
    /// The 0-based column of the cell holding the value (an array over several columns: its element's).
    pub column: Option<usize>,
    /// The value as key text.
    pub atom: String,
    /// Where it sits below the table field, for messages: ` (in Effects.target)`, ` (a key of Drops)`.
    pub path: String,
}

/// Call `f` for every value of every foreign key (docs/conventions.md §4): plain fields, each element of an
/// array (at any depth), each key and each value of a map, and the fields of nested records and polymorphic
/// records inside any of those. A cell that failed to type is left out (its row's `RowExtra::failed`).
pub(super) fn each_reference<'p>(project: &'p Project, f: &mut dyn FnMut(Reference<'p>)) {
    for t in &project.tables {
        for row in &t.rows {
            for (fi, field) in t.fields.iter().enumerate() {
                if row.failed(fi) {
                    continue;
                }
                let v = &row.values[fi];
                if !field.foreign_keys.is_empty() {
                    let mut atoms = vec![];
                    collect_atoms(v, &mut atoms);
                    for (i, atom) in atoms.into_iter().enumerate() {
                        // The element index is the column's only for a flat array spread over columns.
                        let column = if matches!(field.ty.strip_optional(), Type::Array(_)) {
                            row.element_column(fi, i)
                        } else {
                            row.column(fi)
                        };
                        f(Reference {
                            table: t,
                            field,
                            targets: &field.foreign_keys,
                            row,
                            column,
                            atom,
                            path: String::new(),
                        });
                    }
                }
                if !field.key_foreign_keys.is_empty() {
                    for atom in map_keys(v) {
                        f(Reference {
                            table: t,
                            field,
                            targets: &field.key_foreign_keys,
                            row,
                            column: row.column(fi),
                            atom,
                            path: format!(" (a key of {})", field.name),
                        });
                    }
                }
                walk_records(project, &field.ty, v, &mut |rf, rv| {
                    let path = format!(" (in {}.{})", field.name, rf.name);
                    let mut atoms = vec![];
                    if !rf.foreign_keys.is_empty() {
                        collect_atoms(rv, &mut atoms);
                    }
                    for atom in atoms {
                        f(Reference {
                            table: t,
                            field: rf,
                            targets: &rf.foreign_keys,
                            row,
                            column: row.column(fi),
                            atom,
                            path: path.clone(),
                        });
                    }
                    if !rf.key_foreign_keys.is_empty() {
                        for atom in map_keys(rv) {
                            f(Reference {
                                table: t,
                                field: rf,
                                targets: &rf.key_foreign_keys,
                                row,
                                column: row.column(fi),
                                atom,
                                path: format!(" (a key of {}.{})", field.name, rf.name),
                            });
                        }
                    }
                });
            }
        }
    }
}

/// Call `f(field, value)` for every field of every record and polymorphic record inside a value of type
/// `ty` (through arrays, map values and optionals, at any depth).
pub(super) fn walk_records<'p>(
    project: &'p Project,
    ty: &Type,
    v: &Value,
    f: &mut dyn FnMut(&'p Field, &Value),
) {
    match (ty.strip_optional(), v) {
        (Type::Array(inner), Value::Array(items)) => items
            .iter()
            .for_each(|x| walk_records(project, inner, x, f)),
        (Type::Map(_, vt), Value::Map(entries)) => entries
            .iter()
            .for_each(|(_, x)| walk_records(project, vt, x, f)),
        (Type::Record(name), Value::Record(vals)) => {
            for (rf, rv) in project.records[name].fields.iter().zip(vals) {
                f(rf, rv);
                walk_records(project, &rf.ty, rv, f);
            }
        }
        (Type::Union(name), Value::Union(uv)) => {
            let (tag, vals) = (&uv.tag, &uv.values);
            if let Some(var) = project.unions[name].variant(tag) {
                for (vf, vv) in var.fields.iter().zip(vals) {
                    f(vf, vv);
                    walk_records(project, &vf.ty, vv, f);
                }
            }
        }
        _ => {}
    }
}

/// Every field of the project that may declare a foreign key: table fields, record fields and the fields of
/// every polymorphic record's variants.
pub(super) fn all_fields(project: &Project) -> impl Iterator<Item = &Field> {
    project
        .tables
        .iter()
        .flat_map(|t| t.fields.iter())
        .chain(project.records.values().flat_map(|r| r.fields.iter()))
        .chain(
            project
                .unions
                .values()
                .flat_map(|u| u.variants.iter().flat_map(|v| v.fields.iter())),
        )
}

pub(super) fn atom_text(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) | Value::Enum(s) => Some(s.to_string()),
        Value::Int(i) => Some(i.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The scalars of a value as key text: the value itself, the elements of arrays (at any depth) and the values
/// of maps.
pub(super) fn collect_atoms(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Array(items) => items.iter().for_each(|x| collect_atoms(x, out)),
        Value::Map(entries) => entries.iter().for_each(|(_, x)| collect_atoms(x, out)),
        Value::Null => {}
        v => out.extend(atom_text(v)),
    }
}

/// The keys of a map value (inside optionals) as key text.
fn map_keys(v: &Value) -> Vec<String> {
    match v {
        Value::Map(entries) => entries.iter().filter_map(|(k, _)| atom_text(k)).collect(),
        _ => vec![],
    }
}
