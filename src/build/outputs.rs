//! The outputs of a validated project: RFC 8785 canonical data and its content hash ([`canonical_data`]), and
//! every emitter's files ([`generate`]), all rendered in memory before anything is written.

use super::plan::Partial;
use super::stages::Validated;
use crate::config::{DataFormat, Loaded};
use crate::emit::{self, data, EmitContext, Files, Outputs};
use crate::ir::canonical;
use crate::ir::Project;
use crate::schema::SchemaSet;
use anyhow::Context as _;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
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

/// The binary data files (docs/data-format.md §3) of the tables of `project` that this build renders (every
/// table, or a one-table rebuild's `only`), under the folder `dir`, encoded on all cores. `bodies`: the
/// tables' encoded bodies when `project` is the one they were encoded from ([`binary_bodies`]), so only the
/// header is added here.
fn binary_files(
    project: &Project,
    data_hashes: &BTreeMap<String, String>,
    dir: &str,
    only: Option<&BTreeSet<String>>,
    bodies: Option<&Bodies>,
) -> anyhow::Result<Outputs> {
    rendered(project, only)
        .map(|t| {
            let data_hash = data_hashes
                .get(&t.name)
                .with_context(|| format!("no data hash for table {}", t.name))?;
            let schema_hash = data::schema_hash(project, t);
            let bytes = match bodies.and_then(|b| b.get(&t.name)) {
                Some(body) => data::binary::seal(body, data_hash, &schema_hash),
                None => data::binary::encode(project, t, data_hash, &schema_hash),
            }
            .with_context(|| format!("table {}", t.name))?;
            Ok((format!("{dir}/{}.bytes", t.name), bytes))
        })
        .collect()
}

/// The tables of `project` this build renders (every table, or a one-table rebuild's `only`), one per task.
fn rendered<'a>(
    project: &'a Project,
    only: Option<&'a BTreeSet<String>>,
) -> impl ParallelIterator<Item = &'a crate::ir::Table> {
    project
        .tables
        .par_iter()
        .with_max_len(1)
        .filter(move |t| only.is_none_or(|o| o.contains(&t.name)))
}

/// Per table name, the body of its binary data file ([`data::binary::encode_body`]).
type Bodies = BTreeMap<String, Vec<u8>>;

/// The binary bodies of the tables of `project` this build renders, on all cores.
fn binary_bodies(project: &Project, only: Option<&BTreeSet<String>>) -> anyhow::Result<Bodies> {
    rendered(project, only)
        .map(|t| {
            let body = data::binary::encode_body(project, t)
                .with_context(|| format!("table {}", t.name))?;
            Ok((t.name.clone(), body))
        })
        .collect()
}

/// Text files as build outputs.
fn bytes(files: Files) -> Outputs {
    files
        .into_iter()
        .map(|(k, v)| (k, v.into_bytes()))
        .collect()
}

/// Render every output file in memory. An output that selects export groups (`[rust|csharp|typescript]
/// groups`) is emitted from the project filtered to them, with its own data under `data/<output>/` and its
/// own content hash (see [`crate::emit::groups`]). The Rust crate embeds its data as binary files under
/// `rust/data/` ([`crate::emit::rust`]).
pub fn generate(loaded: &Loaded, l: &Validated) -> anyhow::Result<Outputs> {
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
    crate::emit::groups::check_names(&l.project, &c.groups.names)?;
    type Emit = fn(&EmitContext) -> anyhow::Result<Files>;
    /// One output: its name, its export groups (`None`: the whole project), its row tags, the formats of
    /// its data folder and its emitter.
    struct Output<'a> {
        name: &'a str,
        groups: Option<Vec<String>>,
        tags: crate::config::TagFilter,
        formats: &'a [DataFormat],
        emit: Emit,
    }
    let output = |name,
                  groups: &Option<Vec<String>>,
                  include: &Option<Vec<String>>,
                  exclude: &Vec<String>,
                  formats,
                  emit| {
        let tags = crate::config::TagFilter {
            include: include.clone(),
            exclude: exclude.clone(),
        };
        // An output with `groups` or row tags gets its own filtered project and data.
        let groups = match (groups, tags.is_all()) {
            (None, false) => Some(c.groups.names.clone()),
            (g, _) => g.clone(),
        };
        Output {
            name,
            groups,
            tags,
            formats,
            emit,
        }
    };
    // The Rust crate embeds the binary form in `rust/data/`; its data folder keeps the JSON (the reviewable
    // reference of what it embeds).
    let json = [DataFormat::Json];
    let outputs = [
        output(
            "rust",
            &c.rust.groups,
            &c.rust.include_tags,
            &c.rust.exclude_tags,
            &json[..],
            emit::rust::emit as Emit,
        ),
        output(
            "csharp",
            &c.csharp.groups,
            &c.csharp.include_tags,
            &c.csharp.exclude_tags,
            &c.csharp.data[..],
            emit::csharp::emit,
        ),
        output(
            "typescript",
            &c.typescript.groups,
            &c.typescript.include_tags,
            &c.typescript.exclude_tags,
            &c.typescript.data[..],
            emit::typescript::emit,
        ),
    ];
    // The whole project's canonical data, and meanwhile the bodies of its binary files when the Rust crate
    // (which embeds them) or an output reading `data/` in binary has no groups: the body does not depend
    // on the data hash, only the header does.
    let binary_data = outputs
        .iter()
        .any(|o| o.groups.is_none() && o.formats.contains(&DataFormat::Binary));
    let wants_bodies = binary_data
        || outputs
            .iter()
            .any(|o| o.name == "rust" && o.groups.is_none());
    let started = Instant::now();
    let (mut whole, bodies) = rayon::join(
        || canonical_data(base, &l.schema_set, "data", l.partial.as_ref()),
        || {
            if wants_bodies {
                binary_bodies(base, only)
            } else {
                Ok(Bodies::new())
            }
        },
    );
    let bodies = bodies?;
    // The canonical data's time includes the binary bodies encoded meanwhile.
    if timings {
        eprintln!(
            "gentable:   canonical data {:.1} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    // `generated/data/` always holds the JSON (the whole project's canonical data), and the binary files too
    // when an output without groups reads that folder in binary.
    let mut files = bytes(std::mem::take(&mut whole.files));
    if binary_data {
        files.extend(binary_files(
            base,
            &whole.data_hashes,
            "data",
            only,
            Some(&bodies),
        )?);
    }
    // The three emitters run concurrently; their files are merged in the fixed order above.
    let parts: Vec<anyhow::Result<Outputs>> = outputs
        .par_iter()
        .with_max_len(1)
        .map(|o| -> anyhow::Result<Outputs> {
            let started = Instant::now();
            let name = o.name;
            let filtered;
            let own;
            let (project, data, mut files) = match &o.groups {
                None => (base, &whole, Outputs::new()),
                Some(groups) => {
                    filtered = crate::emit::groups::filter(base, Some(&groups[..]), &o.tags)?;
                    let mut d = canonical_data(
                        &filtered,
                        &l.schema_set,
                        &format!("data/{name}"),
                        l.partial.as_ref(),
                    );
                    let mut files = bytes(std::mem::take(&mut d.files));
                    if !o.formats.contains(&DataFormat::Json) {
                        files.retain(|path, _| !path.ends_with(".json"));
                    }
                    if o.formats.contains(&DataFormat::Binary) {
                        files.extend(binary_files(
                            &filtered,
                            &d.data_hashes,
                            &format!("data/{name}"),
                            only,
                            None,
                        )?);
                    }
                    own = d;
                    (&filtered, &own, files)
                }
            };
            files.extend(bytes((o.emit)(&EmitContext {
                project,
                config: c,
                content_hash: &data.hash,
                project_hash: &whole.hash,
                data_hashes: &data.data_hashes,
                root: &loaded.root,
                only,
            })?));
            if name == "rust" {
                // The bodies were encoded from the whole project: only an output without groups uses them.
                let bodies = o.groups.is_none().then_some(&bodies);
                files.extend(binary_files(
                    project,
                    &data.data_hashes,
                    "rust/data",
                    only,
                    bodies,
                )?);
            }
            if timings {
                eprintln!(
                    "gentable:   {name} {:.1} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
            }
            Ok(files)
        })
        .collect();
    // Every output's problems at once (a name that clashes in Rust and in C# is two lines).
    let mut errors = crate::emit::front::Errors::default();
    for part in parts {
        files.extend(errors.take(part).unwrap_or_default());
    }
    errors.finish()?;
    check_paths(&files)?;
    Ok(files)
}

/// Every path of `files` must be a made file name under the generated folder, distinct from every other on
/// a case- or normalisation-insensitive file system ([`crate::naming::files`]). The names are made safe
/// where they are made (table names are checked, identifiers are ASCII); this is the last guard before
/// anything is written.
fn check_paths(files: &Outputs) -> anyhow::Result<()> {
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
