//! gentable: config tables (CSV, Excel) + JSON Schema → validated Rust, C# and TypeScript.
//!
//! The pipeline, one folder per stage (docs/architecture.md):
//! 1. [`read`]: the table folders → raw cells (CSV via `csv`, workbooks via `calamine`) with
//!    [`diag::RowOrigin`]s;
//! 2. [`schema`]: `schema/*.schema.json` → IR types ([`ir`]); the only reader of `x-gentable-*` annotations;
//! 3. [`typing`]: raw cells → typed [`ir::Value`]s using the cell grammar ([`typing::cell`]);
//! 4. [`validate`]: JSON Schema per row, keys, foreign keys, unreferenced rows, texts, rule expressions;
//! 5. [`emit`]: IR → Rust, C#, TypeScript; RFC 8785 data ([`ir::canonical`]);
//! 6. [`build`]: the one driver that runs the stages for every build (full, one-table, no-op, `--check`),
//!    the cache, and the atomic write of `generated/`.
//!
//! Over the pipeline: the designer's tools — [`diff`] (semantic diffs, git textconv), [`report`] (a static
//! HTML report with pictures), [`watch`] (rebuild on save) — and the command line ([`cli`]), which maps
//! arguments to requests and prints the outcome. Beside it, [`import`] turns another tool's project (Luban)
//! into a gentable project and infers schemas from tables; no stage imports it.
//!
//! Shared by every stage: the project file ([`config`]), diagnostics ([`diag`]) and identifier rules
//! ([`naming`]).

pub mod build;
pub mod cli;
pub mod config;
pub mod diag;
pub mod diff;
pub mod emit;
pub mod import;
pub mod ir;
pub mod naming;
pub mod read;
pub mod report;
pub mod schema;
pub mod typing;
pub mod validate;
pub mod watch;
