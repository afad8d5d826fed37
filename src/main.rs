//! `gentable` command line: parses arguments into a [`gentable::build::Request`], runs it, prints what it
//! printed and exits with its code. Every policy (which diagnostics, summaries, exit codes) is the library's.
//!
//! Exit codes: 0 success; 1 data errors (or stale files with `--check`); 2 usage or configuration errors.

use clap::{Parser, Subcommand, ValueEnum};
use gentable::build::{Action, Request, Stream};
use gentable::diag::render::Format;
use std::io::Write;
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

#[derive(Clone, Copy, ValueEnum)]
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
    let (common, action) = match Cli::parse().command {
        Command::ConfigSchema => {
            print!("{}", gentable::config::json_schema());
            return ExitCode::SUCCESS;
        }
        Command::Explain { code } => {
            return match gentable::diag::code::explain(&code) {
                Some(text) => {
                    println!("{text}");
                    ExitCode::SUCCESS
                }
                None => {
                    eprintln!("error: unknown diagnostic code {code:?}; codes look like GT0201");
                    ExitCode::from(2)
                }
            }
        }
        Command::Check { common } => (common, Action::Validate),
        Command::Build { common, check } => {
            (common, if check { Action::Check } else { Action::Build })
        }
    };
    let outcome = gentable::build::run(&Request {
        config: common.config,
        action,
        cache: !common.no_cache,
        deny_warnings: common.deny.is_some(),
        quiet: common.quiet,
        format: match common.message_format {
            MessageFormat::Human => Format::Human,
            MessageFormat::Json => Format::Json,
            MessageFormat::Github => Format::Github,
        },
        max_per_kind: common.max_per_kind,
    });
    for (stream, text) in &outcome.output {
        // A closed pipe (`gentable build | head`) is not an error of the build.
        let _ = match stream {
            Stream::Stdout => std::io::stdout().write_all(text.as_bytes()),
            Stream::Stderr => std::io::stderr().write_all(text.as_bytes()),
        };
    }
    ExitCode::from(outcome.exit_code)
}
