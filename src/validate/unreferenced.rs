//! `x-gentable-unreferenced`: rows whose primary key no foreign key of the project names (GT0320).

use super::values::{atom_text, each_reference};
use crate::diag::{Code, Diagnostic};
use crate::ir::Project;
use crate::schema::{SchemaSet, TableSchema};
use std::collections::HashSet;

/// `x-gentable-unreferenced` on a table schema: `"warning"`/`"error"`, or
/// `{"severity": "warning", "except": ["Key", …]}`. Every row whose primary key no foreign key of the project
/// references is reported (GT0320) with that severity, except the listed keys. Example: unused `Lang` keys.
pub fn check(
    project: &Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    diags: &mut Vec<Diagnostic>,
) {
    let mut wanted = vec![];
    for ts in schemas {
        let (severity, except) = match &ts.unreferenced {
            None => continue,
            Some(Ok(u)) => (
                u.severity,
                u.except.iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            Some(Err(m)) => {
                diags.push(Diagnostic::file_error(
                    Code::InvalidSchema,
                    set.rel(&ts.schema_file),
                    m.clone(),
                ));
                continue;
            }
        };
        let Some(t) = project.table(&ts.name) else {
            continue;
        };
        if t.primary_key.len() != 1 {
            continue;
        }
        wanted.push((
            t,
            severity,
            except
                .into_iter()
                .map(String::from)
                .collect::<HashSet<String>>(),
        ));
    }
    if wanted.is_empty() {
        return;
    }
    let mut used: HashSet<(String, String)> = HashSet::new();
    each_reference(project, &mut |r| {
        let a = r.atom;
        for (tt, tf) in r.targets {
            let t = project.table(tt);
            let is_pk = match (tf, t) {
                (None, _) => true,
                (Some(f), Some(t)) => {
                    t.primary_key.len() == 1 && t.fields[t.primary_key[0]].name == *f
                }
                _ => false,
            };
            if is_pk {
                used.insert((tt.clone(), a.clone()));
            }
        }
    });
    for (t, severity, except) in wanted {
        let pk = t.primary_key[0];
        for row in &t.rows {
            let Some(k) = atom_text(&row.values[pk]) else {
                continue;
            };
            if except.contains(&k) || used.contains(&(t.name.clone(), k.clone())) {
                continue;
            }
            let mut d = Diagnostic::cell_error(
                Code::Unreferenced,
                &row.origin,
                row.column(pk),
                Some(&t.fields[pk].name),
                Some(&k),
                format!("{k:?} of {} is not referenced by any table", t.name),
            )
            .with_help(format!("delete the row, reference it, or list it in \"except\" of x-gentable-unreferenced in the {} schema", t.name));
            d.severity = severity;
            diags.push(d);
        }
    }
}
