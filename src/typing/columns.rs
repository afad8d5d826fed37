//! Records across columns: dotted headers (docs/conventions.md §2 "Records across columns").
//!
//! A header `Pos.x` names field `x` of the record field `Pos`; `Effect.kind`, `Effect.amount` name the
//! discriminator and a field of the polymorphic record `Effect`; deeper paths (`A.b.c`) go through nested
//! records. Each sub-cell is typed on its own (full cell grammar) and the value is assembled: sub-fields
//! whose cells are empty take their default (or null / `[]` / `{}`); a row whose sub-cells are all empty
//! leaves the field empty (its default, null, or "missing"). A field may be given either as one column or
//! across columns, not both.

use crate::diag::Code;
use crate::ir::{Field, Project, Type, Value};
use crate::read::RawCell;
use crate::typing::cell::{self, CellError};

/// If `header` is `Field.sub[.sub…]` for a record or union field of `fields` (and not itself a field
/// name), the field index and the path below it.
pub fn split_header(
    project: &Project,
    fields: &[Field],
    header: &str,
) -> Option<(usize, Vec<String>)> {
    let (head, rest) = header.split_once('.')?;
    let fi = fields.iter().position(|f| f.name == head)?;
    let path: Vec<String> = rest.split('.').map(|s| s.trim().to_string()).collect();
    valid_path(project, &fields[fi].ty, &path).then_some((fi, path))
}

fn valid_path(project: &Project, ty: &Type, path: &[String]) -> bool {
    let Some((first, rest)) = path.split_first() else {
        return true;
    };
    match ty.strip_optional() {
        Type::Record(n) => project.records[n]
            .fields
            .iter()
            .find(|f| f.name == *first)
            .is_some_and(|f| valid_path(project, &f.ty, rest)),
        Type::Union(n) => {
            let u = &project.unions[n];
            (rest.is_empty() && *first == u.discriminator)
                || u.variants.iter().any(|v| {
                    v.fields
                        .iter()
                        .find(|f| f.name == *first)
                        .is_some_and(|f| valid_path(project, &f.ty, rest))
                })
        }
        _ => false,
    }
}

/// The type of the sub-field at `path` below a field of type `ty` (for a union's discriminator: a string).
pub fn leaf_type<'p>(project: &'p Project, ty: &'p Type, path: &[String]) -> Option<&'p Type> {
    let Some((first, rest)) = path.split_first() else {
        return Some(ty);
    };
    match ty.strip_optional() {
        Type::Record(n) => {
            let f = project.records[n]
                .fields
                .iter()
                .find(|f| f.name == *first)?;
            leaf_type(project, &f.ty, rest)
        }
        Type::Union(n) => {
            let u = &project.unions[n];
            if rest.is_empty() && *first == u.discriminator {
                return Some(&Type::String);
            }
            u.variants.iter().find_map(|v| {
                let f = v.fields.iter().find(|f| f.name == *first)?;
                leaf_type(project, &f.ty, rest)
            })
        }
        _ => None,
    }
}

/// One sub-cell of a field spread across columns.
pub struct Part<'a> {
    pub path: &'a [String],
    pub col: usize,
    pub cell: &'a RawCell,
}

/// Assemble the value of a field of type `ty` from its sub-cells. `Ok(None)`: every sub-cell is empty.
/// An error names the column it is about.
pub fn assemble(
    project: &Project,
    ty: &Type,
    parts: &[Part],
    sep: cell::Grammar,
    first_col: usize,
) -> Result<Option<Value>, (usize, CellError)> {
    // A string sub-cell keeps white-space-only text; for every other type it is empty.
    let parts: Vec<&Part> = parts
        .iter()
        .filter(|p| match leaf_type(project, ty, p.path) {
            Some(t) => !cell::is_empty_for(p.cell, t),
            None => !p.cell.is_blank(),
        })
        .collect();
    if parts.is_empty() {
        return Ok(None);
    }
    build(project, ty.strip_optional(), &parts, 0, sep, first_col).map(Some)
}

fn build(
    project: &Project,
    ty: &Type,
    parts: &[&Part],
    depth: usize,
    sep: cell::Grammar,
    first_col: usize,
) -> Result<Value, (usize, CellError)> {
    let col0 = parts.first().map_or(first_col, |p| p.col);
    let (owner, fields, tag): (String, &[Field], Option<String>) = match ty {
        Type::Record(n) => (n.clone(), &project.records[n].fields, None),
        Type::Union(n) => {
            let u = &project.unions[n];
            let Some(kp) = parts
                .iter()
                .find(|p| p.path.len() == depth + 1 && p.path[depth] == u.discriminator)
            else {
                return Err((
                    col0,
                    CellError {
                        code: Code::BadGrammar,
                        message: format!(
                            "the {n} has values but no {} column value",
                            u.discriminator
                        ),
                        help: Some(format!(
                            "fill in the column ….{} (one of: {})",
                            u.discriminator,
                            crate::diag::list::series(u.variants.iter().map(|v| v.tag.as_str()))
                        )),
                    },
                ));
            };
            let tag = cell::unescape(cell::trim(&kp.cell.text())).map_err(|e| (kp.col, e))?;
            let Some(v) = u.variant(&tag) else {
                return Err((
                    kp.col,
                    CellError {
                        code: Code::NotInEnum,
                        message: format!("{tag:?} is not a kind of {n}"),
                        help: Some(format!(
                            "{n} is one of: {}",
                            crate::diag::list::series(u.variants.iter().map(|v| v.tag.as_str()))
                        )),
                    },
                ));
            };
            (format!("{n} {tag}"), &v.fields, Some(tag))
        }
        _ => unreachable!("split_header checked the path"),
    };
    let mut values = Vec::with_capacity(fields.len());
    for f in fields {
        let mine: Vec<&Part> = parts
            .iter()
            .copied()
            .filter(|p| p.path.get(depth) == Some(&f.name))
            .collect();
        let v = if let [p] = mine
            .as_slice()
            .iter()
            .filter(|p| p.path.len() == depth + 1)
            .copied()
            .collect::<Vec<_>>()
            .as_slice()
        {
            cell::type_cell_with(project, &f.ty, p.cell, sep).map_err(|mut e| {
                e.message = format!("{owner}.{}: {}", f.name, e.message);
                (p.col, e)
            })?
        } else if !mine.is_empty() {
            build(
                project,
                f.ty.strip_optional(),
                &mine,
                depth + 1,
                sep,
                first_col,
            )?
        } else {
            cell::missing_field(&owner, f, project).map_err(|m| {
                (
                    col0,
                    CellError {
                        code: Code::BadGrammar,
                        message: m,
                        help: Some("fill in its column".into()),
                    },
                )
            })?
        };
        values.push(v);
    }
    // A non-empty sub-cell that the chosen kind does not have.
    if let Some(tag) = &tag {
        let Type::Union(n) = ty else { unreachable!() };
        let disc = &project.unions[n].discriminator;
        if let Some(p) = parts.iter().find(|p| {
            p.path
                .get(depth)
                .is_some_and(|k| k != disc && !fields.iter().any(|f| f.name == *k))
        }) {
            return Err((
                p.col,
                CellError {
                    code: Code::BadGrammar,
                    message: format!("a {n} of kind {tag} has no field {:?}", p.path[depth]),
                    help: Some("leave the cell empty for this kind".into()),
                },
            ));
        }
        return Ok(Value::union(tag.clone(), values));
    }
    Ok(Value::Record(values))
}
