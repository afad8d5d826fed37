//! Writing `generated/`: [`stale`] compares rendered files with the folder, [`write()`] commits the changed
//! ones and the removal of the files gentable owns but no longer produces in one atomic step
//! ([`super::commit`]); both go through a [`Sink`], into which a build streams its files as it renders them.
//! `commit` is the build's write step (commit what the sink staged, then record the manifest).
//!
//! A failed build never reaches the commit: what its sink staged is removed, and `generated/` is unchanged
//! when any error is found.

use super::cache::{self, Entry, Manifest};
use super::context::Context;
use super::manifest;
pub use super::sink::{Changes, Scope, Sink, Written};
use super::stages::Validated;
use crate::config::Loaded;
use crate::emit::Outputs as Files;
use crate::read;
use rayon::prelude::*;
use std::path::Path;
use std::time::SystemTime;

/// Compare `files` with `dir` without writing: the files that would be written or removed.
pub fn stale(dir: &Path, files: &Files, scope: Scope) -> Changes {
    let sink = Sink::check(dir, scope);
    files
        .par_iter()
        .for_each(|(rel, bytes)| sink.put(rel, bytes));
    sink.changes()
}

/// Write `files` under `dir` as one atomic commit ([`super::commit`]): the whole new folder is staged beside
/// it (unchanged files hard-linked, so they keep their inode and modification time; changed ones written;
/// stale owned files, when `scope.complete`, left out) and swapped in at once, so `dir` is at every instant
/// the old or the new complete state. Nothing is touched when nothing changed. What an earlier, killed
/// build left behind is completed or removed first. A build streams its files into a [`Sink`] instead, as
/// they are rendered.
pub fn write(dir: &Path, files: &Files, scope: Scope) -> std::io::Result<Changes> {
    let sink = Sink::stage(dir, scope)?;
    files
        .par_iter()
        .for_each(|(rel, bytes)| sink.put(rel, bytes));
    Ok(sink.finish()?.0)
}

/// The write step of a build: commit what `sink` staged while the outputs were rendered (unchanged files
/// were recognised from the last manifest's outputs, [`Scope::known`]), then record the manifest of this
/// build when `record` (a build without any diagnostic), so that the next unchanged build is a no-op;
/// unused read-cache entries are removed after a full build.
pub(crate) fn commit(
    loaded: &Loaded,
    l: &Validated,
    sink: Sink,
    record: bool,
    ctx: &Context,
) -> std::io::Result<Changes> {
    ctx.stage("writing", 0);
    // Until this build is recorded, the old manifest must not describe a half-written folder.
    ctx.cache.set_manifest(None);
    let partial = l.partial.as_ref();
    let (mut c, written) = sink.finish()?;
    if let Some(p) = partial {
        // The files of the tables that were not rebuilt are on disk as recorded.
        c.unchanged += p
            .base
            .outputs
            .keys()
            .filter(|k| !written.contains(k))
            .count();
    }
    if record && ctx.cache.enabled() {
        if let Some(m) = manifest_of(loaded, &written, l, ctx) {
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
fn manifest_of(loaded: &Loaded, files: &Written, l: &Validated, ctx: &Context) -> Option<Manifest> {
    let now = SystemTime::now();
    let dir = loaded.generated_dir();
    if let Some(p) = &l.partial {
        let mut m = p.base.clone();
        for (k, e) in ctx.inputs.lock().ok()?.iter() {
            m.inputs.insert(k.clone(), e.clone());
        }
        m.outputs.extend(files.entries(&dir, now));
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
    let outputs = files.entries(&dir, now);
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

/// Set [`cache::TableRecord::data`] of every table whose `data/<Table>.json` was written from its header
/// (`dataHash`); `None` if a header does not read (nothing is recorded then).
fn record_data_digests(records: &mut [cache::TableRecord], files: &Written) -> Option<()> {
    for r in records {
        if let Some(h) = files.data_hash(&format!("data/{}.json", r.name)) {
            r.data = *blake3::Hash::from_hex(h?).ok()?.as_bytes();
        }
    }
    Some(())
}
