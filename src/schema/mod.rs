//! **schema/** owns `schema/*.schema.json` → IR types and is the only reader of `x-gentable-*` annotations.
//! It may import the IR, naming and diagnostics; never `read/`, `typing/` or later stages.
//!
//! Schemas: `schema/*.schema.json` (JSON Schema 2020-12, one row per table) → IR types.
//!
//! See docs/conventions.md §4 for the type mapping and the `x-gentable-*` annotations. `$ref`s are resolved
//! locally (`#/$defs/X`) and across files of the schema folder (`common.schema.json#/$defs/X`); nothing is
//! fetched. Enum and record types are named by their `$defs` key, else their `title`, else
//! `<Table><Field>`; one name used for two different definitions is an error.

pub mod view;

use crate::diag::Code;
use crate::diag::{Diagnostic, Severity};
use crate::ir::{EnumDef, Field, IntWidth, Project, RecordDef, TableMode, Type};
use serde_json::{Map, Value as J};
use std::collections::BTreeMap;
use std::path::Path;

/// Prefix of every gentable annotation keyword.
pub const PREFIX: &str = "x-gentable-";

/// All schema files of the schema folder, by file name.
#[derive(Clone, Debug, Default)]
pub struct SchemaSet {
    pub files: BTreeMap<String, J>,
    /// Folder, relative to the project root (for diagnostics).
    pub dir_rel: String,
}

/// Base URI under which schema files are registered for `jsonschema` (never fetched).
pub const BASE_URI: &str = "file:///gentable/schema/";

impl SchemaSet {
    /// Path of a schema file for diagnostics.
    pub fn rel(&self, file: &str) -> String {
        if self.dir_rel.is_empty() || self.dir_rel == "." {
            file.to_string()
        } else {
            format!("{}/{file}", self.dir_rel)
        }
    }
}

/// Read every `*.json` file of `dir` (not recursive). Unparsable files are errors.
pub fn load_dir(dir: &Path, dir_rel: &str) -> Result<SchemaSet, Vec<Diagnostic>> {
    let mut set = SchemaSet {
        files: BTreeMap::new(),
        dir_rel: dir_rel.to_string(),
    };
    let mut diags = vec![];
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            return Err(vec![Diagnostic::file_error(
                Code::ProjectLayout,
                dir_rel,
                format!("cannot read schema folder: {e}"),
            )])
        }
    };
    let mut names: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        if !name.ends_with(".json")
            || name == "gentable.toml.schema.json"
            || name == "gentable.meta.schema.json"
        {
            continue;
        }
        let rel = set.rel(&name);
        match std::fs::read_to_string(dir.join(&name)) {
            Ok(text) => match serde_json::from_str::<J>(&text) {
                Ok(v) => {
                    set.files.insert(name, v);
                }
                Err(e) => diags.push(Diagnostic::file_error(
                    Code::UnreadableSchema,
                    rel,
                    format!("schema is not valid JSON: {e}"),
                )),
            },
            Err(e) => diags.push(Diagnostic::file_error(
                Code::UnreadableSchema,
                rel,
                format!("cannot read schema: {e}"),
            )),
        }
    }
    if diags.is_empty() {
        Ok(set)
    } else {
        Err(diags)
    }
}

/// Row-level facts of a table schema that the IR [`crate::ir::Table`] does not carry.
#[derive(Clone, Debug)]
pub struct TableSchema {
    pub name: String,
    pub schema_file: String,
    pub doc: String,
    pub mode: TableMode,
    pub fields: Vec<Field>,
    /// Per field: listed in `required`.
    pub required: Vec<bool>,
    /// Per field: the schema's `default`, applied to empty cells.
    pub defaults: Vec<Option<J>>,
    pub primary_key: Vec<usize>,
    pub unique_keys: Vec<Vec<usize>>,
    /// The table's root schema JSON (validated per row by `jsonschema`).
    pub root: J,
    /// `x-gentable-rules`: every entry as written, or why it is malformed (the validator compiles the CEL and
    /// reports the problems, GT0312). `Err`: the keyword is not an array.
    pub rules: Result<Vec<Result<RuleSpec, String>>, String>,
    /// `x-gentable-unreferenced`, if given: the severity and the exempt keys, or why it is malformed.
    pub unreferenced: Option<Result<Unreferenced, String>>,
    /// `x-gentable-groups` of the table.
    pub groups: Vec<String>,
    /// `[tables.X] order = "source"` (set by the build from `gentable.toml`): keep the sheet's row order.
    pub source_order: bool,
    /// `x-gentable-view`: the pictures `gentable report` draws of the table, or why the annotation is
    /// malformed (reported by the validator, GT0407).
    pub views: Result<Vec<view::View>, String>,
}

/// One entry of `x-gentable-rules` (docs/diagnostics.md "Rules"): a CEL expression and how to report it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSpec {
    /// The CEL source of `rule`.
    pub rule: String,
    /// `message`, with `${expr}` parts (empty when absent).
    pub message: String,
    /// `scope: "table"` (evaluated once with `rows`), else a row rule.
    pub table_scope: bool,
    /// `severity`: error (default) or warning.
    pub severity: Severity,
    /// `field`: the column a failure names.
    pub field: Option<String>,
}

/// `x-gentable-rules` → its entries; each is a [`RuleSpec`] or the reason it is malformed. `Err`: not an
/// array. Absent: no rules.
fn rule_specs(v: Option<&J>) -> Result<Vec<Result<RuleSpec, String>>, String> {
    let Some(v) = v else { return Ok(vec![]) };
    let list = v
        .as_array()
        .ok_or_else(|| "x-gentable-rules must be an array of {rule, message}".to_string())?;
    Ok(list
        .iter()
        .map(|r| {
            let rule = r
                .get("rule")
                .and_then(J::as_str)
                .ok_or("needs \"rule\": a CEL expression")?;
            let table_scope = match r.get("scope").and_then(J::as_str) {
                None | Some("row") => false,
                Some("table") => true,
                Some(s) => return Err(format!("scope must be \"row\" or \"table\", not {s:?}")),
            };
            let severity = match r.get("severity").and_then(J::as_str) {
                None | Some("error") => Severity::Error,
                Some("warning") => Severity::Warning,
                Some(s) => {
                    return Err(format!(
                        "severity must be \"error\" or \"warning\", not {s:?}"
                    ))
                }
            };
            Ok(RuleSpec {
                rule: rule.to_string(),
                message: r
                    .get("message")
                    .and_then(J::as_str)
                    .unwrap_or("")
                    .to_string(),
                table_scope,
                severity,
                field: r.get("field").and_then(J::as_str).map(String::from),
            })
        })
        .collect())
}

/// `x-gentable-unreferenced` (docs/conventions.md §4): report rows whose primary key no foreign key names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreferenced {
    pub severity: Severity,
    /// Keys that need no reference.
    pub except: Vec<String>,
}

/// `"warning"`, `"error"` or `{"severity": …, "except": [...]}` → [`Unreferenced`], or the problem.
fn unreferenced_spec(v: &J) -> Result<Unreferenced, String> {
    let (sev, except) = match v {
        J::String(s) => (s.as_str(), vec![]),
        J::Object(o) => (
            o.get("severity").and_then(J::as_str).unwrap_or("warning"),
            o.get("except")
                .and_then(J::as_array)
                .map(|a| a.iter().filter_map(J::as_str).map(String::from).collect())
                .unwrap_or_default(),
        ),
        _ => ("", vec![]),
    };
    let severity = match sev {
        "warning" => Severity::Warning,
        "error" => Severity::Error,
        _ => return Err(
            "x-gentable-unreferenced must be \"warning\", \"error\" or {\"severity\", \"except\"}"
                .into(),
        ),
    };
    Ok(Unreferenced { severity, except })
}

struct Ctx<'a> {
    set: &'a SchemaSet,
    project: &'a mut Project,
    diags: Vec<Diagnostic>,
    /// Which definition each generated type name came from.
    origins: BTreeMap<String, String>,
}

/// Build the shape of table `table` from `schema_file` and register its enum/record types in `project`.
pub fn build_table(
    set: &SchemaSet,
    project: &mut Project,
    table: &str,
    schema_file: &str,
) -> Result<TableSchema, Vec<Diagnostic>> {
    let rel = set.rel(schema_file);
    let Some(root) = set.files.get(schema_file) else {
        return Err(vec![Diagnostic::file_error(
            Code::MissingSchema,
            &rel,
            format!("table {table} has no schema {rel}"),
        )
        .with_help(format!("create {rel} describing one row of {table}"))]);
    };
    let mut origins = BTreeMap::new();
    for (n, e) in &project.enums {
        origins.insert(n.clone(), e.origin.clone());
    }
    for (n, r) in &project.records {
        origins.insert(n.clone(), r.origin.clone());
    }
    let mut ctx = Ctx {
        set,
        project,
        diags: vec![],
        origins,
    };
    let err = |m: String| Diagnostic::file_error(Code::InvalidSchema, &rel, m);
    let Some(obj) = root.as_object() else {
        return Err(vec![err("the schema must be a JSON object".into())]);
    };
    if obj.get("type").and_then(J::as_str) != Some("object") {
        return Err(vec![err(
            "a table schema must have \"type\": \"object\" (it describes one row)".into(),
        )]);
    }
    let Some(props) = obj.get("properties").and_then(J::as_object) else {
        return Err(vec![err(
            "a table schema needs \"properties\" (one per column)".into(),
        )]);
    };
    let required: Vec<String> = obj
        .get("required")
        .and_then(J::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    for r in &required {
        if !props.contains_key(r) {
            ctx.diags.push(err(format!(
                "\"required\" names {r:?}, which is not in \"properties\""
            )));
        }
    }
    let mut fields = vec![];
    let mut req = vec![];
    let mut defaults = vec![];
    for (name, ps) in props {
        let is_req = required.contains(name);
        let hint = format!(
            "{table}{}",
            crate::naming::case(name, crate::naming::Case::Pascal)
        );
        let origin = format!("{schema_file}#/properties/{name}");
        let (ty, nullable) = match ctx.type_of(ps, schema_file, &hint, &origin) {
            Some(t) => t,
            None => continue,
        };
        let ty = if nullable || !is_req {
            Type::Optional(Box::new(ty))
        } else {
            ty
        };
        fields.push(ctx.field(name, ps, schema_file, ty));
        req.push(is_req);
        let default = ps.get("default").cloned();
        defaults.push(default.or_else(|| {
            ctx.resolve(ps, schema_file)
                .and_then(|(_, d, _)| d.get("default").cloned())
        }));
    }
    let index_of = |ctx: &mut Ctx, what: &str, n: &str| -> Option<usize> {
        let i = fields.iter().position(|f| f.name == n);
        if i.is_none() {
            ctx.diags.push(err(format!(
                "{what} names {n:?}, which is not in \"properties\""
            )));
        }
        i
    };
    let key_list = |v: &J| -> Vec<String> {
        match v {
            J::String(s) => vec![s.clone()],
            J::Array(a) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            _ => vec![],
        }
    };
    let mut primary_key = vec![];
    if let Some(pk) = obj.get("x-gentable-primaryKey") {
        for n in key_list(pk) {
            if let Some(i) = index_of(&mut ctx, "x-gentable-primaryKey", &n) {
                primary_key.push(i);
            }
        }
    }
    let mut unique_keys = vec![];
    if let Some(J::Array(uks)) = obj.get("x-gentable-unique") {
        for uk in uks {
            let idx: Vec<usize> = key_list(uk)
                .iter()
                .filter_map(|n| index_of(&mut ctx, "x-gentable-unique", n))
                .collect();
            if !idx.is_empty() {
                unique_keys.push(idx);
            }
        }
    }
    // Primary key fields must be required scalars with a total order (they are sorted and binary-searched);
    // unique key fields may be of any type and optional (absent values never clash).
    for &i in &primary_key {
        let f = &fields[i];
        let ok = matches!(
            f.ty,
            Type::Int(_) | Type::String | Type::Enum(_) | Type::Bool
        );
        if !ok {
            ctx.diags.push(err(format!(
                "primary key field {:?} must be a required integer, string, enum or boolean (found {})",
                f.name,
                f.ty.words()
            )));
        }
    }
    let mode = match obj.get("x-gentable-mode").and_then(J::as_str) {
        None if primary_key.is_empty() => TableMode::List,
        None | Some("map") => TableMode::Map,
        Some("list") => TableMode::List,
        Some("one") => TableMode::One,
        Some(m) => {
            ctx.diags.push(err(format!(
                "x-gentable-mode must be map, list or one, not {m:?}"
            )));
            TableMode::List
        }
    };
    if mode == TableMode::Map && primary_key.is_empty() {
        ctx.diags.push(err(
            "x-gentable-mode \"map\" needs x-gentable-primaryKey".into()
        ));
    }
    let rules = rule_specs(obj.get("x-gentable-rules"));
    let unreferenced = obj.get("x-gentable-unreferenced").map(unreferenced_spec);
    let pk = if mode == TableMode::Map {
        primary_key
    } else {
        vec![]
    };
    if ctx.diags.is_empty() {
        Ok(TableSchema {
            name: table.to_string(),
            schema_file: schema_file.to_string(),
            doc: doc_of(obj),
            mode,
            fields,
            required: req,
            defaults,
            primary_key: pk,
            unique_keys,
            root: root.clone(),
            rules,
            unreferenced,
            groups: string_list(obj.get("x-gentable-groups")),
            source_order: false,
            views: view::views(obj.get("x-gentable-view")),
        })
    } else {
        Err(ctx.diags)
    }
}

/// `x-gentable-enumValues` (docs/conventions.md §4): an object `{member: integer}` naming every member once,
/// values unique and within ±2^31 (Luban's enums are `int`; C#'s default underlying type). Gives the values
/// in declaration order, or why the annotation is malformed.
pub fn enum_values(v: &J, members: &[String]) -> Result<Vec<i64>, String> {
    let J::Object(m) = v else {
        return Err("must be an object {\"Member\": integer}".into());
    };
    if let Some(k) = m.keys().find(|k| !members.contains(k)) {
        return Err(format!("names {k:?}, which is not a member"));
    }
    let mut out = vec![];
    for member in members {
        let Some(x) = m.get(member) else {
            return Err(format!("gives no value for member {member:?}"));
        };
        let Some(x) = x.as_i64().filter(|x| i32::try_from(*x).is_ok()) else {
            return Err(format!(
                "{member:?}: {x} is not an integer between -2147483648 and 2147483647"
            ));
        };
        if let Some(i) = out.iter().position(|y| *y == x) {
            return Err(format!(
                "gives {member:?} the value {x} of {:?}: values must be unique",
                members[i]
            ));
        }
        out.push(x);
    }
    Ok(out)
}

/// `x-gentable-name` on a string enum: an object `{member: identifier}` whose identifiers are used verbatim
/// (ASCII letters, digits and `_`, not starting with a digit) instead of the naming rule. Members left out
/// follow the rule.
pub fn member_idents(v: &J, members: &[String]) -> Result<Vec<Option<String>>, String> {
    let J::Object(m) = v else {
        return Err("on an enum must be an object {\"member\": \"Identifier\"}".into());
    };
    if let Some(k) = m.keys().find(|k| !members.contains(k)) {
        return Err(format!("names {k:?}, which is not a member"));
    }
    let mut out = vec![];
    for member in members {
        match m.get(member) {
            None => out.push(None),
            Some(J::String(id))
                if id.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                out.push(Some(id.clone()))
            }
            Some(x) => {
                return Err(format!(
                    "{member:?}: {x} is not an identifier (ASCII letters, digits and _)"
                ))
            }
        }
    }
    Ok(out)
}

/// `x-gentable-separator` of a schema: a non-empty string of separator characters.
fn separator_of(s: Option<&J>) -> Option<String> {
    s.and_then(|s| s.get("x-gentable-separator"))
        .and_then(J::as_str)
        .filter(|x| !x.is_empty())
        .map(String::from)
}

fn alts_len(o: &Map<String, J>, k: &str) -> usize {
    o.get(k).and_then(J::as_array).map_or(0, Vec::len)
}

fn doc_of(o: &Map<String, J>) -> String {
    let title = o.get("title").and_then(J::as_str).unwrap_or("");
    let desc = o.get("description").and_then(J::as_str).unwrap_or("");
    match (title.is_empty(), desc.is_empty()) {
        (true, _) => desc.to_string(),
        (false, true) => title.to_string(),
        (false, false) => format!("{title}\n\n{desc}"),
    }
}

/// A string or a list of strings.
pub fn string_list(v: Option<&J>) -> Vec<String> {
    match v {
        Some(J::String(s)) => vec![s.clone()],
        Some(J::Array(a)) => a.iter().filter_map(J::as_str).map(String::from).collect(),
        _ => vec![],
    }
}

/// String formats of JSON Schema 2020-12 (§7.3) that only validate: the value stays a string.
pub const VALIDATION_FORMATS: &[&str] = &[
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Why a `format` keyword cannot be honoured for a value of JSON type `ty`, if it cannot: gentable types
/// `integer` formats `int8`…`uint64`, `number` format `double` (every number is a 64-bit double), and
/// `string` formats `date-time`, `date`, `time`, `duration` plus the validation-only formats
/// ([`VALIDATION_FORMATS`]). Anything else (`float`, `int128`, `date_time`) is an error rather than a plain
/// number or string that silently ignores it.
pub fn unsupported_format(ty: Option<&str>, format: &J) -> Option<String> {
    let Some(f) = format.as_str() else {
        return Some(format!("\"format\" must be a string, not {format}"));
    };
    let ints = [
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    ];
    let strings = ["date-time", "date", "time", "duration"];
    match ty {
        Some("integer") if ints.contains(&f) => None,
        Some("integer") => Some(format!(
            "integer format {f:?} is not supported (use one of {})",
            ints.join(", ")
        )),
        Some("number") if f == "double" => None,
        Some("number") if f == "float" => Some(
            "number format \"float\" (32-bit) is not supported: every number is a 64-bit double; remove \"format\" or write \"double\"".into(),
        ),
        Some("number") => Some(format!(
            "number format {f:?} is not supported: numbers are 64-bit doubles (\"double\")"
        )),
        Some("string") if strings.contains(&f) || VALIDATION_FORMATS.contains(&f) => None,
        Some("string") => Some(format!(
            "string format {f:?} is not supported (typed: {}; validated: {})",
            strings.join(", "),
            VALIDATION_FORMATS.join(", ")
        )),
        _ => None,
    }
}

/// A fixed UTC offset `+08:00`, `-05:30`, `Z` or `UTC` → seconds east of UTC.
pub fn parse_offset(s: &str) -> Option<i32> {
    let s = s.trim();
    if s == "Z" || s.eq_ignore_ascii_case("UTC") {
        return Some(0);
    }
    let s = s.strip_prefix("UTC").unwrap_or(s);
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':').unwrap_or((rest, "0"));
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    (h <= 18 && m < 60).then_some(sign * (h * 3600 + m * 60))
}

fn fk_targets(v: Option<&J>) -> Vec<(String, Option<String>)> {
    let parse = |s: &str| match s.split_once('.') {
        Some((t, f)) => (t.to_string(), Some(f.to_string())),
        None => (s.to_string(), None),
    };
    match v {
        Some(J::String(s)) => vec![parse(s)],
        Some(J::Array(a)) => a.iter().filter_map(J::as_str).map(parse).collect(),
        _ => vec![],
    }
}

impl Ctx<'_> {
    fn err(&mut self, file: &str, m: String) {
        let rel = self.set.rel(file);
        self.diags
            .push(Diagnostic::file_error(Code::InvalidSchema, rel, m));
    }

    fn field(&mut self, name: &str, ps: &J, file: &str, ty: Type) -> Field {
        let target = self.resolve(ps, file).map(|(_, t, _)| t);
        let doc = ps
            .as_object()
            .map(doc_of)
            .filter(|d| !d.is_empty())
            .or_else(|| target.as_ref().and_then(J::as_object).map(doc_of))
            .unwrap_or_default();
        let fks = self.value_fks(ps, file, 0);
        let key_fks = match ps
            .get("x-gentable-mapKey")
            .or_else(|| target.as_ref().and_then(|t| t.get("x-gentable-mapKey")))
        {
            Some(k) => self.value_fks(&k.clone(), file, 0),
            None => vec![],
        };
        let default = ps
            .get("default")
            .cloned()
            .or_else(|| target.as_ref().and_then(|t| t.get("default").cloned()));
        Field {
            name: name.to_string(),
            ident: ps
                .get("x-gentable-name")
                .and_then(J::as_str)
                .map(String::from),
            ty,
            doc,
            foreign_keys: fks,
            key_foreign_keys: key_fks,
            default,
            groups: string_list(ps.get("x-gentable-groups")),
            text: ps
                .get("x-gentable-text")
                .and_then(J::as_bool)
                .unwrap_or(false),
            separator: separator_of(Some(ps)),
            item_separator: separator_of(
                ps.get("items").or_else(|| ps.get("additionalProperties")),
            ),
        }
    }

    /// The `x-gentable-foreignKey` of a value schema, wherever the schema puts it (docs/conventions.md §4): on
    /// the property, on the definition its `$ref` names, or below it on `items` (array elements, at any depth)
    /// or `additionalProperties` (map values). The first one found on that path applies to the scalars there.
    fn value_fks(&mut self, ps: &J, file: &str, depth: usize) -> Vec<(String, Option<String>)> {
        if depth > 8 {
            return vec![];
        }
        let here = fk_targets(ps.get("x-gentable-foreignKey"));
        if !here.is_empty() {
            return here;
        }
        let target = ps
            .get("$ref")
            .and_then(|_| self.resolve(ps, file))
            .map(|(f, t, _)| (f, t));
        if let Some((f, t)) = &target {
            let there = fk_targets(t.get("x-gentable-foreignKey"));
            if !there.is_empty() {
                return there;
            }
            let _ = f;
        }
        let body = target.as_ref().map(|(_, t)| t).unwrap_or(ps).clone();
        let file = target
            .as_ref()
            .map(|(f, _)| f.clone())
            .unwrap_or_else(|| file.to_string());
        for below in ["items", "additionalProperties"] {
            if let Some(inner) = body.get(below).filter(|i| i.is_object()) {
                let found = self.value_fks(&inner.clone(), &file, depth + 1);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        vec![]
    }

    fn resolve(&mut self, s: &J, file: &str) -> Option<(String, J, Option<String>)> {
        let mut cur = s.clone();
        let mut cur_file = file.to_string();
        let mut name = None;
        for _ in 0..32 {
            let Some(r) = cur.get("$ref").and_then(J::as_str) else {
                return Some((cur_file, cur, name));
            };
            let (f, ptr) = match r.split_once('#') {
                Some(("", p)) => (cur_file.clone(), p.to_string()),
                Some((f, p)) => (f.to_string(), p.to_string()),
                None => (r.to_string(), String::new()),
            };
            let Some(doc) = self.set.files.get(&f) else {
                self.err(file, format!("$ref {r:?}: no schema file {f:?} in the schema folder (nothing is fetched)"));
                return None;
            };
            let Some(target) = doc.pointer(&ptr) else {
                self.err(file, format!("$ref {r:?}: {f} has nothing at {ptr:?}"));
                return None;
            };
            name = ptr
                .rsplit('/')
                .next()
                .filter(|n| !n.is_empty())
                .map(String::from);
            cur = target.clone();
            cur_file = f;
        }
        self.err(file, "$ref chain is too long or circular".into());
        None
    }

    /// The IR type of a property schema and whether it is nullable.
    fn type_of(&mut self, s: &J, file: &str, hint: &str, origin: &str) -> Option<(Type, bool)> {
        let (file, s, ref_name) = self.resolve(s, file)?;
        let file = file.as_str();
        let origin = match &ref_name {
            Some(n) => format!("{file}#/$defs/{n}"),
            None => origin.to_string(),
        };
        let Some(o) = s.as_object() else {
            self.err(
                file,
                format!("{origin}: a property schema must be an object"),
            );
            return None;
        };
        // anyOf/oneOf [T, {"type":"null"}] → nullable T.
        for k in ["anyOf", "oneOf"] {
            if let Some(J::Array(alts)) = o.get(k) {
                let is_null = |a: &J| a.get("type").and_then(J::as_str) == Some("null");
                let non_null: Vec<&J> = alts.iter().filter(|a| !is_null(a)).collect();
                if non_null.len() == 1 && alts.len() == 2 {
                    let (t, _) = self.type_of(non_null[0], file, hint, &origin)?;
                    return Some((t, true));
                }
                if k == "oneOf" {
                    if let Some(disc) = o.get("x-gentable-discriminator").and_then(J::as_str) {
                        let name = ref_name.clone().or_else(|| {
                            o.get("title")
                                .and_then(J::as_str)
                                .map(|t| crate::naming::case(t, crate::naming::Case::Pascal))
                        });
                        let name = name.unwrap_or_else(|| hint.to_string());
                        let alts: Vec<J> = non_null.into_iter().cloned().collect();
                        let nullable = alts.len() + 1 == alts_len(o, k);
                        let t = self.union(&name, disc, &alts, o, file, &origin)?;
                        return Some((t, nullable));
                    }
                }
                self.err(
                    file,
                    format!("{origin}: {k} is supported only as [T, {{\"type\": \"null\"}}], or as a oneOf of objects with \"x-gentable-discriminator\""),
                );
                return None;
            }
        }
        let (ty_name, nullable) = match o.get("type") {
            Some(J::String(t)) => (Some(t.clone()), false),
            Some(J::Array(ts)) => {
                let names: Vec<&str> = ts.iter().filter_map(J::as_str).collect();
                let non_null: Vec<&str> = names.iter().copied().filter(|t| *t != "null").collect();
                if non_null.len() != 1 {
                    self.err(
                        file,
                        format!(
                            "{origin}: \"type\" may list one type plus \"null\", found {names:?}"
                        ),
                    );
                    return None;
                }
                (Some(non_null[0].to_string()), names.contains(&"null"))
            }
            _ => (None, false),
        };
        let type_name = ref_name
            .clone()
            .or_else(|| {
                o.get("title")
                    .and_then(J::as_str)
                    .map(|t| crate::naming::case(t, crate::naming::Case::Pascal))
            })
            .unwrap_or_else(|| hint.to_string());
        let ty_name = ty_name.or_else(|| {
            if o.get("enum")
                .and_then(J::as_array)
                .is_some_and(|a| a.iter().all(J::is_string))
            {
                Some("string".into())
            } else if o.contains_key("properties") {
                Some("object".into())
            } else {
                None
            }
        });
        // A `format` that would change the type must be one gentable implements; a typo or an unsupported
        // width (`float`: 32-bit) must not silently become a plain number or string (docs/conventions.md §7).
        if let Some(f) = o.get("format") {
            if let Some(m) = unsupported_format(ty_name.as_deref(), f) {
                self.err(file, format!("{origin}: {m}"));
                return None;
            }
        }
        if o.contains_key("x-gentable-timeZone")
            && !matches!(
                o.get("format").and_then(J::as_str),
                Some("date-time" | "time")
            )
        {
            self.err(
                file,
                format!("{origin}: x-gentable-timeZone applies to \"format\": \"date-time\" or \"time\" only"),
            );
            return None;
        }
        let t = match ty_name.as_deref() {
            Some("boolean") => Type::Bool,
            Some("number") => Type::Float,
            Some("integer") => {
                let width = match o.get("format").and_then(J::as_str) {
                    Some("int8") => Some(IntWidth::I8),
                    Some("int16") => Some(IntWidth::I16),
                    Some("int32") => Some(IntWidth::I32),
                    Some("int64") => Some(IntWidth::I64),
                    Some("uint8") => Some(IntWidth::U8),
                    Some("uint16") => Some(IntWidth::U16),
                    Some("uint32") => Some(IntWidth::U32),
                    Some("uint64") => Some(IntWidth::U64),
                    _ => None,
                };
                let bound = |k: &str, adj: i128| {
                    o.get(k).and_then(J::as_f64).map(|f| f.ceil() as i128 + adj)
                };
                let lo = o
                    .get("minimum")
                    .and_then(J::as_f64)
                    .map(|f| f.ceil() as i128)
                    .or_else(|| bound("exclusiveMinimum", 1));
                let hi = o
                    .get("maximum")
                    .and_then(J::as_f64)
                    .map(|f| f.floor() as i128)
                    .or_else(|| {
                        o.get("exclusiveMaximum")
                            .and_then(J::as_f64)
                            .map(|f| f.ceil() as i128 - 1)
                    });
                // An integer `enum`/`const` bounds the width too.
                let listed: Vec<i128> = match (o.get("enum"), o.get("const")) {
                    (Some(J::Array(a)), _) => {
                        a.iter().filter_map(J::as_i64).map(i128::from).collect()
                    }
                    (_, Some(c)) => c.as_i64().map(i128::from).into_iter().collect(),
                    _ => vec![],
                };
                let (lo, hi) = match (listed.iter().min(), listed.iter().max()) {
                    (Some(&a), Some(&b)) => (
                        Some(lo.map_or(a, |l| l.max(a))),
                        Some(hi.map_or(b, |h| h.min(b))),
                    ),
                    _ => (lo, hi),
                };
                Type::Int(width.unwrap_or_else(|| IntWidth::for_bounds(lo, hi)))
            }
            Some("string")
                if matches!(
                    o.get("format").and_then(J::as_str),
                    Some("date-time" | "time")
                ) =>
            {
                let zone = match o.get("x-gentable-timeZone") {
                    None => None,
                    Some(z) => match z.as_str().and_then(parse_offset) {
                        Some(off) => Some(off),
                        None => {
                            self.err(file, format!("{origin}: x-gentable-timeZone must be a fixed offset like \"+08:00\" or \"UTC\", not {z}"));
                            return None;
                        }
                    },
                };
                if o.get("format").and_then(J::as_str) == Some("time") {
                    Type::Time(zone)
                } else {
                    Type::DateTime(zone)
                }
            }
            Some("string") if o.get("format").and_then(J::as_str) == Some("date") => Type::Date,
            Some("string") if o.get("format").and_then(J::as_str) == Some("duration") => {
                Type::Duration
            }
            Some("string") => match o.get("enum").and_then(J::as_array) {
                Some(members) => {
                    let members: Vec<String> = members
                        .iter()
                        .filter_map(|m| m.as_str().map(String::from))
                        .collect();
                    // Cells are read as NFC (docs/conventions.md §7): a member in another form could
                    // never match one.
                    let nfc = |t: &str| {
                        use unicode_normalization::UnicodeNormalization;
                        t.nfc().collect::<String>() == t
                    };
                    if let Some(m) = members.iter().find(|m| !nfc(m)) {
                        self.err(file, format!("{origin}: the enum member {m:?} is not in Unicode NFC (cells are read as NFC, so it could never match); write it composed"));
                        return None;
                    }
                    let mut aliases = vec![];
                    if let Some(J::Object(m)) = o.get("x-gentable-enumAliases") {
                        for (member, names) in m {
                            if !members.contains(member) {
                                self.err(file, format!("{origin}: x-gentable-enumAliases names {member:?}, which is not a member"));
                                return None;
                            }
                            for a in string_list(Some(names)) {
                                if !nfc(&a) {
                                    self.err(file, format!("{origin}: the alias {a:?} is not in Unicode NFC (cells are read as NFC, so it could never match); write it composed"));
                                    return None;
                                }
                                if members.contains(&a) || aliases.iter().any(|(x, _)| *x == a) {
                                    self.err(file, format!("{origin}: the alias {a:?} is already a member or another alias"));
                                    return None;
                                }
                                aliases.push((a, member.clone()));
                            }
                        }
                    }
                    let values = match o.get("x-gentable-enumValues") {
                        None => None,
                        Some(v) => match enum_values(v, &members) {
                            Ok(v) => Some(v),
                            Err(m) => {
                                self.err(file, format!("{origin}: x-gentable-enumValues {m}"));
                                return None;
                            }
                        },
                    };
                    let idents = match o.get("x-gentable-name") {
                        None => vec![],
                        Some(v) => match member_idents(v, &members) {
                            Ok(v) => v,
                            Err(m) => {
                                self.err(file, format!("{origin}: x-gentable-name {m}"));
                                return None;
                            }
                        },
                    };
                    let def = EnumDef {
                        name: type_name.clone(),
                        doc: doc_of(o),
                        members,
                        aliases,
                        values,
                        idents,
                        origin: origin.clone(),
                    };
                    if !self.register(&type_name, &origin, file) {
                        return None;
                    }
                    self.project.enums.entry(type_name.clone()).or_insert(def);
                    Type::Enum(type_name)
                }
                None => Type::String,
            },
            Some("array") => {
                let Some(items) = o.get("items") else {
                    self.err(file, format!("{origin}: an array needs \"items\""));
                    return None;
                };
                let (inner, n) = self.type_of(
                    items,
                    file,
                    &format!("{hint}Item"),
                    &format!("{origin}/items"),
                )?;
                let flags = o
                    .get("x-gentable-flags")
                    .and_then(J::as_bool)
                    .unwrap_or(false)
                    || self
                        .resolve(items, file)
                        .and_then(|(_, d, _)| d.get("x-gentable-flags").and_then(J::as_bool))
                        .unwrap_or(false);
                match (flags, &inner) {
                    (true, Type::Enum(e)) if !n => {
                        if self.project.enums[e].members.len() > 64 {
                            self.err(
                                file,
                                format!("{origin}: a flags enum has at most 64 members"),
                            );
                            return None;
                        }
                        Type::Flags(e.clone())
                    }
                    (true, _) => {
                        self.err(
                            file,
                            format!(
                                "{origin}: x-gentable-flags needs \"items\" to be a string enum"
                            ),
                        );
                        return None;
                    }
                    _ => Type::Array(Box::new(if n {
                        Type::Optional(Box::new(inner))
                    } else {
                        inner
                    })),
                }
            }
            Some("object")
                if !o.contains_key("properties")
                    && (o.get("additionalProperties").is_some_and(J::is_object)
                        || o.contains_key("x-gentable-mapKey")) =>
            {
                let key = match o.get("x-gentable-mapKey") {
                    None => Type::String,
                    Some(k) => match self.type_of(
                        k,
                        file,
                        &format!("{hint}Key"),
                        &format!("{origin}/x-gentable-mapKey"),
                    )? {
                        (t @ (Type::String | Type::Int(_)), false) => t,
                        _ => {
                            self.err(
                                file,
                                format!("{origin}: a map key must be a string or an integer"),
                            );
                            return None;
                        }
                    },
                };
                let Some(vs) = o.get("additionalProperties").filter(|v| v.is_object()) else {
                    self.err(file, format!("{origin}: a map needs \"additionalProperties\": the schema of its values"));
                    return None;
                };
                let (vt, vn) = self.type_of(
                    vs,
                    file,
                    &format!("{hint}Value"),
                    &format!("{origin}/additionalProperties"),
                )?;
                let vt = if vn { Type::Optional(Box::new(vt)) } else { vt };
                Type::Map(Box::new(key), Box::new(vt))
            }
            Some("object") => {
                let Some(props) = o.get("properties").and_then(J::as_object) else {
                    self.err(
                        file,
                        format!("{origin}: an object needs \"properties\" (a record), or \"additionalProperties\" (a map)"),
                    );
                    return None;
                };
                if !self.register(&type_name, &origin, file) {
                    return None;
                }
                if !self.project.records.contains_key(&type_name) {
                    let required: Vec<&str> = o
                        .get("required")
                        .and_then(J::as_array)
                        .map(|a| a.iter().filter_map(J::as_str).collect())
                        .unwrap_or_default();
                    if let Some(sep) = separator_of(Some(&s)) {
                        self.project.separators.insert(type_name.clone(), sep);
                    }
                    // Register first (recursion guard), fill after.
                    self.project.records.insert(
                        type_name.clone(),
                        RecordDef {
                            name: type_name.clone(),
                            doc: doc_of(o),
                            fields: vec![],
                            origin: origin.clone(),
                        },
                    );
                    let mut fields = vec![];
                    for (pname, ps) in props {
                        let (pt, pn) = self.type_of(
                            ps,
                            file,
                            &format!(
                                "{type_name}{}",
                                crate::naming::case(pname, crate::naming::Case::Pascal)
                            ),
                            &format!("{origin}/properties/{pname}"),
                        )?;
                        let pt = if pn || !required.contains(&pname.as_str()) {
                            Type::Optional(Box::new(pt))
                        } else {
                            pt
                        };
                        fields.push(self.field(pname, ps, file, pt));
                    }
                    if let Some(r) = self.project.records.get_mut(&type_name) {
                        r.fields = fields;
                    }
                }
                Type::Record(type_name)
            }
            Some(other) => {
                self.err(file, format!("{origin}: unsupported type {other:?}"));
                return None;
            }
            None => {
                self.err(file, format!("{origin}: cannot tell the type: add \"type\" (integer, number, string, boolean, array, object)"));
                return None;
            }
        };
        Some((t, nullable))
    }

    /// Register a polymorphic record type (`oneOf` of objects with a discriminator).
    fn union(
        &mut self,
        name: &str,
        disc: &str,
        alts: &[J],
        o: &Map<String, J>,
        file: &str,
        origin: &str,
    ) -> Option<Type> {
        if !self.register(name, origin, file) {
            return None;
        }
        if self.project.unions.contains_key(name) {
            return Some(Type::Union(name.to_string()));
        }
        if let Some(sep) = separator_of(Some(&J::Object(o.clone()))) {
            self.project.separators.insert(name.to_string(), sep);
        }
        if let Some(J::Object(m)) = o.get("x-gentable-kindAliases") {
            let mut aliases = vec![];
            for (tag, names) in m {
                for a in string_list(Some(names)) {
                    aliases.push((a, tag.clone()));
                }
            }
            self.project.kind_aliases.insert(name.to_string(), aliases);
        }
        self.project.unions.insert(
            name.to_string(),
            crate::ir::UnionDef {
                name: name.to_string(),
                doc: doc_of(o),
                discriminator: disc.to_string(),
                variants: vec![],
                origin: origin.to_string(),
            },
        );
        let mut variants: Vec<crate::ir::Variant> = vec![];
        for (i, alt) in alts.iter().enumerate() {
            let (bfile, b, _) = self.resolve(alt, file)?;
            let bo = b.as_object().cloned().unwrap_or_default();
            let props = bo
                .get("properties")
                .and_then(J::as_object)
                .cloned()
                .unwrap_or_default();
            let tag = props.get(disc).and_then(|d| {
                d.get("const")
                    .and_then(J::as_str)
                    .or_else(
                        || match d.get("enum").and_then(J::as_array).map(Vec::as_slice) {
                            Some([one]) => one.as_str(),
                            _ => None,
                        },
                    )
                    .map(String::from)
            });
            let Some(tag) = tag else {
                self.err(file, format!("{origin}/oneOf/{i}: each branch must be an object whose property {disc:?} has a string \"const\""));
                return None;
            };
            if variants.iter().any(|v| v.tag == tag) {
                self.err(
                    file,
                    format!("{origin}: two branches have {disc} = {tag:?}"),
                );
                return None;
            }
            let required: Vec<&str> = bo
                .get("required")
                .and_then(J::as_array)
                .map(|a| a.iter().filter_map(J::as_str).collect())
                .unwrap_or_default();
            let mut fields = vec![];
            for (pname, ps) in &props {
                if pname == disc {
                    continue;
                }
                let hint = format!(
                    "{name}{}{}",
                    crate::naming::case(&tag, crate::naming::Case::Pascal),
                    crate::naming::case(pname, crate::naming::Case::Pascal)
                );
                let (pt, pn) = self.type_of(
                    ps,
                    &bfile,
                    &hint,
                    &format!("{origin}/oneOf/{i}/properties/{pname}"),
                )?;
                let pt = if pn || !required.contains(&pname.as_str()) {
                    Type::Optional(Box::new(pt))
                } else {
                    pt
                };
                fields.push(self.field(pname, ps, &bfile, pt));
            }
            variants.push(crate::ir::Variant {
                tag,
                doc: doc_of(&bo),
                fields,
            });
        }
        if let Some(u) = self.project.unions.get_mut(name) {
            u.variants = variants;
        }
        Some(Type::Union(name.to_string()))
    }

    /// Claim a generated type name for a definition; false (with an error) if another definition has it.
    fn register(&mut self, name: &str, origin: &str, file: &str) -> bool {
        match self.origins.get(name) {
            Some(o) if o != origin => {
                let o = o.clone();
                self.err(file, format!("two definitions are both named {name}: {o} and {origin}; move one into $defs or give it a distinct \"title\""));
                false
            }
            Some(_) => true,
            None => {
                self.origins.insert(name.to_string(), origin.to_string());
                true
            }
        }
    }
}

/// Percent-encode a schema file name (RFC 3986: everything but unreserved characters and `/`), so that
/// non-ASCII or spaced names (`道具.schema.json`, `Move Rule.schema.json`) form valid URIs.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The URI under which schema file `file` is registered for `jsonschema` (see [`BASE_URI`]).
pub fn schema_uri(file: &str) -> String {
    format!("{BASE_URI}{}", percent_encode(file))
}

/// A copy of `v` whose `$ref` values have their file part percent-encoded (the fragment is kept), so that
/// `jsonschema` resolves references to non-ASCII file names exactly as [`SchemaSet`] does.
pub fn encode_refs(v: &J) -> J {
    match v {
        J::Object(m) => J::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = match (k.as_str(), x) {
                        ("$ref", J::String(r)) => {
                            let (file, frag) = r
                                .split_once('#')
                                .map(|(f, g)| (f, Some(g)))
                                .unwrap_or((r.as_str(), None));
                            let file = if file.contains("://") {
                                file.to_string()
                            } else {
                                percent_encode(file)
                            };
                            J::String(match frag {
                                Some(g) => format!("{file}#{g}"),
                                None => file,
                            })
                        }
                        _ => encode_refs(x),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        J::Array(a) => J::Array(a.iter().map(encode_refs).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod uri_tests {
    use super::*;

    #[test]
    fn file_names_become_valid_uris() {
        assert_eq!(
            schema_uri("Move Rule.schema.json"),
            "file:///gentable/schema/Move%20Rule.schema.json"
        );
        assert_eq!(percent_encode("道具"), "%E9%81%93%E5%85%B7");
        let v = serde_json::json!({"properties": {"a": {"$ref": "道具.schema.json#/$defs/X"}, "b": {"$ref": "#/$defs/Y"}}});
        let e = encode_refs(&v);
        assert_eq!(
            e["properties"]["a"]["$ref"],
            "%E9%81%93%E5%85%B7.schema.json#/$defs/X"
        );
        assert_eq!(e["properties"]["b"]["$ref"], "#/$defs/Y");
    }
}
