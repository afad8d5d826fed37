//! The outputs of a validated project: RFC 8785 canonical data and its content hash, binary data files, and
//! every emitter's files ([`stream`]), each given to a [`Sink`] as soon as it is rendered (a build's sink
//! writes the changed ones into the commit's staging folder at once, so the big data files are never all in
//! memory together); [`generate`] collects them in memory instead.

use super::plan::Partial;
use super::sink::Sink;
use super::stages::Validated;
use crate::config::{DataFormat, Loaded};
use crate::emit::{self, data, EmitContext, Files, Outputs};
use crate::ir::canonical;
use crate::ir::Project;
use crate::schema::SchemaSet;
use anyhow::Context as _;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

/// The hashes of one data folder: its content hash and every table's `dataHash`.
pub struct Data {
    /// The content hash of the folder's tables (64 hex digits).
    pub hash: String,
    /// Per table (every table of the project, rendered or recorded): the BLAKE3 of its canonical data.
    pub data_hashes: BTreeMap<String, String>,
}

/// Where one data folder's files go: `<dir>/<Table>.json` (when `json`) and `<dir>/content-hash.txt`, and
/// each table's binary data file as `<folder>/<Table>.bytes` for every folder of `binary`.
struct Folder<'a> {
    dir: &'a str,
    json: bool,
    binary: Vec<String>,
}

/// Render the data files of `project` into `sink` (see [`Folder`]), table by table on all cores, each file
/// given to the sink as soon as it is rendered (so they are never all in memory), and return their hashes.
/// The JSON files are RFC 8785 canonical data, one row per line ([`crate::emit::data::json`]); a table's
/// binary body ([`data::binary::encode_unsealed`]) is encoded while its JSON is rendered, and sealed with the
/// JSON's digest. In a one-table rebuild (`partial`), only the rebuilt tables' data is rendered (binary
/// files: the tables of `only`), and the content hash takes the other tables' data digests from the
/// manifest ([`super::cache::TableRecord::data`], which is what [`canonical::content_hash_of_digests`]
/// hashes).
fn data_folder(
    project: &Project,
    schema_set: &SchemaSet,
    partial: Option<&Partial>,
    folder: &Folder,
    sink: &Sink,
) -> anyhow::Result<Data> {
    let only = partial.map(|p| &p.only);
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
    let dir = folder.dir;
    // (data digest, schema digest) per table.
    let parts: Vec<anyhow::Result<([u8; 32], [u8; 32])>> = project
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
            if let Some(d) = recorded.get(t.name.as_str()) {
                return Ok((**d, schema));
            }
            let layout = data::schema_hash(project, t);
            let binary = !folder.binary.is_empty() && only.is_none_or(|o| o.contains(&t.name));
            // The body does not depend on the data hash (only the header does): encoded meanwhile.
            let json = || {
                if !folder.json {
                    // Only the digest is needed (binary files alone): the rows are hashed as they are
                    // rendered, never held.
                    return data::json::render_streamed(project, t, &layout, &mut |_| {}).1;
                }
                let rel = format!("{dir}/{}.json", t.name);
                // A big table's JSON goes to the staging folder batch by batch (never whole in memory),
                // its header's dataHash written last.
                if let Some(mut stream) = (t.rows.len() > data::json::BATCH_ROWS)
                    .then(|| sink.stream(&rel))
                    .flatten()
                {
                    let (at, d) =
                        data::json::render_streamed(project, t, &layout, &mut |b| stream.write(b));
                    let hex = blake3::Hash::from_bytes(d).to_hex();
                    stream.finish(at as u64, hex.as_bytes(), Some(hex.to_string()));
                    return d;
                }
                let (text, d) = data::json::render_parts(project, t, &layout);
                let parts: Vec<&[u8]> = text.iter().map(|p| p.as_bytes()).collect();
                sink.put_parts(&rel, &parts);
                d
            };
            let (d, body) = rayon::join(json, || {
                binary.then(|| data::binary::encode_unsealed(project, t))
            });
            if let Some(body) = body {
                let data_hash = blake3::Hash::from_bytes(d).to_hex();
                let [head, body] = body
                    .and_then(|b| b.seal(data_hash.as_str(), &layout))
                    .with_context(|| format!("table {}", t.name))?;
                for b in &folder.binary {
                    sink.put_parts(&format!("{b}/{}.bytes", t.name), &[&head, &body]);
                }
            }
            Ok((d, schema))
        })
        .collect();
    let mut digests: Vec<(String, [u8; 32], [u8; 32])> = vec![];
    for (t, part) in project.tables.iter().zip(parts) {
        let (d, s) = part?;
        digests.push((t.name.clone(), d, s));
    }
    let data_hashes = digests
        .iter()
        .map(|(n, d, _)| (n.clone(), blake3::Hash::from_bytes(*d).to_hex().to_string()))
        .collect();
    shared_schema_digests(project, schema_set, &mut digests);
    let hash =
        canonical::content_hash_of_digests(digests.iter().map(|(n, d, s)| (n.as_str(), *d, *s)));
    sink.put(
        &format!("{dir}/content-hash.txt"),
        format!("{hash}\n").as_bytes(),
    );
    Ok(Data { hash, data_hashes })
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

/// Render every output file in memory ([`stream`] into a [`Sink::collect`] sink), for tests and tools; a
/// build streams them into the generated folder's staging folder instead.
pub fn generate(loaded: &Loaded, l: &Validated) -> anyhow::Result<Outputs> {
    let sink = Sink::collect();
    stream(loaded, l, &sink)?;
    Ok(sink.into_outputs())
}

/// Render every output file into `sink`, each as soon as it is rendered: first the whole project's data
/// files (table by table on all cores), then the three emitters concurrently. An output that selects
/// export groups (`[rust|csharp|typescript] groups`) is emitted from the project filtered to them, with its
/// own data under `data/<output>/` and its own content hash (see [`crate::emit::groups`]). The Rust crate
/// embeds its data as binary files under `rust/data/` ([`crate::emit::rust`]). `Err` lists every output's
/// problems (then the caller drops the sink, and nothing it staged is committed).
pub fn stream(loaded: &Loaded, l: &Validated, sink: &Sink) -> anyhow::Result<()> {
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
    // The whole project's data. `generated/data/` always holds the JSON, and the binary files too when an
    // output without groups reads that folder in binary; the Rust crate without groups embeds the same
    // binary files (sealed once, given to the sink under both names).
    let mut binary = vec![];
    if outputs
        .iter()
        .any(|o| o.groups.is_none() && o.formats.contains(&DataFormat::Binary))
    {
        binary.push("data".to_string());
    }
    if outputs
        .iter()
        .any(|o| o.name == "rust" && o.groups.is_none())
    {
        binary.push("rust/data".to_string());
    }
    let started = Instant::now();
    let whole = data_folder(
        base,
        &l.schema_set,
        l.partial.as_ref(),
        &Folder {
            dir: "data",
            json: true,
            binary,
        },
        sink,
    )?;
    if timings {
        eprintln!(
            "gentable:   canonical data {:.1} ms",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    // The three emitters run concurrently; their problems are reported in the fixed order above.
    let parts: Vec<anyhow::Result<()>> = outputs
        .par_iter()
        .with_max_len(1)
        .map(|o| -> anyhow::Result<()> {
            let started = Instant::now();
            let name = o.name;
            let filtered;
            let own;
            let (project, data) = match &o.groups {
                None => (base, &whole),
                Some(groups) => {
                    filtered = crate::emit::groups::filter(base, Some(&groups[..]), &o.tags)?;
                    let dir = format!("data/{name}");
                    let mut binary = vec![];
                    if o.formats.contains(&DataFormat::Binary) {
                        binary.push(dir.clone());
                    }
                    // The Rust crate embeds the binary files of its own data.
                    if name == "rust" {
                        binary.push("rust/data".to_string());
                    }
                    own = data_folder(
                        &filtered,
                        &l.schema_set,
                        l.partial.as_ref(),
                        &Folder {
                            dir: &dir,
                            json: o.formats.contains(&DataFormat::Json),
                            binary,
                        },
                        sink,
                    )?;
                    (&filtered, &own)
                }
            };
            let files = (o.emit)(&EmitContext {
                project,
                config: c,
                content_hash: &data.hash,
                project_hash: &whole.hash,
                data_hashes: &data.data_hashes,
                root: &loaded.root,
                only,
            })?;
            files
                .par_iter()
                .for_each(|(path, text)| sink.put(path, text.as_bytes()));
            if timings {
                eprintln!(
                    "gentable:   {name} {:.1} ms",
                    started.elapsed().as_secs_f64() * 1e3
                );
            }
            Ok(())
        })
        .collect();
    // Every output's problems at once (a name that clashes in Rust and in C# is two lines).
    let mut errors = crate::emit::front::Errors::default();
    for part in parts {
        errors.take(part);
    }
    errors.finish()?;
    check_paths(&sink.names(), &sink.problems())
}

/// Every path given to the sink (`names`, in name order) must be a made file name under the generated
/// folder, distinct from every other on a case- or normalisation-insensitive file system
/// ([`crate::naming::files`]), and given once (`twice`: those given more than once). The names are made safe
/// where they are made (table names are checked, identifiers are ASCII); this is the last guard before the
/// commit (the sink never writes a path that fails [`crate::naming::files::path_problem`]).
fn check_paths(names: &[String], twice: &[String]) -> anyhow::Result<()> {
    if let Some(path) = twice.first() {
        anyhow::bail!("two generated files are both {path}; rename a table or type");
    }
    let mut seen: std::collections::HashMap<String, &str> = std::collections::HashMap::new();
    for rel in names {
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
