//! Vertical (key/value) sheets: `[tables.X] layout = "vertical"` (docs/conventions.md §2).
//!
//! A singleton written one field per row: the cell in `first_column` names the field, the cell in
//! `value_column` (default: the next column) holds the value (same cell grammar as a horizontal table). A
//! `type_column` (Luban's `##column` sheets: name | type | value) is never read as a value; a type name there
//! that contradicts the schema is a warning, and without `type_column`/`value_column` a column of nothing but
//! type names where the values should be is an error (GT0221), never `GameId = "string"`. Comment and blank
//! rows are skipped; a name given twice, an unknown name and a missing required field are errors at their
//! cells. The typed row's origin is the first field row; cell errors point at the value cell.
//!
//! In a `cell_dialect = "luban"` table this reads Luban's column-mode sheets (`##column`): the first row's
//! markers (`##column` or `##column#var` over the names, `##type`, `##`) name the columns before the
//! value, which is the first column whose marker cell is empty; cells take Luban's forms
//! ([`crate::typing::dialect::type_field_cell`]).

use crate::diag::Code;
use crate::diag::{column_letters, Diagnostic, RowOrigin};
use crate::ir::{Row, Type, Value};
use crate::read::{RawCell, RawRow, RawTable};
use crate::schema::TableSchema;
use crate::typing::cell;
use crate::typing::layout::Layout;

/// What one vertical source gives.
pub enum Source {
    /// The singleton's row.
    Row(Row),
    /// No field rows.
    Empty,
    /// The source cannot be read at all (a type column where the values should be): reported already.
    Unreadable,
}

/// Type one vertical source into its row.
pub fn type_source(
    project: &crate::ir::Project,
    schema: &TableSchema,
    src: &RawTable,
    layout: &Layout,
    diags: &mut Vec<Diagnostic>,
) -> Source {
    let n = schema.fields.len();
    let kc = layout.first_col;
    // Luban's column mode: the `##column` row marks the name, `##type` and `##` comment columns; the
    // value is in the first column after the names whose cell there is empty.
    let luban_header = src
        .rows
        .iter()
        .find(|r| layout.luban && layout.marker(r).trim().starts_with("##column"));
    let vc = match (layout.value_col, luban_header) {
        (Some(vc), _) => vc,
        (None, Some(h)) => (kc + 1..)
            .find(|&c| h.cells.get(c).is_none_or(|x| x.text().trim().is_empty()))
            .unwrap_or(kc + 1),
        (None, None) => kc + 1,
    };
    let mut values: Vec<Option<Value>> = vec![None; n];
    let mut seen: Vec<Option<usize>> = vec![None; n];
    let mut failed = vec![false; n];
    let mut first: Option<RowOrigin> = None;
    let rows: Vec<&RawRow> = src
        .rows
        .iter()
        .filter(|raw| {
            !(layout.is_blank(raw)
                || layout.is_comment(raw)
                || layout.data_row.is_some_and(|d| raw.row < d))
                && raw
                    .cells
                    .get(kc)
                    .is_some_and(|c| !c.text().trim().is_empty())
        })
        .collect();
    if layout.value_col.is_none() && layout.type_col.is_none() && type_column(&rows, vc) {
        let row = rows.first().expect("type_column needs rows");
        diags.push(
            Diagnostic::cell_error(
                Code::TypeColumn,
                &src.origin(row.row),
                Some(vc),
                None,
                Some(&row.cells[vc].text()),
                format!(
                    "column {} holds type names ({}), not values: this vertical sheet has a type column",
                    column_letters(vc),
                    crate::diag::list::series(rows.iter().take(3).map(|r| r.cells[vc].text()))
                ),
            )
            .with_help(format!(
                "set [tables.{}] type_column = \"{}\" and value_column = \"{}\" in gentable.toml",
                src.name,
                column_letters(vc),
                column_letters(vc + 1)
            )),
        );
        return Source::Unreadable;
    }
    crate::typing::sheet::hidden(src, &rows, &[], diags);
    for raw in rows {
        let origin = src.origin(raw.row);
        let name = raw.cells.get(kc).map(RawCell::text).unwrap_or_default();
        let name = name.trim();
        first.get_or_insert_with(|| origin.clone());
        let Some(fi) = crate::ir::Field::position_of(&schema.fields, name) else {
            let mut d = Diagnostic::cell_error(
                Code::UnknownColumn,
                &origin,
                Some(kc),
                Some(name),
                Some(name),
                format!(
                    "{name:?} is not a field of {} ({})",
                    schema.name, schema.schema_file
                ),
            );
            match crate::ir::Field::closest_header(&schema.fields, name) {
                Some((c, f)) if c == f.name => d = d.with_help(format!("did you mean {c:?}?")),
                Some((c, f)) => {
                    d = d.with_help(format!(
                        "did you mean {c:?} (an x-gentable-aliases name of {:?})?",
                        f.name
                    ))
                }
                None => {}
            }
            diags.push(d);
            continue;
        };
        if let Some(prev) = seen[fi] {
            diags.push(
                Diagnostic::cell_error(
                    Code::DuplicateColumn,
                    &origin,
                    Some(kc),
                    Some(&schema.fields[fi].name),
                    Some(name),
                    format!(
                        "field {:?} is given twice (also in row {prev})",
                        schema.fields[fi].name
                    ),
                )
                .with_help("delete one of the rows"),
            );
            continue;
        }
        seen[fi] = Some(raw.row);
        let f = &schema.fields[fi];
        if let Some(tc) = layout.type_col {
            let declared = raw.cells.get(tc).map(RawCell::text).unwrap_or_default();
            if let Some(m) = contradicts(declared.trim(), &f.ty) {
                diags.push(
                    Diagnostic::cell_error(
                        Code::TypeColumn,
                        &origin,
                        Some(tc),
                        Some(&f.name),
                        Some(declared.trim()),
                        format!(
                            "the sheet declares {:?} as {declared:?}, but the schema makes it {m}",
                            f.name
                        ),
                    )
                    .with_help(
                        "correct the type cell or the schema; the value is typed by the schema",
                    )
                    .warning(),
                );
            }
        }
        let cell = raw.cells.get(vc).cloned().unwrap_or(RawCell::Empty);
        if cell::is_empty_for(&cell, &f.ty) {
            continue;
        }
        if let RawCell::Undecodable(_) = cell {
            failed[fi] = true;
            continue;
        }
        if let Some(note) = cell::display_note(&cell, &f.ty) {
            diags.push(note.at(&origin, vc, &f.name, &cell.text()).warning());
        }
        if matches!(f.ty, Type::Optional(_))
            && layout
                .null_text
                .as_deref()
                .is_some_and(|n| n == cell::trim(&cell.text()))
        {
            values[fi] = Some(Value::Null);
            continue;
        }
        match crate::typing::dialect::type_field_cell(project, f, &cell, layout) {
            Ok(v) => values[fi] = Some(v),
            Err(e) => {
                failed[fi] = true;
                diags.push(e.at(&origin, vc, &f.name, &cell.text()));
            }
        }
    }
    let Some(origin) = first else {
        return Source::Empty;
    };
    let mut out = Vec::with_capacity(n);
    for (fi, v) in values.into_iter().enumerate() {
        let f = &schema.fields[fi];
        out.push(match v {
            Some(v) => v,
            None if failed[fi] => Value::Null,
            None if crate::typing::defaults::taken(schema, fi, &origin, diags) => Value::Null,
            None => {
                let mut f2 = f.clone();
                f2.default = schema.defaults[fi].clone().or_else(|| f.default.clone());
                match cell::missing_field(&schema.name, &f2, project) {
                    Ok(v) => v,
                    Err(_) if matches!(f.ty, Type::Optional(_)) => Value::Null,
                    Err(_) => {
                        failed[fi] = true;
                        let mut d = Diagnostic::cell_error(
                            Code::MissingColumn,
                            &origin,
                            None,
                            Some(&f.name),
                            None,
                            format!(
                                "{:?} is required but has no row with a value (expected {})",
                                f.name,
                                f.ty.words()
                            ),
                        );
                        d = d.with_help(format!(
                            "add a row: {} in column {}, its value in column {}",
                            f.name,
                            column_letters(kc),
                            column_letters(vc)
                        ));
                        diags.push(d);
                        Value::Null
                    }
                }
            }
        });
    }
    let failed: Vec<usize> = (0..n).filter(|&i| failed[i]).collect();
    Source::Row(Row {
        values: out,
        origin,
        columns: vec![None; n].into(),
        tags: vec![],
        extra: (!failed.is_empty()).then(|| {
            Box::new(crate::ir::RowExtra {
                failed,
                elements: vec![],
            })
        }),
    })
}

/// A type name of another tool's sheets (Luban, tabtoy, UnityGameFramework): `int`, `string`, `list,int`,
/// `(list#sep=|),int`, `map,int,string`, … (lower case as those tools write them).
fn is_type_name(s: &str) -> bool {
    const NAMES: &[&str] = &[
        "bool", "byte", "short", "int", "long", "float", "double", "string", "text", "datetime",
        "uint", "ulong", "ushort", "sbyte", "int8", "int16", "int32", "int64", "uint8", "uint16",
        "uint32", "uint64", "float32", "float64", "vector2", "vector3", "vector4", "color",
    ];
    let t = s.trim();
    NAMES.contains(&t)
        || [
            "list,", "array,", "set,", "map,", "(list", "(array", "(set", "(map",
        ]
        .iter()
        .any(|p| t.starts_with(p))
        || t.strip_suffix('?').is_some_and(|b| NAMES.contains(&b))
}

/// Whether the column `vc` of every field row holds a type name while a column right of it holds something:
/// the layout of a sheet with a type column read without `type_column`.
fn type_column(rows: &[&RawRow], vc: usize) -> bool {
    !rows.is_empty()
        && rows
            .iter()
            .all(|r| r.cells.get(vc).is_some_and(|c| is_type_name(&c.text())))
        && rows
            .iter()
            .any(|r| r.cells.iter().skip(vc + 1).any(|c| !c.is_blank()))
}

/// Why a declared type name contradicts the schema's type, if it clearly does (`None` for unknown names).
fn contradicts(declared: &str, ty: &Type) -> Option<String> {
    if declared.is_empty() {
        return None;
    }
    let d = declared.trim_end_matches('?').to_ascii_lowercase();
    let kind = match d.as_str() {
        "bool" => "boolean",
        "byte" | "short" | "int" | "long" | "uint" | "ulong" | "ushort" | "sbyte" | "int8"
        | "int16" | "int32" | "int64" | "uint8" | "uint16" | "uint32" | "uint64" => "integer",
        "float" | "double" | "float32" | "float64" => "number",
        "string" | "text" => "string",
        s if ["list,", "array,", "set,", "(list", "(array", "(set"]
            .iter()
            .any(|p| s.starts_with(p)) =>
        {
            "array"
        }
        _ => return None,
    };
    let ok = match (kind, ty.strip_optional()) {
        ("boolean", Type::Bool)
        | ("integer", Type::Int(_))
        | ("array", Type::Array(_) | Type::Flags(_)) => true,
        ("number", Type::Float | Type::Int(_)) => true,
        // A string in the sheet may be an enum, a date or a duration in the schema.
        ("string", t) => !matches!(t, Type::Bool | Type::Int(_) | Type::Float | Type::Array(_)),
        _ => false,
    };
    (!ok).then(|| ty.words())
}
