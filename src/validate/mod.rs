//! Validation of typed tables, after [`crate::typing`]:
//! 1. every row against its table's JSON Schema with the `jsonschema` crate (offline; all schema files are
//!    registered under [`crate::schema::BASE_URI`]), so every standard keyword applies;
//! 2. primary keys (sorted, unique; a duplicate names both cells), secondary unique keys, singletons;
//! 3. foreign keys (`x-gentable-foreignKey`) in plain fields, array elements and nested records.
//!
//! Each check pushes [`Diagnostic`]s; none stops at the first error.

use crate::diag::Code;
use crate::diag::{column_letters, Diagnostic};
use crate::ir::{Project, Row, Table, TableMode, Type, Value};
use crate::schema::{SchemaSet, TableSchema};
use serde_json::Value as J;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

pub mod rules;
pub mod text;

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
        (_, Value::Str(s)) | (_, Value::Enum(s)) => J::String(s.clone()),
        (Type::Array(inner), Value::Array(items)) => J::Array(
            items
                .iter()
                .map(|x| value_to_json(project, inner, x))
                .collect(),
        ),
        (Type::Record(name), Value::Record(vals)) => {
            let rec = &project.records[name];
            J::Object(
                rec.fields
                    .iter()
                    .zip(vals)
                    .filter(|(_, v)| **v != Value::Null)
                    .map(|(f, v)| (f.name.clone(), value_to_json(project, &f.ty, v)))
                    .collect(),
            )
        }
        _ => crate::ir::canonical::schema_json(project, ty, v),
    }
}

/// The JSON instance of a row: absent optionals are omitted, except that required nullable fields are `null`.
pub fn row_to_json(project: &Project, schema: &TableSchema, row: &Row) -> J {
    let mut m = serde_json::Map::new();
    for (i, (f, v)) in schema.fields.iter().zip(&row.values).enumerate() {
        if *v == Value::Null && !schema.required[i] {
            continue;
        }
        m.insert(f.name.clone(), value_to_json(project, &f.ty, v));
    }
    J::Object(m)
}

/// Validate every row of every table against its JSON Schema.
pub fn json_schema_rows(
    project: &Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    diags: &mut Vec<Diagnostic>,
) {
    // Registered copies with percent-encoded `$ref`s, so that non-ASCII file names resolve.
    let encoded: Vec<(&String, serde_json::Value)> = set
        .files
        .iter()
        .map(|(name, doc)| (name, crate::schema::encode_refs(doc)))
        .collect();
    let mut builder = jsonschema::Registry::new();
    for (name, doc) in &encoded {
        builder = match builder.add(crate::schema::schema_uri(name), doc) {
            Ok(b) => b,
            Err(e) => {
                diags.push(Diagnostic::file_error(
                    Code::InvalidSchema,
                    set.rel(name),
                    format!("schema cannot be registered: {e}"),
                ));
                return;
            }
        };
    }
    let registry = match builder.prepare() {
        Ok(r) => r,
        Err(e) => {
            diags.push(Diagnostic::file_error(
                Code::InvalidSchema,
                set.dir_rel.clone(),
                format!("schemas cannot be resolved: {e}"),
            ));
            return;
        }
    };
    for ts in schemas {
        let Some(table) = project.table(&ts.name) else {
            continue;
        };
        let validator = match jsonschema::options()
            .offline()
            .with_draft(jsonschema::Draft::Draft202012)
            .with_registry(&registry)
            .with_base_uri(crate::schema::schema_uri(&ts.schema_file))
            .build(&crate::schema::encode_refs(&ts.root))
        {
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
        for row in &table.rows {
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
                        err,
                        keyword_of(err.schema_path().as_str())
                    ),
                );
                diags.push(d);
            }
        }
    }
}

fn keyword_of(schema_path: &str) -> &str {
    schema_path.rsplit('/').next().unwrap_or(schema_path)
}

fn key_text(key: &[usize], row: &Row) -> String {
    key.iter()
        .map(|&i| match &row.values[i] {
            Value::Str(s) | Value::Enum(s) => s.clone(),
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            v => format!("{v:?}"),
        })
        .collect::<Vec<_>>()
        .join(if key.len() > 1 { ", " } else { "" })
}

/// `(A, B)`: the field names of a composite key.
fn key_names(t: &Table, key: &[usize]) -> String {
    format!(
        "({})",
        key.iter()
            .map(|&i| t.fields[i].name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `("Red", 3)`: the values of a composite key in one row.
fn key_values(key: &[usize], row: &Row) -> String {
    let v: Vec<String> = key
        .iter()
        .map(|&i| match &row.values[i] {
            Value::Str(s) | Value::Enum(s) => format!("{s:?}"),
            Value::Null => "(empty)".into(),
            v => atom_text(v).unwrap_or_else(|| format!("{v:?}")),
        })
        .collect();
    format!("({})", v.join(", "))
}

/// `file:2:A and file:2:C`: every cell of a composite key in `row`.
fn where_cells(row: &Row, key: &[usize]) -> String {
    key.iter()
        .map(|&i| where_(row, row.column(i)))
        .collect::<Vec<_>>()
        .join(" and ")
}

fn where_(row: &Row, col: Option<usize>) -> String {
    let mut s = row.origin.file.clone();
    if let Some(sh) = &row.origin.sheet {
        s.push_str(&format!("[{sh}]"));
    }
    s.push_str(&format!(":{}", row.origin.row));
    if let Some(c) = col {
        s.push_str(&format!(":{}", column_letters(c)));
    }
    s
}

/// Sort map tables by primary key and report duplicates of primary and unique keys; check singletons.
pub fn keys(project: &mut Project, diags: &mut Vec<Diagnostic>) {
    // Key comparison reads only the enum declarations: do not copy every row.
    let snapshot = Project {
        enums: project.enums.clone(),
        ..Default::default()
    };
    for t in &mut project.tables {
        match t.mode {
            TableMode::One => {
                if t.rows.len() != 1 {
                    let mut d = Diagnostic::file_error(
                        Code::SingletonRows,
                        t.rows.get(1).map(|r| r.origin.file.clone()).unwrap_or_else(|| t.schema_file.clone()),
                        format!("{} is a singleton table (x-gentable-mode \"one\") and must have exactly one data row, found {}", t.name, t.rows.len()),
                    );
                    if let Some(r) = t.rows.get(1) {
                        d.sheet = r.origin.sheet.clone();
                        d.row = r.origin.row;
                    }
                    diags.push(d);
                }
            }
            TableMode::Map => {
                let pk = t.primary_key.clone();
                let tys: Vec<Type> = pk.iter().map(|&i| t.fields[i].ty.clone()).collect();
                let cmp = |a: &Row, b: &Row| {
                    pk.iter()
                        .zip(&tys)
                        .map(|(&i, ty)| {
                            crate::ir::cmp_key(&snapshot, ty, &a.values[i], &b.values[i])
                        })
                        .find(|o| o.is_ne())
                        .unwrap_or(Ordering::Equal)
                };
                // Stable sort: the first occurrence in source order stays first.
                t.rows.sort_by(cmp);
                let mut dup_idx = BTreeSet::new();
                for i in 1..t.rows.len() {
                    if cmp(&t.rows[i - 1], &t.rows[i]) == Ordering::Equal {
                        let (first, second) = (&t.rows[i - 1], &t.rows[i]);
                        let col = pk.first().and_then(|&c| second.column(c));
                        let pcol = pk.first().and_then(|&c| first.column(c));
                        let key = key_text(&pk, second);
                        let message = if pk.len() == 1 {
                            format!(
                                "duplicate primary key {key:?} in {}: also at {}",
                                t.name,
                                where_(first, pcol)
                            )
                        } else {
                            format!(
                                "duplicate primary key {} = {} in {}: also at {}",
                                key_names(t, &pk),
                                key_values(&pk, second),
                                t.name,
                                where_cells(first, &pk),
                            )
                        };
                        let d = Diagnostic::cell_error(
                            Code::DuplicateKey,
                            &second.origin,
                            col,
                            Some(&t.fields[pk[0]].name),
                            Some(&key),
                            message,
                        )
                        .with_help("primary keys must be unique; change or delete one of the rows");
                        diags.push(d);
                        dup_idx.insert(i);
                    }
                }
                // Keep the first of each duplicate group so that lookups stay well-defined.
                let mut i = 0;
                t.rows.retain(|_| {
                    let keep = !dup_idx.contains(&i);
                    i += 1;
                    keep
                });
            }
            TableMode::List => {}
        }
        for uk in t.unique_keys.clone() {
            let mut seen: HashMap<String, usize> = HashMap::new();
            for (ri, row) in t.rows.iter().enumerate() {
                if uk.iter().all(|&i| row.values[i] == Value::Null) {
                    continue;
                }
                let key = key_text(&uk, row);
                if let Some(&prev) = seen.get(&key) {
                    let first = &t.rows[prev];
                    let names: Vec<&str> = uk.iter().map(|&i| t.fields[i].name.as_str()).collect();
                    diags.push(
                        Diagnostic::cell_error(
                            Code::DuplicateUnique,
                            &row.origin,
                            row.column(uk[0]),
                            Some(&t.fields[uk[0]].name),
                            Some(&key),
                            if uk.len() == 1 {
                                format!(
                                    "duplicate value {key:?} of unique key ({}) in {}: also at {}",
                                    names.join(", "),
                                    t.name,
                                    where_(first, first.column(uk[0]))
                                )
                            } else {
                                format!(
                                    "duplicate value {} of unique key {} in {}: also at {}",
                                    key_values(&uk, row),
                                    key_names(t, &uk),
                                    t.name,
                                    where_cells(first, &uk)
                                )
                            },
                        )
                        .with_help(
                            "values of a unique key (x-gentable-unique) may appear only once",
                        ),
                    );
                } else {
                    seen.insert(key, ri);
                }
            }
        }
    }
}

/// Hints ("did you mean") are computed for at most this many missing references per field, so that
/// 10,000 broken references stay linear; the rest get a generic help.
const MAX_HINTS_PER_FIELD: usize = 200;

/// Key sets of foreign key targets: `(table, field)` → the text of every value (None: no such target).
type KeySets<'a> = HashMap<(&'a str, Option<&'a str>), Option<(HashSet<String>, Vec<String>)>>;

fn key_sets(project: &Project) -> KeySets<'_> {
    let mut sets: KeySets = HashMap::new();
    let mut targets: Vec<(&str, Option<&str>)> = vec![];
    let mut fields: Vec<&crate::ir::Field> = project
        .tables
        .iter()
        .flat_map(|t| t.fields.iter())
        .collect();
    fields.extend(project.records.values().flat_map(|r| r.fields.iter()));
    for f in fields {
        for (tt, tf) in &f.foreign_keys {
            targets.push((tt.as_str(), tf.as_deref()));
        }
    }
    for (tt, tf) in targets {
        sets.entry((tt, tf)).or_insert_with(|| {
            let t = project.table(tt)?;
            let fi = match tf {
                Some(f) => t.field_index(f)?,
                None if t.primary_key.len() == 1 => t.primary_key[0],
                None => return None,
            };
            let mut list = vec![];
            collect_atoms(
                &Value::Array(t.rows.iter().map(|r| r.values[fi].clone()).collect()),
                &mut list,
            );
            Some((list.iter().cloned().collect(), list))
        });
    }
    sets
}

/// Per table, BLAKE3 over what other tables' foreign keys can see of it: for every foreign-key target
/// `(table, field)` declared anywhere in the project (table fields and record fields), the target's values in
/// row order, as [`foreign_keys`] lists them for checks and hints. Equal digests mean every reference into the
/// table checks out, and is reported, exactly as before (the one-table rebuild, [`crate::build::incremental`]).
pub fn key_digests(project: &Project) -> BTreeMap<String, [u8; 32]> {
    KeyIndex::new(project).digests(project)
}

/// The key sets of every foreign-key target of a project (per `(table, field)`: the values as text, as a set
/// for checks and in row order for hints and digests), built once for [`foreign_keys_in`] and
/// [`KeyIndex::digests`].
pub struct KeyIndex<'a>(KeySets<'a>);

impl<'a> KeyIndex<'a> {
    pub fn new(project: &'a Project) -> KeyIndex<'a> {
        KeyIndex(key_sets(project))
    }

    /// [`key_digests`] of `project`, the project this index was built from.
    pub fn digests(&self, project: &Project) -> BTreeMap<String, [u8; 32]> {
        let sets = &self.0;
        type Target<'a> = (
            &'a str,
            Option<&'a str>,
            &'a Option<(HashSet<String>, Vec<String>)>,
        );
        let mut targets: Vec<Target> = sets.iter().map(|((t, f), s)| (*t, *f, s)).collect();
        targets.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let mut out: BTreeMap<String, blake3::Hasher> = project
            .tables
            .iter()
            .map(|t| (t.name.clone(), blake3::Hasher::new()))
            .collect();
        for (table, field, s) in targets {
            let Some(h) = out.get_mut(table) else {
                continue;
            };
            h.update(field.unwrap_or("\u{0}").as_bytes());
            h.update(b"\0");
            match s {
                None => {
                    h.update(b"-");
                }
                Some((_, list)) => {
                    h.update(&(list.len() as u64).to_le_bytes());
                    for v in list {
                        h.update(&(v.len() as u64).to_le_bytes());
                        h.update(v.as_bytes());
                    }
                }
            }
        }
        out.into_iter()
            .map(|(k, h)| (k, *h.finalize().as_bytes()))
            .collect()
    }
}

/// Call `f(table, field, column_field_index, row, atom, path)` for every value of every foreign key field:
/// plain fields, each element of array fields, and fields of nested records (at any depth).
fn each_reference<'p>(
    project: &'p Project,
    f: &mut dyn FnMut(&'p Table, &'p crate::ir::Field, usize, &'p Row, String, String),
) {
    for t in &project.tables {
        for row in &t.rows {
            for (fi, field) in t.fields.iter().enumerate() {
                let v = &row.values[fi];
                if !field.foreign_keys.is_empty() {
                    let mut atoms = vec![];
                    collect_atoms(v, &mut atoms);
                    for a in atoms {
                        f(t, field, fi, row, a, String::new());
                    }
                }
                walk_records(project, &field.ty, v, &mut |rf, rv| {
                    if rf.foreign_keys.is_empty() {
                        return;
                    }
                    let mut atoms = vec![];
                    collect_atoms(rv, &mut atoms);
                    for a in atoms {
                        f(
                            t,
                            rf,
                            fi,
                            row,
                            a,
                            format!(" (in {}.{})", field.name, rf.name),
                        );
                    }
                });
            }
        }
    }
}

/// Up to `n` candidates close to `needle` (case-insensitive match first, then Jaro–Winkler ≥ 0.7).
pub fn closest_n<'a>(
    needle: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let lower = needle.to_lowercase();
    let mut scored: Vec<(&str, f64)> = candidates
        .into_iter()
        .filter_map(|c| {
            let cl = c.to_lowercase();
            let score = if cl == lower {
                2.0
            } else {
                strsim::jaro_winkler(&lower, &cl)
            };
            (score >= 0.7).then_some((c, score))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    scored.dedup_by(|a, b| a.0 == b.0);
    scored.into_iter().take(n).map(|(c, _)| c).collect()
}

/// Check every `x-gentable-foreignKey`: the value (or each array element, or the nested record field)
/// must be an existing key of one of the target tables. Null (an empty optional cell) is never checked:
/// whether a cell may be empty is the schema's `required`/nullable business, checked while typing.
pub fn foreign_keys(project: &Project, set: &SchemaSet, diags: &mut Vec<Diagnostic>) {
    foreign_keys_in(project, &KeyIndex::new(project), set, None, diags)
}

/// [`foreign_keys`] with the project's [`KeyIndex`], checking only the references made by the tables in
/// `from` (all when `None`, a one-table rebuild's tables otherwise, [`crate::build::incremental`]); the targets may
/// be any table of `project`.
pub fn foreign_keys_in(
    project: &Project,
    index: &KeyIndex,
    set: &SchemaSet,
    from: Option<&BTreeSet<String>>,
    diags: &mut Vec<Diagnostic>,
) {
    let sets = &index.0;
    let mut bad_decl: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut hints: HashMap<(String, String), usize> = HashMap::new();
    each_reference(project, &mut |t, field, fi, row, a, path| {
        if from.is_some_and(|from| !from.contains(&t.name)) {
            return;
        }
        let mut targets = vec![];
        for (tt, tf) in &field.foreign_keys {
            match sets
                .get(&(tt.as_str(), tf.as_deref()))
                .and_then(|s| s.as_ref())
            {
                Some(s) => targets.push((tt.as_str(), s)),
                None => {
                    let target = format!(
                        "{tt}{}",
                        tf.as_ref().map(|f| format!(".{f}")).unwrap_or_default()
                    );
                    if bad_decl.insert((t.schema_file.clone(), field.name.clone(), target.clone()))
                    {
                        diags.push(Diagnostic::file_error(
                            Code::BadForeignKey,
                            set.rel(&t.schema_file),
                            format!(
                                "{}.{}: x-gentable-foreignKey names {target}, which is not a table with a single-field primary key or an existing field",
                                t.name, field.name,
                            ),
                        ));
                    }
                    return;
                }
            }
        }
        if targets.iter().any(|(_, (set, _))| set.contains(&a)) {
            return;
        }
        let names: Vec<&str> = targets.iter().map(|(n, _)| *n).collect();
        let mut d = Diagnostic::cell_error(
            Code::MissingReference,
            &row.origin,
            row.column(fi),
            Some(&field.name),
            Some(&a),
            format!("{a:?}{path} is not a key of {}", names.join(" or ")),
        );
        let n = hints
            .entry((t.name.clone(), field.name.clone()))
            .or_default();
        *n += 1;
        let close = if *n <= MAX_HINTS_PER_FIELD {
            closest_n(
                &a,
                targets
                    .iter()
                    .flat_map(|(_, (_, l))| l.iter().map(|s| s.as_str())),
                3,
            )
        } else {
            vec![]
        };
        d = match close.as_slice() {
            [] => d.with_help(format!(
                "add a row with this key to {}, or fix the reference",
                names.join(" or ")
            )),
            [one] => d.with_help(format!("did you mean {one:?}?")),
            [one, rest @ ..] => d.with_help(format!(
                "did you mean {one:?}? (also close: {})",
                rest.iter()
                    .map(|s| format!("{s:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        };
        diags.push(d);
    });
}

/// `x-gentable-unreferenced` on a table schema: `"warning"`/`"error"`, or
/// `{"severity": "warning", "except": ["Key", …]}`. Every row whose primary key no foreign key of the project
/// references is reported (GT0320) with that severity, except the listed keys. Example: unused `Lang` keys.
pub fn unreferenced(
    project: &Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    diags: &mut Vec<Diagnostic>,
) {
    let mut wanted = vec![];
    for ts in schemas {
        let (severity, except) = match &ts.unreferenced {
            None => continue,
            Some(Ok(u)) => (
                u.severity,
                u.except.iter().map(String::as_str).collect::<Vec<_>>(),
            ),
            Some(Err(m)) => {
                diags.push(Diagnostic::file_error(
                    Code::InvalidSchema,
                    set.rel(&ts.schema_file),
                    m.clone(),
                ));
                continue;
            }
        };
        let Some(t) = project.table(&ts.name) else {
            continue;
        };
        if t.primary_key.len() != 1 {
            continue;
        }
        wanted.push((
            t,
            severity,
            except
                .into_iter()
                .map(String::from)
                .collect::<HashSet<String>>(),
        ));
    }
    if wanted.is_empty() {
        return;
    }
    let mut used: HashSet<(String, String)> = HashSet::new();
    each_reference(project, &mut |_, field, _, _, a, _| {
        for (tt, tf) in &field.foreign_keys {
            let t = project.table(tt);
            let is_pk = match (tf, t) {
                (None, _) => true,
                (Some(f), Some(t)) => {
                    t.primary_key.len() == 1 && t.fields[t.primary_key[0]].name == *f
                }
                _ => false,
            };
            if is_pk {
                used.insert((tt.clone(), a.clone()));
            }
        }
    });
    for (t, severity, except) in wanted {
        let pk = t.primary_key[0];
        for row in &t.rows {
            let Some(k) = atom_text(&row.values[pk]) else {
                continue;
            };
            if except.contains(&k) || used.contains(&(t.name.clone(), k.clone())) {
                continue;
            }
            let mut d = Diagnostic::cell_error(
                Code::Unreferenced,
                &row.origin,
                row.column(pk),
                Some(&t.fields[pk].name),
                Some(&k),
                format!("{k:?} of {} is not referenced by any table", t.name),
            )
            .with_help(format!("delete the row, reference it, or list it in \"except\" of x-gentable-unreferenced in the {} schema", t.name));
            d.severity = severity;
            diags.push(d);
        }
    }
}

fn walk_records<'p>(
    project: &'p Project,
    ty: &Type,
    v: &Value,
    f: &mut dyn FnMut(&'p crate::ir::Field, &Value),
) {
    match (ty.strip_optional(), v) {
        (Type::Array(inner), Value::Array(items)) => items
            .iter()
            .for_each(|x| walk_records(project, inner, x, f)),
        (Type::Record(name), Value::Record(vals)) => {
            for (rf, rv) in project.records[name].fields.iter().zip(vals) {
                f(rf, rv);
                walk_records(project, &rf.ty, rv, f);
            }
        }
        _ => {}
    }
}

fn atom_text(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) | Value::Enum(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn collect_atoms(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Array(items) => items.iter().for_each(|x| collect_atoms(x, out)),
        Value::Null => {}
        v => out.extend(atom_text(v)),
    }
}
