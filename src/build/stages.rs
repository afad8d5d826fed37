//! The stage list of every build: read → schema → typing → validate, run once per build by [`validate`] as
//! its [`Plan`] says (every table, or a one-table rebuild's), with the raw rows of a table dropped as soon as
//! it is typed. Emitting and writing follow in [`super::outputs`] and [`super::write`].

use super::cache::{self, Entry, Stat, TableRecord};
use super::context::Context;
use super::plan::{self, Partial, Plan};
use crate::config::Loaded;
use crate::diag::render::Sources;
use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::ir::{Project, Table};
use crate::naming;
use crate::read::{self, RawTable, SourceFile};
use crate::schema::{self, SchemaSet, TableSchema};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::SystemTime;

/// A validated project and what generation needs besides it.
pub struct Validated {
    pub project: Project,
    pub schemas: Vec<TableSchema>,
    pub schema_set: SchemaSet,
    /// Warnings found on the way (errors make the build fail).
    pub warnings: Vec<Diagnostic>,
    /// Per table, what the manifest records for one-table rebuilds (empty when not recorded, and in a one-table
    /// rebuild, whose manifest keeps the records of the build it started from).
    pub table_records: Vec<TableRecord>,
    /// Set when this is a one-table rebuild ([`super::plan`]): only its tables were read, typed and
    /// validated; the other tables of `project` have their schema but no rows.
    pub partial: Option<Partial>,
}

/// What [`validate`] gives: the validated project or every diagnostic (sorted), and the names of the tables
/// that were typed (whose rows diagnostics can point at).
pub(crate) type Checked = (Result<Validated, Diagnostics>, Vec<String>);

/// Read, type and validate the tables `plan` names (see the module docs). `None`: a one-table rebuild found
/// that it cannot give the clean build's result (a file provides other tables now, a schema no longer builds,
/// keys that other tables reference changed); the caller runs [`Plan::Full`], which never gives up.
pub(crate) fn validate(loaded: &Loaded, ctx: &Context, plan: &Plan) -> Option<Checked> {
    let partial = plan.partial();
    let mut diags: Vec<Diagnostic> = vec![];
    let mut typed_names: Vec<String> = vec![];
    let fail = |diags: Vec<Diagnostic>, typed: Vec<String>| {
        let mut d = Diagnostics { items: diags };
        d.sort();
        Some((Err(d), typed))
    };
    // 1. Schema files (a one-table rebuild starts only when none changed).
    let set = match schema::load_dir(&loaded.schema_dir(), &loaded.schema_rel()) {
        Ok(mut s) => {
            s.formats = loaded.config.validation.formats;
            s
        }
        Err(_) if partial.is_some() => return None,
        Err(d) => return fail(d, typed_names),
    };
    // 2. Read every source file of the plan in parallel; group sources by table name in file order.
    let files: Vec<SourceFile> = match partial {
        Some(p) => p.files.clone(),
        None => match read::discover(loaded) {
            Ok(f) => f,
            Err(d) => return fail(vec![d], typed_names),
        },
    };
    ctx.stage("reading", files.len());
    let read: Vec<(Vec<RawTable>, Vec<Diagnostic>)> = files
        .par_iter()
        .map(|f| {
            let mut d = vec![];
            let tables = read_one(loaded, ctx, f, &mut d);
            ctx.tick();
            (tables, d)
        })
        .collect();
    let keys: BTreeMap<&str, String> = files
        .iter()
        .map(|f| (f.rel.as_str(), ctx.input_key(&f.path)))
        .collect();
    let mut by_table: BTreeMap<String, Vec<RawTable>> = BTreeMap::new();
    let mut read_failed = false;
    // Some file (or sheet) could not be read at all: which tables it holds is unknown.
    let mut tables_unknown = false;
    for (f, (tables, d)) in files.iter().zip(read) {
        // A one-table rebuild: each file provides exactly the tables it provided before.
        if let Some(p) = partial {
            let now: BTreeSet<&str> = tables.iter().map(|t| t.name.as_str()).collect();
            let before = p.provides.get(&keys[f.rel.as_str()])?;
            if now != before.iter().map(String::as_str).collect() {
                return None;
            }
        }
        // A file none of whose tables could be read (unreadable, over a limit), or a sheet of it: references
        // into tables it might hold stay unchecked, and an override may name one of them.
        let lost = d.iter().any(|x| x.code == Code::UnreadableFile)
            || (tables.is_empty() && has_errors(&d));
        tables_unknown |= lost;
        read_failed |= lost || d.iter().any(|x| x.code == Code::MalformedCsv);
        diags.extend(d);
        for t in tables {
            by_table.entry(t.name.clone()).or_default().push(t);
        }
    }
    // Sources of one table in the order of its `files` globs, then path order (the files come in path
    // order), then the order of its `sheets` globs, then sheet order (a stable sort).
    if let Ok(sources) = read::Sources::new(loaded) {
        let place: BTreeMap<&str, (usize, &str)> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.rel.as_str(), (i, f.rel_in_folder.as_str())))
            .collect();
        for (name, raws) in by_table.iter_mut().filter(|(_, r)| r.len() > 1) {
            raws.sort_by_cached_key(|t| {
                let (i, rel) = place.get(&*t.file).copied().unwrap_or((0, ""));
                let (by_file, by_sheet) = sources.rank(name, rel, t.sheet.as_deref());
                (by_file, i, by_sheet)
            });
        }
    }
    ctx.keep(|k| k.raw = by_table.values().flatten().cloned().collect());
    // One table from several files happens only on purpose: a `files`/`sheets` selection (`Sheet1` in many
    // workbooks, or `Unit.csv` in two folders, is not one table).
    for (name, raws) in &by_table {
        if loaded
            .config
            .tables
            .get(name)
            .is_some_and(|o| o.selects_sources())
        {
            continue;
        }
        let mut files: Vec<&RawTable> = vec![];
        for r in raws {
            if !files.iter().any(|f| f.file == r.file) {
                files.push(r);
            }
        }
        if let [a, b, rest @ ..] = files.as_slice() {
            let at = |r: &RawTable| match &r.sheet {
                Some(s) => format!("{} [{s}]", r.file),
                None => r.file.to_string(),
            };
            let mut d = Diagnostic::file_error(
                Code::SameSheetName,
                &*b.file,
                format!(
                    "table {name} is in {} files: {} and {}{}; gentable does not merge them without being told",
                    2 + rest.len(),
                    at(a),
                    at(b),
                    if rest.is_empty() {
                        String::new()
                    } else {
                        format!(" (and {} more)", rest.len())
                    }
                ),
            )
            .with_help(format!(
                "rename one (a sheet is the table of its name), or make them one table on purpose: [tables.{name}] files = [...] or sheets = [...]"
            ));
            d.sheet = b.sheet.as_deref().map(str::to_string);
            diags.push(d);
        }
    }
    // Table names become file names: refuse those that cannot be one, and names that collide on a
    // case-insensitive file system.
    let before: BTreeSet<String> = by_table.keys().cloned().collect();
    diags.extend(check_table_names(&mut by_table));
    let refused: BTreeSet<String> = before
        .into_iter()
        .filter(|n| !by_table.contains_key(n))
        .collect();
    // The input files of each table, for the records of later one-table rebuilds.
    let mut sources_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, raws) in &by_table {
        let mut s: Vec<String> = raws
            .iter()
            .filter_map(|r| keys.get(&*r.file).cloned())
            .collect();
        s.dedup();
        sources_of.insert(name.clone(), s);
    }
    // 3. The tables of the project and their schemas (in name order: shared definitions are registered in
    //    `project` as they are met).
    let names: Vec<String> = match partial {
        Some(p) => p.tables.clone(),
        None => by_table.keys().cloned().collect(),
    };
    for name in loaded.config.tables.keys() {
        // While a file could not be read, the table an override names may be in it: its error says so.
        if !names.contains(name) && !refused.contains(name) && !tables_unknown {
            let mut d = Diagnostic::file_error(
                Code::UnusedOverride,
                "gentable.toml",
                format!("[tables.{name}] names a table that no file provides"),
            )
            .warning();
            d.row = loaded.config.override_lines.get(name).copied().unwrap_or(0);
            diags.push(d);
        }
    }
    let mut project = Project {
        name: loaded.config.project.name.clone(),
        ..Default::default()
    };
    let (schemas, d) = table_schemas(loaded, &set, &mut project, &names);
    if partial.is_some()
        && (!d.is_empty()
            || schemas.len() != names.len()
            || !plan::eligible(loaded, &project, &set, &schemas))
    {
        return None;
    }
    diags.extend(d);
    // 4. Type every table that has sources (a one-table rebuild: the needed ones), in parallel.
    let sources: Vec<(usize, Vec<RawTable>)> = schemas
        .iter()
        .enumerate()
        .filter_map(|(i, ts)| Some((i, by_table.remove(&ts.name)?)))
        .collect();
    ctx.stage("typing", sources.len());
    typed_names = match partial {
        Some(p) => p.only.iter().cloned().collect(),
        None => schemas.iter().map(|ts| ts.name.clone()).collect(),
    };
    let (tables, d, mut incomplete) = type_tables(loaded, ctx, &project, &schemas, sources);
    project.tables = tables;
    diags.extend(d);
    ctx.keep(|k| {
        k.project = Some(project.clone());
        k.schemas = schemas.clone();
    });
    // What typing could not establish (docs/diagnostics.md "What is checked"): validation still runs on
    // everything else, so one run reports typing errors together with keys and references.
    incomplete.extend(
        names
            .iter()
            .filter(|n| !schemas.iter().any(|ts| &ts.name == *n))
            .cloned(),
    );
    let gaps = crate::validate::Gaps {
        tables: incomplete,
        unread_files: read_failed,
        failed_cells: has_errors(&diags),
    };
    // Type names must not collide with table names in generated code.
    for n in project.enums.keys().chain(project.records.keys()) {
        if names.contains(n) {
            diags.push(Diagnostic::file_error(
                Code::TypeNameClash,
                set.dir_rel.clone(),
                format!("the type name {n} is used by a table and by an enum/record definition"),
            ));
        }
    }
    // 5. Validate: the checked tables' rows, keys and references (into every typed table), texts, rules.
    ctx.stage("validating", 0);
    let records = ctx.cache.enabled() && plan::eligible(loaded, &project, &set, &schemas);
    let digests = crate::validate::run(
        &mut project,
        &set,
        &schemas,
        partial.map(|p| &p.only),
        loaded.config.localization.as_ref(),
        records || partial.is_some(),
        &gaps,
        &mut diags,
    )
    .unwrap_or_default();
    ctx.keep(|k| k.project = Some(project.clone()));
    // References into the rebuilt tables from the others hold only if what they can see is unchanged.
    if let Some(p) = partial {
        let recorded: BTreeMap<&str, &[u8; 32]> = p
            .base
            .table_records
            .iter()
            .map(|r| (r.name.as_str(), &r.keys))
            .collect();
        if p.only
            .iter()
            .any(|n| digests.get(n).map(|d| d as &[u8; 32]) != recorded.get(n.as_str()).copied())
        {
            return None;
        }
    }
    if has_errors(&diags) {
        return fail(diags, typed_names);
    }
    // The whole project: the typed tables, and every other table (a one-table rebuild's unchanged ones) as
    // its schema without rows.
    let mut typed: BTreeMap<String, Table> = std::mem::take(&mut project.tables)
        .into_iter()
        .map(|t| (t.name.clone(), t))
        .collect();
    project.tables = schemas
        .iter()
        .map(|ts| {
            typed
                .remove(&ts.name)
                .unwrap_or_else(|| table_of(ts, vec![]))
        })
        .collect();
    // 6. What a later one-table rebuild needs (a one-table rebuild keeps its base's records).
    ctx.stage("recording", 0);
    let table_records = if records && partial.is_none() {
        schemas
            .iter()
            .map(|ts| TableRecord {
                name: ts.name.clone(),
                sources: sources_of.remove(&ts.name).unwrap_or_default(),
                keys: digests.get(&ts.name).copied().unwrap_or_default(),
                // Known once the data is rendered: set when the build is recorded (`write::commit`).
                data: [0; 32],
                references: plan::references(&project, ts),
            })
            .collect()
    } else {
        vec![]
    };
    let mut d = Diagnostics { items: diags };
    d.sort();
    Some((
        Ok(Validated {
            project,
            schemas,
            schema_set: set,
            warnings: d.items,
            table_records,
            partial: partial.cloned(),
        }),
        typed_names,
    ))
}

/// GT0217 for every table of `by_table` whose name cannot name its files ([`naming::table_name_problem`])
/// or collides with another's on a case- or normalisation-insensitive file system; such tables are
/// removed (nothing more is read or reported for them), each diagnostic points at the table's first source.
fn check_table_names(by_table: &mut BTreeMap<String, Vec<RawTable>>) -> Vec<Diagnostic> {
    let mut diags = vec![];
    let at = |raws: &[RawTable], message: String| {
        let first = raws.first();
        let mut d = Diagnostic::file_error(
            Code::BadTableName,
            first.map(|r| r.file.to_string()).unwrap_or_default(),
            message,
        )
        .with_help(
            "rename the sheet or the file (or the [tables.<Name>] section that selects it) to a plain name",
        );
        d.sheet = first.and_then(|r| r.sheet.as_deref().map(str::to_string));
        d
    };
    let mut keys: BTreeMap<String, String> = BTreeMap::new();
    let names: Vec<String> = by_table.keys().cloned().collect();
    for name in names {
        let why = naming::table_name_problem(&name).or_else(|| {
            let key = naming::collision_key(&name);
            match keys.get(&key) {
                Some(other) => Some(format!(
                    "it differs from the table {other:?} only in case or Unicode normalisation: data/{other}.json \
                     and data/{name}.json are one file on Windows and macOS"
                )),
                None => {
                    keys.insert(key, name.clone());
                    None
                }
            }
        });
        if let Some(why) = why {
            let raws = by_table.remove(&name).unwrap_or_default();
            diags.push(at(
                &raws,
                format!("the table name {name:?} cannot name its files: {why}"),
            ));
        }
    }
    diags
}

fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}

/// Read one source file through the cache: its bytes are hashed (and recorded as an input of the build); a
/// workbook whose raw tables are cached under the hash is not parsed again.
pub(crate) fn read_one(
    loaded: &Loaded,
    ctx: &Context,
    f: &SourceFile,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    // A file over `[limits] file_bytes` is never read into memory.
    if let Some(d) = read::too_large(loaded, f) {
        diags.push(d);
        return vec![];
    }
    let stat = Stat::of(&f.path);
    let Ok(bytes) = std::fs::read(&f.path) else {
        // The reader reports why.
        return read::read_file(loaded, f, None, diags);
    };
    if !ctx.cache.enabled() {
        return read::read_file(loaded, f, Some(&bytes), diags);
    }
    let hash = blake3::hash(&bytes);
    ctx.record_input(
        &f.path,
        Entry {
            stat: stat.filter(|s| s.len == bytes.len() as u64 && s.settled(SystemTime::now())),
            hash: *hash.as_bytes(),
        },
    );
    // CSV is parsed about as fast as a cache entry is decoded: only workbooks are cached.
    let workbook = f
        .path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| read::WORKBOOK_EXT.contains(&e.to_ascii_lowercase().as_str()));
    if !workbook {
        return read::read_file(loaded, f, Some(&bytes), diags);
    }
    let key = cache::read_key(loaded, &f.rel, &f.rel_in_folder, &hash);
    if let Some(tables) = ctx.cache.get_read(&key) {
        return tables;
    }
    let mut d = vec![];
    let tables = read::read_file(loaded, f, Some(&bytes), &mut d);
    if d.is_empty() {
        ctx.cache.put_read(&key, &tables);
    }
    diags.extend(d);
    tables
}

/// The table schemas of `names` (in this order, which must be name order, as in a full build: shared
/// definitions are registered in `project` as they are met), and the diagnostics of those that fail.
pub(crate) fn table_schemas(
    loaded: &Loaded,
    set: &SchemaSet,
    project: &mut Project,
    names: &[String],
) -> (Vec<TableSchema>, Vec<Diagnostic>) {
    let mut schemas = vec![];
    let mut diags = vec![];
    let mut checked = crate::typing::defaults::Checked::default();
    for name in names {
        let ov = loaded.config.tables.get(name);
        let schema_name = ov
            .and_then(|o| o.schema.clone())
            .unwrap_or_else(|| name.clone());
        let file = format!("{schema_name}.schema.json");
        match schema::build_table(set, project, name, &file) {
            Ok(mut ts) => {
                ts.source_order = ov.and_then(|o| o.order.as_deref()) == Some("source");
                // A record field's bad default is one error at the schema, and the table is not typed (no
                // error per cell); a row field's is reported once by typing (`defaults::report`).
                let bad = crate::typing::defaults::check(project, set, &mut ts, &mut checked);
                if bad.is_empty() {
                    schemas.push(ts);
                } else {
                    diags.extend(bad);
                }
            }
            Err(d) => diags.extend(d),
        }
    }
    (schemas, diags)
}

/// A table of `ts` holding `rows`.
pub(crate) fn table_of(ts: &TableSchema, rows: Vec<crate::ir::Row>) -> Table {
    Table {
        name: ts.name.clone(),
        doc: ts.doc.clone(),
        mode: ts.mode,
        fields: ts.fields.clone(),
        primary_key: ts.primary_key.clone(),
        unique_keys: ts.unique_keys.clone(),
        rows,
        schema_file: ts.schema_file.clone(),
        groups: ts.groups.clone(),
        source_order: ts.source_order,
    }
}

/// Type the raw sources of `schemas[i]` for every `(i, sources)`, in parallel (biggest first); the tables
/// come back in `i` order with their diagnostics and the names of the tables not all of whose sources could
/// be typed.
pub(crate) fn type_tables(
    loaded: &Loaded,
    ctx: &Context,
    project: &Project,
    schemas: &[TableSchema],
    sources: Vec<(usize, Vec<RawTable>)>,
) -> (Vec<Table>, Vec<Diagnostic>, BTreeSet<String>) {
    // Big tables first, so that the last table to finish is a small one.
    let mut order = sources;
    order.sort_by_key(|(_, s)| std::cmp::Reverse(s.iter().map(|t| t.rows.len()).sum::<usize>()));
    let mut typed: Vec<(usize, Table, Vec<Diagnostic>, bool)> = order
        .into_par_iter()
        .with_max_len(1)
        .map(|(i, sources)| {
            let ts = &schemas[i];
            let mut d = vec![];
            let typed = crate::typing::type_table(
                project,
                ts,
                sources,
                loaded.config.tables.get(&ts.name),
                &loaded.config.limits,
                &mut d,
            );
            ctx.tick();
            (i, table_of(ts, typed.rows), d, typed.complete)
        })
        .collect();
    typed.sort_by_key(|(i, _, _, _)| *i);
    let mut diags = vec![];
    let mut incomplete = BTreeSet::new();
    let tables = typed
        .into_iter()
        .map(|(_, t, d, complete)| {
            diags.extend(d);
            if !complete {
                incomplete.insert(t.name.clone());
            }
            t
        })
        .collect();
    (tables, diags, incomplete)
}

/// The source rows that the diagnostics point at, as the designer sees them (for the human report): the
/// files they name are read again (from the read cache where possible), keeping the rows of `typed` tables.
pub(crate) fn report_sources(
    loaded: &Loaded,
    ctx: &Context,
    diags: &[Diagnostic],
    typed: &[String],
) -> Sources {
    if !diags.iter().any(|d| d.row > 0) {
        return Sources::default();
    }
    let wanted: HashSet<&str> = diags
        .iter()
        .filter(|d| d.row > 0)
        .map(|d| d.file.as_str())
        .collect();
    let typed: HashSet<&str> = typed.iter().map(String::as_str).collect();
    let files = read::discover(loaded).unwrap_or_default();
    let raw: Vec<RawTable> = files
        .par_iter()
        .filter(|f| wanted.contains(f.rel.as_str()))
        .flat_map_iter(|f| read_one(loaded, ctx, f, &mut vec![]))
        .filter(|t| typed.contains(t.name.as_str()))
        .collect();
    sources_of_rows(&raw, diags)
}

/// The rows of `tables` that some diagnostic of `diags` points at, as the designer sees them (for the human
/// report's source lines); linear in both.
pub(crate) fn sources_of_rows(
    tables: &[RawTable],
    diags: &[Diagnostic],
) -> crate::diag::render::Sources {
    let wanted: HashSet<(&str, Option<&str>, usize)> = diags
        .iter()
        .filter(|d| d.row > 0)
        .map(|d| (d.file.as_str(), d.sheet.as_deref(), d.row))
        .collect();
    let mut sources = crate::diag::render::Sources::default();
    for t in tables {
        for r in &t.rows {
            if wanted.contains(&(&*t.file, t.sheet.as_deref(), r.row)) {
                sources.insert(
                    &t.file,
                    t.sheet.as_deref(),
                    r.row,
                    r.cells.iter().map(|c| c.text()).collect(),
                );
            }
        }
    }
    sources
}
