//! gentable: config tables (CSV, Excel) + JSON Schema → validated Rust, C# and TypeScript.
//!
//! The pipeline, one module per stage:
//! 1. the project file `gentable.toml`, in [`config`];
//! 2. files → raw cells (CSV via `csv`, workbooks via `calamine`) with [`diag::RowOrigin`]s, in [`read`];
//! 3. `schema/*.schema.json` → IR types ([`ir`]), in [`schema`];
//! 4. raw cells → typed [`ir::Value`]s using the [`cell`] grammar, in [`typing`];
//! 5. JSON Schema per row, keys, foreign keys, rule expressions, in [`validators`];
//! 6. IR → Rust, C#, TypeScript in [`codegen`]; RFC 8785 data and the content hash in [`canonical`];
//! 7. the stages run, and `generated/` is written atomically, by [`pipeline`].

pub mod cache;
pub mod canonical;
pub mod cell;
pub mod columns;
pub mod config;
pub mod diag;
pub mod explain;
pub mod groups;
pub mod incremental;
pub mod ir;
pub mod naming;
pub mod pipeline;
pub mod read;
pub mod report;
pub mod schema;
pub mod time;
pub mod typing;
pub mod vertical;

#[path = "../codegen/mod.rs"]
pub mod codegen;
#[path = "../validators/mod.rs"]
pub mod validators;
