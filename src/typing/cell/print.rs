//! The cell grammar backwards: a typed [`Value`] → the text a designer would type in its cell, for the
//! designer's tools that show values (`gentable diff`, `gentable report`). Reading the text back with
//! [`super::parse_cell_with`] gives the same value (tests/print_cells.rs proves it on every value of the
//! repository's projects).
//!
//! The spelling is the grammar's plainest (docs/conventions.md §3): scalars as they are (a top-level string
//! verbatim, a number in its shortest form, `true`/`false`), arrays, flags and maps separated by the table's
//! separator at the top level and written `[a,b]` below it, records and union variants by name (`(x=0,y=1)`,
//! `Damage(amount=5)`, `Stun`) with absent fields left out, date-times in RFC 3339 UTC, dates as
//! `2024-05-01`, times of day as `21:00:00Z` and durations in ISO 8601. Text inside a compound value escapes
//! the grammar's characters (`\|`, `\,`, …) and keeps its surrounding spaces with `\ `. A value the grammar
//! cannot spell (an empty string or an empty list inside a compound value), a tuple or an open record, and a
//! scalar union's text that would read as another member (`"12"`) are written as their JSON literal, which
//! the grammar also reads.

use crate::ir::{canonical, time, Project, Type, Value};

/// The cell text of `v` (of type `ty`) in a table whose top-level array separator is `sep`.
pub fn cell_text(project: &Project, ty: &Type, v: &Value, sep: char) -> String {
    let ty = ty.strip_optional();
    let text = grammar(project, ty, v, sep);
    // A compound cell that starts like JSON is read as JSON: write it as JSON then.
    let compound = !matches!(v, Value::Str(_) | Value::Enum(_)) || matches!(ty, Type::Array(_));
    if compound && (text.starts_with('[') || text.starts_with('{')) {
        return json(project, ty, v);
    }
    text
}

fn grammar(project: &Project, ty: &Type, v: &Value, sep: char) -> String {
    match (ty, v) {
        (_, Value::Null) => String::new(),
        (Type::String, Value::Str(s)) => s.to_string(),
        (Type::Array(inner), Value::Array(items)) => {
            match items
                .iter()
                .map(|x| nested(project, inner, x))
                .collect::<Option<Vec<_>>>()
            {
                Some(parts) => parts.join(&sep.to_string()),
                None => json(project, ty, v),
            }
        }
        (Type::Flags(_), Value::Array(items)) => items
            .iter()
            .map(|x| match x {
                Value::Enum(m) => m.to_string(),
                _ => String::new(),
            })
            .collect::<Vec<_>>()
            .join(&sep.to_string()),
        (Type::Map(k, val), Value::Map(entries)) => match pairs(project, k, val, entries) {
            Some(parts) => parts.join(&sep.to_string()),
            None => json(project, ty, v),
        },
        _ => nested(project, ty, v).unwrap_or_else(|| json(project, ty, v)),
    }
}

/// `v` as an element inside a compound value (escaped), or `None` when the grammar cannot spell it there.
fn nested(project: &Project, ty: &Type, v: &Value) -> Option<String> {
    let ty = ty.strip_optional();
    Some(match (ty, v) {
        (Type::String, Value::Str(s)) => {
            if s.is_empty() {
                return None;
            }
            escape(s)
        }
        // A scalar union's text that would read as another member (`12`, `true`, `"x"`) is its JSON string.
        (Type::Choice(name), Value::Str(s)) => {
            if super::parse_choice(s, name, project).ok().as_ref() != Some(v) {
                return None;
            }
            escape(s)
        }
        (_, Value::Str(s)) => escape(s),
        (_, Value::Enum(m)) => escape(m),
        (_, Value::Bool(b)) => b.to_string(),
        (_, Value::Int(i)) => i.to_string(),
        (_, Value::Float(f)) => {
            let mut s = String::new();
            canonical::write_f64(&mut s, *f);
            s
        }
        (_, Value::DateTime(secs)) => time::format_datetime(*secs),
        (_, Value::Duration(ms)) => time::iso_duration(*ms),
        (_, Value::Date(days)) => time::format_date(*days),
        (_, Value::Time(secs)) => time::format_time(*secs),
        (Type::Array(_) | Type::Flags(_), Value::Array(items)) => {
            if items.is_empty() {
                return None;
            }
            let inner: &Type = match ty {
                Type::Array(i) => i,
                _ => &Type::String,
            };
            let parts = items
                .iter()
                .map(|x| nested(project, inner, x))
                .collect::<Option<Vec<_>>>()?;
            format!("[{}]", parts.join(","))
        }
        (Type::Map(k, val), Value::Map(entries)) => {
            if entries.is_empty() {
                return None;
            }
            let parts = pairs(project, k, val, entries)?;
            format!("[{}]", parts.join(","))
        }
        (Type::Record(name), Value::Record(values)) => {
            let rec = project.records.get(name)?;
            // Tuples and open records are spelled as their JSON (an array; one object with the extra members).
            if rec.form != crate::ir::RecordForm::Closed {
                return None;
            }
            let parts = named(project, &rec.fields, values)?;
            if parts.is_empty() {
                return None;
            }
            format!("({})", parts.join(","))
        }
        (Type::Union(name), Value::Union(uv)) => {
            let (tag, values) = (&uv.tag, &uv.values);
            let u = project.unions.get(name)?;
            let variant = u.variant(tag)?;
            let parts = named(project, &variant.fields, values)?;
            if parts.is_empty() {
                escape(tag)
            } else {
                format!("{}({})", escape(tag), parts.join(","))
            }
        }
        _ => return None,
    })
}

/// `key=value` for every map entry.
fn pairs(project: &Project, k: &Type, v: &Type, entries: &[(Value, Value)]) -> Option<Vec<String>> {
    entries
        .iter()
        .map(|(a, b)| {
            Some(format!(
                "{}={}",
                nested(project, k, a)?,
                nested(project, v, b)?
            ))
        })
        .collect()
}

/// `name=value` for every present field.
fn named(project: &Project, fields: &[crate::ir::Field], values: &[Value]) -> Option<Vec<String>> {
    fields
        .iter()
        .zip(values)
        .filter(|(_, v)| !matches!(v, Value::Null))
        .map(|(f, v)| {
            Some(format!(
                "{}={}",
                escape(&f.name),
                nested(project, &f.ty, v)?
            ))
        })
        .collect()
}

/// The JSON literal of `v` (canonical JSON; the grammar reads a cell starting with `[` or `{` as JSON).
fn json(project: &Project, ty: &Type, v: &Value) -> String {
    let mut s = String::new();
    canonical::write_value(&mut s, project, ty, v);
    s
}

/// Escape the grammar's characters, and the spaces at either end (`\ `), inside a compound value.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let n = s.chars().count();
    for (i, c) in s.chars().enumerate() {
        match c {
            '|' | ',' | '(' | ')' | '[' | ']' | '=' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if (i == 0 || i + 1 == n) && (c == ' ' || c == '\u{a0}') => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}
