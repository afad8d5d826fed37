//! Typing: raw rows of one table ([`crate::read::RawTable`]s) + its [`TableSchema`] → typed IR rows.
//!
//! Applies the row and column conventions of docs/conventions.md §2 (header row, `#` comment rows and
//! columns, empty-header note columns, blank rows, repeated headers as multi-column arrays, per-table
//! `header_row`/`data_row`/`first_column` overrides) and the cell grammar of [`crate::cell`]. Every bad cell
//! becomes a [`Diagnostic`] naming file, sheet, row, column and field; typing goes on so that one run
//! reports all errors.

use crate::cell::{self, CellError};
use crate::config::TableOverride;
use crate::diag::{column_letters, Diagnostic, RowOrigin};
use crate::ir::{Project, Row, Type, Value};
use crate::read::{RawCell, RawTable};
use crate::schema::TableSchema;

/// GT0204: a required value is missing.
pub const MISSING_VALUE: &str = "GT0204";
/// GT0207: an Excel error cell.
pub const EXCEL_ERROR: &str = "GT0207";
/// GT0211: a header that is not a schema property.
pub const UNKNOWN_COLUMN: &str = "GT0211";
/// GT0212: a required property without a column.
pub const MISSING_COLUMN: &str = "GT0212";
/// GT0213: a repeated header for a non-array field.
pub const DUPLICATE_COLUMN: &str = "GT0213";
/// GT0214: no header row found.
pub const NO_HEADER: &str = "GT0214";
/// GT0215: a singleton table without exactly one row.
pub const SINGLETON_ROWS: &str = "GT0215";
/// GT0216: two source names map to one identifier.
pub const NAME_COLLISION: &str = "GT0216";

/// Column → field mapping of one source.
struct Columns {
    /// `(column index, field index)` in column order.
    cols: Vec<(usize, usize)>,
    /// Field index → first column.
    by_field: std::sync::Arc<[Option<usize>]>,
}

/// Type every source of one table. Returns the rows in source order (sorting is done by the validators)
/// and pushes diagnostics.
pub fn type_table(
    project: &Project,
    schema: &TableSchema,
    sources: &[RawTable],
    ov: Option<&TableOverride>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Row> {
    let mut rows = vec![];
    let first_col = ov.and_then(|o| o.first_column.as_deref()).and_then(crate::diag::column_from_letters).unwrap_or(0);
    for src in sources {
        let cell_text = |c: Option<&RawCell>| c.map(RawCell::text).unwrap_or_default();
        // 1. Header row.
        let header_pos = match ov.and_then(|o| o.header_row) {
            Some(h) => src.rows.iter().position(|r| r.row == h),
            None => src.rows.iter().position(|r| {
                !r.cells.iter().skip(first_col).all(RawCell::is_blank) && !cell_text(r.cells.get(first_col)).starts_with('#')
            }),
        };
        let Some(hp) = header_pos else {
            let mut d = Diagnostic::file_error(NO_HEADER, &src.file, format!("table {} has no header row", src.name));
            d.sheet = src.sheet.clone();
            if let Some(h) = ov.and_then(|o| o.header_row) {
                d.message = format!("table {}: header_row {h} is past the end of the data", src.name);
            }
            diags.push(d.with_help("the first non-comment row must hold the field names"));
            continue;
        };
        let header = &src.rows[hp];
        let Some(columns) = map_columns(schema, src, header.row, &header.cells, first_col, diags) else { continue };
        // 2. Data rows.
        let data_start = ov.and_then(|o| o.data_row);
        for raw in &src.rows[hp + 1..] {
            if data_start.is_some_and(|d| raw.row < d) {
                continue;
            }
            if raw.cells.iter().skip(first_col).all(RawCell::is_blank) {
                continue;
            }
            if cell_text(raw.cells.get(first_col)).starts_with('#') {
                continue;
            }
            let origin = src.origin(raw.row);
            rows.push(type_row(project, schema, &columns, &raw.cells, origin, diags));
        }
    }
    rows
}

fn map_columns(
    schema: &TableSchema,
    src: &RawTable,
    header_row: usize,
    cells: &[RawCell],
    first_col: usize,
    diags: &mut Vec<Diagnostic>,
) -> Option<Columns> {
    let origin = src.origin(header_row);
    let mut cols = vec![];
    let mut seen: Vec<Option<usize>> = vec![None; schema.fields.len()];
    let mut ok = true;
    for (ci, c) in cells.iter().enumerate().skip(first_col) {
        let h = c.text();
        let h = h.trim();
        if h.is_empty() || h.starts_with('#') {
            continue;
        }
        match schema.fields.iter().position(|f| f.name == h) {
            Some(fi) => {
                if let Some(prev) = seen[fi] {
                    if !matches!(schema.fields[fi].ty.strip_optional(), Type::Array(_)) {
                        diags.push(
                            Diagnostic::cell_error(
                                DUPLICATE_COLUMN,
                                &origin,
                                Some(ci),
                                Some(h),
                                Some(h),
                                format!("column {h:?} appears twice (also in column {})", column_letters(prev)),
                            )
                            .with_help("only array fields may span several columns; rename or delete one"),
                        );
                        ok = false;
                        continue;
                    }
                } else {
                    seen[fi] = Some(ci);
                }
                cols.push((ci, fi));
            }
            None => {
                let mut d = Diagnostic::cell_error(
                    UNKNOWN_COLUMN,
                    &origin,
                    Some(ci),
                    Some(h),
                    Some(h),
                    format!("column {h:?} is not a field of {} ({})", schema.name, schema.schema_file),
                );
                d = match crate::diag::closest(h, schema.fields.iter().map(|f| f.name.as_str())) {
                    Some(c) => d.with_help(format!("did you mean {c:?}? To keep a note column, start its header with #")),
                    None => d.with_help("add the field to the schema, or start the header with # to make it a comment column"),
                };
                diags.push(d);
                ok = false;
            }
        }
    }
    for (fi, f) in schema.fields.iter().enumerate() {
        if seen[fi].is_none() && schema.required[fi] {
            let mut d = Diagnostic::cell_error(
                MISSING_COLUMN,
                &origin,
                None,
                Some(&f.name),
                None,
                format!("required column {:?} is missing from the header row", f.name),
            );
            if let Some(c) = crate::diag::closest(&f.name, cells.iter().map(|c| c.text()).collect::<Vec<_>>().iter().map(String::as_str)) {
                d = d.with_help(format!("the header {c:?} looks close; rename it to {:?}", f.name));
            }
            diags.push(d);
            ok = false;
        }
    }
    // Identifier collisions between headers (e.g. "MaxSteps" and "max steps").
    for (lang, f) in [
        ("Rust", crate::naming::rust_field as fn(&str, Option<&str>) -> String),
        ("TypeScript", crate::naming::ts_field),
    ] {
        let pairs = schema.fields.iter().map(|fl| (fl.name.as_str(), f(&fl.name, fl.ident.as_deref())));
        for (a, b, id) in crate::naming::check_collisions(pairs) {
            let col = |n: &str| seen[schema.fields.iter().position(|f| f.name == n).unwrap_or(0)];
            let d = Diagnostic::cell_error(
                NAME_COLLISION,
                &origin,
                col(&b),
                Some(&b),
                Some(&b),
                format!(
                    "fields {a:?} (column {}) and {b:?} both become the {lang} identifier `{id}`",
                    col(&a).map(column_letters).unwrap_or_else(|| "-".into())
                ),
            )
            .with_help("rename one, or give one an \"x-gentable-name\" in the schema");
            diags.push(d);
            ok = false;
        }
    }
    ok.then(|| Columns { cols, by_field: seen.into() })
}

fn type_row(
    project: &Project,
    schema: &TableSchema,
    columns: &Columns,
    cells: &[RawCell],
    origin: RowOrigin,
    diags: &mut Vec<Diagnostic>,
) -> Row {
    let n = schema.fields.len();
    let mut values: Vec<Option<Value>> = vec![None; n];
    for &(ci, fi) in &columns.cols {
        let f = &schema.fields[fi];
        let raw = cells.get(ci).unwrap_or(&RawCell::Empty);
        if raw.is_blank() {
            continue;
        }
        let err = |e: CellError| {
            let mut d = Diagnostic::cell_error(e.code, &origin, Some(ci), Some(&f.name), Some(&raw.text()), e.message);
            d.help = e.help;
            d
        };
        match type_cell(project, &f.ty, raw) {
            Ok(v) => match (&mut values[fi], v) {
                // Repeated array columns append.
                (Some(Value::Array(prev)), Value::Array(more)) => prev.extend(more),
                (slot, v) => *slot = Some(v),
            },
            Err(e) => diags.push(err(e)),
        }
    }
    let mut out = Vec::with_capacity(n);
    for (fi, v) in values.into_iter().enumerate() {
        let f = &schema.fields[fi];
        let v = match v {
            Some(v) => v,
            None => match (&schema.defaults[fi], f.ty.strip_optional()) {
                (Some(d), _) => match cell::json_to_value(d, &f.ty, project) {
                    Ok(v) => v,
                    Err(m) => {
                        diags.push(Diagnostic::cell_error(
                            "GT0404",
                            &origin,
                            None,
                            Some(&f.name),
                            None,
                            format!("the schema's default for {:?} does not fit its type: {m}", f.name),
                        ));
                        Value::Null
                    }
                },
                (None, Type::Array(_)) => Value::Array(vec![]),
                (None, _) if matches!(f.ty, Type::Optional(_)) => Value::Null,
                (None, _) => {
                    let col = columns.cols.iter().find(|(_, x)| *x == fi).map(|(c, _)| *c);
                    diags.push(
                        Diagnostic::cell_error(
                            MISSING_VALUE,
                            &origin,
                            col,
                            Some(&f.name),
                            Some(""),
                            format!("{:?} is required but the cell is empty (expected {})", f.name, cell::type_words(&f.ty)),
                        )
                        .with_help("fill in the cell, or give the field a \"default\" in the schema"),
                    );
                    Value::Null
                }
            },
        };
        out.push(v);
    }
    Row { values: out, origin, columns: columns.by_field.clone() }
}

/// Type one non-blank raw cell.
pub fn type_cell(project: &Project, ty: &Type, raw: &RawCell) -> Result<Value, CellError> {
    let base = ty.strip_optional();
    match raw {
        RawCell::Text(s) => cell::parse_cell(s, ty, project),
        RawCell::Error(e) => Err(CellError {
            code: EXCEL_ERROR,
            message: format!("the cell holds the Excel error {e}"),
            help: Some("fix the formula or the value it refers to; error cells are never exported".into()),
        }),
        RawCell::Int(i) => match base {
            Type::Float => Ok(Value::Float(*i as f64)),
            Type::Int(w) => cell::int_in_range(*i as i128, *w),
            _ => cell::parse_cell(&raw.text(), ty, project),
        },
        RawCell::Float(f) => match base {
            Type::Float => cell::parse_float(&raw.text()).map(|_| Value::Float(if *f == 0.0 { 0.0 } else { *f })),
            Type::Int(w) => {
                if f.fract() != 0.0 {
                    Err(CellError {
                        code: cell::NOT_INTEGER,
                        message: format!("expected an integer, found the fraction {}", raw.text()),
                        help: Some("integer fields take whole numbers; change the schema type to \"number\" for fractions".into()),
                    })
                } else if f.abs() >= 9.007_199_254_740_992e15 {
                    Err(CellError {
                        code: cell::OUT_OF_RANGE,
                        message: format!("{} is beyond 2^53: Excel stores it as a float and it may already be rounded", raw.text()),
                        help: Some("store large integers as text cells".into()),
                    })
                } else {
                    cell::int_in_range(*f as i128, *w)
                }
            }
            _ => cell::parse_cell(&raw.text(), ty, project),
        },
        RawCell::Bool(b) => match base {
            Type::Bool => Ok(Value::Bool(*b)),
            _ => cell::parse_cell(&raw.text(), ty, project),
        },
        RawCell::DateTime(s) => cell::parse_cell(s, ty, project),
        RawCell::Empty => Ok(Value::Null),
    }
}
