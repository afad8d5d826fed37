//! `x-gentable-view` (docs/designer.md "Pictures"): every view a schema declares is well formed and every path
//! it names exists and has a type it can be drawn with — a position or a size is an integer, a label or a
//! colour a scalar, `items` and `moves` lists of records or of keys of another table. A mistake is GT0407 at
//! the schema file, with the closest name as the hint, so a typo fails `gentable build`, not the report.
//!
//! [`resolve`] is also how `report` reads a path's type: paths go through record fields and foreign keys, and
//! `tables.<T>.<field>` reads a singleton table.
//!
//! A path through a table that did not load (its file could not be read, its schema does not build:
//! [`super::Gaps`]) says nothing: that table's own error is the one to fix, and a GT0407 here ("no rows
//! here", "must be a list of records") would only bury it.

use super::Gaps;
use crate::diag::{closest, Code, Diagnostic};
use crate::ir::{Field, Project, TableMode, Type};
use crate::schema::view::{Num, View, ViewKind};
use crate::schema::{SchemaSet, TableSchema};

/// Where a path starts: the fields of a row or record.
pub type Scope<'a> = &'a [Field];

/// What a path names: the last field's type and foreign keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub ty: Type,
    pub foreign_keys: Vec<(String, Option<String>)>,
}

/// The fields of what one element of a value of this type (with these foreign keys) holds: a record's
/// fields, or the target row's fields for a key of another table; arrays give their elements'.
pub fn element_fields<'p>(
    project: &'p Project,
    ty: &Type,
    fks: &[(String, Option<String>)],
) -> Option<&'p [Field]> {
    match ty.strip_optional() {
        Type::Array(inner) => element_fields(project, inner, fks),
        Type::Record(n) => project.records.get(n).map(|r| r.fields.as_slice()),
        _ => {
            let (t, _) = fks.first()?;
            project.table(t).map(|t| t.fields.as_slice())
        }
    }
}

/// Why a path or a view cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A mistake in the view, in words (GT0407).
    Bad(String),
    /// The path goes through this table, which did not load ([`Gaps`]): its own error is reported, and
    /// nothing can be said about the path.
    Unloaded(String),
}

impl From<String> for Problem {
    fn from(m: String) -> Problem {
        Problem::Bad(m)
    }
}

/// Whether `table` is missing from `project` because it did not load: its schema does not build, or a file
/// that could not be read may hold it ([`Gaps`]).
fn unloaded(project: &Project, gaps: &Gaps, table: &str) -> bool {
    project.table(table).is_none() && (gaps.tables.contains(table) || gaps.unread_files)
}

/// The fields one element of `ty` (with foreign keys `fks`) holds ([`element_fields`]); `Unloaded` when they
/// are a target table that did not load, `Ok(None)` when there are none.
fn element_fields_of<'p>(
    project: &'p Project,
    gaps: &Gaps,
    ty: &Type,
    fks: &[(String, Option<String>)],
) -> Result<Option<&'p [Field]>, Problem> {
    match element_fields(project, ty, fks) {
        Some(f) => Ok(Some(f)),
        None => match fks.first() {
            Some((t, _))
                if !matches!(strip_arrays(ty), Type::Record(_)) && unloaded(project, gaps, t) =>
            {
                Err(Problem::Unloaded(t.clone()))
            }
            _ => Ok(None),
        },
    }
}

/// `ty` without its optional and array layers.
fn strip_arrays(ty: &Type) -> &Type {
    match ty.strip_optional() {
        Type::Array(inner) => strip_arrays(inner),
        t => t,
    }
}

/// The type of `path` read from `scope` (see the module docs), or why it cannot be read.
pub fn resolve(
    project: &Project,
    gaps: &Gaps,
    scope: Scope,
    path: &str,
) -> Result<Resolved, Problem> {
    let mut segs: Vec<&str> = path.split('.').collect();
    let mut fields: &[Field] = scope;
    if segs.first() == Some(&"tables") {
        let Some(t) = segs.get(1) else {
            return Err(format!("{path:?}: tables. must be followed by a table name").into());
        };
        if unloaded(project, gaps, t) {
            return Err(Problem::Unloaded(t.to_string()));
        }
        let Some(table) = project.table(t) else {
            let hint = closest(t, project.tables.iter().map(|t| t.name.as_str()))
                .map(|c| format!(" (did you mean {c}?)"))
                .unwrap_or_default();
            return Err(format!("{path:?}: there is no table {t}{hint}").into());
        };
        if table.mode != TableMode::One {
            return Err(format!(
                "{path:?}: tables.{t} is not a singleton (x-gentable-mode \"one\"), so it has no one value"
            )
            .into());
        }
        fields = &table.fields;
        segs.drain(..2);
    }
    if segs.is_empty() || segs.iter().any(|s| s.is_empty()) {
        return Err(format!("{path:?} is not a path (field names separated by dots)").into());
    }
    let mut last: Option<&Field> = None;
    for (i, s) in segs.iter().enumerate() {
        if let Some(f) = last {
            fields = match f.ty.strip_optional() {
                Type::Record(n) => &project.records[n].fields,
                _ if !f.foreign_keys.is_empty()
                    && !matches!(f.ty.strip_optional(), Type::Array(_)) =>
                {
                    element_fields_of(project, gaps, &f.ty, &f.foreign_keys)?.ok_or_else(|| {
                        format!(
                            "{path:?}: {} names the table {}, which has no rows here",
                            f.name, f.foreign_keys[0].0
                        )
                    })?
                }
                other => {
                    return Err(format!(
                    "{path:?}: {} is {}, not a record or a key of another table, so it has no {}",
                    segs[..i].join("."),
                    other.words(),
                    s
                )
                    .into())
                }
            };
        }
        let Some(f) = fields.iter().find(|f| f.name == *s) else {
            let hint = closest(s, fields.iter().map(|f| f.name.as_str()))
                .map(|c| format!(" (did you mean {c}?)"))
                .unwrap_or_default();
            return Err(format!("{path:?}: no field {s}{hint}").into());
        };
        last = Some(f);
    }
    let f = last.expect("a path has a segment");
    Ok(Resolved {
        ty: f.ty.clone(),
        foreign_keys: f.foreign_keys.clone(),
    })
}

fn scalar(ty: &Type) -> bool {
    matches!(
        ty.strip_optional(),
        Type::Bool | Type::Int(_) | Type::Float | Type::String | Type::Enum(_)
    )
}

fn integer(ty: &Type) -> bool {
    matches!(ty.strip_optional(), Type::Int(_))
}

/// Check one view of `table` (fields `row`).
fn check_view(project: &Project, gaps: &Gaps, row: Scope, v: &View) -> Result<(), Problem> {
    let want =
        |scope: Scope, path: &str, ok: fn(&Type) -> bool, what: &str| -> Result<(), Problem> {
            let r = resolve(project, gaps, scope, path)?;
            if ok(&r.ty) {
                Ok(())
            } else {
                Err(format!("{path:?} is {}, but {what}", r.ty.words()).into())
            }
        };
    for n in [&v.width, &v.height, &v.radius].into_iter().flatten() {
        if let Num::Path(p) = n {
            want(row, p, integer, "a size must be an integer")?;
        }
    }
    if let Some(m) = &v.moves {
        let r = resolve(project, gaps, row, &m.moves)?;
        let item = element_fields_of(project, gaps, &r.ty, &r.foreign_keys)?
            .filter(|_| matches!(r.ty.strip_optional(), Type::Array(_)))
            .ok_or_else(|| {
                format!(
                    "\"moves\": {:?} must be a list of records or of keys of another table",
                    m.moves
                )
            })?;
        want(item, &m.dx, integer, "a step (dx) must be an integer")?;
        want(item, &m.dy, integer, "a step (dy) must be an integer")?;
        if let Some(s) = &m.steps {
            want(item, s, integer, "\"steps\" must be an integer")?;
        }
        for p in m.mark.iter().chain(&m.tag) {
            want(item, p, scalar, "a mark or tag must be a single value")?;
        }
        for p in &m.label {
            want(row, p, scalar, "a label must be a single value")?;
        }
        return Ok(());
    }
    for (i, l) in v.layers.iter().enumerate() {
        let at = |e: Problem| match e {
            Problem::Bad(e) if v.layers.len() > 1 => Problem::Bad(format!("layers[{i}]: {e}")),
            e => e,
        };
        let scope: Scope = match &l.items {
            None => row,
            Some(p) => {
                if !v.per_row && !p.starts_with("tables.") {
                    return Err(at(format!(
                        "\"items\": {p:?} — a view of the whole table draws its rows; other items come from tables.<T>.<field>"
                    )
                    .into()));
                }
                let r = resolve(project, gaps, row, p).map_err(at)?;
                element_fields_of(project, gaps, &r.ty, &r.foreign_keys)
                    .map_err(at)?
                    .ok_or_else(|| {
                        at(format!(
                            "\"items\": {p:?} is {}, not a record, a list of records or keys of another table",
                            r.ty.words()
                        )
                        .into())
                    })?
            }
        };
        let pos = if v.kind == ViewKind::Grid {
            "a position (x, y)"
        } else {
            "a position (q, r)"
        };
        want(
            scope,
            &l.at.0,
            integer,
            &format!("{pos} must be an integer"),
        )
        .map_err(at)?;
        want(
            scope,
            &l.at.1,
            integer,
            &format!("{pos} must be an integer"),
        )
        .map_err(at)?;
        for p in l.label.iter().chain(&l.color).chain(&l.outline) {
            want(scope, p, scalar, "a label or colour must be a single value").map_err(at)?;
        }
    }
    Ok(())
}

/// GT0407 for every malformed view or path of `schemas`; a view whose path goes through a table that did
/// not load (`gaps`) is not judged (module docs).
pub fn check(
    project: &Project,
    set: &SchemaSet,
    schemas: &[TableSchema],
    gaps: &Gaps,
    diags: &mut Vec<Diagnostic>,
) {
    for ts in schemas {
        let problems: Vec<String> = match &ts.views {
            Err(e) => vec![e.clone()],
            Ok(views) => {
                let Some(table) = project.table(&ts.name) else {
                    continue;
                };
                views
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| match check_view(project, gaps, &table.fields, v) {
                        Err(Problem::Bad(e)) if views.len() > 1 => {
                            Some(format!("x-gentable-view[{i}]: {e}"))
                        }
                        Err(Problem::Bad(e)) => Some(format!("x-gentable-view: {e}")),
                        Ok(()) | Err(Problem::Unloaded(_)) => None,
                    })
                    .collect()
            }
        };
        for p in problems {
            diags.push(
                Diagnostic::file_error(Code::BadView, set.rel(&ts.schema_file), p).with_help(
                    "correct x-gentable-view in the schema (docs/designer.md \"Pictures\")",
                ),
            );
        }
    }
}
