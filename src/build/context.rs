//! What one build run carries besides the project: the incremental cache, the progress bar, stage timings
//! (`GENTABLE_TIMINGS=1`) and the input files seen (for the manifest).

use super::cache::{Cache, Entry};
use crate::config::Loaded;
use crate::ir::Project;
use crate::read::RawTable;
use crate::schema::TableSchema;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// The state of one build run (see the module docs).
pub struct Context {
    pub cache: Cache,
    progress: Option<indicatif::ProgressBar>,
    timings: bool,
    started: Instant,
    /// The project file (an input of the manifest), if known.
    pub(crate) config_path: Option<PathBuf>,
    /// The project root: manifest keys are input paths relative to it ([`Context::input_key`]).
    root: PathBuf,
    /// Input files seen by this build: manifest key → entry.
    pub(crate) inputs: Mutex<BTreeMap<String, Entry>>,
    /// Set for [`super::inspect`]: what the stages leave here for the designer's tools.
    pub(crate) kept: Option<Mutex<Kept>>,
}

/// What a run keeps for the designer's tools ([`super::inspect`]): the raw sources as read and the typed
/// project as far as the stages got, also when the build fails.
#[derive(Default)]
pub(crate) struct Kept {
    pub(crate) raw: Vec<RawTable>,
    pub(crate) project: Option<Project>,
    pub(crate) schemas: Vec<TableSchema>,
}

impl Context {
    /// No cache, no progress (library use and tests).
    pub fn plain() -> Context {
        Context {
            cache: Cache::disabled(),
            progress: None,
            timings: timings(),
            started: Instant::now(),
            config_path: None,
            root: PathBuf::new(),
            inputs: Mutex::new(BTreeMap::new()),
            kept: None,
        }
    }

    /// No cache, no progress, and the raw sources and typed tables kept ([`Context::keep`]).
    pub(crate) fn keeping() -> Context {
        Context {
            kept: Some(Mutex::new(Kept::default())),
            ..Context::plain()
        }
    }

    /// Leave something for the designer's tools: `f` runs only when this run keeps ([`Context::keeping`]), so
    /// a build pays nothing for it.
    pub(crate) fn keep(&self, f: impl FnOnce(&mut Kept)) {
        if let Some(Ok(mut k)) = self.kept.as_ref().map(|k| k.lock()) {
            f(&mut k);
        }
    }

    /// The context of a command-line build of the project read from `config_path`: the cache when `cache`,
    /// and a progress bar when `progress`.
    pub fn new(loaded: &Loaded, config_path: &Path, cache: bool, progress: bool) -> Context {
        let bar = progress.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr_with_hz(10),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} {msg:12} [{bar:30}] {pos}/{len} ({elapsed})",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar
        });
        Context {
            cache: Cache::new(loaded, cache),
            progress: bar,
            config_path: Some(config_path.to_path_buf()),
            root: loaded.root.clone(),
            ..Context::plain()
        }
    }

    /// Whether a terminal progress bar should be shown: stderr is a terminal, `CI` is unset, not quiet.
    pub fn wants_progress(quiet: bool) -> bool {
        use std::io::IsTerminal;
        !quiet && std::env::var_os("CI").is_none() && std::io::stderr().is_terminal()
    }

    /// Start a stage of `len` steps (0: a spinner); with timings on, print the time and memory so far.
    pub(crate) fn stage(&self, name: &str, len: usize) {
        if self.timings {
            eprintln!(
                "gentable: [{:>8.1} ms] {name}{}",
                self.started.elapsed().as_secs_f64() * 1e3,
                memory()
            );
        }
        if let Some(b) = &self.progress {
            b.set_message(name.to_string());
            b.set_length(len as u64);
            b.set_position(0);
        }
    }

    /// One step of the current stage done.
    pub(crate) fn tick(&self) {
        if let Some(b) = &self.progress {
            b.inc(1);
        }
    }

    /// With timings on, print a note (tests/cache.rs looks for the one-table rebuild's).
    pub(crate) fn note(&self, text: &str) {
        if self.timings {
            eprintln!("gentable: {text}");
        }
    }

    /// Clear the progress bar (before the summary line).
    pub fn finish(&self) {
        if let Some(b) = &self.progress {
            b.finish_and_clear();
        }
        if self.timings {
            eprintln!(
                "gentable: [{:>8.1} ms] done{}",
                self.started.elapsed().as_secs_f64() * 1e3,
                memory()
            );
        }
    }

    /// The manifest key of an input file: its path relative to the project root, `/`-separated, so that the
    /// same project reached through another spelling of its path (`-c gentable.toml`, an absolute path) is
    /// still recognised.
    pub(crate) fn input_key(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// The file of a manifest key ([`Context::input_key`]).
    pub(crate) fn input_path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    /// Record an input file of this build (for the manifest).
    pub(crate) fn record_input(&self, path: &Path, entry: Entry) {
        if let Ok(mut m) = self.inputs.lock() {
            m.insert(self.input_key(path), entry);
        }
    }
}

fn timings() -> bool {
    std::env::var_os("GENTABLE_TIMINGS").is_some()
}

/// For `GENTABLE_TIMINGS`: the process's resident and peak resident memory (`VmRSS`, `VmHWM` of
/// `/proc/self/status`, Linux), or nothing where that is not available.
fn memory() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(hwm)) => format!(" (rss {} MB, peak {} MB)", rss / 1024, hwm / 1024),
        _ => String::new(),
    }
}
