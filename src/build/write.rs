//! Writing `generated/`: [`stale`] compares the rendered files with the folder (for `build --check` and to
//! skip unchanged files), [`write()`] commits the changed ones and the removal of the files gentable owns but
//! no longer produces in one atomic step ([`super::commit`]); `commit` is the build's write step (write,
//! then record the manifest).
//!
//! A failed build never reaches this module, so `generated/` is unchanged when any error is found.

use super::cache::{self, Entry, Manifest, Stat};
use super::context::Context;
use super::manifest;
use super::owned::extra_files;
use super::stages::Validated;
use crate::config::Loaded;
use crate::emit::Outputs as Files;
use crate::read;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

/// What [`write()`] or [`stale`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub written: Vec<String>,
    pub removed: Vec<String>,
    pub unchanged: usize,
}

/// How [`stale`] and [`write()`] look at the folder.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'a> {
    /// The outputs of the last build's manifest: a file whose status and hash are the recorded ones is known
    /// to be unchanged without reading it back.
    pub known: Option<&'a BTreeMap<String, Entry>>,
    /// `files` is every output (not those of a one-table rebuild): owned files it does not hold are removed.
    pub complete: bool,
}

impl Default for Scope<'_> {
    fn default() -> Self {
        Scope {
            known: None,
            complete: true,
        }
    }
}

/// Compare `files` with `dir` without writing: the files that would be written or removed.
pub fn stale(dir: &Path, files: &Files, scope: Scope) -> Changes {
    let Scope { known, complete } = scope;
    let changed: Vec<Option<String>> = files
        .par_iter()
        .map(|(rel, content)| {
            let path = dir.join(rel);
            if let Some(e) = known.and_then(|k| k.get(rel)) {
                if e.stat.is_some()
                    && e.stat == Stat::of(&path)
                    && e.hash == *blake3::hash(content).as_bytes()
                {
                    return None;
                }
            }
            match std::fs::read(&path) {
                Ok(old) if old == *content => None,
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

/// Write `files` under `dir` as one atomic commit ([`super::commit`]): the whole new folder is staged beside
/// it (unchanged files hard-linked, so they keep their inode and modification time; changed ones written;
/// stale owned files, when `scope.complete`, left out) and swapped in at once, so `dir` is at every instant
/// the old or the new complete state. Nothing is touched when nothing changed. What an earlier, killed
/// build left behind is completed or removed first.
pub fn write(dir: &Path, files: &Files, scope: Scope) -> std::io::Result<Changes> {
    super::commit::recover(dir)?;
    let mut c = stale(dir, files, scope);
    c.removed.sort();
    if c.written.is_empty() && c.removed.is_empty() {
        return Ok(c);
    }
    let state = super::commit::NewState {
        write: c
            .written
            .iter()
            .map(|rel| (rel.as_str(), files[rel].as_slice()))
            .collect(),
        drop: c.removed.iter().map(String::as_str).collect(),
    };
    super::commit::commit(dir, &state)?;
    Ok(c)
}

/// The write step of a build: write `files` (unchanged ones recognised from `known`, the last manifest's
/// outputs), then record the
/// manifest of this build when `record` (a build without any diagnostic), so that the next unchanged build
/// is a no-op; unused read-cache entries are removed after a full build.
pub(crate) fn commit(
    loaded: &Loaded,
    l: &Validated,
    files: &Files,
    record: bool,
    known: Option<&BTreeMap<String, Entry>>,
    ctx: &Context,
) -> std::io::Result<Changes> {
    ctx.stage("writing", 0);
    let dir = loaded.generated_dir();
    // Until this build is recorded, the old manifest must not describe a half-written folder.
    ctx.cache.set_manifest(None);
    let partial = l.partial.as_ref();
    let mut c = write(
        &dir,
        files,
        Scope {
            known,
            complete: partial.is_none(),
        },
    )?;
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
        if let Some(m) = manifest_of(loaded, files, l, ctx) {
            ctx.cache.set_manifest(Some(&m));
        }
        if partial.is_none() {
            ctx.cache.prune();
        }
    }
    Ok(c)
}

/// The manifest of a build that just wrote `files` under the generated folder: for a full build its inputs
/// (the table files it read, hashed while reading, and [`other_inputs`]) and outputs; for a one-table rebuild
/// the manifest it started from, with the inputs it saw and the files it wrote. `None` if an input cannot be
/// read (nothing is recorded, the next build is a full one).
fn manifest_of(loaded: &Loaded, files: &Files, l: &Validated, ctx: &Context) -> Option<Manifest> {
    let now = SystemTime::now();
    let dir = loaded.generated_dir();
    if let Some(p) = &l.partial {
        let mut m = p.base.clone();
        for (k, e) in ctx.inputs.lock().ok()?.iter() {
            m.inputs.insert(k.clone(), e.clone());
        }
        m.outputs.extend(output_entries(&dir, files, now));
        record_data_digests(&mut m.table_records, files)?;
        return Some(m);
    }
    let mut inputs = ctx.inputs.lock().ok()?.clone();
    let table_files = read::discover(loaded).ok()?;
    if table_files.len() != inputs.len() {
        return None;
    }
    for p in manifest::other_inputs(loaded, ctx) {
        let bytes = std::fs::read(&p).ok()?;
        inputs.insert(ctx.input_key(&p), Entry::new(&p, &bytes, now));
    }
    let outputs = output_entries(&dir, files, now);
    let mut table_records = l.table_records.clone();
    record_data_digests(&mut table_records, files)?;
    Some(Manifest {
        settings: cache::settings_hash(loaded),
        inputs,
        outputs,
        tables: l.project.tables.len() as u64,
        table_records,
    })
}

/// Set [`cache::TableRecord::data`] of every table whose `data/<Table>.json` is among `files` from its header
/// (`dataHash`); `None` if a header does not read (nothing is recorded then).
fn record_data_digests(records: &mut [cache::TableRecord], files: &Files) -> Option<()> {
    for r in records {
        if let Some(bytes) = files.get(&format!("data/{}.json", r.name)) {
            let h = crate::emit::data::json::header(std::str::from_utf8(bytes).ok()?).ok()?;
            r.data = *blake3::Hash::from_hex(&h.data_hash).ok()?.as_bytes();
        }
    }
    Some(())
}

/// The manifest entries of `files`, just written under `dir`.
fn output_entries(dir: &Path, files: &Files, now: SystemTime) -> BTreeMap<String, Entry> {
    files
        .par_iter()
        .map(|(rel, content)| (rel.clone(), Entry::new(&dir.join(rel), content, now)))
        .collect()
}
