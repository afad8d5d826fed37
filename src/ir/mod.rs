//! **ir/** owns the typed model every stage shares: types, values, key order, canonical JSON, date-time
//! forms and the localization view. It is a base module: it imports no stage.
//!
//! The typed intermediate representation (IR): what every emitter reads.
//!
//! Built by [`crate::schema`] (types, from `schema/*.schema.json`) and [`crate::typing`] (values, from the
//! table cells). The IR is language-neutral: identifiers are *source* names (column headers, `$defs` keys,
//! enum members); each emitter maps them through [`crate::naming`].
//!
//! Invariants the builders guarantee (emitters rely on them):
//! * `Project::tables` is sorted by table name; `enums` and `records` by type name;
//! * every `Value` in a row matches the field's [`Type`] (an `Optional` may be `Value::Null`);
//! * rows of a [`TableMode::Map`] table are sorted by primary key (unless [`Table::source_order`]) and the
//!   key is unique;
//! * a [`TableMode::One`] table has exactly one row.

pub mod canonical;
pub mod text;
pub mod time;

use std::collections::BTreeMap;

/// Integer width of a generated integer field, picked from JSON Schema `minimum`/`maximum` or `format`
/// (see docs/conventions.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntWidth {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
}

impl IntWidth {
    /// Inclusive range `(min, max)` of the width.
    pub fn range(self) -> (i128, i128) {
        match self {
            IntWidth::I8 => (i8::MIN as i128, i8::MAX as i128),
            IntWidth::I16 => (i16::MIN as i128, i16::MAX as i128),
            IntWidth::I32 => (i32::MIN as i128, i32::MAX as i128),
            IntWidth::I64 => (i64::MIN as i128, i64::MAX as i128),
            IntWidth::U8 => (0, u8::MAX as i128),
            IntWidth::U16 => (0, u16::MAX as i128),
            IntWidth::U32 => (0, u32::MAX as i128),
            IntWidth::U64 => (0, u64::MAX as i128),
        }
    }
    /// True for the 64-bit widths (TypeScript maps these to `bigint`).
    pub fn is_64(self) -> bool {
        matches!(self, IntWidth::I64 | IntWidth::U64)
    }
    /// Rust spelling: `i8` … `u64`.
    pub fn rust_name(self) -> &'static str {
        match self {
            IntWidth::I8 => "i8",
            IntWidth::I16 => "i16",
            IntWidth::I32 => "i32",
            IntWidth::I64 => "i64",
            IntWidth::U8 => "u8",
            IntWidth::U16 => "u16",
            IntWidth::U32 => "u32",
            IntWidth::U64 => "u64",
        }
    }
    /// C# spelling: `sbyte`, `short`, `int`, `long`, `byte`, `ushort`, `uint`, `ulong`.
    pub fn csharp_name(self) -> &'static str {
        match self {
            IntWidth::I8 => "sbyte",
            IntWidth::I16 => "short",
            IntWidth::I32 => "int",
            IntWidth::I64 => "long",
            IntWidth::U8 => "byte",
            IntWidth::U16 => "ushort",
            IntWidth::U32 => "uint",
            IntWidth::U64 => "ulong",
        }
    }
    /// Smallest width holding `[min, max]`, preferring signed `i32` when no bound is given.
    pub fn for_bounds(min: Option<i128>, max: Option<i128>) -> IntWidth {
        match (min, max) {
            (None, None) => IntWidth::I32,
            (lo, hi) => {
                let lo = lo.unwrap_or(i32::MIN as i128);
                let hi = hi.unwrap_or(i32::MAX as i128);
                let order: &[IntWidth] = if lo >= 0 {
                    &[IntWidth::U8, IntWidth::U16, IntWidth::U32, IntWidth::U64]
                } else {
                    &[IntWidth::I8, IntWidth::I16, IntWidth::I32, IntWidth::I64]
                };
                // Prefer i32 over u32 for unbounded-above non-negative ints.
                for w in order {
                    let (a, b) = w.range();
                    if lo >= a && hi <= b {
                        return *w;
                    }
                }
                IntWidth::I64
            }
        }
    }
}

/// A field type. `Enum` and `Record` name entries of [`Project::enums`] / [`Project::records`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Bool,
    Int(IntWidth),
    /// IEEE 754 binary64.
    Float,
    String,
    /// A generated enum, by type name (key of [`Project::enums`]).
    Enum(String),
    /// A generated record (nested object), by type name (key of [`Project::records`]).
    Record(String),
    Array(Box<Type>),
    /// Nullable or not `required`: the value may be [`Value::Null`].
    Optional(Box<Type>),
    /// A map (JSON object with free keys, `additionalProperties`): key type (`String` or `Int`), value type.
    Map(Box<Type>, Box<Type>),
    /// A polymorphic record (`oneOf` of objects with a discriminator), by type name (key of
    /// [`Project::unions`]).
    Union(String),
    /// A set of members of the enum (by type name), `x-gentable-flags`.
    Flags(String),
    /// An instant (`format: date-time`), whole seconds since the Unix epoch, UTC. The offset (seconds east
    /// of UTC) is `x-gentable-timeZone`: it applies to cells written without an offset.
    DateTime(Option<i32>),
    /// A duration (`format: duration`), whole milliseconds.
    Duration,
    /// A calendar date (`format: date`, RFC 3339 `full-date`), no time zone: days since 1970-01-01.
    Date,
    /// A time of day (`format: time`, RFC 3339 `full-time`), whole seconds since midnight UTC. The offset
    /// (seconds east of UTC) is `x-gentable-timeZone`: it applies to cells written without an offset.
    Time(Option<i32>),
    /// Any JSON value ([`Value::Json`]): a schema that allows every value (`true`, `{}`), the members of an
    /// object or the items of an array that the schema does not type, or an `enum`/`const` of mixed kinds.
    /// Its cells are written as JSON (docs/conventions.md §3); its numbers are IEEE 754 doubles.
    Json,
    /// A scalar union (`"type": ["integer", "string"]`, `anyOf`/`oneOf` of scalar types), by type name (key
    /// of [`Project::choices`]): the value is one of the members, told apart by its JSON kind.
    Choice(String),
}

impl Type {
    /// The type in words for messages: "an integer", "a list of strings"…
    pub fn words(&self) -> String {
        match self {
            Type::Bool => "a boolean".into(),
            Type::Int(_) => "an integer".into(),
            Type::Float => "a number".into(),
            Type::String => "a string".into(),
            Type::Enum(n) => format!("a {n}"),
            Type::Record(n) => format!("a {n}"),
            Type::Array(i) => format!(
                "a list of {}",
                i.words().trim_start_matches("a ").trim_start_matches("an ")
            ),
            Type::Optional(i) => format!("{} or nothing", i.words()),
            Type::Map(k, v) => format!(
                "a map from {} to {}",
                k.words().trim_start_matches("a ").trim_start_matches("an "),
                v.words().trim_start_matches("a ").trim_start_matches("an ")
            ),
            Type::Union(n) => format!("a {n}"),
            Type::Flags(n) => format!("a set of {n}"),
            Type::DateTime(_) => "a date and time".into(),
            Type::Duration => "a duration".into(),
            Type::Date => "a date".into(),
            Type::Time(_) => "a time of day".into(),
            Type::Json => "a JSON value".into(),
            Type::Choice(n) => format!("a {n}"),
        }
    }
}

impl Type {
    /// The type without an outer `Optional`.
    pub fn strip_optional(&self) -> &Type {
        match self {
            Type::Optional(t) => t,
            t => t,
        }
    }
}

/// The text of a [`Value::Str`] or [`Value::Enum`]: a `compact_str::CompactString`, the size of a `String`,
/// holding up to 24 bytes inline. It dereferences to `&str`; build one with `Text::from(&str)` or `.into()`.
pub type Text = compact_str::CompactString;

/// A typed value. Integers are held as `i128` so that every width (incl. `u64`) fits.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Absent optional / JSON `null`. Omitted from canonical JSON.
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    /// A string: up to 24 bytes of UTF-8 (an id, a short name, eight CJK characters) inline, longer ones on
    /// the heap ([`Text`]), so most short strings of a big table cost no allocation (issue 18).
    Str(Text),
    /// Enum member by source name (inline: member names are short).
    Enum(Text),
    Array(Vec<Value>),
    /// Record fields in the record's declared field order.
    Record(Vec<Value>),
    /// Map entries sorted by key (integers numerically, strings by UTF-8 bytes); keys unique.
    Map(Vec<(Value, Value)>),
    /// A union value: the variant's tag (discriminator value) and its fields in declared order. Boxed, like
    /// [`Value::Json`], so that a `Value` is 32 bytes: every typed cell of a build is one (issue 18).
    Union(Box<UnionValue>),
    /// Seconds since 1970-01-01T00:00:00Z.
    DateTime(i64),
    /// Milliseconds.
    Duration(i64),
    /// Days since 1970-01-01 (proleptic Gregorian), years 0001–9999.
    Date(i64),
    /// Seconds since midnight UTC, `0..86_400`.
    Time(u32),
    /// A [`Type::Json`] value. Its numbers are finite doubles that print as written (an integer beyond
    /// ±2^53 only when its double prints it back digit for digit), its objects have unique member names.
    Json(Box<serde_json::Value>),
}

/// The payload of [`Value::Union`].
#[derive(Clone, Debug, PartialEq)]
pub struct UnionValue {
    /// The variant's tag (its discriminator value).
    pub tag: String,
    /// The variant's fields in declared order.
    pub values: Vec<Value>,
}

impl Value {
    /// A union value of variant `tag` with `values` in declared field order.
    pub fn union(tag: String, values: Vec<Value>) -> Value {
        Value::Union(Box::new(UnionValue { tag, values }))
    }
    /// A [`Type::Json`] value.
    pub fn json(v: serde_json::Value) -> Value {
        Value::Json(Box::new(v))
    }
}

/// One field of a table row or record.
#[derive(Clone, Debug)]
pub struct Field {
    /// Source name: the column header / schema property key.
    pub name: String,
    /// Identifier override from `x-gentable-name`.
    pub ident: Option<String>,
    pub ty: Type,
    /// From the schema's `description` (may be empty).
    pub doc: String,
    /// `x-gentable-foreignKey` targets: `(table, field)`; field `None` = the table's primary key. They apply to
    /// the value's scalars: the value, each element of an array, each value of a map.
    pub foreign_keys: Vec<(String, Option<String>)>,
    /// `x-gentable-foreignKey` on a map's keys (`x-gentable-mapKey`).
    pub key_foreign_keys: Vec<(String, Option<String>)>,
    /// The schema's `default`, taken by an empty cell (and by a trailing record field left out).
    pub default: Option<serde_json::Value>,
    /// `x-gentable-groups`: the export groups this field belongs to (empty = every group).
    pub groups: Vec<String>,
    /// `x-gentable-text`: the value is a key of the localization table.
    pub text: bool,
    /// `x-gentable-separator` of the property: the characters that split this field's value in Luban's
    /// stream form (`#sep=` in Luban; `typing/cell/stream.rs`). Any of them separates.
    pub separator: Option<String>,
    /// `x-gentable-separator` of its `items` (arrays) or `additionalProperties` (maps): the next level.
    pub item_separator: Option<String>,
    /// `x-gentable-aliases`: other header texts that name this field's column (Luban's `alias=`: a sheet
    /// may head the column `name2` for the field `name`). A header equal to a field's name names that field
    /// first; an alias is looked up only when no field has the header's name.
    pub aliases: Vec<String>,
}

impl Field {
    /// A field named `name` of type `ty`, with no documentation, foreign key, default, export group or text
    /// role (what tests and hand-built projects start from).
    pub fn new(name: &str, ty: Type) -> Field {
        Field {
            name: name.into(),
            ident: None,
            ty,
            doc: String::new(),
            foreign_keys: vec![],
            key_foreign_keys: vec![],
            default: None,
            groups: vec![],
            text: false,
            separator: None,
            item_separator: None,
            aliases: vec![],
        }
    }

    /// The field of `fields` that a header (or a vertical sheet's name cell) `h` names: the one whose name is
    /// `h`, else the first whose `x-gentable-aliases` hold it.
    pub fn position_of(fields: &[Field], h: &str) -> Option<usize> {
        fields
            .iter()
            .position(|f| f.name == h)
            .or_else(|| fields.iter().position(|f| f.aliases.iter().any(|a| a == h)))
    }

    /// For a header (or a vertical sheet's name cell) `h` that names no field: the field name or
    /// `x-gentable-aliases` entry of `fields` closest to it ([`crate::diag::closest`]), with the field it
    /// names — names before aliases, so a name wins a tie. A misspelt alias (`攻击率` for the alias `攻击力`)
    /// is offered as that alias, the text the designer meant to type.
    pub fn closest_header<'a>(fields: &'a [Field], h: &str) -> Option<(&'a str, &'a Field)> {
        let names = fields.iter().map(|f| (f.name.as_str(), f));
        let aliases = fields
            .iter()
            .flat_map(|f| f.aliases.iter().map(move |a| (a.as_str(), f)));
        let all: Vec<(&str, &Field)> = names.chain(aliases).collect();
        let c = crate::diag::closest(h, all.iter().map(|(t, _)| *t))?;
        all.into_iter().find(|(t, _)| *t == c)
    }
}

/// A generated enum type (a JSON Schema string `enum`).
#[derive(Clone, Debug)]
pub struct EnumDef {
    pub name: String,
    pub doc: String,
    /// Members in declaration order (their source names).
    pub members: Vec<String>,
    /// `x-gentable-enumAliases`: other names a cell may use, `(alias, member)`.
    pub aliases: Vec<(String, String)>,
    /// `x-gentable-enumValues`: one integer per member (declaration order), unique; `None` = members are
    /// numbered 0, 1, 2… in declaration order (and the generated code exposes no values).
    pub values: Option<Vec<i64>>,
    /// `x-gentable-name` on the enum: per member, an identifier used verbatim in every language instead of
    /// the naming rule (Luban's `DIAMOND` stays `DIAMOND`); empty = the naming rule for every member.
    pub idents: Vec<Option<String>>,
    /// Where it was declared, e.g. `common.schema.json#/$defs/Side`.
    pub origin: String,
}

impl EnumDef {
    /// The verbatim identifier of member `i` (`x-gentable-name`), if one was given.
    pub fn ident(&self, i: usize) -> Option<&str> {
        self.idents.get(i).and_then(|o| o.as_deref())
    }
    /// The integer value of member `i`: its `x-gentable-enumValues` entry, else its position.
    pub fn value(&self, i: usize) -> i64 {
        self.values
            .as_ref()
            .and_then(|v| v.get(i).copied())
            .unwrap_or(i as i64)
    }
}

/// A generated record type (a JSON Schema `object` below the row level, or a `prefixItems` tuple).
#[derive(Clone, Debug)]
pub struct RecordDef {
    pub name: String,
    pub doc: String,
    pub fields: Vec<Field>,
    pub origin: String,
    /// How the record is written as JSON.
    pub form: RecordForm,
}

/// The JSON shape of a [`RecordDef`] (docs/conventions.md §4 "Records, tuples and open records").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RecordForm {
    /// A JSON object with exactly the declared members (`properties`; no `additionalProperties`): an
    /// undeclared member is an error.
    #[default]
    Closed,
    /// A JSON object whose undeclared members (`additionalProperties`, `patternProperties` or
    /// `unevaluatedProperties` allow them) are kept in the last field, named [`EXTRA_FIELD`], a
    /// [`Type::Map`] from member name to value.
    Open,
    /// A JSON array (`prefixItems`): field `i` (named `"0"`, `"1"`, …) is element `i`. Elements from `min`
    /// (`minItems`) on may be absent, only at the end ([`Value::Null`] there means absent). With `rest`,
    /// the last field, named [`REST_FIELD`], is a [`Type::Array`] of the elements after the prefix (`items`).
    Tuple { min: usize, rest: bool },
}

/// Source name of the field of an [`RecordForm::Open`] record that holds its undeclared members.
pub const EXTRA_FIELD: &str = "additionalProperties";
/// Source name of the field of a [`RecordForm::Tuple`] that holds the elements after the prefix.
pub const REST_FIELD: &str = "items";

impl RecordDef {
    /// A closed record (a JSON object with exactly `fields`).
    pub fn closed(name: &str, fields: Vec<Field>) -> RecordDef {
        RecordDef {
            name: name.into(),
            doc: String::new(),
            fields,
            origin: String::new(),
            form: RecordForm::Closed,
        }
    }
    /// The declared fields: all but the extra-members map of an open record and the rest of a tuple.
    pub fn declared(&self) -> &[Field] {
        match self.form {
            RecordForm::Open | RecordForm::Tuple { rest: true, .. } => {
                &self.fields[..self.fields.len().saturating_sub(1)]
            }
            _ => &self.fields,
        }
    }
}

/// A scalar union type ([`Type::Choice`]): `members` are scalar types of distinct JSON kinds (at most one
/// boolean, one number — [`Type::Int`] or [`Type::Float`] — and one string — [`Type::String`] or
/// [`Type::Enum`]), in that order, so a value's kind names its member.
#[derive(Clone, Debug)]
pub struct ChoiceDef {
    pub name: String,
    pub doc: String,
    pub members: Vec<Type>,
    pub origin: String,
}

impl ChoiceDef {
    /// The members in words: "a boolean, an integer or a string".
    pub fn words(&self) -> String {
        if self.members.is_empty() {
            return "nothing".into();
        }
        crate::diag::lang::word_list(
            crate::diag::list::Joiner::Or,
            self.members.iter().map(Type::words),
        )
    }

    /// The member that holds `v`, if any.
    pub fn member_of(&self, v: &Value) -> Option<&Type> {
        self.members.iter().find(|m| {
            matches!(
                (m, v),
                (Type::Bool, Value::Bool(_))
                    | (Type::Int(_), Value::Int(_))
                    | (Type::Float, Value::Float(_) | Value::Int(_))
                    | (Type::String, Value::Str(_))
                    | (Type::Enum(_), Value::Enum(_))
            )
        })
    }
}

/// A polymorphic record type: a JSON Schema `oneOf` of object schemas told apart by a discriminator
/// property whose value (`const`) names the variant.
#[derive(Clone, Debug)]
pub struct UnionDef {
    pub name: String,
    pub doc: String,
    /// The discriminator property (`x-gentable-discriminator`), e.g. `kind`.
    pub discriminator: String,
    /// Variants in declaration order.
    pub variants: Vec<Variant>,
    pub origin: String,
}

/// One variant of a [`UnionDef`].
#[derive(Clone, Debug)]
pub struct Variant {
    /// The discriminator value (the branch's `const`), also the variant's source name.
    pub tag: String,
    pub doc: String,
    /// Fields other than the discriminator, in `properties` order.
    pub fields: Vec<Field>,
}

impl UnionDef {
    pub fn variant(&self, tag: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.tag == tag)
    }
}

/// How rows are addressed (`x-gentable-mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableMode {
    /// Keyed by the primary key; sorted by it.
    Map,
    /// No key; source order.
    List,
    /// Exactly one row (singleton, e.g. Const).
    One,
}

impl TableMode {
    /// The mode as its `x-gentable-mode` keyword: `map`, `list` or `one`.
    pub fn keyword(self) -> &'static str {
        match self {
            TableMode::Map => "map",
            TableMode::List => "list",
            TableMode::One => "one",
        }
    }
}

/// One table: schema-derived shape plus typed rows.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    pub doc: String,
    pub mode: TableMode,
    pub fields: Vec<Field>,
    /// Indexes into `fields` of the primary key (empty unless `Map`).
    pub primary_key: Vec<usize>,
    /// Secondary unique keys (indexes into `fields`).
    pub unique_keys: Vec<Vec<usize>>,
    pub rows: Vec<Row>,
    /// Schema file name, e.g. `PieceType.schema.json`.
    pub schema_file: String,
    /// `x-gentable-groups` of the table (empty = every group).
    pub groups: Vec<String>,
    /// `[tables.X] order = "source"`: a map table keeps the sheet's row order (what `all()` iterates and
    /// canonical data lists); keys are then looked up through an index sorted by key. `false`: rows sorted
    /// by primary key.
    pub source_order: bool,
}

/// A typed row with where it came from.
#[derive(Clone, Debug)]
pub struct Row {
    /// One value per [`Table::fields`] entry.
    pub values: Vec<Value>,
    pub origin: crate::diag::RowOrigin,
    /// Per field: the 0-based column it was read from (shared by all rows of one source).
    pub columns: std::sync::Arc<[Option<usize>]>,
    /// Row tags from `[tables.X] tag_column` (Luban's `dev`, `test` in column A); outputs choose rows by them
    /// (`include_tags`, `exclude_tags`). Empty for untagged rows.
    pub tags: Vec<String>,
    /// What typing knows beyond the values, for the few rows that need it (`None` for almost every row).
    pub extra: Option<Box<RowExtra>>,
}

/// The facts of a [`Row`] that few rows have: fields whose cell failed to type, and the column of each
/// element of an array spread over several columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowExtra {
    /// Indexes of the fields whose cell was reported as bad: their value is `Null` and every later check
    /// leaves them out (docs/diagnostics.md "What is checked").
    pub failed: Vec<usize>,
    /// `(field, column of each element)` for array fields whose elements come from several columns
    /// (repeated or merged headers), so a finding about one element names its own cell.
    pub elements: Vec<(usize, Vec<usize>)>,
}

impl Row {
    /// A row of `values` that came from no source (what tests and hand-built projects start from).
    pub fn new(values: Vec<Value>) -> Row {
        Row {
            values,
            origin: Default::default(),
            columns: std::sync::Arc::from(Vec::new()),
            tags: vec![],
            extra: None,
        }
    }

    /// The column of field `i`, if it had one.
    pub fn column(&self, i: usize) -> Option<usize> {
        self.columns.get(i).copied().flatten()
    }
    /// The column of element `e` of field `i` (an array over several columns), else the field's column.
    pub fn element_column(&self, i: usize, e: usize) -> Option<usize> {
        self.extra
            .as_ref()
            .and_then(|x| x.elements.iter().find(|(f, _)| *f == i))
            .and_then(|(_, cols)| cols.get(e).copied())
            .or_else(|| self.column(i))
    }
    /// Whether the cell of field `i` failed to type (its value is `Null` and later checks skip it).
    pub fn failed(&self, i: usize) -> bool {
        self.extra.as_ref().is_some_and(|x| x.failed.contains(&i))
    }
    /// Whether any cell of the row failed to type.
    pub fn any_failed(&self) -> bool {
        self.extra.as_ref().is_some_and(|x| !x.failed.is_empty())
    }
}

/// The whole typed project.
#[derive(Clone, Debug, Default)]
pub struct Project {
    pub name: String,
    pub tables: Vec<Table>,
    pub enums: BTreeMap<String, EnumDef>,
    pub records: BTreeMap<String, RecordDef>,
    pub unions: BTreeMap<String, UnionDef>,
    /// `x-gentable-separator` of record and union definitions (Luban's bean `sep`), by type name.
    pub separators: BTreeMap<String, String>,
    /// `x-gentable-kindAliases` of unions: `(alias, tag)` other names a cell may give a kind (Luban's bean
    /// `alias`: `圆` for `Circle`), by union name. Canonical data and code know the tags only.
    pub kind_aliases: BTreeMap<String, Vec<(String, String)>>,
    /// Scalar unions ([`Type::Choice`]), by type name.
    pub choices: BTreeMap<String, ChoiceDef>,
}

impl Project {
    /// The variant of union `name` whose tag, or one of whose `x-gentable-kindAliases`, is `tag`.
    pub fn union_variant(&self, name: &str, tag: &str) -> Option<&Variant> {
        let u = self.unions.get(name)?;
        u.variant(tag).or_else(|| {
            let (_, real) = self
                .kind_aliases
                .get(name)?
                .iter()
                .find(|(a, _)| a == tag)?;
            u.variant(real)
        })
    }

    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// Every field type of tables, records and union variants (not descending into types).
    pub fn all_field_types(&self) -> Vec<&Type> {
        let mut out: Vec<&Type> = vec![];
        for t in &self.tables {
            out.extend(t.fields.iter().map(|f| &f.ty));
        }
        for r in self.records.values() {
            out.extend(r.fields.iter().map(|f| &f.ty));
        }
        for u in self.unions.values() {
            for v in &u.variants {
                out.extend(v.fields.iter().map(|f| &f.ty));
            }
        }
        out
    }

    /// Enums used as flags (`Type::Flags`) anywhere.
    pub fn flag_enums(&self) -> std::collections::BTreeSet<String> {
        let mut set = std::collections::BTreeSet::new();
        for t in self.all_field_types() {
            t.visit(&mut |t| {
                if let Type::Flags(e) = t {
                    set.insert(e.clone());
                }
            });
        }
        set
    }
}

impl Type {
    /// Call `f` on this type and every type inside it (array items, optionals, map keys and values).
    pub fn visit(&self, f: &mut dyn FnMut(&Type)) {
        f(self);
        match self {
            Type::Array(t) | Type::Optional(t) => t.visit(f),
            Type::Map(k, v) => {
                k.visit(f);
                v.visit(f);
            }
            _ => {}
        }
    }
}

impl Table {
    /// A table named `name` of `fields` with no documentation, key, row or export group; its schema file is
    /// `<name>.schema.json` (what tests and hand-built projects start from).
    pub fn new(name: &str, mode: TableMode, fields: Vec<Field>) -> Table {
        Table {
            name: name.into(),
            doc: String::new(),
            mode,
            fields,
            primary_key: vec![],
            unique_keys: vec![],
            rows: vec![],
            schema_file: format!("{name}.schema.json"),
            groups: vec![],
            source_order: false,
        }
    }

    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// Order of key values: integers numerically, strings by bytes, enums by value (declaration order unless
/// `x-gentable-enumValues`), false < true.
/// The generated Rust lookup relies on this order (it is `Ord` of the generated key types).
pub fn cmp_key(project: &Project, ty: &Type, a: &Value, b: &Value) -> std::cmp::Ordering {
    match (ty.strip_optional(), a, b) {
        (_, Value::Int(x), Value::Int(y)) => x.cmp(y),
        (_, Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Type::Enum(name), Value::Enum(x), Value::Enum(y)) => {
            // By value: declaration order, or `x-gentable-enumValues` (what Rust's derived `Ord` of an enum
            // with explicit discriminants compares).
            let e = &project.enums[name];
            let value = |m: &Text| {
                e.members
                    .iter()
                    .position(|v| v == m.as_str())
                    .map(|i| e.value(i))
            };
            value(x).cmp(&value(y))
        }
        (_, Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (_, Value::Null, Value::Null) => std::cmp::Ordering::Equal,
        (_, Value::Null, _) => std::cmp::Ordering::Less,
        (_, _, Value::Null) => std::cmp::Ordering::Greater,
        _ => std::cmp::Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    /// Every typed cell of a build is a `Value` (10 million of them for a 1,000,000-row table): keep it at
    /// 32 bytes (`i128` and a `String` inline, unions and JSON values boxed). It was 80 bytes while
    /// `Value::Json` held a `serde_json::Value` inline (docs/performance.md, issue 18).
    #[test]
    fn a_typed_value_is_32_bytes() {
        assert_eq!(std::mem::size_of::<super::Value>(), 32);
    }
}
