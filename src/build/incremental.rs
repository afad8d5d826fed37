//! One-table rebuilds: when only some table files changed since the last clean build, read, type, validate
//! and emit just the tables they provide (issue 7's "a one-table edit re-reads only that table").
//!
//! The manifest of a clean build ([`crate::build::cache::Manifest`]) records, per table, the input files that
//! provide it and [`crate::validate::key_digests`]: what the foreign keys of other tables can see of it. A
//! later `gentable build` or `check` takes this path only when all of these hold, and otherwise runs the full
//! pipeline:
//!
//! * the last build had no diagnostic and recorded the tables ([`eligible`] projects only: no export
//!   `groups`, no `[localization]`, no `x-gentable-unreferenced`, and no rule that reads `tables` or `byKey`:
//!   those make one table's result depend on every other table's rows);
//! * the project file, every schema file, the template folders, the set of table files and every generated
//!   file are exactly as recorded (and no extra file sits in the generated folders); only table files
//!   changed, and each changed file provides exactly the tables it provided before;
//! * the rebuilt tables' key digests are unchanged, so every reference from an unchanged table still checks
//!   out (editing a key cell that others may reference makes a full build).
//!
//! Then the changed tables `C` are read and typed, and so are the tables their foreign keys point at (`D`,
//! usually from the read cache); `C` is validated against its JSON Schema, its keys, its foreign keys into
//! `C ∪ D` and its own rules: exactly the checks whose result can differ from the recorded clean build. The
//! emitters render `C`'s files and the shared files (types, index, content hash); the content hash combines
//! the new data of `C` with the recorded digests of the other tables' `data/*.json`. `tests/cache.rs` proves
//! that the result is byte for byte that of a clean build.

use crate::build::cache::{Entry, Manifest, TableRecord};
use crate::build::{self as pipeline, Context, Validated};
use crate::config::Loaded;
use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::ir::Project;
use crate::read::RawTable;
use crate::schema::{SchemaSet, TableSchema};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// A one-table rebuild in progress: which tables were rebuilt, and the manifest it starts from.
#[derive(Clone, Debug)]
pub struct Partial {
    /// The rebuilt tables (those whose files changed).
    pub only: BTreeSet<String>,
    /// The manifest of the clean build this one starts from.
    pub base: Manifest,
}

/// Whether tables of this project can be rebuilt one by one: no export groups, no localization, no
/// `x-gentable-unreferenced`, and no rule reading other tables (`tables`, `byKey`).
pub fn eligible(
    loaded: &Loaded,
    project: &Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
) -> bool {
    let c = &loaded.config;
    c.rust.groups.is_none()
        && c.csharp.groups.is_none()
        && c.typescript.groups.is_none()
        && c.localization.is_none()
        && schemas.iter().all(|ts| ts.unreferenced.is_none())
        && !crate::validate::rules::any_reads_other_tables(project, set, schemas)
}

/// Try a one-table rebuild. `None`: not possible (see the module docs), run the full pipeline. Otherwise the
/// validated project (whose `partial` is set) or every diagnostic, as [`pipeline::load_with_sources_in`]
/// gives them, and the names of the rebuilt tables (whose rows the diagnostics can point at).
pub fn load(
    loaded: &Loaded,
    ctx: &Context,
) -> Option<(Result<Validated, Diagnostics>, Vec<String>)> {
    let check = ctx.manifest_check(loaded)?;
    let m = &check.manifest;
    // Only table files changed (a hand-edited output, a new file, a schema edit: full build).
    if m.table_records.is_empty()
        || !check.same_files
        || check.changed.is_empty()
        || !check
            .changed
            .iter()
            .all(|k| check.table_files.contains_key(k))
    {
        return None;
    }
    let changed = &check.changed;
    let table_paths = &check.table_files;
    // Unchanged table files keep their entries (re-hashed ones with their new status); only table files are
    // recorded, as the full pipeline does if this path gives up.
    let refreshed: BTreeMap<&str, &Entry> = check
        .refreshed_inputs
        .iter()
        .map(|(k, e)| (k.as_str(), e))
        .collect();
    for k in table_paths.keys().filter(|k| !changed.contains(*k)) {
        let e = refreshed
            .get(k.as_str())
            .copied()
            .or_else(|| m.inputs.get(k));
        ctx.record_input(&ctx.input_path(k), e?.clone());
    }
    let records: BTreeMap<&str, &TableRecord> = m
        .table_records
        .iter()
        .map(|r| (r.name.as_str(), r))
        .collect();
    let only: BTreeSet<String> = m
        .table_records
        .iter()
        .filter(|r| r.sources.iter().any(|s| changed.contains(s)))
        .map(|r| r.name.clone())
        .collect();
    // The content hash takes the other tables' data digests from the manifest: they must be there.
    if m.table_records.iter().any(|r| {
        !only.contains(&r.name) && !m.outputs.contains_key(&format!("data/{}.json", r.name))
    }) {
        return None;
    }
    // A changed file that provides no table may provide one now: full build.
    if changed
        .iter()
        .any(|c| !m.table_records.iter().any(|r| r.sources.contains(c)))
    {
        return None;
    }

    let schema_rel = loaded.schema_rel();
    let set = crate::schema::load_dir(&loaded.schema_dir(), &schema_rel).ok()?;
    let mut project = Project {
        name: loaded.config.project.name.clone(),
        ..Default::default()
    };
    let names: Vec<String> = records.keys().map(|n| n.to_string()).collect();
    let (schemas, d) = pipeline::table_schemas(loaded, &set, &mut project, &names);
    if !d.is_empty() || schemas.len() != names.len() || !eligible(loaded, &project, &set, &schemas)
    {
        return None;
    }
    // The tables the rebuilt ones reference (directly or through records): typed too, for the checks.
    let mut needed: BTreeSet<String> = only.clone();
    let mut fk_fields: Vec<&crate::ir::Field> = project
        .records
        .values()
        .flat_map(|r| r.fields.iter())
        .collect();
    fk_fields.extend(
        schemas
            .iter()
            .filter(|ts| only.contains(&ts.name))
            .flat_map(|ts| ts.fields.iter()),
    );
    for f in fk_fields {
        for (t, _) in &f.foreign_keys {
            if records.contains_key(t.as_str()) {
                needed.insert(t.clone());
            }
        }
    }
    let read_files: BTreeSet<&String> = needed
        .iter()
        .flat_map(|n| records[n.as_str()].sources.iter())
        .collect();
    ctx.stage("reading", read_files.len());
    let read: Vec<(String, Vec<RawTable>, Vec<Diagnostic>)> = read_files
        .par_iter()
        .filter_map(|k| {
            let f = table_paths.get(*k)?;
            let mut d = vec![];
            let tables = pipeline::read_one(loaded, ctx, f, &mut d);
            ctx.tick();
            Some(((*k).clone(), tables, d))
        })
        .collect();
    if read.len() != read_files.len() {
        return None;
    }
    let mut diags: Vec<Diagnostic> = vec![];
    let mut by_table: BTreeMap<String, Vec<RawTable>> = BTreeMap::new();
    for (k, tables, d) in read {
        // Each file must provide exactly the tables it provided before.
        let now: BTreeSet<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        let before: BTreeSet<&str> = m
            .table_records
            .iter()
            .filter(|r| r.sources.contains(&k))
            .map(|r| r.name.as_str())
            .collect();
        if now != before {
            return None;
        }
        diags.extend(d);
        for t in tables {
            by_table.entry(t.name.clone()).or_default().push(t);
        }
    }
    let sources: Vec<(usize, Vec<RawTable>)> = schemas
        .iter()
        .enumerate()
        .filter_map(|(i, ts)| Some((i, by_table.remove(&ts.name)?)))
        .collect();
    ctx.stage("typing", sources.len());
    let (typed, d) = pipeline::type_tables(loaded, ctx, &project, &schemas, sources);
    diags.extend(d);
    let mut typed: BTreeMap<String, crate::ir::Table> =
        typed.into_iter().map(|t| (t.name.clone(), t)).collect();
    // Said once this path is sure to give the result (tests/cache.rs looks for it).
    let announce = || {
        if std::env::var_os("GENTABLE_TIMINGS").is_some() {
            let list: Vec<&str> = only.iter().map(String::as_str).collect();
            eprintln!(
                "gentable: rebuilding {} of {} tables: {}",
                only.len(),
                names.len(),
                list.join(", ")
            );
        }
    };
    let failed = |diags: Vec<Diagnostic>| {
        announce();
        let mut d = Diagnostics { items: diags };
        d.sort();
        Some((Err(d), only.iter().cloned().collect()))
    };
    if diags.iter().any(|d| d.severity == Severity::Error) {
        return failed(diags);
    }
    // Validate the rebuilt tables: JSON Schema on their rows, keys (which also sorts map tables).
    let mut part = Project {
        name: project.name.clone(),
        enums: project.enums.clone(),
        records: project.records.clone(),
        unions: project.unions.clone(),
        tables: only.iter().filter_map(|n| typed.remove(n)).collect(),
    };
    let part_schemas: Vec<_> = schemas
        .iter()
        .filter(|ts| only.contains(&ts.name))
        .cloned()
        .collect();
    ctx.stage("validating", 0);
    pipeline::json_schema_parallel(&mut part, &set, &part_schemas, &mut diags);
    ctx.stage("checking keys", 0);
    part.tables.extend(std::mem::take(&mut typed).into_values());
    crate::validate::keys(&mut part, &mut diags);
    crate::validate::foreign_keys_in(
        &part,
        &crate::validate::KeyIndex::new(&part),
        &set,
        Some(&only),
        &mut diags,
    );
    if !diags.iter().any(|d| d.severity == Severity::Error) {
        crate::validate::rules::check(&part, &set, &part_schemas, &mut diags);
    }
    // The whole project: the typed tables, and every other table as its schema without rows.
    let mut typed: BTreeMap<String, crate::ir::Table> = part
        .tables
        .into_iter()
        .map(|t| (t.name.clone(), t))
        .collect();
    project.tables = schemas
        .iter()
        .map(|ts| {
            typed
                .remove(&ts.name)
                .unwrap_or_else(|| pipeline::table_of(ts, vec![]))
        })
        .collect();
    // References into the rebuilt tables from the others hold only if what they can see is unchanged.
    let digests = crate::validate::key_digests(&project);
    if only
        .iter()
        .any(|n| digests.get(n) != Some(&records[n.as_str()].keys))
    {
        return None;
    }
    if diags.iter().any(|d| d.severity == Severity::Error) {
        return failed(diags);
    }
    announce();
    let mut d = Diagnostics { items: diags };
    d.sort();
    let rebuilt: Vec<String> = only.iter().cloned().collect();
    Some((
        Ok(Validated {
            project,
            schemas,
            schema_set: set,
            warnings: d.items,
            // The manifest of a one-table rebuild keeps the base's records.
            table_records: vec![],
            partial: Some(Partial {
                only,
                base: m.clone(),
            }),
        }),
        rebuilt,
    ))
}
