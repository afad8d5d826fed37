//! The pipeline: read → schema → type → validate → emit → write, as one call per stage.
//!
//! [`load`] runs everything up to validation and returns the typed [`Project`] or all diagnostics;
//! [`generate`] renders every output file in memory; [`write`] replaces `generated/` only after everything
//! rendered, writing changed files through temporary siblings and renames (unchanged files are not touched)
//! and removing files that gentable owns but no longer produces. A failed build never reaches [`write`], so
//! `generated/` is unchanged when any error is found.
//!
//! Performance (docs/performance.md): files are read, hashed and typed in parallel (rayon), a big table is
//! typed and validated in row chunks, the emitters run concurrently, and [`Context`] carries the incremental
//! cache ([`crate::build::cache`]: raw reads per source file, and the manifest that turns a build whose inputs and
//! outputs are unchanged into a no-op, [`up_to_date`]) and the progress bar. `GENTABLE_TIMINGS=1` prints the
//! time of each stage to stderr.

pub mod cache;
pub mod incremental;

use self::cache::{Cache, Entry, Manifest, Stat, TableRecord};
use crate::config::Loaded;
use crate::diag::Code;
use crate::diag::{Diagnostic, Diagnostics};
use crate::emit::{self, EmitContext, Files};
use crate::ir::canonical;
use crate::ir::{Project, Table};
use crate::read::{self, RawTable};
use crate::schema::{self, SchemaSet, TableSchema};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Instant, SystemTime};

/// What a build run carries besides the project: the cache, the progress bar, stage timings, and the input
/// files seen (for the manifest).
pub struct Context {
    pub cache: Cache,
    progress: Option<indicatif::ProgressBar>,
    timings: bool,
    started: Instant,
    /// The project file (an input of the manifest), if known.
    config_path: Option<PathBuf>,
    /// The project root: manifest keys are input paths relative to it ([`Context::input_key`]).
    root: PathBuf,
    /// Input files seen by this build: path → entry.
    inputs: Mutex<BTreeMap<String, Entry>>,
    /// Whether a one-table rebuild ([`crate::build::incremental`]) may be tried (with the cache on).
    pub incremental: bool,
    /// [`Context::manifest_check`], once computed.
    manifest_check: std::sync::OnceLock<Option<ManifestCheck>>,
}

impl Context {
    /// No cache, no progress (library use and tests).
    pub fn plain() -> Context {
        Context {
            cache: Cache::disabled(),
            progress: None,
            timings: std::env::var_os("GENTABLE_TIMINGS").is_some(),
            started: Instant::now(),
            config_path: None,
            root: PathBuf::new(),
            inputs: Mutex::new(BTreeMap::new()),
            incremental: false,
            manifest_check: std::sync::OnceLock::new(),
        }
    }
    /// The context of a command-line build of the project read from `config_path`: the cache unless
    /// `no_cache`, and a progress bar if `progress` (the caller decides: a terminal, not CI, not `--quiet`).
    pub fn new(loaded: &Loaded, config_path: &Path, no_cache: bool, progress: bool) -> Context {
        let bar = progress.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr_with_hz(10),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} {msg:12} [{bar:30}] {pos}/{len} ({elapsed})",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        Context {
            cache: Cache::new(loaded, !no_cache),
            progress: bar,
            config_path: Some(config_path.to_path_buf()),
            root: loaded.root.clone(),
            ..Context::plain()
        }
    }
    /// Whether a terminal progress bar should be shown: stderr is a terminal, `CI` is unset, not quiet.
    pub fn wants_progress(quiet: bool) -> bool {
        use std::io::IsTerminal;
        !quiet && std::env::var_os("CI").is_none() && std::io::stderr().is_terminal()
    }
    /// Start a stage of `len` steps (0: a spinner).
    pub(crate) fn stage(&self, name: &str, len: usize) {
        if self.timings {
            eprintln!(
                "gentable: [{:>8.1} ms] {name}{}",
                self.started.elapsed().as_secs_f64() * 1e3,
                memory()
            );
        }
        if let Some(b) = &self.progress {
            b.set_message(name.to_string());
            b.set_length(len as u64);
            b.set_position(0);
        }
    }
    /// Run `f` (which prints) with the progress bar hidden.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.progress {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }
    pub(crate) fn tick(&self) {
        if let Some(b) = &self.progress {
            b.inc(1);
        }
    }
    /// Clear the progress bar (before the summary line).
    pub fn finish(&self) {
        if let Some(b) = &self.progress {
            b.finish_and_clear();
        }
        if self.timings {
            eprintln!(
                "gentable: [{:>8.1} ms] done{}",
                self.started.elapsed().as_secs_f64() * 1e3,
                memory()
            );
        }
    }
    /// The files on disk against the last clean build's manifest (`None`: cache off, no manifest, other
    /// settings); checked once per build.
    pub(crate) fn manifest_check(&self, loaded: &Loaded) -> Option<&ManifestCheck> {
        self.manifest_check
            .get_or_init(|| check_manifest(loaded, self))
            .as_ref()
    }
    /// The manifest key of an input file: its path relative to the project root, `/`-separated, so that the
    /// same project reached through another spelling of its path (`-c gentable.toml`, an absolute path) is
    /// still recognised.
    pub(crate) fn input_key(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }
    /// The file of a manifest key ([`Context::input_key`]).
    pub(crate) fn input_path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }
    pub(crate) fn record_input(&self, path: &Path, entry: Entry) {
        if let Ok(mut m) = self.inputs.lock() {
            m.insert(self.input_key(path), entry);
        }
    }
}

/// For `GENTABLE_TIMINGS`: the process's resident and peak resident memory (`VmRSS`, `VmHWM` of
/// `/proc/self/status`, Linux), or nothing where that is not available.
fn memory() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(hwm)) => format!(" (rss {} MB, peak {} MB)", rss / 1024, hwm / 1024),
        _ => String::new(),
    }
}

/// A validated project and what generation needs besides it.
pub struct Validated {
    pub project: Project,
    pub schemas: Vec<TableSchema>,
    pub schema_set: SchemaSet,
    /// Warnings found on the way (errors make [`load`] fail).
    pub warnings: Vec<Diagnostic>,
    /// Per table, what the manifest records for one-table rebuilds (empty when not recorded, and in a one-table
    /// rebuild, whose manifest keeps the records of the build it started from).
    pub table_records: Vec<TableRecord>,
    /// Set when this is a one-table rebuild ([`crate::build::incremental`]): only these tables were read, typed and
    /// validated; the other tables of `project` have their schema but no rows.
    pub partial: Option<crate::build::incremental::Partial>,
}

/// Read, type and validate every table. `Err` holds every diagnostic (errors and warnings), sorted.
pub fn load(loaded: &Loaded) -> Result<Validated, Diagnostics> {
    load_impl(loaded, &Context::plain(), &mut vec![])
}

/// [`load`], plus the source rows that the diagnostics point at (for human output, [`crate::diag::render`]).
pub fn load_with_sources(
    loaded: &Loaded,
) -> (Result<Validated, Diagnostics>, crate::diag::render::Sources) {
    load_with_sources_in(loaded, &Context::plain())
}

/// [`load_with_sources`] with a [`Context`] (cache, progress). Raw rows are dropped as soon as their table is
/// typed; when diagnostics point at rows, the files they name are read again (from the cache) for the report.
pub fn load_with_sources_in(
    loaded: &Loaded,
    ctx: &Context,
) -> (Result<Validated, Diagnostics>, crate::diag::render::Sources) {
    let rebuilt = (ctx.incremental && ctx.cache.enabled())
        .then(|| crate::build::incremental::load(loaded, ctx))
        .flatten();
    let mut typed_names = vec![];
    let result = match rebuilt {
        Some((result, rebuilt)) => {
            typed_names = rebuilt;
            result
        }
        None => load_impl(loaded, ctx, &mut typed_names),
    };
    let diags = match &result {
        Ok(v) => &v.warnings,
        Err(d) => &d.items,
    };
    let sources = if diags.iter().any(|d| d.row > 0) {
        let wanted: HashSet<&str> = diags
            .iter()
            .filter(|d| d.row > 0)
            .map(|d| d.file.as_str())
            .collect();
        let typed: HashSet<&str> = typed_names.iter().map(String::as_str).collect();
        let files = read::discover(loaded).unwrap_or_default();
        let raw: Vec<RawTable> = files
            .par_iter()
            .filter(|f| wanted.contains(f.rel.as_str()))
            .flat_map_iter(|f| read_one(loaded, ctx, f, &mut vec![]))
            .filter(|t| typed.contains(t.name.as_str()))
            .collect();
        sources_of_rows(&raw, diags)
    } else {
        crate::diag::render::Sources::default()
    };
    (result, sources)
}

/// Read one source file through the cache: its bytes are hashed (and recorded as an input of the build); a
/// workbook whose raw tables are cached under the hash is not parsed again.
pub(crate) fn read_one(
    loaded: &Loaded,
    ctx: &Context,
    f: &read::SourceFile,
    diags: &mut Vec<Diagnostic>,
) -> Vec<RawTable> {
    let stat = Stat::of(&f.path);
    let Ok(bytes) = std::fs::read(&f.path) else {
        // The reader reports why.
        return read::read_file(loaded, f, diags);
    };
    if !ctx.cache.enabled() {
        return read::read_file_with(loaded, f, Some(&bytes), diags);
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
        return read::read_file_with(loaded, f, Some(&bytes), diags);
    }
    let key = cache::read_key(loaded, &f.rel, &f.rel_in_folder, &hash);
    if let Some(tables) = ctx.cache.get_read(&key) {
        return tables;
    }
    let mut d = vec![];
    let tables = read::read_file_with(loaded, f, Some(&bytes), &mut d);
    if d.is_empty() {
        ctx.cache.put_read(&key, &tables);
    }
    diags.extend(d);
    tables
}

/// [`load`]; the names of the tables that reached typing are put in `typed_names` (for the report's sources).
fn load_impl(
    loaded: &Loaded,
    ctx: &Context,
    typed_names: &mut Vec<String>,
) -> Result<Validated, Diagnostics> {
    let mut diags: Vec<Diagnostic> = vec![];
    let fail = |diags: Vec<Diagnostic>| {
        let mut d = Diagnostics { items: diags };
        d.sort();
        Err(d)
    };
    let schema_rel = loaded.schema_rel();
    let set = match schema::load_dir(&loaded.schema_dir(), &schema_rel) {
        Ok(s) => s,
        Err(d) => return fail(d),
    };
    let files = match read::discover(loaded) {
        Ok(f) => f,
        Err(d) => return fail(vec![d]),
    };
    // Read every file in parallel (rayon); group sources by table name in file order.
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
    let mut by_table: BTreeMap<String, Vec<RawTable>> = BTreeMap::new();
    for (tables, d) in read {
        diags.extend(d);
        for t in tables {
            by_table.entry(t.name.clone()).or_default().push(t);
        }
    }
    for name in loaded.config.tables.keys() {
        if !by_table.contains_key(name) {
            diags.push(
                Diagnostic::file_error(
                    Code::UnusedOverride,
                    "gentable.toml",
                    format!("[tables.{name}] names a table that no file provides"),
                )
                .warning(),
            );
        }
    }
    // Schemas first (they register shared enum/record types), then type every table in parallel.
    let mut project = Project {
        name: loaded.config.project.name.clone(),
        ..Default::default()
    };
    let mut sources_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let paths: BTreeMap<&str, String> = files
        .iter()
        .map(|f| (f.rel.as_str(), ctx.input_key(&f.path)))
        .collect();
    for (name, raws) in &by_table {
        let mut s: Vec<String> = raws
            .iter()
            .filter_map(|r| paths.get(r.file.as_str()).cloned())
            .collect();
        s.dedup();
        sources_of.insert(name.clone(), s);
    }
    let names: Vec<String> = by_table.keys().cloned().collect();
    let (schemas, d) = table_schemas(loaded, &set, &mut project, &names);
    diags.extend(d);
    let typed_sources: Vec<(usize, Vec<RawTable>)> = {
        let mut by_table = by_table;
        schemas
            .iter()
            .enumerate()
            .map(|(i, ts)| (i, by_table.remove(&ts.name).unwrap_or_default()))
            .collect()
    };
    ctx.stage("typing", schemas.len());
    typed_names.extend(schemas.iter().map(|ts| ts.name.clone()));
    let (tables, d) = type_tables(loaded, ctx, &project, &schemas, typed_sources);
    project.tables = tables;
    diags.extend(d);
    // Type names must not collide with table names in generated code.
    let table_names: Vec<String> = project.tables.iter().map(|t| t.name.clone()).collect();
    for n in project.enums.keys().chain(project.records.keys()) {
        if table_names.contains(n) {
            diags.push(Diagnostic::file_error(
                Code::TypeNameClash,
                set.dir_rel.clone(),
                format!("the type name {n} is used by a table and by an enum/record definition"),
            ));
        }
    }
    if diags
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error)
    {
        return fail(diags);
    }
    ctx.stage("validating", 0);
    json_schema_parallel(&mut project, &set, &schemas, &mut diags);
    ctx.stage("checking keys", 0);
    crate::validate::keys(&mut project, &mut diags);
    let key_index = crate::validate::KeyIndex::new(&project);
    crate::validate::foreign_keys_in(&project, &key_index, &set, None, &mut diags);
    crate::validate::unreferenced(&project, &set, &schemas, &mut diags);
    crate::validate::text::check(&project, loaded.config.localization.as_ref(), &mut diags);
    // Rules read other tables through keys: run them only on tables whose keys and references hold.
    if !diags
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error)
    {
        crate::validate::rules::check(&project, &set, &schemas, &mut diags);
    }
    if diags
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error)
    {
        return fail(diags);
    }
    // What a later one-table rebuild needs ([`crate::build::incremental`]), for projects it can serve.
    ctx.stage("recording", 0);
    let table_records = if ctx.cache.enabled()
        && crate::build::incremental::eligible(loaded, &project, &set, &schemas)
    {
        let digests = key_index.digests(&project);
        project
            .tables
            .iter()
            .map(|t| TableRecord {
                name: t.name.clone(),
                sources: sources_of.remove(&t.name).unwrap_or_default(),
                keys: digests.get(&t.name).copied().unwrap_or_default(),
            })
            .collect()
    } else {
        vec![]
    };
    Ok(Validated {
        project,
        schemas,
        schema_set: set,
        warnings: diags,
        table_records,
        partial: None,
    })
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
    for name in names {
        let ov = loaded.config.tables.get(name);
        let schema_name = ov
            .and_then(|o| o.schema.clone())
            .unwrap_or_else(|| name.clone());
        let file = format!("{schema_name}.schema.json");
        match schema::build_table(set, project, name, &file) {
            Ok(ts) => schemas.push(ts),
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
    }
}

/// Type the raw sources of `schemas[i]` for every `(i, sources)`, in parallel (biggest first); the tables
/// come back in `i` order with their diagnostics.
pub(crate) fn type_tables(
    loaded: &Loaded,
    ctx: &Context,
    project: &Project,
    schemas: &[TableSchema],
    sources: Vec<(usize, Vec<RawTable>)>,
) -> (Vec<Table>, Vec<Diagnostic>) {
    // Big tables first, so that the last table to finish is a small one.
    let mut order = sources;
    order.sort_by_key(|(_, s)| std::cmp::Reverse(s.iter().map(|t| t.rows.len()).sum::<usize>()));
    let mut typed: Vec<(usize, Table, Vec<Diagnostic>)> = order
        .into_par_iter()
        .with_max_len(1)
        .map(|(i, sources)| {
            let ts = &schemas[i];
            let mut d = vec![];
            let rows = crate::typing::type_table(
                project,
                ts,
                &sources,
                loaded.config.tables.get(&ts.name),
                &mut d,
            );
            // The raw rows are not needed any more: free them now, not at the end of the build.
            drop(sources);
            ctx.tick();
            (i, table_of(ts, rows), d)
        })
        .collect();
    typed.sort_by_key(|(i, _, _)| *i);
    let mut diags = vec![];
    let tables = typed
        .into_iter()
        .map(|(_, t, d)| {
            diags.extend(d);
            t
        })
        .collect();
    (tables, diags)
}

/// Canonical data files and the content hash: `(files under data/, hash)`.
pub fn canonical_data(l: &Validated) -> (Files, String) {
    canonical_data_of(&l.project, &l.schema_set, "data")
}

/// Canonical data of `project` under the folder `dir` (`data`, or `data/<output>` for an output with export
/// groups) and its content hash.
pub fn canonical_data_of(project: &Project, schema_set: &SchemaSet, dir: &str) -> (Files, String) {
    canonical_data_in(project, schema_set, dir, None)
}

/// [`canonical_data_of`]; in a one-table rebuild (`partial`), only the rebuilt tables' data is rendered, and
/// the content hash takes the other tables' data digests from the manifest (the BLAKE3 of their recorded
/// `data/<T>.json`, which is what [`canonical::content_hash_of_digests`] hashes).
fn canonical_data_in(
    project: &Project,
    schema_set: &SchemaSet,
    dir: &str,
    partial: Option<&crate::build::incremental::Partial>,
) -> (Files, String) {
    // (path, data if rendered, data digest, schema digest) per table.
    type Part = (String, Option<String>, [u8; 32], [u8; 32]);
    let parts: Vec<Part> = project
        .tables
        .par_iter()
        .with_max_len(1)
        .map(|t| {
            let schema = canonical::json_value(
                schema_set
                    .files
                    .get(&t.schema_file)
                    .unwrap_or(&serde_json::Value::Null),
            );
            let schema = *blake3::hash(schema.as_bytes()).as_bytes();
            let path = format!("{dir}/{}.json", t.name);
            let recorded = partial
                .filter(|p| !p.only.contains(&t.name))
                .and_then(|p| p.base.outputs.get(&path));
            match recorded {
                Some(e) => (path, None, e.hash, schema),
                None => {
                    let data = canonical::table_json(project, t);
                    let d = *blake3::hash(data.as_bytes()).as_bytes();
                    (path, Some(data), d, schema)
                }
            }
        })
        .collect();
    let mut digests: Vec<(String, [u8; 32], [u8; 32])> = project
        .tables
        .iter()
        .zip(&parts)
        .map(|(t, (_, _, d, s))| (t.name.clone(), *d, *s))
        .collect();
    shared_schema_digests(project, schema_set, &mut digests);
    let hash =
        canonical::content_hash_of_digests(digests.iter().map(|(n, d, s)| (n.as_str(), *d, *s)));
    let mut files: Files = parts
        .into_iter()
        .filter_map(|(path, data, _, _)| Some((path, data?)))
        .collect();
    files.insert(format!("{dir}/content-hash.txt"), format!("{hash}\n"));
    (files, hash)
}

/// The content-hash parts of the schema files no table of `project` uses (their definitions shape every
/// table): `$schema/<file>`, the digest of empty data, the digest of the canonical schema.
fn shared_schema_digests(
    project: &Project,
    schema_set: &SchemaSet,
    digests: &mut Vec<(String, [u8; 32], [u8; 32])>,
) {
    let used: HashSet<&str> = project
        .tables
        .iter()
        .map(|t| t.schema_file.as_str())
        .collect();
    for (name, doc) in &schema_set.files {
        if !used.contains(name.as_str()) {
            digests.push((
                format!("$schema/{name}"),
                *blake3::hash(b"").as_bytes(),
                *blake3::hash(canonical::json_value(doc).as_bytes()).as_bytes(),
            ));
        }
    }
}

/// Render every output file in memory. An output that selects export groups (`[rust|csharp|typescript]
/// groups`) is emitted from the project filtered to them, with its own data under `data/<output>/` and its
/// own content hash (see [`crate::emit::groups`]).
pub fn generate(loaded: &Loaded, l: &Validated) -> anyhow::Result<Files> {
    let c = &loaded.config;
    // A one-table rebuild renders the rebuilt tables' files and the shared ones ([`crate::build::incremental`]).
    let only = l.partial.as_ref().map(|p| &p.only);
    // `[localization] inline`: every output shows one language's texts instead of their keys.
    let inlined;
    let base: &Project = match c.localization.as_ref().filter(|x| x.inline.is_some()) {
        Some(loc) => {
            inlined = crate::emit::groups::inline_texts(&l.project, loc)?;
            &inlined
        }
        None => &l.project,
    };
    let timings = std::env::var_os("GENTABLE_TIMINGS").is_some();
    let started = Instant::now();
    let (mut files, hash) = canonical_data_in(base, &l.schema_set, "data", l.partial.as_ref());
    if timings {
        eprintln!(
            "gentable:   canonical data {:.1} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    crate::emit::groups::check_names(&l.project, &c.groups.names)?;
    type Emit = fn(&EmitContext) -> anyhow::Result<Files>;
    let outputs: [(&str, &Option<Vec<String>>, Emit); 3] = [
        ("rust", &c.rust.groups, emit::rust::emit),
        ("csharp", &c.csharp.groups, emit::csharp::emit),
        ("typescript", &c.typescript.groups, emit::typescript::emit),
    ];
    // The three emitters run concurrently; their files are merged in the fixed order above.
    let parts: Vec<anyhow::Result<Files>> = outputs
        .par_iter()
        .with_max_len(1)
        .map(|(name, groups, emit)| -> anyhow::Result<Files> {
            let started = Instant::now();
            let files = match groups {
                None => emit(&EmitContext {
                    project: base,
                    config: c,
                    content_hash: &hash,
                    project_hash: &hash,
                    root: &loaded.root,
                    only,
                })?,
                Some(groups) => {
                    let project = crate::emit::groups::filter(base, groups)?;
                    let (mut data, own) = canonical_data_in(
                        &project,
                        &l.schema_set,
                        &format!("data/{name}"),
                        l.partial.as_ref(),
                    );
                    data.extend(emit(&EmitContext {
                        project: &project,
                        config: c,
                        content_hash: &own,
                        project_hash: &hash,
                        root: &loaded.root,
                        only,
                    })?);
                    data
                }
            };
            if timings {
                eprintln!(
                    "gentable:   {name} {:.1} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
            }
            Ok(files)
        })
        .collect();
    for part in parts {
        files.extend(part?);
    }
    Ok(files)
}

/// [`generate`] with a [`Context`] (progress and timings).
pub fn generate_in(loaded: &Loaded, l: &Validated, ctx: &Context) -> anyhow::Result<Files> {
    ctx.stage("generating", 0);
    generate(loaded, l)
}

/// Validate every row against its JSON Schema ([`crate::validate::json_schema_rows`]) on all cores: the
/// tables are split into work units of whole small tables or row chunks of big ones, each validated on its
/// own (with its own schema registry), and the rows are put back in order. The diagnostics are those of one
/// sequential call: per-row findings do not depend on the split, and schema-level findings (row 0) are kept
/// once per table.
pub(crate) fn json_schema_parallel(
    project: &mut Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    diags: &mut Vec<Diagnostic>,
) {
    let total: usize = project.tables.iter().map(|t| t.rows.len()).sum();
    let threads = rayon::current_num_threads();
    if threads < 2 || total < 20_000 {
        crate::validate::json_schema_rows(project, set, schemas, diags);
        return;
    }
    let unit = (total / (threads * 4)).max(5_000);
    // Work units: (table index, rows); whole tables are grouped up to `unit` rows.
    let mut units: Vec<Vec<(usize, Vec<crate::ir::Row>)>> = vec![vec![]];
    let mut filled = 0;
    for (ti, t) in project.tables.iter_mut().enumerate() {
        let mut rows = std::mem::take(&mut t.rows);
        while !rows.is_empty() {
            if filled >= unit {
                units.push(vec![]);
                filled = 0;
            }
            let n = rows.len().min(unit - filled);
            let rest = rows.split_off(n);
            filled += n;
            units.last_mut().expect("one unit").push((ti, rows));
            rows = rest;
        }
    }
    let meta: Vec<Table> = project.tables.clone();
    let shell = Project {
        name: project.name.clone(),
        tables: vec![],
        enums: project.enums.clone(),
        records: project.records.clone(),
        ..Default::default()
    };
    // Per unit: (table index, rows) pairs and its diagnostics.
    #[allow(clippy::type_complexity)]
    let results: Vec<(Vec<(usize, Vec<crate::ir::Row>)>, Vec<Diagnostic>)> = units
        .into_par_iter()
        .with_max_len(1)
        .map(|unit| {
            let mut sub = Project {
                tables: vec![],
                ..shell.clone()
            };
            let mut sub_schemas = vec![];
            let mut index = vec![];
            for (ti, rows) in unit {
                let mut t = meta[ti].clone();
                t.rows = rows;
                sub.tables.push(t);
                if let Some(ts) = schemas.iter().find(|s| s.name == meta[ti].name) {
                    sub_schemas.push(ts.clone());
                }
                index.push(ti);
            }
            let mut d = vec![];
            crate::validate::json_schema_rows(&sub, set, &sub_schemas, &mut d);
            let back = index
                .into_iter()
                .zip(sub.tables)
                .map(|(ti, t)| (ti, t.rows))
                .collect();
            (back, d)
        })
        .collect();
    let mut seen_file_level: HashSet<(String, String)> = HashSet::new();
    for (back, d) in results {
        for (ti, rows) in back {
            project.tables[ti].rows.extend(rows);
        }
        for x in d {
            // A schema-level finding is repeated by every unit that holds rows of its table(s).
            if x.row == 0 && !seen_file_level.insert((x.file.clone(), x.message.clone())) {
                continue;
            }
            diags.push(x);
        }
    }
}

/// Folders under `generated/` whose files gentable owns (stale ones are removed).
pub const OWNED: &[&str] = &["data", "rust/src", "csharp", "ts"];
const NOT_OWNED_DIRS: &[&str] = &["target", "node_modules", "bin", "obj", "dist"];

/// What [`write`] or [`stale`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub written: Vec<String>,
    pub removed: Vec<String>,
    pub unchanged: usize,
}

/// Files (relative, `/`) under the owned folders of `dir` that `files` does not produce.
pub(crate) fn extra_files(dir: &Path, files: &Files) -> Vec<String> {
    let mut out = vec![];
    for owned in OWNED {
        collect(&dir.join(owned), owned, &mut out);
    }
    out.retain(|f| !files.contains_key(f));
    out.sort();
    out
}

fn collect(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let r = format!("{rel}/{name}");
        match e.file_type() {
            Ok(t) if t.is_dir() => {
                if !NOT_OWNED_DIRS.contains(&name.as_str()) {
                    collect(&e.path(), &r, out)
                }
            }
            // Unity writes a `.meta` file beside every asset; they are the user's, never stale.
            Ok(_) if name.ends_with(".meta") => {}
            Ok(_) => out.push(r),
            Err(_) => {}
        }
    }
}

/// Compare `files` with `dir` without writing: files that would be written or removed.
pub fn stale(dir: &Path, files: &Files) -> Changes {
    stale_with(dir, files, None, true)
}

/// [`stale`]; with the outputs of a manifest, a file whose status and hash are the recorded ones is known to
/// be unchanged without reading it back.
fn stale_with(
    dir: &Path,
    files: &Files,
    known: Option<&BTreeMap<String, Entry>>,
    complete: bool,
) -> Changes {
    let changed: Vec<Option<String>> = files
        .par_iter()
        .map(|(rel, content)| {
            let path = dir.join(rel);
            if let Some(e) = known.and_then(|k| k.get(rel)) {
                if e.stat.is_some()
                    && e.stat == Stat::of(&path)
                    && e.hash == *blake3::hash(content.as_bytes()).as_bytes()
                {
                    return None;
                }
            }
            match std::fs::read(&path) {
                Ok(old) if old == content.as_bytes() => None,
                _ => Some(rel.clone()),
            }
        })
        .collect();
    let mut c = Changes::default();
    for x in changed {
        match x {
            Some(rel) => c.written.push(rel),
            None => c.unchanged += 1,
        }
    }
    if complete {
        c.removed = extra_files(dir, files);
    }
    c
}

/// Write `files` under `dir`: changed files go to `*.gentable-tmp` siblings first and are renamed into place
/// only when all were written; unchanged files are not rewritten; stale owned files are removed.
pub fn write(dir: &Path, files: &Files) -> std::io::Result<Changes> {
    write_with(dir, files, None, true)
}

/// [`write`] with a [`Context`]: unchanged files are recognised from the manifest, and after the write the
/// manifest of this build is recorded when `record` (a build without any diagnostic), so that the next
/// unchanged build is a no-op ([`up_to_date`]). Unused read-cache entries are removed.
pub fn write_in(
    loaded: &Loaded,
    l: &Validated,
    files: &Files,
    record: bool,
    ctx: &Context,
) -> std::io::Result<Changes> {
    ctx.stage("writing", 0);
    let dir = loaded.generated_dir();
    let old = ctx.manifest_check(loaded).map(|c| &c.manifest.outputs);
    // Until this build is recorded, the old manifest must not describe a half-written folder.
    ctx.cache.set_manifest(None);
    let partial = l.partial.as_ref();
    let mut c = write_with(&dir, files, old, partial.is_none())?;
    if let Some(p) = partial {
        // The files of the tables that were not rebuilt are on disk as recorded.
        c.unchanged += p
            .base
            .outputs
            .keys()
            .filter(|k| !files.contains_key(*k))
            .count();
    }
    if record && ctx.cache.enabled() {
        let m = match partial {
            None => manifest_of(loaded, files, l, ctx),
            Some(p) => partial_manifest(loaded, files, &p.base, ctx),
        };
        if let Some(m) = m {
            ctx.cache.set_manifest(Some(&m));
        }
        if partial.is_none() {
            ctx.cache.prune();
        }
    }
    Ok(c)
}

/// The manifest entries of `files`, just written under `dir`.
fn output_entries(dir: &Path, files: &Files, now: SystemTime) -> BTreeMap<String, Entry> {
    files
        .par_iter()
        .map(|(rel, content)| {
            (
                rel.clone(),
                Entry::new(&dir.join(rel), content.as_bytes(), now),
            )
        })
        .collect()
}

/// The manifest after a one-table rebuild: the base manifest with the inputs seen by this build and the
/// files it wrote.
fn partial_manifest(
    loaded: &Loaded,
    files: &Files,
    base: &Manifest,
    ctx: &Context,
) -> Option<Manifest> {
    let now = SystemTime::now();
    let mut m = base.clone();
    for (k, e) in ctx.inputs.lock().ok()?.iter() {
        m.inputs.insert(k.clone(), e.clone());
    }
    let dir = loaded.generated_dir();
    m.outputs.extend(output_entries(&dir, files, now));
    Some(m)
}

/// Write `files` under `dir` (see [`write`]); stale owned files are removed only when `complete` (`files`
/// is every output, not those of a one-table rebuild).
fn write_with(
    dir: &Path,
    files: &Files,
    known: Option<&BTreeMap<String, Entry>>,
    complete: bool,
) -> std::io::Result<Changes> {
    let mut c = stale_with(dir, files, known, complete);
    let staged: Vec<std::io::Result<(PathBuf, PathBuf)>> = c
        .written
        .par_iter()
        .map(|rel| {
            let target = dir.join(rel);
            if let Some(p) = target.parent() {
                std::fs::create_dir_all(p)?;
            }
            let tmp = target.with_file_name(format!(
                "{}.gentable-tmp",
                target
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ));
            std::fs::write(&tmp, files[rel].as_bytes())?;
            Ok((tmp, target))
        })
        .collect();
    let mut result = Ok(());
    let staged: Vec<(PathBuf, PathBuf)> = staged
        .into_iter()
        .filter_map(|r| r.map_err(|e| result = Err(e)).ok())
        .collect();
    if let Err(e) = result {
        for (tmp, _) in &staged {
            let _ = std::fs::remove_file(tmp);
        }
        return Err(e);
    }
    for (tmp, target) in &staged {
        std::fs::rename(tmp, target)?;
    }
    for rel in &c.removed {
        std::fs::remove_file(dir.join(rel))?;
    }
    c.removed.sort();
    Ok(c)
}

/// Input files besides the table files: the project file, every schema file, template override folders.
pub(crate) fn other_inputs(loaded: &Loaded, ctx: &Context) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ctx.config_path.iter().cloned().collect();
    if let Ok(rd) = std::fs::read_dir(loaded.schema_dir()) {
        out.extend(
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json")),
        );
    }
    for t in [
        &loaded.config.csharp.templates,
        &loaded.config.typescript.templates,
    ]
    .into_iter()
    .flatten()
    {
        walk_files(&loaded.root.join(t), &mut out);
    }
    out
}

fn walk_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The manifest of a build that just wrote `files`: its inputs (the table files it read, hashed while
/// reading, and [`other_inputs`]) and outputs. `None` if an input cannot be read.
fn manifest_of(loaded: &Loaded, files: &Files, l: &Validated, ctx: &Context) -> Option<Manifest> {
    let now = SystemTime::now();
    let mut inputs = ctx.inputs.lock().ok()?.clone();
    let table_files = read::discover(loaded).ok()?;
    if table_files.len() != inputs.len() {
        return None;
    }
    for p in other_inputs(loaded, ctx) {
        let bytes = std::fs::read(&p).ok()?;
        inputs.insert(ctx.input_key(&p), Entry::new(&p, &bytes, now));
    }
    let dir = loaded.generated_dir();
    let outputs = output_entries(&dir, files, now);
    Some(Manifest {
        settings: cache::settings_hash(loaded),
        inputs,
        outputs,
        tables: l.project.tables.len() as u64,
        table_records: l.table_records.clone(),
    })
}

/// A build that has nothing to do: what the last build recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpToDate {
    /// Tables of the project.
    pub tables: usize,
    /// Files under the generated folder.
    pub files: usize,
}

/// What the manifest of the last clean build says of the files on disk now (computed once per build, see
/// [`Context::manifest_check`]; used by [`up_to_date`] and by one-table rebuilds, [`crate::build::incremental`]).
pub(crate) struct ManifestCheck {
    pub manifest: Manifest,
    /// The project's input files are the recorded ones (none added or removed), every generated file holds
    /// what was recorded, and no extra file sits in the folders gentable owns.
    pub same_files: bool,
    /// Recorded inputs whose content differs now (paths as the manifest keys them).
    pub changed: BTreeSet<String>,
    /// The table files of the project: input path → source file.
    pub table_files: BTreeMap<String, read::SourceFile>,
    /// Inputs and outputs whose status changed but whose content did not: their entries as of now.
    pub refreshed_inputs: Vec<(String, Entry)>,
    refreshed_outputs: Vec<(String, Entry)>,
}

fn check_manifest(loaded: &Loaded, ctx: &Context) -> Option<ManifestCheck> {
    if !ctx.cache.enabled() {
        return None;
    }
    let manifest = ctx.cache.manifest()?;
    if manifest.settings != cache::settings_hash(loaded) {
        return None;
    }
    let table_files: BTreeMap<String, read::SourceFile> = read::discover(loaded)
        .ok()?
        .into_iter()
        .map(|f| (ctx.input_key(&f.path), f))
        .collect();
    let mut keys: HashSet<String> = table_files.keys().cloned().collect();
    keys.extend(other_inputs(loaded, ctx).iter().map(|p| ctx.input_key(p)));
    let dir = loaded.generated_dir();
    let recorded: Files = manifest
        .outputs
        .keys()
        .map(|k| (k.clone(), String::new()))
        .collect();
    let same_set = keys.len() == manifest.inputs.len()
        && keys.iter().all(|k| manifest.inputs.contains_key(k))
        && extra_files(&dir, &recorded).is_empty();
    let now = SystemTime::now();
    let inputs: Vec<(String, Option<Option<Entry>>)> = manifest
        .inputs
        .par_iter()
        .map(|(k, e)| (k.clone(), e.check(&ctx.input_path(k), now)))
        .collect();
    let outputs: Vec<(String, Option<Option<Entry>>)> = manifest
        .outputs
        .par_iter()
        .map(|(k, e)| (k.clone(), e.check(&dir.join(k), now)))
        .collect();
    let outputs_ok = outputs.iter().all(|(_, c)| c.is_some());
    let mut changed = BTreeSet::new();
    let mut refreshed_inputs = vec![];
    for (k, c) in inputs {
        match c {
            None => {
                changed.insert(k);
            }
            Some(Some(e)) => refreshed_inputs.push((k, e)),
            Some(None) => {}
        }
    }
    let refreshed_outputs = outputs
        .into_iter()
        .filter_map(|(k, c)| Some((k, c??)))
        .collect();
    Some(ManifestCheck {
        manifest,
        same_files: same_set && outputs_ok,
        changed,
        table_files,
        refreshed_inputs,
        refreshed_outputs,
    })
}

/// With the cache on: `Some` when the last successful build had no diagnostic, and every input (project file,
/// table files, schema files, templates; none added or removed) and every output still holds what that build
/// recorded, with no extra file in the owned folders. Then the build's result would be exactly what is on
/// disk, so there is nothing to do.
pub fn up_to_date(loaded: &Loaded, ctx: &Context) -> Option<UpToDate> {
    let c = ctx.manifest_check(loaded)?;
    if !c.same_files || !c.changed.is_empty() {
        return None;
    }
    let up = UpToDate {
        tables: c.manifest.tables as usize,
        files: c.manifest.outputs.len(),
    };
    // Files that had to be hashed (recorded too soon after they were written, or touched without a change)
    // get their current status recorded, so that the next no-op build only looks at statuses.
    if !c.refreshed_inputs.is_empty() || !c.refreshed_outputs.is_empty() {
        let mut m = c.manifest.clone();
        m.inputs.extend(c.refreshed_inputs.iter().cloned());
        m.outputs.extend(c.refreshed_outputs.iter().cloned());
        ctx.cache.set_manifest(Some(&m));
    }
    Some(up)
}

/// Convenience for tests and tools: load and validate the project of `gentable.toml` at `config_path`.
pub fn load_path(config_path: &Path) -> anyhow::Result<(Loaded, Validated)> {
    let loaded = crate::config::load(config_path)?;
    match load(&loaded) {
        Ok(l) => Ok((loaded, l)),
        Err(d) => {
            let text: Vec<String> = d.items.iter().map(|d| d.to_string()).collect();
            anyhow::bail!("{} diagnostics:\n{}", d.items.len(), text.join("\n"))
        }
    }
}

/// The rows of `tables` that some diagnostic of `diags` points at, as the designer sees them (for the human
/// report's source lines); linear in both.
fn sources_of_rows(tables: &[RawTable], diags: &[Diagnostic]) -> crate::diag::render::Sources {
    let wanted: HashSet<(&str, Option<&str>, usize)> = diags
        .iter()
        .filter(|d| d.row > 0)
        .map(|d| (d.file.as_str(), d.sheet.as_deref(), d.row))
        .collect();
    let mut sources = crate::diag::render::Sources::default();
    for t in tables {
        for r in &t.rows {
            if wanted.contains(&(t.file.as_str(), t.sheet.as_deref(), r.row)) {
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
