//! The schema `default`s, checked once per table before any row is typed (docs/diagnostics.md GT0404): a
//! default must be a value of its field's type (a JSON literal, read without coercion) and satisfy the
//! field's own schema (every keyword, by the `jsonschema` validator). A bad default is one diagnostic at
//! the schema, not one per empty cell: for a row field an error when rows take it (naming how many and the
//! first), a warning when none does ([`report`]); for a record field always an error (the table is not
//! typed), since its cells cannot be told apart.

use crate::diag::{Code, Diagnostic};
use crate::ir::{Field, Project, RecordForm, Type};
use crate::schema::set::SchemaSet;
use crate::schema::TableSchema;
use serde_json::Value as J;
use std::collections::{BTreeMap, BTreeSet};

/// What [`check`] keeps from one table to the next of a build: the records whose defaults were checked, and the
/// number literals of each schema file that would not ship as written (each file scanned once).
#[derive(Default)]
pub struct Checked {
    records: BTreeSet<String>,
    /// Per schema file: [`crate::typing::cell::json::inexact_numbers`] of its text.
    literals: BTreeMap<String, Vec<(String, String, f64)>>,
}

/// Check the defaults of `ts`'s fields (into `ts.bad_defaults`) and of the fields of every record it holds
/// (returned: errors). Records met before (in `checked`) are not checked again.
pub fn check(
    project: &Project,
    set: &SchemaSet,
    ts: &mut TableSchema,
    checked: &mut Checked,
) -> Vec<Diagnostic> {
    let mut out = vec![];
    let rel = set.rel(&ts.schema_file);
    ts.bad_defaults = vec![None; ts.fields.len()];
    for (i, (f, d)) in ts.fields.iter().zip(&ts.defaults).enumerate() {
        if let Some(d) = d {
            let at = format!("{}#/properties/{}", ts.schema_file, segment(&f.name));
            let mut one_out = vec![];
            one(project, set, &rel, &ts.name, f, d, &at, &mut one_out);
            let place = (
                ts.schema_file.as_str(),
                format!("/properties/{}", pointer_segment(&f.name)),
            );
            inexact(set, checked, place, d, &rel, &ts.name, f, &mut one_out);
            ts.bad_defaults[i] = one_out.into_iter().next();
        }
    }
    let mut records = BTreeSet::new();
    for f in &ts.fields {
        collect(project, &f.ty, &mut records);
    }
    for name in records {
        if !checked.records.insert(name.clone()) {
            continue;
        }
        let r = &project.records[&name];
        if matches!(r.form, RecordForm::Tuple { .. }) {
            continue;
        }
        for f in r.declared() {
            if let Some(d) = &f.default {
                let at = format!("{}/properties/{}", r.origin, segment(&f.name));
                let file = r.origin.split('#').next().unwrap_or(&ts.schema_file);
                let rel = if set.files.contains_key(file) {
                    set.rel(file)
                } else {
                    rel.clone()
                };
                let before = out.len();
                one(project, set, &rel, &name, f, d, &at, &mut out);
                if out.len() == before {
                    // The record's place in its file: its origin's fragment, a percent-encoded JSON pointer.
                    let ptr = r.origin.split_once('#').map(|(_, p)| p).unwrap_or("");
                    let place = (
                        file,
                        format!(
                            "{}/properties/{}",
                            crate::schema::set::percent_decode(ptr),
                            pointer_segment(&f.name)
                        ),
                    );
                    inexact(set, checked, place, d, &rel, &name, f, &mut out);
                }
            }
        }
    }
    out
}

/// Every record type `ty` holds, at any depth.
fn collect(project: &Project, ty: &Type, out: &mut BTreeSet<String>) {
    ty.visit(&mut |t| {
        if let Type::Record(n) = t {
            if out.insert(n.clone()) {
                if let Some(r) = project.records.get(n) {
                    for f in &r.fields {
                        collect(project, &f.ty, out);
                    }
                }
            }
        }
    });
}

/// A number literal of the `default` `d` of field `f` that would not ship as written: a GT0404 diagnostic into
/// `out`. The parsed default holds the double the literal rounds to, so [`one`] cannot see it (`"default":
/// 890713491284145.3` ships as `…145.2`); the literal is looked up in the schema texts ([`SchemaSet::texts`]).
///
/// `place` is where the field's schema should be (file, RFC 6901 pointer). When the schema there, or the one
/// its `$ref`s lead to ([`holder`]), holds a `default`, the literals inside that `default` decide. Otherwise
/// (a reference by `$id` or `$anchor`, or a place not known exactly) any literal inside some `default`
/// keyword of any schema file whose double is one of `d`'s numbers does: the same double written exactly
/// elsewhere and inexactly here cannot be told apart from the parsed value.
#[allow(clippy::too_many_arguments)]
fn inexact(
    set: &SchemaSet,
    checked: &mut Checked,
    place: (&str, String),
    d: &J,
    rel: &str,
    owner: &str,
    f: &Field,
    out: &mut Vec<Diagnostic>,
) {
    let mut doubles = vec![];
    floats(d, &mut doubles);
    if doubles.is_empty() {
        return;
    }
    let (file, at, here) = holder(set, place.0, place.1);
    let file = file.as_str();
    let default_at = format!("{at}/default");
    let within = |p: &str, prefix: &str| {
        p.strip_prefix(prefix)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    let files: Vec<&str> = if here {
        vec![file]
    } else {
        set.texts.keys().map(String::as_str).collect()
    };
    let mut hit = None;
    for name in files {
        let found = checked.literals.entry(name.to_string()).or_insert_with(|| {
            set.texts
                .get(name)
                .map(|t| crate::typing::cell::json::inexact_numbers(t))
                .unwrap_or_default()
        });
        hit = found
            .iter()
            .find(|(p, _, x)| {
                if here {
                    within(p, &default_at)
                } else {
                    keyword_default(p) && doubles.iter().any(|y| y.to_bits() == x.to_bits())
                }
            })
            .map(|(_, literal, x)| (literal.clone(), *x));
        if hit.is_some() {
            break;
        }
    }
    if let Some((literal, x)) = hit {
        let words = crate::typing::cell::inexact_words(&literal, x);
        out.push(bad_default(
            rel,
            owner,
            f,
            format!(
                "the default {literal} of {owner}.{} does not fit its type: {literal} {words}",
                f.name
            ),
        ));
    }
}

/// Where the `default` a field's schema at (`file`, JSON pointer `at`) takes is written: there, or where the
/// schema's `$ref` (a schema file of the set and a JSON pointer, percent-encoded; followed up to 8 times)
/// leads. The last place reached, and whether a `default` was found there.
fn holder(set: &SchemaSet, file: &str, at: String) -> (String, String, bool) {
    let (mut file, mut at) = (file.to_string(), at);
    for _ in 0..8 {
        let Some(node) = set.files.get(&file).and_then(|doc| doc.pointer(&at)) else {
            break;
        };
        if node.get("default").is_some() {
            return (file, at, true);
        }
        let Some((doc, frag)) = node
            .get("$ref")
            .and_then(J::as_str)
            .and_then(|r| r.split_once('#'))
        else {
            break;
        };
        let frag = crate::schema::set::percent_decode(frag);
        if !(frag.is_empty() || frag.starts_with('/')) {
            break;
        }
        if !doc.is_empty() {
            let doc = crate::schema::set::percent_decode(doc.trim_start_matches("./"));
            if !set.files.contains_key(&doc) {
                break;
            }
            file = doc;
        }
        at = frag;
    }
    (file, at, false)
}

/// Whether the JSON pointer `p` lies inside a `default` keyword: a segment `default` that is not the name
/// of a property or a definition (`/properties/default/maximum` is not).
fn keyword_default(p: &str) -> bool {
    let segments: Vec<&str> = p.split('/').collect();
    segments.iter().enumerate().skip(1).any(|(i, s)| {
        *s == "default"
            && !matches!(
                segments[i - 1],
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
            )
    })
}

/// The GT0404 error `message` at the schema file `rel` about the default of `owner.f`, with its help.
fn bad_default(rel: &str, owner: &str, f: &Field, message: String) -> Diagnostic {
    Diagnostic::file_error(Code::BadDefault, rel, message).with_help(format!(
        "correct the \"default\" of {owner}.{} in the schema (an empty cell takes it)",
        f.name
    ))
}

/// The numbers of the JSON value `d` that the parser read as doubles (not as 64-bit integers), at any depth.
fn floats(d: &J, out: &mut Vec<f64>) {
    match d {
        J::Number(n) if !n.is_i64() && !n.is_u64() => out.extend(n.as_f64()),
        J::Array(a) => a.iter().for_each(|x| floats(x, out)),
        J::Object(o) => o.values().for_each(|x| floats(x, out)),
        _ => {}
    }
}

/// A JSON pointer segment (RFC 6901) of a member name, not percent-encoded.
fn pointer_segment(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A JSON pointer segment of a member name, percent-encoded for a URI fragment.
fn segment(name: &str) -> String {
    crate::schema::percent_encode(&pointer_segment(name))
}

#[allow(clippy::too_many_arguments)]
fn one(
    project: &Project,
    set: &SchemaSet,
    rel: &str,
    owner: &str,
    f: &Field,
    d: &J,
    at: &str,
    out: &mut Vec<Diagnostic>,
) {
    let fail = |m: String| bad_default(rel, owner, f, m);
    if let Err(m) = super::cell::json_to_value(d, &f.ty, project) {
        out.push(fail(format!(
            "the default {d} of {owner}.{} does not fit its type: {m}",
            f.name
        )));
        return;
    }
    // Every keyword of the field's own schema, where the schema file holds it.
    let Some((file, ptr)) = at.split_once('#') else {
        return;
    };
    let Ok(registry) = set.registry() else { return };
    let target = format!("{}#{}", crate::schema::schema_uri(file), ptr);
    let wrapper = serde_json::json!({ "$ref": target });
    let Ok(v) = jsonschema::options()
        .offline()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(set.formats)
        .with_format("duration", |s: &str| {
            super::cell::time::parse_duration(s).is_ok()
        })
        .with_registry(registry)
        .build(&wrapper)
    else {
        return;
    };
    let first = v.iter_errors(d).next().map(|e| {
        let kw = e
            .schema_path()
            .as_str()
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string();
        (kw, e.to_string())
    });
    if let Some((kw, e)) = first {
        out.push(fail(format!(
            "the default {d} of {owner}.{} breaks its own \"{kw}\": {e}",
            f.name
        )));
    }
}

/// Report the bad defaults of `ts`'s fields once, after its rows were typed: `taken[i]` is how many rows took
/// field `i`'s default and the first of them (its origin, for the message).
pub fn report(
    ts: &TableSchema,
    taken: &[(usize, Option<crate::diag::RowOrigin>)],
    diags: &mut Vec<Diagnostic>,
) {
    for (i, bad) in ts.bad_defaults.iter().enumerate() {
        let Some(bad) = bad else { continue };
        let mut d = bad.clone();
        match taken.get(i) {
            Some((n, Some(first))) if *n > 0 => {
                d.message = format!(
                    "{} ({n} {} it, the first at {}:{})",
                    d.message,
                    if *n == 1 { "row takes" } else { "rows take" },
                    first.file,
                    first.row
                );
            }
            _ => {
                d.message = format!("{} (no row takes it yet)", d.message);
                d = d.warning();
            }
        }
        diags.push(d);
    }
}

/// Whether field `fi`'s default is bad (`TableSchema::bad_defaults`); if so, a marker that the row at
/// `origin` takes it is pushed, for typing to count and replace by one diagnostic.
pub fn taken(
    schema: &TableSchema,
    fi: usize,
    origin: &crate::diag::RowOrigin,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    if schema.bad_defaults.get(fi).is_none_or(Option::is_none) {
        return false;
    }
    diags.push(Diagnostic::cell_error(
        Code::BadDefault,
        origin,
        None,
        Some(&schema.fields[fi].name),
        None,
        String::new(),
    ));
    true
}
