//! `gentable` command line: a thin layer over [`gentable::build`].
//!
//! Exit codes: 0 success; 1 data errors (or stale files with `--check`); 2 usage or configuration errors.

use clap::{Parser, Subcommand, ValueEnum};
use gentable::diag::Code;
use gentable::diag::{Diagnostics, Severity};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gentable",
    version,
    about = "Config tables (CSV/Excel) + JSON Schema -> validated Rust, C# and TypeScript"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

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
    /// Show at most N diagnostics per code per file in human and github output (0 = all); JSON shows all.
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_per_kind: usize,
    /// Neither use nor update the incremental cache in .gentable-cache/ (the result is the same).
    #[arg(long)]
    no_cache: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Deny {
    Warnings,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum MessageFormat {
    Human,
    Json,
    Github,
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
    /// Explain a diagnostic code, e.g. `gentable explain GT0302`.
    Explain { code: String },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::ConfigSchema => {
            print!("{}", gentable::config::json_schema());
            ExitCode::SUCCESS
        }
        Command::Explain { code } => match gentable::diag::code::explain(&code) {
            Some(text) => {
                println!("{text}");
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("error: unknown diagnostic code {code:?}; codes look like GT0201");
                ExitCode::from(2)
            }
        },
        Command::Check { common } => run(&common, Mode::Validate),
        Command::Build { common, check } => {
            run(&common, if check { Mode::Check } else { Mode::Write })
        }
    }
}

#[derive(PartialEq, Eq)]
enum Mode {
    Validate,
    Check,
    Write,
}

fn print_diags(d: &Diagnostics, common: &Common, sources: &gentable::diag::render::Sources) {
    let format = match common.message_format {
        MessageFormat::Human => gentable::diag::render::Format::Human,
        MessageFormat::Json => gentable::diag::render::Format::Json,
        MessageFormat::Github => gentable::diag::render::Format::Github,
    };
    let opts = gentable::diag::render::Options {
        max_per_kind: common.max_per_kind,
    };
    eprint!(
        "{}",
        gentable::diag::render::render_report(d, format, sources, &opts)
    );
}

fn run(common: &Common, mode: Mode) -> ExitCode {
    let loaded = match gentable::config::load(&common.config) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let mut ctx = gentable::build::Context::new(
        &loaded,
        &common.config,
        common.no_cache,
        gentable::build::Context::wants_progress(common.quiet),
    );
    // A build or check may rebuild only the changed tables (`build --check` compares every file instead).
    ctx.incremental = mode != Mode::Check;
    // Nothing changed since the last clean build: its result is what is on disk.
    if let Some(up) = gentable::build::up_to_date(&loaded, &ctx) {
        if !common.quiet {
            let dir = loaded.generated_dir();
            match mode {
                Mode::Validate => eprintln!(
                    "gentable: {} tables valid, {}",
                    up.tables,
                    gentable::diag::render::counts(0, 0).trim_start_matches("0 errors, ")
                ),
                Mode::Check => eprintln!(
                    "gentable: {} is up to date ({} files)",
                    dir.display(),
                    up.files
                ),
                Mode::Write => eprintln!(
                    "gentable: {} tables -> {} (0 written, {} unchanged, 0 removed)",
                    up.tables,
                    dir.display(),
                    up.files
                ),
            }
        }
        return ExitCode::SUCCESS;
    }
    let (validated, sources) = gentable::build::load_with_sources_in(&loaded, &ctx);
    let (validated, mut diags) = match validated {
        Ok(v) => {
            let d = Diagnostics {
                items: v.warnings.clone(),
            };
            (Some(v), d)
        }
        Err(d) => (None, d),
    };
    if common.deny.is_some() {
        diags.deny_warnings();
    }
    diags.sort();
    ctx.suspend(|| print_diags(&diags, common, &sources));
    let config_error = diags.items.iter().any(|d| {
        d.severity == Severity::Error && d.code.class() == gentable::diag::Class::Configuration
    });
    let Some(validated) = validated.filter(|_| !diags.has_errors()) else {
        ctx.finish();
        if !common.quiet && common.message_format == MessageFormat::Human {
            eprintln!(
                "gentable: {}; generated/ left unchanged",
                gentable::diag::render::counts(diags.error_count(), diags.warning_count())
            );
        }
        return ExitCode::from(if config_error { 2 } else { 1 });
    };
    if mode == Mode::Validate {
        ctx.finish();
        if !common.quiet {
            eprintln!(
                "gentable: {} tables valid, {}",
                validated.project.tables.len(),
                gentable::diag::render::counts(0, diags.warning_count())
                    .trim_start_matches("0 errors, ")
            );
        }
        return ExitCode::SUCCESS;
    }
    let files = match gentable::build::generate_in(&loaded, &validated, &ctx) {
        Ok(f) => f,
        Err(e) => {
            // An emitter refused the project (two names that become one identifier, a reserved type name):
            // a schema problem, reported like every other diagnostic so CI annotations show it.
            ctx.finish();
            let d = Diagnostics {
                items: vec![gentable::diag::Diagnostic::file_error(
                    Code::GeneratedNameClash,
                    loaded.schema_rel(),
                    format!("{e:#}"),
                )
                .with_help(
                    "rename the table, field, enum member or $defs entry, or set x-gentable-name",
                )],
            };
            print_diags(&d, common, &sources);
            return ExitCode::from(1);
        }
    };
    let dir = loaded.generated_dir();
    if mode == Mode::Check {
        let c = gentable::build::stale(&dir, &files);
        ctx.finish();
        if c.written.is_empty() && c.removed.is_empty() {
            if !common.quiet {
                eprintln!(
                    "gentable: {} is up to date ({} files)",
                    dir.display(),
                    c.unchanged
                );
            }
            return ExitCode::SUCCESS;
        }
        // Stale files are diagnostics too (GT0501), so `--message-format github|json` annotates them in CI.
        let stale: Vec<gentable::diag::Diagnostic> = c
            .written
            .iter()
            .map(|f| (f, "is stale: it differs from what the tables produce"))
            .chain(
                c.removed
                    .iter()
                    .map(|f| (f, "is extra: the tables no longer produce it")),
            )
            .map(|(f, what)| {
                let path = dir.join(f).display().to_string();
                gentable::diag::Diagnostic::file_error(
                    Code::StaleFile,
                    path.clone(),
                    format!("{path} {what}"),
                )
                .with_help("run `gentable build` and commit generated/")
            })
            .collect();
        if common.message_format == MessageFormat::Human {
            for f in &c.written {
                println!("stale: {}", dir.join(f).display());
            }
            for f in &c.removed {
                println!("extra: {}", dir.join(f).display());
            }
        } else {
            print_diags(&Diagnostics { items: stale }, common, &sources);
        }
        eprintln!(
            "gentable: {} is out of date; run `gentable build` and commit the result",
            dir.display()
        );
        return ExitCode::from(1);
    }
    let written =
        gentable::build::write_in(&loaded, &validated, &files, diags.items.is_empty(), &ctx);
    ctx.finish();
    match written {
        Ok(c) => {
            if !common.quiet {
                eprintln!(
                    "gentable: {} tables -> {} ({} written, {} unchanged, {} removed)",
                    validated.project.tables.len(),
                    dir.display(),
                    c.written.len(),
                    c.unchanged,
                    c.removed.len()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: cannot write {}: {e}", dir.display());
            ExitCode::from(2)
        }
    }
}
