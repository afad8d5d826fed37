//! The localization table (`[localization]` in gentable.toml, docs/conventions.md §4 "Localization") as a
//! view over the IR: text key → row and per-language text. Validation checks keys against it
//! ([`crate::validate::text`]); emitters inline or look up texts through it.

use crate::config::LocalizationConfig;
use crate::ir::{Project, Table, TableMode, Type, Value};
use std::collections::BTreeMap;

/// The localization table of a project: the table, its key field and, per language of `[localization]
/// languages`, the field holding that language's texts.
#[derive(Clone, Copy, Debug)]
pub struct TextTable<'p> {
    pub table: &'p Table,
    /// The key field: the table's single string primary key.
    pub key: usize,
    config: &'p LocalizationConfig,
}

impl<'p> TextTable<'p> {
    /// `(language, field index)` for every language, the default first.
    pub fn languages(&self) -> impl Iterator<Item = (&'p str, usize)> + '_ {
        let t = self.table;
        self.config
            .languages
            .iter()
            .map(move |l| (l.as_str(), t.field_index(l).expect("checked by text_table")))
    }
}

/// The localization table `l` names in `project`, checked: it exists, its key and languages are fields, and it
/// is a map table keyed by one string field (generated code looks texts up by that key). `Err`: what is
/// wrong, for a GT0332 diagnostic.
pub fn text_table<'p>(
    project: &'p Project,
    l: &'p LocalizationConfig,
) -> Result<TextTable<'p>, String> {
    let t = project
        .table(&l.table)
        .ok_or_else(|| format!("[localization] table {:?} does not exist", l.table))?;
    let key = t.field_index(&l.key).ok_or_else(|| {
        format!(
            "[localization] key {:?} is not a field of {}",
            l.key, l.table
        )
    })?;
    for lang in &l.languages {
        if t.field_index(lang).is_none() {
            return Err(format!(
                "[localization] language {lang:?} is not a field of {}",
                l.table
            ));
        }
    }
    if t.mode != TableMode::Map
        || t.primary_key.len() != 1
        || t.fields[t.primary_key[0]].ty != Type::String
    {
        return Err(format!(
            "[localization] table {} needs a single string primary key (x-gentable-primaryKey)",
            t.name
        ));
    }
    Ok(TextTable {
        table: t,
        key,
        config: l,
    })
}

/// Key → (row index in the text table, per language: its non-blank text).
pub type Texts<'p> = BTreeMap<&'p str, (usize, Vec<Option<&'p str>>)>;

/// The text table as `key → (row index, per language: text)`; `Err` as [`text_table`].
pub fn texts<'p>(project: &'p Project, l: &'p LocalizationConfig) -> Result<Texts<'p>, String> {
    let tt = text_table(project, l)?;
    let t = tt.table;
    let ki = tt.key;
    let cols: Vec<usize> = tt.languages().map(|(_, c)| c).collect();
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
