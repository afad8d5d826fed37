//! Export groups (docs/conventions.md §6 "Export groups"): `x-gentable-groups` on tables and row fields,
//! `groups` per output in `gentable.toml`.
//!
//! A table or field without `x-gentable-groups` belongs to every group. An output that lists `groups` gets
//! the project filtered to the tables and fields that share a group with it: its own canonical data
//! (`generated/data/<output>/`) and content hash. Enum, record and union types are kept whole.

use crate::ir::{Project, Table};
use anyhow::{bail, Result};

/// Check that every `x-gentable-groups` name is one of `names`.
pub fn check_names(project: &Project, names: &[String]) -> Result<()> {
    let bad = |gs: &[String]| gs.iter().find(|g| !names.contains(g)).cloned();
    for t in &project.tables {
        if let Some(g) = bad(&t.groups) {
            bail!(
                "table {}: x-gentable-groups names {g:?}, which is not in [groups] names {names:?}",
                t.name
            );
        }
        for f in &t.fields {
            if let Some(g) = bad(&f.groups) {
                bail!("{}.{}: x-gentable-groups names {g:?}, which is not in [groups] names {names:?}", t.name, f.name);
            }
        }
    }
    for r in project.records.values() {
        if let Some(f) = r.fields.iter().find(|f| !f.groups.is_empty()) {
            bail!("{}.{}: x-gentable-groups applies to tables and their fields, not to fields of records", r.name, f.name);
        }
    }
    Ok(())
}

fn selected(tags: &[String], groups: &[String]) -> bool {
    tags.is_empty() || tags.iter().any(|t| groups.contains(t))
}

/// The project as an output with `groups` (None: every group) and row `tags` sees it.
pub fn filter(
    project: &Project,
    groups: Option<&[String]>,
    tags: &crate::config::TagFilter,
) -> Result<Project> {
    let mut out = project.clone();
    out.tables = vec![];
    let selected = |t: &[String]| groups.is_none_or(|g| selected(t, g));
    let groups = groups.unwrap_or_default();
    for t in &project.tables {
        if !selected(&t.groups) {
            continue;
        }
        let keep: Vec<usize> = (0..t.fields.len())
            .filter(|&i| selected(&t.fields[i].groups))
            .collect();
        let remap = |i: usize| keep.iter().position(|&k| k == i);
        let mut primary_key = vec![];
        for &i in &t.primary_key {
            match remap(i) {
                Some(j) => primary_key.push(j),
                None => bail!(
                    "table {}: the primary key field {} is left out of the groups {groups:?}; a key field must be in every group of its table",
                    t.name,
                    t.fields[i].name
                ),
            }
        }
        let unique_keys = t
            .unique_keys
            .iter()
            .filter_map(|k| k.iter().map(|&i| remap(i)).collect::<Option<Vec<_>>>())
            .collect();
        let rows = t
            .rows
            .iter()
            .filter(|r| tags.keeps(&r.tags))
            .map(|r| crate::ir::Row {
                values: keep.iter().map(|&i| r.values[i].clone()).collect(),
                origin: r.origin.clone(),
                columns: keep.iter().map(|&i| r.column(i)).collect::<Vec<_>>().into(),
                tags: r.tags.clone(),
                extra: None,
            })
            .collect();
        out.tables.push(Table {
            fields: keep.iter().map(|&i| t.fields[i].clone()).collect(),
            primary_key,
            unique_keys,
            rows,
            ..t.clone()
        });
    }
    Ok(out)
}

/// `[localization] inline = "<language>"`: every `x-gentable-text` value (a string, or strings in an array)
/// of a row field becomes its text in that language (the key itself when the text is missing, which the
/// validation already reported).
pub fn inline_texts(project: &Project, l: &crate::config::LocalizationConfig) -> Result<Project> {
    use crate::ir::{Type, Value};
    let lang = l.inline.as_deref().unwrap_or_default();
    let li = l.languages.iter().position(|x| x == lang).unwrap_or(0);
    let texts: std::collections::BTreeMap<String, String> = crate::ir::text::texts(project, l)
        .map_err(anyhow::Error::msg)?
        .into_iter()
        .filter_map(|(k, (_, langs))| langs[li].map(|t| (k.to_string(), t.to_string())))
        .collect();
    fn swap(ty: &Type, v: &mut Value, texts: &std::collections::BTreeMap<String, String>) {
        match (ty.strip_optional(), v) {
            (Type::String, Value::Str(s)) => {
                if let Some(t) = texts.get(s.as_str()) {
                    *s = t.as_str().into();
                }
            }
            (Type::Array(t), Value::Array(items)) => {
                items.iter_mut().for_each(|x| swap(t, x, texts))
            }
            _ => {}
        }
    }
    let mut out = project.clone();
    for t in &mut out.tables {
        // The values are texts now, no longer keys of the text table.
        for f in t.fields.iter_mut().filter(|f| f.text) {
            f.foreign_keys.retain(|(tt, _)| *tt != l.table);
        }
        let fields = t.fields.clone();
        for r in &mut t.rows {
            for (f, v) in fields.iter().zip(r.values.iter_mut()) {
                if f.text {
                    swap(&f.ty, v, &texts);
                }
            }
        }
    }
    Ok(out)
}

/// Where output `output` (`rust`, `csharp`, `typescript`) finds its data under the generated folder:
/// `data/<output>/` when that output selects export groups, else `data/`.
pub fn data_dir(generated: &std::path::Path, output: &str) -> std::path::PathBuf {
    let own = generated.join("data").join(output);
    if own.is_dir() {
        own
    } else {
        generated.join("data")
    }
}
