//! **typing/** owns raw cells → typed values: table layout, the cell grammar ([`cell`]), date and time
//! parsing. It may import `read/`, `schema/` and the base modules; never `validate/`, `emit/` or `build/`.
//!
//! Typing: raw rows of one table ([`crate::read::RawTable`]s) + its [`TableSchema`] → typed IR rows.
//!
//! Applies the row and column conventions of docs/conventions.md §2 (header row, `#` comment rows and
//! columns, empty-header note columns, blank rows, repeated or merged headers as multi-column arrays, and the
//! per-table overrides `header_row`/`header_marker`/`data_row`/`first_column`/`marker_column`/`comment_marker`/
//! `column_marker_row`/`array_separator`, see [`Layout`]) and the cell grammar of [`crate::typing::cell`]. Every bad
//! cell becomes a [`Diagnostic`] naming file, sheet, row, column and field; typing goes on so that one run
//! reports all errors, and a cell is reported once (a bad cell is not also a "missing value"). A bad cell's
//! field is marked failed in its row ([`crate::ir::RowExtra`]): validation still checks every other cell.
//! What the sheet shows beyond its values (hidden rows and columns, values under empty headers, merged data
//! cells) is reported by [`sheet`].

pub mod cell;
pub mod columns;
pub mod defaults;
pub mod dialect;
pub mod layout;
pub mod sheet;
pub mod vertical;

pub use cell::{type_cell, type_cell_with};
pub use layout::Layout;

use self::cell::CellError;
use crate::config::{Limits, TableOverride};
use crate::diag::Code;
use crate::diag::{column_letters, Diagnostic, RowOrigin};
use crate::ir::{Field, Project, Row, Type, Value};
use crate::read::{RawCell, RawRow, RawTable};
use crate::schema::TableSchema;
use crate::typing::dialect::{stream_form, type_field_cell};

/// The cells of row `row` of `src` with every merged region covering it filled with the region's top-left
/// value (for header and column-marker rows: a header merged across columns names each of them).
/// Luban's bracketed header (`[b` … `b]`, test/multi_column.xlsx): a field spread over unmerged columns is
/// named `[b` (options may follow: `[b#sep=;`) in its first column and `b]` in its last, the columns between
/// left empty. Each of those columns is given the first one's header, as a merged header gives every column
/// it covers, so the field reads them as one stream of cells. `Err((column, message))` when another header
/// comes before the `b]`, or none does (Luban refuses both): its cells would be dropped or read elsewhere.
fn luban_brackets(
    mut header: Vec<RawCell>,
    first_col: usize,
) -> Result<Vec<RawCell>, (usize, String)> {
    let base = |t: &str| t.split('#').next().unwrap_or(t).trim().to_string();
    // The open bracket: its column and header text (without `[`).
    let mut open: Option<(usize, String)> = None;
    for (ci, c) in header.iter_mut().enumerate().skip(first_col) {
        let t = c.text();
        let t = t.trim();
        if let Some((at, text)) = open.clone() {
            if t.is_empty() {
                *c = RawCell::Text(text.into());
                continue;
            }
            let name = base(&text);
            if t.strip_suffix(']').is_some_and(|n| base(n) == name) {
                *c = RawCell::Text(text.into());
                open = None;
                continue;
            }
            return Err((
                ci,
                format!(
                    "the header {t:?} comes before {name}] closes the bracket [{name} of column {}",
                    column_letters(at)
                ),
            ));
        }
        if let Some(text) = t.strip_prefix('[').map(str::trim).filter(|n| !n.is_empty()) {
            open = Some((ci, text.to_string()));
            *c = RawCell::Text(text.into());
        }
    }
    match open {
        Some((at, text)) => Err((
            at,
            format!("the bracket [{0} is not closed by {0}]", base(&text)),
        )),
        None => Ok(header),
    }
}

fn with_merges(src: &RawTable, row: &RawRow) -> Vec<RawCell> {
    let mut out = row.cells.clone();
    for m in &src.merges {
        if !(m.rows.0 <= row.row && row.row <= m.rows.1)
            || (m.rows.0 == m.rows.1 && m.cols.0 == m.cols.1)
        {
            continue;
        }
        let top_left = src
            .rows
            .iter()
            .find(|r| r.row == m.rows.0)
            .and_then(|r| r.cells.get(m.cols.0))
            .cloned()
            .unwrap_or(RawCell::Empty);
        if out.len() <= m.cols.1 {
            out.resize(m.cols.1 + 1, RawCell::Empty);
        }
        for c in &mut out[m.cols.0..=m.cols.1] {
            if c.is_blank() {
                *c = top_left.clone();
            }
        }
    }
    out
}

/// Column → field mapping of one source.
struct Columns {
    /// `(column index, field index)` in column order.
    cols: Vec<(usize, usize)>,
    /// Field index → first column.
    by_field: std::sync::Arc<[Option<usize>]>,
    /// Dotted headers (`Pos.x`): `(column, field, path below the field)`, see [`crate::typing::columns`].
    subs: Vec<(usize, usize, Vec<String>)>,
    /// Luban: the text of the second `##var` (or `##+`) row by column: the members of a flags field over
    /// merged columns, the fields of a bean over them.
    sub_names: Vec<String>,
}

/// The typed rows of one table, in source order (sorting is done by the validators), and whether they are
/// all its rows: `complete` is false when a source could not be typed at all (no header row, a header that
/// does not fit the schema), so that validation does not report references into it as missing.
pub struct Typed {
    pub rows: Vec<Row>,
    pub complete: bool,
}

/// Type every source of one table, pushing diagnostics.
pub fn type_table(
    project: &Project,
    schema: &TableSchema,
    sources: Vec<RawTable>,
    ov: Option<&TableOverride>,
    limits: &Limits,
    diags: &mut Vec<Diagnostic>,
) -> Typed {
    let mut rows = vec![];
    let mut complete = true;
    let layout = Layout::of(ov, limits);
    let from = diags.len();
    for mut owned in sources {
        let src = &owned;
        // A source that could not be read at all was reported by the reader; its rows are unknown.
        if src.unread {
            complete = false;
            continue;
        }
        if ov.and_then(|o| o.layout.as_deref()) == Some("vertical") {
            match crate::typing::vertical::type_source(project, schema, src, &layout, diags) {
                vertical::Source::Row(row) => rows.push(row),
                vertical::Source::Empty => {}
                vertical::Source::Unreadable => complete = false,
            }
            continue;
        }
        // 1. Header row.
        let header_pos = layout.header(&src.rows);
        let Some(hp) = header_pos else {
            let mut d = Diagnostic::file_error(
                Code::NoHeader,
                &*src.file,
                format!("table {} has no header row", src.name),
            );
            d.sheet = src.sheet.as_deref().map(str::to_string);
            let mut help = "the first non-comment row must hold the field names".to_string();
            if let Some(h) = layout.header_row {
                d.message = format!(
                    "table {}: header_row {h} is past the end of the data",
                    src.name
                );
            } else if let Some(m) = &layout.header_marker {
                d.message = format!(
                    "table {}: no row has the header_marker {m:?} in column {}",
                    src.name,
                    column_letters(layout.marker_col)
                );
                help = format!(
                    "mark the field-name row, or correct [tables.{}] header_marker / marker_column",
                    src.name
                );
            }
            diags.push(d.with_help(help));
            complete = false;
            continue;
        };
        let header = with_merges(src, &src.rows[hp]);
        let header = if layout.luban {
            match luban_brackets(header, layout.first_col) {
                Ok(h) => h,
                Err((ci, message)) => {
                    let origin = src.origin(src.rows[hp].row);
                    diags.push(
                        Diagnostic::cell_error(Code::UnknownColumn, &origin, Some(ci), None, None, message)
                            .with_help("close the bracket with the field's name and ] in the last column of the field"),
                    );
                    complete = false;
                    continue;
                }
            }
        } else {
            header
        };
        // Columns tagged as comments in the column-marker row.
        let tagged: Vec<usize> = layout
            .column_marker_row
            .and_then(|r| src.rows.iter().find(|x| x.row == r))
            .map(|r| {
                with_merges(src, r)
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.text().trim_start().starts_with(&layout.comment_marker))
                    .map(|(i, _)| i)
                    .collect()
            })
            .unwrap_or_default();
        let Some(columns) = map_columns(
            project,
            schema,
            src,
            src.rows[hp].row,
            &header,
            &layout,
            &tagged,
            diags,
        ) else {
            complete = false;
            continue;
        };
        // 2. What the sheet shows beyond the values of its data rows (docs/conventions.md §7).
        let data = &src.rows[hp + 1..];
        let is_data = |raw: &RawRow| {
            !(layout.data_row.is_some_and(|x| raw.row < x)
                || layout.is_blank(raw)
                || layout.is_comment(raw))
        };
        let data_rows: Vec<&RawRow> = data.iter().filter(|r| is_data(r)).collect();
        let field_cols: Vec<(usize, &str)> = columns
            .cols
            .iter()
            .map(|&(c, f)| (c, schema.fields[f].name.as_str()))
            .chain(
                columns
                    .subs
                    .iter()
                    .map(|(c, f, _)| (*c, schema.fields[*f].name.as_str())),
            )
            .collect();
        sheet::hidden(src, &data_rows, &field_cols, diags);
        let skip = |c: usize| {
            tagged.contains(&c)
                || header
                    .get(c)
                    .is_some_and(|h| h.text().trim_start().starts_with(&layout.comment_marker))
        };
        sheet::unheaded(src, &header, layout.first_col, &skip, &data_rows, diags);
        let covered = sheet::merged_data(src, &data_rows, &field_cols, diags);
        if !layout.multi_rows.is_empty() {
            let Some(multi) = multi_row_fields(schema, &layout, src, diags) else {
                continue;
            };
            let first = rows.len();
            for &raw in &data_rows {
                if rows.len() > first && continues_above(&columns, &multi, &raw.cells) {
                    // Only the multi-row fields' cells are read: their diagnostics are kept.
                    let mut d = vec![];
                    let row = type_row(
                        project, schema, &columns, raw, src, &covered, &layout, &mut d,
                    );
                    diags.extend(d.into_iter().filter(|d| {
                        multi
                            .iter()
                            .any(|&m| d.field.as_deref() == Some(schema.fields[m].name.as_str()))
                    }));
                    let prev: &mut Row = rows.last_mut().expect("a record above");
                    for &m in &multi {
                        match (&mut prev.values[m], &row.values[m]) {
                            (Value::Array(a), Value::Array(more)) => a.extend(more.iter().cloned()),
                            (Value::Map(a), Value::Map(more)) if !more.is_empty() => {
                                let all = a.iter().chain(more).cloned().collect();
                                match cell::finish_map(all) {
                                    Ok(Value::Map(x)) => *a = x,
                                    Ok(_) => {}
                                    Err(e) => diags.push(Diagnostic::cell_error(
                                        Code::BadGrammar,
                                        &src.origin(raw.row),
                                        None,
                                        Some(&schema.fields[m].name),
                                        None,
                                        format!(
                                            "{:?} continues the record above: {e}",
                                            schema.fields[m].name
                                        ),
                                    )),
                                }
                            }
                            _ => {}
                        }
                    }
                    continue;
                }
                rows.push(type_row(
                    project, schema, &columns, raw, src, &covered, &layout, diags,
                ));
            }
            continue;
        }
        // 3. Data rows: a big source is typed in chunks on all cores (rows and diagnostics keep their order).
        //    Each raw row's cells are freed as soon as it is typed, so that the raw and the typed form of a
        //    big table are not both held whole (issue 18: peak memory).
        let mut raw_rows = std::mem::take(&mut owned.rows);
        let src = &owned;
        let one = |raw: &mut RawRow, d: &mut Vec<Diagnostic>| {
            if !is_data(raw) {
                return None;
            }
            let row = type_row(project, schema, &columns, raw, src, &covered, &layout, d);
            raw.cells = Vec::new();
            Some(row)
        };
        let data = &mut raw_rows[hp + 1..];
        if data.len() < PARALLEL_ROWS {
            rows.extend(data.iter_mut().filter_map(|raw| one(raw, diags)));
        } else {
            use rayon::prelude::*;
            let chunks: Vec<(Vec<Row>, Vec<Diagnostic>)> = data
                .par_chunks_mut(PARALLEL_ROWS / 4)
                .map(|chunk| {
                    let mut d = vec![];
                    let r = chunk
                        .iter_mut()
                        .filter_map(|raw| one(raw, &mut d))
                        .collect();
                    (r, d)
                })
                .collect();
            for (r, d) in chunks {
                rows.extend(r);
                diags.extend(d);
            }
        }
    }
    report_defaults(schema, from, diags);
    Typed { rows, complete }
}

/// Whether Luban sub-column names `names` (the second `##var` row over a field's merged columns) agree with
/// reading the cells by position: all empty, or a record's field names in order (a list: once per element;
/// a map: `$key` then the value's fields). A sub-column may name its field by one of the field's
/// `x-gentable-aliases` when no sub-column of the same record has the field's name (Luban looks a bean's
/// field up by its name, then by its `alias`).
fn sub_names_fit(project: &Project, ty: &Type, names: &[&str]) -> bool {
    if names.iter().all(|n| n.is_empty()) {
        return true;
    }
    // Columns past the last named one (a bracketed header's `b]` column) name nothing.
    let names = &names[..names
        .iter()
        .rposition(|n| !n.is_empty())
        .map_or(0, |i| i + 1)];
    let record = |t: &Type| match t.strip_optional() {
        Type::Record(r) => project.records.get(r).map(|d| {
            d.fields
                .iter()
                .map(|f| (f.name.as_str(), f.aliases.as_slice()))
                .collect::<Vec<_>>()
        }),
        _ => None,
    };
    // Each field of a unit: its name and aliases.
    type Unit<'a> = Vec<(&'a str, &'a [String])>;
    let (unit, key): (Option<Unit>, bool) = match ty.strip_optional() {
        Type::Record(_) => (record(ty), false),
        Type::Array(t) => (record(t), false),
        Type::Map(_, v) => (record(v), true),
        _ => (None, false),
    };
    let Some(mut unit) = unit else {
        return false;
    };
    if key {
        unit.insert(0, ("$key", &[]));
    }
    // One record's sub-columns, each naming the field at its position.
    let fits = |chunk: &[&str]| {
        chunk.iter().zip(&unit).all(|(a, (name, aliases))| {
            a == name || (aliases.iter().any(|x| x == a) && !chunk.contains(name))
        })
    };
    if matches!(ty.strip_optional(), Type::Record(_)) {
        return names.len() == unit.len() && fits(names);
    }
    !unit.is_empty() && names.len().is_multiple_of(unit.len()) && names.chunks(unit.len()).all(fits)
}

/// The field indices of `multi_row_fields`, each a list field of `schema`; `None` (with a diagnostic) if one
/// is not.
fn multi_row_fields(
    schema: &TableSchema,
    layout: &Layout,
    src: &RawTable,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<usize>> {
    let mut out = vec![];
    for n in &layout.multi_rows {
        match schema.fields.iter().position(|f| f.name == *n) {
            Some(fi)
                if matches!(
                    schema.fields[fi].ty.strip_optional(),
                    Type::Array(_) | Type::Map(..)
                ) =>
            {
                out.push(fi)
            }
            _ => {
                let mut d = Diagnostic::file_error(
                    Code::UnknownColumn,
                    &*src.file,
                    format!(
                        "table {}: multi_row_fields names {n:?}, which is not a list or map field of {}",
                        src.name, schema.schema_file
                    ),
                );
                d.sheet = src.sheet.as_deref().map(str::to_string);
                diags
                    .push(d.with_help("name list (array) or map properties of the table's schema"));
                return None;
            }
        }
    }
    Some(out)
}

/// A row continues the record above (`multi_row_fields`): every cell outside the multi-row fields is empty.
fn continues_above(columns: &Columns, multi: &[usize], cells: &[RawCell]) -> bool {
    let blank = |c: usize| cells.get(c).is_none_or(RawCell::is_blank);
    columns
        .cols
        .iter()
        .filter(|(_, f)| !multi.contains(f))
        .all(|(c, _)| blank(*c))
        && columns
            .subs
            .iter()
            .filter(|(_, f, _)| !multi.contains(f))
            .all(|(c, _, _)| blank(*c))
}

/// Replace the markers [`defaults::taken`] pushed since `from` by one diagnostic per bad default.
fn report_defaults(schema: &TableSchema, from: usize, diags: &mut Vec<Diagnostic>) {
    if schema.bad_defaults.iter().all(Option::is_none) {
        return;
    }
    let mut taken: Vec<(usize, Option<RowOrigin>)> = vec![(0, None); schema.fields.len()];
    let mut kept = Vec::with_capacity(diags.len() - from);
    for d in diags.drain(from..) {
        let marker = d.code == Code::BadDefault && d.row > 0 && d.message.is_empty();
        match (
            marker,
            schema
                .fields
                .iter()
                .position(|f| Some(&f.name) == d.field.as_ref()),
        ) {
            (true, Some(fi)) => {
                let t = &mut taken[fi];
                t.0 += 1;
                t.1.get_or_insert(RowOrigin {
                    file: d.file.as_str().into(),
                    sheet: d.sheet.as_deref().map(Into::into),
                    row: d.row,
                });
            }
            _ => kept.push(d),
        }
    }
    diags.extend(kept);
    defaults::report(schema, &taken, diags);
}

/// Sources with at least this many rows are typed in parallel chunks.
const PARALLEL_ROWS: usize = 20_000;

#[allow(clippy::too_many_arguments)]
fn map_columns(
    project: &Project,
    schema: &TableSchema,
    src: &RawTable,
    header_row: usize,
    cells: &[RawCell],
    layout: &Layout,
    tagged_comment: &[usize],
    diags: &mut Vec<Diagnostic>,
) -> Option<Columns> {
    let origin = src.origin(header_row);
    let mut cols = vec![];
    let mut subs: Vec<(usize, usize, Vec<String>)> = vec![];
    let mut seen: Vec<Option<usize>> = vec![None; schema.fields.len()];
    // The header text that first named each field (its name or one of its aliases).
    let mut named: Vec<Option<String>> = vec![None; schema.fields.len()];
    let mut ok = true;
    for (ci, c) in cells.iter().enumerate().skip(layout.first_col) {
        let h = c.text();
        let h = h.trim();
        if h.is_empty() || h.starts_with(&layout.comment_marker) || tagged_comment.contains(&ci) {
            continue;
        }
        // Luban's per-column options (`x5#default=10`, `x6#sep=|`) follow the name; the importer puts
        // them in the schema.
        // `*items` is Luban's multi-row list (`multi_row_fields`).
        let h = if layout.luban {
            h.split('#')
                .next()
                .unwrap_or(h)
                .trim_end()
                .trim_start_matches('*')
        } else {
            h
        };
        match Field::position_of(&schema.fields, h) {
            Some(fi) => {
                // The field's name and an alias (or two aliases) head two columns: one field given twice,
                // whatever its type (an array's or a Luban stream's columns repeat one header).
                if let Some((prev, first)) =
                    seen[fi].zip(named[fi].as_deref()).filter(|(_, f)| *f != h)
                {
                    diags.push(
                        Diagnostic::cell_error(
                            Code::DuplicateColumn,
                            &origin,
                            Some(ci),
                            Some(&schema.fields[fi].name),
                            Some(h),
                            format!(
                                "column {h:?} and column {} ({first:?}) both name the field {:?} (its name or an x-gentable-aliases name)",
                                column_letters(prev),
                                schema.fields[fi].name,
                            ),
                        )
                        .with_help("keep one of the two columns"),
                    );
                    ok = false;
                    continue;
                }
                named[fi].get_or_insert_with(|| h.to_string());
                if let Some(prev) = seen[fi] {
                    if subs.iter().any(|(_, f, _)| *f == fi) {
                        diags.push(Diagnostic::cell_error(
                            Code::DuplicateColumn,
                            &origin,
                            Some(ci),
                            Some(h),
                            Some(h),
                            format!(
                                "column {h:?} is also given across dotted columns (from column {})",
                                column_letters(prev)
                            ),
                        ));
                        ok = false;
                        continue;
                    }
                    // Luban reads a field over several (merged) columns as one stream of cells.
                    let ty = schema.fields[fi].ty.strip_optional();
                    let spans = matches!(ty, Type::Array(_))
                        || (layout.luban
                            && (stream_form(layout, &schema.fields[fi])
                                || matches!(ty, Type::Flags(_))));
                    if !spans {
                        // A merged header names every column it covers: say so rather than "twice".
                        let (message, help) = match src.merge_at(header_row, ci) {
                            Some(m) => (format!(
                                "column {} is under the merged header {} ({h:?}), but {h:?} is {}: only an array spans several columns, so its other columns would be lost",
                                column_letters(ci),
                                m.a1(),
                                schema.fields[fi].ty.words()
                            ), "unmerge the header, or make the field an array"),
                            None => (format!(
                                "column {h:?} appears twice (also in column {})",
                                column_letters(prev)
                            ), "only array fields may span several columns; rename or delete one"),
                        };
                        diags.push(
                            Diagnostic::cell_error(
                                Code::DuplicateColumn,
                                &origin,
                                Some(ci),
                                Some(h),
                                Some(h),
                                message,
                            )
                            .with_help(help),
                        );
                        ok = false;
                        continue;
                    }
                } else {
                    seen[fi] = Some(ci);
                }
                cols.push((ci, fi));
            }
            None if crate::typing::columns::split_header(project, &schema.fields, h).is_some() => {
                let (fi, path) = crate::typing::columns::split_header(project, &schema.fields, h)
                    .expect("checked");
                let clash = cols
                    .iter()
                    .find(|(_, f)| *f == fi)
                    .map(|(c, _)| *c)
                    .or_else(|| {
                        subs.iter()
                            .find(|(_, f, p)| *f == fi && *p == path)
                            .map(|(c, _, _)| *c)
                    });
                if let Some(prev) = clash {
                    diags.push(
                        Diagnostic::cell_error(
                            Code::DuplicateColumn,
                            &origin,
                            Some(ci),
                            Some(h),
                            Some(h),
                            format!("column {h:?} repeats what column {} gives", column_letters(prev)),
                        )
                        .with_help("give a record either in one column or across dotted columns, each part once"),
                    );
                    ok = false;
                    continue;
                }
                seen[fi].get_or_insert(ci);
                subs.push((ci, fi, path));
            }
            None if layout.ignore_unknown_columns => {}
            None => {
                let mut d = Diagnostic::cell_error(
                    Code::UnknownColumn,
                    &origin,
                    Some(ci),
                    Some(h),
                    Some(h),
                    format!(
                        "column {h:?} is not a field of {} ({})",
                        schema.name, schema.schema_file
                    ),
                );
                d = match Field::closest_header(&schema.fields, h) {
                    Some((c, f)) if c == f.name => d.with_help(format!(
                        "did you mean {c:?}? To keep a note column, start its header with {}",
                        layout.comment_marker
                    )),
                    Some((c, f)) => d.with_help(format!(
                        "did you mean {c:?} (an x-gentable-aliases name of {:?})? To keep a note column, start its header with {}",
                        f.name, layout.comment_marker
                    )),
                    None => d.with_help(format!(
                        "add the field to the schema, or start the header with {} to make it a comment column",
                        layout.comment_marker
                    )),
                };
                diags.push(d);
                ok = false;
            }
        }
    }
    for (fi, f) in schema.fields.iter().enumerate() {
        if seen[fi].is_none() && schema.required[fi] {
            let mut d = Diagnostic::cell_error(
                Code::MissingColumn,
                &origin,
                None,
                Some(&f.name),
                None,
                format!(
                    "required column {:?} is missing from the header row",
                    f.name
                ),
            );
            let headers: Vec<String> = cells
                .iter()
                .skip(layout.first_col)
                .map(|c| c.text().trim().to_string())
                .collect();
            let headers = || headers.iter().map(String::as_str).filter(|h| !h.is_empty());
            if let Some(c) = crate::diag::closest(&f.name, headers()) {
                d = d.with_help(format!(
                    "the header {c:?} looks close; rename it to {:?}",
                    f.name
                ));
            } else if let Some((c, a)) = f
                .aliases
                .iter()
                .find_map(|a| Some((crate::diag::closest(a, headers())?, a)))
            {
                // The sheet heads the column by an alias, misspelt.
                d = d.with_help(format!(
                    "the header {c:?} looks close; rename it to {a:?} (an x-gentable-aliases name of {:?})",
                    f.name
                ));
            }
            diags.push(d);
            ok = false;
        }
    }
    // Identifier collisions between headers (e.g. "MaxSteps" and "max steps").
    for (lang, f) in [
        (
            "Rust",
            crate::naming::rust_field as fn(&str, Option<&str>) -> String,
        ),
        ("TypeScript", crate::naming::ts_field),
    ] {
        let pairs = schema
            .fields
            .iter()
            .map(|fl| (fl.name.as_str(), f(&fl.name, fl.ident.as_deref())));
        for (a, b, id) in crate::naming::check_collisions(pairs) {
            let col = |n: &str| seen[schema.fields.iter().position(|f| f.name == n).unwrap_or(0)];
            let d = Diagnostic::cell_error(
                Code::NameCollision,
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
    // Luban's multi-level title: a second `##var` (or `##+`) row below the header names sub-columns.
    let sub_names = if layout.luban {
        src.rows
            .iter()
            .filter(|r| r.row > header_row)
            .find(|r| {
                r.cells
                    .get(layout.marker_col)
                    .is_some_and(|c| matches!(c.text().trim(), "##var" | "##+"))
            })
            .map(|r| {
                with_merges(src, r)
                    .iter()
                    .map(|c| c.text().trim().to_string())
                    .collect()
            })
            .unwrap_or_default()
    } else {
        vec![]
    };
    // A field over merged columns is read positionally: sub-columns named in that row must be its record's
    // fields in order (else the cells would land in other fields).
    for (fi, f) in schema.fields.iter().enumerate() {
        let fcols: Vec<usize> = cols
            .iter()
            .filter(|(_, x)| *x == fi)
            .map(|(c, _)| *c)
            .collect();
        if fcols.len() < 2 || matches!(f.ty.strip_optional(), Type::Flags(_)) {
            continue;
        }
        let names: Vec<&str> = fcols
            .iter()
            .map(|&c| sub_names.get(c).map_or("", String::as_str))
            .collect();
        if !sub_names_fit(project, &f.ty, &names) {
            diags.push(
                Diagnostic::cell_error(
                    Code::UnknownColumn,
                    &origin,
                    Some(fcols[0]),
                    Some(&f.name),
                    Some(&names.join(" | ")),
                    format!(
                        "the sub-columns of {:?} named in the sub-header row (##var or ##+: {}) are not its fields in order: multi-level titles are read by position only",
                        f.name,
                        names.join(" | ")
                    ),
                )
                .with_help("order the sub-columns as the bean's fields, one level only"),
            );
            ok = false;
        }
    }
    ok.then(|| Columns {
        cols,
        by_field: seen.into(),
        subs,
        sub_names,
    })
}

#[allow(clippy::too_many_arguments)]
fn type_row(
    project: &Project,
    schema: &TableSchema,
    columns: &Columns,
    raw_row: &RawRow,
    src: &RawTable,
    covered: &std::collections::HashSet<(usize, usize)>,
    layout: &Layout,
    diags: &mut Vec<Diagnostic>,
) -> Row {
    let sep = layout.grammar();
    let cells = &raw_row.cells;
    let origin = src.origin(raw_row.row);
    let n = schema.fields.len();
    let mut values: Vec<Option<Value>> = vec![None; n];
    // Fields with a reported bad cell: not also "missing", and left out of later checks.
    let mut failed = vec![false; n];
    // Luban: a compound field over several columns reads their cells as one stream (each cell a part).
    let multi: Vec<usize> = if layout.luban {
        (0..n)
            .filter(|&fi| columns.cols.iter().filter(|(_, f)| *f == fi).count() > 1)
            .collect()
    } else {
        vec![]
    };
    for &fi in &multi {
        let f = &schema.fields[fi];
        let cols: Vec<usize> = columns
            .cols
            .iter()
            .filter(|(_, x)| *x == fi)
            .map(|(c, _)| *c)
            .collect();
        // A cell that could not be decoded was reported by the reader (GT0102): the field failed.
        if cols
            .iter()
            .any(|&c| matches!(cells.get(c), Some(RawCell::Undecodable(_))))
        {
            failed[fi] = true;
            continue;
        }
        let texts: Vec<String> = cols
            .iter()
            .map(|&c| cells.get(c).map(RawCell::text).unwrap_or_default())
            .collect();
        if let Type::Flags(e) = f.ty.strip_optional() {
            // One column per flag, named by the second `##var` row; all empty is no flag (Luban's 0).
            let flags: Vec<(String, String)> = cols
                .iter()
                .zip(&texts)
                .map(|(&c, t)| {
                    let name = columns.sub_names.get(c).cloned().unwrap_or_default();
                    (name, t.clone())
                })
                .collect();
            match cell::stream::parse_flag_columns(&flags, e, project) {
                Ok(v) => values[fi] = Some(v),
                Err((i, e)) => {
                    failed[fi] = true;
                    diags.push(e.at(&origin, cols[i], &f.name, &texts[i]));
                }
            }
            continue;
        }
        if texts.iter().all(|t| cell::trim(t).is_empty()) {
            continue;
        }
        match cell::stream::parse_cells(&texts, f, project, layout.null_text.as_deref()) {
            Ok(v) => values[fi] = Some(v),
            Err(e) => {
                failed[fi] = true;
                diags.push(e.at(&origin, cols[0], &f.name, &texts.join(" | ")));
            }
        }
    }
    // Array fields over several columns: the column of each element.
    let mut elements: Vec<(usize, Vec<usize>)> = vec![];
    for &(ci, fi) in &columns.cols {
        if multi.contains(&fi) {
            continue;
        }
        let f = &schema.fields[fi];
        let raw = cells.get(ci).unwrap_or(&RawCell::Empty);
        if cell::is_empty_for(raw, &f.ty) {
            // A cell inside a merged range reads as empty; the range is reported once ([`sheet`]).
            if covered.contains(&(raw_row.row, ci)) {
                failed[fi] = true;
            }
            continue;
        }
        if let RawCell::Undecodable(_) = raw {
            failed[fi] = true;
            continue;
        }
        if let Some(note) = cell::display_note(raw, &f.ty) {
            diags.push(note.at(&origin, ci, &f.name, &raw.text()).warning());
        }
        let err = |e: CellError| e.at(&origin, ci, &f.name, &raw.text());
        if matches!(f.ty, Type::Optional(_))
            && layout
                .null_text
                .as_deref()
                .is_some_and(|n| n == cell::trim(&raw.text()))
        {
            values[fi].get_or_insert(Value::Null);
            continue;
        }
        let typed = type_field_cell(project, f, raw, layout);
        match typed {
            Ok(v) => {
                let count = match &v {
                    Value::Array(items) => items.len(),
                    _ => 0,
                };
                match (&mut values[fi], v) {
                    // Repeated array columns append.
                    (Some(Value::Array(prev)), Value::Array(more)) => {
                        let before = prev.len();
                        prev.extend(more);
                        let slot = match elements.iter().position(|(x, _)| *x == fi) {
                            Some(i) => i,
                            None => {
                                let first = columns.by_field[fi].unwrap_or(ci);
                                elements.push((fi, vec![first; before]));
                                elements.len() - 1
                            }
                        };
                        elements[slot].1.extend(std::iter::repeat_n(ci, count));
                    }
                    (slot, v) => {
                        if count > 0 && columns.by_field[fi] != Some(ci) {
                            elements.push((fi, vec![ci; count]));
                        }
                        *slot = Some(v);
                    }
                }
            }
            Err(e) => {
                failed[fi] = true;
                diags.push(err(e));
            }
        }
    }
    // Records across dotted columns.
    let mut done: Vec<usize> = vec![];
    for &(_, fi, _) in &columns.subs {
        if done.contains(&fi) {
            continue;
        }
        done.push(fi);
        let parts: Vec<crate::typing::columns::Part> = columns
            .subs
            .iter()
            .filter(|(_, f, _)| *f == fi)
            .map(|(ci, _, path)| crate::typing::columns::Part {
                path,
                col: *ci,
                cell: cells.get(*ci).unwrap_or(&RawCell::Empty),
            })
            .collect();
        let f = &schema.fields[fi];
        // A sub-cell that could not be decoded was reported by the reader (GT0102): the field failed.
        if parts
            .iter()
            .any(|p| matches!(p.cell, RawCell::Undecodable(_)))
        {
            failed[fi] = true;
            continue;
        }
        for p in &parts {
            let leaf = crate::typing::columns::leaf_type(project, &f.ty, p.path);
            if let Some(note) = leaf.and_then(|t| cell::display_note(p.cell, t)) {
                diags.push(note.at(&origin, p.col, &f.name, &p.cell.text()).warning());
            }
        }
        match crate::typing::columns::assemble(project, &f.ty, &parts, sep, 0) {
            Ok(v) => values[fi] = v,
            Err((ci, e)) => {
                failed[fi] = true;
                let text = cells.get(ci).map(RawCell::text).unwrap_or_default();
                diags.push(e.at(&origin, ci, &f.name, &text));
            }
        }
    }
    let mut out = Vec::with_capacity(n);
    for (fi, v) in values.into_iter().enumerate() {
        let f = &schema.fields[fi];
        let v = match v {
            Some(v) => v,
            None if failed[fi] => Value::Null,
            None => match (&schema.defaults[fi], f.ty.strip_optional()) {
                // A bad default is counted here and reported once, at the schema (`defaults::report`).
                (Some(_), _) if defaults::taken(schema, fi, &origin, diags) => {
                    failed[fi] = true;
                    Value::Null
                }
                (Some(d), _) => cell::json_to_value(d, &f.ty, project).unwrap_or(Value::Null),
                (None, Type::Array(_) | Type::Flags(_)) => Value::Array(vec![]),
                (None, Type::Map(..)) => Value::Map(vec![]),
                (None, _) if matches!(f.ty, Type::Optional(_)) => Value::Null,
                (None, _) => {
                    failed[fi] = true;
                    let col = columns.cols.iter().find(|(_, x)| *x == fi).map(|(c, _)| *c);
                    diags.push(
                        Diagnostic::cell_error(
                            Code::MissingValue,
                            &origin,
                            col,
                            Some(&f.name),
                            Some(""),
                            format!(
                                "{:?} is required but the cell is empty (expected {})",
                                f.name,
                                // A scalar union in its members' words, not its internal type name.
                                match &f.ty {
                                    Type::Choice(c) => project
                                        .choices
                                        .get(c)
                                        .map_or_else(|| f.ty.words(), |c| c.words()),
                                    t => t.words(),
                                }
                            ),
                        )
                        .with_help(
                            "fill in the cell, or give the field a \"default\" in the schema",
                        ),
                    );
                    Value::Null
                }
            },
        };
        out.push(v);
    }
    let tags = layout
        .tag_col
        .and_then(|c| cells.get(c))
        .map(|c| {
            c.text()
                .split(',')
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let failed: Vec<usize> = (0..n).filter(|&i| failed[i]).collect();
    let extra = (!failed.is_empty() || !elements.is_empty())
        .then(|| Box::new(crate::ir::RowExtra { failed, elements }));
    Row {
        values: out,
        origin,
        columns: columns.by_field.clone(),
        tags,
        extra,
    }
}
