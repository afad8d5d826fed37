//! Localized texts (docs/conventions.md §4 "Localization"): every `x-gentable-text` value must be a key of
//! the `[localization]` table (error at the cell, unless the field's `x-gentable-foreignKey` to that table
//! already reports it), and every key used must have a non-blank text in every language (warning at the
//! text table's cell).

use crate::config::LocalizationConfig;
use crate::diag::Code;
use crate::diag::Diagnostic;
use crate::ir::text::texts;
use crate::ir::{Project, Type, Value};
use std::collections::BTreeSet;

/// Text keys of a value of type `ty` (strings, arrays and optionals of them).
fn keys<'v>(ty: &Type, v: &'v Value, out: &mut Vec<&'v str>) {
    match (ty.strip_optional(), v) {
        (Type::String, Value::Str(s)) => out.push(s),
        (Type::Array(t), Value::Array(items)) => items.iter().for_each(|x| keys(t, x, out)),
        _ => {}
    }
}

/// Check the text keys and translations (module docs). Nothing is said about a text table not all of
/// whose rows are known ([`super::gaps::Gaps`]), nor about a failed cell.
pub fn check(
    project: &Project,
    l: Option<&LocalizationConfig>,
    gaps: &super::gaps::Gaps,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(l) = l else { return };
    if gaps.tables.contains(&l.table) || (gaps.unread_files && project.table(&l.table).is_none()) {
        return;
    }
    let uses_text = project
        .tables
        .iter()
        .any(|t| t.fields.iter().any(|f| f.text));
    let texts = match texts(project, l) {
        Ok(t) => t,
        Err(m) => {
            if uses_text || project.table(&l.table).is_some() {
                diags.push(Diagnostic::file_error(
                    Code::BadLocalization,
                    "gentable.toml",
                    m,
                ));
            }
            return;
        }
    };
    let lang_table = project.table(&l.table).expect("checked");
    let mut reported: BTreeSet<(usize, usize)> = BTreeSet::new();
    for t in &project.tables {
        for (fi, f) in t.fields.iter().enumerate() {
            if !f.text {
                continue;
            }
            let fk_checked = f.foreign_keys.iter().any(|(tt, _)| *tt == l.table);
            for r in &t.rows {
                let mut ks = vec![];
                keys(&f.ty, &r.values[fi], &mut ks);
                for k in ks {
                    match texts.get(k) {
                        None if !fk_checked => diags.push(
                            Diagnostic::cell_error(
                                Code::MissingTextKey,
                                &r.origin,
                                r.column(fi),
                                Some(&f.name),
                                Some(k),
                                format!("text key {k:?} is not in {}", l.table),
                            )
                            .with_help(format!(
                                "add a {} row with key {k:?}, or correct the key",
                                l.table
                            )),
                        ),
                        None => {}
                        Some((ri, langs)) => {
                            for (li, text) in langs.iter().enumerate() {
                                if text.is_some() || !reported.insert((*ri, li)) {
                                    continue;
                                }
                                let lr = &lang_table.rows[*ri];
                                let col =
                                    lang_table.field_index(&l.languages[li]).expect("checked");
                                if lr.failed(col) {
                                    continue;
                                }
                                diags.push(
                                    Diagnostic::cell_error(
                                        Code::MissingTranslation,
                                        &lr.origin,
                                        lr.column(col),
                                        Some(&l.languages[li]),
                                        Some(""),
                                        format!(
                                            "{k:?} (used by {}.{}) has no {} text",
                                            t.name, f.name, l.languages[li]
                                        ),
                                    )
                                    .with_help("write the translation")
                                    .warning(),
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
