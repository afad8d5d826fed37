//! **cli/** owns the command line: it maps arguments (clap) to the library's requests — a
//! [`crate::build::Request`] for `build`/`check`, and the designer tools' requests (`watch`, `diff`,
//! `textconv`, `report`) — runs them and writes what they printed. It may import every module; nothing
//! imports it. `src/main.rs` only calls [`main`].
//!
//! The help and usage errors are in Chinese with `--lang zh` or a `zh` locale ([`help`]).
//!
//! Exit codes (README "Exit codes"): 0 success; 1 data errors (or stale files with `--check`, or a diff that
//! found changes with `--exit-code`); 2 usage or configuration errors.

use crate::build::{Action, Outcome, Request, Stream};
use crate::diag::lang::{frame, Lang};
use crate::diag::render::Format;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

pub mod help;

#[derive(Parser)]
#[command(
    name = "gentable",
    version,
    about = "Config tables (CSV/Excel) + JSON Schema -> validated Rust, C# and TypeScript"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Language of messages: en or zh (Simplified Chinese). Default: the locale (LC_ALL, LC_MESSAGES,
    /// LANG starting with zh), else English.
    #[arg(long, global = true, value_enum)]
    lang: Option<LangArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum LangArg {
    En,
    Zh,
}

/// Options shared by every command that builds the project.
#[derive(clap::Args, Clone)]
struct Common {
    /// Project file.
    #[arg(long, short = 'c', default_value = "gentable.toml")]
    config: PathBuf,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    message_format: MessageFormat,
    /// `--deny warnings` turns warnings into errors.
    #[arg(long, value_name = "warnings")]
    deny: Option<Deny>,
    /// Print only diagnostics.
    #[arg(long, short = 'q')]
    quiet: bool,
    /// Show at most N diagnostics per code per file in human and github output (0 = all; default 20, in
    /// watch 3); JSON shows all.
    #[arg(long, value_name = "N")]
    max_per_kind: Option<usize>,
    /// Neither use nor update the incremental cache in .gentable-cache/ (the result is the same).
    #[arg(long)]
    no_cache: bool,
    /// If another gentable run is using this project, stop at once (exit code 2) instead of waiting for it.
    #[arg(long)]
    no_wait: bool,
}

impl Common {
    fn request(&self, action: Action, max_per_kind: usize, lang: Lang) -> Request {
        Request {
            lang,
            config: self.config.clone(),
            action,
            cache: !self.no_cache,
            deny_warnings: self.deny.is_some(),
            quiet: self.quiet,
            format: self.message_format.format(),
            max_per_kind: self.max_per_kind.unwrap_or(max_per_kind),
            wait: if self.no_wait {
                crate::build::lock::Wait::No
            } else {
                crate::build::lock::Wait::Yes
            },
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Deny {
    Warnings,
}

#[derive(Clone, Copy, ValueEnum)]
enum MessageFormat {
    Human,
    Json,
    Github,
    /// One SARIF 2.1.0 log on standard output (code-scanning UIs).
    Sarif,
}

impl MessageFormat {
    fn format(self) -> Format {
        match self {
            MessageFormat::Human => Format::Human,
            MessageFormat::Json => Format::Json,
            MessageFormat::Github => Format::Github,
            MessageFormat::Sarif => Format::Sarif,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormatArg {
    Human,
    Json,
    Markdown,
}

#[derive(Subcommand)]
enum Command {
    /// Read, validate and write generated/ (the main job).
    Build {
        #[command(flatten)]
        common: Common,
        /// Write nothing; exit 1 and list the stale files if generated/ differs from what the tables produce.
        #[arg(long)]
        check: bool,
    },
    /// Read and validate; write nothing.
    Check {
        #[command(flatten)]
        common: Common,
    },
    /// Print the JSON Schema of gentable.toml.
    ConfigSchema,
    /// Explain a diagnostic code, e.g. `gentable explain GT0302`; without one, list every code.
    Explain { code: Option<String> },
    /// Row-level diff of the tables between two versions: git revisions or folders (default HEAD → the
    /// working tree).
    Diff {
        /// The old version: a git revision or a folder holding the project file (default HEAD).
        old: Option<String>,
        /// The new version (default: the working tree).
        new: Option<String>,
        /// Project file (of the working tree; folders are looked into for the same file name).
        #[arg(long, short = 'c', default_value = "gentable.toml")]
        config: PathBuf,
        /// Output: human text, JSON, or Markdown for a pull-request comment.
        #[arg(long, value_enum, default_value_t = DiffFormatArg::Human)]
        format: DiffFormatArg,
        /// Exit with 1 when the versions differ.
        #[arg(long)]
        exit_code: bool,
    },
    /// Write a static HTML report: every table as a searchable page, its pictures (x-gentable-view), every
    /// diagnostic linked to its cell.
    Report {
        /// Project file.
        #[arg(long, short = 'c', default_value = "gentable.toml")]
        config: PathBuf,
        /// The folder to write (default: report/ in the generated folder).
        #[arg(long, short = 'o')]
        out: Option<PathBuf>,
        /// At most N rows per table page (0 = all); rows with a diagnostic are always shown.
        #[arg(long, value_name = "N", default_value_t = 20000)]
        max_rows: usize,
    },
    /// Print a workbook (or CSV file) as stable text, for git's textconv (`*.xlsx diff=gentable`).
    Textconv { file: PathBuf },
    /// Build, then rebuild on every save of a table, a schema or the project file (Ctrl-C stops).
    Watch {
        #[command(flatten)]
        common: Common,
        /// Quiet time after the last change before rebuilding, in milliseconds.
        #[arg(long, value_name = "MS", default_value_t = 300)]
        debounce: u64,
        /// Do not clear the terminal before each summary.
        #[arg(long)]
        no_clear: bool,
    },
    /// Make a gentable project from another tool's (docs/migrating-from-luban.md).
    Import {
        #[command(subcommand)]
        from: ImportFrom,
    },
    /// Start a new project in DIR: gentable.toml, one example table and its schema.
    Init {
        #[arg(default_value = ".")]
        dir: PathBuf,
    },
    /// Print a JSON Schema guessed from a table file's header and data (CSV or a workbook sheet).
    Infer {
        file: PathBuf,
        /// The worksheet (default: the first).
        #[arg(long)]
        sheet: Option<String>,
    },
}

/// `gentable import <tool>`.
#[derive(Subcommand)]
enum ImportFrom {
    /// Import a Luban project: `gentable import luban DataTables/luban.conf --out GameConfig`
    Luban {
        conf: PathBuf,
        /// The gentable project folder written (gentable.toml, schema/).
        #[arg(long, default_value = ".")]
        out: PathBuf,
        /// Write nothing; exit 1 (GT0602) and list what a re-import would change.
        #[arg(long)]
        check: bool,
        /// Offset of Luban's datetime cells (Luban uses the exporting machine's zone).
        #[arg(long, default_value = "+08:00")]
        time_zone: String,
    },
}

/// Run the command line `args` (the program name first), writing to standard output and standard error;
/// the process exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    let args: Vec<OsString> = args.into_iter().collect();
    // The language of the help and of usage errors is known before the arguments are parsed.
    let lang = lang_asked(&args).unwrap_or_else(Lang::from_env);
    let parsed = help::localize(command(), lang)
        .try_get_matches_from(&args)
        .and_then(|m| {
            if let Some(("help", h)) = m.subcommand() {
                // The Chinese tree's own `help` subcommand ([`help::localize`]).
                let path: Vec<String> = h
                    .get_many::<String>("command")
                    .into_iter()
                    .flatten()
                    .cloned()
                    .collect();
                return Ok(Err(path));
            }
            Cli::from_arg_matches(&m).map(Ok)
        });
    let cli = match parsed {
        Ok(Ok(c)) => c,
        Ok(Err(path)) => {
            let mut cmd = help::localize(command(), lang);
            cmd.build();
            let mut at = cmd;
            for name in &path {
                match at.find_subcommand(name) {
                    Some(s) => at = s.clone(),
                    None => break,
                }
            }
            let _ = at.print_long_help();
            return 0;
        }
        Err(e) => {
            // `--help` and `--version` are not errors; usage errors exit with 2 (clap's own code).
            if lang == Lang::Zh {
                if let Some(text) = help::error_text(&e) {
                    eprint!("{text}");
                    return e.exit_code().clamp(0, 255) as u8;
                }
            }
            let _ = e.print();
            return e.exit_code().clamp(0, 255) as u8;
        }
    };
    let lang = match cli.lang {
        Some(LangArg::En) => Lang::En,
        Some(LangArg::Zh) => Lang::Zh,
        None => Lang::from_env(),
    };
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    run(cli.command, lang, &mut out, &mut err)
}

/// The derived command tree (English).
fn command() -> clap::Command {
    Cli::command()
}

/// The `--lang` of `args` (`--lang zh`, `--lang=zh`), before `--`; `None` when not given or not a language.
fn lang_asked(args: &[OsString]) -> Option<Lang> {
    let mut it = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        if a == "--lang" {
            return it.next().and_then(|v| Lang::parse(&v));
        }
        if let Some(v) = a.strip_prefix("--lang=") {
            return Lang::parse(v);
        }
    }
    None
}

fn run(command: Command, lang: Lang, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let (common, action) = match command {
        Command::ConfigSchema => {
            let _ = write!(out, "{}", crate::config::json_schema());
            return 0;
        }
        Command::Explain { code: None } => {
            // Every code with its title, in number order: what a designer scans for "GT0…".
            for c in crate::diag::Code::ALL {
                let _ = writeln!(
                    out,
                    "{}  {}",
                    c.as_str(),
                    crate::diag::lang::title(*c, lang)
                );
            }
            return 0;
        }
        Command::Explain { code: Some(code) } => {
            return match crate::diag::code::explain_in(&code, lang) {
                Some(text) => {
                    let _ = writeln!(out, "{text}");
                    0
                }
                None => {
                    let _ = writeln!(
                        err,
                        "{}",
                        frame(
                            lang,
                            "error: unknown diagnostic code {}; codes look like GT0201",
                            &[&format!("{code:?}")]
                        )
                    );
                    2
                }
            };
        }
        Command::Diff {
            old,
            new,
            config,
            format,
            exit_code,
        } => {
            use crate::diff::{DiffFormat, Spec};
            let req = crate::diff::DiffRequest {
                config,
                old: Spec::parse(old.as_deref().unwrap_or("HEAD")),
                new: new.as_deref().map(Spec::parse).unwrap_or(Spec::WorkTree),
                format: match format {
                    DiffFormatArg::Human => DiffFormat::Human,
                    DiffFormatArg::Json => DiffFormat::Json,
                    DiffFormatArg::Markdown => DiffFormat::Markdown,
                },
                exit_code,
                lang,
            };
            let outcome = crate::diff::run(&req);
            print(&outcome, out, err);
            return outcome.exit_code;
        }
        Command::Report {
            config,
            out: folder,
            max_rows,
        } => {
            let outcome = crate::report::run(&crate::report::ReportRequest {
                config,
                out: folder,
                max_rows,
                lang,
            });
            print(&outcome, out, err);
            return outcome.exit_code;
        }
        Command::Textconv { file } => {
            return match crate::diff::textconv::textconv(&file) {
                Ok(text) => {
                    let _ = out.write_all(text.as_bytes());
                    0
                }
                Err(e) => {
                    let e = crate::diag::lang::message(&e.to_string(), lang);
                    let _ = writeln!(err, "{}", frame(lang, "error: {}", &[&e]));
                    1
                }
            };
        }
        Command::Watch {
            common,
            debounce,
            no_clear,
        } => {
            use std::io::IsTerminal;
            let watch = crate::watch::Watch::new();
            let stopper = watch.stopper();
            // Ctrl-C ends the loop after the running build: a write is never cut short.
            if let Err(e) = ctrlc::set_handler(move || stopper.stop()) {
                let _ = writeln!(
                    err,
                    "{}",
                    frame(lang, "error: cannot handle Ctrl-C: {}", &[&e])
                );
                return 2;
            }
            let req = crate::watch::WatchRequest {
                build: common.request(Action::Build, 3, lang),
                debounce: std::time::Duration::from_millis(debounce),
                clear: !no_clear && std::io::stderr().is_terminal(),
            };
            return watch.run(&req, err);
        }
        Command::Import {
            from:
                ImportFrom::Luban {
                    conf,
                    out: dir,
                    check,
                    time_zone,
                },
        } => {
            return report(
                crate::import::luban::command_in(&conf, &dir, check, &time_zone, lang),
                out,
                err,
            )
        }
        Command::Init { dir } => return report(crate::import::infer::init(&dir, lang), out, err),
        Command::Infer { file, sheet } => {
            return report(
                crate::import::infer::command(&file, sheet.as_deref(), lang),
                out,
                err,
            )
        }
        Command::Check { common } => (common, Action::Validate),
        Command::Build { common, check } => {
            (common, if check { Action::Check } else { Action::Build })
        }
    };
    let req = common.request(action, 20, lang);
    let outcome = crate::build::run(&req);
    print(&outcome, out, err);
    if req.format == Format::Sarif {
        // One log of the whole run (the build collected the diagnostics without printing them).
        let mut d = crate::diag::Diagnostics {
            items: outcome.diagnostics.clone(),
        };
        d.sort();
        let _ = out.write_all(crate::diag::sarif::sarif(&d.items, lang).as_bytes());
    }
    outcome.exit_code
}

/// Write what a run printed, in order. A closed pipe (`gentable build | head`) is not an error of the build.
fn print(outcome: &Outcome, out: &mut dyn Write, err: &mut dyn Write) {
    for (stream, text) in &outcome.output {
        let _ = match stream {
            Stream::Stdout => out.write_all(text.as_bytes()),
            Stream::Stderr => err.write_all(text.as_bytes()),
        };
    }
}

/// Write what an import, init or infer printed; its exit code.
fn report(r: crate::import::write::Report, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let _ = out.write_all(r.stdout.as_bytes());
    let _ = err.write_all(r.stderr.as_bytes());
    r.exit_code
}
