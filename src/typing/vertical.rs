//! Vertical (key/value) sheets: `[tables.X] layout = "vertical"` (docs/conventions.md §2).
//!
//! A singleton written one field per row: the cell in `first_column` names the field, the cell right of it
//! holds the value (same cell grammar as a horizontal table). Comment and blank rows are skipped; a name
//! given twice, an unknown name and a missing required field are errors at their cells. The typed row's
//! origin is the first field row; cell errors point at the value cell.

use crate::diag::Code;
use crate::diag::{Diagnostic, RowOrigin};
use crate::ir::{Row, Type, Value};
use crate::read::{RawCell, RawTable};
use crate::schema::TableSchema;
use crate::typing::cell;
use crate::typing::layout::Layout;

/// Type one vertical source into its row (`None` if it has no field rows).
pub fn type_source(
    project: &crate::ir::Project,
    schema: &TableSchema,
    src: &RawTable,
    layout: &Layout,
    diags: &mut Vec<Diagnostic>,
) -> Option<Row> {
    let n = schema.fields.len();
    let (kc, vc) = (layout.first_col, layout.first_col + 1);
    let mut values: Vec<Option<Value>> = vec![None; n];
    let mut seen: Vec<Option<usize>> = vec![None; n];
    let mut failed = vec![false; n];
    let mut first: Option<RowOrigin> = None;
    for raw in &src.rows {
        if layout.is_blank(raw)
            || layout.is_comment(raw)
            || layout.data_row.is_some_and(|d| raw.row < d)
        {
            continue;
        }
        let origin = src.origin(raw.row);
        let name = raw.cells.get(kc).map(RawCell::text).unwrap_or_default();
        let name = name.trim();
        if name.is_empty() {
            continue;
        }
        first.get_or_insert_with(|| origin.clone());
        let Some(fi) = schema.fields.iter().position(|f| f.name == name) else {
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
            if let Some(c) =
                crate::diag::closest(name, schema.fields.iter().map(|f| f.name.as_str()))
            {
                d = d.with_help(format!("did you mean {c:?}?"));
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
                    Some(name),
                    Some(name),
                    format!("field {name:?} is given twice (also in row {prev})"),
                )
                .with_help("delete one of the rows"),
            );
            continue;
        }
        seen[fi] = Some(raw.row);
        let f = &schema.fields[fi];
        let cell = raw.cells.get(vc).cloned().unwrap_or(RawCell::Empty);
        if cell.is_blank() {
            continue;
        }
        match cell::type_cell_with(project, &f.ty, &cell, layout.grammar()) {
            Ok(v) => values[fi] = Some(v),
            Err(e) => {
                failed[fi] = true;
                diags.push(e.at(&origin, vc, &f.name, &cell.text()));
            }
        }
    }
    let origin = first?;
    let mut out = Vec::with_capacity(n);
    for (fi, v) in values.into_iter().enumerate() {
        let f = &schema.fields[fi];
        out.push(match v {
            Some(v) => v,
            None if failed[fi] => Value::Null,
            None => {
                let mut f2 = f.clone();
                f2.default = schema.defaults[fi].clone().or_else(|| f.default.clone());
                match cell::missing_field(&schema.name, &f2, project) {
                    Ok(v) => v,
                    Err(_) if matches!(f.ty, Type::Optional(_)) => Value::Null,
                    Err(_) => {
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
                            "add a row: {} in the first column, its value in the next",
                            f.name
                        ));
                        diags.push(d);
                        Value::Null
                    }
                }
            }
        });
    }
    Some(Row {
        values: out,
        origin,
        columns: vec![None; n].into(),
        tags: vec![],
    })
}
