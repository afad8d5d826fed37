//! The command-line arguments of `gentable import`, `init` and `infer` (clap), so that `src/main.rs` stays
//! thin: it parses, calls one of these and prints the [`Report`].

use super::write::Report;
use std::path::PathBuf;

/// `gentable import <tool>`.
#[derive(clap::Subcommand)]
pub enum ImportFrom {
    /// Import a Luban project: `gentable import luban DataTables/luban.conf --out .`
    Luban {
        conf: PathBuf,
        /// The gentable project folder written (gentable.toml, schema/).
        #[arg(long, default_value = ".")]
        out: PathBuf,
        /// Write nothing; exit 1 and list what a re-import would change.
        #[arg(long)]
        check: bool,
        /// Offset of Luban's datetime cells (Luban uses the exporting machine's zone).
        #[arg(long, default_value = "+08:00")]
        time_zone: String,
    },
}

/// `gentable init [DIR]`.
#[derive(clap::Args)]
pub struct InitArgs {
    #[arg(default_value = ".")]
    pub dir: PathBuf,
}

/// `gentable infer FILE [--sheet NAME]`.
#[derive(clap::Args)]
pub struct InferArgs {
    pub file: PathBuf,
    /// The worksheet (default: the first).
    #[arg(long)]
    pub sheet: Option<String>,
}

/// Run `gentable import …`.
pub fn import(from: ImportFrom) -> Report {
    match from {
        ImportFrom::Luban {
            conf,
            out,
            check,
            time_zone,
        } => super::luban::command(&conf, &out, check, &time_zone),
    }
}

/// Run `gentable init`.
pub fn init(a: InitArgs) -> Report {
    super::infer::init(&a.dir)
}

/// Run `gentable infer`.
pub fn infer(a: InferArgs) -> Report {
    super::infer::command(&a.file, a.sheet.as_deref())
}
