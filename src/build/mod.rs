//! **build/** owns the driver: the plan, the stage order, the cache, the write and the command line's policy.
//! It may import every stage; nothing imports it but the command line.
//!
//! The build driver: one [`run`] per command-line build, check or validation, over the stages
//! read → schema → typing → validate (`stages`) → emit ([`outputs`]) → write ([`mod@write`]).
//!
//! A build goes like this: the plan is made from the manifest of the last clean build; a no-op ends there.
//! Otherwise the stages run as the plan says, once: a one-table rebuild that finds it cannot give the clean
//! build's result gives up, and the full plan runs instead. A failed build never reaches the write step, so
//! `generated/` is unchanged when any error is found.
//!
//! Performance (docs/performance.md): files are read, hashed and typed in parallel (rayon), a big table is
//! validated in row chunks, the emitters run concurrently. `GENTABLE_TIMINGS=1` prints the time and memory of
//! each stage to stderr.

pub mod cache;
pub mod commit;
mod context;
pub mod lock;
mod manifest;
pub mod outputs;
mod owned;
pub mod plan;
mod sink;
mod stages;
pub mod write;

pub use context::Context;
pub use outputs::{generate, stream};
pub use owned::OWNED;
pub use plan::{Plan, UpToDate};
pub use stages::Validated;
pub use write::{stale, write, Changes, Scope, Sink};

use crate::config::Loaded;
use crate::diag::lang::{plural, Lang};
use crate::diag::render::{self, Format, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use std::path::{Path, PathBuf};

/// What a run does with the validated project.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `gentable check`: read and validate; write nothing.
    Validate,
    /// `gentable build`: write `generated/`.
    Build,
    /// `gentable build --check`: write nothing; fail if `generated/` is out of date.
    Check,
}

/// One command-line run.
#[derive(Clone, Debug)]
pub struct Request {
    /// The project file.
    pub config: PathBuf,
    pub action: Action,
    /// Use and update the incremental cache in `.gentable-cache/` (`--no-cache` turns it off; the result
    /// is the same).
    pub cache: bool,
    /// `--deny warnings`: warnings fail the build.
    pub deny_warnings: bool,
    /// `--quiet`: print only diagnostics.
    pub quiet: bool,
    /// How diagnostics are printed.
    pub format: Format,
    /// At most this many diagnostics per code per file in human and GitHub output (0 = all).
    pub max_per_kind: usize,
    /// The language of messages and summaries (`--lang`, else the locale: [`Lang::from_env`]).
    pub lang: Lang,
    /// When another gentable run holds the project lock: wait for it ([`lock::Wait::Yes`], the default) or
    /// fail at once with exit code 2 (`--no-wait`).
    pub wait: lock::Wait,
}

/// Where a piece of a run's output goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What a run printed and how it ended.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The text to print, in order (diagnostics and summaries go to stderr; `build --check` lists stale
    /// files on stdout in human format).
    pub output: Vec<(Stream, String)>,
    /// Every diagnostic reported.
    pub diagnostics: Vec<Diagnostic>,
    /// 0 success; 1 data errors, or stale files under `--check`; 2 usage or configuration errors.
    pub exit_code: u8,
    /// What a successful build did (for `gentable watch`'s summary); `None` when it failed or wrote nothing.
    pub summary: Option<Summary>,
}

/// What a successful `gentable build` did: which plan ran, and what it wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// The plan that gave the result (a one-table rebuild that gave up is a full build).
    pub plan: Ran,
    /// Tables of the project.
    pub tables: usize,
    /// Files written under the generated folder (relative, `/`-separated), in order.
    pub written: Vec<String>,
    /// Files removed from the generated folder.
    pub removed: Vec<String>,
    /// Files left as they were.
    pub unchanged: usize,
}

/// Which [`Plan`] a build ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ran {
    /// Nothing had changed since the last clean build.
    UpToDate,
    /// A one-table rebuild of these tables.
    Tables(Vec<String>),
    /// Every table.
    Full,
}

impl Outcome {
    fn out(&mut self, s: impl Into<String>) {
        let s: String = s.into();
        let safe = render::terminal_safe(&s).into_owned();
        self.output.push((Stream::Stdout, safe));
    }
    /// A human line for stderr: control and bidirectional characters (from paths, names, the project file)
    /// are escaped ([`render::terminal_safe`]).
    fn err(&mut self, s: impl Into<String>) {
        let s: String = s.into();
        let safe = render::terminal_safe(&s).into_owned();
        self.output.push((Stream::Stderr, safe));
    }
    /// A summary line (ending with `\n`) to stderr, in `lang`.
    fn say(&mut self, lang: Lang, line: String) {
        let text = line.strip_suffix('\n').unwrap_or(&line);
        self.err(format!("{}\n", crate::diag::lang::message(text, lang)));
    }
    /// Everything printed to `stream`.
    pub fn text(&self, stream: Stream) -> String {
        self.output
            .iter()
            .filter(|(s, _)| *s == stream)
            .map(|(_, t)| t.as_str())
            .collect()
    }
    fn report(&mut self, d: &Diagnostics, req: &Request, sources: &Sources) {
        let opts = render::Options {
            max_per_kind: req.max_per_kind,
            lang: req.lang,
        };
        // Human and GitHub reports escape what they show themselves; JSON lines must stay JSON.
        let text = render::render_report(d, req.format, sources, &opts);
        self.output.push((Stream::Stderr, text));
        self.diagnostics.extend(d.items.iter().cloned());
    }
}

/// Run one command-line build, check or validation (see the module docs): everything is decided here, the
/// command line only prints the [`Outcome`] and exits with its code.
pub fn run(req: &Request) -> Outcome {
    let mut out = Outcome::default();
    let loaded = match crate::config::load(&req.config) {
        Ok(l) => l,
        Err(e) => {
            out.err(error_line(&format!("{e:#}"), req.lang));
            out.exit_code = 2;
            return out;
        }
    };
    // One run per project at a time; then whatever a killed build left beside the generated folder is
    // completed or removed, before anything reads it.
    let what = match req.action {
        Action::Validate => "gentable check",
        Action::Build => "gentable build",
        Action::Check => "gentable build --check",
    };
    let quiet = req.quiet;
    let lang = req.lang;
    let _lock = match lock::ProjectLock::acquire(&loaded.root, what, req.wait, &mut |m| {
        if !quiet {
            // Said while waiting, not after: straight to the terminal.
            let m = crate::diag::lang::message(m.trim_end(), lang);
            eprintln!("{}", render::terminal_safe(&m));
        }
    }) {
        Ok(l) => l,
        Err(e) => {
            out.err(error_line(&e, lang));
            out.exit_code = 2;
            return out;
        }
    };
    if let Err(e) = commit::recover(&loaded.generated_dir()) {
        out.err(error_line(
            &format!(
                "cannot complete what an interrupted build left beside {}: {e}",
                loaded.generated_dir().display()
            ),
            lang,
        ));
        out.exit_code = 2;
        return out;
    }
    let ctx = Context::new(
        &loaded,
        &req.config,
        req.cache,
        Context::wants_progress(req.quiet),
    );
    let dir = loaded.generated_dir();
    let shown = crate::diag::shown_path(&dir);
    // `build --check` compares every file, so it never rebuilds only some tables.
    let check = manifest::check(&loaded, &ctx);
    let plan = Plan::make(check.as_ref(), &ctx, req.action != Action::Check);
    if let Plan::UpToDate(up) = plan {
        if req.action == Action::Build {
            out.summary = Some(Summary {
                plan: Ran::UpToDate,
                tables: up.tables,
                written: vec![],
                removed: vec![],
                unchanged: up.files,
            });
        }
        if !req.quiet {
            out.say(
                req.lang,
                match req.action {
                    Action::Validate => format!(
                        "gentable: {} table{} valid, {}\n",
                        up.tables,
                        plural(up.tables),
                        render::counts(0, 0).trim_start_matches("0 errors, ")
                    ),
                    Action::Check => format!(
                        "gentable: {} is up to date ({} file{})\n",
                        shown.display(),
                        up.files,
                        plural(up.files)
                    ),
                    Action::Build => format!(
                        "gentable: {} table{} -> {} (0 written, {} unchanged, 0 removed)\n",
                        up.tables,
                        plural(up.tables),
                        shown.display(),
                        up.files
                    ),
                },
            );
        }
        return out;
    }
    let (result, typed) = checked(&loaded, &ctx, plan);
    let mut diags = match &result {
        Ok(v) => Diagnostics {
            items: v.warnings.clone(),
        },
        Err(d) => d.clone(),
    };
    let sources = stages::report_sources(&loaded, &ctx, &diags.items, &typed);
    sources.fill_cell_texts(&mut diags.items);
    if req.deny_warnings {
        diags.deny_warnings();
    }
    diags.sort();
    out.report(&diags, req, &sources);
    let validated = match result {
        Ok(v) if !diags.has_errors() => v,
        _ => {
            ctx.finish();
            // In every format, after the diagnostics (all on stderr; -q drops this line), like a successful
            // build's summary, so a CI log always ends with what happened.
            if !req.quiet {
                out.say(
                    req.lang,
                    format!(
                        "gentable: {}; generated/ left unchanged\n",
                        render::counts(diags.error_count(), diags.warning_count())
                    ),
                );
            }
            out.exit_code = exit_code(&diags.items);
            return out;
        }
    };
    if req.action == Action::Validate {
        ctx.finish();
        if !req.quiet {
            out.say(
                req.lang,
                format!(
                    "gentable: {} table{} valid, {}\n",
                    validated.project.tables.len(),
                    plural(validated.project.tables.len()),
                    render::counts(0, diags.warning_count()).trim_start_matches("0 errors, ")
                ),
            );
        }
        return out;
    }
    ctx.stage("generating", 0);
    // Each output is compared with generated/ as soon as it is rendered; a build writes the changed ones
    // into the commit's staging folder at once (never generated/ itself), `build --check` nothing.
    let known = check.as_ref().map(|c| &c.manifest.outputs);
    let sink = if req.action == Action::Check {
        Sink::check(&dir, Scope::default())
    } else {
        let scope = Scope {
            known,
            complete: validated.partial.is_none(),
        };
        match Sink::stage(&dir, scope) {
            Ok(s) => s,
            Err(e) => {
                ctx.finish();
                out.err(format!("error: cannot write {}: {e}\n", shown.display()));
                out.exit_code = 2;
                return out;
            }
        }
    };
    match stream(&loaded, &validated, &sink) {
        Ok(()) => {}
        Err(e) => {
            // What the sink staged is removed: generated/ is unchanged.
            drop(sink);
            // An emitter refused the project (two names that become one identifier, a reserved type name):
            // a schema problem, reported like every other diagnostic so CI annotations show it.
            ctx.finish();
            // Every problem of every output at once, one diagnostic each (fix them all, rebuild once).
            let mut lines: Vec<String> = format!("{e:#}").lines().map(String::from).collect();
            lines.dedup();
            let mut d = Diagnostics {
                items: lines
                    .into_iter()
                    .map(|m| {
                        Diagnostic::file_error(Code::GeneratedNameClash, loaded.schema_rel(), m)
                            .with_help(
                                "rename the table, field, enum member or $defs entry, or set x-gentable-name",
                            )
                    })
                    .collect(),
            };
            d.sort();
            out.report(&d, req, &sources);
            out.exit_code = exit_code(&d.items);
            return out;
        }
    }
    if req.action == Action::Check {
        let c = sink.changes();
        ctx.finish();
        if c.written.is_empty() && c.removed.is_empty() {
            if !req.quiet {
                out.say(
                    req.lang,
                    format!(
                        "gentable: {} is up to date ({} file{})\n",
                        shown.display(),
                        c.unchanged,
                        plural(c.unchanged)
                    ),
                );
            }
            return out;
        }
        // Stale files are diagnostics too (GT0501), so `--message-format github|json` annotates them in CI.
        let listed = c
            .written
            .iter()
            .map(|f| {
                (
                    f,
                    "stale",
                    "is stale: it differs from what the tables produce",
                )
            })
            .chain(
                c.removed
                    .iter()
                    .map(|f| (f, "extra", "is extra: the tables no longer produce it")),
            );
        let mut stale_diags = Diagnostics::default();
        for (f, word, what) in listed {
            let path = shown.join(f).display().to_string();
            if req.format == Format::Human {
                let line = match word {
                    "stale" => crate::diag::lang::frame(req.lang, "stale: {}", &[&path]),
                    _ => crate::diag::lang::frame(req.lang, "extra: {}", &[&path]),
                };
                out.out(format!("{line}\n"));
            }
            stale_diags.push(
                Diagnostic::file_error(Code::StaleFile, path.clone(), format!("{path} {what}"))
                    .with_help("run `gentable build` and commit generated/"),
            );
        }
        if req.format == Format::Human {
            out.diagnostics.extend(stale_diags.items.iter().cloned());
        } else {
            out.report(&stale_diags, req, &sources);
        }
        out.say(
            req.lang,
            format!(
                "gentable: {} is out of date; run `gentable build` and commit the result\n",
                shown.display()
            ),
        );
        out.exit_code = exit_code(&stale_diags.items);
        return out;
    }
    let written = write::commit(&loaded, &validated, sink, diags.items.is_empty(), &ctx);
    ctx.finish();
    let tables = validated.project.tables.len();
    let plan = match &validated.partial {
        Some(p) => Ran::Tables(p.only.iter().cloned().collect()),
        None => Ran::Full,
    };
    release(validated);
    match written {
        Ok(c) => {
            out.summary = Some(Summary {
                plan,
                tables,
                written: c.written.clone(),
                removed: c.removed.clone(),
                unchanged: c.unchanged,
            });
            if !req.quiet {
                out.say(
                    req.lang,
                    format!(
                        "gentable: {} table{} -> {} ({} written, {} unchanged, {} removed)\n",
                        tables,
                        plural(tables),
                        shown.display(),
                        c.written.len(),
                        c.unchanged,
                        c.removed.len()
                    ),
                );
            }
        }
        Err(e) => {
            out.err(format!("error: cannot write {}: {e}\n", shown.display()));
            out.exit_code = 2;
        }
    }
    out
}

/// Frees the typed project on a pool thread once the build no longer needs it: freeing a million rows'
/// values one by one took 0.3 s of a one-table 1,000,000-row build after its files were committed
/// (`perf`, csv-1m). A command-line build then exits without waiting for it; `watch` frees it meanwhile.
fn release(validated: stages::Validated) {
    rayon::spawn(move || drop(validated));
}

/// The exit code of a run that reported `diags`: the highest of the errors' classes (0 without errors).
fn exit_code(diags: &[Diagnostic]) -> u8 {
    diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code.class().exit_code())
        .max()
        .unwrap_or(0)
}

/// `error: <message>` and a line end, in `lang` (a configuration or usage error, exit code 2).
fn error_line(message: &str, lang: Lang) -> String {
    let m = crate::diag::lang::message(message, lang);
    format!("{}\n", crate::diag::lang::frame(lang, "error: {}", &[&m]))
}

/// Read, type and validate as `plan` says; a one-table rebuild that gives up runs the full plan.
fn checked(loaded: &Loaded, ctx: &Context, plan: Plan) -> stages::Checked {
    if let Some(p) = plan.partial() {
        if let Some(done) = stages::validate(loaded, ctx, &plan) {
            // Said once this path is sure to give the result (tests/cache.rs looks for it).
            let list: Vec<&str> = p.only.iter().map(String::as_str).collect();
            ctx.note(&format!(
                "rebuilding {} of {} tables: {}",
                p.only.len(),
                p.tables.len(),
                list.join(", ")
            ));
            return done;
        }
    }
    stages::validate(loaded, ctx, &Plan::Full).expect("a full build never gives up")
}

/// A project as the designer's tools see it ([`inspect`]).
#[derive(Clone, Debug, Default)]
pub struct Inspection {
    /// Every table source as read (every row, comments included), in file order.
    pub raw: Vec<crate::read::RawTable>,
    /// The typed project as far as the stages got: every table whose schema built, with its rows (a cell
    /// that failed to type is [`crate::ir::Value::Null`]); rows of map tables are in key order when
    /// validation ran. Empty when the schemas did not load.
    pub project: crate::ir::Project,
    /// The table schemas (in name order).
    pub schemas: Vec<crate::schema::TableSchema>,
    /// Every diagnostic, sorted (errors and warnings).
    pub diagnostics: Vec<Diagnostic>,
    /// The project file it was read with.
    pub loaded: Option<Loaded>,
}

impl Inspection {
    /// The top-level array separator of `table` (`[tables.<Name>] array_separator`, default `|`).
    pub fn array_separator(&self, table: &str) -> char {
        self.loaded
            .as_ref()
            .and_then(|l| l.config.tables.get(table))
            .and_then(|o| o.array_separator.as_deref())
            .and_then(|s| s.chars().next())
            .unwrap_or('|')
    }

    /// True when the project has no error.
    pub fn valid(&self) -> bool {
        !self
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Read, type and validate every table of `loaded` like a full build (the one stage list, no cache), and keep
/// what the designer's tools show: the raw sources and the typed tables also when the build fails.
pub fn inspect(loaded: &Loaded) -> Inspection {
    let ctx = Context::keeping();
    let (result, _) = checked(loaded, &ctx, Plan::Full);
    let kept = ctx
        .kept
        .and_then(|k| k.into_inner().ok())
        .unwrap_or_default();
    let (project, mut diagnostics) = match result {
        Ok(v) => (v.project, v.warnings),
        Err(d) => (kept.project.unwrap_or_default(), d.items),
    };
    stages::sources_of_rows(&kept.raw, &diagnostics).fill_cell_texts(&mut diagnostics);
    Inspection {
        raw: kept.raw,
        project,
        schemas: kept.schemas,
        diagnostics,
        loaded: Some(loaded.clone()),
    }
}

/// Read, type and validate every table of `loaded` (no cache, no progress). `Err` holds every diagnostic
/// (errors and warnings), sorted; a schema-keyword finding (GT0301) holds its cell's text as read, like the
/// command line's (the files it points at are read again).
pub fn load(loaded: &Loaded) -> Result<Validated, Diagnostics> {
    let ctx = Context::plain();
    let (result, typed) = checked(loaded, &ctx, Plan::Full);
    result.map_err(|mut d| {
        let keyword: Vec<Diagnostic> = d
            .items
            .iter()
            .filter(|x| x.code == Code::SchemaKeyword)
            .cloned()
            .collect();
        stages::report_sources(loaded, &ctx, &keyword, &typed).fill_cell_texts(&mut d.items);
        d
    })
}

/// Convenience for tests and tools: load and validate the project of `gentable.toml` at `config_path`.
pub fn load_path(config_path: &Path) -> anyhow::Result<(Loaded, Validated)> {
    let loaded = crate::config::load(config_path)?;
    match load(&loaded) {
        Ok(l) => Ok((loaded, l)),
        Err(d) => {
            let text: Vec<String> = d.items.iter().map(|d| d.to_string()).collect();
            anyhow::bail!("{} diagnostics:\n{}", d.items.len(), text.join("\n"))
        }
    }
}
