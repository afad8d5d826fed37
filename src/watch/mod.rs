//! **watch/** owns `gentable watch`: rebuild on every save, through the one build driver
//! ([`crate::build::run`] and its plan: a no-op, a one-table rebuild or a full build, with the read cache). It
//! may import every stage; only the command line imports it.
//!
//! The loop (docs/designer.md "Watch"):
//! 1. a build when it starts, then one after every batch of relevant file events: the table folders
//!    (recursive), the schema folder, the project file and the template folders are watched with `notify`,
//!    and events are debounced (`notify-debouncer-full`: one batch once the files were quiet for
//!    [`WatchRequest::debounce`]);
//! 2. events that cannot change the build are ignored: Excel's `~$` lock files, LibreOffice's `.~lock…#`,
//!    hidden files, the build's own `*.gentable-tmp` files and everything under `generated/` and
//!    `.gentable-cache/`. A save by rename (Excel writes a temporary file and renames it over the workbook)
//!    is an event on the workbook;
//! 3. before building, each changed file must be *settled*: its length and modification time unchanged over
//!    [`SETTLE`]. A build that still finds a changed file unreadable (a workbook that is mid-save is not a
//!    valid zip yet) is retried a few times before its error is shown;
//! 4. a one-screen summary: what changed, the diagnostics (capped per code and file), what was rebuilt and
//!    written, and how long it took. A failed build changes nothing under `generated/` (the driver never
//!    writes after an error) and the loop goes on;
//! 5. a change of the project file reloads it and the watched folders;
//! 6. [`Stopper::stop`] (Ctrl-C in the command line) ends the loop after the build that is running, if any,
//!    so a build's write is never cut short.

use crate::build::{self, Outcome, Ran, Request};
use crate::config::Loaded;
use crate::diag::lang::{frame, Lang};
use crate::diag::{Code, Severity};
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant, SystemTime};

/// How long a changed file's length and modification time must stay the same before it is read.
pub const SETTLE: Duration = Duration::from_millis(150);

/// How often a build that found a just-changed file unreadable is tried again (a workbook mid-save).
const RETRIES: usize = 4;

/// One `gentable watch`.
#[derive(Clone, Debug)]
pub struct WatchRequest {
    /// The build run on every change (its `action` is [`build::Action::Build`]).
    pub build: Request,
    /// Quiet time after the last event of a batch before it is built (default 300 ms).
    pub debounce: Duration,
    /// Clear the terminal before each summary (the command line does when standard error is a terminal).
    pub clear: bool,
}

enum Msg {
    /// Paths named by a batch of debounced events.
    Changed(Vec<PathBuf>),
    /// The watcher reported an error (a folder vanished, too many watches).
    Error(String),
    Stop,
}

/// A handle that ends a running [`Watch`] (from another thread, e.g. a Ctrl-C handler).
#[derive(Clone)]
pub struct Stopper(Sender<Msg>);

impl Stopper {
    /// End the watch after the build that is running, if any.
    pub fn stop(&self) {
        let _ = self.0.send(Msg::Stop);
    }
}

/// A watch loop, made before it runs so that a [`Stopper`] can be handed out first.
pub struct Watch {
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
}

impl Default for Watch {
    fn default() -> Self {
        Watch::new()
    }
}

/// What is watched for one configuration: folders and how.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Targets {
    /// The project file (absolute).
    config: PathBuf,
    /// Table folders (recursive).
    tables: Vec<PathBuf>,
    /// The schema folder.
    schemas: Option<PathBuf>,
    /// Template folders (recursive).
    templates: Vec<PathBuf>,
    /// Folders whose events never count: the generated folder and the cache.
    ignored: Vec<PathBuf>,
}

impl Targets {
    /// The targets of the project file `config` (`loaded`: its configuration, if it loads).
    fn of(config: &Path, loaded: Option<&Loaded>) -> Targets {
        let abs = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let config = abs(config);
        let Some(l) = loaded else {
            return Targets {
                config,
                ..Default::default()
            };
        };
        let c = &l.config;
        Targets {
            config,
            tables: c
                .project
                .tables
                .iter()
                .map(|t| abs(&l.root.join(t)))
                .collect(),
            schemas: Some(abs(&l.schema_dir())),
            templates: [&c.csharp.templates, &c.typescript.templates]
                .into_iter()
                .flatten()
                .map(|t| abs(&l.root.join(t)))
                .collect(),
            ignored: vec![
                abs(&l.generated_dir()),
                abs(&l.root.join(".gentable-cache")),
            ],
        }
    }

    /// `(folder, recursive)` to give the watcher.
    fn folders(&self) -> Vec<(PathBuf, bool)> {
        let mut out: Vec<(PathBuf, bool)> = vec![];
        if let Some(p) = self.config.parent() {
            out.push((p.to_path_buf(), false));
        }
        out.extend(self.tables.iter().map(|t| (t.clone(), true)));
        out.extend(self.schemas.iter().map(|s| (s.clone(), false)));
        out.extend(self.templates.iter().map(|t| (t.clone(), true)));
        out.sort();
        out.dedup();
        out
    }

    /// Whether an event on `p` can change the build (see the module docs).
    fn relevant(&self, p: &Path) -> bool {
        if p == self.config {
            return true;
        }
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        if name.starts_with("~$") || name.starts_with('.') || name.ends_with(".gentable-tmp") {
            return false;
        }
        if self.ignored.iter().any(|i| p.starts_with(i)) {
            return false;
        }
        let ext = p
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if self
            .schemas
            .as_ref()
            .is_some_and(|s| p.parent() == Some(s.as_path()))
            && ext == "json"
        {
            return true;
        }
        if self.templates.iter().any(|t| p.starts_with(t)) {
            return true;
        }
        let table_file = ["csv", "tsv", "txt"].contains(&ext.as_str())
            || crate::read::WORKBOOK_EXT.contains(&ext.as_str());
        table_file && self.tables.iter().any(|t| p.starts_with(t))
    }
}

impl Watch {
    pub fn new() -> Watch {
        let (tx, rx) = channel();
        Watch { tx, rx }
    }

    /// A handle that ends this watch.
    pub fn stopper(&self) -> Stopper {
        Stopper(self.tx.clone())
    }

    /// Build, then rebuild on every relevant change until stopped (see the module docs), writing the summaries
    /// to `out`. The exit code: 0 when stopped, 2 when the watcher cannot start.
    pub fn run(self, req: &WatchRequest, out: &mut dyn Write) -> u8 {
        let tx = self.tx.clone();
        let debouncer = notify_debouncer_full::new_debouncer(
            req.debounce,
            None,
            move |r: notify_debouncer_full::DebounceEventResult| {
                let _ = match r {
                    Ok(events) => tx.send(Msg::Changed(
                        events
                            .into_iter()
                            .filter(|e| changes_content(&e.event.kind))
                            .flat_map(|e| e.event.paths)
                            .collect(),
                    )),
                    Err(errors) => tx.send(Msg::Error(
                        errors
                            .iter()
                            .map(|e| e.to_string())
                            .collect::<Vec<_>>()
                            .join("; "),
                    )),
                };
            },
        );
        let mut debouncer = match debouncer {
            Ok(d) => d,
            Err(e) => {
                let _ = writeln!(
                    out,
                    "{}",
                    frame(req.build.lang, "error: cannot watch files: {}", &[&e])
                );
                return 2;
            }
        };
        let mut targets = Targets::default();
        let mut count = 0;
        let mut changed: Vec<PathBuf> = vec![];
        loop {
            // (Re)load the project file: the folders to watch follow it.
            let loaded = crate::config::load(&req.build.config).ok();
            let now = Targets::of(&req.build.config, loaded.as_ref());
            if now != targets {
                for (f, _) in targets.folders() {
                    let _ = debouncer.unwatch(&f);
                }
                for (f, recursive) in now.folders() {
                    let mode = if recursive {
                        RecursiveMode::Recursive
                    } else {
                        RecursiveMode::NonRecursive
                    };
                    if let Err(e) = debouncer.watch(&f, mode) {
                        let _ = writeln!(
                            out,
                            "{}",
                            frame(
                                req.build.lang,
                                "gentable: cannot watch {}: {}",
                                &[&f.display(), &e]
                            )
                        );
                    }
                }
                targets = now;
            }
            count += 1;
            let root = loaded.as_ref().map(|l| l.root.clone()).unwrap_or_default();
            let started = Instant::now();
            let outcome = build_settled(&req.build, &changed);
            summary(
                out,
                req,
                count,
                &root,
                &changed,
                &outcome,
                started.elapsed(),
            );
            let _ = writeln!(
                out,
                "{}",
                frame(
                    req.build.lang,
                    "gentable: watching {} — Ctrl-C to stop",
                    &[&watched(&targets, &root)]
                )
            );
            let _ = out.flush();
            // Wait for the next batch that matters.
            changed = match next_batch(&self.rx, &targets, out, req.build.lang) {
                Some(c) => c,
                None => break,
            };
        }
        let _ = writeln!(
            out,
            "{}",
            frame(req.build.lang, "gentable: watch stopped", &[])
        );
        let _ = out.flush();
        drop(debouncer);
        0
    }
}

/// Whether an event of this kind can change what a file holds: not reading it (the build's own reads are
/// access events) and not a change of its access time, owner or permissions.
fn changes_content(kind: &EventKind) -> bool {
    use notify_debouncer_full::notify::event::{MetadataKind, ModifyKind};
    !matches!(
        kind,
        EventKind::Access(_)
            | EventKind::Modify(ModifyKind::Metadata(
                MetadataKind::AccessTime
                    | MetadataKind::Ownership
                    | MetadataKind::Permissions
                    | MetadataKind::Extended
            ))
    )
}

/// The relevant paths of the next batch of events (after more events that arrive while its files settle),
/// or `None` when the watch is stopped.
fn next_batch(
    rx: &Receiver<Msg>,
    targets: &Targets,
    out: &mut dyn Write,
    lang: Lang,
) -> Option<Vec<PathBuf>> {
    let mut changed: Vec<PathBuf> = vec![];
    loop {
        let msg = if changed.is_empty() {
            rx.recv().ok()?
        } else {
            match rx.recv_timeout(SETTLE) {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    if settle(&changed) {
                        changed.sort();
                        changed.dedup();
                        return Some(changed);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        };
        match msg {
            Msg::Stop => return None,
            Msg::Error(e) => {
                let _ = writeln!(out, "{}", frame(lang, "gentable: watch: {}", &[&e]));
            }
            Msg::Changed(paths) => {
                changed.extend(paths.into_iter().filter(|p| targets.relevant(p)))
            }
        }
    }
}

/// True when every file of `paths` that exists keeps its length and modification time over [`SETTLE`].
fn settle(paths: &[PathBuf]) -> bool {
    let stat = |p: &PathBuf| {
        std::fs::metadata(p)
            .ok()
            .map(|m| (m.len(), m.modified().ok()))
    };
    let before: Vec<_> = paths.iter().map(stat).collect();
    std::thread::sleep(SETTLE);
    paths.iter().map(stat).collect::<Vec<_>>() == before
}

/// Run the build; while it cannot read one of the files that just `changed` (mid-save), wait and run it again.
fn build_settled(req: &Request, changed: &[PathBuf]) -> Outcome {
    let mut outcome = build::run(req);
    for _ in 0..RETRIES {
        let unreadable = outcome.diagnostics.iter().any(|d| {
            d.severity == Severity::Error
                && d.code == Code::UnreadableFile
                && changed.iter().any(|c| c.ends_with(&d.file) && recent(c))
        });
        if !unreadable {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
        outcome = build::run(req);
    }
    outcome
}

/// Modified in the last few seconds.
fn recent(p: &Path) -> bool {
    std::fs::metadata(p)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|d| d < Duration::from_secs(5))
}

/// `Table/, schema/, gentable.toml` (relative to the project root).
fn watched(t: &Targets, root: &Path) -> String {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let rel = |p: &Path| crate::read::rel_path(&root, p);
    let mut parts: Vec<String> = t.tables.iter().map(|p| format!("{}/", rel(p))).collect();
    parts.extend(t.schemas.iter().map(|p| format!("{}/", rel(p))));
    parts.extend(t.templates.iter().map(|p| format!("{}/", rel(p))));
    parts.push(rel(&t.config));
    crate::diag::list::series(parts)
}

/// The one-screen summary of build number `count`.
fn summary(
    out: &mut dyn Write,
    req: &WatchRequest,
    count: usize,
    root: &Path,
    changed: &[PathBuf],
    outcome: &Outcome,
    took: Duration,
) {
    if req.clear {
        // Clear the screen and move home: each summary starts at the top of the terminal.
        let _ = write!(out, "\x1b[2J\x1b[H");
    }
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let lang = req.build.lang;
    let what = if changed.is_empty() {
        frame(lang, "start", &[])
    } else {
        let names: Vec<String> = changed
            .iter()
            .map(|p| crate::read::rel_path(&root, p))
            .collect();
        frame(lang, "changed: {}", &[&list(&names, 4)])
    };
    let _ = writeln!(
        out,
        "{}",
        frame(lang, "── gentable watch: build #{} ({})", &[&count, &what])
    );
    let _ = out.write_all(outcome.text(build::Stream::Stderr).as_bytes());
    let secs = format!("{:.2}", took.as_secs_f64());
    match &outcome.summary {
        Some(s) => {
            let plan = match &s.plan {
                Ran::UpToDate => frame(lang, "nothing to rebuild", &[]),
                Ran::Tables(t) => frame(
                    lang,
                    "rebuilt {} (one-table rebuild)",
                    &[&crate::diag::list::series(t)],
                ),
                Ran::Full => frame(
                    lang,
                    "rebuilt all {} table{}",
                    &[&s.tables, &crate::diag::lang::plural(s.tables)],
                ),
            };
            let mut files: Vec<String> = s.written.clone();
            files.extend(s.removed.iter().map(|r| format!("-{r}")));
            let files = if files.is_empty() {
                frame(lang, "no file changed", &[])
            } else {
                frame(lang, "wrote {}", &[&list(&files, 6)])
            };
            let _ = writeln!(
                out,
                "{}",
                frame(lang, "ok: {} in {} s; {}", &[&plan, &secs, &files])
            );
        }
        None => {
            let errors: Vec<String> = outcome
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| d.location())
                .collect();
            let at = if errors.is_empty() {
                String::new()
            } else {
                frame(lang, " at {}", &[&list(&errors, 3)])
            };
            let n = errors.len().max(1);
            let line = frame(
                lang,
                "failed in {} s: {} error{}{}; generated/ is unchanged — fix and save",
                &[&secs, &n, &if n == 1 { "" } else { "s" }, &at],
            );
            let _ = writeln!(out, "{line}");
        }
    }
}

/// `a, b, c` or `a, b, c and 4 more` (in Chinese `a、b、c 和另外 4 个` through [`frame`]).
fn list(items: &[String], max: usize) -> String {
    use crate::diag::list::{Joiner, List};
    if items.len() <= max {
        crate::diag::list::series(items)
    } else {
        List::new(Joiner::And)
            .items(&items[..max])
            .more(items.len() - max)
            .text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets() -> Targets {
        Targets {
            config: "/p/gentable.toml".into(),
            tables: vec!["/p/Table".into()],
            schemas: Some("/p/schema".into()),
            templates: vec![],
            ignored: vec!["/p/generated".into(), "/p/.gentable-cache".into()],
        }
    }

    #[test]
    fn only_inputs_of_the_build_are_relevant() {
        let t = targets();
        for yes in [
            "/p/gentable.toml",
            "/p/Table/Unit.csv",
            "/p/Table/sub/Map.xlsx",
            "/p/Table/Lang.TSV",
            "/p/schema/Unit.schema.json",
        ] {
            assert!(t.relevant(Path::new(yes)), "{yes}");
        }
        for no in [
            "/p/Table/~$Map.xlsx",
            "/p/Table/.~lock.Map.xlsx#",
            "/p/Table/Unit.csv.gentable-tmp",
            "/p/Table/A1B2C3D4",
            "/p/Table/notes.docx",
            "/p/schema/sub/x.json",
            "/p/generated/data/Unit.json",
            "/p/README.md",
            "/p/other.toml",
        ] {
            assert!(!t.relevant(Path::new(no)), "{no}");
        }
    }

    /// The summary in Chinese (`--lang zh` or a zh locale): every line of the frame is Chinese, the names
    /// of tables and files are as they are.
    #[test]
    fn the_summary_speaks_chinese_when_asked() {
        let req = |lang| WatchRequest {
            build: Request {
                config: "/p/gentable.toml".into(),
                action: build::Action::Build,
                cache: true,
                deny_warnings: false,
                quiet: false,
                format: crate::diag::render::Format::Human,
                max_per_kind: 3,
                lang,
                wait: build::lock::Wait::Yes,
            },
            debounce: Duration::from_millis(300),
            clear: false,
        };
        let ok = Outcome {
            summary: Some(build::Summary {
                plan: Ran::Tables(vec!["PieceType".into()]),
                tables: 9,
                written: vec!["data/PieceType.json".into(), "rust/src/hashes.rs".into()],
                removed: vec![],
                unchanged: 20,
            }),
            ..Outcome::default()
        };
        let failed = Outcome {
            diagnostics: vec![crate::diag::Diagnostic::cell_error(
                Code::WrongType,
                &crate::diag::RowOrigin {
                    file: "Table/PieceType.csv".into(),
                    sheet: None,
                    row: 3,
                },
                Some(3),
                Some("Tier"),
                Some("x"),
                "expected an integer, found \"x\"",
            )],
            exit_code: 1,
            ..Outcome::default()
        };
        // FunnyPitch's own folder, so that the changed file's path is shown relative to it.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let changed = [root.join("Table/PieceType.csv")];
        let text = |lang, outcome: &Outcome, changed: &[PathBuf]| {
            let mut out = vec![];
            let took = Duration::from_millis(310);
            summary(&mut out, &req(lang), 2, root, changed, outcome, took);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            text(Lang::Zh, &ok, &changed),
            "── gentable watch：第 2 次构建（已更改：Table/PieceType.csv）\n\
             成功：重新构建了 PieceType（单表重建），用时 0.31 秒；写入 data/PieceType.json、rust/src/hashes.rs\n"
        );
        assert_eq!(
            text(Lang::Zh, &failed, &[]),
            "── gentable watch：第 2 次构建（启动）\n\
             失败，用时 0.31 秒：1 个错误，位置 Table/PieceType.csv:3:D；generated/ 未改动——请修正后保存\n"
        );
        assert_eq!(
            text(Lang::En, &failed, &[]),
            "── gentable watch: build #2 (start)\n\
             failed in 0.31 s: 1 error at Table/PieceType.csv:3:D; generated/ is unchanged — fix and save\n"
        );
    }

    #[test]
    fn lists_are_cut_with_a_count() {
        let v: Vec<String> = (1..=5).map(|i| i.to_string()).collect();
        assert_eq!(list(&v, 5), "1, 2, 3, 4, 5");
        assert_eq!(list(&v, 2), "1, 2 and 3 more");
        assert_eq!(
            frame(Lang::Zh, "changed: {}", &[&list(&v, 2)]),
            "已更改：1、2 和另外 3 个"
        );
        assert_eq!(
            frame(Lang::Zh, "changed: {}", &[&list(&v, 5)]),
            "已更改：1、2、3、4、5"
        );
    }
}
