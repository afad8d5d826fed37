//! A table's JSON Schema checked on typed rows directly (issue 18), without building a `serde_json::Value`
//! per row: a [`Plan`] is computed once per table schema and decides every row of a *covered* table
//! exactly as the `jsonschema` crate would decide its JSON instance ([`super::json_schema::row_to_json`]).
//!
//! The plan sorts every keyword of the table's schema (through `$ref`s, `allOf` members, `properties`,
//! `items` and `additionalProperties`, at any depth) into three groups ([`Group`]):
//!
//! * **guaranteed by typing** ([`Group::Typing`]): `minimum`/`maximum`/`exclusive*` that the integer
//!   width of the field implies (typing refuses a cell outside the width, GT0202), `type` where the field's IR type only makes JSON values of
//!   the allowed kinds (an `Int` is always an integer, a `String` or an `Enum` a string, a closed record an
//!   object, …; a nullable field also allows `null` or it is checked), `enum` on an `Enum` field whose members
//!   are all listed, and `additionalProperties` of a row or record whose every field is in `properties`
//!   beside it (the instance has no other member);
//! * **checked natively** ([`Group::Native`]) on `ir::Value`: `type` otherwise, `minimum`, `maximum`,
//!   `exclusiveMinimum`, `exclusiveMaximum` (exact comparison of integers and doubles, as JSON numbers
//!   compare), `multipleOf` with an integer divisor on integers, `minLength`/`maxLength` (Unicode scalar
//!   values), `enum`/`const` (JSON equality: `1` equals `1.0`), `items`, `minItems`, `maxItems`,
//!   `uniqueItems` (JSON equality), `properties`, `required`, `additionalProperties`, `minProperties`,
//!   `maxProperties` on records and maps, `$ref` and `allOf` (every part holds); and, through a small
//!   `jsonschema` validator of the one keyword built with the table's options (so the ECMA-262 regex
//!   translation, the format checkers and the float arithmetic are the crate's own), `pattern`, `format`
//!   and `multipleOf` otherwise;
//! * **not covered** ([`Group::Uncovered`]): every other keyword (`oneOf`, `anyOf`, `not`, `if`/`then`/
//!   `else`, `contains`, `dependent*`, `unevaluated*`, `patternProperties`, `propertyNames`, `prefixItems`,
//!   content keywords, an unknown keyword…), a `false` schema, a `$ref` that does not resolve or recurses,
//!   and fields whose IR value the checker does not walk (JSON values, scalar unions, polymorphic records,
//!   flags, tuples and open records).
//!
//! A table is *covered* when its schema has no keyword of the third group. A covered table's row passes when
//! the plan says so ([`Plan::check`] gives `Some(true)`); any other answer (a finding, an undecidable
//! comparison, a row with a failed cell) sends the row through the `jsonschema` validator, whose findings
//! are the diagnostics, so their text, location and order are those of the validator. `tests/native_validation.rs`
//! runs both paths on the torture set, the fidelity suite, every example project, FunnyPitch, generated
//! boundary rows and the JSON Schema Test Suite, and asserts that they agree.

use crate::ir::{Project, RecordForm, Row, Type, Value};
use crate::schema::{SchemaSet, TableSchema, ANNOTATIONS};
use referencing::{Draft, Resolver, ResourceRef};
use serde_json::Value as J;
use std::cmp::Ordering;

/// How deep `$ref`s and nested schemas may go before the plan gives up on a table (a recursive schema).
const MAX_DEPTH: usize = 32;

/// The options every `jsonschema` validator of a build is made with: offline, draft 2020-12, formats checked
/// as the schema folder says, gentable's `duration` grammar (`typing::cell::time::parse_duration`).
pub fn options(formats: bool) -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .offline()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(formats)
        .with_format("duration", duration_format)
}

/// `format: duration` is gentable's duration grammar (ISO 8601 or units, docs/conventions.md §3), the one
/// its duration fields are read with; their canonical text (`PT5400S`, `-PT0.500S`) passes it.
fn duration_format(s: &str) -> bool {
    crate::typing::cell::time::parse_duration(s).is_ok()
}

/// Which group a keyword of a table's schema is in (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Typing makes every value satisfy it: not checked again.
    Typing,
    /// Decided on the typed value.
    Native,
    /// Neither: the table is validated by `jsonschema` alone.
    Uncovered,
}

/// One keyword of a table's schema and its [`Group`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keyword {
    /// Where it is: the schema file and JSON pointer (`Item.schema.json#/properties/level`).
    pub at: String,
    pub keyword: String,
    pub group: Group,
}

/// JSON kinds as bits (`integer` is a number with no fraction, so an integral number has both bits).
const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const INTEGER: u8 = 4;
const NUMBER: u8 = 8;
const STRING: u8 = 16;
const ARRAY: u8 = 32;
const OBJECT: u8 = 64;

fn kind_bits(name: &str) -> Option<u8> {
    Some(match name {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "integer" => INTEGER,
        "number" => NUMBER | INTEGER,
        "string" => STRING,
        "array" => ARRAY,
        "object" => OBJECT,
        _ => return None,
    })
}

/// A JSON number of the schema: an integer exactly, or a double.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn of(n: &serde_json::Number) -> Option<Num> {
        if let Some(i) = n.as_i64() {
            Some(Num::Int(i as i128))
        } else if let Some(u) = n.as_u64() {
            Some(Num::Int(u as i128))
        } else {
            n.as_f64().filter(|f| f.is_finite()).map(Num::Float)
        }
    }
}

/// `i` against `f`, exactly (no rounding of `i` to a double).
fn cmp_int_float(i: i128, f: f64) -> Ordering {
    let fl = f.floor();
    if fl >= 1.7e38 {
        return Ordering::Less;
    }
    if fl <= -1.7e38 {
        return Ordering::Greater;
    }
    match i.cmp(&(fl as i128)) {
        Ordering::Equal if f > fl => Ordering::Less,
        o => o,
    }
}

fn cmp_num(a: Num, b: Num) -> Ordering {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Int(x), Num::Float(y)) => cmp_int_float(x, y),
        (Num::Float(x), Num::Int(y)) => cmp_int_float(y, x).reverse(),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// The compiled checks of one schema node against one IR type.
#[derive(Default)]
struct Check {
    /// `type`: the allowed kinds (`None`: no `type`, or typing guarantees it).
    kinds: Option<u8>,
    /// Lower and upper bounds: (limit, exclusive).
    lower: Vec<(Num, bool)>,
    upper: Vec<(Num, bool)>,
    /// `multipleOf` with an integer divisor (on integer values; other values go to `numbers`).
    multiple_of: Option<i128>,
    /// `jsonschema` for number keywords decided by its own arithmetic (`multipleOf` with a fraction, or on
    /// a double value).
    numbers: Option<jsonschema::Validator>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    /// `jsonschema` for `pattern` and `format`, applied to strings.
    strings: Option<jsonschema::Validator>,
    /// `enum` (every listed value) and `const` (a one-value list).
    one_of_values: Vec<Vec<J>>,
    items: Option<Box<Check>>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique_items: bool,
    /// Object members: (field index, field type, check) per `properties` entry that names a field.
    properties: Vec<(usize, Type, Check)>,
    /// `required`: field indexes; `None` entries name no field (never present).
    required: Vec<Option<usize>>,
    /// `required` as names, for maps (their keys' text).
    required_names: Vec<String>,
    /// `additionalProperties` on the fields outside `properties`: (field index, field type, check).
    additional: Vec<(usize, Type, Check)>,
    /// `additionalProperties` on a map's entries.
    entries: Option<Box<Check>>,
    min_properties: Option<u64>,
    max_properties: Option<u64>,
    /// `additionalProperties: false` (a member outside `properties` fails).
    nothing: bool,
    /// `$ref` targets and `allOf` members.
    all: Vec<Check>,
}

/// The validation plan of one table (see the module documentation).
pub struct Plan {
    /// The row's check, or why the table is not covered.
    root: Result<Check, String>,
    /// Every keyword met, in schema order, with its group.
    pub keywords: Vec<Keyword>,
}

/// The fields of an object instance: (name, IR type).
type Fields<'t> = Vec<(&'t str, &'t Type)>;

struct Compiler<'p> {
    project: &'p Project,
    formats: bool,
    keywords: Vec<Keyword>,
    /// Whether the row object is being compiled: only object keywords apply to it, and its `type` holds.
    root: bool,
}

impl Plan {
    /// The plan of `ts` (its schema as registered in `set`, its field types in `project`).
    pub fn new(project: &Project, set: &SchemaSet, ts: &TableSchema) -> Plan {
        let mut c = Compiler {
            project,
            formats: set.formats,
            keywords: vec![],
            root: true,
        };
        let root = (|| {
            let registry = set.registry()?;
            let uri = crate::schema::schema_uri(&ts.schema_file);
            let base = referencing::uri::from_str(&uri).map_err(|e| e.to_string())?;
            let res = registry.resolver(base);
            let resolved = res.lookup(&uri).map_err(|e| e.to_string())?;
            let (s, res, _) = resolved.into_inner();
            let fields: Fields = ts.fields.iter().map(|f| (f.name.as_str(), &f.ty)).collect();
            c.row(s, &res, &fields, &format!("{}#", ts.schema_file), 0)
        })();
        Plan {
            root,
            keywords: c.keywords,
        }
    }

    /// `Ok` when every keyword of the table's schema is guaranteed by typing or checked natively; else the
    /// first reason it is not.
    pub fn covered(&self) -> Result<(), &str> {
        self.root.as_ref().map(|_| ()).map_err(String::as_str)
    }

    /// The row against the table's schema: `Some(true)` valid, `Some(false)` invalid (the `jsonschema`
    /// validator finds the same), `None` when the plan cannot say (the table is not covered, a cell of the
    /// row failed to type, or a comparison the plan does not make exactly, such as `uniqueItems` on
    /// records).
    pub fn check(&self, ts: &TableSchema, row: &Row) -> Option<bool> {
        let root = self.root.as_ref().ok()?;
        if row.any_failed() {
            return None;
        }
        // A member of the row's instance: a value, or a required field (`null` when empty).
        let present = |i: usize| row.values[i] != Value::Null || ts.required[i];
        eval_object(root, &row.values, &present, true)
    }
}

impl<'p> Compiler<'p> {
    fn note(&mut self, at: &str, keyword: &str, group: Group) {
        self.keywords.push(Keyword {
            at: at.to_string(),
            keyword: keyword.to_string(),
            group,
        });
    }

    fn refuse(&mut self, at: &str, keyword: &str, why: String) -> Result<Check, String> {
        self.note(at, keyword, Group::Uncovered);
        Err(format!("{at}: {why}"))
    }

    /// A small `jsonschema` validator of `keywords` alone (no `$ref` among them).
    fn mini(&self, keywords: serde_json::Map<String, J>) -> Result<jsonschema::Validator, String> {
        options(self.formats)
            .build(&J::Object(keywords))
            .map_err(|e| e.to_string())
    }

    /// The check of the schema `s` for values of `ty`.
    fn node(
        &mut self,
        s: &J,
        res: &Resolver<'_>,
        ty: &Type,
        at: &str,
        depth: usize,
    ) -> Result<Check, String> {
        let inner = ty.strip_optional();
        let fields: Fields = match inner {
            Type::Record(name) => {
                let rec = &self.project.records[name];
                if rec.form != RecordForm::Closed {
                    return self.refuse(at, "", "an open record or a tuple".into());
                }
                rec.fields
                    .iter()
                    .map(|f| (f.name.as_str(), &f.ty))
                    .collect()
            }
            _ => vec![],
        };
        let walked = matches!(
            inner,
            Type::Bool
                | Type::Int(_)
                | Type::Float
                | Type::String
                | Type::Enum(_)
                | Type::Array(_)
                | Type::Record(_)
                | Type::Map(..)
                | Type::DateTime(_)
                | Type::Date
                | Type::Time(_)
                | Type::Duration
        );
        if !walked {
            // Values the checker does not walk: only a schema with no check at all is covered.
            let trivial = match s {
                J::Bool(true) => true,
                J::Object(o) => o.keys().all(|k| {
                    ANNOTATIONS.contains(&k.as_str()) || k.starts_with(crate::schema::PREFIX)
                }),
                _ => false,
            };
            if trivial {
                return Ok(Check::default());
            }
            return self.refuse(at, "", format!("values of type {}", ty.words()));
        }
        self.root = false;
        self.compile(s, res, ty, &fields, at, depth)
    }

    /// The root object: the row's fields.
    fn row(
        &mut self,
        s: &J,
        res: &Resolver<'_>,
        fields: &Fields,
        at: &str,
        depth: usize,
    ) -> Result<Check, String> {
        // The row is an object whose members are `fields`.
        let row = Type::Record(String::new());
        self.compile(s, res, &row, fields, at, depth)
    }

    fn compile(
        &mut self,
        s: &J,
        res: &Resolver<'_>,
        ty: &Type,
        fields: &Fields,
        at: &str,
        depth: usize,
    ) -> Result<Check, String> {
        if depth > MAX_DEPTH {
            return self.refuse(
                at,
                "$ref",
                "schemas nest too deep (a recursive $ref)".into(),
            );
        }
        let o = match s {
            J::Bool(true) => return Ok(Check::default()),
            J::Object(o) => o,
            _ => return self.refuse(at, "", "a schema that accepts nothing".into()),
        };
        let root = std::mem::replace(&mut self.root, false);
        // A subschema with its own `$id` resolves its `$ref`s from there.
        let res = match o.get("$id").and_then(J::as_str) {
            Some(_) => res
                .in_subresource(ResourceRef::new(s, Draft::Draft202012))
                .map_err(|e| format!("{at}: {e}"))?,
            None => res.clone(),
        };
        let inner = ty.strip_optional();
        let mut c = Check::default();
        let mut numbers = serde_json::Map::new();
        let mut strings = serde_json::Map::new();
        for (k, v) in o {
            let here = format!("{at}/{k}");
            let k = k.as_str();
            if ANNOTATIONS.contains(&k) || k.starts_with(crate::schema::PREFIX) {
                continue;
            }
            const ROOT: &[&str] = &[
                "type",
                "properties",
                "required",
                "additionalProperties",
                "minProperties",
                "maxProperties",
                "$ref",
                "allOf",
            ];
            if root && !ROOT.contains(&k) {
                return self.refuse(&here, k, format!("{k} on the row object"));
            }
            let group = match k {
                "type" => {
                    let names: Vec<&str> = match v {
                        J::String(n) => vec![n.as_str()],
                        J::Array(a) => a.iter().filter_map(J::as_str).collect(),
                        _ => vec![],
                    };
                    let bits: Option<Vec<u8>> = names.iter().map(|n| kind_bits(n)).collect();
                    let Some(bits) = bits.filter(|b| !b.is_empty()) else {
                        return self.refuse(&here, k, "an unusual type".into());
                    };
                    let allowed = bits.iter().fold(0, |a, b| a | b);
                    if root && allowed & OBJECT == 0 {
                        return self.refuse(&here, k, "a row that is not an object".into());
                    }
                    if root || possible_kinds(self.project, ty) & !allowed == 0 {
                        Group::Typing
                    } else {
                        c.kinds = Some(allowed);
                        Group::Native
                    }
                }
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    let Some(n) = v.as_number().and_then(Num::of) else {
                        return self.refuse(&here, k, "a bound that is not a finite number".into());
                    };
                    let exclusive = k.starts_with("exclusive");
                    let lower = k.ends_with("inimum");
                    // Typing keeps every integer inside its width (GT0202): a bound the width implies holds.
                    let implied = match inner {
                        Type::Int(w) => {
                            let (min, max) = w.range();
                            let o = if lower {
                                cmp_num(Num::Int(min), n)
                            } else {
                                cmp_num(n, Num::Int(max))
                            };
                            o == Ordering::Greater || (!exclusive && o == Ordering::Equal)
                        }
                        _ => false,
                    };
                    if implied {
                        Group::Typing
                    } else {
                        if lower {
                            c.lower.push((n, exclusive));
                        } else {
                            c.upper.push((n, exclusive));
                        }
                        Group::Native
                    }
                }
                "multipleOf" => {
                    match v.as_number().and_then(Num::of) {
                        // The crate divides exactly by integers up to 2^53 only.
                        Some(Num::Int(d)) if d > 0 && d <= 1 << 53 => c.multiple_of = Some(d),
                        Some(Num::Int(d)) if d > 0 => {
                            numbers.insert(k.into(), v.clone());
                        }
                        Some(Num::Float(f)) if f > 0.0 => {
                            numbers.insert(k.into(), v.clone());
                        }
                        _ => return self.refuse(&here, k, "an unusual multipleOf".into()),
                    }
                    Group::Native
                }
                "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
                | "maxProperties" => {
                    let Some(n) = v.as_u64() else {
                        return self.refuse(&here, k, "a count that is not a whole number".into());
                    };
                    let slot = match k {
                        "minLength" => &mut c.min_length,
                        "maxLength" => &mut c.max_length,
                        "minItems" => &mut c.min_items,
                        "maxItems" => &mut c.max_items,
                        "minProperties" => &mut c.min_properties,
                        _ => &mut c.max_properties,
                    };
                    *slot = Some(n);
                    Group::Native
                }
                "pattern" | "format" => {
                    strings.insert(k.into(), v.clone());
                    Group::Native
                }
                "enum" | "const" => {
                    let list = match (k, v) {
                        ("const", v) => vec![v.clone()],
                        (_, J::Array(a)) => a.clone(),
                        _ => return self.refuse(&here, k, "an enum that is not an array".into()),
                    };
                    let guaranteed = match inner {
                        Type::Enum(name) => {
                            self.project.enums[name]
                                .members
                                .iter()
                                .all(|m| list.iter().any(|x| x.as_str() == Some(m)))
                                && !matches!(ty, Type::Optional(_))
                        }
                        _ => false,
                    };
                    if guaranteed {
                        Group::Typing
                    } else {
                        c.one_of_values.push(list);
                        Group::Native
                    }
                }
                "uniqueItems" => {
                    c.unique_items = v.as_bool() == Some(true);
                    Group::Native
                }
                "items" => {
                    if let Type::Array(item) = inner {
                        if !(v.is_object() || v.is_boolean()) {
                            return self.refuse(&here, k, "items that is not a schema".into());
                        }
                        c.items = Some(Box::new(self.node(v, &res, item, &here, depth + 1)?));
                    }
                    Group::Native
                }
                "properties" => {
                    let Some(props) = v.as_object() else {
                        return self.refuse(&here, k, "properties that is not an object".into());
                    };
                    if matches!(inner, Type::Map(..)) && !props.is_empty() {
                        return self.refuse(&here, k, "properties on a map".into());
                    }
                    for (name, ps) in props {
                        if let Some(fi) = fields.iter().position(|(n, _)| n == name) {
                            let sub =
                                format!("{here}/{}", name.replace('~', "~0").replace('/', "~1"));
                            let check = self.node(ps, &res, fields[fi].1, &sub, depth + 1)?;
                            c.properties.push((fi, fields[fi].1.clone(), check));
                        }
                    }
                    Group::Native
                }
                "required" => {
                    let Some(names) = v.as_array() else {
                        return self.refuse(&here, k, "required that is not an array".into());
                    };
                    for n in names {
                        let Some(n) = n.as_str() else {
                            return self.refuse(
                                &here,
                                k,
                                "a required name that is not a string".into(),
                            );
                        };
                        c.required.push(fields.iter().position(|(f, _)| *f == n));
                        c.required_names.push(n.to_string());
                    }
                    Group::Native
                }
                "additionalProperties" => {
                    if let Type::Map(_, vt) = inner {
                        c.entries = Some(Box::new(self.node(v, &res, vt, &here, depth + 1)?));
                        Group::Native
                    } else if matches!(inner, Type::Record(_)) {
                        let declared: Vec<&str> = o
                            .get("properties")
                            .and_then(J::as_object)
                            .map(|p| p.keys().map(String::as_str).collect())
                            .unwrap_or_default();
                        let outside: Vec<usize> = (0..fields.len())
                            .filter(|i| !declared.contains(&fields[*i].0))
                            .collect();
                        if outside.is_empty() {
                            Group::Typing
                        } else if v == &J::Bool(false) {
                            c.nothing = true;
                            c.additional = outside
                                .into_iter()
                                .map(|i| (i, fields[i].1.clone(), Check::default()))
                                .collect();
                            Group::Native
                        } else {
                            for i in outside {
                                let check = self.node(v, &res, fields[i].1, &here, depth + 1)?;
                                c.additional.push((i, fields[i].1.clone(), check));
                            }
                            Group::Native
                        }
                    } else {
                        Group::Native
                    }
                }
                "$ref" => {
                    let Some(r) = v.as_str() else {
                        return self.refuse(&here, k, "a $ref that is not a string".into());
                    };
                    let resolved = match res.lookup(r) {
                        Ok(x) => x,
                        Err(e) => return self.refuse(&here, k, e.to_string()),
                    };
                    let (target, tres, _) = resolved.into_inner();
                    self.root = root;
                    let check =
                        self.compile(target, &tres, ty, fields, &format!("{at}→{r}"), depth + 1)?;
                    c.all.push(check);
                    Group::Native
                }
                "allOf" => {
                    let Some(parts) = v.as_array().filter(|a| !a.is_empty()) else {
                        return self.refuse(&here, k, "allOf that is not a non-empty array".into());
                    };
                    for (i, p) in parts.iter().enumerate() {
                        self.root = root;
                        let check =
                            self.compile(p, &res, ty, fields, &format!("{here}/{i}"), depth + 1)?;
                        c.all.push(check);
                    }
                    Group::Native
                }
                _ => {
                    return self.refuse(
                        &here,
                        k,
                        format!("the keyword {k} is not checked natively"),
                    )
                }
            };
            self.note(&here, k, group);
        }
        if !numbers.is_empty() {
            c.numbers = Some(self.mini(numbers).map_err(|e| format!("{at}: {e}"))?);
        }
        if !strings.is_empty() {
            c.strings = Some(self.mini(strings).map_err(|e| format!("{at}: {e}"))?);
        }
        Ok(c)
    }
}

/// The JSON kinds the values of `ty` can have.
fn possible_kinds(project: &Project, ty: &Type) -> u8 {
    match ty {
        Type::Optional(t) => NULL | possible_kinds(project, t),
        Type::Bool => BOOLEAN,
        Type::Int(_) => INTEGER,
        Type::Float => INTEGER | NUMBER,
        Type::String
        | Type::Enum(_)
        | Type::DateTime(_)
        | Type::Date
        | Type::Time(_)
        | Type::Duration => STRING,
        Type::Array(_) => ARRAY,
        Type::Record(name) => match project.records.get(name).map(|r| r.form) {
            Some(RecordForm::Tuple { .. }) => ARRAY,
            _ => OBJECT,
        },
        Type::Map(..) => OBJECT,
        _ => u8::MAX,
    }
}

/// The JSON kinds of one value (`None`: a value that has no JSON instance the plan can describe).
fn kinds_of(v: &Value) -> Option<u8> {
    Some(match v {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Int(i) if i64::try_from(*i).is_ok() || u64::try_from(*i).is_ok() => INTEGER | NUMBER,
        Value::Float(f) if f.is_finite() && f.fract() == 0.0 => INTEGER | NUMBER,
        Value::Float(f) if f.is_finite() => NUMBER,
        Value::Str(_)
        | Value::Enum(_)
        | Value::DateTime(_)
        | Value::Date(_)
        | Value::Time(_)
        | Value::Duration(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Record(_) | Value::Map(_) => OBJECT,
        _ => return None,
    })
}

fn num_of(v: &Value) -> Option<Num> {
    match v {
        Value::Int(i) => Some(Num::Int(*i)),
        Value::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

/// The text of a string value (the canonical text of dates, times and durations).
fn text_of(v: &Value) -> Option<std::borrow::Cow<'_, str>> {
    use crate::ir::time;
    Some(match v {
        Value::Str(s) | Value::Enum(s) => s.as_str().into(),
        Value::DateTime(s) => time::format_datetime(*s).into(),
        Value::Date(d) => time::format_date(*d).into(),
        Value::Time(t) => time::format_time(*t).into(),
        Value::Duration(ms) => time::iso_duration(*ms).into(),
        _ => return None,
    })
}

/// Combine two verdicts: a failure wins, then "cannot say".
fn and(a: Option<bool>, b: impl FnOnce() -> Option<bool>) -> Option<bool> {
    match a {
        Some(false) => Some(false),
        Some(true) => b(),
        None => match b() {
            Some(false) => Some(false),
            _ => None,
        },
    }
}

/// The value `v` of type `ty` against `c`.
fn eval(c: &Check, ty: &Type, v: &Value) -> Option<bool> {
    let kinds = kinds_of(v)?;
    if let Some(allowed) = c.kinds {
        if kinds & allowed == 0 {
            return Some(false);
        }
    }
    let mut verdict = Some(true);
    if let Some(n) = num_of(v) {
        for &(limit, exclusive) in &c.lower {
            let o = cmp_num(n, limit);
            if o == Ordering::Less || (exclusive && o == Ordering::Equal) {
                return Some(false);
            }
        }
        for &(limit, exclusive) in &c.upper {
            let o = cmp_num(n, limit);
            if o == Ordering::Greater || (exclusive && o == Ordering::Equal) {
                return Some(false);
            }
        }
        if let Some(d) = c.multiple_of {
            match v {
                Value::Int(i) => {
                    if i % d != 0 {
                        return Some(false);
                    }
                }
                // A double with a fraction is no multiple of an integer; an integral double below 2^53 is
                // an integer exactly; beyond, the crate's own arithmetic decides.
                Value::Float(x) if x.fract() != 0.0 => return Some(false),
                Value::Float(x) if x.abs() < 9_007_199_254_740_992.0 => {
                    if (*x as i128) % d != 0 {
                        return Some(false);
                    }
                }
                _ => verdict = None,
            }
        }
        if let Some(mini) = &c.numbers {
            let j = match n {
                Num::Int(i) => i64::try_from(i).map(J::from).ok()?,
                Num::Float(f) => J::from(f),
            };
            if !mini.is_valid(&j) {
                return Some(false);
            }
        }
    }
    if let Some(text) = text_of(v) {
        if c.min_length.is_some() || c.max_length.is_some() {
            let n = text.chars().count() as u64;
            if c.min_length.is_some_and(|m| n < m) || c.max_length.is_some_and(|m| n > m) {
                return Some(false);
            }
        }
        if let Some(mini) = &c.strings {
            if !mini.is_valid(&J::String(text.into_owned())) {
                return Some(false);
            }
        }
    }
    for list in &c.one_of_values {
        let mut any = Some(false);
        for x in list {
            match json_eq(ty, v, x) {
                Some(true) => {
                    any = Some(true);
                    break;
                }
                None => any = None,
                Some(false) => {}
            }
        }
        verdict = and(verdict, || any);
        if verdict == Some(false) {
            return verdict;
        }
    }
    match (ty.strip_optional(), v) {
        (Type::Array(item), Value::Array(items)) => {
            let n = items.len() as u64;
            if c.min_items.is_some_and(|m| n < m) || c.max_items.is_some_and(|m| n > m) {
                return Some(false);
            }
            if let Some(ic) = &c.items {
                for x in items {
                    verdict = and(verdict, || eval(ic, item, x));
                    if verdict == Some(false) {
                        return verdict;
                    }
                }
            }
            if c.unique_items {
                for (i, a) in items.iter().enumerate() {
                    for b in &items[..i] {
                        match ir_eq(a, b) {
                            Some(true) => return Some(false),
                            Some(false) => {}
                            None => verdict = and(verdict, || None),
                        }
                    }
                }
            }
        }
        (Type::Record(_), Value::Record(vals)) => {
            // Closed records only (the plan refuses the other forms): members are the non-null fields.
            verdict = and(verdict, || {
                eval_object(c, vals, &|i| vals[i] != Value::Null, false)
            });
        }
        (Type::Map(_, vt), Value::Map(entries)) => {
            let n = entries.len() as u64;
            if c.min_properties.is_some_and(|m| n < m) || c.max_properties.is_some_and(|m| n > m) {
                return Some(false);
            }
            for name in &c.required_names {
                let has = entries.iter().any(|(k, _)| match k {
                    Value::Str(s) => s == name,
                    Value::Int(i) => i.to_string() == *name,
                    _ => false,
                });
                if !has {
                    return Some(false);
                }
            }
            if let Some(ec) = &c.entries {
                for (_, x) in entries {
                    verdict = and(verdict, || eval(ec, vt, x));
                    if verdict == Some(false) {
                        return verdict;
                    }
                }
            }
        }
        _ => {}
    }
    for part in &c.all {
        verdict = and(verdict, || eval(part, ty, v));
        if verdict == Some(false) {
            return verdict;
        }
    }
    verdict
}

/// The object keywords of `c` on an object instance made of the fields `vals` (a row, or a closed record)
/// where `present(i)` says whether field `i` is a member. `parts`: also the `$ref`/`allOf` parts of `c`
/// (the row, whose parts are object keywords only).
fn eval_object(
    c: &Check,
    vals: &[Value],
    present: &dyn Fn(usize) -> bool,
    parts: bool,
) -> Option<bool> {
    let mut verdict = Some(true);
    if c.min_properties.is_some() || c.max_properties.is_some() {
        let count = (0..vals.len()).filter(|&i| present(i)).count() as u64;
        if c.min_properties.is_some_and(|m| count < m)
            || c.max_properties.is_some_and(|m| count > m)
        {
            return Some(false);
        }
    }
    for r in &c.required {
        match r {
            Some(i) if present(*i) => {}
            _ => return Some(false),
        }
    }
    if c.nothing && c.additional.iter().any(|(i, _, _)| present(*i)) {
        return Some(false);
    }
    for (i, ty, pc) in c.properties.iter().chain(&c.additional) {
        if !present(*i) {
            continue;
        }
        verdict = and(verdict, || eval(pc, ty, &vals[*i]));
        if verdict == Some(false) {
            return verdict;
        }
    }
    if parts {
        for part in &c.all {
            verdict = and(verdict, || eval_object(part, vals, present, true));
            if verdict == Some(false) {
                return verdict;
            }
        }
    }
    verdict
}

/// JSON equality of a typed value and a JSON value (`1` equals `1.0`); `None`: not decided here.
fn json_eq(ty: &Type, v: &Value, j: &J) -> Option<bool> {
    Some(match (v, j) {
        (Value::Null, J::Null) => true,
        (Value::Bool(a), J::Bool(b)) => a == b,
        (Value::Int(_) | Value::Float(_), J::Number(n)) => {
            let b = Num::of(n)?;
            cmp_num(num_of(v)?, b) == Ordering::Equal
        }
        (Value::Array(items), J::Array(js)) => {
            let Type::Array(item) = ty.strip_optional() else {
                return None;
            };
            if items.len() != js.len() {
                return Some(false);
            }
            let mut all = Some(true);
            for (x, y) in items.iter().zip(js) {
                all = and(all, || json_eq(item, x, y));
            }
            return all;
        }
        (Value::Record(_) | Value::Map(_), J::Object(_)) => return None,
        _ => match text_of(v) {
            Some(t) => j.as_str() == Some(&t),
            None => {
                let k = kinds_of(v)?;
                let jk = match j {
                    J::Null => NULL,
                    J::Bool(_) => BOOLEAN,
                    J::Number(_) => NUMBER,
                    J::String(_) => STRING,
                    J::Array(_) => ARRAY,
                    J::Object(_) => OBJECT,
                };
                if k & jk == 0 {
                    false
                } else {
                    return None;
                }
            }
        },
    })
}

/// JSON equality of two typed values of one type (`uniqueItems`); `None`: not decided here.
fn ir_eq(a: &Value, b: &Value) -> Option<bool> {
    Some(match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            cmp_num(num_of(a)?, num_of(b)?) == Ordering::Equal
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            let mut all = Some(true);
            for (p, q) in x.iter().zip(y) {
                all = and(all, || ir_eq(p, q));
            }
            return all;
        }
        (Value::Record(_) | Value::Map(_), _) | (_, Value::Record(_) | Value::Map(_)) => {
            return None
        }
        _ => match (text_of(a), text_of(b)) {
            (Some(x), Some(y)) => x == y,
            _ if kinds_of(a)? & kinds_of(b)? == 0 => false,
            _ => return None,
        },
    })
}
