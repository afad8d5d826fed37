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
use std::collections::BTreeSet;

/// Check the defaults of `ts`'s fields (into `ts.bad_defaults`) and of the fields of every record it holds
/// (returned: errors). Records met before (in `seen`) are not checked again.
pub fn check(
    project: &Project,
    set: &SchemaSet,
    ts: &mut TableSchema,
    seen: &mut BTreeSet<String>,
) -> Vec<Diagnostic> {
    let mut out = vec![];
    let rel = set.rel(&ts.schema_file);
    ts.bad_defaults = vec![None; ts.fields.len()];
    for (i, (f, d)) in ts.fields.iter().zip(&ts.defaults).enumerate() {
        if let Some(d) = d {
            let at = format!("{}#/properties/{}", ts.schema_file, segment(&f.name));
            let mut one_out = vec![];
            one(project, set, &rel, &ts.name, f, d, &at, &mut one_out);
            let pointer = format!("/properties/{}/default", pointer_segment(&f.name));
            inexact(
                set,
                &ts.schema_file,
                &pointer,
                &rel,
                &ts.name,
                f,
                &mut one_out,
            );
            ts.bad_defaults[i] = one_out.into_iter().next();
        }
    }
    let mut records = BTreeSet::new();
    for f in &ts.fields {
        collect(project, &f.ty, &mut records);
    }
    for name in records {
        if !seen.insert(name.clone()) {
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
                // The record's place in its file, when its pointer needs no percent-decoding.
                if let (true, Some((_, ptr))) = (out.len() == before, r.origin.split_once('#')) {
                    if !ptr.contains('%') {
                        let pointer =
                            format!("{ptr}/properties/{}/default", pointer_segment(&f.name));
                        inexact(set, file, &pointer, &rel, &name, f, &mut out);
                    }
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

/// The first number literal of `file`'s `default` at `pointer` (or inside it) that would not ship as written
/// (in [`SchemaSet::texts`], [`crate::typing::cell::json::inexact_numbers`]): a GT0404 diagnostic into `out`. The parsed default is the double the
/// literal rounds to, so [`one`] cannot see it: `"default": 890713491284145.3` ships as `…145.2`.
fn inexact(
    set: &SchemaSet,
    file: &str,
    pointer: &str,
    rel: &str,
    owner: &str,
    f: &Field,
    out: &mut Vec<Diagnostic>,
) {
    let Some(text) = set.texts.get(file) else {
        return;
    };
    let found = crate::typing::cell::json::inexact_numbers(text);
    let hit = found.iter().find(|(p, _, _)| {
        p.strip_prefix(pointer)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    });
    if let Some((_, literal, shipped)) = hit {
        out.push(
            Diagnostic::file_error(
                Code::BadDefault,
                rel,
                format!(
                    "the default {literal} of {owner}.{} does not fit its type: {literal} has no exact 64-bit float: it would ship as {shipped}",
                    f.name
                ),
            )
            .with_help(format!(
                "correct the \"default\" of {owner}.{} in the schema (an empty cell takes it)",
                f.name
            )),
        );
    }
}

/// A JSON pointer segment (RFC 6901) of a member name, not percent-encoded.
fn pointer_segment(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A JSON pointer segment of a member name, percent-encoded for a URI fragment.
fn segment(name: &str) -> String {
    crate::schema::percent_encode(&name.replace('~', "~0").replace('/', "~1"))
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
    let fail = |m: String| {
        Diagnostic::file_error(Code::BadDefault, rel, m).with_help(format!(
            "correct the \"default\" of {owner}.{} in the schema (an empty cell takes it)",
            f.name
        ))
    };
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
