//! Following a view's paths (`schema::view`) through typed rows: fields of a row or record, record fields,
//! foreign keys (to the row they name) and `tables.<T>` singletons. The types were checked by
//! `validate::views`; here a path that meets an absent value simply gives nothing.

use crate::ir::{canonical, Field, Project, Table, Type, Value};
use std::collections::HashMap;

/// The rows of the project by key: `(table, field)` (`None`: the primary key) → key (canonical JSON) → row.
pub struct Index<'p> {
    pub project: &'p Project,
    keys: HashMap<(String, Option<String>), HashMap<String, usize>>,
}

/// Where a path is read from: the fields and values of a row or record, and the table row it belongs to
/// (the row a picture's item links to).
#[derive(Clone, Copy)]
pub struct Scope<'p> {
    pub fields: &'p [Field],
    pub values: &'p [Value],
    pub row: Option<(&'p Table, usize)>,
}

/// A value a path reached.
#[derive(Clone, Copy)]
pub struct Reached<'p> {
    pub value: &'p Value,
    pub ty: &'p Type,
    pub field: &'p Field,
    /// The row the value belongs to.
    pub row: Option<(&'p Table, usize)>,
}

fn key_text(project: &Project, ty: &Type, v: &Value) -> String {
    let mut s = String::new();
    canonical::write_value(&mut s, project, ty, v);
    s
}

impl<'p> Index<'p> {
    pub fn new(project: &'p Project) -> Index<'p> {
        // Every target of a foreign key of a table, record or union variant field.
        let fields = project
            .tables
            .iter()
            .flat_map(|t| &t.fields)
            .chain(project.records.values().flat_map(|r| &r.fields))
            .chain(
                project
                    .unions
                    .values()
                    .flat_map(|u| u.variants.iter().flat_map(|v| &v.fields)),
            );
        let targets: std::collections::BTreeSet<&(String, Option<String>)> =
            fields.flat_map(|f| &f.foreign_keys).collect();
        let mut keys = HashMap::new();
        for (target, field) in targets {
            let mut map = HashMap::new();
            if let Some(t) = project.table(target) {
                let col = match field {
                    Some(f) => t.field_index(f),
                    None if t.primary_key.len() == 1 => Some(t.primary_key[0]),
                    None => None,
                };
                if let Some(c) = col {
                    for (n, r) in t.rows.iter().enumerate() {
                        map.entry(key_text(project, &t.fields[c].ty, &r.values[c]))
                            .or_insert(n);
                    }
                }
            }
            keys.insert((target.clone(), field.clone()), map);
        }
        Index { project, keys }
    }

    /// The row a key value `v` of a field with foreign keys `fks` names (the first target that has it).
    pub fn target(
        &self,
        fks: &[(String, Option<String>)],
        v: &Value,
    ) -> Option<(&'p Table, usize)> {
        for (t, f) in fks {
            let table = self.project.table(t)?;
            let ty = match f {
                Some(f) => &table.fields[table.field_index(f)?].ty,
                None => &table.fields[*table.primary_key.first()?].ty,
            };
            let k = key_text(self.project, ty, v);
            if let Some(&n) = self
                .keys
                .get(&(t.clone(), f.clone()))
                .and_then(|m| m.get(&k))
            {
                return Some((table, n));
            }
        }
        None
    }

    /// The scope of row `n` of `t`.
    pub fn row_scope(&self, t: &'p Table, n: usize) -> Scope<'p> {
        Scope {
            fields: &t.fields,
            values: &t.rows[n].values,
            row: Some((t, n)),
        }
    }

    /// Follow `path` from `scope` (see the module docs).
    pub fn get(&self, scope: Scope<'p>, path: &str) -> Option<Reached<'p>> {
        let mut segs: Vec<&str> = path.split('.').collect();
        let mut scope = scope;
        if segs.first() == Some(&"tables") {
            let t = self.project.table(segs.get(1)?)?;
            if t.rows.is_empty() {
                return None;
            }
            scope = self.row_scope(t, 0);
            segs.drain(..2);
        }
        let mut reached: Option<Reached<'p>> = None;
        for s in segs {
            if let Some(r) = reached {
                scope = self.inner(r)?;
            }
            let i = scope.fields.iter().position(|f| f.name == s)?;
            let f = &scope.fields[i];
            reached = Some(Reached {
                value: scope.values.get(i)?,
                ty: &f.ty,
                field: f,
                row: scope.row,
            });
        }
        reached.filter(|r| !matches!(r.value, Value::Null))
    }

    /// The scope inside a reached value: a record's fields, or the row a key names.
    fn inner(&self, r: Reached<'p>) -> Option<Scope<'p>> {
        match (r.ty.strip_optional(), r.value) {
            (Type::Record(n), Value::Record(values)) => Some(Scope {
                fields: &self.project.records.get(n)?.fields,
                values,
                row: r.row,
            }),
            (_, v) if !r.field.foreign_keys.is_empty() => {
                let (t, n) = self.target(&r.field.foreign_keys, v)?;
                Some(self.row_scope(t, n))
            }
            _ => None,
        }
    }

    /// The items `path` names from `scope`: each element of a list (or the one value), as the scope of a
    /// record or of the row a key names.
    pub fn items(&self, scope: Scope<'p>, path: &str) -> Vec<Scope<'p>> {
        let Some(r) = self.get(scope, path) else {
            return vec![];
        };
        match (r.ty.strip_optional(), r.value) {
            (Type::Array(inner), Value::Array(items)) => items
                .iter()
                .filter_map(|v| {
                    self.inner(Reached {
                        value: v,
                        ty: inner,
                        field: r.field,
                        row: r.row,
                    })
                })
                .collect(),
            _ => self.inner(r).into_iter().collect(),
        }
    }

    /// An integer at `path`.
    pub fn int(&self, scope: Scope<'p>, path: &str) -> Option<i64> {
        match self.get(scope, path)?.value {
            Value::Int(i) => i64::try_from(*i).ok(),
            _ => None,
        }
    }

    /// The first of `paths` that has a value, as text (enum members by name, numbers in their shortest form).
    pub fn text(&self, scope: Scope<'p>, paths: &[String]) -> Option<String> {
        paths.iter().find_map(|p| {
            let r = self.get(scope, p)?;
            Some(crate::typing::cell::print::cell_text(
                self.project,
                r.ty,
                r.value,
                '|',
            ))
        })
    }
}
