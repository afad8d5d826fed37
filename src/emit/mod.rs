//! **emit/** owns validated IR → source text per language, over one shared driver ([`run`]). It may import
//! the IR, the configuration, naming and diagnostics; never `read/`, `typing/`, `validate/` or `build/`.
//!
//! Emitters: the typed IR ([`crate::ir::Project`]) → source files per language.
//!
//! * [`front`]: what the languages share (the [`Backend`] trait, type-name claims, lookups, localization),
//!   and [`strings`]: string literals and doc comments that spreadsheet text can never escape;
//! * [`rust`]: a dependency-free crate with static data: items written with `quote` and formatted by
//!   `prettyplease`, row data printed directly as text;
//! * [`csharp`]: C# 7.2 for Unity, from handlebars templates in `src/emit/csharp/templates/`;
//! * [`typescript`]: TypeScript for Node.js 20, from handlebars templates in `src/emit/typescript/templates/`;
//! * [`groups`]: the project of one output (export groups, inlined texts);
//! * [`data`]: the data files (`data/*.json`, one row per line with the table's hashes) and the schema hash;
//!   canonical JSON and the content hash come from [`crate::ir::canonical`].
//!
//! Every emitter returns a map of paths (relative to the `generated/` folder, `/`-separated) to file
//! contents. Contents start with [`HEADER`] (in the language's comment syntax), use `\n` line endings, and
//! depend on nothing but the IR and the configuration, so output is byte-stable.

pub mod csharp;
pub mod data;
pub mod front;
pub mod groups;
mod hbs;
pub mod rust;
pub mod strings;
#[cfg(test)]
mod testkit;
pub mod typescript;

pub use front::{lookup_key, Backend, EmitContext, Files, Outputs, HEADER};

use rayon::prelude::*;

/// Emit one output with `backend`: prepare, then the runtime, the shared types, every rendered table (on all
/// cores) and the entry point, merged in that order (a path given twice is an error). A part that fails does
/// not stop the others: the error lists every part's problems (every identifier clash of the output), one
/// per line.
pub fn run<B: Backend>(backend: &B, ctx: &EmitContext) -> anyhow::Result<Files> {
    let plan = backend.prepare(ctx)?;
    let mut errors = front::Errors::default();
    let mut files = errors.take(backend.runtime(ctx, &plan)).unwrap_or_default();
    let add = |files: &mut Files, more: Files, errors: &mut front::Errors| {
        for (path, text) in more {
            if files.insert(path.clone(), text).is_some() {
                errors.push(format!(
                    "two generated files are both {path}; rename a table or type"
                ));
            }
        }
    };
    if let Some(t) = errors.take(backend.types(ctx, &plan)) {
        add(&mut files, t, &mut errors);
    }
    let tables: Vec<anyhow::Result<Files>> = ctx
        .project
        .tables
        .par_iter()
        .with_max_len(1)
        .filter(|t| ctx.renders(&t.name))
        .map(|t| backend.table(ctx, &plan, t))
        .collect();
    for t in tables {
        if let Some(t) = errors.take(t) {
            add(&mut files, t, &mut errors);
        }
    }
    if let Some(t) = errors.take(backend.index(ctx, &plan)) {
        add(&mut files, t, &mut errors);
    }
    errors.finish()?;
    Ok(files)
}
