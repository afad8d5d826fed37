//! Every row against its table's JSON Schema, with the `jsonschema` crate (offline: all schema files are
//! registered under [`crate::schema::BASE_URI`], nothing is fetched), so every standard keyword applies.
//! Failures are GT0301 at the cell of the field the keyword's instance path names.

use crate::diag::{Code, Diagnostic};
use crate::ir::{Project, RecordForm, Row, Type, Value};
use crate::schema::{SchemaSet, TableSchema};
use rayon::prelude::*;
use serde_json::Value as J;
use std::collections::HashSet;
use std::ops::Range;

/// A typed value as the JSON instance `jsonschema` validates (integers as numbers, enums as strings).
pub fn value_to_json(project: &Project, ty: &Type, v: &Value) -> J {
    match (ty.strip_optional(), v) {
        (_, Value::Null) => J::Null,
        (_, Value::Bool(b)) => J::Bool(*b),
        (_, Value::Int(i)) => {
            if let Ok(x) = i64::try_from(*i) {
                J::from(x)
            } else if let Ok(x) = u64::try_from(*i) {
                J::from(x)
            } else {
                J::Null
            }
        }
        (_, Value::Float(f)) => serde_json::Number::from_f64(*f)
            .map(J::Number)
            .unwrap_or(J::Null),
        (_, Value::Str(s)) | (_, Value::Enum(s)) => J::String(s.to_string()),
        (Type::Array(inner), Value::Array(items)) => J::Array(
            items
                .iter()
                .map(|x| value_to_json(project, inner, x))
                .collect(),
        ),
        (Type::Record(name), Value::Record(vals)) => {
            let rec = &project.records[name];
            if let RecordForm::Tuple { .. } = rec.form {
                return J::Array(
                    crate::ir::canonical::tuple_items(rec, vals)
                        .into_iter()
                        .map(|(t, x)| value_to_json(project, t, x))
                        .collect(),
                );
            }
            let n = rec.declared().len();
            let mut m: serde_json::Map<String, J> = rec.fields[..n]
                .iter()
                .zip(vals)
                .filter(|(_, v)| **v != Value::Null)
                .map(|(f, v)| (f.name.clone(), value_to_json(project, &f.ty, v)))
                .collect();
            if let (RecordForm::Open, Some(Type::Map(_, vt)), Some(Value::Map(extra))) =
                (rec.form, rec.fields.get(n).map(|f| &f.ty), vals.get(n))
            {
                for (k, x) in extra {
                    m.insert(
                        crate::ir::canonical::map_key_text(k),
                        value_to_json(project, vt, x),
                    );
                }
            }
            J::Object(m)
        }
        (Type::Map(_, vt), Value::Map(entries)) => J::Object(
            entries
                .iter()
                .map(|(k, x)| {
                    (
                        crate::ir::canonical::map_key_text(k),
                        value_to_json(project, vt, x),
                    )
                })
                .collect(),
        ),
        // A polymorphic record: its discriminator and its kind's fields, each typed as above (the canonical form
        // below writes integers beyond ±(2^53 − 1) as strings, which `"type": "integer"` refuses).
        (Type::Union(name), Value::Union(uv)) => {
            let u = &project.unions[name];
            let Some(var) = u.variant(&uv.tag) else {
                return crate::ir::canonical::schema_json(project, ty, v);
            };
            let mut m = serde_json::Map::new();
            m.insert(u.discriminator.clone(), J::String(uv.tag.clone()));
            for (f, x) in var.fields.iter().zip(&uv.values) {
                if *x != Value::Null {
                    m.insert(f.name.clone(), value_to_json(project, &f.ty, x));
                }
            }
            J::Object(m)
        }
        (_, Value::Json(j)) => (**j).clone(),
        _ => crate::ir::canonical::schema_json(project, ty, v),
    }
}

/// The JSON instance of a row: absent optionals are omitted, except that required nullable fields are `null`.
pub fn row_to_json(project: &Project, schema: &TableSchema, row: &Row) -> J {
    let mut m = serde_json::Map::new();
    for (i, (f, v)) in schema.fields.iter().zip(&row.values).enumerate() {
        // A failed cell is left out (its error is reported already; see [`about_failed`]).
        if (*v == Value::Null && !schema.required[i]) || row.failed(i) {
            continue;
        }
        m.insert(f.name.clone(), value_to_json(project, &f.ty, v));
    }
    J::Object(m)
}

/// The registry of every schema file of `set` (percent-encoded `$ref`s, so that non-ASCII file names
/// resolve), or the diagnostics that say why it cannot be made.
fn registry(set: &SchemaSet, diags: &mut Vec<Diagnostic>) -> Option<jsonschema::Registry<'static>> {
    let encoded: Vec<(&String, serde_json::Value)> = set
        .files
        .iter()
        .map(|(name, doc)| (name, crate::schema::encode_refs(doc)))
        .collect();
    let mut builder = jsonschema::Registry::new();
    for (name, doc) in encoded {
        builder = match builder.add(crate::schema::schema_uri(name), doc) {
            Ok(b) => b,
            Err(e) => {
                diags.push(Diagnostic::file_error(
                    Code::InvalidSchema,
                    set.rel(name),
                    format!("schema cannot be registered: {e}"),
                ));
                return None;
            }
        };
    }
    match builder.prepare() {
        Ok(r) => Some(r),
        Err(referencing::Error::UnknownSpecification { specification }) => {
            // A `$schema` naming a custom meta-schema at a URL: it would have to be fetched.
            let files: Vec<&String> = set
                .files
                .iter()
                .filter(|(_, doc)| doc.get("$schema").and_then(J::as_str) == Some(&specification))
                .map(|(name, _)| name)
                .collect();
            let message = format!(
                "\"$schema\": {specification:?} names a meta-schema that is not in the schema folder, and nothing is fetched; write \"$schema\": \"https://json-schema.org/draft/2020-12/schema\" (or leave it out)"
            );
            if files.is_empty() {
                diags.push(Diagnostic::file_error(
                    Code::UnresolvedRef,
                    set.dir_rel.clone(),
                    message.clone(),
                ));
            }
            for name in files {
                diags.push(Diagnostic::file_error(
                    Code::UnresolvedRef,
                    set.rel(name),
                    message.clone(),
                ));
            }
            None
        }
        Err(e) => {
            // The schema stage resolves with the same registry and reports the reference that does not
            // resolve at its `$ref` (GT0412); typing goes on after errors, so that one is here already.
            if !diags.iter().any(|d| d.code == Code::UnresolvedRef) {
                diags.push(Diagnostic::file_error(
                    Code::InvalidSchema,
                    set.dir_rel.clone(),
                    format!("schemas cannot be resolved: {e}"),
                ));
            }
            None
        }
    }
}

/// The compiled validator of table schema `ts` ([`super::native::options`], the folder's registry).
fn validator(
    set: &SchemaSet,
    registry: &jsonschema::Registry<'static>,
    ts: &TableSchema,
) -> Result<jsonschema::Validator, String> {
    super::native::options(set.formats)
        .with_registry(registry)
        .with_base_uri(crate::schema::schema_uri(&ts.schema_file))
        .build(&crate::schema::encode_refs(&ts.root))
        .map_err(|e| e.to_string())
}

/// Validate every row of every table against its JSON Schema. A row of a table whose schema the native
/// checker covers ([`super::native::Plan`]) and that it finds valid is not converted to JSON; every other
/// row is validated by `jsonschema`, whose findings are the diagnostics.
pub fn rows(
    project: &Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    diags: &mut Vec<Diagnostic>,
) {
    let parts: Vec<(&TableSchema, Range<usize>)> = schemas
        .iter()
        .filter_map(|ts| Some((ts, 0..project.table(&ts.name)?.rows.len())))
        .collect();
    rows_in(project, set, &parts, diags);
}

/// [`rows`] for the rows `range` of the table of each `(schema, range)`, in that order (a table of the schema
/// that `project` lacks is skipped). Each part compiles its table's validator, so a schema `jsonschema`
/// refuses is reported (GT0403) by every part of its table, empty ranges included.
fn rows_in(
    project: &Project,
    set: &SchemaSet,
    parts: &[(&TableSchema, Range<usize>)],
    diags: &mut Vec<Diagnostic>,
) {
    let Some(registry) = registry(set, diags) else {
        return;
    };
    for (ts, range) in parts {
        let ts: &TableSchema = ts;
        let Some(table) = project.table(&ts.name) else {
            continue;
        };
        let validator = match validator(set, &registry, ts) {
            Ok(v) => v,
            Err(e) => {
                diags.push(Diagnostic::file_error(
                    Code::InvalidSchema,
                    set.rel(&ts.schema_file),
                    format!("invalid JSON Schema: {e}"),
                ));
                continue;
            }
        };
        let plan = super::native::Plan::new(project, set, ts);
        for row in &table.rows[range.clone()] {
            if plan.check(ts, row) == Some(true) {
                continue;
            }
            let inst = row_to_json(project, ts, row);
            for err in validator.iter_errors(&inst) {
                let path = err.instance_path().as_str().to_string();
                let field_name = path
                    .trim_start_matches('/')
                    .split('/')
                    .next()
                    .unwrap_or("")
                    .replace("~1", "/")
                    .replace("~0", "~");
                let fi = ts.fields.iter().position(|f| f.name == field_name);
                if about_failed(&err, ts, row, fi) {
                    continue;
                }
                let cell = fi
                    .and_then(|i| inst.get(&ts.fields[i].name))
                    .map(|v| match v {
                        J::String(s) => s.clone(),
                        v => v.to_string(),
                    });
                let inner = path
                    .trim_start_matches('/')
                    .split_once('/')
                    .map(|(_, r)| format!(" at {r}"))
                    .unwrap_or_default();
                let d = Diagnostic::cell_error(
                    Code::SchemaKeyword,
                    &row.origin,
                    fi.and_then(|i| row.column(i)),
                    fi.map(|i| ts.fields[i].name.as_str()),
                    cell.as_deref(),
                    format!(
                        "{}{inner} (schema keyword {})",
                        finding(&err),
                        keyword_of(err.schema_path().as_str())
                    ),
                );
                diags.push(d);
            }
        }
    }
}

/// Whether a finding is about a cell that failed to type (its field, or `required` naming it): that cell was
/// reported already and is left out of every later check.
fn about_failed(
    err: &jsonschema::ValidationError,
    ts: &TableSchema,
    row: &crate::ir::Row,
    fi: Option<usize>,
) -> bool {
    if !row.any_failed() {
        return false;
    }
    if fi.is_some_and(|i| row.failed(i)) {
        return true;
    }
    match err.kind() {
        jsonschema::error::ValidationErrorKind::Required { property } => property
            .as_str()
            .and_then(|p| ts.fields.iter().position(|f| f.name == p))
            .is_some_and(|i| row.failed(i)),
        _ => false,
    }
}

/// The validator's finding in words: its own text, except where the text holds a list (`enum` members,
/// `type` names, unexpected members), which is made here from the list's items ([`crate::diag::list`]) so
/// the Chinese joins them with Chinese joiners. The English is the validator's, word for word (at most
/// three `enum` members shown, as it shows them).
fn finding(err: &jsonschema::ValidationError) -> String {
    use crate::diag::list::{Joiner, List};
    use jsonschema::error::{TypeKind, ValidationErrorKind as K};
    match err.kind() {
        K::Enum { options } => {
            let all = options.as_array().map(Vec::as_slice).unwrap_or_default();
            let list = if all.len() <= 3 {
                List::new(Joiner::Or).items(all)
            } else {
                List::new(Joiner::Or).items(&all[..2]).more(all.len() - 2)
            };
            format!("{} is not one of {}", err.instance(), list.text())
        }
        K::Type {
            kind: TypeKind::Multiple(types),
        } => format!(
            "{} is not of types {}",
            err.instance(),
            crate::diag::list::series(types.iter().map(|t| format!("\"{t}\"")))
        ),
        // A `false` subschema: the value must be absent (the importer's polymorphic rows forbid the fields
        // of the other kinds so).
        K::FalseSchema => format!(
            "{} is not allowed here: this field must be empty (its schema is false)",
            err.instance()
        ),
        K::AdditionalProperties { unexpected } => format!(
            "Additional properties are not allowed ({} {} unexpected)",
            crate::diag::list::series(unexpected.iter().map(|p| format!("'{p}'"))),
            if unexpected.len() == 1 { "was" } else { "were" }
        ),
        _ => err.to_string(),
    }
}

fn keyword_of(schema_path: &str) -> &str {
    schema_path.rsplit('/').next().unwrap_or(schema_path)
}

/// Validate every row against its JSON Schema ([`rows`]) on all cores: the tables are split into work units
/// of whole small tables or row ranges of big ones, each validated on its own (with its own schema
/// registry) where the rows are; no row is moved or copied. Per-row findings are those of one sequential
/// call (they do not depend on the split); a schema-level finding (row 0) is kept once per file and message,
/// so two tables that share one schema file (a `schema` override) report a schema the validator refuses
/// once here and twice in [`rows`].
pub fn rows_parallel(
    project: &Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    diags: &mut Vec<Diagnostic>,
) {
    let total: usize = project.tables.iter().map(|t| t.rows.len()).sum();
    let threads = rayon::current_num_threads();
    if threads < 2 || total < 20_000 {
        rows(project, set, schemas, diags);
        return;
    }
    let unit = (total / (threads * 4)).max(5_000);
    // Work units: (schema, row range) parts; whole tables are grouped up to `unit` rows, a bigger table is
    // split into ranges. The rows stay where they are: every unit reads the one project.
    let mut units: Vec<Vec<(&TableSchema, Range<usize>)>> = vec![vec![]];
    let mut filled = 0;
    for ts in schemas {
        let Some(t) = project.table(&ts.name) else {
            continue;
        };
        // A table without rows still goes to a unit: `rows_in` compiles its validator, and a schema the
        // validator refuses is reported (GT0403) whatever the project's size, as in the serial path.
        if t.rows.is_empty() {
            units.last_mut().expect("one unit").push((ts, 0..0));
            continue;
        }
        let mut from = 0;
        while from < t.rows.len() {
            if filled >= unit {
                units.push(vec![]);
                filled = 0;
            }
            let n = (t.rows.len() - from).min(unit - filled);
            filled += n;
            units
                .last_mut()
                .expect("one unit")
                .push((ts, from..from + n));
            from += n;
        }
    }
    let results: Vec<Vec<Diagnostic>> = units
        .into_par_iter()
        .with_max_len(1)
        .map(|parts| {
            let mut d = vec![];
            rows_in(project, set, &parts, &mut d);
            d
        })
        .collect();
    let mut seen_file_level: HashSet<(String, String)> = HashSet::new();
    for d in results {
        for x in d {
            // A schema-level finding is repeated by every unit that holds rows of its table(s).
            if x.row == 0 && !seen_file_level.insert((x.file.clone(), x.message.clone())) {
                continue;
            }
            diags.push(x);
        }
    }
}

/// How the two validation paths decided the rows of a project ([`compare_paths`]).
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    /// Rows compared (rows with a failed cell are left out: neither path sees them whole).
    pub rows: usize,
    /// Tables the native checker covers, and the others with the reason.
    pub covered: Vec<String>,
    pub uncovered: Vec<(String, String)>,
    /// Rows of covered tables the native checker found valid, invalid, or could not decide.
    pub native_valid: usize,
    pub native_invalid: usize,
    pub undecided: usize,
    /// Rows `jsonschema` found invalid.
    pub invalid: usize,
    /// Every row where the paths disagree: `table row N: native … , jsonschema …` with the instance.
    pub disagreements: Vec<String>,
}

/// Run both paths on every row of `schemas`' tables in `project`: the native plan
/// ([`super::native::Plan::check`]) and the `jsonschema` validator on [`row_to_json`]; see [`Comparison`].
/// Used by `tests/native_validation.rs` to prove that a row the native checker passes has no finding.
pub fn compare_paths(project: &Project, set: &SchemaSet, schemas: &[TableSchema]) -> Comparison {
    let mut out = Comparison::default();
    let mut diags = vec![];
    let Some(registry) = registry(set, &mut diags) else {
        return out;
    };
    for ts in schemas {
        let (Some(table), Ok(validator)) = (project.table(&ts.name), validator(set, &registry, ts))
        else {
            continue;
        };
        let plan = super::native::Plan::new(project, set, ts);
        match plan.covered() {
            Ok(()) => out.covered.push(ts.name.clone()),
            Err(why) => out.uncovered.push((ts.name.clone(), why.to_string())),
        }
        for (i, row) in table.rows.iter().enumerate() {
            if row.any_failed() {
                continue;
            }
            out.rows += 1;
            let inst = row_to_json(project, ts, row);
            let valid = validator.is_valid(&inst);
            out.invalid += usize::from(!valid);
            let native = plan.check(ts, row);
            match native {
                Some(true) => out.native_valid += 1,
                Some(false) => out.native_invalid += 1,
                None if plan.covered().is_ok() => out.undecided += 1,
                None => {}
            }
            if native.is_some_and(|n| n != valid) {
                out.disagreements.push(format!(
                    "{} row {i}: native {native:?}, jsonschema {valid}: {inst}",
                    ts.name
                ));
            }
        }
    }
    out
}
