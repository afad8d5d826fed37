//! What the reference checks share: the atoms of a value as key text, and every foreign-key value of a
//! project with where it sits.

use crate::ir::{Project, Row, Table, Type, Value};

/// Call `f(table, field, column_field_index, row, atom, path)` for every value of every foreign key field:
/// plain fields, each element of array fields, and fields of nested records (at any depth).
pub(super) fn each_reference<'p>(
    project: &'p Project,
    f: &mut dyn FnMut(&'p Table, &'p crate::ir::Field, usize, &'p Row, String, String),
) {
    for t in &project.tables {
        for row in &t.rows {
            for (fi, field) in t.fields.iter().enumerate() {
                let v = &row.values[fi];
                if !field.foreign_keys.is_empty() {
                    let mut atoms = vec![];
                    collect_atoms(v, &mut atoms);
                    for a in atoms {
                        f(t, field, fi, row, a, String::new());
                    }
                }
                walk_records(project, &field.ty, v, &mut |rf, rv| {
                    if rf.foreign_keys.is_empty() {
                        return;
                    }
                    let mut atoms = vec![];
                    collect_atoms(rv, &mut atoms);
                    for a in atoms {
                        f(
                            t,
                            rf,
                            fi,
                            row,
                            a,
                            format!(" (in {}.{})", field.name, rf.name),
                        );
                    }
                });
            }
        }
    }
}

pub(super) fn walk_records<'p>(
    project: &'p Project,
    ty: &Type,
    v: &Value,
    f: &mut dyn FnMut(&'p crate::ir::Field, &Value),
) {
    match (ty.strip_optional(), v) {
        (Type::Array(inner), Value::Array(items)) => items
            .iter()
            .for_each(|x| walk_records(project, inner, x, f)),
        (Type::Record(name), Value::Record(vals)) => {
            for (rf, rv) in project.records[name].fields.iter().zip(vals) {
                f(rf, rv);
                walk_records(project, &rf.ty, rv, f);
            }
        }
        _ => {}
    }
}

pub(super) fn atom_text(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) | Value::Enum(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub(super) fn collect_atoms(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Array(items) => items.iter().for_each(|x| collect_atoms(x, out)),
        Value::Null => {}
        v => out.extend(atom_text(v)),
    }
}
