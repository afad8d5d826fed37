//! The localization table (`[localization]` in gentable.toml, docs/conventions.md §4 "Localization") as a
//! view over the IR: text key → row and per-language text. Validation checks keys against it
//! ([`crate::validate::text`]); emitters inline or look up texts through it.

use crate::config::LocalizationConfig;
use crate::ir::{Project, Value};
use std::collections::BTreeMap;

/// Key → (row index in the text table, per language: its non-blank text).
pub type Texts<'p> = BTreeMap<&'p str, (usize, Vec<Option<&'p str>>)>;

/// The text table as `key → (row index, per language: text)`.
pub fn texts<'p>(project: &'p Project, l: &LocalizationConfig) -> Result<Texts<'p>, String> {
    let t = project
        .table(&l.table)
        .ok_or_else(|| format!("[localization] table {:?} does not exist", l.table))?;
    let ki = t.field_index(&l.key).ok_or_else(|| {
        format!(
            "[localization] key {:?} is not a field of {}",
            l.key, l.table
        )
    })?;
    let mut cols = vec![];
    for lang in &l.languages {
        cols.push(t.field_index(lang).ok_or_else(|| {
            format!(
                "[localization] language {lang:?} is not a field of {}",
                l.table
            )
        })?);
    }
    let mut out = BTreeMap::new();
    for (ri, r) in t.rows.iter().enumerate() {
        if let Value::Str(k) = &r.values[ki] {
            let langs = cols
                .iter()
                .map(|&c| match &r.values[c] {
                    Value::Str(s) if !s.trim().is_empty() => Some(s.as_str()),
                    _ => None,
                })
                .collect();
            out.insert(k.as_str(), (ri, langs));
        }
    }
    Ok(out)
}
