//! The plan of a build: what the driver (`build::stages`) has to do, decided once from the manifest of the
//! last clean build (`build::manifest`) and consulted by every stage. A plan is data; the stages exist once.
//!
//! * [`Plan::UpToDate`]: every input and output is as recorded: nothing to do (a no-op build).
//! * [`Plan::Tables`]: a one-table rebuild. Only table files changed since the last clean build, so only the
//!   tables they provide ([`Partial::only`]) are read, typed and validated, with the tables their foreign
//!   keys point at ([`Partial::needed`], usually from the read cache) for the reference checks; the emitters
//!   render only their files and the shared ones, and the content hash takes the other tables' recorded data
//!   digests. Taken only when all of these hold, else [`Plan::Full`]:
//!   - the last build had no diagnostic and recorded the tables ([`eligible`] projects only: no export
//!     `groups`, no `[localization]`, no `x-gentable-unreferenced`, and no rule that reads `tables` or
//!     `byKey`: those make one table's result depend on every other table's rows);
//!   - the project file, every schema file, the template folders, the set of table files and every generated
//!     file are exactly as recorded (no extra file in the generated folders); only table files changed, and
//!     each changed file provided tables before.
//!
//!   While it runs, the driver gives up (and runs [`Plan::Full`]) if a file now provides other tables, a schema
//!   no longer builds, or the rebuilt tables' key digests changed (editing a key cell that others may
//!   reference). `tests/cache.rs` proves that the result is byte for byte that of a clean build.
//! * [`Plan::Full`]: read, type and validate every table.

use super::cache::{Manifest, TableRecord};
use super::context::Context;
use super::manifest::ManifestCheck;
use crate::config::Loaded;
use crate::ir::Project;
use crate::read::SourceFile;
use crate::schema::{SchemaSet, TableSchema};
use std::collections::{BTreeMap, BTreeSet};

/// What a build does (see the module docs).
#[derive(Clone, Debug)]
pub enum Plan {
    /// Nothing changed since the last clean build.
    UpToDate(UpToDate),
    /// Every table.
    Full,
    /// A one-table rebuild.
    Tables(Box<Partial>),
}

/// A build that has nothing to do: what the last build recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpToDate {
    /// Tables of the project.
    pub tables: usize,
    /// Files under the generated folder.
    pub files: usize,
}

/// A one-table rebuild: which tables are rebuilt, which are read for the checks, and the manifest it starts
/// from.
#[derive(Clone, Debug)]
pub struct Partial {
    /// The rebuilt tables (those whose files changed).
    pub only: BTreeSet<String>,
    /// `only` and the tables their foreign keys point at: read and typed.
    pub needed: BTreeSet<String>,
    /// Every table of the project, in name order (their schemas are built, in this order, as in a full build).
    pub tables: Vec<String>,
    /// The source files of `needed`.
    pub files: Vec<SourceFile>,
    /// Per file of `files` (manifest key): the tables it provided in the recorded build; it must provide the
    /// same ones now.
    pub provides: BTreeMap<String, BTreeSet<String>>,
    /// The manifest of the clean build this one starts from.
    pub base: Manifest,
}

impl Plan {
    /// The plan of a build from the last clean build's manifest checked against the files on disk (`check`;
    /// `None`: no usable manifest): `partial` allows a one-table rebuild (not for `build --check`, which compares
    /// every file). Files whose status changed but whose content did not are recorded with their new status
    /// (so that the next no-op build only looks at statuses).
    pub fn make(check: Option<&ManifestCheck>, ctx: &Context, partial: bool) -> Plan {
        let Some(check) = check else {
            return Plan::Full;
        };
        if check.same_files && check.changed.is_empty() {
            let up = UpToDate {
                tables: check.manifest.tables as usize,
                files: check.manifest.outputs.len(),
            };
            if !check.refreshed_inputs.is_empty() || !check.refreshed_outputs.is_empty() {
                let mut m = check.manifest.clone();
                m.inputs.extend(check.refreshed_inputs.iter().cloned());
                m.outputs.extend(check.refreshed_outputs.iter().cloned());
                ctx.cache.set_manifest(Some(&m));
            }
            return Plan::UpToDate(up);
        }
        if !partial {
            return Plan::Full;
        }
        match one_table(ctx, check) {
            Some(p) => Plan::Tables(Box::new(p)),
            None => Plan::Full,
        }
    }

    /// The one-table rebuild, if this is one.
    pub fn partial(&self) -> Option<&Partial> {
        match self {
            Plan::Tables(p) => Some(p),
            _ => None,
        }
    }
}

/// The one-table rebuild of the files `check` found changed, if one can give the clean build's result.
fn one_table(ctx: &Context, check: &ManifestCheck) -> Option<Partial> {
    let m = &check.manifest;
    let changed = &check.changed;
    // Only table files changed (a hand-edited output, a new file, a schema edit: full build).
    if m.table_records.is_empty()
        || !check.same_files
        || changed.is_empty()
        || !changed.iter().all(|k| check.table_files.contains_key(k))
    {
        return None;
    }
    // A changed file that provided no table may provide one now: full build.
    if changed
        .iter()
        .any(|c| !m.table_records.iter().any(|r| r.sources.contains(c)))
    {
        return None;
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
    let mut needed = only.clone();
    for n in &only {
        needed.extend(
            records[n.as_str()]
                .references
                .iter()
                .filter(|t| records.contains_key(t.as_str()))
                .cloned(),
        );
    }
    let keys: BTreeSet<&String> = needed
        .iter()
        .flat_map(|n| records[n.as_str()].sources.iter())
        .collect();
    let mut files = vec![];
    let mut provides = BTreeMap::new();
    for k in keys {
        files.push(check.table_files.get(k)?.clone());
        provides.insert(
            k.clone(),
            m.table_records
                .iter()
                .filter(|r| r.sources.contains(k))
                .map(|r| r.name.clone())
                .collect(),
        );
    }
    // In the order a full build reads them (`read::discover`: by path, component by component), so that a
    // table of several files concatenates its sources in the same order (`Item.csv` beside an `Item/`
    // folder: a string order would put `Item/…` after `Item.csv`, the component order before it).
    files.sort();
    // Unchanged table files keep their entries (re-hashed ones with their new status): the manifest of this
    // build records every table file, as a full build does.
    let refreshed: BTreeMap<&str, &super::cache::Entry> = check
        .refreshed_inputs
        .iter()
        .map(|(k, e)| (k.as_str(), e))
        .collect();
    for k in check.table_files.keys().filter(|k| !changed.contains(*k)) {
        let e = refreshed
            .get(k.as_str())
            .copied()
            .or_else(|| m.inputs.get(k))?;
        ctx.record_input(&ctx.input_path(k), e.clone());
    }
    Some(Partial {
        only,
        needed,
        tables: records.keys().map(|n| n.to_string()).collect(),
        files,
        provides,
        base: m.clone(),
    })
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

/// The tables whose rows the checks of `ts` read besides its own: the targets of its foreign keys and of
/// every record field's foreign keys (records may sit in any table), for [`TableRecord::references`].
pub fn references(project: &Project, ts: &TableSchema) -> Vec<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    let fields = project
        .records
        .values()
        .flat_map(|r| r.fields.iter())
        .chain(
            project
                .unions
                .values()
                .flat_map(|u| u.variants.iter().flat_map(|v| v.fields.iter())),
        )
        .chain(ts.fields.iter());
    for f in fields {
        for (t, _) in f.foreign_keys.iter().chain(&f.key_foreign_keys) {
            if *t != ts.name {
                out.insert(t.clone());
            }
        }
    }
    out.into_iter().collect()
}
