//! The outputs of a validated project: RFC 8785 canonical data and its content hash ([`canonical_data`]), and
//! every emitter's files ([`generate`]), all rendered in memory before anything is written.

use super::plan::Partial;
use super::stages::Validated;
use crate::config::Loaded;
use crate::emit::{self, EmitContext, Files};
use crate::ir::canonical;
use crate::ir::Project;
use crate::schema::SchemaSet;
use rayon::prelude::*;
use std::collections::HashSet;
use std::time::Instant;

/// Canonical data files of `project` under the folder `dir` (`data`, or `data/<output>` for an output with
/// export groups) and their content hash: `(files, hash)`. In a one-table rebuild (`partial`), only the
/// rebuilt tables' data is rendered, and the content hash takes the other tables' data digests from the
/// manifest (the BLAKE3 of their recorded `data/<T>.json`, which is what
/// [`canonical::content_hash_of_digests`] hashes).
pub fn canonical_data(
    project: &Project,
    schema_set: &SchemaSet,
    dir: &str,
    partial: Option<&Partial>,
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
    let (mut files, hash) = canonical_data(base, &l.schema_set, "data", l.partial.as_ref());
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
                    let (mut data, own) = canonical_data(
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
