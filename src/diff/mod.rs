//! **diff/** owns readable diffs: `gentable diff` (a row-level semantic diff of two versions of a project) and
//! `gentable textconv` ([`textconv`]: a workbook as stable text for git). It may import every stage; only the
//! command line and later tools import it.
//!
//! `gentable diff [OLD] [NEW]` (docs/designer.md "Diff"): each side is a git revision of the repository that
//! holds the project ([`git`]), a folder holding a project file, or — when left out — the working tree
//! (`gentable diff` = `HEAD` → working tree; `gentable diff REV` = `REV` → working tree). Both sides are read,
//! typed and validated by the one build driver ([`crate::build::inspect`]), and compared **by value**: rows are
//! matched by primary key (map tables), by the first unique key (list tables that have one), as the one row
//! (singletons), or by position with a longest-common-subsequence alignment (other list tables); a cell
//! changed when its typed value changed, so `3` → `3.0` in an integer column, moving rows of a map table or
//! re-saving a workbook is no change. Each changed cell is shown with its old and new value as a designer
//! would type them ([`crate::typing::cell::print`]) and its location in both versions; added and removed rows,
//! fields and tables are listed. Output: human text, JSON (for tools and bots) or Markdown (for a PR comment).

pub mod git;
pub mod textconv;

use crate::build::{Inspection, Outcome, Stream};
use crate::diag::column_letters;
use crate::diag::lang::{frame, plural, Lang};
use crate::ir::{canonical, Project, Row, Table, TableMode, Type, Value};
use crate::typing::cell::print::cell_text;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One side of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    /// The project as it is on disk (the project file of the request).
    WorkTree,
    /// A git revision of the repository holding the project.
    Rev(String),
    /// A folder holding a project file of the same name as the request's (or a project file itself).
    Folder(PathBuf),
}

impl Spec {
    /// The side an argument names: an existing folder or file, else a git revision.
    pub fn parse(arg: &str) -> Spec {
        if Path::new(arg).exists() {
            Spec::Folder(PathBuf::from(arg))
        } else {
            Spec::Rev(arg.to_string())
        }
    }

    fn label(&self, lang: Lang) -> String {
        match self {
            Spec::WorkTree => frame(lang, "working tree", &[]),
            Spec::Rev(r) => r.clone(),
            Spec::Folder(f) => f.display().to_string(),
        }
    }
}

/// How the diff is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    Human,
    Json,
    Markdown,
}

/// One `gentable diff`.
#[derive(Clone, Debug)]
pub struct DiffRequest {
    /// The project file (of the working tree; its name is looked for in folders).
    pub config: PathBuf,
    pub old: Spec,
    pub new: Spec,
    pub format: DiffFormat,
    /// Exit with 1 when there are differences (like `git diff --exit-code`).
    pub exit_code: bool,
    /// The language of the human and Markdown output (JSON is the same in every language).
    pub lang: Lang,
}

/// Where a row or cell is in one version: file, sheet, 1-based row, column letters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct At {
    pub file: String,
    pub sheet: Option<String>,
    pub row: usize,
    pub column: Option<String>,
}

impl At {
    fn of(row: &Row, col: Option<usize>) -> At {
        At {
            file: row.origin.file.to_string(),
            sheet: row.origin.sheet.as_deref().map(str::to_string),
            row: row.origin.row,
            column: col.map(column_letters),
        }
    }
    /// `file[sheet]:row:COL`.
    pub fn location(&self) -> String {
        let mut s = self.file.clone();
        if let Some(sh) = &self.sheet {
            s.push_str(&format!("[{sh}]"));
        }
        s.push_str(&format!(":{}", self.row));
        if let Some(c) = &self.column {
            s.push_str(&format!(":{c}"));
        }
        s
    }
}

/// One changed cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellChange {
    pub field: String,
    /// The values as canonical JSON (`null`: empty).
    pub old: serde_json::Value,
    pub new: serde_json::Value,
    /// The values as a designer would type them.
    pub old_text: String,
    pub new_text: String,
    pub old_at: At,
    pub new_at: At,
    /// The code of the error that kept the old (new) cell from being read, if one did: its text is then the
    /// cell as written and its value `null`.
    pub old_error: Option<String>,
    pub new_error: Option<String>,
}

/// The cell errors of a version: `(file, sheet, row, column)` → (code, cell text).
type CellErrors<'a> =
    std::collections::HashMap<(&'a str, Option<&'a str>, usize, &'a str), (String, String)>;

fn cell_errors(ins: &Inspection) -> CellErrors<'_> {
    ins.diagnostics
        .iter()
        .filter(|d| d.severity == crate::diag::Severity::Error && d.row > 0)
        .filter_map(|d| {
            Some((
                (
                    d.file.as_str(),
                    d.sheet.as_deref(),
                    d.row,
                    d.column.as_deref()?,
                ),
                (d.code.to_string(), d.cell_text.clone().unwrap_or_default()),
            ))
        })
        .collect()
}

/// A row that is in one version only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RowRef {
    /// The row's key as text (`Soldier`, `Red, 3`; `row 7` for a row matched by position).
    pub key: String,
    /// What `key` is (not in the JSON, whose `key` is the same in every language).
    #[serde(skip)]
    pub label: KeyLabel,
    pub at: At,
}

/// What a row's `key` text is, so that the human and Markdown output can say it in their language.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyLabel {
    /// The values of the row's key fields, shown as they are.
    #[default]
    Key,
    /// The one row of a singleton table: `(the row)`.
    Singleton,
    /// A row matched by position (no key): `row N`, its 1-based row in the sheet.
    Position(usize),
}

impl KeyLabel {
    /// `key` as the human and Markdown output show it in `lang`.
    pub fn show(self, key: &str, lang: Lang) -> String {
        match self {
            KeyLabel::Key => key.to_string(),
            KeyLabel::Singleton => frame(lang, "(the row)", &[]),
            KeyLabel::Position(n) => frame(lang, "row {}", &[&n]),
        }
    }
}

/// A row in both versions with changed cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RowChange {
    pub key: String,
    /// What `key` is ([`RowRef::label`]).
    #[serde(skip)]
    pub label: KeyLabel,
    pub cells: Vec<CellChange>,
}

/// What happened to one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Added,
    Removed,
    Changed,
}

/// The differences of one table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableDiff {
    pub table: String,
    pub status: Status,
    /// Rows in the version that has the table (added or removed tables).
    pub rows: usize,
    /// The row schema (the JSON of the table's schema file) differs.
    pub schema_changed: bool,
    pub fields_added: Vec<String>,
    pub fields_removed: Vec<String>,
    pub rows_added: Vec<RowRef>,
    pub rows_removed: Vec<RowRef>,
    pub rows_changed: Vec<RowChange>,
}

/// A whole diff.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    pub old: String,
    pub new: String,
    /// Only tables with a difference, in name order.
    pub tables: Vec<TableDiff>,
}

impl Diff {
    /// Number of changed cells.
    pub fn cells(&self) -> usize {
        self.tables
            .iter()
            .flat_map(|t| &t.rows_changed)
            .map(|r| r.cells.len())
            .sum()
    }
}

/// A row's identity (for matching) and its key as shown.
fn identity(p: &Project, t: &Table, row: &Row, fields: &[usize]) -> (String, String) {
    let mut id = String::new();
    let mut shown = vec![];
    for &i in fields {
        let (f, v) = (&t.fields[i], &row.values[i]);
        canonical::write_value(&mut id, p, &f.ty, v);
        id.push('\u{1f}');
        shown.push(cell_text(p, &f.ty, v, '|'));
    }
    (id, shown.join(", "))
}

/// The fields that identify rows of `t`, or `None` to match them by position.
fn key_fields(t: &Table) -> Option<Vec<usize>> {
    match t.mode {
        TableMode::Map if !t.primary_key.is_empty() => Some(t.primary_key.clone()),
        TableMode::One => Some(vec![]),
        _ => t.unique_keys.first().cloned(),
    }
}

fn json_of(p: &Project, ty: &Type, v: &Value) -> serde_json::Value {
    if matches!(v, Value::Null) {
        return serde_json::Value::Null;
    }
    let mut s = String::new();
    canonical::write_value(&mut s, p, ty, v);
    serde_json::from_str(&s).unwrap_or(serde_json::Value::String(s))
}

/// Compare two inspected versions of a project (see the module docs).
pub fn diff(old: &Inspection, new: &Inspection, old_label: &str, new_label: &str) -> Diff {
    let names: BTreeSet<&str> = old
        .project
        .tables
        .iter()
        .chain(&new.project.tables)
        .map(|t| t.name.as_str())
        .collect();
    let mut tables = vec![];
    for name in names {
        let (a, b) = (old.project.table(name), new.project.table(name));
        let d = match (a, b) {
            (None, Some(t)) => TableDiff::whole(t, Status::Added),
            (Some(t), None) => TableDiff::whole(t, Status::Removed),
            (Some(a), Some(b)) => table_diff(old, new, a, b),
            (None, None) => continue,
        };
        if d.status != Status::Changed
            || d.schema_changed
            || !d.fields_added.is_empty()
            || !d.fields_removed.is_empty()
            || !d.rows_added.is_empty()
            || !d.rows_removed.is_empty()
            || !d.rows_changed.is_empty()
        {
            tables.push(d);
        }
    }
    Diff {
        old: old_label.to_string(),
        new: new_label.to_string(),
        tables,
    }
}

impl TableDiff {
    fn whole(t: &Table, status: Status) -> TableDiff {
        TableDiff {
            table: t.name.clone(),
            status,
            rows: t.rows.len(),
            schema_changed: false,
            fields_added: vec![],
            fields_removed: vec![],
            rows_added: vec![],
            rows_removed: vec![],
            rows_changed: vec![],
        }
    }
}

fn table_diff(old: &Inspection, new: &Inspection, a: &Table, b: &Table) -> TableDiff {
    let (pa, pb) = (&old.project, &new.project);
    let mut d = TableDiff::whole(b, Status::Changed);
    let schema = |ins: &Inspection, n: &str| {
        ins.schemas
            .iter()
            .find(|s| s.name == n)
            .map(|s| s.root.clone())
    };
    d.schema_changed = schema(old, &a.name) != schema(new, &b.name);
    d.fields_added = b
        .fields
        .iter()
        .filter(|f| a.field_index(&f.name).is_none())
        .map(|f| f.name.clone())
        .collect();
    d.fields_removed = a
        .fields
        .iter()
        .filter(|f| b.field_index(&f.name).is_none())
        .map(|f| f.name.clone())
        .collect();
    // Fields in both versions: (index in a, index in b).
    let common: Vec<(usize, usize)> = a
        .fields
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((i, b.field_index(&f.name)?)))
        .collect();
    let (sa, sb) = (old.array_separator(&a.name), new.array_separator(&b.name));
    let (ea, eb) = (cell_errors(old), cell_errors(new));
    // A cell that failed to read: its text as written and the error's code.
    let failed = |errors: &CellErrors, at: &At, v: &Value| -> Option<(String, String)> {
        if !matches!(v, Value::Null) {
            return None;
        }
        errors
            .get(&(
                at.file.as_str(),
                at.sheet.as_deref(),
                at.row,
                at.column.as_deref()?,
            ))
            .cloned()
    };
    let cells = |ra: &Row, rb: &Row| -> Vec<CellChange> {
        common
            .iter()
            .filter_map(|&(i, j)| {
                let (fa, fb) = (&a.fields[i], &b.fields[j]);
                let (va, vb) = (&ra.values[i], &rb.values[j]);
                let (ja, jb) = (json_of(pa, &fa.ty, va), json_of(pb, &fb.ty, vb));
                let (old_at, new_at) = (At::of(ra, ra.column(i)), At::of(rb, rb.column(j)));
                let (fo, fn_) = (failed(&ea, &old_at, va), failed(&eb, &new_at, vb));
                // Two cells that fail alike are no change.
                if ja == jb && fo.as_ref().map(|x| &x.1) == fn_.as_ref().map(|x| &x.1) {
                    return None;
                }
                Some(CellChange {
                    field: fb.name.clone(),
                    old: ja,
                    new: jb,
                    old_text: fo
                        .as_ref()
                        .map(|x| x.1.clone())
                        .unwrap_or_else(|| cell_text(pa, &fa.ty, va, sa)),
                    new_text: fn_
                        .as_ref()
                        .map(|x| x.1.clone())
                        .unwrap_or_else(|| cell_text(pb, &fb.ty, vb, sb)),
                    old_at,
                    new_at,
                    old_error: fo.map(|x| x.0),
                    new_error: fn_.map(|x| x.0),
                })
            })
            .collect()
    };
    let keys = match (key_fields(a), key_fields(b)) {
        (Some(ka), Some(kb))
            if ka.len() == kb.len()
                && ka
                    .iter()
                    .zip(&kb)
                    .all(|(&i, &j)| a.fields[i].name == b.fields[j].name) =>
        {
            Some((ka, kb))
        }
        _ => None,
    };
    if let Some((ka, kb)) = keys {
        let index = |p: &Project, t: &Table, k: &[usize]| {
            let mut m: BTreeMap<String, (String, usize)> = BTreeMap::new();
            for (n, r) in t.rows.iter().enumerate() {
                let (id, shown) = identity(p, t, r, k);
                m.entry(id).or_insert((shown, n));
            }
            m
        };
        let (ia, ib) = (index(pa, a, &ka), index(pb, b, &kb));
        if ia.len() == a.rows.len() && ib.len() == b.rows.len() {
            let key = |shown: &str, t: &Table| {
                if t.mode == TableMode::One {
                    "(the row)".to_string()
                } else {
                    shown.to_string()
                }
            };
            let label = |t: &Table| {
                if t.mode == TableMode::One {
                    KeyLabel::Singleton
                } else {
                    KeyLabel::Key
                }
            };
            for r in &b.rows {
                let (id, shown) = identity(pb, b, r, &kb);
                match ia.get(&id) {
                    Some((_, n)) => {
                        let c = cells(&a.rows[*n], r);
                        if !c.is_empty() {
                            d.rows_changed.push(RowChange {
                                key: key(&shown, b),
                                label: label(b),
                                cells: c,
                            });
                        }
                    }
                    None => d.rows_added.push(RowRef {
                        key: key(&shown, b),
                        label: label(b),
                        at: At::of(r, None),
                    }),
                }
            }
            for r in &a.rows {
                let (id, shown) = identity(pa, a, r, &ka);
                if !ib.contains_key(&id) {
                    d.rows_removed.push(RowRef {
                        key: key(&shown, a),
                        label: label(a),
                        at: At::of(r, None),
                    });
                }
            }
            return d;
        }
    }
    // By position: align equal rows, pair up the rest in order.
    let sig = |p: &Project, t: &Table, common: &[usize]| -> Vec<String> {
        t.rows
            .iter()
            .map(|r| {
                let mut s = String::new();
                for &i in common {
                    canonical::write_value(&mut s, p, &t.fields[i].ty, &r.values[i]);
                    s.push('\u{1f}');
                }
                s
            })
            .collect()
    };
    let ca: Vec<usize> = common.iter().map(|c| c.0).collect();
    let cb: Vec<usize> = common.iter().map(|c| c.1).collect();
    let (xa, xb) = (sig(pa, a, &ca), sig(pb, b, &cb));
    let row_key = |r: &Row| format!("row {}", r.origin.row);
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &xa, &xb) {
        use similar::DiffOp;
        let (o, ol, n, nl) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index, old_len, 0, 0),
            DiffOp::Insert {
                new_index, new_len, ..
            } => (0, 0, new_index, new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (old_index, old_len, new_index, new_len),
        };
        let paired = ol.min(nl);
        for k in 0..paired {
            let (ra, rb) = (&a.rows[o + k], &b.rows[n + k]);
            let c = cells(ra, rb);
            if !c.is_empty() {
                d.rows_changed.push(RowChange {
                    key: row_key(rb),
                    label: KeyLabel::Position(rb.origin.row),
                    cells: c,
                });
            }
        }
        for r in &a.rows[o + paired..o + ol] {
            d.rows_removed.push(RowRef {
                key: row_key(r),
                label: KeyLabel::Position(r.origin.row),
                at: At::of(r, None),
            });
        }
        for r in &b.rows[n + paired..n + nl] {
            d.rows_added.push(RowRef {
                key: row_key(r),
                label: KeyLabel::Position(r.origin.row),
                at: At::of(r, None),
            });
        }
    }
    d
}

/// Pad `s` to `width` terminal columns (CJK characters count two).
fn pad(s: &str, width: usize) -> String {
    let w = unicode_width::UnicodeWidthStr::width(s);
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

/// `gentable diff` as human text, its frame in `lang`.
pub fn human(d: &Diff, lang: Lang) -> String {
    let mut out = String::new();
    let rows = |f: fn(&TableDiff) -> usize| d.tables.iter().map(f).sum::<usize>();
    let (added, removed, changed) = (
        rows(|t| t.rows_added.len()),
        rows(|t| t.rows_removed.len()),
        rows(|t| t.rows_changed.len()),
    );
    if d.tables.is_empty() {
        out.push_str(&frame(
            lang,
            "gentable diff {} → {}: no change",
            &[&d.old, &d.new],
        ));
        out.push('\n');
        return out;
    }
    let (n, cells) = (d.tables.len(), d.cells());
    out.push_str(&frame(
        lang,
        "gentable diff {} → {}: {} table{} changed; {} row{} added, {} removed, {} changed ({} cell{})",
        &[
            &d.old,
            &d.new,
            &n,
            &plural(n),
            &added,
            &plural(added),
            &removed,
            &changed,
            &cells,
            &plural(cells),
        ],
    ));
    out.push('\n');
    for t in &d.tables {
        out.push('\n');
        match t.status {
            Status::Added => {
                let line = frame(
                    lang,
                    "+ table {} ({} row{})",
                    &[&t.table, &t.rows, &plural(t.rows)],
                );
                out.push_str(&format!("{line}\n"));
                continue;
            }
            Status::Removed => {
                let line = frame(
                    lang,
                    "- table {} ({} row{})",
                    &[&t.table, &t.rows, &plural(t.rows)],
                );
                out.push_str(&format!("{line}\n"));
                continue;
            }
            Status::Changed => out.push_str(&format!("{}\n", t.table)),
        }
        if t.schema_changed {
            out.push_str(&format!("  {}\n", frame(lang, "schema changed", &[])));
        }
        for f in &t.fields_added {
            out.push_str(&format!("  {}\n", frame(lang, "+ field {}", &[f])));
        }
        for f in &t.fields_removed {
            out.push_str(&format!("  {}\n", frame(lang, "- field {}", &[f])));
        }
        for r in &t.rows_changed {
            out.push_str(&format!("  ~ {}\n", r.label.show(&r.key, lang)));
            let width = r
                .cells
                .iter()
                .map(|c| unicode_width::UnicodeWidthStr::width(c.field.as_str()))
                .max()
                .unwrap_or(0);
            for c in &r.cells {
                let mark = |text: &str, e: &Option<String>| match e {
                    Some(code) => {
                        frame(lang, "{} ({}: does not read)", &[&shown(text, lang), code])
                    }
                    None => shown(text, lang),
                };
                out.push_str(&format!(
                    "      {}  {} → {}    {}\n",
                    pad(&c.field, width),
                    mark(&c.old_text, &c.old_error),
                    mark(&c.new_text, &c.new_error),
                    c.new_at.location()
                ));
            }
        }
        for r in &t.rows_added {
            let key = r.label.show(&r.key, lang);
            out.push_str(&format!("  + {key}    {}\n", r.at.location()));
        }
        for r in &t.rows_removed {
            let key = r.label.show(&r.key, lang);
            let was = frame(lang, "(was {})", &[&r.at.location()]);
            out.push_str(&format!("  - {key}    {was}\n"));
        }
    }
    out
}

/// `gentable diff --format markdown`: for a pull-request comment, its frame in `lang`.
pub fn markdown(d: &Diff, lang: Lang) -> String {
    let mut out = format!("### gentable diff `{}` → `{}`\n\n", d.old, d.new);
    if d.tables.is_empty() {
        out.push_str(&frame(lang, "No change in the tables.", &[]));
        out.push('\n');
        return out;
    }
    let empty = format!("*{}*", frame(lang, "(empty)", &[]));
    let cell = |s: &str| {
        if s.is_empty() {
            empty.clone()
        } else {
            format!(
                "`{}`",
                s.replace('`', "'").replace('|', "\\|").replace('\n', " ")
            )
        }
    };
    for t in &d.tables {
        match t.status {
            Status::Added => {
                let line = frame(
                    lang,
                    "**{}**: new table ({} row{})",
                    &[&t.table, &t.rows, &plural(t.rows)],
                );
                out.push_str(&format!("{line}\n\n"));
                continue;
            }
            Status::Removed => {
                let line = frame(
                    lang,
                    "**{}**: table removed ({} row{})",
                    &[&t.table, &t.rows, &plural(t.rows)],
                );
                out.push_str(&format!("{line}\n\n"));
                continue;
            }
            Status::Changed => out.push_str(&format!("**{}**\n\n", t.table)),
        }
        let mut notes = vec![];
        if t.schema_changed {
            notes.push(frame(lang, "schema changed", &[]));
        }
        notes.extend(
            t.fields_added
                .iter()
                .map(|f| frame(lang, "field `{}` added", &[f])),
        );
        notes.extend(
            t.fields_removed
                .iter()
                .map(|f| frame(lang, "field `{}` removed", &[f])),
        );
        // One blank line between the table's name, its notes and its rows.
        let gap = if notes.is_empty() { "" } else { "\n" };
        for n in notes {
            out.push_str(&format!("- {n}\n"));
        }
        if !t.rows_changed.is_empty() || !t.rows_added.is_empty() || !t.rows_removed.is_empty() {
            out.push_str(&format!(
                "{gap}{}\n|---|---|---|---|---|\n",
                frame(lang, "| row | field | old | new | at |", &[])
            ));
            for r in &t.rows_changed {
                for c in &r.cells {
                    out.push_str(&format!(
                        "| {} | {} | {} | {} | {} |\n",
                        cell(&r.label.show(&r.key, lang)),
                        c.field,
                        cell(&c.old_text),
                        cell(&c.new_text),
                        c.new_at.location()
                    ));
                }
            }
            for (rows, what) in [
                (&t.rows_added, frame(lang, "(row added)", &[])),
                (&t.rows_removed, frame(lang, "(row removed)", &[])),
            ] {
                for r in rows {
                    out.push_str(&format!(
                        "| {} | *{what}* | | | {} |\n",
                        cell(&r.label.show(&r.key, lang)),
                        r.at.location()
                    ));
                }
            }
        }
        out.push('\n');
    }
    out
}

/// A value as shown in the human diff: quoted when empty or when spaces at its ends would be invisible.
fn shown(s: &str, lang: Lang) -> String {
    if s.is_empty() {
        frame(lang, "(empty)", &[])
    } else if s.trim() != s || s.contains('\n') {
        format!("{s:?}")
    } else {
        s.to_string()
    }
}

/// The project file of one side, and what keeps its files while the diff runs.
fn side(req: &DiffRequest, spec: &Spec) -> Result<(PathBuf, Option<git::Checkout>), String> {
    match spec {
        Spec::WorkTree => Ok((req.config.clone(), None)),
        Spec::Folder(f) => {
            if f.is_file() {
                return Ok((f.clone(), None));
            }
            let name = req
                .config
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("gentable.toml"));
            let c = f.join(name);
            if c.exists() {
                Ok((c, None))
            } else {
                Err(frame(
                    req.lang,
                    "{} holds no project file {}",
                    &[&f.display(), &c.display()],
                ))
            }
        }
        Spec::Rev(r) => {
            if !git::is_revision(&req.config, r) {
                return Err(frame(
                    req.lang,
                    "{} is neither a folder nor a git revision of the repository holding {}",
                    &[&format!("{r:?}"), &req.config.display()],
                ));
            }
            let c = git::checkout(&req.config, r)?;
            Ok((c.config.clone(), Some(c)))
        }
    }
}

/// Inspect one side.
fn open(req: &DiffRequest, spec: &Spec) -> Result<Inspection, String> {
    let (config, _keep) = side(req, spec)?;
    let loaded = crate::config::load(&config).map_err(|e| {
        let e = crate::diag::lang::message(&format!("{e:#}"), req.lang);
        format!("{}: {e}", spec.label(req.lang))
    })?;
    Ok(crate::build::inspect(&loaded))
}

/// Run one `gentable diff`: the diff on standard output, notes (a side with errors) on standard error. Exit
/// code 0 (1 with [`DiffRequest::exit_code`] when something differs), 2 when a side cannot be read.
pub fn run(req: &DiffRequest) -> Outcome {
    let mut out = Outcome::default();
    let mut sides = vec![];
    for spec in [&req.old, &req.new] {
        match open(req, spec) {
            Ok(i) => sides.push(i),
            Err(e) => {
                let e = crate::diag::lang::message(&e, req.lang);
                out.output
                    .push((Stream::Stderr, frame(req.lang, "error: {}", &[&e]) + "\n"));
                out.exit_code = 2;
                return out;
            }
        }
    }
    for (spec, ins) in [&req.old, &req.new].iter().zip(&sides) {
        let errors = ins
            .diagnostics
            .iter()
            .filter(|d| d.severity == crate::diag::Severity::Error)
            .count();
        if errors > 0 {
            out.output.push((
                Stream::Stderr,
                frame(
                    req.lang,
                    "note: {} has {} error{} (gentable check shows them); a cell that does not read is shown as written, with its code",
                    &[&spec.label(req.lang), &errors, &plural(errors)],
                ) + "\n",
            ));
        }
    }
    // The JSON is the same in every language; the labels of the human and Markdown output follow --lang.
    let labels = match req.format {
        DiffFormat::Json => Lang::En,
        _ => req.lang,
    };
    let d = diff(
        &sides[0],
        &sides[1],
        &req.old.label(labels),
        &req.new.label(labels),
    );
    let text = match req.format {
        DiffFormat::Human => human(&d, req.lang),
        DiffFormat::Markdown => markdown(&d, req.lang),
        DiffFormat::Json => serde_json::to_string_pretty(&d).expect("a diff serializes") + "\n",
    };
    out.output.push((Stream::Stdout, text));
    if req.exit_code && !d.tables.is_empty() {
        out.exit_code = 1;
    }
    out
}
