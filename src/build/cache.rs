//! The incremental cache in `.gentable-cache/` next to `gentable.toml` (git-ignored; docs/performance.md).
//!
//! Two layers, both keyed by BLAKE3 content hashes and the gentable version, both verified before use:
//!
//! 1. **Read cache** (`read/<key>.bin`): the raw tables ([`RawTable`]) read from one source file. The key is
//!    the hash of the file's bytes, its path, the reading overrides of `gentable.toml` (`files`, `sheets`,
//!    `encoding`, `delimiter` of every table: they decide which table a source belongs to and how it is
//!    decoded) and the gentable version. Only reads without diagnostics are cached. A one-table edit re-reads
//!    only that table's file.
//! 2. **Manifest** (`manifest.bin`): after a successful build with no diagnostics at all, the hash and file
//!    status (size, mtime, ctime, inode) of every input (the project file, every table file, every schema
//!    file, template overrides) and of every output file. A later build whose inputs and outputs all still
//!    match does nothing else ([`crate::build::Plan::UpToDate`]). A file whose status differs is hashed again;
//!    statuses recorded within [`RACY`] of the moment they were taken are never trusted (the file could change
//!    again within the file system's timestamp granularity), so such files are always hashed.
//!
//! Every cache file starts with a magic number, the format version and the gentable version, and carries the
//! BLAKE3 hash of its payload; a file that is truncated, garbage, from another version or fails to decode is
//! ignored (and overwritten), never trusted. The cache can only skip work whose result it has verified to be
//! unchanged, so a cached build writes exactly what a clean build writes (tests/cache.rs).

use crate::config::Loaded;
use crate::read::{Merge, RawCell, RawRow, RawTable};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// Folder of the cache, relative to the project root.
pub const DIR: &str = ".gentable-cache";
const MAGIC: &[u8; 8] = b"GTCACHE\0";
/// Bumped whenever an encoding below changes.
const FORMAT: u32 = 5;
/// The gentable version and build id (a hash of gentable's own sources, `build.rs`): a cache written by any
/// other build of gentable is never trusted.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("GENTABLE_BUILD_ID"));
/// A file status taken less than this after the file's modification time is not trusted.
pub const RACY: Duration = Duration::from_millis(100);

/// The cache of one project (or a disabled one: every lookup misses, nothing is written).
pub struct Cache {
    dir: Option<PathBuf>,
    /// Read-cache keys used by this build (others are removed after a successful build).
    used: Mutex<Vec<String>>,
}

impl Cache {
    /// The cache of `loaded`'s project; `enabled = false` (`--no-cache`) gives [`Cache::disabled`].
    pub fn new(loaded: &Loaded, enabled: bool) -> Cache {
        Cache {
            dir: enabled.then(|| loaded.root.join(DIR)),
            used: Mutex::new(vec![]),
        }
    }
    /// A cache that never hits and never writes.
    pub fn disabled() -> Cache {
        Cache {
            dir: None,
            used: Mutex::new(vec![]),
        }
    }
    pub fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    fn read_path(&self, key: &str) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join("read").join(format!("{key}.bin")))
    }

    /// The raw tables cached under `key`, if a valid entry exists.
    pub fn get_read(&self, key: &str) -> Option<Vec<RawTable>> {
        let path = self.read_path(key)?;
        self.used.lock().ok()?.push(key.to_string());
        let bytes = std::fs::read(path).ok()?;
        let mut d = Dec { b: open(&bytes)? };
        // The entry names its own key: an intact entry copied under another key is not trusted either.
        if d.str()? != key {
            return None;
        }
        decode_tables(&mut d)
    }

    /// Store `tables` under `key` (errors are ignored: the cache is an optimisation).
    pub fn put_read(&self, key: &str, tables: &[RawTable]) {
        let Some(path) = self.read_path(key) else {
            return;
        };
        if let Ok(mut u) = self.used.lock() {
            u.push(key.to_string());
        }
        let mut e = Enc::default();
        e.str(key);
        encode_tables(&mut e, tables);
        let _ = write_atomic(&path, &seal(&e.0));
    }

    /// Remove read-cache entries this build did not use (after a successful build).
    pub fn prune(&self) {
        let (Some(dir), Ok(used)) = (&self.dir, self.used.lock()) else {
            return;
        };
        let used: std::collections::HashSet<&str> = used.iter().map(String::as_str).collect();
        let Ok(rd) = std::fs::read_dir(dir.join("read")) else {
            return;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let key = name.strip_suffix(".bin").unwrap_or(&name);
            if !used.contains(key) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    fn manifest_path(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join("manifest.bin"))
    }

    /// The manifest of the last successful build, if valid.
    pub fn manifest(&self) -> Option<Manifest> {
        let bytes = std::fs::read(self.manifest_path()?).ok()?;
        Manifest::decode(open(&bytes)?)
    }

    /// Record `m` (or remove the manifest: `None`).
    pub fn set_manifest(&self, m: Option<&Manifest>) {
        let Some(path) = self.manifest_path() else {
            return;
        };
        match m {
            Some(m) => {
                let _ = write_atomic(&path, &seal(&m.encode()));
            }
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// The read-cache key of a source file: its bytes' hash, its paths, the reading overrides and the version.
pub fn read_key(loaded: &Loaded, rel: &str, rel_in_folder: &str, content: &blake3::Hash) -> String {
    let mut h = blake3::Hasher::new();
    h.update(MAGIC);
    h.update(&FORMAT.to_le_bytes());
    h.update(VERSION.as_bytes());
    for s in [rel, rel_in_folder] {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    }
    h.update(content.as_bytes());
    h.update(read_overrides(loaded).as_bytes());
    h.finalize().to_hex().to_string()
}

/// The parts of the project file that reading a workbook depends on, as stable text: which table each sheet
/// belongs to (`[tables]` `files`, `sheets`, `shared_sources`, `[project] selected_only`), how it decodes
/// (`encoding`, `delimiter`) and the `[limits]` the reader enforces (a cached read must not skip a limit
/// that a clean build would report).
fn read_overrides(loaded: &Loaded) -> String {
    let mut s = format!(
        "selected_only:{:?};limits:{:?};",
        loaded.config.project.selected_only, loaded.config.limits
    );
    for (name, o) in &loaded.config.tables {
        s.push_str(&format!(
            "{name:?}:{:?}{:?}{:?}{:?}{:?};",
            o.files, o.sheets, o.encoding, o.delimiter, o.shared_sources
        ));
    }
    s
}

// ---------------------------------------------------------------------------------------------------------
// Sealed files: MAGIC, FORMAT, version, payload length, BLAKE3(payload), payload.

fn seal(payload: &[u8]) -> Vec<u8> {
    let v = VERSION.as_bytes();
    let mut out = Vec::with_capacity(payload.len() + 64 + v.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&(v.len() as u32).to_le_bytes());
    out.extend_from_slice(v);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(blake3::hash(payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

/// The payload of a sealed file, or `None` if anything about it is off.
fn open(bytes: &[u8]) -> Option<&[u8]> {
    let mut d = Dec { b: bytes };
    if d.take(8)? != MAGIC || d.u32()? != FORMAT {
        return None;
    }
    let vlen = d.u32()? as usize;
    if d.take(vlen)? != VERSION.as_bytes() {
        return None;
    }
    let len = d.u64()? as usize;
    let hash: [u8; 32] = d.take(32)?.try_into().ok()?;
    let payload = d.take(len)?;
    if !d.b.is_empty() || blake3::hash(payload) != blake3::Hash::from_bytes(hash) {
        return None;
    }
    Some(payload)
}

/// Write through a temporary sibling and a rename, so a reader never sees half a file.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[derive(Default)]
struct Enc(Vec<u8>);

impl Enc {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// Small unsigned integers in LEB128.
    fn var(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(b);
                return;
            }
            self.0.push(b | 0x80);
        }
    }
    fn str(&mut self, s: &str) {
        self.var(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
        }
    }
}

struct Dec<'a> {
    b: &'a [u8],
}

impl<'a> Dec<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.b.len() < n {
            return None;
        }
        let (a, rest) = self.b.split_at(n);
        self.b = rest;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn var(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    fn len(&mut self) -> Option<usize> {
        let n = self.var()? as usize;
        // A length can never exceed what is left: guards allocations against garbage.
        (n <= self.b.len()).then_some(n)
    }
    fn str(&mut self) -> Option<String> {
        let n = self.len()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
    fn opt_str(&mut self) -> Option<Option<String>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.str()?)),
            _ => None,
        }
    }
}

fn encode_tables(e: &mut Enc, tables: &[RawTable]) {
    e.var(tables.len() as u64);
    for t in tables {
        e.str(&t.name);
        e.str(&t.file);
        e.opt_str(t.sheet.as_deref());
        e.var(t.merges.len() as u64);
        for m in &t.merges {
            for v in [m.rows.0, m.rows.1, m.cols.0, m.cols.1] {
                e.var(v as u64);
            }
        }
        for list in [&t.hidden_rows, &t.hidden_cols] {
            e.var(list.len() as u64);
            for v in list {
                e.var(*v as u64);
            }
        }
        e.var(t.rows.len() as u64);
        for r in &t.rows {
            e.var(r.row as u64);
            e.var(r.cells.len() as u64);
            for c in &r.cells {
                match c {
                    RawCell::Empty => e.u8(0),
                    RawCell::Text(s) => {
                        e.u8(1);
                        e.str(s);
                    }
                    RawCell::Int(i) => {
                        e.u8(2);
                        e.u64(*i as u64);
                    }
                    RawCell::Float(f) => {
                        e.u8(3);
                        e.u64(f.to_bits());
                    }
                    RawCell::Bool(b) => e.u8(if *b { 5 } else { 4 }),
                    RawCell::Error(s) => {
                        e.u8(6);
                        e.str(s);
                    }
                    RawCell::DateTime(s) => {
                        e.u8(7);
                        e.str(s);
                    }
                    RawCell::Undecodable(s) => {
                        e.u8(8);
                        e.str(s);
                    }
                    RawCell::Serial(sr) => {
                        e.u8(9);
                        e.u64(sr.value.to_bits());
                        e.u8(sr.date1904 as u8 | (sr.duration as u8) << 1);
                    }
                    RawCell::Formatted(f) => {
                        e.u8(10);
                        e.u64(f.value.to_bits());
                        e.opt_str(f.shown.as_deref());
                        e.str(&f.format);
                    }
                    RawCell::NoResult(u) => {
                        e.u8(11);
                        e.str(&u.formula);
                        e.opt_str(u.placeholder.as_deref());
                    }
                }
            }
        }
    }
}

fn decode_tables(d: &mut Dec) -> Option<Vec<RawTable>> {
    let n = d.len()?;
    let mut tables = Vec::with_capacity(n);
    for _ in 0..n {
        let name = d.str()?;
        let file = d.str()?;
        let sheet = d.opt_str()?;
        let nm = d.len()?;
        let mut merges = Vec::with_capacity(nm);
        for _ in 0..nm {
            let v = [d.var()?, d.var()?, d.var()?, d.var()?].map(|x| x as usize);
            merges.push(Merge {
                rows: (v[0], v[1]),
                cols: (v[2], v[3]),
            });
        }
        let mut hidden = [vec![], vec![]];
        for list in &mut hidden {
            let n = d.len()?;
            for _ in 0..n {
                list.push(d.var()? as usize);
            }
        }
        let [hidden_rows, hidden_cols] = hidden;
        let nr = d.len()?;
        let mut rows = Vec::with_capacity(nr);
        for _ in 0..nr {
            let row = d.var()? as usize;
            let nc = d.len()?;
            let mut cells = Vec::with_capacity(nc);
            for _ in 0..nc {
                cells.push(match d.u8()? {
                    0 => RawCell::Empty,
                    1 => RawCell::Text(d.str()?.into()),
                    2 => RawCell::Int(d.u64()? as i64),
                    3 => RawCell::Float(f64::from_bits(d.u64()?)),
                    4 => RawCell::Bool(false),
                    5 => RawCell::Bool(true),
                    6 => RawCell::Error(d.str()?),
                    7 => RawCell::DateTime(d.str()?),
                    8 => RawCell::Undecodable(d.str()?),
                    9 => {
                        let value = f64::from_bits(d.u64()?);
                        let flags = d.u8()?;
                        RawCell::Serial(crate::read::raw::Serial {
                            value,
                            date1904: flags & 1 != 0,
                            duration: flags & 2 != 0,
                        })
                    }
                    10 => RawCell::Formatted(Box::new(crate::read::raw::Formatted {
                        value: f64::from_bits(d.u64()?),
                        shown: d.opt_str()?,
                        format: d.str()?,
                    })),
                    11 => RawCell::NoResult(Box::new(crate::read::raw::Uncalculated {
                        formula: d.str()?,
                        placeholder: d.opt_str()?,
                    })),
                    _ => return None,
                });
            }
            rows.push(RawRow { row, cells });
        }
        tables.push(RawTable {
            name,
            file: file.into(),
            sheet: sheet.map(Into::into),
            rows,
            merges,
            hidden_rows,
            hidden_cols,
            // A source that could not be read comes with its diagnostic, and reads with diagnostics are
            // never cached.
            unread: false,
        });
    }
    d.b.is_empty().then_some(tables)
}

// ---------------------------------------------------------------------------------------------------------
// The manifest.

/// What the file system says about a file, cheaply (no read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Stat {
    pub len: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub ino: u64,
}

impl Stat {
    pub fn of(path: &Path) -> Option<Stat> {
        let m = std::fs::metadata(path).ok()?;
        if !m.is_file() {
            return None;
        }
        let ns = |t: SystemTime| match t.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        };
        #[cfg(unix)]
        let (ctime_ns, ino) = {
            use std::os::unix::fs::MetadataExt;
            (
                m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
                m.ino(),
            )
        };
        #[cfg(not(unix))]
        let (ctime_ns, ino) = (0, 0);
        Some(Stat {
            len: m.len(),
            mtime_ns: m.modified().map(ns).unwrap_or(0),
            ctime_ns,
            ino,
        })
    }
    /// Whether this status may be trusted later: taken at least [`RACY`] after the last change.
    pub fn settled(&self, now: SystemTime) -> bool {
        let now_ns = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos() as i128)
            .unwrap_or(0);
        let last = self.mtime_ns.max(self.ctime_ns);
        now_ns - last >= RACY.as_nanos() as i128
    }
}

/// One recorded file: its status when recorded (`None`: not trusted, hash it) and its content hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub stat: Option<Stat>,
    pub hash: [u8; 32],
}

impl Entry {
    /// An entry for `path` holding `content`, whose status is trusted only if settled.
    pub fn new(path: &Path, content: &[u8], now: SystemTime) -> Entry {
        Entry {
            stat: Stat::of(path).filter(|s| s.settled(now) && s.len == content.len() as u64),
            hash: *blake3::hash(content).as_bytes(),
        }
    }
    /// True if `path` still holds the recorded content (status first, then the bytes' hash).
    pub fn matches(&self, path: &Path) -> bool {
        self.check(path, SystemTime::now()).is_some()
    }
    /// [`Entry::matches`]: `None` if the content differs; `Some(None)` if the recorded status matched;
    /// `Some(Some(entry))` if the bytes had to be hashed: `entry` is this one with the status as of now (when
    /// settled), for the manifest to record so that the next check is cheap.
    pub fn check(&self, path: &Path, now: SystemTime) -> Option<Option<Entry>> {
        let stat = Stat::of(path)?;
        if self.stat == Some(stat) {
            return Some(None);
        }
        // Streamed: a generated file can be hundreds of megabytes.
        let mut h = blake3::Hasher::new();
        h.update_reader(std::fs::File::open(path).ok()?).ok()?;
        let len = h.count();
        (h.finalize().as_bytes() == &self.hash).then(|| {
            Some(Entry {
                stat: Some(stat).filter(|s| s.settled(now) && s.len == len),
                hash: self.hash,
            })
        })
    }
}

/// The inputs and outputs of the last successful build without diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Hash of the build settings that are not files (version, generated folder, …).
    pub settings: [u8; 32],
    /// Input files by path relative to the project root (`/`-separated; the project file included).
    pub inputs: BTreeMap<String, Entry>,
    /// Output files by path relative to the generated folder.
    pub outputs: BTreeMap<String, Entry>,
    /// Number of tables (for the summary line).
    pub tables: u64,
    /// Per table, what a one-table rebuild needs ([`crate::build::plan`]); empty when the project cannot be
    /// rebuilt table by table.
    pub table_records: Vec<TableRecord>,
}

/// One table of a recorded build: where it came from and what other tables may depend on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableRecord {
    pub name: String,
    /// Input files (keys of [`Manifest::inputs`]) that provide the table's rows.
    pub sources: Vec<String>,
    /// [`crate::validate::foreign_keys::key_digests`]: the values other tables' foreign keys may reference.
    pub keys: [u8; 32],
    /// BLAKE3 of the table's canonical data (the `dataHash` of `data/<Table>.json`, see
    /// [`crate::emit::data::json`]), recorded with the build's outputs: a one-table rebuild hashes the other
    /// tables' data into the content hash from it.
    pub data: [u8; 32],
    /// The other tables its checks read: targets of its foreign keys ([`crate::build::plan::references`]).
    pub references: Vec<String>,
}

impl Manifest {
    fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.0.extend_from_slice(&self.settings);
        e.u64(self.tables);
        e.var(self.table_records.len() as u64);
        for r in &self.table_records {
            e.str(&r.name);
            e.var(r.sources.len() as u64);
            for s in &r.sources {
                e.str(s);
            }
            e.0.extend_from_slice(&r.keys);
            e.0.extend_from_slice(&r.data);
            e.var(r.references.len() as u64);
            for t in &r.references {
                e.str(t);
            }
        }
        for map in [&self.inputs, &self.outputs] {
            e.var(map.len() as u64);
            for (k, v) in map {
                e.str(k);
                e.0.extend_from_slice(&v.hash);
                match &v.stat {
                    None => e.u8(0),
                    Some(s) => {
                        e.u8(1);
                        e.u64(s.len);
                        e.0.extend_from_slice(&s.mtime_ns.to_le_bytes());
                        e.0.extend_from_slice(&s.ctime_ns.to_le_bytes());
                        e.u64(s.ino);
                    }
                }
            }
        }
        e.0
    }

    fn decode(b: &[u8]) -> Option<Manifest> {
        let mut d = Dec { b };
        let settings: [u8; 32] = d.take(32)?.try_into().ok()?;
        let tables = d.u64()?;
        let n = d.len()?;
        let mut table_records = Vec::with_capacity(n);
        for _ in 0..n {
            let name = d.str()?;
            let k = d.len()?;
            let sources = (0..k).map(|_| d.str()).collect::<Option<Vec<_>>>()?;
            let keys: [u8; 32] = d.take(32)?.try_into().ok()?;
            let data: [u8; 32] = d.take(32)?.try_into().ok()?;
            let k = d.len()?;
            let references = (0..k).map(|_| d.str()).collect::<Option<Vec<_>>>()?;
            table_records.push(TableRecord {
                name,
                sources,
                keys,
                data,
                references,
            });
        }
        let mut maps = vec![];
        for _ in 0..2 {
            let n = d.len()?;
            let mut map = BTreeMap::new();
            for _ in 0..n {
                let k = d.str()?;
                let hash: [u8; 32] = d.take(32)?.try_into().ok()?;
                let stat = match d.u8()? {
                    0 => None,
                    1 => Some(Stat {
                        len: d.u64()?,
                        mtime_ns: i128::from_le_bytes(d.take(16)?.try_into().ok()?),
                        ctime_ns: i128::from_le_bytes(d.take(16)?.try_into().ok()?),
                        ino: d.u64()?,
                    }),
                    _ => return None,
                };
                map.insert(k, Entry { stat, hash });
            }
            maps.push(map);
        }
        let outputs = maps.pop()?;
        let inputs = maps.pop()?;
        d.b.is_empty().then_some(Manifest {
            settings,
            inputs,
            outputs,
            tables,
            table_records,
        })
    }
}

/// Hash of build settings besides the input files (part of every manifest).
pub fn settings_hash(loaded: &Loaded) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(VERSION.as_bytes());
    h.update(&FORMAT.to_le_bytes());
    // As written in the project file: the same project reached through another path has the same settings.
    h.update(loaded.config.project.generated.to_string_lossy().as_bytes());
    *h.finalize().as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<RawTable> {
        vec![RawTable {
            name: "T".into(),
            file: "Table/T.xlsx".into(),
            sheet: Some("T".into()),
            rows: vec![RawRow {
                row: 3,
                cells: vec![
                    RawCell::Empty,
                    RawCell::Text("战机|1".into()),
                    RawCell::Int(-5),
                    RawCell::Float(-0.0),
                    RawCell::Bool(true),
                    RawCell::Error("#N/A".into()),
                    RawCell::DateTime("2024-05-01T12:00:00".into()),
                    RawCell::Undecodable("\\xD5".into()),
                    RawCell::Serial(crate::read::raw::Serial {
                        value: 45000.5,
                        date1904: true,
                        duration: false,
                    }),
                    RawCell::Formatted(Box::new(crate::read::raw::Formatted {
                        value: 7.0,
                        shown: Some("007".into()),
                        format: "000".into(),
                    })),
                    RawCell::NoResult(Box::new(crate::read::raw::Uncalculated {
                        formula: "A3*2".into(),
                        placeholder: Some("0".into()),
                    })),
                ],
            }],
            merges: vec![Merge {
                rows: (1, 1),
                cols: (2, 5),
            }],
            hidden_rows: vec![3, 9],
            hidden_cols: vec![1],
            unread: false,
        }]
    }

    #[test]
    fn raw_tables_round_trip_and_damage_is_rejected() {
        let mut e = Enc::default();
        encode_tables(&mut e, &sample());
        let sealed = seal(&e.0);
        let back = decode_tables(&mut Dec {
            b: open(&sealed).unwrap(),
        })
        .unwrap();
        assert_eq!(format!("{back:?}"), format!("{:?}", sample()));
        // Every truncation and every single flipped byte is detected.
        for n in 0..sealed.len() {
            assert!(open(&sealed[..n]).is_none());
            let mut bad = sealed.clone();
            bad[n] ^= 0x40;
            assert!(open(&bad).is_none(), "byte {n}");
        }
    }

    #[test]
    fn manifest_round_trip() {
        let mut m = Manifest {
            tables: 3,
            ..Default::default()
        };
        m.inputs.insert(
            "Table/A.csv".into(),
            Entry {
                stat: Some(Stat {
                    len: 4,
                    mtime_ns: -1,
                    ctime_ns: 1 << 70,
                    ino: 9,
                }),
                hash: [7; 32],
            },
        );
        m.outputs.insert(
            "data/A.json".into(),
            Entry {
                stat: None,
                hash: [1; 32],
            },
        );
        assert_eq!(Manifest::decode(&m.encode()), Some(m));
    }
}
