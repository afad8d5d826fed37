//! Primary keys that differ only by character width, case or spaces (`Soldier`, `soldier`, `Ｓｏｌｄｉｅｒ`,
//! `Soldier `): a warning (GT0306) at the later row's key cell naming the earlier one, since a reference
//! written the other way is an easy mistake (docs/conventions.md §3 "Full-width characters").

use crate::diag::hint::{differences, fold, words};
use crate::diag::{column_letters, Code, Diagnostic};
use crate::ir::{Project, TableMode, Type, Value};
use std::collections::HashMap;

/// GT0306 for every map table with a single-field string key whose keys fold alike (`diag::hint::fold`).
pub fn check(project: &Project, checked: &dyn Fn(&str) -> bool, diags: &mut Vec<Diagnostic>) {
    for t in &project.tables {
        if t.mode != TableMode::Map || t.primary_key.len() != 1 || !checked(&t.name) {
            continue;
        }
        let k = t.primary_key[0];
        if !matches!(t.fields[k].ty.strip_optional(), Type::String) {
            continue;
        }
        // In source order, so that the later row is the one reported.
        let mut rows: Vec<&crate::ir::Row> = t.rows.iter().collect();
        rows.sort_by(|a, b| a.origin.cmp(&b.origin));
        let mut seen: HashMap<String, &crate::ir::Row> = HashMap::new();
        for r in rows {
            // A key cell that failed to type has no key (validate::Gaps).
            if r.failed(k) {
                continue;
            }
            let Value::Str(key) = &r.values[k] else {
                continue;
            };
            let f = fold(key);
            match seen.get(&f) {
                Some(first) => {
                    let Value::Str(other) = &first.values[k] else {
                        continue;
                    };
                    let Some(how) = differences(key, other) else {
                        continue;
                    };
                    let mut at = first.origin.file.to_string();
                    if let Some(sh) = &first.origin.sheet {
                        at.push_str(&format!("[{sh}]"));
                    }
                    at.push_str(&format!(":{}", first.origin.row));
                    if let Some(c) = first.column(k) {
                        at.push_str(&format!(":{}", column_letters(c)));
                    }
                    diags.push(
                        Diagnostic::cell_error(
                            Code::NearDuplicateKey,
                            &r.origin,
                            r.column(k),
                            Some(&t.fields[k].name),
                            Some(key),
                            format!(
                                "the key {key:?} differs from the key {other:?} of {} only by {} (also at {at})",
                                t.name,
                                words(&how)
                            ),
                        )
                        .with_help("keys that differ only by width, case or spaces are easy to confuse: rename one, or delete the row meant to be the other")
                        .warning(),
                    );
                }
                None => {
                    seen.insert(f, r);
                }
            }
        }
    }
}
