//! The outputs of a validated project: RFC 8785 canonical data and its content hash ([`canonical_data`]), and
//! every emitter's files ([`generate`]), all rendered in memory before anything is written.

use super::plan::Partial;
use super::stages::Validated;
use crate::config::Loaded;
use crate::emit::{self, data, EmitContext, Files};
use crate::ir::canonical;
use crate::ir::Project;
use crate::schema::SchemaSet;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

/// The data of one output folder: its files, its content hash and every table's `dataHash`.
pub struct Data {
    /// `<dir>/<Table>.json` of the tables rendered, and `<dir>/content-hash.txt`.
    pub files: Files,
    /// The content hash of the folder's tables (64 hex digits).
    pub hash: String,
    /// Per table (every table of the project, rendered or recorded): the BLAKE3 of its canonical data.
    pub data_hashes: BTreeMap<String, String>,
}

/// The data files of `project` under the folder `dir` (`data`, or `data/<output>` for an output with export
/// groups: [`crate::emit::data::json`], one row per line) and their content hash. In a one-table rebuild
/// (`partial`), only the rebuilt tables' data is rendered, and the content hash takes the other tables' data
/// digests from the manifest ([`super::cache::TableRecord::data`], which is what
/// [`canonical::content_hash_of_digests`] hashes).
pub fn canonical_data(
    project: &Project,
    schema_set: &SchemaSet,
    dir: &str,
    partial: Option<&Partial>,
) -> Data {
    // (path, data file if rendered, data digest, schema digest) per table.
    type Part = (String, Option<String>, [u8; 32], [u8; 32]);
    let recorded: BTreeMap<&str, &[u8; 32]> = partial
        .map(|p| {
            p.base
                .table_records
                .iter()
                .filter(|r| !p.only.contains(&r.name))
                .map(|r| (r.name.as_str(), &r.data))
                .collect()
        })
        .unwrap_or_default();
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
            match recorded.get(t.name.as_str()) {
                Some(d) => (path, None, **d, schema),
                None => {
                    let layout = data::schema_hash(project, t);
                    let (text, d) = data::json::render(project, t, &layout);
                    (path, Some(text), d, schema)
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
    let data_hashes = digests
        .iter()
        .map(|(n, d, _)| (n.clone(), blake3::Hash::from_bytes(*d).to_hex().to_string()))
        .collect();
    shared_schema_digests(project, schema_set, &mut digests);
    let hash =
        canonical::content_hash_of_digests(digests.iter().map(|(n, d, s)| (n.as_str(), *d, *s)));
    let mut files: Files = parts
        .into_iter()
        .filter_map(|(path, data, _, _)| Some((path, data?)))
        .collect();
    files.insert(format!("{dir}/content-hash.txt"), format!("{hash}\n"));
    Data {
        files,
        hash,
        data_hashes,
    }
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
    // A one-table rebuild renders the rebuilt tables' files and the shared ones ([`super::plan`]).
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
    let Data {
        mut files,
        hash,
        data_hashes,
    } = canonical_data(base, &l.schema_set, "data", l.partial.as_ref());
    if timings {
        eprintln!(
            "gentable:   canonical data {:.1} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    crate::emit::groups::check_names(&l.project, &c.groups.names)?;
    type Emit = fn(&EmitContext) -> anyhow::Result<Files>;
    let tags = |include: &Option<Vec<String>>, exclude: &Vec<String>| crate::config::TagFilter {
        include: include.clone(),
        exclude: exclude.clone(),
    };
    let outputs: [(&str, &Option<Vec<String>>, crate::config::TagFilter, Emit); 3] = [
        (
            "rust",
            &c.rust.groups,
            tags(&c.rust.include_tags, &c.rust.exclude_tags),
            emit::rust::emit,
        ),
        (
            "csharp",
            &c.csharp.groups,
            tags(&c.csharp.include_tags, &c.csharp.exclude_tags),
            emit::csharp::emit,
        ),
        (
            "typescript",
            &c.typescript.groups,
            tags(&c.typescript.include_tags, &c.typescript.exclude_tags),
            emit::typescript::emit,
        ),
    ];
    // The three emitters run concurrently; their files are merged in the fixed order above.
    let parts: Vec<anyhow::Result<Files>> = outputs
        .par_iter()
        .with_max_len(1)
        .map(|(name, groups, tags, emit)| -> anyhow::Result<Files> {
            let started = Instant::now();
            // An output with `groups` or row tags gets its own filtered project and data.
            let groups = match (groups, tags.is_all()) {
                (None, false) => &Some(c.groups.names.clone()),
                (g, _) => *g,
            };
            let files = match groups {
                None => emit(&EmitContext {
                    project: base,
                    config: c,
                    content_hash: &hash,
                    project_hash: &hash,
                    data_hashes: &data_hashes,
                    root: &loaded.root,
                    only,
                })?,
                Some(groups) => {
                    let project = crate::emit::groups::filter(base, Some(groups), tags)?;
                    let own = canonical_data(
                        &project,
                        &l.schema_set,
                        &format!("data/{name}"),
                        l.partial.as_ref(),
                    );
                    let mut data = own.files;
                    data.extend(emit(&EmitContext {
                        project: &project,
                        config: c,
                        content_hash: &own.hash,
                        project_hash: &hash,
                        data_hashes: &own.data_hashes,
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
    check_paths(&files)?;
    Ok(files)
}

/// Every path of `files` must be a made file name under the generated folder, distinct from every other on
/// a case- or normalisation-insensitive file system ([`crate::naming::files`]). The names are made safe
/// where they are made (table names are checked, identifiers are ASCII); this is the last guard before
/// anything is written.
fn check_paths(files: &Files) -> anyhow::Result<()> {
    let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    for rel in files.keys() {
        if let Some(why) = crate::naming::files::path_problem(rel) {
            anyhow::bail!("refusing to write {rel:?}: {why}");
        }
        if let Some(other) = seen.insert(crate::naming::collision_key(rel), rel) {
            anyhow::bail!(
                "the generated files {other} and {rel} would be one file on Windows and macOS (they differ only \
                 in case); rename the table or type one of them comes from"
            );
        }
    }
    Ok(())
}
