//! **schema/** owns `schema/*.schema.json` → IR types and is the only reader of `x-gentable-*` annotations.
//! It may import the IR, naming and diagnostics; never `read/`, `typing/` or later stages.
//!
//! Schemas: `schema/*.schema.json` (JSON Schema 2020-12, one row per table) → IR types.
//!
//! See docs/conventions.md §4 for the type mapping and the `x-gentable-*` annotations, and
//! docs/json-schema-support.md for how every JSON Schema keyword is typed (`schema/typer.rs`). [`set`] holds the
//! schema files and the registry that resolves `$ref`s within the folder (pointers, `$id`s, `$anchor`s);
//! nothing is fetched. Enum and record types are named by their `$defs` key, else their `title`, else
//! `<Table><Field>`; one name used for two different definitions is an error.

pub mod keywords;
pub mod set;
mod typer;
pub mod view;

pub use keywords::{enum_values, member_idents, parse_offset, string_list};
pub use set::{
    encode_refs, load_dir, percent_decode, percent_encode, schema_uri, SchemaSet, BASE_URI,
};
pub use typer::ANNOTATIONS;

use crate::diag::Code;
use crate::diag::{Diagnostic, Severity};
use crate::ir::{Field, Project, TableMode, Type};
use keywords::doc_of;
use serde_json::Value as J;

/// Prefix of every gentable annotation keyword.
pub const PREFIX: &str = "x-gentable-";

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
    /// Per field: the diagnostic of a `default` that does not fit the field or breaks its own schema (set by
    /// the build before typing, `typing::defaults`). Typing reports it once: an error when a row takes it,
    /// else a warning.
    pub bad_defaults: Vec<Option<Diagnostic>>,
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
    let mut ctx = typer::Ctx::new(set, project);
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
    // Properties are typed from the registered copy of the schema, where `$ref`s resolve.
    let Some(mut row) = ctx.root(schema_file) else {
        return Err(ctx.diags);
    };
    row.origin = format!("{schema_file}#");
    let registered = row.s.get("properties").and_then(J::as_object);
    for (name, ps) in registered.into_iter().flatten() {
        let is_req = required.contains(name);
        let hint = format!(
            "{table}{}",
            crate::naming::case(name, crate::naming::Case::Pascal)
        );
        let node = ctx.child(&row, ps, &format!("properties/{name}"));
        let (ty, nullable) = match ctx.type_of(&node, &hint) {
            Some(t) => t,
            None => continue,
        };
        let ty = if nullable || !is_req {
            Type::Optional(Box::new(ty))
        } else {
            ty
        };
        fields.push(ctx.field(name, &node, ty));
        req.push(is_req);
        defaults.push(ctx.default_of(&node));
    }
    let _ = props;
    let raw = registered
        .into_iter()
        .flatten()
        .filter_map(|(name, ps)| Some((name.as_str(), ps.get("x-gentable-aliases")?)));
    for m in typer::alias_errors(raw, &fields) {
        ctx.diags.push(err(m));
    }
    let index_of = |ctx: &mut typer::Ctx, what: &str, n: &str| -> Option<usize> {
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
            bad_defaults: vec![],
        })
    } else {
        Err(ctx.diags)
    }
}
