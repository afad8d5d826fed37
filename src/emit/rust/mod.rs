//! **emit/rust/** owns the Rust backend. It may import `emit/`'s shared front and the base modules only.
//!
//! Rust emitter: the IR → a dependency-free crate (`generated/rust/`) whose code costs O(schema) to compile:
//! the rows are not in the token stream but embedded as binary data files (docs/data-format.md §3) with
//! `include_bytes!` and decoded on first use into `&'static` rows (`std::sync::OnceLock`).
//!
//! The crate is two cargo packages, so that a data edit recompiles only a small one (issue 14):
//! * the facade `rust/` (package `<crate_name>`, what a game depends on): `src/lib.rs` embeds every
//!   `data/<Table>.bytes` with its `dataHash`, holds `CONTENT_HASH` and `PROJECT_HASH` — the one code file
//!   that changes when only data changes — and re-exports the code crate whole (`pub use <crate_name>_code::*`);
//! * the code crate `rust/code/` (package `<crate_name>_code`), which never depends on the facade: the
//!   facade's `gentable_embedded(index)` is exported under a linker symbol (`embedded_symbol`) that the code
//!   crate declares `extern "Rust"` and calls (its only `unsafe`). Cargo rebuilds dependents of a rebuilt
//!   crate, never dependencies, so an edited data file rebuilds the facade and reuses the code.
//!
//! Layout of the code crate (names through [`crate::naming`]):
//! * `code/src/lib.rs`: `#![deny(unsafe_code)]`, one module per table re-exported at the root, `load()`
//!   (decode every table now), `canonical_tables()` (every table as RFC 8785 JSON, for the conformance
//!   harness), `DataError`, the text lookup, `embedded()` (the data, from the facade). `canonical_tables()`,
//!   the `canonical` module and every `Canonical` impl are behind the crates' `canonical` feature (off by
//!   default): they were a third of the code crate's release build (issue 14, docs/performance.md);
//! * the accessors (`all`, `try_all`, `get`, `try_get`, `id.row()`, `get_by_…`, `<field>_row(s)`) are
//!   `#[inline]`: rustc compiles an inline function where it is used, so the code crate compiles only the
//!   decoders and what `load()` calls, and a game compiles the lookups it calls (a fifth of the code crate's
//!   release build on 500 tables was accessors no consumer called);
//! * `code/src/enums.rs`: one `enum` per JSON Schema string enum, with `ALL`, `name()` and `from_name()`;
//! * `code/src/records.rs`: one `struct` per nested object schema, one `enum` per polymorphic record;
//! * `code/src/<table>.rs`: the row struct, a typed id per single-field primary key (`PieceTypeId`),
//!   `SCHEMA_HASH`, the row decoder, `all()`/`try_all()` (or `get()`/`try_get()` for singletons), `get()` by
//!   binary search, unique-key lookups over an index built on first use, and a `<field>_row()` accessor per
//!   foreign key. Its storage is one `runtime::Table` static: one non-generic type for every table (a
//!   type-erased `OnceLock` of the decoded `Vec`), so the crate compiles one decode driver and one `OnceLock`,
//!   not one per table (docs/performance.md);
//! * the decoders read every field through `runtime::Decoder`'s reads, which return the value (after a
//!   failure: a default, reading nothing) and keep the first `DataError`; each decoder asks
//!   `Decoder::check` once after its reads instead of a `?` per field, and `load()` walks a static list of
//!   the tables' `runtime::Table`s: the `?`s were a third of the front end's work on 500 tables
//!   (docs/performance.md);
//! * every row implements `runtime::Row` (its primary key and its decoder), and the row loop with its
//!   key-order checks (`runtime::sorted`, `list`, `single`, `source_order`), `get()` and the foreign-key
//!   accessors (`runtime::resolve`) are generic functions of the runtime: their bodies are type-checked
//!   and borrow-checked once for the crate, where a loop, a closure and a lookup per table were a third
//!   of the front end's work on 500 tables (docs/performance.md);
//! * `code/src/runtime.rs`, `code/src/types.rs`, `code/src/canonical.rs`: fixed text (`support.rs`);
//! * `data/<Table>.bytes`: the rows (written by the data stage, [`crate::emit::data::binary`]).
//!
//! A field whose `x-gentable-foreignKey` names exactly one table with a single-field primary key of the same
//! type is typed with that table's id (`from: PieceTypeId`). Types and impls are built with `quote` and
//! formatted with `prettyplease`; doc comments come from schema descriptions through `#[doc = "…"]` string
//! literals, so spreadsheet text can never escape into code. No generated code depends on a cell value: a data
//! edit changes the embedded file of its table and the facade's `src/lib.rs`, nothing else.

mod support;

use super::{Backend, EmitContext, Files, HEADER};
use crate::ir::text::TextTable;
use crate::ir::{Field, Project, RecordForm, Table, TableMode, Type};
use crate::naming;
use anyhow::{Context, Result};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// The Rust backend (see the module docs).
pub struct Rust;

/// Emit the facade `rust/Cargo.toml`, `rust/src/lib.rs` and the code crate `rust/code/` (the embedded
/// `rust/data/*.bytes` come from the data stage).
pub fn emit(ctx: &EmitContext) -> Result<Files> {
    super::run(&Rust, ctx)
}

/// The embedded data file of `table`, relative to the crate: `data/<Table>.bytes`.
pub fn data_file(table: &str) -> String {
    format!("data/{table}.bytes")
}

/// Items at the crate root besides the tables' (a table, enum or record type may not take these names).
const ROOT_ITEMS: &[&str] = &["DataError", "Language"];

/// What the Rust backend decides once per project ([`Backend::prepare`]).
pub struct Plan<'c> {
    /// Records and unions that sit behind a `Box` (recursive types).
    boxed: std::collections::BTreeSet<String>,
    ids: IdMap,
    /// Per table: its module name.
    modules: Vec<String>,
    text: Option<TextTable<'c>>,
}

impl Backend for Rust {
    type Plan<'c> = Plan<'c>;

    fn prepare<'c>(&self, ctx: &'c EmitContext<'c>) -> Result<Plan<'c>> {
        let p = ctx.project;
        let boxed = recursive_types(p);
        let ids = IdMap::new(p);
        let mut mod_names: BTreeMap<String, String> = BTreeMap::new();
        let mut modules = vec![];
        let mut clashes = super::front::Errors::default();
        for t in &p.tables {
            let m = module(&t.name);
            if let Some(prev) = mod_names.insert(m.clone(), t.name.clone()) {
                clashes.push(format!(
                    "tables {prev} and {} both become the Rust module `{m}`; rename one",
                    t.name
                ));
            }
            modules.push(m);
        }
        let types = p
            .tables
            .iter()
            .map(|t| ("table", &t.name))
            .chain(p.enums.keys().map(|n| ("enum", n)))
            .chain(
                p.records
                    .keys()
                    .chain(p.unions.keys())
                    .map(|n| ("record", n)),
            );
        for (what, n) in types {
            let ident = naming::rust_type(n);
            if ROOT_ITEMS.contains(&ident.as_str()) {
                clashes.push(format!("{what} {n} becomes the Rust type `{ident}`, which the generated crate declares itself; rename it or set x-gentable-name"));
            }
        }
        clashes.finish()?;
        Ok(Plan {
            boxed,
            ids,
            modules,
            text: super::front::localization(ctx)?,
        })
    }

    fn runtime(&self, ctx: &EmitContext, _: &Plan) -> Result<Files> {
        let facade = &ctx.config.rust.crate_name;
        let code = code_crate(facade);
        let fixed = |name: &str, text: &str| -> Result<(String, String)> {
            Ok((
                format!("rust/code/src/{name}.rs"),
                render(syn::parse_str::<TokenStream>(text).with_context(|| format!("{name}.rs"))?)?,
            ))
        };
        Ok(Files::from([
            (
                "rust/Cargo.toml".to_string(),
                format!(
                    "# {HEADER}\n[package]\nname = \"{facade}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\ndescription = {}\n\n[dependencies]\n# The tables' code (generated with this crate): it does not depend on the data, so a data edit\n# recompiles only this crate.\n{code} = {{ path = \"code\" }}\n\n[features]\n# `canonical_tables()` and the `Canonical` trait: every table as RFC 8785 canonical JSON, for tests that\n# compare it with gentable's `data/*.json`. Off by default: a game's build does not compile it.\ncanonical = [\"{code}/canonical\"]\n",
                    toml_string(&format!("{} rule tables, generated by gentable", ctx.project.name))
                ),
            ),
            (
                "rust/code/Cargo.toml".to_string(),
                format!(
                    "# {HEADER}\n[package]\nname = \"{code}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\ndescription = {}\n\n[lib]\n# Its data is linked in from `{facade}`: on its own it links no test binary.\ntest = false\ndoctest = false\n\n[dependencies]\n\n[features]\n# `canonical_tables()` and the `Canonical` trait (see the facade crate's `canonical` feature).\ncanonical = []\n",
                    toml_string(&format!("The code of the {} rule tables (depend on {facade}), generated by gentable", ctx.project.name))
                ),
            ),
            (
                "rust/code/src/types.rs".to_string(),
                render(
                    syn::parse_str::<TokenStream>(&if super::front::uses_json(ctx.project) {
                        format!("{}{}", support::TYPES_RS, support::JSON_RS)
                    } else {
                        support::TYPES_RS.to_string()
                    })
                    .context("types.rs")?,
                )?,
            ),
            fixed("canonical", support::CANONICAL_RS)?,
            fixed("runtime", support::RUNTIME_RS)?,
        ]))
    }

    fn types(&self, ctx: &EmitContext, plan: &Plan) -> Result<Files> {
        BOXED.with(|b| *b.borrow_mut() = plan.boxed.clone());
        let mut clashes = super::front::Errors::default();
        let enums = clashes.take(enums_file(ctx.project));
        let records = clashes.take(records_file(ctx.project, &plan.ids));
        clashes.finish()?;
        Ok(Files::from([
            (
                "rust/code/src/enums.rs".to_string(),
                render(enums.expect("checked"))?,
            ),
            (
                "rust/code/src/records.rs".to_string(),
                render(records.expect("checked"))?,
            ),
        ]))
    }

    fn table(&self, ctx: &EmitContext, plan: &Plan, t: &Table) -> Result<Files> {
        // Token streams are not `Send`: each table is built and printed on one worker, which gets the
        // `BOXED` set first.
        BOXED.with(|b| *b.borrow_mut() = plan.boxed.clone());
        let text = render(table_file(ctx.project, t, &plan.ids)?)?;
        Ok(Files::from([(
            format!("rust/code/src/{}.rs", module(&t.name)),
            text,
        )]))
    }

    fn index(&self, ctx: &EmitContext, plan: &Plan) -> Result<Files> {
        BOXED.with(|b| *b.borrow_mut() = plan.boxed.clone());
        let p = ctx.project;
        let ids = &plan.ids;
        let mut mods = vec![];
        let mut dumps = vec![];
        let mut loads = vec![];
        let mut embedded = vec![];
        for (t, m) in p.tables.iter().zip(&plan.modules) {
            let mi = format_ident!("{}", m);
            let name = &t.name;
            let row_ty = format_ident!("{}", naming::rust_type(&t.name));
            let reexport = match ids.ids.get(&t.name).filter(|_| ids.defines_id(&t.name)) {
                Some((_, id, _)) => {
                    let id = format_ident!("{}", id);
                    quote! { pub use #mi::{#row_ty, #id}; }
                }
                None => quote! { pub use #mi::#row_ty; },
            };
            mods.push(quote! { pub mod #mi; #reexport });
            dumps.push(match t.mode {
                TableMode::One => {
                    quote! { (#name, canonical::table(core::slice::from_ref(#mi::#row_ty::get()))) }
                }
                _ => quote! { (#name, canonical::table(#mi::#row_ty::all())) },
            });
            loads.push(quote! { &#mi::TABLE });
            let hash = ctx
                .data_hashes
                .get(&t.name)
                .with_context(|| format!("no data hash for table {}", t.name))?;
            let include = format!("../{}", data_file(&t.name));
            embedded.push(quote! { (include_bytes!(#include), #hash) });
        }
        let n_tables = Literal::usize_unsuffixed(loads.len());
        let enum_use = if p.enums.is_empty() {
            quote! {}
        } else {
            quote! { pub use enums::*; }
        };
        let record_use = if p.records.is_empty() && p.choices.is_empty() {
            quote! {}
        } else {
            quote! { pub use records::*; }
        };
        let facade = &ctx.config.rust.crate_name;
        let code = code_crate(facade);
        let code_ident = format_ident!("{}", code);
        let symbol = embedded_symbol(p, facade);
        let crate_doc = doc_attrs(&format!(
            "{} rule tables.\n\nGenerated by gentable from the tables and JSON Schemas of project `{}`. The rows are embedded in the crate (`data/*.bytes`) and decoded on first use of each table; call `load()` at start-up to decode every table at once and get a `DataError` instead of a panic if an embedded file was damaged.\n\nThis crate holds the data and the hashes that change with it; the code (types, lookups, decoders) is in `{code}` (re-exported here whole), which does not depend on the data: a data edit recompiles only this small crate.",
            p.name, p.name
        ), true);
        let code_doc = doc_attrs(&format!(
            "The code of the {} rule tables (`{facade}`, which re-exports all of it): types, lookups and decoders, generated by gentable from the JSON Schemas of project `{}`.\n\nDepend on `{facade}`, not on this crate: `{facade}` embeds the rows and hands them to this code through one linker symbol, so that a data edit does not recompile this crate (its code changes only with a schema).",
            p.name, p.name
        ), true);
        let lib = quote! {
            #code_doc
            #![deny(unsafe_code)]
            #![allow(clippy::all)]
            #[cfg(feature = "canonical")]
            pub mod canonical;
            pub mod enums;
            pub mod records;
            mod runtime;
            pub mod types;
            pub use runtime::DataError;
            #enum_use
            #record_use
            #(#mods)*
            /// Decode every table now (each is otherwise decoded on first use): `Err` names the first embedded
            /// data file that cannot be read (one edited, truncated or copied from another build by hand).
            pub fn load() -> Result<(), DataError> {
                static TABLES: [&runtime::Table; #n_tables] = [#(#loads),*];
                runtime::load(&TABLES)
            }
            /// Every table as RFC 8785 canonical JSON, in table-name order: `(table name, JSON array of rows)`.
            /// With the crate's `canonical` feature only (a test's, not a game's: it costs a third of the
            /// crate's compile time).
            #[cfg(feature = "canonical")]
            pub fn canonical_tables() -> Vec<(&'static str, String)> {
                vec![#(#dumps),*]
            }
            #[allow(unsafe_code)]
            extern "Rust" {
                #[link_name = #symbol]
                fn gentable_embedded(index: usize) -> Option<(&'static [u8], &'static str)>;
            }
            /// The embedded data file of table `index` (in table-name order) and the `dataHash` it must carry,
            /// from the facade crate, which defines the symbol (its name carries the hash of the tables' schemas,
            /// so a facade of another schema does not link).
            #[allow(unsafe_code)]
            pub(crate) fn embedded(index: usize) -> Option<(&'static [u8], &'static str)> {
                // SAFETY: the facade crate generated together with this one defines the symbol with this
                // exact signature (a safe Rust function over a static table); the name differs for every
                // crate name and set of schemas, so no other definition can be linked under it.
                unsafe { gentable_embedded(index) }
            }
        };
        let text = text_lookup(plan.text, ids)?;
        let lib = quote! { #lib #text };
        let content_hash = ctx.content_hash;
        let project_hash = ctx.project_hash;
        let n = Literal::usize_unsuffixed(embedded.len());
        let facade_lib = quote! {
            #crate_doc
            #![deny(unsafe_code)]
            pub use #code_ident::*;
            /// BLAKE3 content hash of the data this crate holds (its export groups) and of the schemas: equal to
            /// `content-hash.txt` of its data folder, and to the C# and TypeScript outputs' content hash when they
            /// select the same groups.
            pub const CONTENT_HASH: &str = #content_hash;
            /// BLAKE3 hash of the whole project (every export group): what a client and a server compare. Equal to
            /// `CONTENT_HASH` unless this output selects export groups.
            pub const PROJECT_HASH: &str = #project_hash;
            /// Every table's embedded data file (docs/data-format.md §3 of gentable) and its `dataHash` (BLAKE3 of
            /// its canonical JSON), which the file must carry; in table-name order.
            static GENTABLE_EMBEDDED: [(&[u8], &str); #n] = [#(#embedded),*];
            /// The code crate's only way to the data (its `embedded`): this crate depends on the code, never the
            /// other way round, so a data edit recompiles only this crate.
            #[allow(unsafe_code)]
            #[export_name = #symbol]
            fn gentable_embedded(index: usize) -> Option<(&'static [u8], &'static str)> {
                GENTABLE_EMBEDDED.get(index).copied()
            }
        };
        Ok(Files::from([
            ("rust/code/src/lib.rs".to_string(), render(lib)?),
            ("rust/src/lib.rs".to_string(), render(facade_lib)?),
        ]))
    }
}

/// A TOML basic string holding `s`: quotes, backslashes and every control character escaped, so a project
/// name can neither end the string nor start a new line of `Cargo.toml`.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c.is_control() || crate::diag::render::is_hidden(c)) && (c as u32) < 0x10000 => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c if crate::diag::render::is_hidden(c) => out.push_str(&format!("\\U{:08X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The package (and crate) name of the code crate of facade crate `facade` (`generated/rust/code/`).
fn code_crate(facade: &str) -> String {
    format!("{facade}_code")
}

/// The linker symbol through which the code crate reads the facade's embedded data: the facade's name and
/// the BLAKE3 of every table's name and `schemaHash`, so code and data of different schemas never link.
fn embedded_symbol(p: &Project, facade: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"gentable rust embedded v1\n");
    for t in &p.tables {
        h.update(t.name.as_bytes());
        h.update(b"\n");
        h.update(super::data::schema_hash(p, t).as_bytes());
        h.update(b"\n");
    }
    let hex = h.finalize().to_hex();
    format!("gentable_v1_{facade}_{}_embedded", &hex[..16])
}

/// The modules the crate declares itself (`lib.rs`): a table module of one of these names gets a `_`.
const OWN_MODULES: &[&str] = &[
    "canonical",
    "enums",
    "records",
    "types",
    "runtime",
    "hashes",
];

/// The module (and file `src/<module>.rs`) of table `table`: [`naming::rust_module`] over [`OWN_MODULES`]
/// (`lib` → `lib_`, `core` → `core_`, `aux` → `aux_`, `types` → `types_`).
fn module(table: &str) -> String {
    naming::rust_module(table, OWN_MODULES)
}

/// Format a token stream as a file with the generated-file header.
fn render(tokens: TokenStream) -> Result<String> {
    let mut file: syn::File =
        syn::parse2(tokens).context("generated Rust does not parse (gentable bug)")?;
    // Generated files keep prettyplease's layout byte for byte: `cargo fmt` in a workspace that depends on
    // the crate must not rewrite them (that would make them stale).
    file.attrs
        .insert(0, syn::parse_quote!(#![cfg_attr(rustfmt, rustfmt_skip)]));
    Ok(format!("// {HEADER}\n{}", prettyplease::unparse(&file)))
}

/// `#[doc = "…"]` (or `#![doc]` when `inner`) lines of `text`; nothing for empty text.
///
/// Lines are split at every line terminator (a bare CR is not allowed in a Rust doc comment) and control
/// characters dropped ([`super::hbs::doc_lines`]); the bidirectional-text controls that rustc rejects in doc
/// comments (U+202A–U+202E, U+2066–U+2069) are shown as `\u{202e}` text.
fn doc_attrs(text: &str, inner: bool) -> TokenStream {
    let lines: Vec<String> = super::hbs::doc_lines(text)
        .into_iter()
        .map(|l| {
            let mut out = String::from(" ");
            // Inside a `code span` text is literal; outside, rustdoc's Markdown reads `<From>` (a schema
            // description's placeholder) as an HTML tag and hides it, so `<` is written `&lt;` there.
            let mut code = false;
            for c in l.chars() {
                if matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') {
                    out.push_str(&format!("\\u{{{:x}}}", c as u32));
                } else if c == '<' && !code {
                    out.push_str("&lt;");
                } else {
                    if c == '`' {
                        code = !code;
                    }
                    out.push(c);
                }
            }
            out
        })
        .collect();
    if inner {
        quote! { #(#![doc = #lines])* }
    } else {
        quote! { #(#[doc = #lines])* }
    }
}

/// Which tables have a typed id, and of what Rust type.
///
/// A map table with a single-field primary key gets a newtype id (`PieceTypeId`) — unless that key field is
/// itself a foreign key to another table's primary key of the same type (MovePiece.Piece → PieceType), in
/// which case the table is keyed by the referenced id (`MovePiece::get(PieceTypeId(..))`).
struct IdMap {
    /// table name → (defining module, id type ident, inner IR type)
    ids: BTreeMap<String, (String, String, Type)>,
}

impl IdMap {
    fn new(p: &Project) -> Self {
        fn single_pk(t: &Table) -> Option<&Field> {
            (t.mode == TableMode::Map && t.primary_key.len() == 1)
                .then(|| &t.fields[t.primary_key[0]])
        }
        let mut ids: BTreeMap<String, (String, String, Type)> = BTreeMap::new();
        for t in &p.tables {
            if let Some(f) = single_pk(t) {
                ids.insert(
                    t.name.clone(),
                    (
                        module(&t.name),
                        naming::rust_type(&format!("{}Id", t.name)),
                        f.ty.clone(),
                    ),
                );
            }
        }
        // Follow key-is-foreign-key chains (bounded: a cycle keeps the own id).
        for t in &p.tables {
            let Some(mut f) = single_pk(t) else { continue };
            for _ in 0..p.tables.len() {
                let [(target, None)] = f.foreign_keys.as_slice() else {
                    break;
                };
                let Some(tt) = p.table(target) else { break };
                let Some(tf) = single_pk(tt) else { break };
                if tf.ty != f.ty || tt.name == t.name {
                    break;
                }
                let resolved = ids[&tt.name].clone();
                ids.insert(t.name.clone(), resolved);
                f = tf;
            }
        }
        IdMap { ids }
    }
    /// True if `table` defines its own id newtype.
    fn defines_id(&self, table: &str) -> bool {
        self.ids
            .get(table)
            .is_some_and(|(m, _, _)| *m == module(table))
    }
    /// The id type of table `table`'s own primary key field: `(module, id type)`.
    fn own_id(&self, table: &str) -> Option<(String, String)> {
        self.ids
            .get(table)
            .map(|(m, id, _)| (m.clone(), id.clone()))
    }
    /// The id type a field of `ty` with these foreign keys should use.
    fn fk_id(&self, field: &Field, base: &Type) -> Option<(String, String)> {
        if field.foreign_keys.len() != 1 || field.foreign_keys[0].1.is_some() {
            return None;
        }
        let (m, id, ty) = self.ids.get(&field.foreign_keys[0].0)?;
        (ty == base).then(|| (m.clone(), id.clone()))
    }
}

fn int_suffix(w: crate::ir::IntWidth) -> &'static str {
    w.rust_name()
}

thread_local! {
    /// Record and union types on a cycle of direct (not array or map) references: a direct field of such a
    /// type is a `&'static T` (static data needs no `Box`).
    static BOXED: std::cell::RefCell<std::collections::BTreeSet<String>> = Default::default();
}

fn is_boxed(n: &str) -> bool {
    BOXED.with(|b| b.borrow().contains(n))
}

/// Named types that can reach themselves through direct (optional or plain) record/union fields.
fn recursive_types(p: &Project) -> std::collections::BTreeSet<String> {
    let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let direct = |t: &Type| -> Option<String> {
        match t.strip_optional() {
            Type::Record(m) | Type::Union(m) => Some(m.clone()),
            _ => None,
        }
    };
    let mut owned: Vec<(String, String)> = vec![];
    for r in p.records.values() {
        for f in &r.fields {
            if let Some(m) = direct(&f.ty) {
                owned.push((r.name.clone(), m));
            }
        }
    }
    for u in p.unions.values() {
        for v in &u.variants {
            for f in &v.fields {
                if let Some(m) = direct(&f.ty) {
                    owned.push((u.name.clone(), m));
                }
            }
        }
    }
    for (a, b) in &owned {
        edges.entry(a.as_str()).or_default().push(b.as_str());
    }
    let mut out = std::collections::BTreeSet::new();
    for start in edges.keys() {
        let mut stack: Vec<&str> = edges[start].clone();
        let mut seen = std::collections::BTreeSet::new();
        while let Some(n) = stack.pop() {
            if n == *start {
                out.insert(start.to_string());
                break;
            }
            if seen.insert(n) {
                if let Some(next) = edges.get(n) {
                    stack.extend(next.iter().copied());
                }
            }
        }
    }
    out
}

/// The Rust type of an IR type. `fk` = (module, id type) replaces the innermost scalar.
fn rust_ty(ty: &Type, fk: Option<&(String, String)>) -> TokenStream {
    match ty {
        Type::Optional(t) => {
            let i = rust_ty(t, fk);
            quote! { Option<#i> }
        }
        Type::Record(n) | Type::Union(n) if is_boxed(n) => {
            let i = format_ident!("{}", naming::rust_type(n));
            quote! { &'static crate::records::#i }
        }
        Type::Array(t) => {
            let i = rust_ty_indirect(t, fk);
            quote! { &'static [#i] }
        }
        Type::Map(k, v) => {
            let k = rust_ty(k, None);
            let v = rust_ty_indirect(v, fk);
            quote! { crate::types::Map<#k, #v> }
        }
        _ if fk.is_some() => {
            let (m, id) = fk.expect("checked");
            let m = format_ident!("{}", m);
            let id = format_ident!("{}", id);
            quote! { crate::#m::#id }
        }
        Type::Bool => quote! { bool },
        Type::Int(w) => {
            let i = format_ident!("{}", int_suffix(*w));
            quote! { #i }
        }
        Type::Float => quote! { f64 },
        Type::String => quote! { &'static str },
        Type::Enum(n) => {
            let i = format_ident!("{}", naming::rust_type(n));
            quote! { crate::enums::#i }
        }
        Type::Record(n) | Type::Union(n) => {
            let i = format_ident!("{}", naming::rust_type(n));
            quote! { crate::records::#i }
        }
        Type::Flags(e) => {
            let i = format_ident!("{}", flags_name(e));
            quote! { crate::enums::#i }
        }
        Type::DateTime(_) => quote! { crate::types::DateTime },
        Type::Date => quote! { crate::types::Date },
        Type::Time(_) => quote! { crate::types::Time },
        Type::Duration => quote! { crate::types::Duration },
        Type::Json => quote! { crate::types::Json },
        Type::Choice(n) => {
            let i = format_ident!("{}", naming::rust_type(n));
            quote! { crate::records::#i }
        }
    }
}

/// [`rust_ty`] behind an indirection (slice or map entries): never boxed.
fn rust_ty_indirect(ty: &Type, fk: Option<&(String, String)>) -> TokenStream {
    match ty {
        Type::Record(n) | Type::Union(n) => {
            let i = format_ident!("{}", naming::rust_type(n));
            quote! { crate::records::#i }
        }
        Type::Optional(t) => {
            let i = rust_ty_indirect(t, fk);
            quote! { Option<#i> }
        }
        t => rust_ty(t, fk),
    }
}

/// The Rust type of the flags set of enum `e`: `ElementFlags`.
fn flags_name(e: &str) -> String {
    naming::rust_type(&format!("{e}Flags"))
}

fn flag_bits_ty(p: &Project, e: &str) -> proc_macro2::Ident {
    if p.enums[e].members.len() > 32 {
        format_ident!("u64")
    } else {
        format_ident!("u32")
    }
}

fn base_scalar(ty: &Type) -> &Type {
    match ty {
        Type::Optional(t) | Type::Array(t) | Type::Map(_, t) => base_scalar(t),
        t => t,
    }
}

/// The variant of a scalar union for one member: `Boolean`, `Integer`, `Number` or `String` (a string
/// enum member is `String` too).
fn choice_variant(member: &Type) -> &'static str {
    match member {
        Type::Bool => "Boolean",
        Type::Int(_) => "Integer",
        Type::Float => "Number",
        _ => "String",
    }
}

fn field_ident(f: &Field) -> proc_macro2::Ident {
    let s = naming::rust_field(&f.name, f.ident.as_deref());
    format_ident!("{}", s)
}

/// Struct definition, `Canonical` impl (a row, or a record of `form`), decoder (`decode`, reading the
/// fields in declaration order from the embedded data) and foreign-key accessors ([`references`]) for a list
/// of fields. `row_key`: for a table's row, its primary key's fields (none for a list or singleton table):
/// the decoder is then the row's `runtime::Row` impl, with that key; for a record, `None`.
fn struct_def(
    p: &Project,
    name: &str,
    doc: &str,
    fields: &[Field],
    form: RecordForm,
    ids: &IdMap,
    row_key: Option<&[usize]>,
) -> Result<TokenStream> {
    // A table's single-field primary key is typed with the table's own id.
    let own_pk = match row_key {
        Some(&[k]) => Some(k),
        _ => None,
    };
    let pairs = fields.iter().map(|f| {
        (
            f.name.as_str(),
            naming::rust_field(&f.name, f.ident.as_deref()),
        )
    });
    super::front::collisions(pairs, |a, b, id| {
        format!("{name}: fields {a:?} and {b:?} both become the Rust field `{id}`")
    })?;
    let ident = format_ident!("{}", naming::rust_type(name));
    let doc = doc_attrs(doc, false);
    let fk_of = |fi: usize, f: &Field| {
        if own_pk == Some(fi) {
            ids.own_id(name)
        } else {
            ids.fk_id(f, base_scalar(&f.ty))
        }
    };
    let defs = fields.iter().enumerate().map(|(fi, f)| {
        let id = field_ident(f);
        let ty = rust_ty(&f.ty, fk_of(fi, f).as_ref());
        let d = doc_attrs(&field_doc(f), false);
        quote! { #d pub #id: #ty }
    });
    let reads = fields.iter().enumerate().map(|(fi, f)| {
        let id = field_ident(f);
        let e = decode_expr(p, &f.ty, fk_of(fi, f).as_ref(), true);
        quote! { #id: #e }
    });
    let refs: Vec<TokenStream> = references(
        p,
        fields,
        ids,
        |fi, f| fk_of(fi, f),
        |f| {
            let id = field_ident(f);
            quote! { self.#id }
        },
    )
    .into_iter()
    .map(
        |Accessor {
             doc, m, ret, body, ..
         }| {
            quote! {
                #doc
                #[inline]
                pub fn #m(&self) -> #ret {
                    #body
                }
            }
        },
    )
    .collect();
    let refs = if refs.is_empty() {
        quote! {}
    } else {
        quote! { impl #ident { #(#refs)* } }
    };
    let canonical = match form {
        RecordForm::Closed => {
            let writes = crate::ir::canonical::jcs_order(fields).into_iter().map(|i| {
                let f = &fields[i];
                let id = field_ident(f);
                let key = &f.name;
                if matches!(f.ty, Type::Optional(_)) {
                    quote! { if let Some(v) = &self.#id { crate::canonical::member(out, &mut first, #key, v); } }
                } else {
                    quote! { crate::canonical::member(out, &mut first, #key, &self.#id); }
                }
            });
            quote! {
                let mut first = true;
                out.push('{');
                #(#writes)*
                let _ = first;
                out.push('}');
            }
        }
        RecordForm::Open => {
            // Declared members and extra members merged in RFC 8785 order.
            let (extra, declared) = fields
                .split_last()
                .context("an open record has its extra field")?;
            let extra = field_ident(extra);
            let pushes = declared.iter().map(|f| {
                let id = field_ident(f);
                let key = &f.name;
                if matches!(f.ty, Type::Optional(_)) {
                    quote! { if let Some(v) = &self.#id { members.push((#key, v as &dyn crate::canonical::Canonical)); } }
                } else {
                    quote! { members.push((#key, &self.#id as &dyn crate::canonical::Canonical)); }
                }
            });
            quote! {
                let mut members: Vec<(&str, &dyn crate::canonical::Canonical)> = Vec::new();
                #(#pushes)*
                for (k, v) in self.#extra.iter() {
                    members.push((*k, v as &dyn crate::canonical::Canonical));
                }
                members.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
                let mut first = true;
                out.push('{');
                for (k, v) in members {
                    crate::canonical::member(out, &mut first, k, v);
                }
                out.push('}');
            }
        }
        RecordForm::Tuple { min, rest } => {
            let prefix = fields.len() - usize::from(rest);
            let elems = fields[..prefix].iter().enumerate().map(|(i, f)| {
                let id = field_ident(f);
                if i >= min && matches!(f.ty, Type::Optional(_)) {
                    quote! { match &self.#id { Some(v) => items.push(v as &dyn crate::canonical::Canonical), None => break 'items } }
                } else {
                    quote! { items.push(&self.#id as &dyn crate::canonical::Canonical); }
                }
            });
            let rest = rest.then(|| {
                let id = field_ident(&fields[prefix]);
                quote! { for v in self.#id.iter() { items.push(v as &dyn crate::canonical::Canonical); } }
            });
            quote! {
                let mut items: Vec<&dyn crate::canonical::Canonical> = Vec::new();
                #[allow(unreachable_code, clippy::never_loop)]
                'items: loop {
                    #(#elems)*
                    #rest
                    break 'items;
                }
                out.push('[');
                for (i, v) in items.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_canonical(out);
                }
                out.push(']');
            }
        }
    };
    let decode_doc = quote! {
        /// Read one value from embedded data (docs/data-format.md §3.3): its fields in declaration order.
        /// Not inlined: the table's row loop stays one call (LLVM would copy the body into it).
        #[inline(never)]
    };
    let decode = match row_key {
        // A table's row: the runtime's generic table code reads and looks rows up through `Row`.
        Some(key) => {
            let (key_ty, key_expr) = match key {
                [] => (quote! { () }, quote! {}),
                [k] => {
                    let f = &fields[*k];
                    let (ty, id) = (rust_ty(&f.ty, fk_of(*k, f).as_ref()), field_ident(f));
                    (ty, quote! { self.#id })
                }
                _ => {
                    let tys = key
                        .iter()
                        .map(|&k| rust_ty(&fields[k].ty, fk_of(k, &fields[k]).as_ref()));
                    let ids = key.iter().map(|&k| field_ident(&fields[k]));
                    (quote! { (#(#tys),*) }, quote! { (#(self.#ids),*) })
                }
            };
            quote! {
                impl crate::runtime::Row for #ident {
                    type Key = #key_ty;
                    #[inline]
                    fn key(&self) -> #key_ty { #key_expr }
                    #decode_doc
                    fn decode(r: &mut crate::runtime::Decoder) -> Result<#ident, crate::runtime::Bad> {
                        let v = #ident { #(#reads),* };
                        r.check(v)
                    }
                }
            }
        }
        None => quote! {
            impl #ident {
                #decode_doc
                pub(crate) fn decode(r: &mut crate::runtime::Decoder) -> Result<#ident, crate::runtime::Bad> {
                    let v = #ident { #(#reads),* };
                    r.check(v)
                }
            }
        },
    };
    Ok(quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct #ident { #(#defs),* }
        #[cfg(feature = "canonical")]
        impl crate::canonical::Canonical for #ident {
            fn write_canonical(&self, out: &mut String) {
                #canonical
            }
        }
        #decode
        #refs
    })
}

/// The decoder expression of a value of `ty` (a `Result` context with the reader `r` in scope, see
/// docs/data-format.md §3.3). `fk` = (module, id type) wraps the innermost scalar in that table id; `direct`: a
/// struct field, where a record on a reference cycle is a `&'static` (not inside arrays or maps).
fn decode_expr(p: &Project, ty: &Type, fk: Option<&(String, String)>, direct: bool) -> TokenStream {
    match ty {
        Type::Optional(t) => {
            // Nested optionals are one tag in the data: `Some(Some(v))` or `None`.
            let mut inner: &Type = t;
            let mut depth = 1;
            while let Type::Optional(t) = inner {
                inner = t;
                depth += 1;
            }
            let mut e = decode_expr(p, inner, fk, direct);
            for _ in 0..depth {
                e = quote! { Some(#e) };
            }
            quote! { if r.present() { #e } else { None } }
        }
        Type::Array(t) => {
            let item = decode_expr(p, t, fk, false);
            let min = min_size(p, t, 0);
            // A scalar's array is one shared reader per item type (`Decoder::array`), not a loop per field.
            match &**t {
                Type::Optional(_)
                | Type::Array(_)
                | Type::Map(..)
                | Type::Record(_)
                | Type::Union(_)
                | Type::Json
                | Type::Choice(_) => quote! {{
                    let n = r.len(#min);
                    let mut v = Vec::with_capacity(n);
                    for _ in 0..n { v.push(#item); }
                    crate::runtime::leak(v)
                }},
                _ => quote! { r.array(#min, |r| #item) },
            }
        }
        Type::Map(k, v) => {
            let key = decode_expr(p, k, None, false);
            let value = decode_expr(p, v, fk, false);
            let min = min_size(p, k, 0) + min_size(p, v, 0);
            quote! {{
                let n = r.len(#min);
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let k = #key;
                    v.push((k, #value));
                }
                crate::types::Map(r.map(v)?)
            }}
        }
        Type::Record(n) | Type::Union(n) => {
            let i = format_ident!("{}", naming::rust_type(n));
            if is_boxed(n) {
                let e = quote! { r.nested(crate::records::#i::decode)? };
                if direct {
                    quote! { crate::runtime::boxed(#e) }
                } else {
                    e
                }
            } else {
                quote! { crate::records::#i::decode(r)? }
            }
        }
        _ if fk.is_some() => {
            let (m, id) = fk.expect("checked");
            let m = format_ident!("{}", m);
            let id = format_ident!("{}", id);
            let inner = decode_expr(p, ty, None, direct);
            quote! { crate::#m::#id(#inner) }
        }
        Type::Bool => quote! { r.bool() },
        Type::Int(w) => {
            let m = format_ident!("{}", int_suffix(*w));
            quote! { r.#m() }
        }
        Type::Float => quote! { r.f64() },
        Type::String => quote! { r.str() },
        Type::Enum(n) => {
            let i = format_ident!("{}", naming::rust_type(n));
            quote! { r.member(crate::enums::#i::ALL) }
        }
        Type::Flags(e) => {
            let i = format_ident!("{}", flags_name(e));
            let bits = flag_bits_ty(p, e);
            let members = p.enums.get(e).map_or(0, |d| d.members.len()) as u32;
            quote! { crate::enums::#i(r.flags(#members) as #bits) }
        }
        Type::DateTime(_) => quote! { crate::types::DateTime(r.datetime()) },
        Type::Date => quote! { crate::types::Date(r.date()) },
        Type::Time(_) => quote! { crate::types::Time(r.time()) },
        Type::Duration => quote! { crate::types::Duration(r.duration()) },
        Type::Json => quote! { crate::types::Json::decode(r)? },
        Type::Choice(n) => {
            let i = format_ident!("{}", naming::rust_type(n));
            quote! { crate::records::#i::decode(r)? }
        }
    }
}

/// The fewest bytes a value of `ty` takes in the binary format (so that a count of items can be checked
/// against the rest of the file); 0 for a record whose fields may all be empty.
fn min_size(p: &Project, ty: &Type, depth: usize) -> usize {
    match ty {
        Type::Float => 2,
        Type::Record(n) if depth < 32 => p.records.get(n).map_or(0, |r| {
            r.fields.iter().map(|f| min_size(p, &f.ty, depth + 1)).sum()
        }),
        Type::Record(_) => 0,
        _ => 1,
    }
}

/// Accessors of the rows that foreign-key fields reference (issue 15 item 4): for a field holding the primary
/// key of table `T` (typed with `T`'s id, so one target; or an integer of another width, converted):
/// `<field>_row(&self) -> &'static T`, an `Option` for an optional field, `<field>_rows(&self) -> impl
/// Iterator<Item = &'static T>` for an array or an optional array (empty when absent), an iterator of such
/// iterators for an array of arrays; for a field holding a secondary unique key `T.F` with a lookup, the same
/// through `get_by_<f>`. Validation proved that
/// every reference of the tables' rows exists, so the accessor does not return `Option` for a required
/// field; only a row built by hand with a missing key panics. `fk_of(i, field)` is the field's id type.
fn references(
    p: &Project,
    fields: &[Field],
    ids: &IdMap,
    fk_of: impl Fn(usize, &Field) -> Option<(String, String)>,
    value_of: impl Fn(&Field) -> TokenStream,
) -> Vec<Accessor> {
    let mut out = vec![];
    for (fi, f) in fields.iter().enumerate() {
        let [(target, key_field)] = f.foreign_keys.as_slice() else {
            continue;
        };
        let Some(tt) = p.table(target) else { continue };
        let tm = format_ident!("{}", module(&tt.name));
        let trow = format_ident!("{}", naming::rust_type(&tt.name));
        // How to look a key up: the target's `get` (the field is typed with the target's own id) or a unique
        // key's `get_by_…`; a field of another type than the key's parameter goes through a closure that
        // converts each value (`converted`).
        let pk_named = match key_field {
            None => true,
            Some(k) => tt.primary_key.len() == 1 && tt.field_index(k) == Some(tt.primary_key[0]),
        };
        let mine = base_scalar(&f.ty);
        let lookup = if pk_named {
            let Some(theirs) = ids.own_id(&tt.name) else {
                continue;
            };
            if tt.mode != TableMode::Map || tt.primary_key.len() != 1 {
                continue;
            }
            let (m, id) = (format_ident!("{}", theirs.0), format_ident!("{}", theirs.1));
            match fk_of(fi, f) {
                Some(own) if own == theirs => quote! { crate::#tm::#trow::get },
                other => {
                    // The closure's parameter and the key value in it: a plain value (`Table.Key` spelled
                    // out, or an integer of another width than the key), or the value of another id (a
                    // primary key that references another table with another width).
                    let (param, value) = match other {
                        Some((om, oid)) => {
                            let (om, oid) = (format_ident!("{om}"), format_ident!("{oid}"));
                            (quote! { crate::#om::#oid }, quote! { key.0 })
                        }
                        None => (rust_ty(mine, None), quote! { key }),
                    };
                    let Some(conv) = converted(mine, &tt.fields[tt.primary_key[0]].ty, value)
                    else {
                        continue;
                    };
                    quote! { |key: #param| crate::#tm::#trow::get(crate::#m::#id(#conv)) }
                }
            }
        } else {
            let Some(k) = key_field else { continue };
            let Some(ki) = tt.field_index(k) else {
                continue;
            };
            let Some(key) = tt.unique_keys.iter().find(|u| u.as_slice() == [ki]) else {
                continue;
            };
            let target = &tt.fields[ki];
            // The lookup's parameter is the key field's Rust type: a plain value unless the key field is itself
            // typed as an id (a reference of its own), which a plain field cannot name.
            if !super::lookup_key(tt, key)
                || fk_of(fi, f).is_some()
                || ids.fk_id(target, base_scalar(&target.ty)).is_some()
            {
                continue;
            }
            let l = format_ident!("{}", lookup_name(tt, key));
            if mine == &target.ty {
                quote! { crate::#tm::#trow::#l }
            } else {
                let Some(conv) = converted(mine, &target.ty, quote! { key }) else {
                    continue;
                };
                let fty = rust_ty(mine, None);
                quote! { |key: #fty| crate::#tm::#trow::#l(#conv) }
            }
        };
        let stem = naming::rust_field(&f.name, f.ident.as_deref());
        let stem = stem.trim_end_matches('_');
        let name = &tt.name;
        let doc = doc_attrs(
            &format!(
                "The `{name}` row that `{}` references (a foreign key): validation guarantees it exists for every row read from the tables.\n\n# Panics\n\nIf this row was built by hand with a key that `{name}` does not have.",
                f.name.replace('`', "'")
            ),
            false,
        );
        let v = value_of(f);
        let (m, ret, body) = match &f.ty {
            Type::Optional(t) if is_scalar(t) => (
                format_ident!("{stem}_row"),
                quote! { Option<&'static crate::#tm::#trow> },
                quote! { crate::runtime::resolve_some(#lookup, #name, #v) },
            ),
            Type::Array(t) if is_scalar(t) => (
                format_ident!("{stem}_rows"),
                quote! { impl Iterator<Item = &'static crate::#tm::#trow> },
                quote! { crate::runtime::resolve_each(#lookup, #name, #v) },
            ),
            // An optional array: its rows, none when the field is absent.
            Type::Optional(t) if matches!(&**t, Type::Array(i) if is_scalar(i)) => (
                format_ident!("{stem}_rows"),
                quote! { impl Iterator<Item = &'static crate::#tm::#trow> },
                quote! { crate::runtime::resolve_each(#lookup, #name, #v.unwrap_or(&[])) },
            ),
            // An array of arrays: the rows of each inner array.
            Type::Array(t) if matches!(&**t, Type::Array(i) if is_scalar(i)) => (
                format_ident!("{stem}_rows"),
                quote! { impl Iterator<Item = impl Iterator<Item = &'static crate::#tm::#trow>> },
                quote! { #v.iter().map(|keys| crate::runtime::resolve_each(#lookup, #name, keys)) },
            ),
            // Any other nesting of optionals, arrays and map values (`[int|null]`, an optional array of arrays,
            // `{string: int}`): the same shape with each key replaced by its row (`nested`).
            ty => {
                let row = quote! { crate::#tm::#trow };
                let Some((ret, body)) = nested(ty, v, &row, &lookup, name, 0) else {
                    continue;
                };
                let rows = !matches!(ty, Type::Optional(t) if is_scalar(t)) && !is_scalar(ty);
                (
                    format_ident!("{stem}_{}", if rows { "rows" } else { "row" }),
                    ret,
                    body,
                )
            }
        };
        out.push(Accessor {
            doc,
            field: field_ident(f),
            m,
            ret,
            body,
        });
    }
    out
}

/// One reference accessor of [`references`]: `#doc pub fn #m(&self) -> #ret { #body }` on a record, or the
/// same per variant of a polymorphic record (`Option<#ret>`, `None` for the other variants).
struct Accessor {
    doc: TokenStream,
    /// The field's Rust identifier.
    field: proc_macro2::Ident,
    m: proc_macro2::Ident,
    ret: TokenStream,
    body: TokenStream,
}

/// The return type and the expression of a reference accessor for a key value `value` of type `ty` held in any
/// nesting of optionals, arrays and map values: a key becomes `&'static Row` (`runtime::resolve`), an optional
/// `Option<…>`, an optional array the iterator of its items (none when absent, as a field's optional array), an
/// array `impl Iterator<Item = …>`, a map `impl Iterator<Item = (key, …)>` in key order. `None` for a type
/// holding anything else (records hold their own accessors).
fn nested(
    ty: &Type,
    value: TokenStream,
    row: &TokenStream,
    lookup: &TokenStream,
    table: &str,
    depth: usize,
) -> Option<(TokenStream, TokenStream)> {
    let x = format_ident!("__x{depth}");
    match ty {
        Type::Optional(t) if matches!(&**t, Type::Array(_)) => {
            let Type::Array(item) = &**t else {
                return None;
            };
            let (r, e) = nested(item, quote! { #x }, row, lookup, table, depth + 1)?;
            Some((
                quote! { impl Iterator<Item = #r> },
                quote! { #value.unwrap_or(&[]).iter().map(move |&#x| #e) },
            ))
        }
        Type::Optional(t) => {
            let (r, e) = nested(t, quote! { #x }, row, lookup, table, depth + 1)?;
            Some((
                quote! { Option<#r> },
                quote! { match #value { Some(#x) => Some(#e), None => None } },
            ))
        }
        Type::Array(t) => {
            let (r, e) = nested(t, quote! { #x }, row, lookup, table, depth + 1)?;
            Some((
                quote! { impl Iterator<Item = #r> },
                quote! { #value.iter().map(move |&#x| #e) },
            ))
        }
        Type::Map(k, t) => {
            let kt = rust_ty(k, None);
            let key = format_ident!("__k{depth}");
            let (r, e) = nested(t, quote! { #x }, row, lookup, table, depth + 1)?;
            Some((
                quote! { impl Iterator<Item = (#kt, #r)> },
                quote! { #value.0.iter().map(move |&(#key, #x)| (#key, #e)) },
            ))
        }
        t if is_scalar(t) => Some((
            quote! { &'static #row },
            quote! { crate::runtime::resolve(#lookup, #table, #value) },
        )),
        _ => None,
    }
}

/// `value` (a field's key value of type `from`) as the type `to` of the key it names: itself for the same type,
/// `From` where every value of `from` fits `to`, else `TryFrom` (a value that does not fit names no row: the
/// closure returns `None`); `None` for types that do not convert (not both integers).
fn converted(from: &Type, to: &Type, value: TokenStream) -> Option<TokenStream> {
    match (from, to) {
        _ if from == to => Some(value),
        (Type::Int(from), Type::Int(to)) => {
            let ((lo, hi), (to_lo, to_hi)) = (from.range(), to.range());
            Some(if to_lo <= lo && hi <= to_hi {
                quote! { ::core::convert::From::from(#value) }
            } else {
                quote! { ::core::convert::TryFrom::try_from(#value).ok()? }
            })
        }
        _ => None,
    }
}

/// Whether a foreign key's value type is one key (not optional, an array or a map).
fn is_scalar(t: &Type) -> bool {
    !matches!(t, Type::Optional(_) | Type::Array(_) | Type::Map(..))
}

/// The name of the lookup of unique key `key` of `t`: `get_by_<fields joined by _and_>`.
fn lookup_name(t: &Table, key: &[usize]) -> String {
    let names: Vec<String> = key
        .iter()
        .map(|&i| naming::rust_field(&t.fields[i].name, t.fields[i].ident.as_deref()))
        .map(|n| n.trim_end_matches('_').to_string())
        .collect();
    format!("get_by_{}", names.join("_and_"))
}

fn field_doc(f: &Field) -> String {
    let mut d = f.doc.clone();
    if !f.foreign_keys.is_empty() {
        let targets: Vec<String> = f
            .foreign_keys
            .iter()
            .map(|(t, k)| match k {
                Some(k) => format!("`{t}.{k}`"),
                None => format!("`{t}`"),
            })
            .collect();
        if !d.is_empty() {
            d.push_str("\n\n");
        }
        d.push_str(&format!("Foreign key: a key of {}.", targets.join(" or ")));
    }
    d.push_str(&format!("\n\nColumn `{}`.", f.name.replace('`', "'")));
    d.trim_start().to_string()
}

/// One table's module: the row struct and its decoder, the id type, `SCHEMA_HASH`, the embedded data and its
/// decoding on first use, `all`/`get` (or the singleton's `get`), unique-key lookups and reference accessors.
/// Nothing in it depends on the rows, so a data edit never changes it.
fn table_file(p: &Project, t: &Table, ids: &IdMap) -> Result<TokenStream> {
    let row_ty = format_ident!("{}", naming::rust_type(&t.name));
    let file = data_file(&t.name);
    let mut doc = t.doc.clone();
    doc.push_str(&format!(
        "\n\nTable `{}` (mode `{}`), schema `{}`; its rows are embedded from `{}`.",
        t.name,
        t.mode.keyword(),
        t.schema_file,
        file
    ));
    let def = struct_def(
        p,
        &t.name,
        doc.trim_start(),
        &t.fields,
        RecordForm::Closed,
        ids,
        Some(if t.mode == TableMode::Map {
            &t.primary_key
        } else {
            &[]
        }),
    )?;
    let schema_hash = super::data::schema_hash(p, t);
    let table_name = &t.name;
    let index = p
        .tables
        .iter()
        .position(|x| x.name == t.name)
        .context("table not in its project (gentable bug)")?;
    let index = Literal::usize_unsuffixed(index);
    let keys: Vec<proc_macro2::Ident> = t
        .primary_key
        .iter()
        .map(|&i| field_ident(&t.fields[i]))
        .collect();
    // The runtime's generic decoder for the table's mode (docs/data-format.md §3.3): a sorted map table's
    // keys must ascend strictly (the lookups search them), a source-ordered one's be distinct.
    let decoder = match t.mode {
        TableMode::One => quote! { single },
        TableMode::List => quote! { list },
        TableMode::Map if t.source_order => quote! { source_order },
        TableMode::Map => quote! { sorted },
    };
    let panics = |what: &str, alt: &str| {
        doc_attrs(
            &format!(
                "{what}, decoded on first use.\n\n# Panics\n\nIf the embedded `{}` cannot be read (a file under `generated/` edited by hand): `{alt}` and the crate's `load()` return the error instead.",
                file.replace('`', "'")
            ),
            false,
        )
    };
    let all_doc = panics(
        if t.mode == TableMode::Map {
            "Every row, sorted by primary key"
        } else {
            "Every row, in source order"
        },
        "try_all",
    );
    let get_doc = panics("The single row", "try_get");
    let table_doc = format!(
        " The rows of `{}`, decoded on first use from the embedded `{}`.",
        t.name.replace('`', "'"),
        file.replace('`', "'")
    );
    let storage = quote! {
        /// The `schemaHash` of this table (docs/data-format.md §1): it changes only with the table's schema.
        pub const SCHEMA_HASH: &str = #schema_hash;
        #[doc = #table_doc]
        pub(crate) static TABLE: crate::runtime::Table =
            crate::runtime::Table::new(#index, #file, #table_name, SCHEMA_HASH, crate::runtime::#decoder::<#row_ty>);
    };
    let try_all = quote! { TABLE.try_rows() };
    let body = match t.mode {
        TableMode::One => quote! {
            impl #row_ty {
                #get_doc
                #[inline]
                pub fn get() -> &'static #row_ty { &TABLE.rows::<#row_ty>()[0] }
                /// The single row, or why the embedded data cannot be read.
                #[inline]
                pub fn try_get() -> Result<&'static #row_ty, crate::DataError> {
                    let rows: &'static [#row_ty] = #try_all?;
                    Ok(&rows[0])
                }
            }
        },
        TableMode::List => quote! {
            impl #row_ty {
                #all_doc
                #[inline]
                pub fn all() -> &'static [#row_ty] { TABLE.rows() }
                /// Every row, or why the embedded data cannot be read.
                #[inline]
                pub fn try_all() -> Result<&'static [#row_ty], crate::DataError> { #try_all }
            }
        },
        TableMode::Map => {
            let key_fields: Vec<&Field> = t.primary_key.iter().map(|&i| &t.fields[i]).collect();
            let (id_def, get) = if key_fields.len() == 1 {
                let (m, id, inner) = &ids.ids[&t.name];
                let m = format_ident!("{}", m);
                let id = format_ident!("{}", id);
                let inner_ty = rust_ty(inner, None);
                let id_doc = format!(
                    " Primary key of `{}` (column `{}`).",
                    t.name, key_fields[0].name
                );
                let id_def = if ids.defines_id(&t.name) {
                    quote! {
                                    #[doc = #id_doc]
                                    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
                                    pub struct #id(pub #inner_ty);
                                    #[cfg(feature = "canonical")]
                    impl crate::canonical::Canonical for #id {
                                        fn write_canonical(&self, out: &mut String) { crate::canonical::Canonical::write_canonical(&self.0, out) }
                                    }
                                    impl #id {
                                        /// The row with this key, if any (always present for keys read from the tables;
                                        /// their foreign-key fields also have a `<field>_row()` accessor without `Option`).
                                        #[inline]
                                        pub fn row(self) -> Option<&'static #row_ty> { #row_ty::get(self) }
                                    }
                                }
                } else {
                    quote! {}
                };
                let get = if t.source_order {
                    quote! {
                        /// The row with primary key `key`, by binary search over row positions sorted by key.
                        #[inline]
                        pub fn get(key: crate::#m::#id) -> Option<&'static #row_ty> {
                            crate::runtime::get_in_order(#row_ty::all(), #row_ty::by_key(), key)
                        }
                    }
                } else {
                    quote! {
                        /// The row with primary key `key`, by binary search (rows are sorted by key).
                        #[inline]
                        pub fn get(key: crate::#m::#id) -> Option<&'static #row_ty> {
                            crate::runtime::get(&TABLE, key)
                        }
                    }
                };
                (id_def, get)
            } else {
                let params: Vec<_> = key_fields
                    .iter()
                    .zip(&keys)
                    .map(|(f, k)| {
                        let ty = rust_ty(&f.ty, ids.fk_id(f, base_scalar(&f.ty)).as_ref());
                        quote! { #k: #ty }
                    })
                    .collect();
                let get = if t.source_order {
                    quote! {
                        /// The row with this composite primary key, by binary search over row positions sorted by key.
                        #[inline]
                        pub fn get(#(#params),*) -> Option<&'static #row_ty> {
                            crate::runtime::get_in_order(#row_ty::all(), #row_ty::by_key(), (#(#keys),*))
                        }
                    }
                } else {
                    quote! {
                        /// The row with this composite primary key, by binary search (rows are sorted by key).
                        #[inline]
                        pub fn get(#(#params),*) -> Option<&'static #row_ty> {
                            crate::runtime::get(&TABLE, (#(#keys),*))
                        }
                    }
                };
                (quote! {}, get)
            };
            let storage_doc = if t.source_order {
                panics(
                    "Every row, in source order (`order = \"source\"`)",
                    "try_all",
                )
            } else {
                all_doc.clone()
            };
            let by_key = if t.source_order {
                // `order = "source"`: rows keep the sheet's order; `get` searches row positions sorted by key.
                quote! {
                    /// Row positions sorted by primary key, built on the first lookup.
                    #[inline]
                    fn by_key() -> &'static [u32] {
                        static BY_KEY: std::sync::OnceLock<Box<[u32]>> = std::sync::OnceLock::new();
                        BY_KEY.get_or_init(|| crate::runtime::key_order(#row_ty::all()))
                    }
                }
            } else {
                quote! {}
            };
            quote! {
                #id_def
                impl #row_ty {
                    #storage_doc
                    #[inline]
                    pub fn all() -> &'static [#row_ty] { TABLE.rows() }
                    /// Every row, or why the embedded data cannot be read.
                    #[inline]
                    pub fn try_all() -> Result<&'static [#row_ty], crate::DataError> { #try_all }
                    #get
                    #by_key
                }
            }
        }
    };
    let uniques = unique_lookups(t, ids)?;
    let mod_doc = doc_attrs(&format!("Table `{}`.", t.name), true);
    Ok(quote! {
        #mod_doc
        #def
        #storage
        #body
        #uniques
    })
}

/// `Language` and `text(key, language)` for `[localization]` (nothing without it, or when this output has
/// no text table).
fn text_lookup(text: Option<TextTable>, ids: &IdMap) -> Result<TokenStream> {
    let Some(tt) = text else {
        return Ok(quote! {});
    };
    let t = tt.table;
    let m = format_ident!("{}", module(&t.name));
    let row_ty = format_ident!("{}", naming::rust_type(&t.name));
    let k = field_ident(&t.fields[t.primary_key[0]]);
    let key = if ids.defines_id(&t.name) {
        quote! { r.#k.0 }
    } else {
        quote! { r.#k }
    };
    let variants: Vec<_> = tt
        .languages()
        .map(|(x, _)| format_ident!("{}", naming::rust_variant(x)))
        .collect();
    let codes: Vec<&str> = tt.languages().map(|(x, _)| x).collect();
    let mut arms = vec![];
    for ((_, fi), v) in tt.languages().zip(&variants) {
        let f = field_ident(&t.fields[fi]);
        arms.push(match &t.fields[fi].ty {
            Type::Optional(_) => quote! { Language::#v => r.#f },
            _ => quote! { Language::#v => Some(r.#f) },
        });
    }
    let doc = format!(
        " The languages of table `{}` (`[localization] languages`), the default first.",
        t.name
    );
    let fdoc = format!(" The text of `key` in `language` (table `{}`), or `None` if the key or its text is missing.", t.name);
    let find = if t.source_order {
        quote! {
            let rows = #m::#row_ty::all();
            let by_key = #m::#row_ty::by_key();
            let j = by_key.binary_search_by(|&i| { let r = &rows[i as usize]; #key.cmp(key) }).ok()?;
            let r = &rows[by_key[j] as usize];
        }
    } else {
        quote! {
            let rows = #m::#row_ty::all();
            let i = rows.binary_search_by(|r| #key.cmp(key)).ok()?;
            let r = &rows[i];
        }
    };
    Ok(quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Language { #(#variants),* }
        impl Language {
            /// Every language, the default first.
            pub const ALL: &'static [Language] = &[#(Language::#variants),*];
            /// The language's column name.
            pub fn code(self) -> &'static str {
                match self { #(Language::#variants => #codes),* }
            }
        }
        #[doc = #fdoc]
        pub fn text(key: &str, language: Language) -> Option<&'static str> {
            #find
            let text: Option<&'static str> = match language { #(#arms),* };
            text.filter(|s| !s.is_empty())
        }
    })
}

/// `get_by_<fields>` per secondary unique key (`x-gentable-unique`): an index of row positions sorted by the
/// key, built on the first lookup, searched by binary search.
fn unique_lookups(t: &Table, ids: &IdMap) -> Result<TokenStream> {
    let row_ty = format_ident!("{}", naming::rust_type(&t.name));
    let own_pk = (t.mode == TableMode::Map && t.primary_key.len() == 1).then(|| t.primary_key[0]);
    let mut out = vec![];
    for key in &t.unique_keys {
        if !super::lookup_key(t, key) {
            continue;
        }
        let fname = format_ident!("{}", lookup_name(t, key));
        let idents: Vec<_> = key.iter().map(|&i| field_ident(&t.fields[i])).collect();
        let params = key.iter().zip(&idents).map(|(&i, id)| {
            let f = &t.fields[i];
            let fk = if own_pk == Some(i) {
                ids.own_id(&t.name)
            } else {
                ids.fk_id(f, base_scalar(&f.ty))
            };
            let ty = if f.ty == Type::String && fk.is_none() {
                quote! { &str }
            } else {
                rust_ty(&f.ty, fk.as_ref())
            };
            quote! { #id: #ty }
        });
        let doc = format!(
            " The row whose {} (a unique key), by binary search over an index built on the first lookup.",
            key.iter()
                .map(|&i| format!("`{}`", t.fields[i].name))
                .collect::<Vec<_>>()
                .join(", ")
        );
        out.push(quote! {
            impl #row_ty {
                #[doc = #doc]
                #[inline]
                pub fn #fname(#(#params),*) -> Option<&'static #row_ty> {
                    static INDEX: std::sync::OnceLock<Box<[u32]>> = std::sync::OnceLock::new();
                    let __rows = #row_ty::all();
                    let __index = INDEX.get_or_init(|| {
                        crate::runtime::index(__rows, |__a, __b| (#(__a.#idents),*).cmp(&(#(__b.#idents),*)))
                    });
                    __index
                        .binary_search_by(|&__i| { let __row = &__rows[__i as usize]; (#(__row.#idents),*).cmp(&(#(#idents),*)) })
                        .ok()
                        .map(|__j| &__rows[__index[__j] as usize])
                }
            }
        });
    }
    Ok(quote! { #(#out)* })
}

/// The Rust variant of member `i` of `e`: its verbatim `x-gentable-name` (keywords escaped), else the naming
/// rule.
fn variant_name(e: &crate::ir::EnumDef, i: usize) -> String {
    match e.ident(i) {
        Some(id) => naming::escape_keyword(id.to_string(), naming::Lang::Rust),
        None => naming::rust_variant(&e.members[i]),
    }
}

fn enums_file(p: &Project) -> Result<TokenStream> {
    let mut out = vec![];
    let mut clashes = super::front::Errors::default();
    for e in p.enums.values() {
        let pairs = e
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.as_str(), variant_name(e, i)));
        let checked = super::front::collisions(pairs, |a, b, id| {
            format!(
                "enum {}: members {a:?} and {b:?} both become the Rust variant `{id}`",
                e.name
            )
        });
        if clashes.take(checked).is_none() {
            continue;
        }
        let name = format_ident!("{}", naming::rust_type(&e.name));
        let mut doc = e.doc.clone();
        doc.push_str(&format!("\n\nDefined at `{}`.", e.origin));
        let doc = doc_attrs(doc.trim_start(), false);
        let variants: Vec<_> = (0..e.members.len())
            .map(|i| format_ident!("{}", variant_name(e, i)))
            .collect();
        let names = &e.members;
        // Member names are spreadsheet text: through doc_attrs, which shows bidirectional controls escaped.
        let vdocs: Vec<TokenStream> = e
            .members
            .iter()
            .map(|m| doc_attrs(&format!("`{m}`"), false))
            .collect();
        // `x-gentable-enumValues`: explicit discriminants, `value()` and `from_value()`.
        let (repr, decl, values) = match &e.values {
            Some(vs) => {
                let lits: Vec<proc_macro2::Literal> = vs
                    .iter()
                    .map(|v| proc_macro2::Literal::i32_unsuffixed(*v as i32))
                    .collect();
                (
                    quote! { #[repr(i32)] },
                    quote! { #(#vdocs #variants = #lits),* },
                    quote! {
                        /// The member's integer value (`x-gentable-enumValues`).
                        pub fn value(self) -> i32 { self as i32 }
                        /// The member with this integer value, if any.
                        pub fn from_value(v: i32) -> Option<#name> {
                            match v { #(#lits => Some(#name::#variants),)* _ => None }
                        }
                    },
                )
            }
            None => (quote! {}, quote! { #(#vdocs #variants),* }, quote! {}),
        };
        let allow = if e.idents.iter().any(Option::is_some) {
            quote! { #[allow(non_camel_case_types, clippy::upper_case_acronyms)] }
        } else {
            quote! {}
        };
        out.push(quote! {
            #doc
            #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
            #repr
            #allow
            pub enum #name { #decl }
            impl #name {
                #values
                /// Every member, in declaration order.
                pub const ALL: &'static [#name] = &[#(#name::#variants),*];
                /// The member's name as written in the tables.
                pub fn name(self) -> &'static str {
                    match self { #(#name::#variants => #names),* }
                }
                /// The member with this name, if any.
                pub fn from_name(s: &str) -> Option<#name> {
                    match s { #(#names => Some(#name::#variants),)* _ => None }
                }
            }
            impl core::fmt::Display for #name {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result { f.write_str(self.name()) }
            }
            #[cfg(feature = "canonical")]
        impl crate::canonical::Canonical for #name {
                fn write_canonical(&self, out: &mut String) { crate::canonical::write_str(out, self.name()) }
            }
        });
    }
    for e in p.flag_enums() {
        let def = &p.enums[&e];
        let en = format_ident!("{}", naming::rust_type(&e));
        let name = format_ident!("{}", flags_name(&e));
        let bits = flag_bits_ty(p, &e);
        let consts = def.members.iter().enumerate().map(|(i, m)| {
            // `EMPTY` is the empty set, declared below.
            let c = naming::avoid(
                naming::rust_field(m, None)
                    .trim_end_matches('_')
                    .to_uppercase(),
                &["EMPTY"],
            );
            let c = format_ident!("{}", c);
            let v = format!("1{bits} << {i}")
                .parse::<TokenStream>()
                .expect("literal");
            let d = doc_attrs(&format!("Only `{m}`."), false);
            quote! { #d pub const #c: #name = #name(#v); }
        });
        let doc = format!(" A set of [`{}`] members (`x-gentable-flags`): bit `i` is member `i` in declaration order.", naming::rust_type(&e));
        // The bit of a member is its index, not its discriminant (`x-gentable-enumValues` may set `B = 2`).
        let variants: Vec<_> = (0..def.members.len())
            .map(|i| format_ident!("{}", variant_name(def, i)))
            .collect();
        let indices: Vec<proc_macro2::Literal> = (0..def.members.len())
            .map(|i| proc_macro2::Literal::u32_unsuffixed(i as u32))
            .collect();
        out.push(quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
            pub struct #name(pub #bits);
            impl #name {
                /// No member.
                pub const EMPTY: #name = #name(0);
                #(#consts)*
                /// The bits.
                pub const fn bits(self) -> #bits { self.0 }
                /// Whether `member` is in the set.
                pub const fn contains(self, member: #en) -> bool {
                    let bit: u32 = match member { #(#en::#variants => #indices,)* };
                    self.0 & (1 << bit) != 0
                }
                /// Whether every member of `other` is in the set.
                pub const fn contains_all(self, other: #name) -> bool { self.0 & other.0 == other.0 }
                /// Whether the set is empty.
                pub const fn is_empty(self) -> bool { self.0 == 0 }
                /// The set with the members of both.
                pub const fn union(self, other: #name) -> #name { #name(self.0 | other.0) }
                /// The members, in declaration order.
                pub fn iter(self) -> impl Iterator<Item = #en> {
                    #en::ALL.iter().copied().filter(move |m| self.contains(*m))
                }
            }
            #[cfg(feature = "canonical")]
        impl crate::canonical::Canonical for #name {
                fn write_canonical(&self, out: &mut String) {
                    out.push('[');
                    for (i, m) in self.iter().enumerate() {
                        if i > 0 { out.push(','); }
                        crate::canonical::write_str(out, m.name());
                    }
                    out.push(']');
                }
            }
        });
    }
    clashes.finish()?;
    Ok(quote! {
        //! Enum types (JSON Schema string enums).
        #(#out)*
    })
}

/// A polymorphic record: an enum with one struct variant per branch, `kind()` and a `Canonical` impl that
/// writes the discriminator among the fields in JCS order.
fn union_def(p: &Project, u: &crate::ir::UnionDef, ids: &IdMap) -> Result<TokenStream> {
    let ident = format_ident!("{}", naming::rust_type(&u.name));
    let mut doc = u.doc.clone();
    doc.push_str(&format!(
        "\n\nPolymorphic record told apart by `{}`; defined at `{}`.",
        u.discriminator, u.origin
    ));
    let doc = doc_attrs(doc.trim_start(), false);
    let tags: Vec<(&str, String)> = u
        .variants
        .iter()
        .map(|v| (v.tag.as_str(), naming::rust_variant(&v.tag)))
        .collect();
    let mut clashes = super::front::Errors::default();
    clashes.take(super::front::collisions(tags, |a, b, id| {
        format!(
            "{}: kinds {a:?} and {b:?} both become the Rust variant `{id}`",
            u.name
        )
    }));
    let mut variants = vec![];
    let mut kinds = vec![];
    let mut writes = vec![];
    let mut decodes = vec![];
    let mut accessors = vec![];
    let mut accessor_names = std::collections::BTreeSet::new();
    for v in &u.variants {
        let pairs = v.fields.iter().map(|f| {
            (
                f.name.as_str(),
                naming::rust_field(&f.name, f.ident.as_deref()),
            )
        });
        clashes.take(super::front::collisions(pairs, |a, b, id| {
            format!(
                "{} {}: fields {a:?} and {b:?} both become the Rust field `{id}`",
                u.name, v.tag
            )
        }));
        let vi = format_ident!("{}", naming::rust_variant(&v.tag));
        let tag = &v.tag;
        let tag_doc = format!(
            " `None` unless `{}` is `{tag}`.",
            u.discriminator.replace('`', "'")
        );
        let vdoc = doc_attrs(
            format!("{}\n\n`{}` = `{tag}`.", v.doc, u.discriminator).trim_start(),
            false,
        );
        let defs = v.fields.iter().map(|f| {
            let id = field_ident(f);
            let ty = rust_ty(&f.ty, ids.fk_id(f, base_scalar(&f.ty)).as_ref());
            let d = doc_attrs(&field_doc(f), false);
            quote! { #d #id: #ty }
        });
        variants.push(quote! { #vdoc #vi { #(#defs),* } });
        // Reference accessors of this variant's foreign-key fields: `<kind>_<field>_row(s)()`, `None` for the
        // other variants.
        let prefix = naming::rust_field(&v.tag, None);
        let prefix = prefix.trim_end_matches('_');
        for a in references(
            p,
            &v.fields,
            ids,
            |_, f| ids.fk_id(f, base_scalar(&f.ty)),
            |f| {
                let id = field_ident(f);
                quote! { #id }
            },
        ) {
            let Accessor {
                doc,
                field,
                m,
                ret,
                body,
            } = a;
            let m = format_ident!("{prefix}_{m}");
            if !accessor_names.insert(m.to_string()) {
                continue;
            }
            let other = (u.variants.len() > 1).then(|| quote! { _ => None, });
            accessors.push(quote! {
                #doc
                #[doc = ""]
                #[doc = #tag_doc]
                #[inline]
                pub fn #m(&self) -> Option<#ret> {
                    match self {
                        #ident::#vi { #field, .. } => {
                            let #field = *#field;
                            Some(#body)
                        }
                        #other
                    }
                }
            });
        }
        kinds.push(quote! { #ident::#vi { .. } => #tag });
        let reads = v.fields.iter().map(|f| {
            let id = field_ident(f);
            let e = decode_expr(p, &f.ty, ids.fk_id(f, base_scalar(&f.ty)).as_ref(), true);
            quote! { #id: #e }
        });
        decodes.push(quote! { #ident::#vi { #(#reads),* } });
        let binds: Vec<_> = v
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let id = field_ident(f);
                let b = format_ident!("__f{}", i);
                quote! { #id: #b }
            })
            .collect();
        let mut members: Vec<(&str, Option<usize>)> = vec![(u.discriminator.as_str(), None)];
        members.extend(
            v.fields
                .iter()
                .enumerate()
                .map(|(i, f)| (f.name.as_str(), Some(i))),
        );
        members.sort_by_key(|(n, _)| crate::ir::canonical::utf16_key(n));
        let ws = members.into_iter().map(|(key, i)| match i {
            None => quote! { crate::canonical::member(out, &mut first, #key, #tag); },
            Some(i) => {
                let b = format_ident!("__f{}", i);
                if matches!(v.fields[i].ty, Type::Optional(_)) {
                    quote! { if let Some(v) = #b { crate::canonical::member(out, &mut first, #key, v); } }
                } else {
                    quote! { crate::canonical::member(out, &mut first, #key, #b); }
                }
            }
        });
        writes.push(quote! { #ident::#vi { #(#binds),* } => { #(#ws)* } });
    }
    let disc = &u.discriminator;
    clashes.finish()?;
    let kind_doc = format!(" The value of `{disc}`: which kind this is.");
    // The variant index was checked against the count, so the last variant takes every other index.
    let count = u.variants.len();
    let last = decodes
        .pop()
        .context("a polymorphic record without variants")?;
    let arms = decodes
        .iter()
        .enumerate()
        .map(|(i, d)| quote! { #i => #d, });
    Ok(quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum #ident { #(#variants),* }
        impl #ident {
            /// Read one value from embedded data (docs/data-format.md §3.3): the variant's index in `oneOf`
            /// order, then its fields.
            pub(crate) fn decode(r: &mut crate::runtime::Decoder) -> Result<#ident, crate::runtime::Bad> {
                let v = match r.index(#count) { #(#arms)* _ => #last };
                r.check(v)
            }
        }
        impl #ident {
            #[doc = #kind_doc]
            pub fn kind(&self) -> &'static str {
                match self { #(#kinds),* }
            }
            #(#accessors)*
        }
        #[cfg(feature = "canonical")]
        impl crate::canonical::Canonical for #ident {
            fn write_canonical(&self, out: &mut String) {
                let mut first = true;
                out.push('{');
                match self { #(#writes)* }
                let _ = first;
                out.push('}');
            }
        }
    })
}

/// A scalar union: an enum with one tuple variant per member (`Boolean`, `Integer`, `Number`, `String`),
/// written as canonical JSON as the member's value, decoded from its member index and the member's value
/// (docs/data-format.md §3.3).
fn choice_def(p: &Project, c: &crate::ir::ChoiceDef) -> Result<TokenStream> {
    let ident = format_ident!("{}", naming::rust_type(&c.name));
    let words = c.words();
    let mut doc = c.doc.clone();
    doc.push_str(&format!(
        "\n\nOne of {words} (a scalar union); defined at `{}`.",
        c.origin
    ));
    let doc = doc_attrs(doc.trim_start(), false);
    let variants = c.members.iter().map(|m| {
        let v = format_ident!("{}", choice_variant(m));
        let ty = rust_ty(m, None);
        let d = format!(" {}", m.words());
        quote! { #[doc = #d] #v(#ty) }
    });
    let writes = c.members.iter().map(|m| {
        let v = format_ident!("{}", choice_variant(m));
        quote! { #ident::#v(x) => crate::canonical::Canonical::write_canonical(x, out) }
    });
    let last = c.members.len().saturating_sub(1);
    let reads = c.members.iter().enumerate().map(|(i, m)| {
        let v = format_ident!("{}", choice_variant(m));
        let e = decode_expr(p, m, None, false);
        if i == last {
            quote! { _ => #ident::#v(#e) }
        } else {
            let i = Literal::usize_unsuffixed(i);
            quote! { #i => #ident::#v(#e) }
        }
    });
    let count = c.members.len();
    Ok(quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum #ident { #(#variants),* }
        #[cfg(feature = "canonical")]
        impl crate::canonical::Canonical for #ident {
            fn write_canonical(&self, out: &mut String) {
                match self { #(#writes),* }
            }
        }
        impl #ident {
            /// Read one value from embedded data (docs/data-format.md §3.3): the member's index, then its value.
            pub(crate) fn decode(r: &mut crate::runtime::Decoder) -> Result<#ident, crate::runtime::Bad> {
                let v = match r.index(#count) { #(#reads),* };
                r.check(v)
            }
        }
    })
}

fn records_file(p: &Project, ids: &IdMap) -> Result<TokenStream> {
    let mut out = vec![];
    let mut clashes = super::front::Errors::default();
    for r in p.records.values() {
        let mut doc = r.doc.clone();
        doc.push_str(&format!("\n\nDefined at `{}`.", r.origin));
        out.extend(clashes.take(struct_def(
            p,
            &r.name,
            doc.trim_start(),
            &r.fields,
            r.form,
            ids,
            None,
        )));
    }
    for u in p.unions.values() {
        out.extend(clashes.take(union_def(p, u, ids)));
    }
    for c in p.choices.values() {
        out.extend(clashes.take(choice_def(p, c)));
    }
    clashes.finish()?;
    Ok(quote! {
        //! Record types (JSON Schema objects nested in rows).
        #(#out)*
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::testkit::{self, HASH};
    use crate::ir::Value;

    /// The sample project's Rust files and the binary data files of its tables (what the build writes).
    fn crate_files(p: &Project, root: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
        let mut out: BTreeMap<String, Vec<u8>> =
            testkit::emit_sample(emit, p, root, &testkit::config())
                .into_iter()
                .map(|(k, v)| (k, v.into_bytes()))
                .collect();
        let hashes = testkit::data_hashes(p);
        for t in &p.tables {
            let bytes = crate::emit::data::binary::encode(
                p,
                t,
                &hashes[&t.name],
                &crate::emit::data::schema_hash(p, t),
            )
            .unwrap();
            out.insert(format!("rust/{}", data_file(&t.name)), bytes);
        }
        out
    }

    #[test]
    fn code_depends_on_the_schema_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = testkit::project();
        let a = crate_files(&p, dir.path());
        // Edit a cell and drop a row: only the data file and the facade's lib.rs (its hashes) change; the
        // code crate (`rust/code/`) does not change at all.
        let mut q = p.clone();
        let t = q.tables.iter_mut().find(|t| t.name == "PieceType").unwrap();
        let name = t.field_index("Name").unwrap();
        t.rows[0].values[name] = Value::Str("an edited cell".into());
        t.rows.pop();
        let b = crate_files(&q, dir.path());
        let changed: Vec<&str> = a
            .keys()
            .filter(|k| a.get(*k) != b.get(*k))
            .map(String::as_str)
            .collect();
        assert_eq!(changed, ["rust/data/PieceType.bytes", "rust/src/lib.rs"]);
        let facade = std::str::from_utf8(&a["rust/src/lib.rs"]).unwrap();
        assert!(facade.contains(&format!("pub const CONTENT_HASH: &str = \"{HASH}\";")));
        assert!(
            facade.contains("include_bytes!(\"../data/PieceType.bytes\")"),
            "{facade}"
        );
        // The code crate reaches the data only through the facade's symbol, never by a path.
        let code: Vec<&str> = a
            .keys()
            .filter(|k| k.starts_with("rust/code/"))
            .map(String::as_str)
            .collect();
        assert!(
            code.contains(&"rust/code/Cargo.toml") && code.contains(&"rust/code/src/piece_type.rs")
        );
        for k in &code {
            let text = std::str::from_utf8(&a[*k]).unwrap();
            assert!(
                !text.contains("include_bytes!") && !text.contains("Pawn"),
                "{k}"
            );
        }
        let manifest = std::str::from_utf8(&a["rust/Cargo.toml"]).unwrap();
        let code_name = code_crate(&testkit::config().rust.crate_name);
        assert!(
            manifest.contains(&format!("\n{code_name} = {{ path = \"code\" }}\n")),
            "{manifest}"
        );
        let piece = std::str::from_utf8(&a["rust/code/src/piece_type.rs"]).unwrap();
        assert!(!piece.contains("Pawn"), "no cell value is in the code");
    }

    /// Compile the sample crate (rows embedded as binary data) with cargo, warnings denied, and check that
    /// every table decodes to exactly the canonical JSON gentable writes.
    #[test]
    fn sample_crate_compiles_and_decodes_to_the_canonical_data() {
        let Some(cargo) = testkit::require(
            std::env::var_os("CARGO").map(std::path::PathBuf::from),
            "cargo",
        ) else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let p = testkit::project();
        let files = crate_files(&p, dir.path());
        for (rel, bytes) in &files {
            let path = dir.path().join("gen").join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        let name = &testkit::config().rust.crate_name;
        std::fs::create_dir_all(dir.path().join("dump/src")).unwrap();
        std::fs::write(
            dir.path().join("dump/Cargo.toml"),
            format!("[package]\nname = \"dump\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n[workspace]\n\n[dependencies]\nt = {{ package = \"{name}\", path = \"../gen/rust\", features = [\"canonical\"] }}\n"),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("dump/src/main.rs"),
            // The typed references of every shape (testkit's `add_references`): `Next` is an optional `i32`
            // for a `u16` key, `Owners` an array of arrays, `Spares` an optional array, `Lead` an `i64` naming
            // `PieceType.Id` explicitly; `Mates` an array of optional keys, `Squads` an optional array of
            // arrays, `Ranks` keys as map values, `Act`'s kind `class` a field `by` (`None` for other kinds).
            "fn main() {\n    t::load().unwrap();\n    for (name, json) in t::canonical_tables() {\n        println!(\"{name}\\t{json}\");\n    }\n    \
             let piece = |k| t::piece_type::PieceType::get(t::piece_type::PieceTypeId(k)).unwrap();\n    \
             let next: Vec<Option<u16>> = [1, 2, 65535].iter().map(|&k| piece(k).next_row().map(|r| r.id.0)).collect();\n    \
             let owners: Vec<Vec<Vec<u16>>> = t::extras::Extras::all().iter().map(|e| e.owners_rows().map(|i| i.map(|r| r.id.0).collect()).collect()).collect();\n    \
             let spares: Vec<Vec<u16>> = t::extras::Extras::all().iter().map(|e| e.spares_rows().map(|r| r.id.0).collect()).collect();\n    \
             let lead: Vec<u16> = t::extras::Extras::all().iter().map(|e| e.lead_row().id.0).collect();\n    \
             let mates: Vec<Vec<Option<u16>>> = t::extras::Extras::all().iter().map(|e| e.mates_rows().map(|r| r.map(|r| r.id.0)).collect()).collect();\n    \
             let squads: Vec<Vec<Vec<u16>>> = t::extras::Extras::all().iter().map(|e| e.squads_rows().map(|i| i.map(|r| r.id.0).collect()).collect()).collect();\n    \
             let ranks: Vec<Vec<(&str, u16)>> = t::extras::Extras::all().iter().map(|e| e.ranks_rows().map(|(k, r)| (k, r.id.0)).collect()).collect();\n    \
             let by: Vec<Option<Option<u16>>> = t::extras::Extras::all().iter().map(|e| e.act.class_by_row().map(|r| r.map(|r| r.id.0))).collect();\n    \
             let guards: Vec<Option<Vec<(&str, u16)>>> = t::extras::Extras::all().iter().map(|e| e.guards_rows().map(|i| i.map(|(k, r)| (k, r.id.0)).collect())).collect();\n    \
             eprintln!(\"{next:?} {owners:?} {spares:?} {lead:?} {mates:?} {squads:?} {ranks:?} {by:?} {guards:?}\");\n}\n",
        )
        .unwrap();
        let out = std::process::Command::new(cargo)
            .args(["run", "--quiet", "--manifest-path"])
            .arg(dir.path().join("dump/Cargo.toml"))
            .env("CARGO_TARGET_DIR", dir.path().join("target"))
            .env("RUSTFLAGS", "-D warnings")
            .output()
            .unwrap();
        let (out, err) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(
            err.trim_end(),
            "[Some(2), None, Some(1)] [[[1, 2], [65535]], []] [[2, 1], []] [65535, 1] \
             [[Some(1), None, Some(65535)], []] [[[2], [1, 2]], []] [[(\"a\", 1), (\"b\", 65535)], []] \
             [Some(Some(2)), None] [Some([(\"g\", 2)]), None]",
            "{out}"
        );
        let got: Vec<(String, String)> = out
            .lines()
            .map(|l| {
                let (n, j) = l.split_once('\t').unwrap();
                (n.to_string(), j.to_string())
            })
            .collect();
        assert_eq!(got, testkit::canonical(&p));
    }

    /// The generated crate's float printer (`canonical.rs`, what `canonical_tables()` writes) against
    /// gentable's own (`ryu-js`, the canonical data) on testkit's doubles: powers of two, subnormals, short
    /// decimals, random bit patterns and ties between two shortest forms (`890713491284145.25`).
    #[test]
    fn generated_float_printer_matches_the_canonical_data() {
        let Some(rustc) = testkit::tool("rustc") else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("canonical.rs"), support::CANONICAL_RS).unwrap();
        std::fs::write(
            dir.path().join("main.rs"),
            "#![allow(dead_code)]\nmod canonical;\nfn main() {\n    let mut out = String::new();\n    \
             for line in std::io::read_to_string(std::io::stdin()).unwrap().lines() {\n        \
             canonical::write_f64(&mut out, f64::from_bits(u64::from_str_radix(line, 16).unwrap()));\n        \
             out.push('\\n');\n    }\n    print!(\"{out}\");\n}\n",
        )
        .unwrap();
        testkit::run(
            std::process::Command::new(rustc)
                .current_dir(dir.path())
                .args([
                    "--edition",
                    "2021",
                    "-O",
                    "-D",
                    "warnings",
                    "main.rs",
                    "-o",
                    "floats",
                ]),
        );
        let doubles = testkit::doubles();
        let input: String = doubles
            .iter()
            .map(|d| format!("{:016x}\n", d.to_bits()))
            .collect();
        let mut child = std::process::Command::new(dir.path().join("floats"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            stdin.write_all(input.as_bytes()).unwrap();
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert!(out.status.success());
        let got = String::from_utf8(out.stdout).unwrap();
        assert_eq!(got.lines().count(), doubles.len());
        for (d, line) in doubles.iter().zip(got.lines()) {
            let mut want = String::new();
            crate::ir::canonical::write_f64(&mut want, *d);
            assert_eq!(line, want, "write_f64({d:e}) bits {:016x}", d.to_bits());
        }
        assert!(got.contains("\n890713491284145.2\n"));
    }

    #[test]
    fn the_link_symbol_changes_with_the_schemas_and_the_crate_name_not_with_the_data() {
        let p = testkit::project();
        let symbol = embedded_symbol(&p, "tables");
        assert!(
            symbol.starts_with("gentable_v1_tables_") && symbol.ends_with("_embedded"),
            "{symbol}"
        );
        assert_eq!(
            symbol.len(),
            "gentable_v1_tables_".len() + 16 + "_embedded".len()
        );
        // A data edit: the code crate links with the facade as before.
        let mut data = p.clone();
        let t = data
            .tables
            .iter_mut()
            .find(|t| t.name == "PieceType")
            .unwrap();
        t.rows.pop();
        assert_eq!(embedded_symbol(&data, "tables"), symbol);
        // Another shape of a table, or another crate: a facade of the old build no longer links.
        let mut shape = p.clone();
        let t = shape
            .tables
            .iter_mut()
            .find(|t| t.name == "PieceType")
            .unwrap();
        t.fields.pop();
        assert_ne!(embedded_symbol(&shape, "tables"), symbol);
        assert_ne!(embedded_symbol(&p, "other_tables"), symbol);
    }

    #[test]
    fn doc_comments_split_every_line_terminator_and_show_bidi_controls() {
        let file = render(doc_attrs(
            "t\rpub fn evil(){}\u{2029}a \u{202e} b\r\nc",
            true,
        ))
        .unwrap();
        assert!(
            file.contains("//! t\n//! pub fn evil(){}\n//! a \\u{202e} b\n//! c\n"),
            "{file}"
        );
        assert!(!file.contains('\r') && !file.contains('\u{202e}'));
    }
}
