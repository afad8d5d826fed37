//! **emit/typescript/** owns the TypeScript backend and its templates. It may import `emit/`'s shared front
//! and the base modules only.
//!
//! TypeScript emitter: ES modules for Node.js 20, no runtime dependencies, clean under
//! `tsc --strict --noUnusedLocals` (and `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`,
//! `verbatimModuleSyntax`).
//!
//! Output under `generated/ts/`:
//! * `index.ts`: the entry point: `loadTables(dataDir)`, `loadTablesFromJson`, `canonicalTables`, the
//!   `Tables` interface, and re-exports of every public type and of the hashes;
//! * `hashes.ts`: `CONTENT_HASH`, `PROJECT_HASH` and every table's `dataHash` and `schemaHash`
//!   (`TABLE_HASHES`, docs/data-format.md): the one module that changes with every data edit;
//! * `enums.ts`: string-literal unions plus a `const` object of the members (see the template's comment);
//! * `records.ts`: `readonly` interfaces of the nested object types;
//! * `tables/<Table>.ts`: the row interface; the `<Table>Table` class (map: `get` → `T | undefined`,
//!   `getOrThrow`; list: `all`); the row reader and canonical writer;
//! * `runtime.ts`: validation helpers and the canonical JSON writer.
//!
//! 64-bit integer fields are `bigint`, read from the canonical data's decimal strings, so no value is rounded
//! past 2^53. Layout lives in `codegen/templates/`; every decision is made here, in the view models.

use super::front::{Linked, RefLookup, Reference};
use super::hbs;
use super::strings::{quoted, quoted_json};
use super::{Backend, EmitContext, Files};
use crate::ir::canonical;
use crate::ir::text::TextTable;
use crate::ir::{Field, IntWidth, Project, RecordDef, RecordForm, Table, TableMode, Type};
use crate::naming;
use anyhow::{bail, Context};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The built-in templates (file name, text); `typescript.templates` may override each by file name.
const TEMPLATES: &[hbs::Builtin] = &[
    ("runtime.ts.hbs", include_str!("templates/runtime.ts.hbs")),
    ("enums.ts.hbs", include_str!("templates/enums.ts.hbs")),
    ("records.ts.hbs", include_str!("templates/records.ts.hbs")),
    ("table.ts.hbs", include_str!("templates/table.ts.hbs")),
    ("browser.ts.hbs", include_str!("templates/browser.ts.hbs")),
    ("index.ts.hbs", include_str!("templates/index.ts.hbs")),
    ("hashes.ts.hbs", include_str!("templates/hashes.ts.hbs")),
];

/// Type names the generated modules declare themselves.
const RESERVED_TYPES: &[&str] = &[
    "Tables",
    "GentableDataError",
    "Mutable",
    "JsonObject",
    "TableHashes",
];

/// The TypeScript backend (see the module docs).
pub struct TypeScript;

/// Emit `ts/` files.
pub fn emit(ctx: &EmitContext) -> anyhow::Result<Files> {
    super::run(&TypeScript, ctx)
}

impl Backend for TypeScript {
    type Plan<'c> = Gen<'c>;

    fn prepare<'c>(&self, ctx: &'c EmitContext<'c>) -> anyhow::Result<Gen<'c>> {
        let override_dir = ctx
            .config
            .typescript
            .templates
            .as_ref()
            .map(|p| ctx.root.join(p));
        Ok(Gen {
            project: ctx.project,
            names: Names::new(
                ctx.project,
                ctx.config
                    .typescript
                    .data
                    .contains(&crate::config::DataFormat::Binary),
            )?,
            text: super::front::localization(ctx)?,
            hb: hbs::registry(TEMPLATES, override_dir.as_deref())?,
            linked: Linked::of(ctx.project),
            props: table_properties(ctx.project)?,
            binary: ctx
                .config
                .typescript
                .data
                .contains(&crate::config::DataFormat::Binary),
        })
    }

    fn runtime(&self, ctx: &EmitContext, g: &Gen) -> anyhow::Result<Files> {
        let vm = RuntimeVm {
            json: super::front::uses_json(ctx.project),
            shapes: super::front::uses_shapes(ctx.project),
        };
        Ok(Files::from([(
            "ts/runtime.ts".to_string(),
            hbs::render(&g.hb, "runtime.ts.hbs", &vm)?,
        )]))
    }

    fn types(&self, ctx: &EmitContext, g: &Gen) -> anyhow::Result<Files> {
        let mut clashes = super::front::Errors::default();
        let enums = clashes.take(g.enums_vm(ctx.project));
        let records = clashes.take(g.records_vm(ctx.project));
        clashes.finish()?;
        Ok(Files::from([
            (
                "ts/enums.ts".to_string(),
                hbs::render(&g.hb, "enums.ts.hbs", &enums.expect("checked"))?,
            ),
            (
                "ts/records.ts".to_string(),
                hbs::render(&g.hb, "records.ts.hbs", &records.expect("checked"))?,
            ),
        ]))
    }

    fn table(&self, _: &EmitContext, g: &Gen, t: &Table) -> anyhow::Result<Files> {
        let vm = g.table_vm(t)?;
        Ok(Files::from([(
            format!("ts/tables/{}.ts", naming::file_name(&vm.row.name)),
            hbs::render(&g.hb, "table.ts.hbs", &vm)?,
        )]))
    }

    fn index(&self, ctx: &EmitContext, g: &Gen) -> anyhow::Result<Files> {
        let vm = g.index_vm(ctx.project)?;
        let hashes = super::front::HashesVm::new(ctx, "", quoted)?;
        Ok(Files::from([
            (
                "ts/browser.ts".to_string(),
                hbs::render(&g.hb, "browser.ts.hbs", &vm)?,
            ),
            (
                "ts/index.ts".to_string(),
                hbs::render(&g.hb, "index.ts.hbs", &vm)?,
            ),
            (
                "ts/hashes.ts".to_string(),
                hbs::render(&g.hb, "hashes.ts.hbs", &hashes)?,
            ),
        ]))
    }
}

// ---------------------------------------------------------------------------------------------------------
// Escaping: every text from a spreadsheet or schema passes through one of these before a template sees it.

/// Lines of a JSDoc comment body (each goes after ` * `): split at every line terminator, control characters
/// removed, and `*/` written as `*\/` so the text cannot close the comment.
pub fn ts_doc(doc: &str) -> Vec<String> {
    hbs::doc_lines(doc)
        .into_iter()
        .map(|l| l.replace("*/", "*\\/"))
        .collect()
}

// ---------------------------------------------------------------------------------------------------------
// Names

/// TypeScript type names of every enum, record and table row (checked for collisions, also
/// case-insensitively since table rows name files).
struct Names {
    enums: BTreeMap<String, String>,
    records: BTreeMap<String, String>,
    rows: BTreeMap<String, String>,
}

impl Names {
    /// The TS name of a record or union (both live in records.ts).
    fn record(&self, n: &str) -> &str {
        &self.records[n]
    }

    /// With `binary`, every type's binary reader `read<Name>Bin` also claims `<Name>Bin`: the JSON reader
    /// of a type named `FooBin` would be the binary reader of `Foo`.
    fn new(project: &Project, binary: bool) -> anyhow::Result<Names> {
        let mut taken = super::front::TypeNames::new("TypeScript", "", RESERVED_TYPES);
        let mut claim = |ident: String, what: String| taken.claim(ident, what);
        let mut names = Names {
            enums: BTreeMap::new(),
            records: BTreeMap::new(),
            rows: BTreeMap::new(),
        };
        for e in project.enums.keys() {
            names
                .enums
                .insert(e.clone(), claim(naming::ts_type(e), format!("enum {e:?}"))?);
        }
        for r in project.records.keys() {
            names.records.insert(
                r.clone(),
                claim(naming::ts_type(r), format!("record {r:?}"))?,
            );
        }
        for (u, def) in &project.unions {
            names.records.insert(
                u.clone(),
                claim(naming::ts_type(u), format!("union {u:?}"))?,
            );
            for v in &def.variants {
                claim(
                    format!("{}{}", naming::ts_type(u), naming::ts_type(&v.tag)),
                    format!("kind {:?} of union {u:?}", v.tag),
                )?;
            }
        }
        for c in project.choices.keys() {
            names.records.insert(
                c.clone(),
                claim(naming::ts_type(c), format!("scalar union {c:?}"))?,
            );
        }
        for t in &project.tables {
            let row = claim(naming::ts_type(&t.name), format!("table {:?}", t.name))?;
            if t.mode != TableMode::One {
                claim(
                    format!("{row}Table"),
                    format!("the table class of table {:?}", t.name),
                )?;
            }
            names.rows.insert(t.name.clone(), row);
        }
        if binary {
            let readers: Vec<(String, String)> =
                (names.enums.iter().map(|(e, n)| (n, format!("enum {e:?}"))))
                    .chain(
                        names
                            .records
                            .iter()
                            .map(|(r, n)| (n, format!("record {r:?}"))),
                    )
                    .chain(names.rows.iter().map(|(t, n)| (n, format!("table {t:?}"))))
                    .map(|(n, what)| {
                        (
                            format!("{n}Bin"),
                            format!("the binary reader read{n}Bin of {what}"),
                        )
                    })
                    .collect();
            for (ident, what) in readers {
                claim(ident, what)?;
            }
        }
        taken.finish()?;
        Ok(names)
    }
}

fn property_names(fields: &[Field], owner: &str) -> anyhow::Result<Vec<String>> {
    let ids: Vec<String> = fields
        .iter()
        .map(|f| naming::ts_field(&f.name, f.ident.as_deref()))
        .collect();
    super::front::collisions(
        fields
            .iter()
            .zip(&ids)
            .map(|(f, id)| (f.name.as_str(), id.clone())),
        |a, b, id| {
            format!("TypeScript: fields {a:?} and {b:?} of {owner} both map to the property {id}; rename one or set x-gentable-name")
        },
    )?;
    Ok(ids)
}

// ---------------------------------------------------------------------------------------------------------
// View models (what the templates see)

/// What the runtime holds besides its fixed part: the JSON value type and the tuple/open-record helpers,
/// each only when the project uses it.
#[derive(Serialize)]
struct RuntimeVm {
    json: bool,
    shapes: bool,
}

#[derive(Serialize)]
struct EnumsVm {
    enums: Vec<EnumVm>,
}

#[derive(Serialize)]
struct EnumVm {
    name: String,
    doc: Vec<String>,
    /// `"A" | "B"` (or `never`).
    union: String,
    members: Vec<EnumMemberVm>,
    /// TS literal: what the reader expected, for its error message.
    expected: String,
    /// `x-gentable-enumValues` given: emit `<Name>Values` and `<name>FromValue`.
    has_values: bool,
    /// The name with a lower-case first letter (`eMinorType` of `EMinorType`).
    lower: String,
    /// The output has binary data: `read<Name>Bin(b, i)` reads a member by its declaration index.
    binary: bool,
    /// TS literal of the enum's source name (binary-reader messages).
    name_literal: String,
    /// The number of members.
    count: usize,
}

#[derive(Serialize)]
struct EnumMemberVm {
    /// Key in the `const` object.
    key: String,
    /// TS literal of the member's source name (the value).
    literal: String,
    /// The member's integer value (`x-gentable-enumValues`, else its position).
    value: i64,
}

#[derive(Serialize)]
struct RecordsVm {
    imports: Vec<String>,
    records: Vec<ClassVm>,
    /// Polymorphic records: complete TypeScript text of each (types, reader, writer).
    unions: Vec<String>,
    /// Scalar unions: complete TypeScript text of each (type, reader, writer).
    choices: Vec<String>,
}

#[derive(Serialize)]
struct ClassVm {
    name: String,
    doc: Vec<String>,
    fields: Vec<FieldVm>,
    /// `"a", "b"`: the source names (JSON members).
    field_names: String,
    /// Statements checking required fields whose check is inline (before the object literal).
    checks: Vec<String>,
    /// Object-literal entries `ident: <read expression>` of the required fields.
    required: Vec<String>,
    /// How many members every object has (the required fields): `n`'s start.
    required_count: usize,
    /// Some property is named like an `Object.prototype` member (`constructor`), which TypeScript's check of
    /// an object literal confuses with the inherited one: the row is built with `as`.
    inherited: bool,
    /// Statements setting each optional field of `r` when present (and counting it in `n`).
    optional: Vec<String>,
    /// Statements pushing each present member's canonical text to `out`, in canonical member order.
    writes: Vec<String>,
    /// Typed references: navigation properties resolved at load (getters of a private field, see [`refs_class`],
    /// or non-enumerable properties: `JSON.stringify` of a row never follows them).
    refs: Vec<FieldVm>,
    /// Whether objects of this type resolve references (`link<Name>(r, t)`, which also freezes them; the
    /// reader leaves them unfrozen), and its statements.
    linked: bool,
    link: Vec<String>,
    /// Target row types the references name: `(type, table)`.
    #[serde(skip)]
    ref_targets: Vec<(String, String)>,
    /// The output has binary data: `read<Name>Bin(b)` reads the binary format (docs/data-format.md §3.3).
    binary: bool,
    /// Its statements: each field read into a local, in declaration order.
    bin_locals: Vec<String>,
    /// Its object-literal entries (required fields, and optional ones that shadow `Object.prototype`).
    bin_entries: Vec<String>,
    /// Its statements setting the other optional fields when present.
    bin_optional: Vec<String>,
    /// A tuple's or an open record's field set, reader and writer (complete text); closed objects: `None`.
    shape: Option<ShapeVm>,
    /// The class whose instances the readers build when the objects have typed references (see
    /// [`refs_class`]): `<Name>$Refs`; `None` for plain object literals.
    refs_class: Option<String>,
    /// With `refs_class`: the JSON reader's `required` entries as assignments `r.<ident> = <expression>;`.
    assigns: Vec<String>,
    /// With `refs_class`: the binary reader's `bin_entries` as assignments.
    bin_assigns: Vec<String>,
    /// Module-level functions that read and write a type of more than [`PART_FIELDS`] fields a part at a
    /// time (see [`Gen::split`]); empty for other types.
    helpers: Vec<String>,
    /// Per field, in declaration order: the statements that read it from `o` into `r` inside a part
    /// function, and whether it is optional (a present optional field counts itself in `n`; the part
    /// counts each required one).
    #[serde(skip)]
    part_reads: Vec<(String, bool)>,
    /// Per field, in declaration order: the statement that reads it from `b` into `r` inside a part function.
    #[serde(skip)]
    part_bins: Vec<String>,
    /// Object-literal entries `ident: undefined` of the optional fields named like an `Object.prototype`
    /// member (a part function sets them).
    #[serde(skip)]
    shadows: Vec<String>,
}

/// Whether a reader builds its object literal with `as` (`{ … } as rt.Mutable<Name>`): a type whose objects
/// gain typed references at link time (the literal lacks them), or with a property named like an
/// `Object.prototype` member (which TypeScript's literal check confuses with the inherited one).
fn cast(linked: bool, idents: &[String]) -> bool {
    linked || idents.iter().any(|i| INHERITED.contains(&i.as_str()))
}

/// Builds the objects of `vm` (a table's row or a closed record, read by the templates) as instances of a
/// class `<Name>$Refs` when they have typed references: the class keeps each reference in a private field,
/// set once at load by `link<Name>` (`<Name>$Refs.set<i>(r, v)`) and read through a getter on its prototype.
/// Like the non-enumerable property `rt.ref` defines on a plain object (which tuples, open records and union
/// variants keep), the reference is invisible to `JSON.stringify`, spreads and `Object.keys`; but setting it is
/// a plain store on an object whose shape never changes, where `Object.defineProperty` went through V8's
/// runtime and gave each row a new property backing store (issue 15: a tenth of a 100-table load). The
/// readers assign the fields in the object literal's order, so every row's own properties, and their order,
/// are what they were.
fn refs_class(vm: &mut ClassVm) {
    if vm.refs.is_empty() || vm.shape.is_some() {
        return;
    }
    let class = format!("{}$Refs", vm.name);
    for (i, r) in vm.refs.iter().enumerate() {
        let from = format!("rt.ref(r, {}, ", quoted(&r.ident));
        let to = format!("{class}.set{i}(r, ");
        for l in &mut vm.link {
            *l = l.replace(&from, &to);
        }
    }
    let assign = |entry: &String| match entry.split_once(": ") {
        Some((ident, expression)) => format!("r.{ident} = {expression};"),
        None => entry.clone(),
    };
    vm.assigns = vm.required.iter().map(assign).collect();
    vm.bin_assigns = vm.bin_entries.iter().map(assign).collect();
    vm.refs_class = Some(class);
}

/// The first line of a reader's object literal (see [`cast`]).
fn literal_start(name: &str, cast: bool) -> String {
    if cast {
        "    const r = {".into()
    } else {
        format!("    const r: rt.Mutable<{name}> = {{")
    }
}

/// The last line of a reader's object literal (see [`cast`]).
fn literal_end(name: &str, cast: bool) -> String {
    if cast {
        format!("    }} as rt.Mutable<{name}>;")
    } else {
        "    };".into()
    }
}

/// The most fields one generated TypeScript function reads or writes: TypeScript's control-flow analysis
/// gives up on a function with a few hundred field checks (error TS2563, "too large for control flow
/// analysis": a table of 336 optional integer fields was enough), so bigger rows and records are read and
/// written by one module-level function per part of this many fields.
const PART_FIELDS: usize = 100;

#[derive(Serialize)]
struct ShapeVm {
    lines: Vec<String>,
}

#[derive(Serialize)]
struct FieldVm {
    ident: String,
    /// `?` for optional fields.
    opt: String,
    ty: String,
    doc: Vec<String>,
}

#[derive(Serialize)]
struct TableVm {
    imports: Vec<String>,
    row: ClassVm,
    /// TS literal of the table's source name.
    name_literal: String,
    is_map: bool,
    is_list: bool,
    table_class: String,
    key: Option<KeyVm>,
    /// Secondary unique keys: `(field declaration, constructor statements, methods)`.
    uniques: Vec<UniqueVm>,
}

#[derive(Serialize)]
struct UniqueVm {
    decl: String,
    init: Vec<String>,
    methods: Vec<String>,
}

#[derive(Serialize)]
struct KeyVm {
    /// Map key type.
    ty: String,
    /// `id: number` / `piece: string, step: number`.
    params: String,
    /// The key of `row`.
    of_row: String,
    /// The key of the parameters.
    of_args: String,
    /// Local name for the found row (distinct from the parameters).
    found: String,
}

#[derive(Serialize)]
struct IndexVm {
    project: String,
    imports: Vec<String>,
    exports: Vec<String>,
    /// `Language` and `text(tables, key, language)` (empty without `[localization]`).
    localization: String,
    tables: Vec<IndexTableVm>,
    /// TS literals of the data file names, comma-separated.
    data_files: String,
    /// Statements of `build` resolving the typed references of every table's rows.
    links: Vec<String>,
    /// Parameter names (`_`-prefixed when there are no tables, so they are not unused).
    text_of: String,
    tables_param: String,
    /// The output has binary data (`DATA_FILES` are `<Table>.bytes`).
    binary: bool,
}

#[derive(Serialize)]
struct IndexTableVm {
    property: String,
    ty: String,
    doc: Vec<String>,
    name_literal: String,
    load: String,
    canonical: String,
}

// ---------------------------------------------------------------------------------------------------------
// Building the view models

/// What the TypeScript backend decides once per project ([`Backend::prepare`]) and every file reads.
pub struct Gen<'a> {
    project: &'a Project,
    names: Names,
    text: Option<TextTable<'a>>,
    hb: handlebars::Handlebars<'static>,
    /// Record and union types holding typed references (resolved after every table is read).
    linked: Linked,
    /// The `Tables` property of every table (by table name).
    props: BTreeMap<String, String>,
    /// The output's data folder holds binary files (`[typescript] data` lists `"binary"`): binary readers are
    /// generated and `DATA_FILES` names `<Table>.bytes`.
    binary: bool,
}

/// Enums and records a set of fields refers to (through arrays and optionals, not into records).
#[derive(Default)]
struct Uses {
    enums: BTreeSet<String>,
    records: BTreeSet<String>,
}

impl Uses {
    fn add(&mut self, ty: &Type) {
        match ty {
            Type::Enum(n) => {
                self.enums.insert(n.clone());
            }
            Type::Record(n) | Type::Union(n) => {
                self.records.insert(n.clone());
            }
            Type::Flags(n) => {
                self.enums.insert(n.clone());
            }
            Type::Array(t) | Type::Optional(t) => self.add(t),
            Type::Map(k, v) => {
                self.add(k);
                self.add(v);
            }
            Type::Choice(n) => {
                self.records.insert(n.clone());
            }
            Type::Bool
            | Type::Int(_)
            | Type::Float
            | Type::String
            | Type::DateTime(_)
            | Type::Duration
            | Type::Date
            | Type::Time(_)
            | Type::Json => {}
        }
    }
}

impl Gen<'_> {
    fn enums_vm(&self, project: &Project) -> anyhow::Result<EnumsVm> {
        let mut enums = vec![];
        let mut clashes = super::front::Errors::default();
        for e in project.enums.values() {
            let name = self.names.enums[&e.name].clone();
            let keys: Vec<String> = e
                .members
                .iter()
                .enumerate()
                .map(|(i, m)| match e.ident(i) {
                    Some(id) => naming::escape_keyword(id.to_string(), naming::Lang::TypeScript),
                    None => naming::ts_type(m),
                })
                .collect();
            let checked = super::front::collisions(
                e.members
                    .iter()
                    .zip(&keys)
                    .map(|(m, k)| (m.as_str(), k.clone())),
                |a, b, id| {
                    format!(
                        "TypeScript: members {a:?} and {b:?} of enum {:?} both map to {id}; rename one",
                        e.name
                    )
                },
            );
            if clashes.take(checked).is_none() {
                continue;
            }
            let union = if e.members.is_empty() {
                "never".to_string()
            } else {
                e.members
                    .iter()
                    .map(|m| quoted(m))
                    .collect::<Vec<_>>()
                    .join(" | ")
            };
            enums.push(EnumVm {
                doc: ts_doc(&e.doc),
                union,
                members: e
                    .members
                    .iter()
                    .zip(keys)
                    .enumerate()
                    .map(|(i, (m, key))| EnumMemberVm {
                        key,
                        literal: quoted(m),
                        value: e.value(i),
                    })
                    .collect(),
                has_values: e.values.is_some(),
                binary: self.binary,
                name_literal: quoted(&e.name),
                count: e.members.len(),
                lower: {
                    let mut c = name.chars();
                    c.next()
                        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
                        .unwrap_or_default()
                },
                expected: quoted(&format!(
                    "one of the {} members {}",
                    e.name,
                    e.members.join(", ")
                )),
                name,
            });
        }
        clashes.finish()?;
        Ok(EnumsVm { enums })
    }

    fn records_vm(&self, project: &Project) -> anyhow::Result<RecordsVm> {
        let mut uses = Uses::default();
        let mut records = vec![];
        let mut clashes = super::front::Errors::default();
        for r in project.records.values() {
            records.extend(clashes.take(self.record_vm(r)));
            for f in &r.fields {
                uses.add(&f.ty);
            }
        }
        let mut unions = vec![];
        for u in project.unions.values() {
            unions.extend(clashes.take(self.union_ts(u)));
            for v in &u.variants {
                for f in &v.fields {
                    uses.add(&f.ty);
                }
            }
        }
        clashes.finish()?;
        let mut choices = vec![];
        for c in project.choices.values() {
            choices.push(self.choice_ts(c));
            for m in &c.members {
                uses.add(m);
            }
        }
        uses.records.clear(); // same module
        let mut imports = self.imports(&uses, "./");
        if !records.is_empty() || !unions.is_empty() || !choices.is_empty() {
            imports.insert(0, "import * as rt from \"./runtime.js\";".into());
        }
        if !self.linked.records.is_empty() || !self.linked.unions.is_empty() {
            imports.push("import type { Tables } from \"./browser.js\";".into());
            let mut targets = BTreeSet::new();
            for r in project.records.values() {
                for (ty, _) in self
                    .class_vm(String::new(), "", &r.fields, &r.name)?
                    .ref_targets
                {
                    targets.insert(ty);
                }
            }
            for u in project.unions.values() {
                for v in &u.variants {
                    for (ty, _) in self
                        .class_vm(String::new(), "", &v.fields, &u.name)?
                        .ref_targets
                    {
                        targets.insert(ty);
                    }
                }
            }
            for ty in targets {
                imports.push(format!("import type {{ {ty} }} from \"./tables/{ty}.js\";"));
            }
        }
        Ok(RecordsVm {
            imports,
            records,
            unions,
            choices,
        })
    }

    /// A polymorphic record: one interface per kind (`readonly kind: "Damage"`), their union, a reader that
    /// switches on the discriminator and a writer.
    fn union_ts(&self, u: &crate::ir::UnionDef) -> anyhow::Result<String> {
        let name = self.names.record(&u.name).to_string();
        let disc = naming::ts_field(&u.discriminator, None);
        let disc_key = quoted(&u.discriminator);
        let mut out = String::new();
        let mut members = vec![];
        let mut read_cases = vec![];
        let mut write_cases = vec![];
        let mut link_cases = vec![];
        let mut bin_cases = vec![];
        let linked = self.linked.unions.contains(&u.name);
        let mut clashes = super::front::Errors::default();
        for v in &u.variants {
            let vname = format!("{name}{}", naming::ts_type(&v.tag));
            let Some(mut vm) = clashes.take(self.class_vm(
                vname.clone(),
                &v.doc,
                &v.fields,
                &format!("union {:?} kind {:?}", u.name, v.tag),
            )) else {
                continue;
            };
            if linked {
                // linkUnion freezes every kind.
                vm.linked = true;
                vm.inherited = true;
            }
            self.split(&mut vm, false);
            if vm.fields.iter().any(|f| f.ident == disc) {
                clashes.push(format!("TypeScript: a field of {:?} kind {:?} maps to the discriminator property {disc}", u.name, v.tag));
                continue;
            }
            let tag = quoted(&v.tag);
            members.push(vname.clone());
            if !vm.doc.is_empty() {
                out.push_str("\n/**\n");
                for l in &vm.doc {
                    out.push_str(&format!(" * {l}\n"));
                }
                out.push_str(" */");
            }
            out.push_str(&format!(
                "\nexport interface {vname} {{\n  readonly {disc}: {tag};\n"
            ));
            for f in &vm.fields {
                if !f.doc.is_empty() {
                    out.push_str("  /**\n");
                    for l in &f.doc {
                        out.push_str(&format!("   * {l}\n"));
                    }
                    out.push_str("   */\n");
                }
                out.push_str(&format!("  readonly {}{}: {};\n", f.ident, f.opt, f.ty));
            }
            for f in &vm.refs {
                out.push_str("  /**\n");
                for l in &f.doc {
                    out.push_str(&format!("   * {l}\n"));
                }
                out.push_str("   */\n");
                out.push_str(&format!("  readonly {}: {};\n", f.ident, f.ty));
            }
            out.push_str("}\n");
            for h in &vm.helpers {
                out.push_str(&format!("\n{h}\n"));
            }
            if !vm.link.is_empty() {
                link_cases.push(format!(
                    "    case {tag}: {{\n      {}\n      break;\n    }}\n",
                    vm.link
                        .iter()
                        .map(|l| l.replace("\n  ", "\n      "))
                        .collect::<Vec<_>>()
                        .join("\n      ")
                ));
            }
            let mut names = vec![disc_key.clone()];
            if !vm.field_names.is_empty() {
                names.push(vm.field_names.clone());
            }
            out.push_str(&format!(
                "\nconst FIELDS_{vname}: readonly string[] = [{}];\n",
                names.join(", ")
            ));
            if self.binary {
                let mut c = format!("    case {}: {{\n", bin_cases.len());
                for l in &vm.bin_locals {
                    c.push_str(&format!("      {l}\n"));
                }
                c.push_str(&if vm.inherited {
                    "      const r = {\n".to_string()
                } else {
                    format!("      const r: rt.Mutable<{vname}> = {{\n")
                });
                c.push_str(&format!("        {disc}: {tag},\n"));
                for e in &vm.bin_entries {
                    c.push_str(&format!("        {e},\n"));
                }
                c.push_str(&if vm.inherited {
                    format!("      }} as rt.Mutable<{vname}>;\n")
                } else {
                    "      };\n".to_string()
                });
                for o in &vm.bin_optional {
                    c.push_str(&format!("      {o}\n"));
                }
                c.push_str(if linked {
                    "      return r;\n    }\n"
                } else {
                    "      return Object.freeze(r);\n    }\n"
                });
                bin_cases.push(c);
            }
            let mut required = vec![format!("{disc}: {tag}")];
            required.append(&mut vm.required);
            let mut body = format!("      case {tag}: {{\n");
            for c in &vm.checks {
                body.push_str(&format!("        {}\n", c.replace("\n    ", "\n        ")));
            }
            body.push_str(&if vm.inherited {
                "        const r = {\n".to_string()
            } else {
                format!("        const r: rt.Mutable<{vname}> = {{\n")
            });
            for r in &required {
                body.push_str(&format!("          {r},\n"));
            }
            if vm.inherited {
                body.push_str(&format!("        }} as rt.Mutable<{vname}>;\n"));
            } else {
                body.push_str("        };\n");
            }
            let count = vm.required_count + 1;
            if vm.optional.is_empty() {
                body.push_str(&format!(
                    "        if (rt.count(o) !== {count}) rt.unknown(o, FIELDS_{vname});\n"
                ));
            } else {
                body.push_str(&format!("        let n = {count};\n"));
                for o in &vm.optional {
                    body.push_str(&format!("        {}\n", o.replace("\n    ", "\n        ")));
                }
                body.push_str(&format!(
                    "        if (rt.count(o) !== n) rt.unknown(o, FIELDS_{vname});\n"
                ));
            }
            body.push_str(if linked {
                "        return r;\n      }\n"
            } else {
                "        return Object.freeze(r);\n      }\n"
            });
            read_cases.push(body);
            // Writes with the discriminator in its JCS place.
            let mut order: Vec<(&str, Option<usize>)> = vec![(u.discriminator.as_str(), None)];
            order.extend(
                v.fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.name.as_str(), Some(i))),
            );
            order.sort_by_key(|(n, _)| canonical::utf16_key(n));
            let field_order = canonical::jcs_order(&v.fields);
            let mut w = format!("    case {tag}: {{\n      const out: string[] = [];\n");
            for (n, i) in order {
                match i {
                    None => w.push_str(&format!(
                        "      out.push({} + {});\n",
                        quoted_json(n, ":"),
                        quoted_json(&v.tag, "")
                    )),
                    Some(i) => {
                        let pos = field_order.iter().position(|&x| x == i).expect("jcs order");
                        w.push_str(&format!("      {}\n", vm.writes[pos]));
                    }
                }
            }
            w.push_str("      return \"{\" + out.join(\",\") + \"}\";\n    }\n");
            write_cases.push(w);
        }
        clashes.finish()?;
        let doc = ts_doc(&u.doc);
        let mut head = String::new();
        if !doc.is_empty() {
            head.push_str("\n/**\n");
            for l in &doc {
                head.push_str(&format!(" * {l}\n"));
            }
            head.push_str(" */");
        }
        head.push_str(&format!(
            "\nexport type {name} = {};\n",
            if members.is_empty() {
                "never".to_string()
            } else {
                members.join(" | ")
            }
        ));
        let tags: Vec<&str> = u.variants.iter().map(|v| v.tag.as_str()).collect();
        let expected = quoted(&format!(
            "an object whose {} is one of {}",
            u.discriminator,
            tags.join(", ")
        ));
        out.push_str(&format!(
            "\nexport function read{name}(v: unknown, at: rt.At): {name} {{\n  if (!rt.isObject(v)) return rt.fail(at, {expected}, v);\n  const o = v;\n  try {{\n    switch ({}) {{\n{}    }}\n  }} catch (e) {{\n    throw rt.within(e, at);\n  }}\n  return rt.fail(at, {expected}, v);\n}}\n",
            member_of("o", &u.discriminator),
            read_cases.concat()
        ));
        if self.binary {
            out.push_str(&format!(
                "\nexport function read{name}Bin(b: rt.Bin): {name} {{\n  switch (b.index({}, {})) {{\n{}    default:\n      return b.fail(\"no such kind\");\n  }}\n}}\n",
                bin_cases.len(),
                quoted(&u.name),
                bin_cases.concat()
            ));
        }
        out.push_str(&format!(
            "\nexport function write{name}(r: {name}): string {{\n  switch (r.{disc}) {{\n{}  }}\n}}\n",
            write_cases.concat()
        ));
        if linked {
            out.push_str(&format!(
                "\n/** Resolves the typed references of `r` (once, at load), then freezes it. */\nexport function link{name}(r: {name}, t: Tables): void {{\n  switch (r.{disc}) {{\n{}  }}\n  Object.freeze(r);\n}}\n",
                link_cases.concat()
            ));
        }
        Ok(format!("{head}{out}"))
    }

    /// Splits the reader, binary reader and writer of a type of more than [`PART_FIELDS`] fields into
    /// module-level part functions `read<Name>$1(o, r)`, `read<Name>Bin$1(b, r)`, `write<Name>$1(r, out)`, …
    /// (`$` never occurs in a generated type name, so they cannot meet another declaration), which the main
    /// functions call in turn: each stays small enough for TypeScript's control-flow analysis. The JSON
    /// reader then counts every present field in `n` (the parts return their counts), the binary reader
    /// reads the fields in declaration order as before, and the writer keeps canonical member order.
    ///
    /// `writer: false` leaves the writer whole: a polymorphic record's writer interleaves the discriminator
    /// with the fields of each kind (one `case` each, well within the analysis's limits).
    fn split(&self, vm: &mut ClassVm, writer: bool) {
        if vm.fields.len() <= PART_FIELDS || vm.shape.is_some() {
            return;
        }
        let name = vm.name.clone();
        let indent = |s: &String| format!("  {}", s.replace("\n    ", "\n  "));
        let mut calls = vec![];
        for (k, part) in vm.part_reads.chunks(PART_FIELDS).enumerate() {
            let f = format!("read{name}${}", k + 1);
            calls.push(format!("n += {f}(o, r);"));
            vm.helpers.push(format!(
                "/** Reads fields {}–{} of {name} (one part of its reader: a function of a few hundred field checks is too large for TypeScript's control-flow analysis). */\nfunction {f}(o: rt.JsonObject, r: rt.Mutable<{name}>): number {{\n  let n = 0;\n{}\n  return n;\n}}",
                k * PART_FIELDS + 1,
                k * PART_FIELDS + part.len(),
                part.iter()
                    .map(|(p, optional)| {
                        // A required field counts itself; an optional one does so when present.
                        if *optional {
                            indent(p)
                        } else {
                            format!("{}\n  n++;", indent(p))
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
        // Parts of plain statements: `(calls, helper functions)` for `stmts`, each part `function {f}$k(...)`.
        let plain =
            |stmts: &[String], f: &str, args: &str, params: &str, (what, how): (&str, &str)| {
                let mut calls = vec![];
                let mut helpers = vec![];
                for (k, part) in stmts.chunks(PART_FIELDS).enumerate() {
                    let f = format!("{f}${}", k + 1);
                    calls.push(format!("{f}({args});"));
                    helpers.push(format!(
                    "/** {what} {}–{} of {name}{how} */\nfunction {f}({params}): void {{\n{}\n}}",
                    k * PART_FIELDS + 1,
                    k * PART_FIELDS + part.len(),
                    part.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n")
                ));
                }
                (calls, helpers)
            };
        if vm.binary {
            let (calls, helpers) = plain(
                &vm.part_bins,
                &format!("read{name}Bin"),
                "b, r",
                &format!("b: rt.Bin, r: rt.Mutable<{name}>"),
                (
                    "Reads fields",
                    " from the binary format, in declaration order (one part of its binary reader).",
                ),
            );
            vm.helpers.extend(helpers);
            vm.bin_locals.clear();
            vm.bin_entries = vm.shadows.clone();
            vm.bin_optional = calls;
        }
        if writer {
            let (calls, helpers) = plain(
                &vm.writes,
                &format!("write{name}"),
                "r, out",
                &format!("r: {name}, out: string[]"),
                (
                    "Writes members",
                    "'s canonical JSON, in canonical order (one part of its writer).",
                ),
            );
            vm.helpers.extend(helpers);
            vm.writes = calls;
        }
        vm.checks.clear();
        vm.required = vm.shadows.clone();
        vm.required_count = 0;
        vm.optional = calls;
        // The literal holds only the shadowing properties: built with `as`.
        vm.inherited = true;
    }

    fn record_vm(&self, r: &RecordDef) -> anyhow::Result<ClassVm> {
        let mut vm = self.class_vm(
            self.names.records[&r.name].clone(),
            &r.doc,
            &r.fields,
            &format!("record {:?}", r.name),
        )?;
        let idents = property_names(&r.fields, &format!("record {:?}", r.name))?;
        vm.shape = match r.form {
            RecordForm::Closed => None,
            RecordForm::Open => Some(self.open_ts(r, &vm.name, &idents, vm.linked)),
            RecordForm::Tuple { min, rest } => {
                // Items before `min` are always there (a nullable one is `T | null`); later ones may be
                // left out (`?`).
                for (i, (f, fv)) in r.fields.iter().zip(&mut vm.fields).enumerate() {
                    if i < min {
                        if let Type::Optional(inner) = &f.ty {
                            fv.opt = String::new();
                            fv.ty = format!("{} | null", self.ty(strip(inner)));
                        }
                    }
                }
                // The binary reader: items before `min` and the rest list are always there (a nullable
                // item's tag says null), later items may be absent.
                let prefix = r.fields.len() - usize::from(rest);
                vm.bin_locals.clear();
                vm.bin_entries.clear();
                vm.bin_optional.clear();
                for (i, (f, ident)) in r.fields.iter().zip(&idents).enumerate() {
                    let x = format!("x{i}");
                    if i >= min && i < prefix && matches!(f.ty, Type::Optional(_)) {
                        vm.bin_locals.push(format!(
                            "const {x} = b.opt() ? {} : undefined;",
                            self.bread(strip(&f.ty))
                        ));
                        vm.bin_optional
                            .push(format!("if ({x} !== undefined) r.{ident} = {x};"));
                    } else {
                        vm.bin_locals
                            .push(format!("const {x} = {};", self.bread(&f.ty)));
                        vm.bin_entries.push(format!("{ident}: {x}"));
                    }
                }
                Some(self.tuple_ts(r, &vm.name, &idents, min, rest, vm.linked))
            }
        };
        self.split(&mut vm, true);
        refs_class(&mut vm);
        Ok(vm)
    }

    /// The field set, reader and writer of an open record: declared members as usual, the others in the
    /// extra map; written merged in RFC 8785 order.
    fn open_ts(&self, r: &RecordDef, name: &str, idents: &[String], linked: bool) -> ShapeVm {
        let n = r.fields.len() - 1;
        let names: Vec<String> = r.fields[..n].iter().map(|f| quoted(&f.name)).collect();
        let mut lines = vec![
            format!(
                "const FIELDS_{name}: ReadonlySet<string> = new Set<string>([{}]);",
                names.join(", ")
            ),
            String::new(),
            format!("export function read{name}(v: unknown, at: rt.At): {name} {{"),
            "  const o = rt.object(v, at);".into(),
            "  try {".into(),
            literal_start(name, cast(linked, idents)),
        ];
        let mut optional = vec![];
        for (i, (f, ident)) in r.fields[..n].iter().zip(idents).enumerate() {
            let key = quoted(&f.name);
            let member = member_of("o", &f.name);
            match &f.ty {
                Type::Optional(inner) => {
                    optional.push(format!("    const x{i} = {member};"));
                    optional.push(format!(
                        "    if (x{i} !== undefined) r.{ident} = {};",
                        self.read(strip(inner), &format!("x{i}"), &key, 1)
                    ));
                }
                ty => lines.push(format!(
                    "      {ident}: {},",
                    self.read(ty, &member, &key, 1)
                )),
            }
        }
        if let Type::Map(_, vt) = &r.fields[n].ty {
            lines.push(format!(
                "      {}: rt.extra(o, FIELDS_{name}, (v1, a1) => {}),",
                idents[n],
                self.read(vt, "v1", "a1", 2)
            ));
        }
        lines.push(literal_end(name, cast(linked, idents)));
        lines.extend(optional);
        lines.push(format!(
            "    return {};",
            if linked { "r" } else { "Object.freeze(r)" }
        ));
        lines.push("  } catch (e) {".into());
        lines.push("    throw rt.within(e, at);".into());
        lines.push("  }".into());
        lines.push("}".into());
        lines.push(String::new());
        lines.push(format!("export function write{name}(r: {name}): string {{"));
        lines.push("  const m: [string, string][] = [];".into());
        for (f, ident) in r.fields[..n].iter().zip(idents) {
            let key = quoted(&f.name);
            lines.push(match &f.ty {
                Type::Optional(inner) => format!(
                    "  if (r.{ident} !== undefined) m.push([{key}, {}]);",
                    self.write(strip(inner), &format!("r.{ident}"), 1)
                ),
                ty => format!(
                    "  m.push([{key}, {}]);",
                    self.write(ty, &format!("r.{ident}"), 1)
                ),
            });
        }
        if let Type::Map(_, vt) = &r.fields[n].ty {
            lines.push(format!(
                "  for (const [k, x] of r.{}) m.push([k, {}]);",
                idents[n],
                self.write(vt, "x", 1)
            ));
        }
        lines.push("  return rt.wMembers(m);".into());
        lines.push("}".into());
        ShapeVm { lines }
    }

    /// The reader and writer of a tuple: a JSON array; items from `min` on may be left out at the end; the
    /// items after the prefix are the rest list.
    fn tuple_ts(
        &self,
        r: &RecordDef,
        name: &str,
        idents: &[String],
        min: usize,
        rest: bool,
        linked: bool,
    ) -> ShapeVm {
        let prefix = r.fields.len() - usize::from(rest);
        let max = if rest { -1 } else { prefix as i64 };
        let mut lines = vec![
            format!("export function read{name}(v: unknown, at: rt.At): {name} {{"),
            format!("  const a = rt.tuple(v, at, {min}, {max});"),
            "  try {".into(),
            literal_start(name, cast(linked, idents)),
        ];
        let mut optional = vec![];
        for (i, (f, ident)) in r.fields.iter().zip(idents).enumerate() {
            if i >= prefix {
                if let Type::Array(it) = &f.ty {
                    lines.push(format!(
                        "      {ident}: rt.rest(a, {prefix}, (v1, a1) => {}),",
                        self.read(it, "v1", "a1", 2)
                    ));
                }
            } else if i >= min {
                optional.push(format!("    const x{i} = rt.item(a, {i});"));
                optional.push(format!(
                    "    if (x{i} !== undefined) r.{ident} = {};",
                    self.read(strip(&f.ty), &format!("x{i}"), &i.to_string(), 1)
                ));
            } else {
                lines.push(format!(
                    "      {ident}: {},",
                    self.read(&f.ty, &format!("a[{i}]"), &i.to_string(), 1)
                ));
            }
        }
        lines.push(literal_end(name, cast(linked, idents)));
        lines.extend(optional);
        lines.push(format!(
            "    return {};",
            if linked { "r" } else { "Object.freeze(r)" }
        ));
        lines.push("  } catch (e) {".into());
        lines.push("    throw rt.within(e, at);".into());
        lines.push("  }".into());
        lines.push("}".into());
        lines.push(String::new());
        lines.push(format!("export function write{name}(r: {name}): string {{"));
        lines.push("  const out: string[] = [];".into());
        lines.push("  do {".into());
        for (i, (f, ident)) in r.fields.iter().zip(idents).enumerate() {
            if i >= prefix {
                if let Type::Array(it) = &f.ty {
                    lines.push(format!(
                        "    for (const x of r.{ident}) out.push({});",
                        self.write(it, "x", 1)
                    ));
                }
            } else if i >= min {
                lines.push(format!("    if (r.{ident} === undefined) break;"));
                lines.push(format!(
                    "    out.push({});",
                    self.write(strip(&f.ty), &format!("r.{ident}"), 1)
                ));
            } else {
                lines.push(format!(
                    "    out.push({});",
                    self.write(&f.ty, &format!("r.{ident}"), 1)
                ));
            }
        }
        lines.push("  } while (false);".into());
        lines.push("  return \"[\" + out.join(\",\") + \"]\";".into());
        lines.push("}".into());
        ShapeVm { lines }
    }

    /// A scalar union: the union of its members' types, a reader that switches on the JSON kind and a writer.
    fn choice_ts(&self, c: &crate::ir::ChoiceDef) -> String {
        let name = self.names.records[&c.name].clone();
        let types: Vec<String> = c.members.iter().map(|m| self.ty(m)).collect();
        let has_string = c
            .members
            .iter()
            .any(|m| matches!(m, Type::String | Type::Enum(_)));
        let mut doc = c.doc.clone();
        doc.push_str(&format!("\n\nOne of {} (a scalar union).", c.words()));
        let mut out = String::from("\n/**\n");
        for l in ts_doc(doc.trim_start()) {
            out.push_str(&format!(" * {l}\n"));
        }
        out.push_str(" */\n");
        out.push_str(&format!("export type {name} = {};\n", types.join(" | ")));
        out.push_str(&format!(
            "\nexport function read{name}(v: unknown, at: rt.At): {name} {{\n"
        ));
        let mut writes = vec![];
        for m in &c.members {
            let test = match m {
                Type::Bool => "typeof v === \"boolean\"".to_string(),
                // A 64-bit integer beyond ±(2^53 - 1) is a decimal string in canonical data (the schema
                // never pairs one with a string member).
                Type::Int(w) if w.is_64() && !has_string => {
                    "typeof v === \"number\" || typeof v === \"string\"".to_string()
                }
                Type::Int(_) | Type::Float => "typeof v === \"number\"".to_string(),
                _ => "typeof v === \"string\"".to_string(),
            };
            out.push_str(&format!(
                "  if ({test}) return {};\n",
                self.read(m, "v", "at", 1)
            ));
            let wtest = match m {
                Type::Bool => "typeof v === \"boolean\"",
                Type::Int(w) if w.is_64() => "typeof v === \"bigint\"",
                Type::Int(_) | Type::Float => "typeof v === \"number\"",
                _ => "typeof v === \"string\"",
            };
            writes.push((wtest, self.write(m, "v", 1)));
        }
        out.push_str(&format!(
            "  return rt.fail(at, {}, v);\n}}\n",
            quoted(&c.words())
        ));
        out.push_str(&format!(
            "\nexport function write{name}(v: {name}): string {{\n"
        ));
        let last = writes.len() - 1;
        for (i, (test, w)) in writes.into_iter().enumerate() {
            if i == last {
                out.push_str(&format!("  return {w};\n"));
            } else {
                out.push_str(&format!("  if ({test}) return {w};\n"));
            }
        }
        out.push('}');
        if self.binary {
            // The member's index, then its value (docs/data-format.md §3.3).
            out.push_str(&format!(
                "\n\nexport function read{name}Bin(b: rt.Bin): {name} {{\n  switch (b.index({}, {})) {{\n",
                c.members.len(),
                quoted(&format!("a {name} member"))
            ));
            for (i, m) in c.members.iter().enumerate() {
                if i == last {
                    out.push_str("    default:\n");
                } else {
                    out.push_str(&format!("    case {i}:\n"));
                }
                out.push_str(&format!("      return {};\n", self.bread(m)));
            }
            out.push_str("  }\n}");
        }
        out
    }

    /// Import lines for the enums and records `uses` names, from modules under `prefix`.
    fn imports(&self, uses: &Uses, prefix: &str) -> Vec<String> {
        let mut out = vec![];
        if !uses.enums.is_empty() {
            let names: Vec<String> = uses
                .enums
                .iter()
                .map(|e| &self.names.enums[e])
                .flat_map(|n| {
                    let mut v = vec![format!("type {n}"), format!("read{n}")];
                    if self.binary {
                        v.push(format!("read{n}Bin"));
                    }
                    v
                })
                .collect();
            out.push(format!(
                "import {{ {} }} from \"{prefix}enums.js\";",
                names.join(", ")
            ));
        }
        if !uses.records.is_empty() {
            let names: Vec<String> = uses
                .records
                .iter()
                .flat_map(|r| {
                    let n = &self.names.records[r];
                    let mut v = vec![format!("type {n}"), format!("read{n}"), format!("write{n}")];
                    if self.binary {
                        v.push(format!("read{n}Bin"));
                    }
                    if self.linked.records.contains(r) || self.linked.unions.contains(r) {
                        v.push(format!("link{n}"));
                    }
                    v
                })
                .collect();
            out.push(format!(
                "import {{ {} }} from \"{prefix}records.js\";",
                names.join(", ")
            ));
        }
        out
    }

    fn class_vm(
        &self,
        name: String,
        doc: &str,
        fields: &[Field],
        owner: &str,
    ) -> anyhow::Result<ClassVm> {
        let idents = property_names(fields, owner)?;
        let mut vm = ClassVm {
            doc: ts_doc(doc),
            fields: vec![],
            field_names: fields
                .iter()
                .map(|f| quoted(&f.name))
                .collect::<Vec<_>>()
                .join(", "),
            required: vec![],
            checks: vec![],
            required_count: 0,
            inherited: cast(false, &idents),
            optional: vec![],
            writes: vec![],
            refs: vec![],
            linked: self.linked.fields(self.project, fields),
            link: vec![],
            ref_targets: vec![],
            binary: self.binary,
            bin_locals: vec![],
            bin_entries: vec![],
            bin_optional: vec![],
            shape: None,
            refs_class: None,
            assigns: vec![],
            bin_assigns: vec![],
            helpers: vec![],
            part_reads: vec![],
            part_bins: vec![],
            shadows: vec![],
            name,
        };
        // Only a type that `split` will divide needs its part statements.
        let wide = fields.len() > PART_FIELDS;
        for (i, (f, ident)) in fields.iter().zip(&idents).enumerate() {
            let key = quoted(&f.name);
            let member = member_of("o", &f.name);
            let x = format!("x{i}");
            match &f.ty {
                Type::Optional(inner) => {
                    let inner = strip(inner);
                    let bread = self.bread(inner);
                    let read = match self.inline_check(inner, &x) {
                        Some(check) => format!(
                            "const {x} = {member};\n    if ({x} !== undefined) {{\n      if (!({check})) {};\n      r.{ident} = {x} as {};\n      n++;\n    }}",
                            self.read(inner, &x, &key, 1),
                            self.ty(inner)
                        ),
                        None => format!(
                            "const {x} = {member};\n    if ({x} !== undefined) {{\n      r.{ident} = {};\n      n++;\n    }}",
                            self.read(inner, &x, &key, 1)
                        ),
                    };
                    if wide {
                        vm.part_reads.push((read.clone(), true));
                    }
                    vm.optional.push(read);
                    // Absent, `row.constructor` would be Object's: such a property is always set (to `undefined`).
                    let shadow = INHERITED.contains(&ident.as_str());
                    if shadow {
                        vm.required.push(format!("{ident}: undefined"));
                        vm.shadows.push(format!("{ident}: undefined"));
                    }
                    if wide {
                        vm.part_bins.push(if shadow {
                            format!("r.{ident} = b.opt() ? {bread} : undefined;")
                        } else {
                            format!("if (b.opt()) r.{ident} = {bread};")
                        });
                    }
                    vm.bin_locals
                        .push(format!("const {x} = b.opt() ? {bread} : undefined;"));
                    if shadow {
                        vm.bin_entries.push(format!("{ident}: {x}"));
                    } else {
                        vm.bin_optional
                            .push(format!("if ({x} !== undefined) r.{ident} = {x};"));
                    }
                    vm.fields.push(FieldVm {
                        ident: ident.clone(),
                        opt: "?".into(),
                        ty: if shadow {
                            format!("{} | undefined", self.ty(inner))
                        } else {
                            self.ty(inner)
                        },
                        doc: ts_doc(&f.doc),
                    });
                }
                ty => {
                    vm.required_count += 1;
                    let bread = self.bread(ty);
                    if wide {
                        vm.part_bins.push(format!("r.{ident} = {bread};"));
                    }
                    vm.bin_locals.push(format!("const {x} = {bread};"));
                    vm.bin_entries.push(format!("{ident}: {x}"));
                    match self.inline_check(ty, &x) {
                        Some(check) => {
                            // Checked inline (no call while the table's reader is still interpreted); the
                            // field's reader runs only to report what is wrong.
                            let check = format!(
                                "const {x} = {member};\n    if (!({check})) {};",
                                self.read(ty, &x, &key, 1)
                            );
                            if wide {
                                vm.part_reads.push((
                                    format!("{check}\n    r.{ident} = {x} as {};", self.ty(ty)),
                                    false,
                                ));
                            }
                            vm.checks.push(check);
                            vm.required.push(format!("{ident}: {x} as {}", self.ty(ty)));
                        }
                        None => {
                            let read = self.read(ty, &member, &key, 1);
                            if wide {
                                vm.part_reads.push((format!("r.{ident} = {read};"), false));
                            }
                            vm.required.push(format!("{ident}: {read}"));
                        }
                    }
                    vm.fields.push(FieldVm {
                        ident: ident.clone(),
                        opt: String::new(),
                        ty: self.ty(ty),
                        doc: ts_doc(&f.doc),
                    });
                }
            }
        }
        for i in canonical::jcs_order(fields) {
            let (f, ident) = (&fields[i], &idents[i]);
            let member = quoted_json(&f.name, ":");
            vm.writes.push(match &f.ty {
                Type::Optional(inner) => format!(
                    "if (r.{ident} !== undefined) out.push({member} + {});",
                    self.write(strip(inner), &format!("r.{ident}"), 1)
                ),
                ty => format!(
                    "out.push({member} + {});",
                    self.write(ty, &format!("r.{ident}"), 1)
                ),
            });
        }
        self.links(&mut vm, fields, &idents)?;
        if vm.linked {
            // Built without its references, which linking adds.
            vm.inherited = true;
        }
        Ok(vm)
    }

    /// Fills `vm`'s typed references and the statements of its `link<Name>(r, t)`: each reference looked up (a
    /// key without a row is a fault), each field of a linked type resolved in turn.
    fn links(&self, vm: &mut ClassVm, fields: &[Field], idents: &[String]) -> anyhow::Result<()> {
        let refs = super::front::references(self.project, fields);
        let mut taken: Vec<String> = idents.to_vec();
        for (i, (f, ident)) in fields.iter().zip(idents).enumerate() {
            let seg = quoted(&f.name);
            let src = format!("r.{ident}");
            if let Some(r) = refs.iter().find(|r| r.field == i) {
                let taken_ref: Vec<&str> = taken.iter().map(String::as_str).collect();
                let rident = naming::avoid(naming::ts_field(&r.name, None), &taken_ref);
                taken.push(rident.clone());
                let target = self.names.rows[&r.target.name].clone();
                let mut stmts = vec![];
                let result = self.link_ref(r, &f.ty, &src, &[seg], 0, &mut stmts)?;
                stmts.push(format!("rt.ref(r, {}, {result});", quoted(&rident)));
                vm.link.push(braced(stmts));
                vm.refs.push(FieldVm {
                    ident: rident,
                    opt: String::new(),
                    ty: self.ref_ty(&f.ty, &target, true),
                    doc: vec![format!(
                        "The {target} row{} that `{ident}` names (x-gentable-foreignKey), resolved at load.",
                        if matches!(f.ty.strip_optional(), Type::Array(_) | Type::Map(..)) { "s" } else { "" },
                    )],
                });
                vm.ref_targets.push((target, r.target.name.clone()));
            } else if self.linked.ty(&f.ty) {
                let mut stmts = vec![];
                self.link_walk(&f.ty, &src, &[seg], 0, &mut stmts);
                vm.link.push(braced(stmts));
            }
        }
        Ok(())
    }

    /// The TypeScript type of the navigation property of a reference field of type `ty` to rows `target`
    /// (`top`: the field's own type, where an optional is `undefined` when absent; below, a nullable array
    /// element is `null`).
    fn ref_ty(&self, ty: &Type, target: &str, top: bool) -> String {
        match ty {
            Type::Optional(t) => {
                let inner = self.ref_ty(strip(t), target, false);
                format!("{inner} | {}", if top { "undefined" } else { "null" })
            }
            Type::Array(t) => {
                let inner = self.ref_ty(t, target, false);
                if inner.contains(' ') {
                    format!("readonly ({inner})[]")
                } else {
                    format!("readonly {inner}[]")
                }
            }
            Type::Map(k, v) => format!(
                "ReadonlyMap<{}, {}>",
                self.ty(k),
                self.ref_ty(v, target, false)
            ),
            _ => target.to_string(),
        }
    }

    /// Lines (appended to `out`, indented relative to it) resolving the key value `src` of type `ty` (`path`:
    /// the segments of its place in the row, TypeScript expressions, for a fault); returns the expression
    /// holding the result.
    fn link_ref(
        &self,
        r: &Reference,
        ty: &Type,
        src: &str,
        path: &[String],
        depth: usize,
        out: &mut Vec<String>,
    ) -> anyhow::Result<String> {
        let target = &self.names.rows[&r.target.name];
        let prop = &self.props[&r.target.name];
        let get = match r.lookup {
            RefLookup::PrimaryKey => "get".to_string(),
            RefLookup::Unique(fi) => format!("getBy{}", naming::ts_type(&r.target.fields[fi].name)),
        };
        // An integer key of another width: a value outside the target key's range names no row.
        let lookup = |key: &str| match (r.key, r.target_key) {
            (Type::Int(from), Type::Int(to)) if from.is_64() && !to.is_64() => {
                let (lo, hi) = to.range();
                format!(
                    "{key} >= {lo}n && {key} <= {hi}n ? t.{prop}.{get}(Number({key})) : undefined"
                )
            }
            (Type::Int(from), Type::Int(to)) if !from.is_64() && to.is_64() => {
                format!("t.{prop}.{get}(BigInt({key}))")
            }
            _ => format!("t.{prop}.{get}({key})"),
        };
        let (x, v) = (format!("x{depth}"), format!("v{depth}"));
        match ty {
            Type::Optional(t) => {
                let t = strip(t);
                let none = if depth == 0 { "undefined" } else { "null" };
                let inner_ty = self.ref_ty(t, target, false);
                let mut inner = vec![];
                let y = self.link_ref(r, t, &v, path, depth + 1, &mut inner)?;
                out.push(format!("const {v} = {src};"));
                out.push(format!("let {x}: {inner_ty} | {none} = {none};"));
                out.push(format!("if ({v} != null) {{"));
                out.extend(indent(inner));
                out.push(format!("  {x} = {y};"));
                out.push("}".into());
                Ok(x)
            }
            Type::Array(t) => {
                let (a, i) = (format!("a{depth}"), format!("i{depth}"));
                let rt = self.ref_ty(t, target, false);
                let mut inner = vec![];
                let mut sub = path.to_vec();
                sub.push(i.clone());
                let item = self.link_ref(
                    r,
                    t,
                    &format!("{a}[{i}] as {}", self.ty(t)),
                    &sub,
                    depth + 1,
                    &mut inner,
                )?;
                let rt = if rt.contains(' ') {
                    format!("({rt})")
                } else {
                    rt
                };
                out.push(format!("const {a} = {src};"));
                out.push(format!("const {x}: {rt}[] = [];"));
                out.push(format!("for (let {i} = 0; {i} < {a}.length; {i}++) {{"));
                out.extend(indent(inner));
                out.push(format!("  {x}.push({item});"));
                out.push("}".into());
                out.push(format!("Object.freeze({x});"));
                Ok(x)
            }
            // Keys as map values: the same keys, each with its row(s).
            Type::Map(kt, t) => {
                let k = format!("k{depth}");
                let rt = self.ref_ty(t, target, false);
                let mut inner = vec![];
                let mut sub = path.to_vec();
                sub.push(format!("rt.keyAt({k})"));
                let item = self.link_ref(r, t, &v, &sub, depth + 1, &mut inner)?;
                out.push(format!("const {x} = new Map<{}, {rt}>();", self.ty(kt)));
                out.push(format!("for (const [{k}, {v}] of {src}) {{"));
                out.extend(indent(inner));
                out.push(format!("  {x}.set({k}, {item});"));
                out.push("}".into());
                Ok(x)
            }
            _ => {
                out.push(format!("const {v} = {src};"));
                out.push(format!("const {x} = {};", lookup(&v)));
                out.push(format!(
                    "if ({x} === undefined) rt.dangling([{}], {}, {v});",
                    path.join(", "),
                    quoted(&r.target.name)
                ));
                Ok(x)
            }
        }
    }

    /// Lines (appended to `out`) resolving the references inside `src`, a value of type `ty` that holds values
    /// of linked types; a fault from inside gets the segments `path`.
    fn link_walk(
        &self,
        ty: &Type,
        src: &str,
        path: &[String],
        depth: usize,
        out: &mut Vec<String>,
    ) {
        match ty {
            Type::Record(n) | Type::Union(n) => {
                out.push("try {".into());
                out.push(format!("  link{}({src}, t);", self.names.records[n]));
                out.push("} catch (e) {".into());
                out.push(format!("  throw rt.inside(e, [{}]);", path.join(", ")));
                out.push("}".into());
            }
            Type::Optional(t) => {
                let v = format!("v{depth}");
                let mut inner = vec![];
                self.link_walk(strip(t), &v, path, depth + 1, &mut inner);
                out.push(format!("const {v} = {src};"));
                out.push(format!("if ({v} != null) {{"));
                out.extend(indent(inner));
                out.push("}".into());
            }
            Type::Array(t) => {
                let (a, i) = (format!("a{depth}"), format!("i{depth}"));
                let mut inner = vec![];
                let mut sub = path.to_vec();
                sub.push(i.clone());
                self.link_walk(
                    t,
                    &format!("{a}[{i}] as {}", self.ty(t)),
                    &sub,
                    depth + 1,
                    &mut inner,
                );
                out.push(format!("const {a} = {src};"));
                out.push(format!("for (let {i} = 0; {i} < {a}.length; {i}++) {{"));
                out.extend(indent(inner));
                out.push("}".into());
            }
            Type::Map(_, v) => {
                let (k, x) = (format!("k{depth}"), format!("m{depth}"));
                let mut inner = vec![];
                let mut sub = path.to_vec();
                sub.push(format!("rt.keyAt({k})"));
                self.link_walk(v, &x, &sub, depth + 1, &mut inner);
                out.push(format!("for (const [{k}, {x}] of {src}) {{"));
                out.extend(indent(inner));
                out.push("}".into());
            }
            _ => {}
        }
    }

    /// The TypeScript type of `ty` (an `Optional` here is a nullable array element: `T | null`).
    fn ty(&self, ty: &Type) -> String {
        match ty {
            Type::Bool => "boolean".into(),
            Type::Int(w) if w.is_64() => "bigint".into(),
            Type::Int(_) | Type::Float => "number".into(),
            Type::String => "string".into(),
            Type::Enum(n) => self.names.enums[n].clone(),
            Type::Record(n) | Type::Union(n) => self.names.records[n].clone(),
            Type::Flags(e) => format!("readonly {}[]", self.names.enums[e]),
            Type::DateTime(_) => "Date".into(),
            Type::Duration => "number".into(),
            Type::Date | Type::Time(_) => "string".into(),
            Type::Json => "rt.JsonValue".into(),
            Type::Choice(n) => self.names.records[n].clone(),
            Type::Map(k, v) => format!("ReadonlyMap<{}, {}>", self.ty(k), self.ty(v)),
            Type::Array(t) => {
                let inner = self.ty(t);
                if inner.contains(' ') {
                    format!("readonly ({inner})[]")
                } else {
                    format!("readonly {inner}[]")
                }
            }
            Type::Optional(t) => format!("{} | null", self.ty(strip(t))),
        }
    }

    /// A condition on the JSON value `x` that holds exactly when it is a valid `ty`, written without calls, for
    /// the types whose reader returns the value itself (booleans, integers up to 32 bits, finite numbers,
    /// strings, enums of up to 16 members); `None` for the others. A table's reader runs once per row and is
    /// often never optimized by the JIT: a call costs far more there than these operators.
    fn inline_check(&self, ty: &Type, x: &str) -> Option<String> {
        Some(match ty {
            Type::Bool => format!("typeof {x} === \"boolean\""),
            Type::Float => format!("typeof {x} === \"number\" && {x} - {x} === 0"),
            Type::String => format!("typeof {x} === \"string\""),
            Type::Int(w) if !w.is_64() => {
                let (lo, hi) = w.range();
                // `typeof` first: it narrows `x` to `number` for tsc, and `"5" | 0` is 5.
                let is = format!("typeof {x} === \"number\" && ");
                match w {
                    IntWidth::I32 => format!("{is}({x} | 0) === {x}"),
                    IntWidth::U32 => format!("{is}{x} >>> 0 === {x}"),
                    IntWidth::U8 | IntWidth::U16 => format!("{is}{x} >>> 0 === {x} && {x} <= {hi}"),
                    _ => format!("{is}({x} | 0) === {x} && {x} >= {lo} && {x} <= {hi}"),
                }
            }
            Type::Enum(n) => {
                let members = &self.project.enums.get(n)?.members;
                if members.is_empty() || members.len() > 16 {
                    return None;
                }
                members
                    .iter()
                    .map(|m| format!("{x} === {}", quoted(m)))
                    .collect::<Vec<_>>()
                    .join(" || ")
            }
            _ => return None,
        })
    }

    /// Expression reading a value of type `ty` from the binary reader `b` (docs/data-format.md §3.3). Nested
    /// readers take their own parameter `b` (the same reader).
    fn bread(&self, ty: &Type) -> String {
        match ty {
            Type::Bool => "b.bool()".into(),
            Type::Int(IntWidth::I64) => "b.i64()".into(),
            Type::Int(IntWidth::U64) => "b.u64()".into(),
            Type::Int(w) => {
                let (lo, hi) = w.range();
                if lo < 0 {
                    format!("b.int({lo}, {hi})")
                } else {
                    format!("b.uint({hi})")
                }
            }
            Type::Float => "b.f64()".into(),
            Type::String => "b.str()".into(),
            Type::Enum(n) => format!("read{}Bin(b)", self.names.enums[n]),
            Type::Record(n) | Type::Union(n) => format!("read{}Bin(b)", self.names.records[n]),
            Type::Flags(e) => {
                let count = self.project.enums.get(e).map_or(0, |d| d.members.len());
                format!(
                    "b.flags({count}, (i) => read{}Bin(b, i))",
                    self.names.enums[e]
                )
            }
            Type::DateTime(_) => "b.dateTime()".into(),
            Type::Duration => "b.duration()".into(),
            Type::Date => "b.date()".into(),
            Type::Time(_) => "b.time()".into(),
            Type::Json => "rt.jsonBin(b)".into(),
            Type::Choice(n) => format!("read{}Bin(b)", self.names.records[n]),
            Type::Map(k, v) => format!("b.map((b) => {}, (b) => {})", self.bread(k), self.bread(v)),
            Type::Array(t) => format!("b.array((b) => {})", self.bread(t)),
            Type::Optional(t) => format!("(b.opt() ? {} : null)", self.bread(strip(t))),
        }
    }

    /// Expression reading `value` (an `unknown`) of type `ty`, with `at` the expression of its place in its
    /// parent (a member name literal or an index); lambda parameters are numbered by `depth`.
    fn read(&self, ty: &Type, value: &str, at: &str, depth: usize) -> String {
        match ty {
            Type::Bool => format!("rt.bool({value}, {at})"),
            Type::Int(w) => {
                let (lo, hi) = w.range();
                if w.is_64() {
                    format!("rt.int64({value}, {at}, {lo}n, {hi}n)")
                } else {
                    format!("rt.int({value}, {at}, {lo}, {hi})")
                }
            }
            Type::Float => format!("rt.float({value}, {at})"),
            Type::String => format!("rt.str({value}, {at})"),
            Type::Enum(n) => format!("read{}({value}, {at})", self.names.enums[n]),
            Type::Record(n) | Type::Union(n) => {
                format!("read{}({value}, {at})", self.names.records[n])
            }
            Type::Flags(e) => format!("rt.scalars({value}, {at}, read{})", self.names.enums[e]),
            Type::DateTime(_) => format!("rt.dateTime({value}, {at})"),
            Type::Duration => format!("rt.duration({value}, {at})"),
            Type::Date => format!("rt.date({value}, {at})"),
            Type::Time(_) => format!("rt.time({value}, {at})"),
            Type::Json => format!("rt.json({value}, {at})"),
            Type::Choice(n) => format!("read{}({value}, {at})", self.names.records[n]),
            Type::Map(k, v) => {
                let (x, a, kk) = (
                    format!("v{depth}"),
                    format!("a{depth}"),
                    format!("k{depth}"),
                );
                let key = match &**k {
                    Type::Int(w) if w.is_64() => {
                        let (lo, hi) = w.range();
                        format!("rt.int64Key({kk}, {lo}n, {hi}n)")
                    }
                    Type::Int(w) => {
                        let (lo, hi) = w.range();
                        format!("rt.intKey({kk}, {lo}, {hi})")
                    }
                    _ => kk.clone(),
                };
                format!(
                    "rt.map({value}, {at}, ({kk}) => {key}, ({x}, {a}) => {})",
                    self.read(v, &x, &a, depth + 1)
                )
            }
            Type::Array(t) if matches!(**t, Type::Bool | Type::Float | Type::String) => {
                let how = match **t {
                    Type::Bool => "bools",
                    Type::Float => "floats",
                    _ => "strings",
                };
                format!("rt.{how}({value}, {at})")
            }
            Type::Array(t) if matches!(**t, Type::Int(w) if !w.is_64()) => {
                let Type::Int(w) = **t else { unreachable!() };
                let (lo, hi) = w.range();
                format!("rt.ints({value}, {at}, {lo}, {hi})")
            }
            Type::Array(t) if matches!(**t, Type::Enum(_)) => {
                let Type::Enum(n) = &**t else { unreachable!() };
                format!("rt.scalars({value}, {at}, read{})", self.names.enums[n])
            }
            Type::Array(t) => {
                let (x, a) = (format!("v{depth}"), format!("a{depth}"));
                // Elements whose reader returns the value itself are only checked; others are replaced in place.
                let how = if unconverted(t) { "scalars" } else { "array" };
                format!(
                    "rt.{how}({value}, {at}, ({x}, {a}) => {})",
                    self.read(t, &x, &a, depth + 1)
                )
            }
            Type::Optional(t) => {
                let (x, a) = (format!("v{depth}"), format!("a{depth}"));
                format!(
                    "rt.nullable({value}, {at}, ({x}, {a}) => {})",
                    self.read(strip(t), &x, &a, depth + 1)
                )
            }
        }
    }

    /// Expression of the canonical JSON text of `value` of type `ty`.
    fn write(&self, ty: &Type, value: &str, depth: usize) -> String {
        match ty {
            Type::Bool => format!("rt.wBool({value})"),
            Type::Int(w) if w.is_64() => format!("rt.wBig({value})"),
            Type::Int(_) | Type::Float => format!("rt.wNum({value})"),
            Type::String | Type::Enum(_) => format!("rt.wStr({value})"),
            Type::Record(n) | Type::Union(n) => format!("write{}({value})", self.names.records[n]),
            Type::Flags(_) => format!("rt.wArray({value}, rt.wStr)"),
            Type::DateTime(_) => format!("rt.wDateTime({value})"),
            Type::Duration => format!("rt.wNum({value})"),
            Type::Date | Type::Time(_) => format!("rt.wStr({value})"),
            Type::Json => format!("rt.wJson({value})"),
            Type::Choice(n) => format!("write{}({value})", self.names.records[n]),
            Type::Map(_, v) => {
                let x = format!("x{depth}");
                format!(
                    "rt.wMap({value}, ({x}) => {})",
                    self.write(v, &x, depth + 1)
                )
            }
            Type::Array(t) => {
                let x = format!("x{depth}");
                format!(
                    "rt.wArray({value}, ({x}) => {})",
                    self.write(t, &x, depth + 1)
                )
            }
            Type::Optional(t) => format!(
                "({value} === null ? \"null\" : {})",
                self.write(strip(t), value, depth)
            ),
        }
    }

    fn table_vm(&self, t: &Table) -> anyhow::Result<TableVm> {
        let mut row = self.class_vm(
            self.names.rows[&t.name].clone(),
            &t.doc,
            &t.fields,
            &format!("table {:?}", t.name),
        )?;
        self.split(&mut row, true);
        refs_class(&mut row);
        let mut uses = Uses::default();
        for f in &t.fields {
            uses.add(&f.ty);
        }
        let mut imports = vec!["import * as rt from \"../runtime.js\";".to_string()];
        imports.extend(self.imports(&uses, "../"));
        if row.linked {
            imports.push("import type { Tables } from \"../browser.js\";".into());
            let targets: BTreeSet<&String> = row
                .ref_targets
                .iter()
                .filter(|(ty, _)| *ty != row.name)
                .map(|(ty, _)| ty)
                .collect();
            for ty in targets {
                imports.push(format!("import type {{ {ty} }} from \"./{ty}.js\";"));
            }
        }
        let key = if t.mode == TableMode::Map {
            if t.primary_key.is_empty() {
                bail!("TypeScript: map table {:?} has no primary key", t.name);
            }
            let mut params = vec![];
            let mut typed = vec![];
            let mut of_row = vec![];
            for &i in &t.primary_key {
                let f = &t.fields[i];
                if !matches!(
                    f.ty,
                    Type::Bool | Type::Int(_) | Type::Float | Type::String | Type::Enum(_)
                ) {
                    bail!(
                        "TypeScript: primary key field {:?} of table {:?} must be a boolean, integer, number, string or enum",
                        f.name,
                        t.name
                    );
                }
                let p = naming::avoid(naming::ts_param(&f.name, f.ident.as_deref()), &["rt"]);
                typed.push(format!("{p}: {}", self.ty(&f.ty)));
                of_row.push(format!("row.{}", row.fields[i].ident));
                params.push(p);
            }
            let single = t.primary_key.len() == 1;
            let compose = |parts: &[String]| {
                if single {
                    parts[0].clone()
                } else {
                    format!("rt.key([{}])", parts.join(", "))
                }
            };
            let taken: Vec<&str> = params.iter().map(String::as_str).collect();
            Some(KeyVm {
                ty: if single {
                    self.ty(&t.fields[t.primary_key[0]].ty)
                } else {
                    "string".into()
                },
                params: typed.join(", "),
                of_row: compose(&of_row),
                of_args: compose(&params),
                found: naming::avoid("row".into(), &taken),
            })
        } else {
            None
        };
        let uniques = self.uniques(t, &row);
        Ok(TableVm {
            uniques,
            imports,
            name_literal: quoted(&t.name),
            is_map: t.mode == TableMode::Map,
            is_list: t.mode == TableMode::List,
            table_class: format!("{}Table", row.name),
            key,
            row,
        })
    }

    /// `getBy<Fields>` / `getBy<Fields>OrThrow` per secondary unique key, over a `Map` built once.
    fn uniques(&self, t: &Table, row: &ClassVm) -> Vec<UniqueVm> {
        let mut out = vec![];
        let lit = quoted(&t.name);
        for key in &t.unique_keys {
            if !super::lookup_key(t, key) {
                continue;
            }
            let idents: Vec<&str> = key.iter().map(|&i| row.fields[i].ident.as_str()).collect();
            let suffix: String = key
                .iter()
                .map(|&i| naming::ts_type(&t.fields[i].name))
                .collect::<Vec<_>>()
                .join("And");
            let params: Vec<String> = key
                .iter()
                .map(|&i| {
                    naming::avoid(
                        naming::ts_param(&t.fields[i].name, t.fields[i].ident.as_deref()),
                        &["rt", "row"],
                    )
                })
                .collect();
            let typed = key
                .iter()
                .zip(&params)
                .map(|(&i, p)| format!("{p}: {}", self.ty(&t.fields[i].ty)))
                .collect::<Vec<_>>()
                .join(", ");
            let single = key.len() == 1;
            let (kty, of_row, of_args) = if single {
                (
                    self.ty(&t.fields[key[0]].ty),
                    format!("row.{}", idents[0]),
                    params[0].clone(),
                )
            } else {
                (
                    "string".to_string(),
                    format!(
                        "rt.key([{}])",
                        idents
                            .iter()
                            .map(|i| format!("row.{i}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    format!("rt.key([{}])", params.join(", ")),
                )
            };
            let what = key
                .iter()
                .map(|&i| t.fields[i].name.clone())
                .collect::<Vec<_>>()
                .join(", ");
            let found = naming::avoid(
                "found".into(),
                &params.iter().map(String::as_str).collect::<Vec<_>>(),
            );
            // `byKey` is the primary key's map: a unique key on a field named `Key` takes `byKey_`.
            let map = naming::avoid(format!("by{suffix}"), &["byKey"]);
            let rn = &row.name;
            out.push(UniqueVm {
                decl: format!("private readonly {map}: ReadonlyMap<{kty}, {rn}>;"),
                init: vec![
                    format!("const {map} = new Map<{kty}, {rn}>();"),
                    format!("for (const row of this.all) {{\n      const k = {of_row};\n      if ({map}.has(k)) throw new rt.GentableDataError({lit} + {} + String(k));\n      {map}.set(k, row);\n    }}", quoted(&format!(": duplicate unique key {what} "))),
                    format!("this.{map} = {map};"),
                ],
                methods: vec![
                    format!("/** The row with this {what} (a unique key), or `undefined`. */\n  getBy{suffix}({typed}): {rn} | undefined {{\n    return this.{map}.get({of_args});\n  }}"),
                    format!("/** The row with this {what} (a unique key); throws a `RangeError` if there is none. */\n  getBy{suffix}OrThrow({typed}): {rn} {{\n    const {found} = this.{map}.get({of_args});\n    if ({found} === undefined) throw new RangeError({lit} + {} + String({of_args}));\n    return {found};\n  }}", quoted(&format!(" has no row with {what} "))),
                ],
            });
        }
        out
    }

    /// `Language`, `LANGUAGES` and `text(t, key, language)` for `[localization]`.
    fn localization_ts(&self, props: &[(String, String)]) -> anyhow::Result<String> {
        let Some(tt) = self.text else {
            return Ok(String::new());
        };
        let t = tt.table;
        let prop = &props
            .iter()
            .find(|(n, _)| *n == t.name)
            .context("text table property")?
            .1;
        let idents = property_names(&t.fields, &t.name)?;
        let union = tt
            .languages()
            .map(|(x, _)| quoted(x))
            .collect::<Vec<_>>()
            .join(" | ");
        let mut cases = String::new();
        for (lang, fi) in tt.languages() {
            cases.push_str(&format!(
                "    case {}:\n      text = row.{};\n      break;\n",
                quoted(lang),
                idents[fi]
            ));
        }
        Ok(format!(
            "/** The languages of table {name} (`[localization] languages`). */\nexport type Language = {union};\n\n/** Every language, the default first. */\nexport const LANGUAGES: readonly Language[] = Object.freeze([{list}]);\n\n/** The text of `key` in `language` (table {name}), or `undefined` if the key or its text is missing. */\nexport function text(t: Tables, key: string, language: Language): string | undefined {{\n  const row = t.{prop}.get(key);\n  if (row === undefined) return undefined;\n  let text: string | undefined;\n  switch (language) {{\n{cases}  }}\n  return text === \"\" ? undefined : text;\n}}",
            name = t.name.replace("*/", "*\\/"),
            list = tt.languages().map(|(x, _)| quoted(x)).collect::<Vec<_>>().join(", "),
        ))
    }

    fn index_vm(&self, project: &Project) -> anyhow::Result<IndexVm> {
        let props: Vec<String> = project
            .tables
            .iter()
            .map(|t| self.props[&t.name].clone())
            .collect();
        let mut links = vec![];
        let props_for_text: Vec<(String, String)> = project
            .tables
            .iter()
            .zip(&props)
            .map(|(t, p)| (t.name.clone(), p.clone()))
            .collect();
        let mut imports = vec![];
        let mut exports = vec!["export { GentableDataError } from \"./runtime.js\";".to_string()];
        if !project.enums.is_empty() {
            let names: Vec<&str> = project
                .enums
                .keys()
                .map(|e| self.names.enums[e].as_str())
                .collect();
            exports.push(format!(
                "export {{ {} }} from \"./enums.js\";",
                names.join(", ")
            ));
        }
        if !project.records.is_empty() || !project.choices.is_empty() {
            let names: Vec<&str> = project
                .records
                .keys()
                .chain(project.choices.keys())
                .map(|r| self.names.records[r].as_str())
                .collect();
            exports.push(format!(
                "export type {{ {} }} from \"./records.js\";",
                names.join(", ")
            ));
        }
        let mut tables = vec![];
        imports.push("import * as rt from \"./runtime.js\";".to_string());
        if !project.tables.is_empty() {
            imports.push("import { TABLE_HASHES } from \"./hashes.js\";".to_string());
        }
        for (t, property) in project.tables.iter().zip(props) {
            let row = &self.names.rows[&t.name];
            let module = format!("\"./tables/{}.js\"", naming::file_name(row));
            let name = quoted(&t.name);
            let file = quoted(&data_file(t, self.binary));
            let text = format!("textOf({file}, {name}), {file}, {name}, TABLE_HASHES.get({name})");
            let linked = self.linked.fields(self.project, &t.fields);
            let link = if linked {
                links.push(match t.mode {
                    TableMode::One => format!(
                        "rt.linkRows([t.{property}], {file}, {name}, (r) => link{row}(r, t));"
                    ),
                    TableMode::Map | TableMode::List => format!(
                        "rt.linkRows(t.{property}.all, {file}, {name}, (r) => link{row}(r, t));"
                    ),
                });
                format!(", link{row}")
            } else {
                String::new()
            };
            // With binary data, each file may be either format (recognised by its first bytes).
            let bin = if self.binary {
                format!(", read{row}Bin")
            } else {
                String::new()
            };
            let (ty, load, canonical) = match t.mode {
                TableMode::One => {
                    imports.push(format!(
                        "import {{ type {row}, read{row}{bin}, write{row}{link} }} from {module};"
                    ));
                    exports.push(format!("export type {{ {row} }} from {module};"));
                    (
                        row.clone(),
                        format!("rt.single({text}, read{row}{bin})"),
                        format!("rt.wArray([t.{property}], write{row})"),
                    )
                }
                TableMode::Map | TableMode::List => {
                    imports.push(format!(
                        "import {{ {row}Table, read{row}{bin}, write{row}{link} }} from {module};"
                    ));
                    exports.push(format!(
                        "export {{ type {row}, {row}Table }} from {module};"
                    ));
                    (
                        format!("{row}Table"),
                        format!("new {row}Table(rt.rows({text}, read{row}{bin}))"),
                        format!("rt.wArray(t.{property}.all, write{row})"),
                    )
                }
            };
            tables.push(IndexTableVm {
                property,
                ty,
                doc: ts_doc(&t.doc),
                name_literal: name,
                load,
                canonical,
            });
        }
        let none = project.tables.is_empty();
        Ok(IndexVm {
            project: hbs::doc_lines(&project.name)
                .join(" ")
                .replace("*/", "*\\/"),
            imports,
            exports,
            localization: self.localization_ts(&props_for_text)?,
            links,
            data_files: project
                .tables
                .iter()
                .map(|t| quoted(&data_file(t, self.binary)))
                .collect::<Vec<_>>()
                .join(", "),
            tables,
            text_of: if none {
                "_textOf".into()
            } else {
                "textOf".into()
            },
            tables_param: if none { "_t".into() } else { "t".into() },
            binary: self.binary,
        })
    }
}

/// `lines` indented by two spaces.
fn indent(lines: Vec<String>) -> Vec<String> {
    lines.into_iter().map(|l| format!("  {l}")).collect()
}

/// `lines` as one block statement `{ … }`, its lines joined for a template that indents the first by two
/// spaces.
fn braced(lines: Vec<String>) -> String {
    let mut all = vec!["{".to_string()];
    all.extend(indent(lines));
    all.push("}".into());
    all.join("\n  ")
}

/// The `Tables` property of every table (by table name), checked for collisions.
fn table_properties(project: &Project) -> anyhow::Result<BTreeMap<String, String>> {
    let props: Vec<String> = project
        .tables
        .iter()
        .map(|t| naming::ts_field(&t.name, None))
        .collect();
    if let Some((a, b, id)) = naming::check_collisions(
        project
            .tables
            .iter()
            .zip(&props)
            .map(|(t, p)| (t.name.as_str(), p.clone())),
    )
    .first()
    {
        bail!(
            "TypeScript: tables {a:?} and {b:?} both map to the property Tables.{id}; rename one"
        );
    }
    Ok(project
        .tables
        .iter()
        .map(|t| t.name.clone())
        .zip(props)
        .collect())
}

/// The data file of table `t` the loader reads (relative to the data folder).
/// The data file the loaders read for `t`: `<Table>.bytes` when the output has binary data, else `<Table>.json`.
fn data_file(t: &Table, binary: bool) -> String {
    format!("{}.{}", t.name, if binary { "bytes" } else { "json" })
}

/// Whether the reader of `ty` returns the JSON value itself (so an array of them is only checked).
fn unconverted(ty: &Type) -> bool {
    match ty {
        Type::Bool | Type::Float | Type::String | Type::Enum(_) | Type::Duration => true,
        Type::Int(w) => !w.is_64(),
        Type::Optional(t) => unconverted(strip(t)),
        _ => false,
    }
}

/// Names of `Object.prototype` members: a missing JSON member of such a name would read as the inherited one.
const INHERITED: &[&str] = &[
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
    "__proto__",
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
];

/// Expression of member `name` of the JSON object `o` (`undefined` when absent).
fn member_of(o: &str, name: &str) -> String {
    if INHERITED.contains(&name) {
        format!("rt.own({o}, {})", quoted(name))
    } else {
        format!("{o}[{}]", quoted(name))
    }
}

/// `Optional(Optional(t))` is `Optional(t)`.
fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Optional(t) => strip(t),
        t => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_cannot_break_out() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(quoted("l1\nl2\r\t"), "\"l1\\nl2\\r\\t\"");
        assert_eq!(quoted("\u{2028}\u{2029}€"), "\"\\u2028\\u2029\\u20ac\"");
        assert_eq!(quoted("😀"), "\"\\ud83d\\ude00\"");
        assert_eq!(
            quoted("\u{0}\u{8}\u{1f}\u{7f}"),
            "\"\\u0000\\u0008\\u001f\\u007f\""
        );
        // Plain characters inside a double-quoted literal.
        assert_eq!(quoted("`${x}` {{y}} */ '"), "\"`${x}` {{y}} */ '\"");
    }

    #[test]
    fn doc_comments_cannot_close_early() {
        assert_eq!(ts_doc("a */ b **/ c"), ["a *\\/ b **\\/ c"]);
        assert_eq!(
            ts_doc("one\ntwo\u{2028}three\u{2029}four\r\nfive"),
            ["one", "two", "three", "four", "five"]
        );
        assert_eq!(
            ts_doc("<b>&amp; `x` ${y} {{z}}"),
            ["<b>&amp; `x` ${y} {{z}}"]
        );
    }

    #[test]
    fn canonical_member_literals() {
        assert_eq!(quoted_json("Id", ":"), "\"\\\"Id\\\":\"");
        assert_eq!(quoted_json("名\n", ""), "\"\\\"\\u540d\\\\n\\\"\"");
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;
    use crate::emit::testkit;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    fn emit_sample(project: &Project, root: &Path, config: &crate::config::Config) -> Files {
        testkit::emit_sample(emit, project, root, config)
    }

    /// With binary data, a type named `Vec2Bin` would declare `readVec2Bin`, the binary reader of `Vec2`
    /// (helper-16 found tsc refusing it, TS2393): a clear error instead. Without binary data it is fine.
    #[test]
    fn a_type_named_like_a_binary_reader_is_an_error() {
        let mut p = testkit::project();
        let mut twin = p.records["Vec2"].clone();
        twin.name = "Vec2Bin".into();
        p.records.insert("Vec2Bin".into(), twin);
        let dir = tempfile::tempdir().unwrap();
        let mut config = testkit::config();
        let hashes = testkit::data_hashes(&p);
        let run = |config: &crate::config::Config| {
            emit(&EmitContext {
                project: &p,
                config,
                content_hash: testkit::HASH,
                project_hash: testkit::HASH,
                data_hashes: &hashes,
                root: dir.path(),
                only: None,
            })
        };
        if let Err(e) = run(&config) {
            panic!("without binary data: {e:#}");
        }
        config.typescript.data = vec![
            crate::config::DataFormat::Json,
            crate::config::DataFormat::Binary,
        ];
        let err = run(&config).unwrap_err().to_string();
        assert!(
            err.contains("readVec2Bin") && err.contains("record \"Vec2Bin\""),
            "{err}"
        );
    }

    #[test]
    fn output_is_deterministic_with_headers() {
        let p = testkit::project();
        let dir = tempfile::tempdir().unwrap();
        let a = emit_sample(&p, dir.path(), &testkit::config());
        assert_eq!(a, emit_sample(&p, dir.path(), &testkit::config()));
        let names: Vec<&str> = a.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "ts/browser.ts",
                "ts/enums.ts",
                "ts/hashes.ts",
                "ts/index.ts",
                "ts/records.ts",
                "ts/runtime.ts",
                "ts/tables/Const.ts",
                "ts/tables/Empty.ts",
                "ts/tables/Extras.ts",
                "ts/tables/Load.ts",
                "ts/tables/Move.ts",
                "ts/tables/PieceType.ts"
            ]
        );
        for (name, text) in &a {
            assert!(
                text.starts_with(&format!("// {}\n", crate::emit::HEADER)),
                "{name}"
            );
            assert!(
                !text.contains('\r') && text.ends_with('\n') && !text.ends_with("\n\n"),
                "{name}"
            );
        }
        let piece = &a["ts/tables/PieceType.ts"];
        for decl in [
            "  readonly class: Dir;",
            "  readonly params: readonly number[];",
            "  readonly delete?: string;",
            "  readonly constructor?: boolean | undefined;",
            "  readonly big: bigint;",
            "  readonly ubig?: bigint;",
            "  readonly grid: readonly (readonly number[])[];",
            "  readonly maybe: readonly (number | null)[];",
            "  readonly u540dU5b57: string;",
            "  get(id: number): PieceType | undefined {",
        ] {
            assert!(piece.contains(decl), "missing {decl:?} in\n{piece}");
        }
        assert!(a["ts/browser.ts"].contains("  readonly const: Const;"));
        assert!(
            a["ts/enums.ts"].contains("export type Dir = \"Forward\" | \"Left\" | \"Back Right\"")
        );
    }

    #[test]
    fn spreadsheet_text_stays_inside_comments_and_literals() {
        let p = testkit::project();
        let dir = tempfile::tempdir().unwrap();
        let files = emit_sample(&p, dir.path(), &testkit::config());
        let piece = &files["ts/tables/PieceType.ts"];
        assert!(
            piece.contains("   * *\\/ </summary> <b>&amp; \"q\" \\ {{x}} ${y} `z`\n   * ls\n   * ps\n   * nel\n   * next *\\/\n   */\n"),
            "{piece}"
        );
        let enums = &files["ts/enums.ts"];
        assert!(
            enums.contains("  QuoU0022TeU002a: \"quo\\\"te*/\",\n"),
            "{enums}"
        );
        assert!(
            enums.contains("  U540dU5b57: \"\\u540d\\u5b57\",\n"),
            "{enums}"
        );
        assert!(enums.contains("\"{{x}}${y}`\""), "{enums}");
        for (name, text) in &files {
            // Every comment closes where the template closes it: no doc line holds `*/`.
            for line in text.lines() {
                let t = line.trim_start();
                if t.starts_with("* ") || t.starts_with("/**") {
                    assert!(
                        !t.contains("*/")
                            || t == "*/"
                            || (t.starts_with("/**")
                                && t.ends_with("*/")
                                && t.matches("*/").count() == 1),
                        "{name}: {line}"
                    );
                }
            }
        }
    }

    #[test]
    fn templates_can_be_overridden() {
        let p = testkit::project();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tpl")).unwrap();
        std::fs::write(
            dir.path().join("tpl/enums.ts.hbs"),
            "{{#each enums}}export type {{name}} = string;\n{{/each}}",
        )
        .unwrap();
        let mut config = testkit::config();
        config.typescript.templates = Some("tpl".into());
        let files = emit_sample(&p, dir.path(), &config);
        assert_eq!(
            files["ts/enums.ts"],
            format!(
                "// {}\nexport type Dir = string;\nexport type Tier = string;\n",
                crate::emit::HEADER
            )
        );
    }

    const MAIN: &str = r#"
import * as fs from "node:fs";
import * as path from "node:path";
import { CONTENT_HASH, DATA_FILES, Dir, GentableDataError, canonicalTables, loadTables, loadTablesAsync, loadTablesFromBytes, type PieceType, type Tables } from "./gen/ts/index.js";

const dataDir = process.argv[2] ?? "";
const outDir = process.argv[3] ?? "";
try {
  const t: Tables = loadTables(dataDir);
  for (const [name, json] of Object.entries(canonicalTables(t))) {
    fs.writeFileSync(path.join(outDir, name + ".json"), json);
  }
  // The API surface, used the way a server would.
  const pawn: PieceType | undefined = t.pieceType.get(1);
  const report: unknown[] = [
    pawn?.name,
    pawn?.class === Dir.Forward,
    pawn?.big === 9007199254740993n,
    pawn?.ubig === 18446744073709551615n,
    t.pieceType.get(3) === undefined,
    t.move.get("Pawn", "Silver", 1)?.tags.length,
    t.move.size,
    t.const.maxSteps,
    t.const.bigNumber === 9223372036854775807n,
    t.load.all[1]?.value,
    t.load.all[1]?.at === undefined,
    "at" in (t.load.all[1] ?? {}),
    t.empty.size,
    CONTENT_HASH.length,
  ];
  try {
    t.pieceType.getOrThrow(9);
  } catch (e) {
    report.push(e instanceof RangeError ? e.message : "?");
  }
  // Typed references: the rows themselves, resolved once at load; rows frozen, references not enumerable.
  const p2 = t.pieceType.getOrThrow(2);
  const owners = t.extras.all[0]?.ownersRefs;
  const act = t.extras.all[0]?.act;
  const byName = t.extras.all[0]?.byName.get("é");
  let mutated = "no";
  try {
    (p2 as { name: string }).name = "x";
    mutated = "yes";
  } catch (e) {
    mutated = e instanceof TypeError ? "TypeError" : "?";
  }
  const refs: unknown[] = [
    pawn?.nextRef === p2,
    p2.nextRef === null || p2.nextRef === undefined,
    t.pieceType.getOrThrow(65535).nextRef?.name,
    t.move.get("Pawn", "Silver", 1)?.pieceRef.id,
    pawn?.effects[0]?.sourceRef?.id,
    owners?.length,
    owners?.[0]?.[1]?.id,
    owners?.[1]?.[0]?.id,
    t.extras.all[1]?.ownersRefs.length,
    act?.type === "class" ? act.byRef?.id : "?",
    act?.type === "class" && act.next?.type === "class" ? act.next.byRef?.id : "?",
    byName?.type === "class" ? byName.byRef?.id : "?",
    t.extras.all[0]?.sparesRefs?.length,
    t.extras.all[0]?.sparesRefs?.[0]?.id,
    t.extras.all[0]?.sparesRefs?.[1]?.id,
    t.extras.all[1]?.sparesRefs === undefined,
    t.extras.all[0]?.matesRefs.map((r) => r?.id ?? "-").join(","),
    t.extras.all[0]?.squadsRefs?.map((s) => s.map((r) => r.id).join("+")).join(","),
    t.extras.all[1]?.squadsRefs === undefined,
    [...(t.extras.all[0]?.ranksRefs ?? new Map<string, { id: number }>()).entries()].map(([k, r]) => k + ":" + String(r.id)).join(","),
    t.extras.all[1]?.ranksRefs.size,
    t.extras.all[0]?.guardsRefs?.get("g")?.id,
    t.extras.all[1]?.guardsRefs === undefined,
    Object.isFrozen(pawn) && Object.isFrozen(pawn?.params) && Object.isFrozen(pawn?.pos) && Object.isFrozen(t) && Object.isFrozen(t.pieceType.all),
    mutated,
    JSON.stringify(t.move.get("Pawn", "Silver", 1)).includes("Ref"),
    Object.keys(pawn ?? {}).includes("nextRef"),
  ];
  // Hot reload: a second load shares nothing with the first, whose rows stay as they were.
  const t2 = loadTables(dataDir);
  refs.push(t2.pieceType.get(1) === pawn, t2.pieceType.get(1)?.nextRef === t2.pieceType.get(2), pawn?.nextRef === p2);
  refs.push(DATA_FILES.length, DATA_FILES[0]);
  // Asynchronous loading, and loading from bytes (what a browser does with fetched files).
  const t3 = await loadTablesAsync(dataDir);
  const t4 = loadTablesFromBytes((file) => fs.readFileSync(path.join(dataDir, file)));
  refs.push(t3.pieceType.get(1)?.nextRef?.id, t4.pieceType.get(1)?.nextRef?.id);
  fs.writeFileSync(path.join(outDir, "refs.txt"), refs.map(String).join("|"));
  process.stdout.write(report.map(String).join("|"));
} catch (e) {
  if (e instanceof GentableDataError) {
    process.stderr.write(e.message);
    process.exit(3);
  }
  throw e;
}
"#;

    /// The pinned TypeScript compiler in `tests/conformance` (`npm ci` there).
    fn tsc() -> Option<PathBuf> {
        let conformance = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
        let tsc = conformance.join("node_modules/typescript/bin/tsc");
        testkit::require(
            tsc.is_file().then_some(tsc),
            "tests/conformance/node_modules (run `npm ci` in tests/conformance)",
        )
    }

    /// Emit the sample, compile it with the pinned `tsc` under the strictest options, load the canonical data
    /// with Node and compare what `canonicalTables` writes byte for byte; then feed it broken data.
    #[test]
    fn compiles_with_tsc_and_reproduces_canonical_data() {
        let Some(node) = testkit::tool("node") else {
            return;
        };
        let Some(tsc) = tsc() else { return };
        let types =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/node_modules/@types");
        let p = testkit::project();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = emit_sample(&p, root, &testkit::config());
        testkit::write_files(&root.join("gen"), &files);
        std::fs::write(root.join("main.ts"), MAIN).unwrap();
        std::fs::write(root.join("package.json"), "{\"type\":\"module\"}\n").unwrap();
        let tsconfig = serde_json::json!({
            "compilerOptions": {
                "target": "ES2020",
                "module": "NodeNext",
                "moduleResolution": "NodeNext",
                "strict": true,
                "noUnusedLocals": true,
                "noUnusedParameters": true,
                "noImplicitReturns": true,
                "noFallthroughCasesInSwitch": true,
                "noUncheckedIndexedAccess": true,
                "exactOptionalPropertyTypes": true,
                "noPropertyAccessFromIndexSignature": true,
                "verbatimModuleSyntax": true,
                "isolatedModules": true,
                "forceConsistentCasingInFileNames": true,
                "typeRoots": [types],
                "types": ["node"],
                "outDir": "out",
            },
            "include": ["main.ts", "gen/ts/**/*.ts"],
        });
        std::fs::write(
            root.join("tsconfig.json"),
            serde_json::to_string_pretty(&tsconfig).unwrap(),
        )
        .unwrap();
        testkit::run(
            Command::new(&node)
                .current_dir(root)
                .arg(&tsc)
                .args(["-p", "tsconfig.json"]),
        );

        let data = testkit::data(&p);
        let data_dir = root.join("data");
        std::fs::create_dir(&data_dir).unwrap();
        for (name, json) in &data {
            std::fs::write(data_dir.join(format!("{name}.json")), json).unwrap();
        }
        let out_dir = root.join("canon");
        std::fs::create_dir(&out_dir).unwrap();
        let report = testkit::run(Command::new(&node).current_dir(root).args([
            "out/main.js",
            "data",
            "canon",
        ]));
        for (name, json) in &testkit::canonical(&p) {
            let got = std::fs::read_to_string(out_dir.join(format!("{name}.json"))).unwrap();
            assert_eq!(&got, json, "canonical JSON of {name} differs");
        }
        assert_eq!(report, "Pawn|true|true|true|true|0|3|12|true|second|true|false|0|64|PieceType has no row with key 9");
        assert_eq!(
            std::fs::read_to_string(out_dir.join("refs.txt")).unwrap(),
            "true|true|Pawn|1|65535|2|2|65535|0|2|2|2|2|2|1|true|1,-,65535|2,1+2|true|a:1,b:65535|0|2|true|true|TypeError|false|false|false|true|true|6|Const.json|2|2"
        );

        // Broken data: each case changes one file and must fail with a message naming the problem.
        testkit::check_broken_data(root, &data, testkit::Loader::TypeScript, |case_dir| {
            Command::new(&node)
                .current_dir(root)
                .arg("out/main.js")
                .arg(case_dir)
                .arg(&out_dir)
                .output()
                .unwrap()
        });
    }
}
