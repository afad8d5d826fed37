//! The manifest of the last clean build ([`Manifest`], stored by [`super::cache`]): checking the files on disk
//! against it ([`check`], once per build; [`super::write`] records the next one).

use super::cache::{self, Entry, Manifest};
use super::context::Context;
use super::owned::extra_files;
use crate::config::Loaded;
use crate::read;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What the manifest of the last clean build says of the files on disk now (computed once per build, see
/// [`Context::manifest_check`]; the plan of a build is made from it, [`super::plan`]).
pub struct ManifestCheck {
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
    pub refreshed_outputs: Vec<(String, Entry)>,
}

/// Compare the files on disk with the last clean build's manifest (`None`: cache off, no manifest, other
/// settings).
pub(crate) fn check(loaded: &Loaded, ctx: &Context) -> Option<ManifestCheck> {
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
    let recorded: BTreeMap<String, ()> = manifest.outputs.keys().map(|k| (k.clone(), ())).collect();
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
        .map(|(k, e)| {
            // An output reached through a symbolic link is never intact: the build replaces the link.
            let c = if super::sink::linked(&dir, k) {
                None
            } else {
                e.check(&dir.join(k), now)
            };
            (k.clone(), c)
        })
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

/// Input files besides the table files: the project file, every schema file, template override folders.
pub(crate) fn other_inputs(loaded: &Loaded, ctx: &Context) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ctx.config_path.iter().cloned().collect();
    // Every file `schema::load_dir` reads: a name ending in `.json` (a file named `.json` has no extension
    // for `Path::extension`, yet it is a schema file that `$ref`s may name).
    if let Ok(rd) = std::fs::read_dir(loaded.schema_dir()) {
        out.extend(
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .map(|e| e.path()),
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
