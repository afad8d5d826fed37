//! gentable: config tables (CSV, Excel) + JSON Schema → validated Rust, C# and TypeScript.
//!
//! The pipeline, one module per stage:
//! 1. [`config`]: `gentable.toml`;
//! 2. [`read`]: files → raw cells (CSV via `csv`, workbooks via `calamine`), with [`diag::RowOrigin`]s;
//! 3. [`schema`]: `schema/*.schema.json` → IR types ([`ir`]);
//! 4. [`typing`]: raw cells → typed [`ir::Value`]s, using the [`cell`] grammar;
//! 5. [`validators`]: JSON Schema per row, keys, foreign keys, rule expressions;
//! 6. [`codegen`]: IR → Rust, C#, TypeScript; [`canonical`]: RFC 8785 data and the content hash;
//! 7. [`pipeline`]: runs the stages and writes `generated/` atomically.

pub mod canonical;
pub mod cell;
pub mod config;
pub mod diag;
pub mod explain;
pub mod ir;
pub mod naming;
pub mod pipeline;
pub mod read;
pub mod report;
pub mod schema;
pub mod typing;

#[path = "../codegen/mod.rs"]
pub mod codegen;
#[path = "../validators/mod.rs"]
pub mod validators;
