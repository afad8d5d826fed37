//! **emit/csharp/** owns the C# backend and its templates. It may import `emit/`'s shared front and the
//! base modules only.
//!
//! C# emitter: C# 7.2 for Unity (IL2CPP-safe: no reflection, no `dynamic`, no third-party packages).
//!
//! Output under `generated/csharp/`, one type per file, all in the configured namespace:
//! * `<Enum>.cs`: a C# enum (members numbered in declaration order) and its JSON reader/writer;
//! * `<Record>.cs`: a sealed class with get-only properties for a nested object type;
//! * `<Table>.cs`: the row class; for map tables the typed key `readonly struct <Table>Id` and the
//!   `<Table>Table` with `Get`/`TryGet`; for list tables the `<Table>Table` with `All`;
//! * `Tables.cs`: the entry point, `Tables.Load(dataDir)`, `ToCanonicalJson()`;
//! * `Tables.Hashes.cs`: `Tables.ContentHash`, `Tables.ProjectHash` and every table's `dataHash` and
//!   `schemaHash` (docs/data-format.md): the one C# file that changes with every data edit;
//! * `GentableRuntime.cs`: the JSON reader and the canonical JSON writer the loader uses.
//!
//! Everything is laid out by the handlebars templates in `codegen/templates/` from the view models
//! below; all decisions (identifiers, types, reader and writer expressions, escaping) are made here.

use super::front::{Linked, RefLookup, Reference};
use super::hbs;
use super::strings::{quoted, quoted_json};
use super::{Backend, EmitContext, Files};
use crate::ir::canonical;
use crate::ir::text::TextTable;
use crate::ir::{EnumDef, Field, IntWidth, Project, RecordDef, RecordForm, Table, TableMode, Type};
use crate::naming::{self, Case, Lang};
use anyhow::{bail, Context};
use serde::Serialize;
use std::collections::BTreeMap;

/// The built-in templates (file name, text); `csharp.templates` may override each by file name.
const TEMPLATES: &[hbs::Builtin] = &[
    ("runtime.cs.hbs", include_str!("templates/runtime.cs.hbs")),
    ("enum.cs.hbs", include_str!("templates/enum.cs.hbs")),
    ("record.cs.hbs", include_str!("templates/record.cs.hbs")),
    ("table.cs.hbs", include_str!("templates/table.cs.hbs")),
    ("tables.cs.hbs", include_str!("templates/tables.cs.hbs")),
    ("hashes.cs.hbs", include_str!("templates/hashes.cs.hbs")),
    ("union.cs.hbs", include_str!("templates/union.cs.hbs")),
    ("choice.cs.hbs", include_str!("templates/choice.cs.hbs")),
    ("json.cs.hbs", include_str!("templates/json.cs.hbs")),
    ("shapes.cs.hbs", include_str!("templates/shapes.cs.hbs")),
];

/// Type names the generated code itself declares in the namespace.
const RESERVED_TYPES: &[&str] = &[
    "Tables",
    "GentableDataException",
    "GentableKeys",
    "GentableReader",
    "GentableRead",
    "GentableEmpty",
    "GentableLinkFault",
    "GentableCanonical",
    "GentableCodec",
    "GentableDouble",
    "GentableBig",
    "GentableIndex",
    "IGentableLinked",
    "GentableBinary",
    "GentableBinaryText",
    // The runtime's file name (GentableRuntime.cs): a table of this name would overwrite it.
    "GentableRuntime",
];

/// Classes of more than this many fields are read from the binary format through locals ([`Gen::binary_new`]).
const WIDE_FIELDS: usize = 100;

/// Members of `Tables` that a table property must not take.
const TABLES_MEMBERS: &[&str] = &[
    "Load",
    "LoadFromJson",
    "LoadFromBytes",
    "LoadAsync",
    "DataFiles",
    "ContentHash",
    "ProjectHash",
    "TableHashes",
    "ToCanonicalJson",
];

/// The C# backend (see the module docs).
pub struct CSharp;

/// Emit `csharp/` files.
pub fn emit(ctx: &EmitContext) -> anyhow::Result<Files> {
    super::run(&CSharp, ctx)
}

impl Backend for CSharp {
    type Plan<'c> = Gen<'c>;

    fn prepare<'c>(&self, ctx: &'c EmitContext<'c>) -> anyhow::Result<Gen<'c>> {
        let override_dir = ctx
            .config
            .csharp
            .templates
            .as_ref()
            .map(|p| ctx.root.join(p));
        let text = super::front::localization(ctx)?;
        Ok(Gen {
            project: ctx.project,
            names: Names::new(ctx.project)?,
            ns: naming::csharp_namespace(&ctx.config.csharp.namespace),
            props: table_properties(ctx.project, text.is_some())?,
            text,
            hb: hbs::registry(TEMPLATES, override_dir.as_deref())?,
            linked: Linked::of(ctx.project),
            binary: ctx
                .config
                .csharp
                .data
                .contains(&crate::config::DataFormat::Binary),
        })
    }

    fn runtime(&self, ctx: &EmitContext, g: &Gen) -> anyhow::Result<Files> {
        let project = ctx.project;
        let vm = RuntimeVm {
            namespace: &g.ns,
            peek: super::front::uses_json(project) || !project.choices.is_empty(),
        };
        Ok(Files::from([(
            "csharp/GentableRuntime.cs".to_string(),
            hbs::render(&g.hb, "runtime.cs.hbs", &vm)?,
        )]))
    }

    fn types(&self, ctx: &EmitContext, g: &Gen) -> anyhow::Result<Files> {
        let project = ctx.project;
        let mut files = Files::new();
        // Every enum, record and union is named even when one clashes: one run reports every clash.
        let mut clashes = super::front::Errors::default();
        for e in project.enums.values() {
            if let Some(vm) = clashes.take(g.enum_vm(e)) {
                files.insert(
                    format!("csharp/{}.cs", naming::file_name(&vm.name)),
                    hbs::render(&g.hb, "enum.cs.hbs", &vm)?,
                );
            }
        }
        for r in project.records.values() {
            if let Some(vm) = clashes.take(g.record_vm(r)) {
                files.insert(
                    format!("csharp/{}.cs", naming::file_name(&vm.class.name)),
                    hbs::render(&g.hb, "record.cs.hbs", &vm)?,
                );
            }
        }
        for u in project.unions.values() {
            if let Some(vm) = clashes.take(g.union_vm(u)) {
                files.insert(
                    format!("csharp/{}.cs", naming::file_name(&vm.name)),
                    hbs::render(&g.hb, "union.cs.hbs", &vm)?,
                );
            }
        }
        for c in project.choices.values() {
            if let Some(vm) = clashes.take(g.choice_vm(c)) {
                files.insert(
                    format!("csharp/{}.cs", naming::file_name(&vm.name)),
                    hbs::render(&g.hb, "choice.cs.hbs", &vm)?,
                );
            }
        }
        clashes.finish()?;
        let ns = NamespaceVm { namespace: &g.ns };
        if super::front::uses_json(project) {
            let vm = JsonVm {
                namespace: &g.ns,
                binary: g.binary,
            };
            files.insert(
                "csharp/JsonValue.cs".into(),
                hbs::render(&g.hb, "json.cs.hbs", &vm)?,
            );
        }
        if super::front::uses_shapes(project) {
            files.insert(
                "csharp/GentableShapes.cs".into(),
                hbs::render(&g.hb, "shapes.cs.hbs", &ns)?,
            );
        }
        Ok(files)
    }

    fn table(&self, _: &EmitContext, g: &Gen, t: &Table) -> anyhow::Result<Files> {
        let vm = g.table_vm(t)?;
        Ok(Files::from([(
            format!("csharp/{}.cs", naming::file_name(&vm.row.name)),
            hbs::render(&g.hb, "table.cs.hbs", &vm)?,
        )]))
    }

    fn index(&self, ctx: &EmitContext, g: &Gen) -> anyhow::Result<Files> {
        let vm = g.tables_vm()?;
        Ok(Files::from([
            (
                "csharp/Tables.cs".to_string(),
                hbs::render(&g.hb, "tables.cs.hbs", &vm)?,
            ),
            (
                "csharp/Tables.Hashes.cs".to_string(),
                hbs::render(
                    &g.hb,
                    "hashes.cs.hbs",
                    &super::front::HashesVm::new(ctx, &g.ns, quoted)?,
                )?,
            ),
        ]))
    }
}

// ---------------------------------------------------------------------------------------------------------
// Escaping: every text from a spreadsheet or schema passes through one of these before a template sees it.

/// Lines of an XML doc comment body (each goes after `/// `): split at every line terminator, XML-escaped
/// (`&`, `<`, `>`), control characters removed. A `///` comment ends only at a line terminator, so `*/` and
/// friends are harmless text here.
pub fn cs_doc(doc: &str) -> Vec<String> {
    hbs::doc_lines(doc)
        .into_iter()
        .map(|l| xml_escape(&l))
        .collect()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

// ---------------------------------------------------------------------------------------------------------
// Names

/// C# type names of every enum, record and table (checked for collisions, also case-insensitively since
/// they are file names).
struct Names {
    enums: BTreeMap<String, String>,
    records: BTreeMap<String, String>,
    rows: BTreeMap<String, String>,
    unions: BTreeMap<String, String>,
    flags: BTreeMap<String, String>,
    choices: BTreeMap<String, String>,
}

impl Names {
    fn new(project: &Project) -> anyhow::Result<Names> {
        let mut taken = super::front::TypeNames::new("C#", "{}.cs", RESERVED_TYPES);
        let mut claim = |ident: String, what: String| taken.claim(ident, what);
        let mut names = Names {
            enums: BTreeMap::new(),
            records: BTreeMap::new(),
            rows: BTreeMap::new(),
            unions: BTreeMap::new(),
            flags: BTreeMap::new(),
            choices: BTreeMap::new(),
        };
        if super::front::uses_json(project) {
            for t in ["JsonValue", "JsonKind"] {
                claim(t.into(), format!("the generated type {t}"))?;
            }
        }
        if super::front::uses_shapes(project) {
            claim(
                "GentableShapes".into(),
                "the generated type GentableShapes".into(),
            )?;
        }
        for c in project.choices.keys() {
            names.choices.insert(
                c.clone(),
                claim(naming::csharp_type(c), format!("scalar union {c:?}"))?,
            );
        }
        for u in project.unions.keys() {
            names.unions.insert(
                u.clone(),
                claim(naming::csharp_type(u), format!("union {u:?}"))?,
            );
        }
        for e in project.flag_enums() {
            let n = format!("{}Flags", naming::csharp_type(&e));
            names
                .flags
                .insert(e.clone(), claim(n, format!("the flags of enum {e:?}"))?);
        }
        for e in project.enums.keys() {
            names.enums.insert(
                e.clone(),
                claim(naming::csharp_type(e), format!("enum {e:?}"))?,
            );
        }
        for r in project.records.keys() {
            names.records.insert(
                r.clone(),
                claim(naming::csharp_type(r), format!("record {r:?}"))?,
            );
        }
        for t in &project.tables {
            let row = claim(naming::csharp_type(&t.name), format!("table {:?}", t.name))?;
            if t.mode != TableMode::One {
                claim(
                    format!("{row}Table"),
                    format!("the table class of table {:?}", t.name),
                )?;
            }
            if t.mode == TableMode::Map {
                claim(
                    format!("{row}Id"),
                    format!("the key struct of table {:?}", t.name),
                )?;
            }
            names.rows.insert(t.name.clone(), row);
        }
        taken.finish()?;
        Ok(names)
    }
}

/// Property names of `fields` in a class named `class`, with a collision check.
fn member_names(fields: &[Field], class: &str, owner: &str) -> anyhow::Result<Vec<String>> {
    member_names_avoiding(fields, class, owner, &[])
}

/// Members every generated class may declare besides its fields' properties: a field of the same name
/// takes a `_` (`GentableLink_`).
const CLASS_MEMBERS: &[&str] = &["GentableLink"];

/// [`member_names`], each also kept off the names in `avoid` (by appending `_`): a polymorphic record's kind
/// class inherits its sibling kinds' nested class names, which a property of the same name would hide
/// (CS0108).
fn member_names_avoiding(
    fields: &[Field],
    class: &str,
    owner: &str,
    avoid: &[&str],
) -> anyhow::Result<Vec<String>> {
    let avoid: Vec<&str> = avoid.iter().chain(CLASS_MEMBERS).copied().collect();
    let ids: Vec<String> = fields
        .iter()
        .map(|f| {
            naming::avoid(
                naming::csharp_member(&f.name, f.ident.as_deref(), class),
                &avoid,
            )
        })
        .collect();
    super::front::collisions(
        fields
            .iter()
            .zip(&ids)
            .map(|(f, id)| (f.name.as_str(), id.clone())),
        |a, b, id| {
            format!("C#: fields {a:?} and {b:?} of {owner} both map to the property {id}; rename one or set x-gentable-name")
        },
    )?;
    Ok(ids)
}

/// Parameter name (camelCase, keywords escaped) for a field.
fn param_name(f: &Field) -> String {
    naming::ident(&f.name, f.ident.as_deref(), Case::Camel, Lang::CSharp)
}

// ---------------------------------------------------------------------------------------------------------
// View models (what the templates see)

#[derive(Serialize)]
struct NamespaceVm<'a> {
    namespace: &'a str,
}

#[derive(Serialize)]
struct JsonVm<'a> {
    namespace: &'a str,
    /// The output has binary data: `ReadJsonValue(GentableBinary)` too (docs/data-format.md §3.3).
    binary: bool,
}

#[derive(Serialize)]
struct RuntimeVm<'a> {
    namespace: &'a str,
    /// Whether the reader needs `Peek` (a JSON value or a scalar union reads by the kind of the next value).
    peek: bool,
}

#[derive(Serialize)]
struct EnumVm {
    namespace: String,
    name: String,
    doc: Vec<String>,
    members: Vec<EnumMemberVm>,
    /// C# literal: what the reader expected, for its error message.
    expected: String,
    /// C# literal: `not a member of <name>`.
    invalid: String,
    /// The `[Flags]` companion when the enum is used as a set.
    flags: Option<FlagsVm>,
    /// The reader of the binary format (empty without binary data).
    binary_read: String,
}

#[derive(Serialize)]
struct FlagsVm {
    name: String,
    underlying: String,
    /// Literal suffix of `1` (`U` or `UL`).
    suffix: String,
    /// The enum's C# name.
    member_type: String,
    /// C# literal: what the reader expected.
    expected: String,
    members: Vec<FlagMemberVm>,
    /// The reader of the binary format (empty without binary data).
    binary_read: String,
}

#[derive(Serialize)]
struct FlagMemberVm {
    ident: String,
    shift: usize,
    name_literal: String,
    json_literal: String,
}

#[derive(Serialize)]
struct UnionVm {
    namespace: String,
    name: String,
    doc: Vec<String>,
    /// The abstract property holding the discriminator value.
    kind_prop: String,
    disc_literal: String,
    /// C# literals of the kinds (discriminator values), comma-separated.
    tag_literals: String,
    /// Whether its kinds resolve typed references (an abstract `GentableLink`).
    linked: bool,
    expected: String,
    variants: Vec<VariantVm>,
    /// The reader of the binary format (empty without binary data).
    binary_read: String,
}

#[derive(Serialize)]
struct VariantVm {
    class: ClassVm,
    tag_literal: String,
    /// Canonical writes with the discriminator in its JCS place.
    writes: Vec<String>,
    /// The reader's member names: the fields and the discriminator, in canonical order.
    key_names: String,
    key_required: String,
    /// `case i: …; break;` reading member i of `key_names` (the discriminator is skipped: it was peeked).
    cases: Vec<String>,
}

#[derive(Serialize)]
struct EnumMemberVm {
    ident: String,
    /// Declaration position, or the `x-gentable-enumValues` value.
    value: i64,
    /// `global::<ns>.<Enum>.<Member>`.
    qualified: String,
    /// C# literal of the source name (the JSON value).
    name_literal: String,
    /// C# literal of the member's canonical JSON text (with quotes).
    json_literal: String,
}

#[derive(Serialize)]
struct ClassVm {
    name: String,
    doc: Vec<String>,
    /// Declaration order (properties, constructor parameters).
    fields: Vec<FieldVm>,
    /// The same fields in canonical JSON member order (reading and writing).
    canonical: Vec<FieldVm>,
    /// C# literals of the member names in canonical order, comma-separated: the reader's `GentableKeys`.
    key_names: String,
    /// `true`/`false` per member in canonical order: whether it is required.
    key_required: String,
    /// Typed references: navigation properties resolved at load.
    refs: Vec<RefVm>,
    /// Whether objects of this class resolve references (a `GentableLink` method), and its statements.
    linked: bool,
    link: Vec<String>,
    /// `internal` or, in a kind of a linked union, `internal override`.
    link_modifier: String,
    /// Expressions reading every field from a `GentableBinary r`, in declaration order (constructor
    /// arguments, or locals first: see [`Gen::binary_new`]).
    #[serde(skip)]
    binary_reads: Vec<String>,
    /// The bodies of the reader and writer of a tuple or an open record (a closed object: `None`).
    shape: Option<ShapeVm>,
}

#[derive(Clone, Serialize)]
struct RefVm {
    ident: String,
    ty: String,
    doc: Vec<String>,
}

#[derive(Serialize)]
struct ShapeVm {
    /// Statements of `Read<Name>(GentableReader r)`.
    read: Vec<String>,
    /// Statements of `Write<Name>(StringBuilder sb, <Name> r)`.
    write: Vec<String>,
}

#[derive(Serialize)]
struct ChoiceVm {
    namespace: String,
    name: String,
    doc: Vec<String>,
    members: Vec<ChoiceMemberVm>,
    /// C# literal: what the reader expected.
    expected: String,
    /// The output has binary data: a reader of the member index and the member's value (docs/data-format.md
    /// §3.3).
    binary: bool,
    /// The number of members.
    count: usize,
}

#[derive(Serialize)]
struct ChoiceMemberVm {
    /// The property: `Boolean`, `Integer`, `Number` or `String`.
    ident: String,
    /// The constructor parameter.
    param: String,
    ty: String,
    /// "an integer" (XML-escaped words).
    words: String,
    /// The union's class name.
    owner: String,
    /// Arguments of the private constructor for a value of this member.
    from_args: String,
    /// The first bytes of the JSON values this member reads (C# `byte` literals).
    cases: Vec<String>,
    /// Expression reading the member from `n`.
    read: String,
    /// Statement writing `v.<ident>` to `sb`.
    write: String,
}

#[derive(Clone, Serialize)]
struct FieldVm {
    /// Property name.
    ident: String,
    /// Constructor parameter name.
    param: String,
    /// C# type.
    ty: String,
    doc: Vec<String>,
    /// Local variable holding the value while reading.
    local: String,
    /// Expression reading the field's value (the inner value of an optional field) from `GentableReader r`.
    read: String,
    /// Statement(s) writing the member (name and value) of `r` to `StringBuilder sb` (uses `ref bool first`).
    write: String,
}

#[derive(Serialize)]
struct RecordVm {
    namespace: String,
    class: ClassVm,
    /// The reader of the binary format (empty without binary data).
    binary_read: String,
}

#[derive(Serialize)]
struct TableVm {
    namespace: String,
    row: ClassVm,
    /// C# literal of the table's source name.
    name_literal: String,
    is_map: bool,
    is_list: bool,
    is_one: bool,
    /// `<Row>Table` (map and list tables).
    table_class: String,
    key: Option<KeyVm>,
    /// Secondary unique keys with lookup members.
    uniques: Vec<UniqueVm>,
    /// The reader of the binary format (empty without binary data).
    binary_read: String,
}

#[derive(Serialize)]
struct UniqueVm {
    /// Field declaration (single-field keys: a dictionary), or empty.
    decl: String,
    /// Constructor statements indexing `list` (may be empty).
    init: Vec<String>,
    /// Methods.
    methods: Vec<String>,
}

#[derive(Serialize)]
struct KeyVm {
    /// `<Row>Id`.
    name: String,
    /// The row's property returning the key.
    property: String,
    single: bool,
    parts: Vec<KeyPartVm>,
    /// `int id, string name`: the parts as parameters.
    params: String,
    /// `id, name`: the parts as arguments.
    args: String,
    /// `this.Id, this.Name`: the row's parts as arguments.
    row_args: String,
    /// The key type of the row dictionary (`Dictionary<dict_key, object>`): the part's own type for a one-part
    /// key of an integer, string or boolean, `int` for an enum, else the key struct. Every table keyed by,
    /// say, `uint` then shares one dictionary instantiation: mono's JIT shares no generic code whose type
    /// arguments include a value type, and a `Dictionary<Item003Id, Item003>` cost about 6 KB of machine code
    /// (and a reflective comparer) per table at load.
    dict_key: String,
    /// `row.Id`: the dictionary key of `row`.
    dict_of_row: String,
    /// `key.Value`: the dictionary key of the key struct `key`.
    dict_of_key: String,
    /// `id`: the dictionary key of the parts given as parameters (`TryGet(parts…, out row)`), for a key indexed
    /// by its value; empty for a key struct.
    dict_of_args: String,
    /// Locals of that `TryGet`, named apart from its parameters.
    found: String,
    has: String,
    /// The `out` parameter name of `TryGet(parts…, out row)`.
    out_row: String,
    /// `a.Equals(b)` body.
    equals: String,
    /// `GetHashCode` body expression.
    hash: String,
    /// C# literal: format string of `ToString`.
    format: String,
    /// `this.A, this.B`: arguments of the format.
    format_args: String,
}

#[derive(Serialize)]
struct KeyPartVm {
    ident: String,
    /// `<Row>.<Property>`: the row property this part comes from (for a `cref`).
    row_property: String,
    param: String,
    ty: String,
}

#[derive(Serialize)]
struct TablesVm {
    namespace: String,
    /// XML-escaped project name.
    project: String,
    /// `Text(key, language)` inside `Tables` (empty without `[localization]`).
    text_method: String,
    /// `enum Language` (empty without `[localization]`).
    language_enum: String,
    tables: Vec<TablesEntryVm>,
    /// C# literals of the data file names, comma-separated.
    data_files: String,
    /// Constructor statements resolving the typed references of every table's rows.
    links: Vec<String>,
}

#[derive(Serialize)]
struct TablesEntryVm {
    property: String,
    ty: String,
    doc: Vec<String>,
    local: String,
    /// C# literal of the table name (the `ToCanonicalJson` key and data file stem).
    name_literal: String,
    /// Expression loading the table from `Func<string, byte[]> bytesOf`.
    load: String,
    /// Expression of the table's canonical JSON.
    canonical: String,
}

// ---------------------------------------------------------------------------------------------------------
// Building the view models

/// What the C# backend decides once per project ([`Backend::prepare`]) and every file reads.
/// A verbatim C# member identifier (`x-gentable-name` on an enum): a keyword or the enclosing type's name
/// gets a trailing `_`.
fn verbatim_member(id: &str, enclosing: &str) -> String {
    let id = naming::escape_keyword(id.to_string(), naming::Lang::CSharp);
    if id == enclosing {
        id + "_"
    } else {
        id
    }
}

pub struct Gen<'a> {
    project: &'a Project,
    names: Names,
    /// The configured namespace with C# keywords escaped (`game.@int.items`).
    ns: String,
    text: Option<TextTable<'a>>,
    hb: handlebars::Handlebars<'static>,
    /// Record and union types holding typed references (resolved after every table is read).
    linked: Linked,
    /// The `Tables` property of every table (by table name).
    props: BTreeMap<String, String>,
    /// The output's data folder holds binary files (`[csharp] data` lists `"binary"`): the readers of the binary
    /// format are generated, and `Tables.DataFiles` names `<Table>.bytes`.
    binary: bool,
}

impl Gen<'_> {
    fn enum_vm(&self, e: &EnumDef) -> anyhow::Result<EnumVm> {
        let name = self.names.enums[&e.name].clone();
        let idents: Vec<String> = e
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| match e.ident(i) {
                // `x-gentable-name`: verbatim (keywords and the enclosing name still escaped).
                Some(id) => verbatim_member(id, &name),
                None => naming::csharp_member(m, None, &name),
            })
            .collect();
        super::front::collisions(
            e.members
                .iter()
                .zip(&idents)
                .map(|(m, id)| (m.as_str(), id.clone())),
            |a, b, id| {
                format!(
                    "C#: members {a:?} and {b:?} of enum {:?} both map to {id}; rename one",
                    e.name
                )
            },
        )?;
        let members = e
            .members
            .iter()
            .zip(idents)
            .enumerate()
            .map(|(i, (m, ident))| EnumMemberVm {
                qualified: format!("global::{}.{}.{}", self.ns, name, ident),
                ident,
                value: e.value(i),
                name_literal: quoted(m),
                json_literal: quoted_json(m, ""),
            })
            .collect();
        let list: Vec<&str> = e.members.iter().map(String::as_str).collect();
        Ok(EnumVm {
            namespace: self.ns.clone(),
            expected: quoted(&format!(
                "one of the {} members {}",
                e.name,
                list.join(", ")
            )),
            invalid: quoted(&format!("not a member of {name}")),
            binary_read: self.binary_fn(
                &name,
                &format!(
                    "return Values{name}[r.Index({}, {})];",
                    e.members.len(),
                    quoted(&e.name)
                ),
            ),
            flags: self.names.flags.get(&e.name).map(|fname| FlagsVm {
                binary_read: self.binary_fn(
                    fname,
                    &format!("return ({fname})r.Bits({});", e.members.len()),
                ),
                name: fname.clone(),
                underlying: if e.members.len() > 32 {
                    "ulong".into()
                } else {
                    "uint".into()
                },
                suffix: if e.members.len() > 32 {
                    "UL".into()
                } else {
                    "U".into()
                },
                member_type: name.clone(),
                expected: quoted(&format!(
                    "one of the {} members {}",
                    e.name,
                    list.join(", ")
                )),
                members: e
                    .members
                    .iter()
                    .enumerate()
                    .map(|(i, m)| FlagMemberVm {
                        // `None = 0` is the empty set, declared by the template.
                        ident: naming::avoid(naming::csharp_member(m, None, fname), &["None"]),
                        shift: i,
                        name_literal: quoted(m),
                        json_literal: quoted_json(m, ""),
                    })
                    .collect(),
            }),
            name,
            doc: cs_doc(&e.doc),
            members,
        })
    }

    fn union_vm(&self, u: &crate::ir::UnionDef) -> anyhow::Result<UnionVm> {
        let name = self.names.unions[&u.name].clone();
        let kind_prop = naming::csharp_member(&u.discriminator, None, &name);
        let mut variants = vec![];
        let mut seen: Vec<String> = vec![];
        let mut clashes = super::front::Errors::default();
        let cnames: Vec<String> = u
            .variants
            .iter()
            .map(|v| {
                let mut cname = naming::csharp_type(&v.tag);
                if cname == name || cname == kind_prop {
                    cname.push('_');
                }
                cname
            })
            .collect();
        let nested: Vec<&str> = cnames.iter().map(String::as_str).collect();
        for (v, cname) in u.variants.iter().zip(cnames.iter().cloned()) {
            if seen.contains(&cname) {
                clashes.push(format!(
                    "C#: kinds of union {:?} both map to the class {cname}; rename one",
                    u.name
                ));
            }
            seen.push(cname.clone());
            let Some(mut class) = clashes.take(self.class_vm_avoiding(
                cname,
                &v.doc,
                &v.fields,
                &format!("union {:?} kind {:?}", u.name, v.tag),
                &nested,
            )) else {
                continue;
            };
            if self.linked.unions.contains(&u.name) {
                // Every kind overrides the union's abstract GentableLink (possibly with nothing to do).
                class.linked = true;
                class.link_modifier = "internal override".into();
            }
            let mut members: Vec<(&str, Option<usize>)> = vec![(u.discriminator.as_str(), None)];
            members.extend(
                v.fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.name.as_str(), Some(i))),
            );
            members.sort_by_key(|(n, _)| canonical::utf16_key(n));
            let key_names = members
                .iter()
                .map(|(n, _)| quoted(n))
                .collect::<Vec<_>>()
                .join(", ");
            let key_required = members
                .iter()
                .map(|(_, i)| {
                    i.is_none_or(|i| !matches!(v.fields[i].ty, Type::Optional(_)))
                        .to_string()
                })
                .collect::<Vec<_>>()
                .join(", ");
            let cases = members
                .iter()
                .enumerate()
                .map(|(k, (_, i))| match i {
                    None => format!("case {k}: r.SkipValue(); break;"),
                    Some(i) => format!(
                        "case {k}: {} = {}; break;",
                        class.fields[*i].local, class.fields[*i].read
                    ),
                })
                .collect();
            let writes = members
                .into_iter()
                .map(|(n, i)| match i {
                    None => format!(
                        "GentableCanonical.Key(sb, ref first, {}); sb.Append({});",
                        quoted_json(n, ":"),
                        quoted_json(&v.tag, "")
                    ),
                    Some(i) => class.fields[i].write.clone(),
                })
                .collect();
            variants.push(VariantVm {
                class,
                tag_literal: quoted(&v.tag),
                writes,
                key_names,
                key_required,
                cases,
            });
        }
        clashes.finish()?;
        let tags: Vec<&str> = u.variants.iter().map(|v| v.tag.as_str()).collect();
        let mut body = format!(
            "switch (r.Index({}, {}))\n            {{\n",
            variants.len(),
            quoted(&u.name)
        );
        for (i, v) in variants.iter().enumerate() {
            let new = format!("{name}.{}", v.class.name);
            if v.class.fields.len() <= WIDE_FIELDS {
                body.push_str(&format!(
                    "                case {i}: {}\n",
                    self.binary_new(&new, &v.class, "")
                ));
            } else {
                body.push_str(&format!(
                    "                case {i}:\n                {{\n                    {}\n                }}\n",
                    self.binary_new(&new, &v.class, "                    ")
                ));
            }
        }
        body.push_str("                default: throw new global::System.InvalidOperationException();\n            }");
        Ok(UnionVm {
            binary_read: self.binary_fn(&name, &body),
            linked: self.linked.unions.contains(&u.name),
            namespace: self.ns.clone(),
            doc: cs_doc(&u.doc),
            kind_prop,
            disc_literal: quoted(&u.discriminator),
            tag_literals: u
                .variants
                .iter()
                .map(|v| quoted(&v.tag))
                .collect::<Vec<_>>()
                .join(", "),
            expected: quoted(&format!("one of the {} kinds {}", u.name, tags.join(", "))),
            variants,
            name,
        })
    }

    /// The statements that read a `class` from `GentableBinary r` and return it as `new {new}(…)`
    /// (`new` names the class: `Effect.Damage` for a polymorphic record's kind). A class of more than
    /// [`WIDE_FIELDS`] fields reads each field into a local first: hundreds of conditional reads as the
    /// arguments of one `newobj` make mono's JIT refuse the method (`InvalidProgramException: Invalid IL
    /// code`, seen from about 370 optional fields), although mcs compiles it.
    fn binary_new(&self, new: &str, class: &ClassVm, indent: &str) -> String {
        if class.fields.len() <= WIDE_FIELDS {
            return format!("return new {new}({});", class.binary_reads.join(", "));
        }
        let mut out = String::new();
        for (i, (f, read)) in class.fields.iter().zip(&class.binary_reads).enumerate() {
            out.push_str(&format!("{} b{i} = {read};\n{indent}", f.ty));
        }
        let args: Vec<String> = (0..class.fields.len()).map(|i| format!("b{i}")).collect();
        out.push_str(&format!("return new {new}({});", args.join(", ")));
        out
    }

    /// `internal static <ty> Read<ty>(GentableBinary r) { <body> }`, the reader of `ty` in the binary format
    /// (docs/data-format.md §3.3), or nothing when this output has no binary data.
    fn binary_fn(&self, ty: &str, body: &str) -> String {
        if !self.binary {
            return String::new();
        }
        format!(
            "        internal static {ty} Read{ty}(GentableBinary r)\n        {{\n            {body}\n        }}"
        )
    }

    fn record_vm(&self, r: &RecordDef) -> anyhow::Result<RecordVm> {
        let name = self.names.records[&r.name].clone();
        let mut class = self.class_vm(name, &r.doc, &r.fields, &format!("record {:?}", r.name))?;
        class.shape = match r.form {
            RecordForm::Closed => None,
            RecordForm::Open => Some(self.open_shape(r, &class)),
            RecordForm::Tuple { min, rest } => Some(self.tuple_shape(r, &class, min, rest)),
        };
        Ok(RecordVm {
            namespace: self.ns.clone(),
            binary_read: self.binary_fn(
                &class.name,
                &self.binary_new(&class.name, &class, "            "),
            ),
            class,
        })
    }

    /// Reader and writer of an open record: the declared members by name, the others into the extra map (a
    /// JSON object read entry by entry); written merged in RFC 8785 order.
    fn open_shape(&self, r: &RecordDef, class: &ClassVm) -> ShapeVm {
        let n = r.fields.len() - 1;
        let Type::Map(kt, vt) = &r.fields[n].ty else {
            unreachable!("IR invariant: an open record's last field is its map of extra members")
        };
        let extra = &class.fields[n].local;
        let mut read: Vec<String> = class.fields[..n]
            .iter()
            .map(|f| format!("{} {} = default({});", f.ty, f.local, f.ty))
            .collect();
        read.push(format!(
            "var {extra} = new global::System.Collections.Generic.Dictionary<{}, {}>();",
            self.ty(kt),
            self.ty(vt)
        ));
        read.push(format!("var seen = new bool[{n}];"));
        read.push("r.BeginMap();".into());
        read.push("while (r.NextKey())".into());
        read.push("{".into());
        read.push("    switch (r.Key)".into());
        read.push("    {".into());
        for (i, (f, vm)) in r.fields[..n].iter().zip(&class.fields).enumerate() {
            read.push(format!(
                "        case {}: if (seen[{i}]) throw r.KeyError(\"duplicate member {{key}}\"); seen[{i}] = true; {} = {}; break;",
                quoted(&f.name),
                vm.local,
                vm.read
            ));
        }
        read.push("        default:".into());
        read.push(format!("            var k = {};", self.map_key(kt, "r")));
        read.push(format!(
            "            if ({extra}.ContainsKey(k)) throw r.KeyError(\"duplicate member {{key}}\");"
        ));
        read.push(format!(
            "            {extra}.Add(k, {});",
            self.read(vt, "r", 1)
        ));
        read.push("            break;".into());
        read.push("    }".into());
        read.push("}".into());
        for (i, f) in r.fields[..n].iter().enumerate() {
            if !matches!(f.ty, Type::Optional(_)) {
                read.push(format!(
                    "if (!seen[{i}]) throw r.Error({});",
                    quoted(&format!("missing field {:?}", f.name))
                ));
            }
        }
        read.push(format!(
            "return new {}({});",
            class.name,
            class
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| if i == n {
                    format!(
                        "new global::System.Collections.ObjectModel.ReadOnlyDictionary<{}, {}>({})",
                        self.ty(kt),
                        self.ty(vt),
                        f.local
                    )
                } else {
                    f.local.clone()
                })
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let kv = "global::System.Collections.Generic.KeyValuePair<string, global::System.Action<global::System.Text.StringBuilder>>";
        let mut write = vec![format!(
            "var members = new global::System.Collections.Generic.List<{kv}>();"
        )];
        for (f, vm) in r.fields[..n].iter().zip(&class.fields) {
            let key = quoted(&f.name);
            match &f.ty {
                Type::Optional(inner) => {
                    let inner = strip(inner);
                    let value = if is_value_type(inner) {
                        format!("r.{}.Value", vm.ident)
                    } else {
                        format!("r.{}", vm.ident)
                    };
                    write.push(format!(
                        "if (r.{} != null) members.Add(new {kv}({key}, s => {{ {} }}));",
                        vm.ident,
                        self.write(inner, &value, "s", 1)
                    ));
                }
                ty => write.push(format!(
                    "members.Add(new {kv}({key}, s => {{ {} }}));",
                    self.write(ty, &format!("r.{}", vm.ident), "s", 1)
                )),
            }
        }
        if let Type::Map(_, vt) = &r.fields[n].ty {
            write.push(format!("foreach (var e in r.{})", class.fields[n].ident));
            write.push("{".into());
            write.push("    var v = e.Value;".into());
            write.push(format!(
                "    members.Add(new {kv}(e.Key, s => {{ {} }}));",
                self.write(vt, "v", "s", 1)
            ));
            write.push("}".into());
        }
        write.push("GentableShapes.WriteMembers(sb, members);".into());
        ShapeVm { read, write }
    }

    /// Reader and writer of a tuple: a JSON array, items from `min` on optional (left out at the end), the
    /// items after the prefix in the rest list.
    fn tuple_shape(&self, r: &RecordDef, class: &ClassVm, min: usize, rest: bool) -> ShapeVm {
        let prefix = r.fields.len() - usize::from(rest);
        let expected = if rest {
            format!("a tuple of at least {min} items")
        } else if min == prefix {
            format!("a tuple of {min} items")
        } else {
            format!("a tuple of {min} to {prefix} items")
        };
        let mut read: Vec<String> = class
            .fields
            .iter()
            .map(|f| format!("{} {} = default({});", f.ty, f.local, f.ty))
            .collect();
        read.push("int at = r.ValueStart;".into());
        read.push("r.BeginArray(\"an array (a tuple)\");".into());
        read.push("bool more = true;".into());
        for (i, (f, vm)) in r.fields.iter().zip(&class.fields).enumerate() {
            if i >= prefix {
                let Type::Array(it) = &f.ty else {
                    unreachable!("IR invariant: a tuple's rest is an array")
                };
                read.push(format!(
                    "var rest = new global::System.Collections.Generic.List<{}>();",
                    self.ty(it)
                ));
                read.push(format!(
                    "if (more) while (r.NextItem()) rest.Add({});",
                    self.read(it, "r", 1)
                ));
                read.push(format!(
                    "{} = new global::System.Collections.ObjectModel.ReadOnlyCollection<{}>(rest);",
                    vm.local,
                    self.ty(it)
                ));
            } else if i >= min {
                // Left out at the end, never null.
                read.push(format!(
                    "if (more && (more = r.NextItem())) {} = {};",
                    vm.local,
                    self.read(strip(&f.ty), "r", 1)
                ));
            } else {
                read.push(format!(
                    "if (!r.NextItem()) throw r.FailAt(at, {});",
                    quoted(&expected)
                ));
                read.push(format!("{} = {};", vm.local, self.read(&f.ty, "r", 1)));
            }
        }
        if !rest {
            read.push(format!(
                "if (more && r.NextItem()) throw r.FailAt(at, {});",
                quoted(&expected)
            ));
        }
        read.push(format!(
            "return new {}({});",
            class.name,
            class
                .fields
                .iter()
                .map(|f| f.local.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let mut write = vec![
            "sb.Append('[');".to_string(),
            "bool first = true;".into(),
            "do".into(),
            "{".into(),
        ];
        for (i, (f, vm)) in r.fields.iter().zip(&class.fields).enumerate() {
            let sep = "if (!first) sb.Append(','); first = false;";
            if i >= prefix {
                let Type::Array(it) = &f.ty else {
                    unreachable!("IR invariant: a tuple's rest is an array")
                };
                write.push(format!(
                    "    foreach (var x in r.{}) {{ {sep} {} }}",
                    vm.ident,
                    self.write(it, "x", "sb", 1)
                ));
            } else if i >= min {
                let inner = strip(&f.ty);
                let value = if is_value_type(inner) {
                    format!("r.{}.Value", vm.ident)
                } else {
                    format!("r.{}", vm.ident)
                };
                write.push(format!("    if (r.{} == null) break;", vm.ident));
                write.push(format!("    {sep} {}", self.write(inner, &value, "sb", 1)));
            } else {
                write.push(format!(
                    "    {sep} {}",
                    self.write(&f.ty, &format!("r.{}", vm.ident), "sb", 1)
                ));
            }
        }
        write.push("} while (false);".into());
        write.push("sb.Append(']');".into());
        ShapeVm { read, write }
    }

    fn choice_vm(&self, c: &crate::ir::ChoiceDef) -> anyhow::Result<ChoiceVm> {
        let name = self.names.choices[&c.name].clone();
        let idents: Vec<&str> = c.members.iter().map(choice_member).collect();
        let members = c
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let ident = idents[i].to_string();
                let from_args: Vec<String> = std::iter::once(i.to_string())
                    .chain(c.members.iter().enumerate().map(|(j, o)| {
                        if i == j {
                            "value".to_string()
                        } else {
                            format!("default({})", self.ty(o))
                        }
                    }))
                    .collect();
                ChoiceMemberVm {
                    param: format!("{}Value", ident.to_lowercase()),
                    ty: self.ty(m),
                    words: xml_escape(&m.words()),
                    owner: name.clone(),
                    from_args: from_args.join(", "),
                    cases: match m {
                        Type::Bool => vec!["'t'".into(), "'f'".into()],
                        Type::Int(_) | Type::Float => std::iter::once("'-'".to_string())
                            .chain((0..10).map(|d| format!("'{d}'")))
                            .collect(),
                        _ => vec!["'\"'".into()],
                    }
                    .into_iter()
                    .map(|c| format!("(byte){c}"))
                    .collect(),
                    read: self.read(m, "r", 1),
                    write: self.write(m, &format!("v.{ident}"), "sb", 1),
                    ident,
                }
            })
            .collect();
        let mut doc = c.doc.clone();
        doc.push_str(&format!("\n\nOne of {} (a scalar union).", c.words()));
        Ok(ChoiceVm {
            namespace: self.ns.clone(),
            doc: cs_doc(doc.trim_start()),
            expected: quoted(&c.words()),
            count: c.members.len(),
            members,
            name,
            binary: self.binary,
        })
    }

    fn class_vm(
        &self,
        name: String,
        doc: &str,
        fields: &[Field],
        owner: &str,
    ) -> anyhow::Result<ClassVm> {
        self.class_vm_avoiding(name, doc, fields, owner, &[])
    }

    /// [`Self::class_vm`] whose property names also avoid `avoid` ([`member_names_avoiding`]).
    fn class_vm_avoiding(
        &self,
        name: String,
        doc: &str,
        fields: &[Field],
        owner: &str,
        avoid: &[&str],
    ) -> anyhow::Result<ClassVm> {
        let idents = member_names_avoiding(fields, &name, owner, avoid)?;
        let mut vms = Vec::with_capacity(fields.len());
        for (i, (f, ident)) in fields.iter().zip(idents).enumerate() {
            vms.push(self.field_vm(f, ident, i)?);
        }
        let order = canonical::jcs_order(fields);
        let canonical = order.iter().map(|&i| vms[i].clone()).collect();
        let (refs, link) = self.links(&name, fields, &vms)?;
        Ok(ClassVm {
            linked: self.linked.fields(self.project, fields),
            link_modifier: "internal".into(),
            refs,
            link,
            name,
            doc: cs_doc(doc),
            key_names: order
                .iter()
                .map(|&i| quoted(&fields[i].name))
                .collect::<Vec<_>>()
                .join(", "),
            key_required: order
                .iter()
                .map(|&i| (!matches!(fields[i].ty, Type::Optional(_))).to_string())
                .collect::<Vec<_>>()
                .join(", "),
            binary_reads: fields.iter().map(|f| self.read(&f.ty, "r", 1)).collect(),
            fields: vms,
            canonical,
            shape: None,
        })
    }

    /// The typed references of a class (`fields` with their view models) and the statements of its
    /// `GentableLink(Tables t)`: each reference looked up (a key without a row is a `GentableLinkFault`), each
    /// field of a linked type resolved in turn.
    fn links(
        &self,
        class: &str,
        fields: &[Field],
        vms: &[FieldVm],
    ) -> anyhow::Result<(Vec<RefVm>, Vec<String>)> {
        let refs = super::front::references(self.project, fields);
        let mut taken: Vec<String> = vms.iter().map(|f| f.ident.clone()).collect();
        taken.extend([class.to_string(), "GentableLink".into()]);
        let mut out = vec![];
        let mut link = vec![];
        for (f, vm) in fields.iter().zip(vms) {
            let path = quoted(&f.name);
            let src = format!("this.{}", vm.ident);
            if let Some(r) = refs.iter().find(|r| std::ptr::eq(&fields[r.field], f)) {
                let taken_ref: Vec<&str> = taken.iter().map(String::as_str).collect();
                let ident = naming::avoid(naming::csharp_member(&r.name, None, class), &taken_ref);
                taken.push(ident.clone());
                let target = &self.names.rows[&r.target.name];
                let mut stmts = vec![];
                let result = self.link_ref(r, &f.ty, &src, &path, 0, &mut stmts)?;
                stmts.push(format!("this.{ident} = {result};"));
                link.push(cs_block(stmts));
                out.push(RefVm {
                    doc: vec![format!(
                        "The <see cref=\"{target}\"/> row{} that <see cref=\"{}\"/> names (x-gentable-foreignKey), resolved at load.",
                        if matches!(f.ty.strip_optional(), Type::Array(_) | Type::Map(..)) { "s" } else { "" },
                        vm.ident
                    )],
                    ty: self.ref_ty(&f.ty, target),
                    ident,
                });
            } else if self.linked.ty(&f.ty) {
                let mut stmts = vec![];
                self.link_walk(&f.ty, &src, &path, 0, &mut stmts);
                link.push(cs_block(stmts));
            }
        }
        Ok((out, link))
    }

    /// The C# type of the navigation property of a reference field of type `ty` to rows of class `target`.
    fn ref_ty(&self, ty: &Type, target: &str) -> String {
        match ty {
            Type::Optional(t) => self.ref_ty(t, target),
            Type::Array(t) => format!(
                "global::System.Collections.Generic.IReadOnlyList<{}>",
                self.ref_ty(t, target)
            ),
            Type::Map(k, v) => format!(
                "global::System.Collections.Generic.IReadOnlyDictionary<{}, {}>",
                self.ty(k),
                self.ref_ty(v, target)
            ),
            _ => target.to_string(),
        }
    }

    /// Statements (appended to `out`) resolving the key value `src` of type `ty` (a C# string expression
    /// `path` names it in a fault); returns the variable holding the result.
    fn link_ref(
        &self,
        r: &Reference,
        ty: &Type,
        src: &str,
        path: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) -> anyhow::Result<String> {
        let target = &self.names.rows[&r.target.name];
        let prop = &self.props[&r.target.name];
        let lookup = |key: &str, into: &str| -> anyhow::Result<String> {
            // An integer key of another width: a value outside the target key's range names no row.
            let (guard, key) = match (r.key, r.target_key) {
                (Type::Int(from), Type::Int(to)) if from != to => {
                    let ((flo, fhi), (tlo, thi)) = (from.range(), to.range());
                    let suffix = if is_signed(*from) { "L" } else { "UL" };
                    let mut guard = vec![];
                    if flo < tlo {
                        guard.push(format!("{key} >= {tlo}{suffix}"));
                    }
                    if fhi > thi {
                        guard.push(format!("{key} <= {thi}{suffix}"));
                    }
                    let guard: String = guard.iter().map(|g| format!("{g} && ")).collect();
                    (guard, format!("({}){key}", to.csharp_name()))
                }
                _ => (String::new(), key.to_string()),
            };
            Ok(match r.lookup {
                RefLookup::PrimaryKey => format!("({guard}t.{prop}.TryGet({key}, out {into}))"),
                RefLookup::Unique(fi) => {
                    let idents = member_names(&r.target.fields, target, &r.target.name)?;
                    format!(
                        "({guard}t.{prop}.TryGetBy{}({key}, out {into}))",
                        idents[fi].trim_end_matches('_')
                    )
                }
            })
        };
        let x = format!("x{depth}");
        let missing = |key: &str| {
            format!(
                "throw GentableLinkFault.Missing({path}, {}, {key});",
                quoted(&r.target.name)
            )
        };
        match ty {
            // An optional array or map: its rows, or null when the field is absent.
            Type::Optional(t) if matches!(strip(t), Type::Array(_) | Type::Map(..)) => {
                let t = strip(t);
                let mut inner = vec![];
                let list = self.link_ref(r, t, src, path, depth + 1, &mut inner)?;
                out.push(format!("{} {x} = null;", self.ref_ty(t, target)));
                out.push(format!("if ({src} != null)"));
                out.push("{".into());
                out.extend(inner.into_iter().map(|l| format!("    {l}")));
                out.push(format!("    {x} = {list};"));
                out.push("}".into());
                Ok(x)
            }
            Type::Optional(t) => {
                let t = strip(t);
                let value = if is_value_type(t) {
                    format!("{src}.Value")
                } else {
                    src.to_string()
                };
                let y = format!("y{depth}");
                out.push(format!("{target} {x} = null;"));
                out.push(format!("if ({src} != null)"));
                out.push("{".into());
                out.push(format!("    {target} {y};"));
                out.push(format!(
                    "    if (!{}) {}",
                    lookup(&value, &y)?,
                    missing(&value)
                ));
                out.push(format!("    {x} = {y};"));
                out.push("}".into());
                Ok(x)
            }
            Type::Array(t) => {
                let (a, i, rt) = (
                    format!("a{depth}"),
                    format!("i{depth}"),
                    self.ref_ty(t, target),
                );
                let list = format!("global::System.Collections.Generic.IReadOnlyList<{rt}>");
                let mut inner = vec![];
                let item = self.link_ref(
                    r,
                    t,
                    &format!("{src}[{i}]"),
                    &format!("{path} + \"[\" + {i}.ToString(global::System.Globalization.CultureInfo.InvariantCulture) + \"]\""),
                    depth + 1,
                    &mut inner,
                )?;
                out.push(format!("{list} {x} = GentableEmpty<{rt}>.List;"));
                out.push(format!("if ({src}.Count != 0)"));
                out.push("{".into());
                out.push(format!("    var {a} = new {rt}[{src}.Count];"));
                out.push(format!("    for (int {i} = 0; {i} < {a}.Length; {i}++)"));
                out.push("    {".into());
                out.extend(inner.into_iter().map(|l| format!("        {l}")));
                out.push(format!("        {a}[{i}] = {item};"));
                out.push("    }".into());
                out.push(format!(
                    "    {x} = new global::System.Collections.ObjectModel.ReadOnlyCollection<{rt}>({a});"
                ));
                out.push("}".into());
                Ok(x)
            }
            // Keys as map values: the same keys, each with its row(s).
            Type::Map(k, t) => {
                let (kv, d, rt, kt) = (
                    format!("kv{depth}"),
                    format!("d{depth}"),
                    self.ref_ty(t, target),
                    self.ty(k),
                );
                let mut inner = vec![];
                let item = self.link_ref(
                    r,
                    t,
                    &format!("{kv}.Value"),
                    &format!("{path} + GentableLinkFault.Key({kv}.Key)"),
                    depth + 1,
                    &mut inner,
                )?;
                out.push(format!(
                    "var {d} = new global::System.Collections.Generic.Dictionary<{kt}, {rt}>({src}.Count);"
                ));
                out.push(format!("foreach (var {kv} in {src})"));
                out.push("{".into());
                out.extend(inner.into_iter().map(|l| format!("    {l}")));
                out.push(format!("    {d}.Add({kv}.Key, {item});"));
                out.push("}".into());
                out.push(format!(
                    "global::System.Collections.Generic.IReadOnlyDictionary<{kt}, {rt}> {x} = new global::System.Collections.ObjectModel.ReadOnlyDictionary<{kt}, {rt}>({d});"
                ));
                Ok(x)
            }
            _ => {
                out.push(format!("{target} {x};"));
                out.push(format!("if (!{}) {}", lookup(src, &x)?, missing(src)));
                Ok(x)
            }
        }
    }

    /// Lines (appended to `out`) resolving the references inside `src`, a value of type `ty` that holds values
    /// of linked types; a fault from inside gets `path` prefixed.
    fn link_walk(&self, ty: &Type, src: &str, path: &str, depth: usize, out: &mut Vec<String>) {
        match ty {
            Type::Record(_) | Type::Union(_) => {
                out.push(format!("try {{ {src}.GentableLink(t); }}"));
                out.push(format!(
                    "catch (GentableLinkFault e{depth}) {{ throw e{depth}.Within({path}); }}"
                ));
            }
            Type::Optional(t) => {
                let mut inner = vec![];
                self.link_walk(strip(t), src, path, depth, &mut inner);
                out.push(format!("if ({src} != null)"));
                out.push("{".into());
                out.extend(inner.into_iter().map(|l| format!("    {l}")));
                out.push("}".into());
            }
            Type::Array(t) => {
                let (a, i) = (format!("a{depth}"), format!("i{depth}"));
                let mut inner = vec![];
                self.link_walk(
                    t,
                    &format!("{a}[{i}]"),
                    &format!("{path} + \"[\" + {i}.ToString(global::System.Globalization.CultureInfo.InvariantCulture) + \"]\""),
                    depth + 1,
                    &mut inner,
                );
                out.push(format!("var {a} = {src};"));
                out.push(format!("for (int {i} = 0; {i} < {a}.Count; {i}++)"));
                out.push("{".into());
                out.extend(inner.into_iter().map(|l| format!("    {l}")));
                out.push("}".into());
            }
            Type::Map(_, v) => {
                let kv = format!("kv{depth}");
                let mut inner = vec![];
                self.link_walk(
                    v,
                    &format!("{kv}.Value"),
                    &format!("{path} + GentableLinkFault.Key({kv}.Key)"),
                    depth + 1,
                    &mut inner,
                );
                out.push(format!("foreach (var {kv} in {src})"));
                out.push("{".into());
                out.extend(inner.into_iter().map(|l| format!("    {l}")));
                out.push("}".into());
            }
            _ => {}
        }
    }

    fn field_vm(&self, f: &Field, ident: String, index: usize) -> anyhow::Result<FieldVm> {
        let (read, write) = match &f.ty {
            Type::Optional(inner) => {
                let inner = strip(inner);
                let value = if is_value_type(inner) {
                    format!("r.{ident}.Value")
                } else {
                    format!("r.{ident}")
                };
                (
                    self.read(inner, "r", 1),
                    format!(
                        "if (r.{ident} != null) {{ GentableCanonical.Key(sb, ref first, {}); {} }}",
                        quoted_json(&f.name, ":"),
                        self.write(inner, &value, "sb", 1)
                    ),
                )
            }
            ty => (
                self.read(ty, "r", 1),
                format!(
                    "GentableCanonical.Key(sb, ref first, {}); {}",
                    quoted_json(&f.name, ":"),
                    self.write(ty, &format!("r.{ident}"), "sb", 1)
                ),
            ),
        };
        Ok(FieldVm {
            param: param_name(f),
            ty: self.ty(&f.ty),
            doc: cs_doc(&f.doc),
            local: format!("f{index}"),
            read,
            write,
            ident,
        })
    }

    /// The C# type of `ty`.
    fn ty(&self, ty: &Type) -> String {
        match ty {
            Type::Bool => "bool".into(),
            Type::Int(w) => w.csharp_name().into(),
            Type::Float => "double".into(),
            Type::String => "string".into(),
            Type::Enum(n) => self.names.enums[n].clone(),
            Type::Record(n) => self.names.records[n].clone(),
            Type::Union(n) => self.names.unions[n].clone(),
            Type::Flags(e) => self.names.flags[e].clone(),
            Type::DateTime(_) => "global::System.DateTimeOffset".into(),
            Type::Duration => "global::System.TimeSpan".into(),
            Type::Date => "global::System.DateTime".into(),
            Type::Time(_) => "global::System.TimeSpan".into(),
            Type::Json => "JsonValue".into(),
            Type::Choice(n) => self.names.choices[n].clone(),
            Type::Map(k, v) => format!(
                "global::System.Collections.Generic.IReadOnlyDictionary<{}, {}>",
                self.ty(k),
                self.ty(v)
            ),
            Type::Array(t) => format!(
                "global::System.Collections.Generic.IReadOnlyList<{}>",
                self.ty(t)
            ),
            Type::Optional(t) => {
                let t = strip(t);
                if is_value_type(t) {
                    format!("{}?", self.ty(t))
                } else {
                    self.ty(t)
                }
            }
        }
    }

    /// Expression converting the key of the map entry being read by the `GentableReader` named `r` to a key
    /// of type `k` (an integer key is in canonical decimal form).
    fn map_key(&self, k: &Type, r: &str) -> String {
        match k {
            Type::Int(w) => {
                let (lo, hi) = w.range();
                if *w == IntWidth::I64 {
                    format!("{r}.SignedKey(long.MinValue, long.MaxValue)")
                } else if is_signed(*w) {
                    format!("({}){r}.SignedKey({lo}L, {hi}L)", w.csharp_name())
                } else {
                    format!("({}){r}.UnsignedKey({hi}UL)", w.csharp_name())
                }
            }
            _ => format!("{r}.Key"),
        }
    }

    /// Expression reading a value of type `ty` with the `GentableReader` named `r`; lambda parameters are
    /// numbered by `depth` (C# 7 forbids shadowing). Lambdas capture nothing, so the compiler caches each
    /// delegate once.
    fn read(&self, ty: &Type, r: &str, depth: usize) -> String {
        match ty {
            Type::Bool => format!("{r}.ReadBool()"),
            Type::Int(w) => format!("{r}.Read{}()", int_reader(*w)),
            Type::Float => format!("{r}.ReadDouble()"),
            Type::String => format!("{r}.ReadString()"),
            Type::Enum(n) => format!("GentableCodec.Read{}({r})", self.names.enums[n]),
            Type::Record(n) => format!("GentableCodec.Read{}({r})", self.names.records[n]),
            Type::Union(n) => format!("GentableCodec.Read{}({r})", self.names.unions[n]),
            Type::Flags(e) => format!("GentableCodec.Read{}({r})", self.names.flags[e]),
            Type::DateTime(_) => format!("{r}.ReadDateTime()"),
            Type::Duration => format!("{r}.ReadDuration()"),
            Type::Date => format!("{r}.ReadDate()"),
            Type::Time(_) => format!("{r}.ReadTime()"),
            Type::Json => format!("GentableCodec.ReadJsonValue({r})"),
            Type::Choice(n) => format!("GentableCodec.Read{}({r})", self.names.choices[n]),
            Type::Map(k, v) => {
                let (rk, rv) = (format!("k{depth}"), format!("r{depth}"));
                let key = self.map_key(k, &rk);
                format!(
                    "GentableRead.Map<{}, {}>({r}, {rk} => {key}, {rv} => {})",
                    self.ty(k),
                    self.ty(v),
                    self.read(v, &rv, depth + 1)
                )
            }
            Type::Array(t) => {
                let rv = format!("r{depth}");
                format!(
                    "GentableRead.List<{}>({r}, {rv} => {})",
                    self.ty(t),
                    self.read(t, &rv, depth + 1)
                )
            }
            Type::Optional(t) => format!(
                "{r}.TryNull() ? default({}) : {}",
                self.ty(ty),
                self.read(strip(t), r, depth)
            ),
        }
    }

    /// Statement writing `value` of type `ty` as canonical JSON to the `StringBuilder` named `sb`.
    fn write(&self, ty: &Type, value: &str, sb: &str, depth: usize) -> String {
        match ty {
            Type::Bool => format!("GentableCanonical.WriteBool({sb}, {value});"),
            Type::Int(w) if is_signed(*w) => {
                format!("GentableCanonical.WriteSigned({sb}, {value});")
            }
            Type::Int(_) => format!("GentableCanonical.WriteUnsigned({sb}, {value});"),
            Type::Float => format!("GentableCanonical.WriteDouble({sb}, {value});"),
            Type::String => format!("GentableCanonical.WriteString({sb}, {value});"),
            Type::Enum(n) => format!("GentableCodec.Write{}({sb}, {value});", self.names.enums[n]),
            Type::Record(n) => format!(
                "GentableCodec.Write{}({sb}, {value});",
                self.names.records[n]
            ),
            Type::Union(n) => format!(
                "GentableCodec.Write{}({sb}, {value});",
                self.names.unions[n]
            ),
            Type::Flags(e) => format!("GentableCodec.Write{}({sb}, {value});", self.names.flags[e]),
            Type::DateTime(_) => format!("GentableCanonical.WriteDateTime({sb}, {value});"),
            Type::Duration => format!("GentableCanonical.WriteDuration({sb}, {value});"),
            Type::Date => format!("GentableCanonical.WriteDate({sb}, {value});"),
            Type::Time(_) => format!("GentableCanonical.WriteTime({sb}, {value});"),
            Type::Json => format!("GentableCodec.WriteJsonValue({sb}, {value});"),
            Type::Choice(n) => format!(
                "GentableCodec.Write{}({sb}, {value});",
                self.names.choices[n]
            ),
            Type::Map(k, v) => {
                let (s, x, kk) = (
                    format!("sb{depth}"),
                    format!("x{depth}"),
                    format!("k{depth}"),
                );
                let key = match &**k {
                    Type::Int(_) => format!(
                        "{kk}.ToString(global::System.Globalization.CultureInfo.InvariantCulture)"
                    ),
                    _ => kk.clone(),
                };
                format!(
                    "GentableCanonical.WriteMap<{}, {}>({sb}, {value}, {kk} => {key}, ({s}, {x}) => {{ {} }});",
                    self.ty(k),
                    self.ty(v),
                    self.write(v, &x, &s, depth + 1)
                )
            }
            Type::Array(t) => {
                let (s, x) = (format!("sb{depth}"), format!("x{depth}"));
                format!(
                    "GentableCanonical.WriteList<{}>({sb}, {value}, ({s}, {x}) => {{ {} }});",
                    self.ty(t),
                    self.write(t, &x, &s, depth + 1)
                )
            }
            Type::Optional(t) => {
                let t = strip(t);
                let inner = if is_value_type(t) {
                    format!("{value}.Value")
                } else {
                    value.to_string()
                };
                format!(
                    "if ({value} == null) {{ {sb}.Append(\"null\"); }} else {{ {} }}",
                    self.write(t, &inner, sb, depth)
                )
            }
        }
    }

    fn table_vm(&self, t: &Table) -> anyhow::Result<TableVm> {
        let row_name = self.names.rows[&t.name].clone();
        let mut row = self.class_vm(
            row_name.clone(),
            &t.doc,
            &t.fields,
            &format!("table {:?}", t.name),
        )?;
        let key = if t.mode == TableMode::Map {
            if t.primary_key.is_empty() {
                bail!("C#: map table {:?} has no primary key", t.name);
            }
            let taken: Vec<&str> = row
                .fields
                .iter()
                .map(|f| f.ident.as_str())
                .chain(row.refs.iter().map(|r| r.ident.as_str()))
                // A member may not be named as its class (CS0542): the row of a table named `Key`.
                .chain([row_name.as_str()])
                .collect();
            let property = naming::avoid("Key".into(), &taken);
            let name = format!("{row_name}Id");
            let single = t.primary_key.len() == 1;
            let mut parts = vec![];
            let (mut eq, mut hash, mut fmt) = (vec![], vec![], vec![]);
            for (n, &i) in t.primary_key.iter().enumerate() {
                let f = &t.fields[i];
                let fvm = &row.fields[i];
                if !matches!(
                    f.ty,
                    Type::Bool | Type::Int(_) | Type::Float | Type::String | Type::Enum(_)
                ) {
                    bail!(
                        "C#: primary key field {:?} of table {:?} must be a boolean, integer, number, string or enum",
                        f.name,
                        t.name
                    );
                }
                let ident = if single {
                    "Value".to_string()
                } else {
                    naming::csharp_member(&f.name, f.ident.as_deref(), &name)
                };
                let param = if single {
                    "value".to_string()
                } else {
                    fvm.param.clone()
                };
                if f.ty == Type::String {
                    eq.push(format!("string.Equals(this.{ident}, other.{ident})"));
                    hash.push(format!(
                        "(this.{ident} == null ? 0 : this.{ident}.GetHashCode())"
                    ));
                } else if let Type::Enum(_) = f.ty {
                    // Through the underlying int: Enum.GetHashCode boxes on older runtimes.
                    eq.push(format!("this.{ident} == other.{ident}"));
                    hash.push(format!("((int)this.{ident}).GetHashCode()"));
                } else {
                    eq.push(format!("this.{ident} == other.{ident}"));
                    hash.push(format!("this.{ident}.GetHashCode()"));
                }
                fmt.push(format!("{{{n}}}"));
                parts.push(KeyPartVm {
                    ident,
                    param,
                    ty: fvm.ty.clone(),
                    row_property: format!("{row_name}.{}", fvm.ident),
                });
            }
            let key_fields: Vec<&FieldVm> = t.primary_key.iter().map(|&i| &row.fields[i]).collect();
            let params: Vec<&str> = key_fields.iter().map(|f| f.param.as_str()).collect();
            let hash = if hash.len() == 1 {
                hash.remove(0)
            } else {
                hash.iter()
                    .fold("17".to_string(), |acc, h| format!("({acc}) * 31 + {h}"))
            };
            // A one-part key indexes by its value; floats keep the struct (its `==` is the key's equality, where
            // double.Equals and GetHashCode tell 0.0 from -0.0 on some runtimes).
            let (dict_key, dict_of_row, dict_of_key, dict_of_args) =
                match &t.fields[t.primary_key[0]].ty {
                    Type::Float => (
                        name.clone(),
                        format!("row.{property}"),
                        "key".to_string(),
                        String::new(),
                    ),
                    _ if !single => (
                        name.clone(),
                        format!("row.{property}"),
                        "key".to_string(),
                        String::new(),
                    ),
                    Type::Enum(_) => (
                        "int".to_string(),
                        format!("(int)row.{}", key_fields[0].ident),
                        "(int)key.Value".to_string(),
                        format!("(int){}", key_fields[0].param),
                    ),
                    _ => (
                        key_fields[0].ty.clone(),
                        format!("row.{}", key_fields[0].ident),
                        "key.Value".to_string(),
                        key_fields[0].param.clone(),
                    ),
                };
            let out_row = naming::avoid("row".into(), &params);
            let locals: Vec<&str> = params.iter().copied().chain([out_row.as_str()]).collect();
            let found = naming::avoid("found".into(), &locals);
            let has = naming::avoid("has".into(), &locals);
            Some(KeyVm {
                dict_key,
                dict_of_row,
                dict_of_key,
                dict_of_args,
                found,
                has,
                property,
                single,
                params: key_fields
                    .iter()
                    .map(|f| format!("{} {}", f.ty, f.param))
                    .collect::<Vec<_>>()
                    .join(", "),
                args: params.join(", "),
                row_args: key_fields
                    .iter()
                    .map(|f| format!("this.{}", f.ident))
                    .collect::<Vec<_>>()
                    .join(", "),
                out_row,
                equals: eq.join(" && "),
                hash,
                format: quoted(&format!("{name}({})", fmt.join(", "))),
                format_args: parts
                    .iter()
                    .map(|p| format!("this.{}", p.ident))
                    .collect::<Vec<_>>()
                    .join(", "),
                parts,
                name,
            })
        } else {
            None
        };
        let uniques = self.uniques(t, &row)?;
        row.doc = cs_doc(&t.doc);
        Ok(TableVm {
            binary_read: self
                .binary_fn(&row.name, &self.binary_new(&row.name, &row, "            ")),
            uniques,
            namespace: self.ns.clone(),
            name_literal: quoted(&t.name),
            is_map: t.mode == TableMode::Map,
            is_list: t.mode == TableMode::List,
            is_one: t.mode == TableMode::One,
            table_class: format!("{row_name}Table"),
            key,
            row,
        })
    }

    /// `GetBy<Fields>` / `TryGetBy<Fields>` per secondary unique key: a dictionary for one field, a scan of
    /// `All` for several.
    fn uniques(&self, t: &Table, row: &ClassVm) -> anyhow::Result<Vec<UniqueVm>> {
        let mut out = vec![];
        let rn = &row.name;
        let lit = quoted(&t.name);
        for key in &t.unique_keys {
            if !super::lookup_key(t, key) {
                continue;
            }
            let fs: Vec<&FieldVm> = key.iter().map(|&i| &row.fields[i]).collect();
            let suffix: String = fs
                .iter()
                .map(|f| f.ident.trim_end_matches('_').to_string())
                .collect::<Vec<_>>()
                .join("And");
            let params = fs
                .iter()
                .map(|f| format!("{} {}", f.ty, f.param))
                .collect::<Vec<_>>()
                .join(", ");
            let what = key
                .iter()
                .map(|&i| t.fields[i].name.clone())
                .collect::<Vec<_>>()
                .join(", ");
            let found = naming::avoid(
                "found".into(),
                &fs.iter().map(|f| f.param.as_str()).collect::<Vec<_>>(),
            );
            let show = fs
                .iter()
                .map(|f| f.param.clone())
                .collect::<Vec<_>>()
                .join(" + \", \" + ");
            if fs.len() == 1 {
                let f = fs[0];
                // `byKey` is the primary key's dictionary: a unique key on a field named `Key` takes `byKey_`.
                let dict = naming::avoid(format!("by{suffix}"), &["byKey"]);
                let row = naming::avoid("row".into(), &[f.param.as_str(), found.as_str()]);
                let has = naming::avoid(
                    "has".into(),
                    &[f.param.as_str(), found.as_str(), row.as_str()],
                );
                out.push(UniqueVm {
                    // Rows as `object`: one dictionary instantiation per key type, not per table (see KeyVm::dict_key).
                    decl: format!("private readonly global::System.Collections.Generic.Dictionary<{}, object> {dict};", f.ty),
                    init: vec![
                        format!("this.{dict} = new global::System.Collections.Generic.Dictionary<{}, object>(list.Count);", f.ty),
                        format!("foreach (var row in list) {{ if (this.{dict}.ContainsKey(row.{id})) throw new GentableDataException({lit} + \": duplicate unique key {what} \" + row.{id}); this.{dict}.Add(row.{id}, row); }}", id = f.ident),
                    ],
                    methods: vec![
                        format!("/// <summary>The row whose {what} (a unique key) is <paramref name=\"{p}\"/>, if there is one.</summary>\n        public bool TryGetBy{suffix}({params}, out {rn} {found}) {{ object {row}; bool {has} = this.{dict}.TryGetValue({p}, out {row}); {found} = ({rn}){row}; return {has}; }}", p = f.param),
                        format!("/// <summary>The row whose {what} (a unique key) is <paramref name=\"{p}\"/>; throws <c>KeyNotFoundException</c> if there is none.</summary>\n        public {rn} GetBy{suffix}({params}) {{ object {row}; if (this.{dict}.TryGetValue({p}, out {row})) return ({rn}){row}; throw new global::System.Collections.Generic.KeyNotFoundException({lit} + \" has no row with {what} \" + {show}); }}", p = f.param),
                    ],
                });
            } else {
                let cand = naming::avoid(
                    "candidate".into(),
                    &fs.iter()
                        .map(|f| f.param.as_str())
                        .chain([found.as_str()])
                        .collect::<Vec<_>>(),
                );
                let conds = key
                    .iter()
                    .zip(&fs)
                    .map(|(&i, f)| {
                        if t.fields[i].ty == Type::String {
                            format!("string.Equals({cand}.{}, {})", f.ident, f.param)
                        } else {
                            format!("{cand}.{} == {}", f.ident, f.param)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" && ");
                let args = fs
                    .iter()
                    .map(|f| f.param.clone())
                    .collect::<Vec<_>>()
                    .join(", ");
                out.push(UniqueVm {
                    decl: String::new(),
                    init: vec![],
                    methods: vec![
                        format!("/// <summary>The row with this {what} (a unique key), if there is one.</summary>\n        public bool TryGetBy{suffix}({params}, out {rn} {found}) {{ foreach (var {cand} in this.All) {{ if ({conds}) {{ {found} = {cand}; return true; }} }} {found} = null; return false; }}"),
                        format!("/// <summary>The row with this {what} (a unique key); throws <c>KeyNotFoundException</c> if there is none.</summary>\n        public {rn} GetBy{suffix}({params}) {{ {rn} {found}; if (this.TryGetBy{suffix}({args}, out {found})) return {found}; throw new global::System.Collections.Generic.KeyNotFoundException({lit} + \" has no row with {what} \" + {show}); }}"),
                    ],
                });
            }
        }
        Ok(out)
    }

    /// `Tables.Text(key, language)` and `enum Language` for `[localization]` (empty strings without it, or
    /// when this output has no text table).
    fn text_method(&self, tables: &[TablesEntryVm]) -> anyhow::Result<(String, String)> {
        let Some(tt) = self.text else {
            return Ok((String::new(), String::new()));
        };
        let t = tt.table;
        let i = self
            .project
            .tables
            .iter()
            .position(|x| x.name == t.name)
            .context("the text table is a table of the project")?;
        if self
            .names
            .enums
            .values()
            .chain(self.names.records.values())
            .chain(self.names.rows.values())
            .any(|n| n == "Language")
        {
            bail!("C#: [localization] generates the enum Language, and a type of that name exists");
        }
        let row = &self.names.rows[&t.name];
        let idents = member_names(&t.fields, row, &t.name)?;
        let members: Vec<String> = tt
            .languages()
            .map(|(x, _)| naming::csharp_type(x))
            .collect();
        let mut cases = String::new();
        for ((_, fi), m) in tt.languages().zip(&members) {
            cases.push_str(&format!(
                "                case Language.{m}: text = row.{}; break;\n",
                idents[fi]
            ));
        }
        let method = format!(
            "        /// <summary>The text of <paramref name=\"key\"/> in <paramref name=\"language\"/> (table {}), or null if the key or its text is missing.</summary>\n        public string Text(string key, Language language)\n        {{\n            {row} row;\n            if (key == null || !this.{}.TryGet(key, out row)) return null;\n            string text;\n            switch (language)\n            {{\n{cases}                default: return null;\n            }}\n            return string.IsNullOrEmpty(text) ? null : text;\n        }}",
            xml_escape(&t.name),
            tables[i].property
        );
        let enum_members: Vec<String> = tt
            .languages()
            .map(|(code, _)| code)
            .zip(&members)
            .map(|(code, m)| {
                format!(
                    "        /// <summary>{}</summary>\n        {m},",
                    xml_escape(code)
                )
            })
            .collect();
        let en = format!(
            "    /// <summary>The languages of table {} (<c>[localization] languages</c>).</summary>\n    public enum Language\n    {{\n{}\n    }}",
            xml_escape(&t.name),
            enum_members.join("\n")
        );
        Ok((method, en))
    }

    fn tables_vm(&self) -> anyhow::Result<TablesVm> {
        let mut tables = vec![];
        let mut links = vec![];
        for (i, t) in self.project.tables.iter().enumerate() {
            let property = self.props[&t.name].clone();
            if self.linked.fields(self.project, &t.fields) {
                let (file, name) = (quoted(&data_file(t, self.binary)), quoted(&t.name));
                links.push(match t.mode {
                    TableMode::One => format!("try {{ this.{property}.GentableLink(this); }} catch (GentableLinkFault f) {{ throw f.Row({file}, {name}, 0); }}"),
                    TableMode::Map | TableMode::List => format!("GentableRead.LinkRows(this.{property}.All, this, {file}, {name});"),
                });
            }
            let row = &self.names.rows[&t.name];
            let name = quoted(&t.name);
            let file = quoted(&data_file(t, self.binary));
            let bytes = format!(
                "GentableRead.Bytes(bytesOf, {file}, {name}), {file}, {name}, TableHashes({name})"
            );
            let readers = if self.binary {
                format!("GentableCodec.Read{row}, GentableCodec.Read{row}")
            } else {
                format!("GentableCodec.Read{row}")
            };
            let (ty, load, canonical) = match t.mode {
                // With binary data, each file may be either format (recognised by its first bytes).
                TableMode::One => (
                    row.clone(),
                    format!("GentableRead.Single<{row}>({bytes}, {readers})"),
                    format!("GentableCanonical.Single<{row}>(this.{property}, GentableCodec.Write{row})"),
                ),
                TableMode::Map | TableMode::List => (
                    format!("{row}Table"),
                    format!(
                        "new {row}Table(GentableRead.Rows<{row}>({bytes}, {readers}))"
                    ),
                    format!("GentableCanonical.Rows<{row}>(this.{property}.All, GentableCodec.Write{row})"),
                ),
            };
            tables.push(TablesEntryVm {
                property,
                ty,
                doc: cs_doc(&t.doc),
                local: format!("t{i}"),
                name_literal: name,
                load,
                canonical,
            });
        }
        let (text_method, language_enum) = self.text_method(&tables)?;
        Ok(TablesVm {
            namespace: self.ns.clone(),
            project: xml_escape(&hbs::doc_lines(&self.project.name).join(" ")),
            text_method,
            language_enum,
            links,
            data_files: self
                .project
                .tables
                .iter()
                .map(|t| quoted(&data_file(t, self.binary)))
                .collect::<Vec<_>>()
                .join(", "),
            tables,
        })
    }
}

/// `lines` as one block statement, joined for a template line indented by 12 spaces (a method body).
fn cs_block(lines: Vec<String>) -> String {
    let mut all = vec!["{".to_string()];
    all.extend(lines.into_iter().map(|l| format!("    {l}")));
    all.push("}".into());
    all.join("\n            ")
}

/// The `Tables` property of every table (by table name), checked for collisions. With `[localization]`,
/// `Tables` also has the method `Text(key, language)`: a table named `Text` is then `Tables.Text_`.
fn table_properties(project: &Project, text: bool) -> anyhow::Result<BTreeMap<String, String>> {
    let mut members = TABLES_MEMBERS.to_vec();
    if text {
        members.push("Text");
    }
    let props: Vec<String> = project
        .tables
        .iter()
        .map(|t| naming::avoid(naming::csharp_member(&t.name, None, "Tables"), &members))
        .collect();
    super::front::collisions(
        project
            .tables
            .iter()
            .zip(&props)
            .map(|(t, p)| (t.name.as_str(), p.clone())),
        |a, b, id| {
            format!("C#: tables {a:?} and {b:?} both map to the property Tables.{id}; rename one")
        },
    )?;
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

/// `Optional(Optional(t))` is `Optional(t)`.
fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Optional(t) => strip(t),
        t => t,
    }
}

/// C# value types get `?` when optional; reference types (string, records, lists) are nullable already.
fn is_value_type(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Bool
            | Type::Int(_)
            | Type::Float
            | Type::Enum(_)
            | Type::Flags(_)
            | Type::DateTime(_)
            | Type::Duration
            | Type::Date
            | Type::Time(_)
    )
}

/// The property of a scalar union's member: `Boolean`, `Integer`, `Number` or `String`.
fn choice_member(m: &Type) -> &'static str {
    match m {
        Type::Bool => "Boolean",
        Type::Int(_) => "Integer",
        Type::Float => "Number",
        _ => "String",
    }
}

fn is_signed(w: IntWidth) -> bool {
    matches!(
        w,
        IntWidth::I8 | IntWidth::I16 | IntWidth::I32 | IntWidth::I64
    )
}

fn int_reader(w: IntWidth) -> &'static str {
    match w {
        IntWidth::I8 => "I8",
        IntWidth::I16 => "I16",
        IntWidth::I32 => "I32",
        IntWidth::I64 => "I64",
        IntWidth::U8 => "U8",
        IntWidth::U16 => "U16",
        IntWidth::U32 => "U32",
        IntWidth::U64 => "U64",
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
        // C# line terminators and every other non-ASCII character are \u escapes, per UTF-16 unit.
        assert_eq!(
            quoted("\u{85}\u{2028}\u{2029}€"),
            "\"\\u0085\\u2028\\u2029\\u20ac\""
        );
        assert_eq!(quoted("😀"), "\"\\ud83d\\ude00\"");
        assert_eq!(quoted("\u{0}\u{1f}\u{7f}"), "\"\\u0000\\u001f\\u007f\"");
        // Harmless in a regular C# string, kept as is.
        assert_eq!(quoted("*/ ${x} `y` {{z}} {0}"), "\"*/ ${x} `y` {{z}} {0}\"");
    }

    #[test]
    fn doc_comments_are_xml_escaped_and_split() {
        assert_eq!(cs_doc("a < b && c > d"), ["a &lt; b &amp;&amp; c &gt; d"]);
        assert_eq!(
            cs_doc("</summary><script>"),
            ["&lt;/summary&gt;&lt;script&gt;"]
        );
        assert_eq!(
            cs_doc("one\ntwo\u{2028}three\u{85}four\r\nfive"),
            ["one", "two", "three", "four", "five"]
        );
        assert_eq!(cs_doc("*/ {{x}} ${y} `z`"), ["*/ {{x}} ${y} `z`"]);
    }

    /// Every type the runtime declares is a name no table, record or enum may take: a table named
    /// `GentableIndex` would otherwise build and fail to compile (CS0101).
    #[test]
    fn the_runtime_types_are_reserved() {
        let runtime = TEMPLATES
            .iter()
            .find(|(name, _)| *name == "runtime.cs.hbs")
            .expect("the runtime template")
            .1;
        let mut declared = vec![];
        for line in runtime.lines() {
            // Namespace-level declarations are indented once.
            let Some(rest) = line.strip_prefix("    ") else {
                continue;
            };
            if rest.starts_with(' ') {
                continue;
            }
            let words: Vec<&str> = rest.split_whitespace().collect();
            let modifiers = words.iter().take_while(|w| {
                matches!(
                    **w,
                    "public"
                        | "internal"
                        | "static"
                        | "sealed"
                        | "abstract"
                        | "partial"
                        | "readonly"
                )
            });
            let i = modifiers.count();
            if matches!(
                words.get(i).copied(),
                Some("class" | "interface" | "struct" | "enum")
            ) {
                let name = words[i + 1].split(['<', ':', '{']).next().unwrap();
                declared.push(name.to_string());
            }
        }
        assert!(declared.len() >= 10, "found only {declared:?}");
        for name in &declared {
            assert!(
                RESERVED_TYPES.contains(&name.as_str()),
                "{name} is declared by the C# runtime but not in RESERVED_TYPES"
            );
        }
    }

    #[test]
    fn canonical_member_literals() {
        assert_eq!(quoted_json("Id", ":"), "\"\\\"Id\\\":\"");
        assert_eq!(quoted_json("a\nb", ""), "\"\\\"a\\\\nb\\\"\"");
    }
}

#[cfg(test)]
mod emit_tests {
    use super::*;
    use crate::emit::testkit::{self, HASH};
    use std::path::Path;
    use std::process::Command;

    fn emit_sample(project: &Project, root: &Path, config: &crate::config::Config) -> Files {
        testkit::emit_sample(emit, project, root, config)
    }

    #[test]
    fn output_is_deterministic_with_headers() {
        let p = testkit::project();
        let dir = tempfile::tempdir().unwrap();
        let a = emit_sample(&p, dir.path(), &testkit::config());
        let b = emit_sample(&p, dir.path(), &testkit::config());
        assert_eq!(a, b);
        let names: Vec<&str> = a.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "csharp/Act.cs",
                "csharp/Const.cs",
                "csharp/Dir.cs",
                "csharp/Effect.cs",
                "csharp/Empty.cs",
                "csharp/Extras.cs",
                "csharp/GentableRuntime.cs",
                "csharp/Load.cs",
                "csharp/Move.cs",
                "csharp/PieceType.cs",
                "csharp/Tables.Hashes.cs",
                "csharp/Tables.cs",
                "csharp/Tier.cs",
                "csharp/Vec2.cs"
            ]
        );
        for (name, text) in &a {
            assert!(
                text.starts_with(&format!("// {}\n", crate::emit::HEADER)),
                "{name}"
            );
            assert!(
                !text.contains('\r') && text.ends_with("}\n") && !text.ends_with("\n\n"),
                "{name}"
            );
            assert!(text.contains("namespace Sample.Config\n"), "{name}");
        }
        let tables = &a["csharp/Tables.cs"];
        let hashes = &a["csharp/Tables.Hashes.cs"];
        assert!(hashes.contains(&format!("public const string ContentHash = \"{HASH}\";")));
        // Every table's dataHash and schemaHash, as its data file's header carries them.
        let data = testkit::data_hashes(&p);
        let piece = &p.tables.iter().find(|t| t.name == "PieceType").unwrap();
        assert!(hashes.contains(&format!(
            "case \"PieceType\": return new[] {{ \"{}\", \"{}\" }};",
            data["PieceType"],
            crate::emit::data::schema_hash(&p, piece)
        )));
        assert!(
            !tables.contains("ContentHash ="),
            "hashes live in Tables.Hashes.cs"
        );
        assert!(
            tables.contains("public LoadTable Load_ { get; }"),
            "{tables}"
        );
        let piece = &a["csharp/PieceType.cs"];
        for decl in [
            "public Dir Class { get; }",
            "public global::System.Collections.Generic.IReadOnlyList<int> Params { get; }",
            "public string Delete { get; }",
            "public bool? Constructor { get; }",
            "public long Big { get; }",
            "public ulong? Ubig { get; }",
            "public string PieceType_ { get; }",
            "public string U540dU5b57 { get; }",
            "public PieceTypeId Key_ { get { return new PieceTypeId(this.Id); } }",
            "public readonly struct PieceTypeId : global::System.IEquatable<PieceTypeId>",
            "public global::System.Collections.Generic.IReadOnlyList<short?> Maybe { get; }",
        ] {
            assert!(piece.contains(decl), "missing {decl:?} in\n{piece}");
        }
        assert!(a["csharp/Effect.cs"].contains("public sbyte ToString_ { get; }"));
        assert!(a["csharp/Effect.cs"].contains("public string Effect_ { get; }"));
    }

    #[test]
    fn spreadsheet_text_stays_inside_comments_and_literals() {
        let p = testkit::project();
        let dir = tempfile::tempdir().unwrap();
        let files = emit_sample(&p, dir.path(), &testkit::config());
        let piece = &files["csharp/PieceType.cs"];
        // The description is split into `///` lines and XML-escaped.
        assert!(piece.contains("        /// */ &lt;/summary&gt; &lt;b&gt;&amp;amp; \"q\" \\ {{x}} ${y} `z`\n        /// ls\n        /// ps\n        /// nel\n        /// next */\n"), "{piece}");
        let dir_cs = &files["csharp/Dir.cs"];
        // Member names are C# literals (the reader matches the data against them), members are identifiers.
        assert!(
            dir_cs.contains(
                "new string[] { \"Forward\", \"Left\", \"Back Right\", \"class\", \"quo\\\"te*/\", \"\\u540d\\u5b57\", \"{{x}}${y}`\" }"
            ),
            "{dir_cs}"
        );
        assert!(
            dir_cs.contains(
                "global::Sample.Config.Dir.QuoU0022TeU002a, global::Sample.Config.Dir.U540dU5b57,"
            ),
            "{dir_cs}"
        );
        for (name, text) in &files {
            for line in text.lines() {
                // No line of a generated file can start inside a comment or literal: every doc line is `///`.
                let t = line.trim_start();
                assert!(
                    !t.starts_with("ls") && !t.starts_with("ps") && !t.starts_with("next"),
                    "{name}: {line}"
                );
            }
        }
    }

    #[test]
    fn templates_can_be_overridden() {
        let p = testkit::project();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tpl")).unwrap();
        std::fs::write(
            dir.path().join("tpl/enum.cs.hbs"),
            "namespace {{namespace}} { public enum {{name}} { } }\n",
        )
        .unwrap();
        let mut config = testkit::config();
        config.csharp.templates = Some("tpl".into());
        let files = emit_sample(&p, dir.path(), &config);
        assert_eq!(
            files["csharp/Tier.cs"],
            format!(
                "// {}\nnamespace Sample.Config {{ public enum Tier {{ }} }}\n",
                crate::emit::HEADER
            )
        );
        assert!(files["csharp/Tables.cs"].contains("public sealed partial class Tables"));
    }

    #[test]
    fn type_name_collisions_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        // The error of the sample project with its second table renamed to `name`.
        let refused = |name: &str| {
            let mut p = testkit::project();
            p.tables[1].name = name.into();
            emit(&EmitContext {
                project: &p,
                config: &testkit::config(),
                content_hash: HASH,
                project_hash: HASH,
                data_hashes: &Default::default(),
                root: dir.path(),
                only: None,
            })
            .unwrap_err()
            .to_string()
        };
        let err = refused("PieceTypeTable"); // the table class of PieceType
        assert!(err.contains("PieceTypeTable"), "{err}");
        let err = refused("tables");
        assert!(err.contains("Tables"), "{err}");
        // The runtime's own types (helper-15 found `GentableIndex` building and then failing in mcs).
        for runtime in ["GentableIndex", "IGentableLinked", "GentableBinary"] {
            let err = refused(runtime);
            assert!(err.contains(runtime), "{err}");
        }
    }

    const PROGRAM: &str = r#"
namespace Sample.Config.Test
{
    using Sample.Config;

    internal static class Program
    {
        private static int Main(string[] args)
        {
            var utf8 = new global::System.Text.UTF8Encoding(false);
            try
            {
                if (args[0] == "doubles")
                {
                    var sb = new global::System.Text.StringBuilder();
                    foreach (string line in global::System.IO.File.ReadAllLines(args[1]))
                    {
                        // "<bits hex> <decimal text> <decimal text>": format the double, parse the texts back.
                        string[] parts = line.Split(' ');
                        long bits = long.Parse(parts[0], global::System.Globalization.NumberStyles.HexNumber, global::System.Globalization.CultureInfo.InvariantCulture);
                        sb.Append(GentableCanonical.FormatDouble(global::System.BitConverter.Int64BitsToDouble(bits)));
                        for (int i = 1; i < parts.Length; i++)
                        {
                            double back;
                            bool ok = GentableDouble.TryParse(parts[i], out back) && global::System.BitConverter.DoubleToInt64Bits(back) == bits;
                            if (!ok) sb.Append(" cannot-parse:").Append(parts[i]);
                            // The loader's reader (its fast path for short numbers) agrees.
                            double read = new GentableReader(utf8.GetBytes(parts[i]), 0, "d.json", "d").ReadDouble();
                            if (global::System.BitConverter.DoubleToInt64Bits(read) != bits) sb.Append(" cannot-read:").Append(parts[i]);
                        }
                        sb.Append('\n');
                    }
                    global::System.IO.File.WriteAllText(args[2], sb.ToString(), utf8);
                    return 0;
                }
                Tables t = Tables.Load(args[1]);
                foreach (var kv in t.ToCanonicalJson())
                {
                    global::System.IO.File.WriteAllText(global::System.IO.Path.Combine(args[2], kv.Key + ".json"), kv.Value, utf8);
                }
                // The API surface, used the way a game would.
                PieceType pawn = t.PieceType.Get(1);
                PieceType row;
                bool found = t.PieceType.TryGet(new PieceTypeId(2), out row);
                bool missing = t.PieceType.TryGet(3, out row);
                Move m = t.Move.Get("Pawn", Tier.Silver, 1);
                var report = new global::System.Text.StringBuilder();
                report.Append(pawn.Name).Append('|').Append(pawn.Class).Append('|').Append(pawn.Key_).Append('|').Append(found).Append('|').Append(missing);
                report.Append('|').Append(m.Key).Append('|').Append(t.Move.Count).Append('|').Append(t.Const.MaxSteps).Append('|').Append(t.Load_.All[1].Value);
                report.Append('|').Append(t.PieceType.All[0].Pos.Label == null).Append('|').Append(t.PieceType.All[1].Constructor.HasValue);
                report.Append('|').Append(t.Empty.Count).Append('|').Append(Tables.ContentHash.Length);
                try { t.PieceType.Get(9); } catch (global::System.Collections.Generic.KeyNotFoundException e) { report.Append('|').Append(e.Message); }
                // Typed references: the rows themselves, resolved once at load.
                var refs = new global::System.Text.StringBuilder();
                refs.Append(object.ReferenceEquals(pawn.NextRef, t.PieceType.Get(2))).Append('|').Append(t.PieceType.Get(2).NextRef == null);
                refs.Append('|').Append(t.PieceType.Get(65535).NextRef.Name).Append('|').Append(m.PieceRef.Id);
                refs.Append('|').Append(pawn.Effects[0].SourceRef.Id).Append('|').Append(pawn.Effects[0].SourceRef.Effects.Count);
                var owners = t.Extras.All[0].OwnersRefs;
                refs.Append('|').Append(owners.Count).Append(owners[0][1].Id).Append(owners[1][0].Id).Append('|').Append(t.Extras.All[1].OwnersRefs.Count);
                var act = (Act.Class)t.Extras.All[0].Act;
                refs.Append('|').Append(act.ByRef.Id).Append(((Act.Class)act.Next).ByRef.Id).Append(((Act.Class)t.Extras.All[0].ByName["é"]).ByRef.Id);
                var spares = t.Extras.All[0].SparesRefs;
                refs.Append('|').Append(spares.Count).Append(spares[0].Id).Append(spares[1].Id).Append(t.Extras.All[1].SparesRefs == null);
                var mates = t.Extras.All[0].MatesRefs;
                refs.Append('|').Append(mates.Count).Append(mates[0].Id).Append(mates[1] == null).Append(mates[2].Id);
                var squads = t.Extras.All[0].SquadsRefs;
                refs.Append('|').Append(squads.Count).Append(squads[1][1].Id).Append(t.Extras.All[1].SquadsRefs == null);
                var ranks = t.Extras.All[0].RanksRefs;
                refs.Append('|').Append(ranks.Count).Append(ranks["a"].Id).Append(ranks["b"].Id).Append(t.Extras.All[1].RanksRefs.Count);
                refs.Append('|').Append(t.Extras.All[0].GuardsRefs["g"].Id).Append(t.Extras.All[1].GuardsRefs == null);
                // Hot reload: a second load shares nothing with the first, whose rows stay as they were.
                Tables t2 = Tables.Load(args[1]);
                refs.Append('|').Append(object.ReferenceEquals(t2.PieceType.Get(1), pawn)).Append(object.ReferenceEquals(t2.PieceType.Get(1).NextRef, t2.PieceType.Get(2)));
                refs.Append(object.ReferenceEquals(pawn.NextRef, t.PieceType.Get(2))).Append(Tables.DataFiles.Count).Append(Tables.DataFiles[0]);
                global::System.IO.File.WriteAllText(global::System.IO.Path.Combine(args[2], "refs.txt"), refs.ToString(), utf8);
                // Loading from fetched bytes, asynchronously.
                Tables t3 = Tables.LoadAsync(file => global::System.Threading.Tasks.Task.Run(() => global::System.IO.File.ReadAllBytes(global::System.IO.Path.Combine(args[1], file)))).Result;
                if (t3.PieceType.Get(1).NextRef.Id != 2) return 4;
                global::System.Console.Out.Write(report.ToString());
                return 0;
            }
            catch (GentableDataException e)
            {
                global::System.Console.Error.Write(e.Message);
                return 3;
            }
        }
    }
}
"#;

    /// Emit the sample, compile it with mono's `mcs -langversion:7.2` (warnings are errors, XML docs checked),
    /// load the canonical data and compare what `ToCanonicalJson` writes byte for byte; then feed it broken data
    /// and check the errors; then compare `FormatDouble` with `ryu-js` on many doubles.
    #[test]
    fn compiles_with_mcs_and_reproduces_canonical_data() {
        let (Some(mcs), Some(mono)) = (testkit::tool("mcs"), testkit::tool("mono")) else {
            return;
        };
        let p = testkit::project();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = emit_sample(&p, root, &testkit::config());
        testkit::write_files(&root.join("gen"), &files);
        std::fs::write(root.join("Program.cs"), PROGRAM).unwrap();
        let mut sources: Vec<String> = files.keys().map(|f| format!("gen/{f}")).collect();
        sources.push("Program.cs".into());
        testkit::run(
            Command::new(&mcs)
                .current_dir(root)
                .args([
                    "-langversion:7.2",
                    "-warnaserror",
                    "-nowarn:1591",
                    "-doc:doc.xml",
                    "-out:t.exe",
                ])
                .args(&sources),
        );

        let data = testkit::data(&p);
        let data_dir = root.join("data");
        std::fs::create_dir(&data_dir).unwrap();
        for (name, json) in &data {
            std::fs::write(data_dir.join(format!("{name}.json")), json).unwrap();
        }
        let out_dir = root.join("out");
        std::fs::create_dir(&out_dir).unwrap();
        let report = testkit::run(
            Command::new(&mono)
                .current_dir(root)
                .args(["t.exe", "load", "data", "out"]),
        );
        for (name, json) in &testkit::canonical(&p) {
            let got = std::fs::read_to_string(out_dir.join(format!("{name}.json"))).unwrap();
            assert_eq!(&got, json, "canonical JSON of {name} differs");
        }
        assert_eq!(
            report,
            "Pawn|Forward|PieceTypeId(1)|True|False|MoveId(Pawn, Silver, 1)|3|12|second|True|False|0|64|PieceType has no row with key PieceTypeId(9)"
        );
        assert_eq!(
            std::fs::read_to_string(out_dir.join("refs.txt")).unwrap(),
            "True|True|Pawn|1|65535|2|2265535|0|222|221True|31True65535|22True|21655350|2True|FalseTrueTrue6Const.json"
        );

        // Broken data: each case changes one file and must fail with a message naming the problem.
        testkit::check_broken_data(root, &data, testkit::Loader::CSharp, |case_dir| {
            Command::new(&mono)
                .current_dir(root)
                .args(["t.exe", "load"])
                .arg(case_dir)
                .arg(&out_dir)
                .output()
                .unwrap()
        });

        // Doubles: FormatDouble against ryu-js (what canonical.rs uses).
        let doubles = testkit::doubles();
        let input: String = doubles
            .iter()
            .map(|d| {
                let mut canon = String::new();
                canonical::write_f64(&mut canon, *d);
                let canon = if *d == 0.0 { format!("{d:e}") } else { canon };
                format!("{:016x} {canon} {d:e} {d}\n", d.to_bits())
            })
            .collect();
        std::fs::write(root.join("doubles.txt"), input).unwrap();
        testkit::run(Command::new(&mono).current_dir(root).args([
            "t.exe",
            "doubles",
            "doubles.txt",
            "doubles.out",
        ]));
        let got = std::fs::read_to_string(root.join("doubles.out")).unwrap();
        for (d, line) in doubles.iter().zip(got.lines()) {
            let mut want = String::new();
            canonical::write_f64(&mut want, *d);
            assert_eq!(line, want, "FormatDouble({d:e}) bits {:016x}", d.to_bits());
        }
        assert_eq!(got.lines().count(), doubles.len());
    }
}
