//! Where a build's output files go as they are rendered: a [`Sink`] takes each file once, hashes it (BLAKE3),
//! decides whether it differs from the generated folder (the last manifest's status and hash, else the bytes
//! on disk) and, in a build, writes only the changed ones into the commit's staging folder
//! ([`super::commit::Staging`]) at once. The caller then drops the bytes: the big data files
//! (`data/*.json`, `*.bytes`, the Rust crate's embedded data) are never all in memory together. What the sink
//! keeps per file is its name, hash, length and whether it changed.
//!
//! Three kinds: [`Sink::stage`] (`gentable build`: write the changed files, then [`Sink::finish`] commits),
//! [`Sink::check`] (`build --check`: compare, write nothing) and [`Sink::collect`] (keep every file in
//! memory: [`super::generate`], for tests and tools).

use super::cache::{Entry, Stat};
use super::commit::Staging;
use super::owned::extra_files;
use crate::emit::Outputs;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// What a build wrote, or what `build --check` found would be written.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Files written (or stale), relative and `/`-separated, in name order.
    pub written: Vec<String>,
    /// Owned files removed (or extra) because the tables no longer produce them, in name order.
    pub removed: Vec<String>,
    /// Files left as they were.
    pub unchanged: usize,
}

/// How a [`Sink`] looks at the generated folder.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'a> {
    /// The outputs of the last build's manifest: a file whose status and hash are the recorded ones is known
    /// to be unchanged without reading it back.
    pub known: Option<&'a BTreeMap<String, Entry>>,
    /// The sink receives every output (not those of a one-table rebuild): owned files it does not receive
    /// are removed.
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

/// What the sink remembers of one file it was given.
#[derive(Clone, Copy, Debug)]
struct Put {
    hash: [u8; 32],
    len: u64,
    changed: bool,
}

enum Mode<'a> {
    Collect,
    Check(Scope<'a>),
    Stage(Scope<'a>, Staging),
}

#[derive(Default)]
struct State {
    files: BTreeMap<String, Put>,
    /// Paths given more than once (an error of the build: [`Sink::problems`]).
    twice: Vec<String>,
    /// [`Sink::collect`]: every file's bytes.
    collected: Outputs,
    /// The first error writing the staging folder; later files are not written.
    error: Option<io::Error>,
    /// [`Sink::stage`]: the `dataHash` in the header of each `data/<Table>.json`, by path (`None`: the header
    /// did not read).
    data_hashes: BTreeMap<String, Option<String>>,
}

/// The destination of a build's outputs (see the module docs). Shared by the threads that render them.
pub struct Sink<'a> {
    dir: PathBuf,
    mode: Mode<'a>,
    state: Mutex<State>,
}

impl Sink<'static> {
    /// A sink that keeps every file in memory ([`Sink::into_outputs`]); it reads and writes nothing.
    pub fn collect() -> Sink<'static> {
        Sink {
            dir: PathBuf::new(),
            mode: Mode::Collect,
            state: Mutex::default(),
        }
    }
}

impl<'a> Sink<'a> {
    /// A sink that compares every file with the generated folder `dir` and writes nothing
    /// ([`Sink::changes`]).
    pub fn check(dir: &Path, scope: Scope<'a>) -> Sink<'a> {
        Sink {
            dir: dir.to_path_buf(),
            mode: Mode::Check(scope),
            state: Mutex::default(),
        }
    }

    /// A sink that writes every changed file into the staging folder of a commit of `dir` as it comes
    /// ([`Sink::finish`] commits). What an earlier, killed build left beside `dir` is completed or removed
    /// first. Dropped without `finish`, it removes what it wrote: `dir` is never touched.
    pub fn stage(dir: &Path, scope: Scope<'a>) -> io::Result<Sink<'a>> {
        Ok(Sink {
            dir: dir.to_path_buf(),
            mode: Mode::Stage(scope, Staging::begin(dir)?),
            state: Mutex::default(),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A thread that panicked while holding the lock left a consistent map (each update is one insert).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Take the output `rel` (relative to the generated folder, `/`-separated) with its content. Never
    /// fails: a write error is kept for [`Sink::finish`], a path given twice for [`Sink::problems`], and a
    /// path gentable may not write ([`crate::naming::files::path_problem`]) is never written (the build
    /// refuses it before the commit).
    pub fn put(&self, rel: &str, bytes: &[u8]) {
        self.put_parts(rel, &[bytes]);
    }

    /// [`Sink::put`] of the content that is `parts` one after the other (a big data file rendered in
    /// chunks is never joined).
    pub fn put_parts(&self, rel: &str, parts: &[&[u8]]) {
        let len = parts.iter().map(|p| p.len() as u64).sum();
        let (scope, staging) = match &self.mode {
            Mode::Collect => {
                let mut s = self.state();
                let put = Put {
                    hash: [0; 32],
                    len,
                    changed: true,
                };
                if s.files.insert(rel.to_string(), put).is_some() {
                    s.twice.push(rel.to_string());
                }
                s.collected.insert(rel.to_string(), parts.concat());
                return;
            }
            Mode::Check(scope) => (scope, None),
            Mode::Stage(scope, staging) => (scope, Some(staging)),
        };
        let mut hasher = blake3::Hasher::new();
        for p in parts {
            hasher.update(p);
        }
        let hash = *hasher.finalize().as_bytes();
        let path = self.dir.join(rel);
        let changed = linked(&self.dir, rel)
            || !unchanged(&path, scope.known.and_then(|k| k.get(rel)), &hash, parts);
        let mut data_hash = None;
        if let Some(staging) = staging {
            if changed
                && crate::naming::files::path_problem(rel).is_none()
                && self.state().error.is_none()
            {
                if let Err(e) = staging.write(rel, parts) {
                    self.state().error.get_or_insert(e);
                }
            }
            if is_table_data(rel) {
                data_hash = Some(header_data_hash(parts));
            }
        }
        self.record(rel, Put { hash, len, changed }, data_hash);
    }

    /// A `Stream` that writes `rel` into the staging folder while it is rendered, when this is a build's
    /// sink ([`Sink::stage`]) and `rel` may be written; `None` otherwise (`build --check`, a collecting sink,
    /// a path gentable may not write, an earlier write error): the caller then renders the file whole and
    /// gives it to [`Sink::put_parts`].
    pub fn stream(&self, rel: &str) -> Option<Stream<'_, 'a>> {
        let Mode::Stage(scope, staging) = &self.mode else {
            return None;
        };
        if crate::naming::files::path_problem(rel).is_some() || self.state().error.is_some() {
            return None;
        }
        match staging.create_file(rel) {
            Ok((file, path)) => Some(Stream {
                sink: self,
                scope: *scope,
                rel: rel.to_string(),
                path,
                file: Some(io::BufWriter::with_capacity(1 << 20, file)),
                len: 0,
            }),
            Err(e) => {
                self.state().error.get_or_insert(e);
                None
            }
        }
    }

    /// Record a file the sink was given (`data_hash`: the `dataHash` of a table's data file).
    fn record(&self, rel: &str, put: Put, data_hash: Option<Option<String>>) {
        let mut s = self.state();
        if s.files.insert(rel.to_string(), put).is_some() {
            s.twice.push(rel.to_string());
        }
        if let Some(h) = data_hash {
            s.data_hashes.insert(rel.to_string(), h);
        }
    }

    /// Every path given so far, in name order.
    pub fn names(&self) -> Vec<String> {
        self.state().files.keys().cloned().collect()
    }

    /// The paths given more than once, in name order (each is an error of the build).
    pub fn problems(&self) -> Vec<String> {
        let mut twice = self.state().twice.clone();
        twice.sort();
        twice.dedup();
        twice
    }

    /// Every file given to a [`Sink::collect`] sink (empty for the others).
    pub fn into_outputs(self) -> Outputs {
        self.state
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .collected
    }

    /// The files given that differ from the generated folder, those it would lose (when the scope is
    /// complete) and the number of unchanged ones.
    pub fn changes(&self) -> Changes {
        let complete = match &self.mode {
            Mode::Collect => true,
            Mode::Check(s) | Mode::Stage(s, _) => s.complete,
        };
        changes_of(&self.dir, &self.state().files, complete)
    }

    /// Commit a [`Sink::stage`] sink: the changed files are already in the staging folder; the files that
    /// stay are carried over and the folders swapped ([`Staging::finish`]), unless nothing changed (then
    /// nothing is touched). The first error writing a file is returned here, and then the generated folder
    /// is unchanged. For the other kinds, the same as [`Sink::changes`].
    pub fn finish(self) -> io::Result<(Changes, Written)> {
        let state = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        let (complete, staging) = match self.mode {
            Mode::Collect => (true, None),
            Mode::Check(s) => (s.complete, None),
            Mode::Stage(s, staging) => (s.complete, Some(staging)),
        };
        if let Some(e) = state.error {
            return Err(e);
        }
        let c = changes_of(&self.dir, &state.files, complete);
        if let Some(staging) = staging {
            if !c.written.is_empty() || !c.removed.is_empty() {
                let written: BTreeSet<&str> = c.written.iter().map(String::as_str).collect();
                let drop: BTreeSet<&str> = c.removed.iter().map(String::as_str).collect();
                staging.finish(&written, &drop)?;
            }
        }
        Ok((
            c,
            Written {
                files: state.files,
                data_hashes: state.data_hashes,
            },
        ))
    }
}

/// What a finished [`Sink`] was given: each file's hash and length (for the manifest) and the `dataHash`
/// of each `data/<Table>.json`.
pub struct Written {
    files: BTreeMap<String, Put>,
    data_hashes: BTreeMap<String, Option<String>>,
}

impl Written {
    /// Whether the output `rel` was given.
    pub fn contains(&self, rel: &str) -> bool {
        self.files.contains_key(rel)
    }

    /// The `dataHash` of the data file `rel` (`data/<Table>.json`): `None` if it was not given, `Some(None)`
    /// if its header does not read.
    pub fn data_hash(&self, rel: &str) -> Option<Option<&str>> {
        self.data_hashes.get(rel).map(Option::as_deref)
    }

    /// The manifest entries of the files, as they are now under `dir`: a status is kept only when it is
    /// settled and has the written length.
    pub fn entries(&self, dir: &Path, now: SystemTime) -> BTreeMap<String, Entry> {
        self.files
            .par_iter()
            .map(|(rel, p)| {
                let stat = Stat::of(&dir.join(rel)).filter(|s| s.settled(now) && s.len == p.len);
                (rel.clone(), Entry { stat, hash: p.hash })
            })
            .collect()
    }
}

/// [`Changes`] of `files` against `dir`.
fn changes_of(dir: &Path, files: &BTreeMap<String, Put>, complete: bool) -> Changes {
    let mut c = Changes::default();
    for (rel, p) in files {
        if p.changed {
            c.written.push(rel.clone());
        } else {
            c.unchanged += 1;
        }
    }
    if complete {
        c.removed = extra_files(dir, files);
    }
    c
}

/// A file written into a build's staging folder while it is rendered ([`Sink::stream`]): a big table's
/// canonical JSON, whose header's `dataHash` is known only after its last row, is never whole in memory
/// (issue 18). [`Stream::finish`] fills in the header and records the file as [`Sink::put_parts`] would:
/// a file equal to the generated folder's is removed from the staging folder again. A write error is kept
/// for [`Sink::finish`], as `put_parts` keeps it.
pub struct Stream<'s, 'a> {
    sink: &'s Sink<'a>,
    scope: Scope<'a>,
    rel: String,
    path: PathBuf,
    /// `None` after a write error.
    file: Option<io::BufWriter<std::fs::File>>,
    len: u64,
}

impl Stream<'_, '_> {
    /// Append `bytes` to the file.
    pub fn write(&mut self, bytes: &[u8]) {
        use std::io::Write as _;
        self.len += bytes.len() as u64;
        if let Some(f) = &mut self.file {
            if let Err(e) = f.write_all(bytes) {
                self.file = None;
                self.sink.state().error.get_or_insert(e);
            }
        }
    }

    /// Overwrite the bytes at `offset` with `patch` (the header's `dataHash`, which must not change the
    /// file's length), complete the file and record it: its BLAKE3 hash (read back from the staging
    /// folder), whether it differs from the generated folder, and `data_hash` for a table's data file.
    pub fn finish(mut self, offset: u64, patch: &[u8], data_hash: Option<String>) {
        let sink = self.sink;
        let generated = sink.dir.join(&self.rel);
        // After a write error (kept for `Sink::finish`) the file is incomplete: recorded as changed.
        let done = self.file.take().map(|file| -> io::Result<[u8; 32]> {
            use std::io::{Seek as _, SeekFrom, Write as _};
            let mut f = file.into_inner().map_err(|e| e.into_error())?;
            f.seek(SeekFrom::Start(offset))?;
            f.write_all(patch)?;
            drop(f);
            hash_file(&self.path)
        });
        let (hash, changed) = match done {
            Some(Ok(hash)) => {
                let same = !linked(&sink.dir, &self.rel)
                    && (known_unchanged(
                        &generated,
                        self.scope.known.and_then(|k| k.get(&self.rel)),
                        &hash,
                    ) || (std::fs::metadata(&generated)
                        .is_ok_and(|m| m.is_file() && m.len() == self.len)
                        && hash_file(&generated).is_ok_and(|h| h == hash)));
                let step = if same {
                    std::fs::remove_file(&self.path)
                } else {
                    super::commit::checkpoint(&format!("wrote {}", self.rel))
                };
                if let Err(e) = step {
                    sink.state().error.get_or_insert(e);
                }
                (hash, !same)
            }
            Some(Err(e)) => {
                sink.state().error.get_or_insert(e);
                ([0; 32], true)
            }
            None => ([0; 32], true),
        };
        let data_hash = is_table_data(&self.rel).then_some(data_hash);
        sink.record(
            &self.rel,
            Put {
                hash,
                len: self.len,
                changed,
            },
            data_hash,
        );
    }
}

/// Whether the output `rel` of `dir` (`generated/`) is reached through a symbolic link: the file itself or a
/// folder on its way. Such an output is never "unchanged" (its content is read through the link, from outside
/// `generated/`): it is written, and the commit puts a real file in the link's place ([`super::commit`]).
pub(crate) fn linked(dir: &Path, rel: &str) -> bool {
    let mut at = dir.to_path_buf();
    rel.split('/').any(|part| {
        at.push(part);
        at.symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
    })
}

/// Whether `path` holds the content `parts` (BLAKE3 `hash`): its status and hash are those `known` recorded,
/// or its bytes are the same (read in blocks, never the whole file at once).
fn unchanged(path: &Path, known: Option<&Entry>, hash: &[u8; 32], parts: &[&[u8]]) -> bool {
    if known_unchanged(path, known, hash) {
        return true;
    }
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let len: u64 = parts.iter().map(|p| p.len() as u64).sum();
    match f.metadata() {
        Ok(m) if m.is_file() && m.len() == len => {}
        _ => return false,
    }
    let mut block = vec![0u8; 64 * 1024];
    // The content not compared yet: the rest of `parts[i]` from `at`, then the parts after it.
    let (mut i, mut at) = (0, 0);
    let next = |i: &mut usize, at: &mut usize| {
        while parts.get(*i).is_some_and(|p| *at == p.len()) {
            *i += 1;
            *at = 0;
        }
    };
    next(&mut i, &mut at);
    loop {
        let n = match f.read(&mut block) {
            // Everything read: equal if no content is left.
            Ok(0) => return i == parts.len(),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        };
        let mut read = &block[..n];
        while !read.is_empty() {
            let Some(part) = parts.get(i) else {
                return false;
            };
            let take = (part.len() - at).min(read.len());
            if part[at..at + take] != read[..take] {
                return false;
            }
            read = &read[take..];
            at += take;
            next(&mut i, &mut at);
        }
    }
}

/// Whether the last manifest's entry for `path` says it holds content of `hash`, and the file's status is
/// the recorded one (so it was not touched since).
fn known_unchanged(path: &Path, known: Option<&Entry>, hash: &[u8; 32]) -> bool {
    known.is_some_and(|e| e.stat.is_some() && e.stat == Stat::of(path) && e.hash == *hash)
}

/// BLAKE3 of the file at `path`, read in blocks.
fn hash_file(path: &Path) -> io::Result<[u8; 32]> {
    let mut h = blake3::Hasher::new();
    h.update_reader(std::fs::File::open(path)?)?;
    Ok(*h.finalize().as_bytes())
}

/// Whether `rel` is a table's data file in the whole project's data folder, `data/<Table>.json`.
fn is_table_data(rel: &str) -> bool {
    rel.strip_prefix("data/")
        .is_some_and(|n| n.ends_with(".json") && !n.contains('/'))
}

/// The `dataHash` in the header (first line) of a JSON data file given as `parts`, if it reads. The header
/// line is short: only the bytes up to the first line end are looked at.
fn header_data_hash(parts: &[&[u8]]) -> Option<String> {
    let mut first = vec![];
    for p in parts {
        match p.iter().position(|b| *b == b'\n') {
            Some(end) => {
                first.extend_from_slice(&p[..end]);
                break;
            }
            None => first.extend_from_slice(p),
        }
    }
    let text = std::str::from_utf8(&first).ok()?;
    crate::emit::data::json::header(text)
        .ok()
        .map(|h| h.data_hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_sink_compares_in_blocks_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("generated");
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.join("data/A.json"), &big).unwrap();
        std::fs::write(dir.join("data/Old.json"), b"x").unwrap();
        let sink = Sink::check(&dir, Scope::default());
        sink.put("data/A.json", &big);
        let mut other = big.clone();
        other[150_000] ^= 1;
        sink.put("data/B.json", &other);
        let c = sink.changes();
        assert_eq!(c.written, vec!["data/B.json".to_string()]);
        assert_eq!(c.removed, vec!["data/Old.json".to_string()]);
        assert_eq!(c.unchanged, 1);
        assert!(!dir.join("data/B.json").exists());
    }

    #[test]
    fn a_stage_sink_dropped_before_finish_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("generated");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), b"old").unwrap();
        {
            let sink = Sink::stage(&dir, Scope::default()).unwrap();
            sink.put("data/A.json", b"new");
            assert!(tmp.path().join(".generated.gentable-new").exists());
        }
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("generated")]);
        assert!(!dir.join("data").exists());
    }

    #[test]
    fn content_in_parts_compares_like_the_joined_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("f");
        let bytes: Vec<u8> = (0..150_000u32).map(|i| (i % 253) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let hash = *blake3::hash(&bytes).as_bytes();
        for cuts in [
            &[][..],
            &[0, 0][..],
            &[1][..],
            &[65_536, 65_537][..],
            &[149_999][..],
        ] {
            let mut parts: Vec<&[u8]> = vec![];
            let mut from = 0;
            for &c in cuts {
                parts.push(&bytes[from..c.max(from)]);
                from = c.max(from);
            }
            parts.push(&bytes[from..]);
            parts.push(&[]);
            assert!(unchanged(&path, None, &hash, &parts), "{cuts:?}");
            let mut other = bytes.clone();
            other[100_000] ^= 1;
            assert!(!unchanged(&path, None, &hash, &[&other[..]]));
            assert!(!unchanged(&path, None, &hash, &[&bytes[..1000]]));
        }
    }

    #[test]
    fn a_streamed_file_is_patched_hashed_and_dropped_again_when_unchanged() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("generated");
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let head = b"{\"gentable\":{\"dataHash\":\"0000\"},\"rows\":[\n";
        let rows: Vec<u8> = (0..300_000u32)
            .flat_map(|i| format!("{i},\n").into_bytes())
            .collect();
        let mut whole = head.to_vec();
        whole.extend_from_slice(&rows);
        whole[25..29].copy_from_slice(b"abcd");
        std::fs::write(dir.join("data/A.json"), &whole).unwrap();
        let sink = Sink::stage(&dir, Scope::default()).unwrap();
        let staged = tmp.path().join(".generated.gentable-new");
        for name in ["A", "B"] {
            let mut s = sink.stream(&format!("data/{name}.json")).unwrap();
            s.write(head);
            for part in rows.chunks(70_000) {
                s.write(part);
            }
            s.finish(25, b"abcd", Some("abcd".to_string()));
        }
        // A equals the generated folder's file: its staged copy is gone again; B is new.
        assert!(!staged.join("data/A.json").exists());
        assert_eq!(std::fs::read(staged.join("data/B.json")).unwrap(), whole);
        let (c, w) = sink.finish().unwrap();
        assert_eq!(c.written, vec!["data/B.json".to_string()]);
        assert_eq!(c.unchanged, 1);
        let hash = *blake3::hash(&whole).as_bytes();
        for name in ["data/A.json", "data/B.json"] {
            assert_eq!(std::fs::read(dir.join(name)).unwrap(), whole, "{name}");
            assert_eq!(w.files[name].hash, hash, "{name}");
            assert_eq!(w.files[name].len, whole.len() as u64, "{name}");
            assert_eq!(w.data_hashes[name].as_deref(), Some("abcd"), "{name}");
        }
        // Only a build's sink streams.
        assert!(Sink::collect().stream("data/A.json").is_none());
        assert!(Sink::check(&dir, Scope::default())
            .stream("data/A.json")
            .is_none());
    }

    #[test]
    fn a_path_given_twice_is_a_problem() {
        let sink = Sink::collect();
        sink.put("a", b"1");
        sink.put("a", b"2");
        assert_eq!(sink.problems(), vec!["a".to_string()]);
    }
}
