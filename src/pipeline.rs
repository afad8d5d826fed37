//! The pipeline: read → schema → type → validate → emit → write, as one call per stage.
//!
//! [`load`] runs everything up to validation and returns the typed [`Project`] or all diagnostics;
//! [`generate`] renders every output file in memory; [`write`] replaces `generated/` only after everything
//! rendered, writing changed files through temporary siblings and renames (unchanged files are not touched)
//! and removing files that gentable owns but no longer produces. A failed build never reaches [`write`], so
//! `generated/` is unchanged when any error is found.

use crate::canonical;
use crate::codegen::{self, EmitContext, Files};
use crate::config::Loaded;
use crate::diag::{Diagnostic, Diagnostics};
use crate::ir::{Project, Table, TableMode};
use crate::read::{self, RawTable};
use crate::schema::{self, SchemaSet, TableSchema};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// A validated project and what generation needs besides it.
pub struct Validated {
    pub project: Project,
    pub schemas: Vec<TableSchema>,
    pub schema_set: SchemaSet,
    /// Warnings found on the way (errors make [`load`] fail).
    pub warnings: Vec<Diagnostic>,
}

/// Read, type and validate every table. `Err` holds every diagnostic (errors and warnings), sorted.
pub fn load(loaded: &Loaded) -> Result<Validated, Diagnostics> {
    load_impl(loaded, &mut vec![])
}

/// [`load`], plus the source rows that the diagnostics point at (for human output, [`crate::report`]).
pub fn load_with_sources(
    loaded: &Loaded,
) -> (Result<Validated, Diagnostics>, crate::report::Sources) {
    let mut raw = vec![];
    let result = load_impl(loaded, &mut raw);
    let sources = match &result {
        Ok(v) => crate::report::Sources::from_raw(&raw, &v.warnings),
        Err(d) => crate::report::Sources::from_raw(&raw, &d.items),
    };
    (result, sources)
}

/// [`load`]; the raw tables that were typed are moved into `raw` (for [`load_with_sources`]).
fn load_impl(loaded: &Loaded, raw: &mut Vec<RawTable>) -> Result<Validated, Diagnostics> {
    let mut diags: Vec<Diagnostic> = vec![];
    let fail = |diags: Vec<Diagnostic>| {
        let mut d = Diagnostics { items: diags };
        d.sort();
        Err(d)
    };
    let schema_rel = loaded
        .config
        .project
        .schemas
        .to_string_lossy()
        .replace('\\', "/");
    let set = match schema::load_dir(&loaded.schema_dir(), &schema_rel) {
        Ok(s) => s,
        Err(d) => return fail(d),
    };
    let files = match read::discover(loaded) {
        Ok(f) => f,
        Err(d) => return fail(vec![d]),
    };
    // Read every file in parallel (rayon); group sources by table name in file order.
    let read: Vec<(Vec<RawTable>, Vec<Diagnostic>)> = files
        .par_iter()
        .map(|f| {
            let mut d = vec![];
            let tables = read::read_file(loaded, f, &mut d);
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
                    "GT0003",
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
    let mut schemas = vec![];
    let mut typed_sources = vec![];
    for (name, sources) in by_table {
        let ov = loaded.config.tables.get(&name);
        let schema_name = ov
            .and_then(|o| o.schema.clone())
            .unwrap_or_else(|| name.clone());
        let file = format!("{schema_name}.schema.json");
        match schema::build_table(&set, &mut project, &name, &file) {
            Ok(ts) => {
                schemas.push(ts);
                typed_sources.push(sources);
            }
            Err(d) => diags.extend(d),
        }
    }
    let typed: Vec<(Table, Vec<Diagnostic>)> = schemas
        .par_iter()
        .zip(typed_sources.par_iter())
        .map(|(ts, sources)| {
            let mut d = vec![];
            let rows = crate::typing::type_table(
                &project,
                ts,
                sources,
                loaded.config.tables.get(&ts.name),
                &mut d,
            );
            let table = Table {
                name: ts.name.clone(),
                doc: ts.doc.clone(),
                mode: ts.mode,
                fields: ts.fields.clone(),
                primary_key: ts.primary_key.clone(),
                unique_keys: ts.unique_keys.clone(),
                rows,
                schema_file: ts.schema_file.clone(),
            };
            (table, d)
        })
        .collect();
    for (t, d) in typed {
        project.tables.push(t);
        diags.extend(d);
    }
    raw.extend(typed_sources.into_iter().flatten());
    // Type names must not collide with table names in generated code.
    let table_names: Vec<String> = project.tables.iter().map(|t| t.name.clone()).collect();
    for n in project.enums.keys().chain(project.records.keys()) {
        if table_names.contains(n) {
            diags.push(Diagnostic::file_error(
                "GT0405",
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
    crate::validators::json_schema_rows(&project, &set, &schemas, &mut diags);
    crate::validators::keys(&mut project, &mut diags);
    crate::validators::foreign_keys(&project, &set, &mut diags);
    crate::validators::unreferenced(&project, &set, &schemas, &mut diags);
    // Rules read other tables through keys: run them only on tables whose keys and references hold.
    if !diags
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error)
    {
        crate::validators::rules::check(&project, &set, &schemas, &mut diags);
    }
    if diags
        .iter()
        .any(|d| d.severity == crate::diag::Severity::Error)
    {
        return fail(diags);
    }
    Ok(Validated {
        project,
        schemas,
        schema_set: set,
        warnings: diags,
    })
}

/// Canonical data files and the content hash: `(files under data/, hash)`.
pub fn canonical_data(l: &Validated) -> (Files, String) {
    let mut files = Files::new();
    let mut parts = vec![];
    for t in &l.project.tables {
        let data = canonical::table_json(&l.project, t);
        let schema = canonical::json_value(
            l.schema_set
                .files
                .get(&t.schema_file)
                .unwrap_or(&serde_json::Value::Null),
        );
        parts.push((t.name.clone(), data, schema));
    }
    // Shared schema files count too: their definitions shape every table.
    let used: Vec<&str> = l
        .project
        .tables
        .iter()
        .map(|t| t.schema_file.as_str())
        .collect();
    for (name, doc) in &l.schema_set.files {
        if !used.contains(&name.as_str()) {
            parts.push((
                format!("$schema/{name}"),
                String::new(),
                canonical::json_value(doc),
            ));
        }
    }
    let hash = canonical::content_hash(
        parts
            .iter()
            .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str())),
    );
    for (name, data, _) in parts {
        if !name.starts_with("$schema/") {
            files.insert(format!("data/{name}.json"), data);
        }
    }
    files.insert("data/content-hash.txt".into(), format!("{hash}\n"));
    (files, hash)
}

/// Render every output file in memory.
pub fn generate(loaded: &Loaded, l: &Validated) -> anyhow::Result<Files> {
    let (mut files, hash) = canonical_data(l);
    let ctx = EmitContext {
        project: &l.project,
        config: &loaded.config,
        content_hash: &hash,
        root: &loaded.root,
    };
    for part in [
        codegen::rust::emit(&ctx)?,
        codegen::csharp::emit(&ctx)?,
        codegen::ts::emit(&ctx)?,
    ] {
        files.extend(part);
    }
    Ok(files)
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
fn extra_files(dir: &Path, files: &Files) -> Vec<String> {
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
    let mut c = Changes::default();
    for (rel, content) in files {
        match std::fs::read(dir.join(rel)) {
            Ok(old) if old == content.as_bytes() => c.unchanged += 1,
            _ => c.written.push(rel.clone()),
        }
    }
    c.removed = extra_files(dir, files);
    c
}

/// Write `files` under `dir`: changed files go to `*.gentable-tmp` siblings first and are renamed into place
/// only when all were written; unchanged files are not rewritten; stale owned files are removed.
pub fn write(dir: &Path, files: &Files) -> std::io::Result<Changes> {
    let mut c = stale(dir, files);
    let mut staged = vec![];
    let result = (|| {
        for rel in &c.written {
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
            staged.push((tmp, target));
        }
        Ok(())
    })();
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

/// The mode of a table as its `x-gentable-mode` keyword.
pub fn mode_name(m: TableMode) -> &'static str {
    match m {
        TableMode::Map => "map",
        TableMode::List => "list",
        TableMode::One => "one",
    }
}
