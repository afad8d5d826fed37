//! **report/** owns `gentable report`: a static HTML report of the project (docs/designer.md "Report"). It
//! may import every stage and the tools before it; only the command line imports it.
//!
//! The project is read, typed and validated by the one build driver ([`crate::build::inspect`]: also when it
//! has errors), then written as plain files — no server, no network, no external asset (the style sheet and
//! the search script are inlined in every page):
//! * `index.html`: the tables with their row counts, sources and schema documentation, and every diagnostic
//!   with a link to its cell;
//! * `tables/<Table>.html`: one page per table — its diagnostics, its pictures (`x-gentable-view`, drawn by
//!   [`svg`]), its fields (type, key, default, foreign key as a link to the target table, documentation) and
//!   every row of every source as the designer sees it (row numbers, column letters, comment and header rows),
//!   with a search box; a cell with a diagnostic is marked and anchored (`#c<source>-<row>-<COL>`), and a
//!   foreign key is a link to the row it names.
//!
//! The output is deterministic (no time, stable order) and written atomically: the new report is written
//! beside the old one and swapped in, and a folder that is not a gentable report is never replaced.

pub mod path;
pub mod svg;

use self::path::{Index, Scope};
use self::svg::{esc, Picture};
use crate::build::{Inspection, Outcome, Stream};
use crate::diag::lang::{frame, message, Lang};
use crate::diag::{column_letters, Diagnostic, Severity};
use crate::ir::{Table, Type, Value};
use crate::read::{RawCell, RawTable};
use crate::schema::view::View;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

const CSS: &str = include_str!("assets/report.css");
const JS: &str = include_str!("assets/report.js");
/// The file that marks a folder as a gentable report (so that `--out` never replaces another folder).
pub const MARKER: &str = ".gentable-report";

/// One `gentable report`.
#[derive(Clone, Debug)]
pub struct ReportRequest {
    pub config: PathBuf,
    /// The folder to write (default: `report/` in the generated folder).
    pub out: Option<PathBuf>,
    /// At most this many rows per table page (0 = all); rows with a diagnostic are always shown.
    pub max_rows: usize,
    /// The language of the pages' words, the diagnostics' messages and the summary line.
    pub lang: Lang,
}

/// Run one `gentable report`: exit code 0 (also when the project has errors: they are in the report), 2
/// when the project file cannot be read or the folder cannot be written.
pub fn run(req: &ReportRequest) -> Outcome {
    let mut out = Outcome::default();
    let loaded = match crate::config::load(&req.config) {
        Ok(l) => l,
        Err(e) => {
            let e = message(&format!("{e:#}"), req.lang);
            out.output
                .push((Stream::Stderr, frame(req.lang, "error: {}", &[&e]) + "\n"));
            out.exit_code = 2;
            return out;
        }
    };
    let ins = crate::build::inspect(&loaded);
    let files = render(&ins, req.max_rows, req.lang);
    let dir = req
        .out
        .clone()
        .unwrap_or_else(|| loaded.generated_dir().join("report"));
    match write(&dir, &files) {
        Ok(()) => {
            let (e, w) = counts(&ins.diagnostics);
            out.output.push((
                Stream::Stderr,
                frame(
                    req.lang,
                    "gentable: report of {} table{} -> {} ({} files; {})",
                    &[
                        &ins.project.tables.len(),
                        &crate::diag::lang::plural(ins.project.tables.len()),
                        &crate::diag::shown_path(&dir).join("index.html").display(),
                        &files.len(),
                        &crate::diag::lang::counts(req.lang, e, w),
                    ],
                ) + "\n",
            ));
        }
        Err(e) => {
            out.output.push((
                Stream::Stderr,
                frame(
                    req.lang,
                    "error: cannot write {}: {}",
                    &[&dir.display(), &message(&e.to_string(), req.lang)],
                ) + "\n",
            ));
            out.exit_code = 2;
        }
    }
    out
}

fn counts(d: &[Diagnostic]) -> (usize, usize) {
    let e = d.iter().filter(|d| d.severity == Severity::Error).count();
    (e, d.len() - e)
}

/// Write `files` as the folder `dir`: into a sibling folder first, then swapped in, so that `dir` is always
/// a whole report. A `dir` that exists but is not a report (no [`MARKER`]) is refused.
pub fn write(dir: &Path, files: &BTreeMap<String, String>) -> std::io::Result<()> {
    if dir.exists() && !dir.join(MARKER).exists() {
        return Err(std::io::Error::other(format!(
            "{} exists and is not a gentable report (no {MARKER}); choose another --out",
            dir.display()
        )));
    }
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let staged = tempfile::Builder::new()
        .prefix(&format!(".{name}.gentable-tmp"))
        .tempdir_in(parent)?;
    for (rel, content) in files {
        let p = staged.path().join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(p, content)?;
    }
    std::fs::write(
        staged.path().join(MARKER),
        "generated by gentable report — do not edit\n",
    )?;
    let staged = staged.keep();
    if dir.exists() {
        let old = parent.join(format!(".{name}.gentable-old"));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(dir, &old)?;
        if let Err(e) = std::fs::rename(&staged, dir) {
            let _ = std::fs::rename(&old, dir);
            let _ = std::fs::remove_dir_all(&staged);
            return Err(e);
        }
        std::fs::remove_dir_all(&old)?;
    } else if let Err(e) = std::fs::rename(&staged, dir) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e);
    }
    Ok(())
}

/// Where each source of each table is: `(file, sheet)` → (table, index of the source on its page).
struct Places<'a> {
    of: HashMap<(&'a str, Option<&'a str>), (&'a str, usize)>,
    /// The sources of each table, in file order.
    sources: BTreeMap<&'a str, Vec<&'a RawTable>>,
    /// Page file of each table (relative to `tables/`).
    pages: BTreeMap<String, String>,
    /// The language of the pages.
    lang: Lang,
}

/// A page file name for a table: its name with every character that is not a letter, a digit, `_` or `-`
/// replaced by `_`, and made unique.
fn page_names<'a>(names: impl Iterator<Item = &'a str>) -> BTreeMap<String, String> {
    let mut used = HashSet::new();
    let mut out = BTreeMap::new();
    for n in names {
        let base: String = n
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut file = format!("{base}.html");
        let mut k = 2;
        while !used.insert(file.to_lowercase()) {
            file = format!("{base}-{k}.html");
            k += 1;
        }
        out.insert(n.to_string(), file);
    }
    out
}

impl<'a> Places<'a> {
    fn new(ins: &'a Inspection, lang: Lang) -> Places<'a> {
        let mut sources: BTreeMap<&str, Vec<&RawTable>> = BTreeMap::new();
        for t in &ins.raw {
            sources.entry(t.name.as_str()).or_default().push(t);
        }
        let mut of = HashMap::new();
        for (name, list) in &sources {
            for (i, t) in list.iter().enumerate() {
                of.insert((&*t.file, t.sheet.as_deref()), (*name, i));
            }
        }
        let names: std::collections::BTreeSet<&str> = ins
            .project
            .tables
            .iter()
            .map(|t| t.name.as_str())
            .chain(sources.keys().copied())
            .collect();
        Places {
            of,
            sources,
            pages: page_names(names.into_iter()),
            lang,
        }
    }

    /// The page of a table, relative to `tables/`.
    fn page(&self, table: &str) -> &str {
        self.pages
            .get(table)
            .map(String::as_str)
            .unwrap_or("index.html")
    }

    /// The anchor of a row (and cell) of a file: (table, `r<src>-<row>` or `c<src>-<row>-<COL>`).
    fn anchor(
        &self,
        file: &str,
        sheet: Option<&str>,
        row: usize,
        col: Option<&str>,
    ) -> Option<(&'a str, String)> {
        let (t, i) = *self.of.get(&(file, sheet))?;
        Some((
            t,
            match col {
                Some(c) => format!("c{i}-{row}-{c}"),
                None => format!("r{i}-{row}"),
            },
        ))
    }
}

/// Every file of the report (path relative to the report folder → content), its words in `lang`.
pub fn render(ins: &Inspection, max_rows: usize, lang: Lang) -> BTreeMap<String, String> {
    let places = Places::new(ins, lang);
    let index = Index::new(&ins.project);
    let mut files = BTreeMap::new();
    files.insert("index.html".to_string(), index_page(ins, &places));
    for t in &ins.project.tables {
        files.insert(
            format!("tables/{}", places.page(&t.name)),
            table_page(ins, &places, &index, t, max_rows),
        );
    }
    // Sources whose table has no schema (or whose schema failed): their rows are still shown.
    for (name, _) in places
        .sources
        .iter()
        .filter(|(n, _)| ins.project.table(n).is_none())
    {
        files.insert(
            format!("tables/{}", places.page(name)),
            raw_page(ins, &places, name),
        );
    }
    files
}

fn project_name(ins: &Inspection, lang: Lang) -> String {
    ins.loaded
        .as_ref()
        .map(|l| l.config.project.name.clone())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| frame(lang, "gentable project", &[]))
}

/// The start of a page: `up` is the path to the report's root (`""` or `"../"`).
fn head(ins: &Inspection, places: &Places, title: &str, up: &str) -> String {
    let lang = places.lang;
    let project = project_name(ins, lang);
    format!(
        "<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"gentable report\">\n<title>{} — {}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<header class=\"top\"><a href=\"{up}index.html\">{}</a><nav><a href=\"{up}index.html#tables\">{}</a><a href=\"{up}index.html#diagnostics\">{}</a></nav></header>\n<main>\n",
        match lang {
            Lang::En => "en",
            Lang::Zh => "zh-Hans",
        },
        esc(title),
        esc(&project),
        esc(&project),
        frame(lang, "Tables", &[]),
        frame(lang, "Diagnostics", &[]),
    )
}

/// The cells of a table's header row.
fn th_cells(names: &[String]) -> String {
    names.iter().map(|h| format!("<th>{h}</th>")).collect()
}

/// The search box of a page: its placeholder and the words of its count (report.js fills `{0}`, `{1}`).
fn search_box(lang: Lang, placeholder: String) -> String {
    format!(
        "<div class=\"search\"><input id=\"q\" type=\"search\" placeholder=\"{}\" autocomplete=\"off\"><span id=\"count\" class=\"count\" data-all=\"{}\" data-some=\"{}\"></span></div>\n",
        esc(&placeholder),
        esc(&frame(lang, "{} rows", &[&"{0}"])),
        esc(&frame(lang, "{} of {} rows match", &[&"{0}", &"{1}"])),
    )
}

fn foot() -> String {
    format!("</main>\n<script>\n{JS}</script>\n</body>\n</html>\n")
}

/// The link (from a page in `up`) to where a diagnostic points, if it points into the report.
fn diag_link(ins: &Inspection, places: &Places, d: &Diagnostic, up: &str) -> Option<String> {
    if d.row > 0 {
        let (t, a) = places.anchor(&d.file, d.sheet.as_deref(), d.row, d.column.as_deref())?;
        return Some(format!("{up}tables/{}#{a}", places.page(t)));
    }
    if let Some((t, i)) = places.of.get(&(d.file.as_str(), d.sheet.as_deref())) {
        return Some(format!("{up}tables/{}#s{i}", places.page(t)));
    }
    // A schema file: the page of its table.
    let schema = ins
        .schemas
        .iter()
        .find(|s| d.file.ends_with(&format!("/{}", s.schema_file)) || d.file == s.schema_file)?;
    Some(format!("{up}tables/{}#schema", places.page(&schema.name)))
}

fn diagnostics_table(ins: &Inspection, places: &Places, list: &[&Diagnostic], up: &str) -> String {
    let lang = places.lang;
    if list.is_empty() {
        return format!(
            "<p class=\"muted\">{}</p>\n",
            frame(lang, "No diagnostics.", &[])
        );
    }
    let mut s = format!(
        "<table class=\"list diags\"><tr>{}</tr>\n",
        th_cells(&[
            frame(lang, "severity", &[]),
            frame(lang, "code", &[]),
            frame(lang, "where", &[]),
            frame(lang, "message", &[]),
            frame(lang, "help", &[]),
        ])
    );
    for d in list {
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let words = lang.words();
        let sev_word = match d.severity {
            Severity::Error => words.error,
            Severity::Warning => words.warning,
        };
        let mut at = esc(&d.location());
        if let Some(f) = &d.field {
            at.push_str(&format!(" <span class=\"muted\">({})</span>", esc(f)));
        }
        let at = match diag_link(ins, places, d, up) {
            Some(l) => format!("<a href=\"{}\">{at}</a>", esc(&l)),
            None => at,
        };
        let mut msg = esc(&message(&d.message, lang));
        if let Some(t) = &d.cell_text {
            msg.push_str(&format!(
                " <span class=\"muted\">{}<code>{}</code></span>",
                esc(words.cell_text),
                esc(t)
            ));
        }
        let help = d
            .help
            .as_deref()
            .map(|h| message(h, lang))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "<tr data-search><td class=\"sev-{sev}\">{sev_word}</td><td title=\"{}\">{}</td><td>{at}</td><td>{msg}</td><td>{}</td></tr>",
            esc(crate::diag::lang::title(d.code, lang)),
            d.code,
            esc(&help)
        );
    }
    s.push_str("</table>\n");
    s
}

fn index_page(ins: &Inspection, places: &Places) -> String {
    let lang = places.lang;
    let mut s = head(ins, places, &frame(lang, "report", &[]), "");
    let (e, w) = counts(&ins.diagnostics);
    let rows: usize = ins.project.tables.iter().map(|t| t.rows.len()).sum();
    let _ = writeln!(
        s,
        "<h1>{}</h1>\n<p class=\"summary\">{}<span class=\"{}\">{}</span></p>",
        esc(&project_name(ins, lang)),
        frame(
            lang,
            "{} table{}, {} row{}; ",
            &[
                &ins.project.tables.len(),
                &crate::diag::lang::plural(ins.project.tables.len()),
                &rows,
                &crate::diag::lang::plural(rows)
            ]
        ),
        if e > 0 { "sev-error" } else { "" },
        crate::diag::lang::counts(lang, e, w)
    );
    s.push_str(&search_box(
        lang,
        frame(lang, "Search tables and diagnostics", &[]),
    ));
    let _ = writeln!(
        s,
        "<h2 id=\"tables\">{}</h2>\n<table class=\"list\"><tr>{}</tr>",
        frame(lang, "Tables", &[]),
        th_cells(&[
            frame(lang, "table", &[]),
            frame(lang, "rows", &[]),
            frame(lang, "mode", &[]),
            frame(lang, "key", &[]),
            frame(lang, "sources", &[]),
            frame(lang, "pictures", &[]),
            frame(lang, "diagnostics", &[]),
            frame(lang, "description", &[]),
        ])
    );
    let mut names: Vec<&str> = places.pages.keys().map(String::as_str).collect();
    names.sort();
    for name in names {
        let t = ins.project.table(name);
        let schema = ins.schemas.iter().find(|s| s.name == name);
        let sources: Vec<String> = places
            .sources
            .get(name)
            .into_iter()
            .flatten()
            .map(|r| source_name(r))
            .collect();
        let n_diag = ins
            .diagnostics
            .iter()
            .filter(|d| diag_table(ins, places, d) == Some(name))
            .count();
        let views = schema
            .and_then(|s| s.views.as_ref().ok())
            .map(|v| v.len())
            .unwrap_or(0);
        let _ = writeln!(
            s,
            "<tr data-search><td><a href=\"tables/{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(places.page(name)),
            esc(name),
            t.map(|t| t.rows.len().to_string()).unwrap_or_else(|| "—".into()),
            t.map(|t| t.mode.keyword()).unwrap_or("—"),
            t.map(key_names).unwrap_or_default(),
            esc(&sources.join(", ")),
            if views > 0 { views.to_string() } else { String::new() },
            if n_diag > 0 { n_diag.to_string() } else { String::new() },
            esc(first_line(t.map(description).unwrap_or_default()))
        );
    }
    let _ = writeln!(
        s,
        "</table>\n<h2 id=\"diagnostics\">{}</h2>",
        frame(lang, "Diagnostics", &[])
    );
    let all: Vec<&Diagnostic> = ins.diagnostics.iter().collect();
    s.push_str(&diagnostics_table(ins, places, &all, ""));
    s.push_str(&foot());
    s
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// A table's description as the report shows it: the schema's `description`, after its `title` only when
/// the title says more than the table's name (the index's description column and the table page).
fn description(t: &Table) -> &str {
    let doc = t
        .doc
        .strip_prefix(&format!("{}\n\n", t.name))
        .unwrap_or(&t.doc);
    if doc == t.name {
        ""
    } else {
        doc
    }
}

fn key_names(t: &Table) -> String {
    esc(&t
        .primary_key
        .iter()
        .map(|&i| t.fields[i].name.as_str())
        .collect::<Vec<_>>()
        .join(", "))
}

fn source_name(r: &RawTable) -> String {
    match &r.sheet {
        Some(s) => format!("{} [{s}]", r.file),
        None => r.file.to_string(),
    }
}

/// The table a diagnostic belongs to (its source or its schema), if any.
fn diag_table<'a>(ins: &'a Inspection, places: &Places<'a>, d: &Diagnostic) -> Option<&'a str> {
    if let Some((t, _)) = places.of.get(&(d.file.as_str(), d.sheet.as_deref())) {
        return Some(t);
    }
    ins.schemas
        .iter()
        .find(|s| d.file.ends_with(&format!("/{}", s.schema_file)) || d.file == s.schema_file)
        .map(|s| s.name.as_str())
}

/// The anchor closure of pictures on the page of `page_table`.
fn row_anchor<'a>(
    places: &'a Places<'a>,
    page_table: &'a str,
) -> impl Fn(&Table, usize) -> Option<String> + 'a {
    move |t: &Table, n: usize| {
        let o = &t.rows.get(n)?.origin;
        let (table, a) = places.anchor(&o.file, o.sheet.as_deref(), o.row, None)?;
        Some(if table == page_table {
            format!("#{a}")
        } else {
            format!("{}#{a}", places.page(table))
        })
    }
}

fn figure(title: &str, link: Option<(&str, &str)>, p: Picture) -> String {
    let link = link
        .map(|(href, text)| format!(" <a href=\"{}\">{}</a>", esc(href), esc(text)))
        .unwrap_or_default();
    let caption = if title.is_empty() && link.is_empty() {
        String::new()
    } else {
        format!("<figcaption>{}{link}</figcaption>", esc(title))
    };
    format!(
        "<figure class=\"picture\">{caption}{}<div class=\"legend\">{}</div></figure>\n",
        p.svg, p.legend
    )
}

/// The pictures of the views of `t`.
fn pictures(index: &Index, places: &Places, t: &Table, views: &[View]) -> String {
    let anchor = row_anchor(places, &t.name);
    let mut s = String::new();
    for v in views {
        let title = if v.title.is_empty() {
            t.name.clone()
        } else {
            v.title.clone()
        };
        let _ = writeln!(s, "<h3>{}</h3>\n<div class=\"pictures\">", esc(&title));
        let pic = |scope: Scope, rows: Option<Vec<Scope>>| -> Picture {
            if v.moves.is_some() {
                return svg::moves(index, v, scope, &anchor, places.lang);
            }
            let items = v
                .layers
                .iter()
                .map(|l| match &l.items {
                    Some(p) => index.items(scope, p),
                    None => rows.clone().unwrap_or_else(|| vec![scope]),
                })
                .collect();
            svg::board(index, v, scope, items, &anchor)
        };
        if v.per_row {
            // In the order of the sources (the designer's order), not the key order of a map table.
            let mut order: Vec<usize> = (0..t.rows.len()).collect();
            order.sort_by(|&a, &b| t.rows[a].origin.cmp(&t.rows[b].origin));
            for n in order {
                let scope = index.row_scope(t, n);
                let name = svg::row_name(index, t, n);
                let name = name.strip_prefix(&format!("{} ", t.name)).unwrap_or(&name);
                let href = anchor(t, n).unwrap_or_default();
                let row = frame(places.lang, "row", &[]);
                s.push_str(&figure(name, Some((&href, &row)), pic(scope, None)));
            }
        } else {
            let rows: Vec<Scope> = (0..t.rows.len()).map(|n| index.row_scope(t, n)).collect();
            // A view of the whole table reads `tables.…` paths; its own rows are the items.
            let scope = rows.first().copied().unwrap_or(Scope {
                fields: &t.fields,
                values: &[],
                row: None,
            });
            s.push_str(&figure("", None, pic(scope, Some(rows))));
        }
        s.push_str("</div>\n");
    }
    s
}

fn type_words(ins: &Inspection, ty: &Type, lang: Lang) -> String {
    let base = ty.strip_optional();
    let w = message(&base.words(), lang);
    let detail = match base {
        Type::Enum(n) => ins
            .project
            .enums
            .get(n)
            .map(|e| format!(": {}", e.members.join(" | ")))
            .unwrap_or_default(),
        Type::Record(n) => ins
            .project
            .records
            .get(n)
            .map(|r| {
                format!(
                    " ({})",
                    r.fields
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
            .unwrap_or_default(),
        _ => String::new(),
    };
    format!("{w}{detail}")
}

fn table_page(
    ins: &Inspection,
    places: &Places,
    index: &Index,
    t: &Table,
    max_rows: usize,
) -> String {
    let lang = places.lang;
    let mut s = head(ins, places, &t.name, "../");
    let schema = ins.schemas.iter().find(|x| x.name == t.name);
    let _ = writeln!(s, "<h1>{}</h1>", esc(&t.name));
    let doc = description(t);
    if !doc.is_empty() {
        let _ = writeln!(s, "<p class=\"doc\">{}</p>", esc(doc));
    }
    let sources: Vec<String> = places
        .sources
        .get(t.name.as_str())
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, r)| format!("<a href=\"#s{i}\">{}</a>", esc(&source_name(r))))
        .collect();
    let _ =
        writeln!(
        s,
        "<p class=\"meta\">{}</p>",
        frame(
            lang,
            "{} rows · mode <code>{}</code>{} · sources {} · schema <code id=\"schema\">{}</code>",
            &[
                &t.rows.len(),
                &t.mode.keyword(),
                &if t.primary_key.is_empty() {
                    String::new()
                } else {
                    frame(lang, " · key <code>{}</code>", &[&key_names(t)])
                },
                &if sources.is_empty() { "—".to_string() } else { sources.join(", ") },
                &esc(&t.schema_file),
            ]
        )
    );
    // Diagnostics of this table.
    let mine: Vec<&Diagnostic> = ins
        .diagnostics
        .iter()
        .filter(|d| diag_table(ins, places, d) == Some(t.name.as_str()))
        .collect();
    if !mine.is_empty() {
        let (e, w) = counts(&mine.iter().map(|d| (*d).clone()).collect::<Vec<_>>());
        let _ = writeln!(
            s,
            "<h2 id=\"diagnostics\">{} <span class=\"muted\">({})</span></h2>",
            frame(lang, "Diagnostics", &[]),
            crate::diag::lang::counts(lang, e, w)
        );
        s.push_str(&diagnostics_table(ins, places, &mine, "../"));
    }
    // Pictures.
    if let Some(Ok(views)) = schema.map(|x| &x.views) {
        if !views.is_empty() {
            let _ = writeln!(
                s,
                "<h2 id=\"pictures\">{}</h2>",
                frame(lang, "Pictures", &[])
            );
            s.push_str(&pictures(index, places, t, views));
        }
    }
    // Fields.
    let _ = writeln!(
        s,
        "<h2 id=\"fields\">{}</h2>\n<table class=\"list\"><tr>{}</tr>",
        frame(lang, "Fields", &[]),
        th_cells(&[
            frame(lang, "field", &[]),
            frame(lang, "type", &[]),
            frame(lang, "required", &[]),
            frame(lang, "default", &[]),
            frame(lang, "references", &[]),
            frame(lang, "description", &[]),
        ])
    );
    for (i, f) in t.fields.iter().enumerate() {
        let required = schema
            .and_then(|x| x.required.get(i))
            .copied()
            .unwrap_or(false);
        let fks: Vec<String> = f
            .foreign_keys
            .iter()
            .map(|(tt, ff)| {
                let text = match ff {
                    Some(ff) => format!("{tt}.{ff}"),
                    None => tt.clone(),
                };
                format!("<a href=\"{}\">{}</a>", esc(places.page(tt)), esc(&text))
            })
            .collect();
        let mut marks = String::new();
        if t.primary_key.contains(&i) {
            let _ = write!(
                marks,
                " <span class=\"muted\">{}</span>",
                frame(lang, "key", &[])
            );
        }
        let _ = writeln!(
            s,
            "<tr><td><code>{}</code>{marks}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&f.name),
            esc(&type_words(ins, &f.ty, lang)),
            if required { frame(lang, "yes", &[]) } else { String::new() },
            f.default.as_ref().map(|d| format!("<code>{}</code>", esc(&d.to_string()))).unwrap_or_default(),
            fks.join(", "),
            esc(&f.doc)
        );
    }
    s.push_str("</table>\n");
    // Rows.
    let _ = writeln!(s, "<h2 id=\"rows\">{}</h2>", frame(lang, "Rows", &[]));
    s.push_str(&search_box(lang, frame(lang, "Search rows", &[])));
    s.push_str(&sheets(ins, places, index, &t.name, Some(t), max_rows));
    s.push_str(&foot());
    s
}

/// A page for sources whose table has no usable schema: their rows as read.
fn raw_page(ins: &Inspection, places: &Places, name: &str) -> String {
    let lang = places.lang;
    let mut s = head(ins, places, name, "../");
    let _ = writeln!(
        s,
        "<h1>{}</h1>\n<p class=\"muted\">{}</p>",
        esc(name),
        frame(
            lang,
            "This table has no usable schema, so its rows are shown as read.",
            &[]
        )
    );
    let mine: Vec<&Diagnostic> = ins
        .diagnostics
        .iter()
        .filter(|d| diag_table(ins, places, d) == Some(name))
        .collect();
    s.push_str(&diagnostics_table(ins, places, &mine, "../"));
    let _ = writeln!(s, "<h2 id=\"rows\">{}</h2>", frame(lang, "Rows", &[]));
    s.push_str(&search_box(lang, frame(lang, "Search rows", &[])));
    s.push_str(&sheets(
        ins,
        places,
        &Index::new(&ins.project),
        name,
        None,
        0,
    ));
    s.push_str(&foot());
    s
}

/// A cell of a source: file, sheet, 1-based row, column letters (`None`: the whole row).
type CellAt<'a> = (&'a str, Option<&'a str>, usize, Option<&'a str>);

/// Every source of `table` as a sheet: row numbers, column letters, comment and header rows, marked cells
/// and links.
fn sheets(
    ins: &Inspection,
    places: &Places,
    index: &Index,
    name: &str,
    t: Option<&Table>,
    max_rows: usize,
) -> String {
    let mut s = String::new();
    let Some(sources) = places.sources.get(name) else {
        return format!(
            "<p class=\"muted\">{}</p>\n",
            frame(places.lang, "No source file provides this table.", &[])
        );
    };
    let limits = ins
        .loaded
        .as_ref()
        .map(|l| l.config.limits)
        .unwrap_or_default();
    let layout = crate::typing::Layout::of(
        ins.loaded.as_ref().and_then(|l| l.config.tables.get(name)),
        &limits,
    );
    // Marked cells: (file, sheet, row, column) → (severity, messages).
    let mut marked: HashMap<CellAt, (Severity, Vec<String>)> = HashMap::new();
    let mut marked_rows: HashSet<(&str, Option<&str>, usize)> = HashSet::new();
    for d in &ins.diagnostics {
        if d.row == 0 {
            continue;
        }
        let e = marked
            .entry((
                d.file.as_str(),
                d.sheet.as_deref(),
                d.row,
                d.column.as_deref(),
            ))
            .or_insert((d.severity, vec![]));
        e.0 = e.0.min(d.severity);
        e.1.push(format!("{} {}", d.code, message(&d.message, places.lang)));
        marked_rows.insert((d.file.as_str(), d.sheet.as_deref(), d.row));
    }
    // Typed rows by origin, for the links of their key cells.
    let typed: HashMap<(&str, Option<&str>, usize), usize> = t
        .map(|t| {
            t.rows
                .iter()
                .enumerate()
                .map(|(n, r)| {
                    (
                        (&*r.origin.file, r.origin.sheet.as_deref(), r.origin.row),
                        n,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let mut budget = if max_rows == 0 { usize::MAX } else { max_rows };
    let sep = layout.grammar();
    for (i, src) in sources.iter().enumerate() {
        let width = src.rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
        let header = layout.header(&src.rows);
        let header_cells: Vec<String> = header
            .map(|h| src.rows[h].cells.iter().map(RawCell::text).collect())
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "<h3 id=\"s{i}\">{}</h3>\n<div class=\"sheetwrap\"><table class=\"sheet\">",
            esc(&source_name(src))
        );
        s.push_str("<thead><tr><th></th>");
        for c in 0..width {
            let _ = write!(s, "<th>{}</th>", column_letters(c));
        }
        s.push_str("</tr></thead>\n<tbody>\n");
        let mut hidden = 0;
        for (ri, r) in src.rows.iter().enumerate() {
            if layout.is_blank(r) {
                continue;
            }
            let key = (&*src.file, src.sheet.as_deref(), r.row);
            let typed_row = typed.get(&key).copied();
            let has_diag = marked_rows.contains(&key);
            let class = if Some(ri) == header {
                "header"
            } else if typed_row.is_some() {
                "data"
            } else if layout.is_comment(r) {
                "comment"
            } else {
                "other"
            };
            if class == "data" && !has_diag {
                if budget == 0 {
                    hidden += 1;
                    continue;
                }
                budget -= 1;
            }
            let search = if class == "header" {
                ""
            } else {
                " data-search"
            };
            let _ = write!(
                s,
                "<tr id=\"r{i}-{}\" class=\"{class}\"{search}><th class=\"rn\">{}</th>",
                r.row, r.row
            );
            let row_mark = marked.get(&(key.0, key.1, key.2, None));
            // A comment row whose text is in one cell reads across the row, as in a spreadsheet.
            let filled: Vec<usize> = (0..width)
                .filter(|&c| r.cells.get(c).is_some_and(|x| !x.is_blank()))
                .collect();
            if class == "comment" && filled.len() == 1 {
                let c = filled[0];
                for e in 0..c {
                    let _ = write!(s, "<td id=\"c{i}-{}-{}\"></td>", r.row, column_letters(e));
                }
                let _ = writeln!(
                    s,
                    "<td id=\"c{i}-{}-{}\" colspan=\"{}\" class=\"span\" title=\"{}\"><div>{}</div></td></tr>",
                    r.row,
                    column_letters(c),
                    width - c,
                    esc(&r.cells[c].text()),
                    esc(&r.cells[c].text())
                );
                continue;
            }
            for c in 0..width {
                let cell = r.cells.get(c).map(RawCell::text).unwrap_or_default();
                let letters = column_letters(c);
                let mark = marked.get(&(key.0, key.1, key.2, Some(letters.as_str())));
                let mut classes = vec![];
                let mut tip = String::new();
                if let Some((sev, msgs)) = mark {
                    classes.push(if *sev == Severity::Error {
                        "error"
                    } else {
                        "warning"
                    });
                    tip = msgs.join("\n");
                }
                let head_text = header_cells.get(c).map(String::as_str).unwrap_or("");
                if class == "data"
                    && c >= layout.first_col
                    && (head_text.trim().is_empty()
                        || head_text.trim_start().starts_with(&layout.comment_marker))
                {
                    classes.push("note");
                }
                let content = match (t, typed_row) {
                    (Some(t), Some(_)) if class == "data" => {
                        let field = t.fields.iter().position(|f| f.name == head_text.trim());
                        match field {
                            Some(fi)
                                if !t.fields[fi].foreign_keys.is_empty()
                                    || has_record_keys(index, &t.fields[fi].ty) =>
                            {
                                linked(index, places, t, fi, &cell, sep)
                            }
                            _ => esc(&cell),
                        }
                    }
                    _ => esc(&cell),
                };
                let class_attr = if classes.is_empty() {
                    String::new()
                } else {
                    format!(" class=\"{}\"", classes.join(" "))
                };
                let tip_attr = if tip.is_empty() {
                    String::new()
                } else {
                    format!(" title=\"{}\"", esc(&tip))
                };
                let _ = write!(
                    s,
                    "<td id=\"c{i}-{}-{letters}\"{class_attr}{tip_attr}>{content}</td>",
                    r.row
                );
            }
            if let Some((_, msgs)) = row_mark {
                let _ = write!(
                    s,
                    "<td class=\"note\" title=\"{}\">⚠</td>",
                    esc(&msgs.join("\n"))
                );
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</tbody></table></div>\n");
        if hidden > 0 {
            let _ = writeln!(
                s,
                "<p class=\"muted\">{}</p>",
                frame(
                    places.lang,
                    "{} more rows not shown (gentable report --max-rows 0 shows all).",
                    &[&hidden]
                )
            );
        }
    }
    s
}

/// Whether values of this type hold keys of other tables inside records.
fn has_record_keys(index: &Index, ty: &Type) -> bool {
    match ty.strip_optional() {
        Type::Array(i) => has_record_keys(index, i),
        Type::Record(n) => index.project.records.get(n).is_some_and(|r| {
            r.fields
                .iter()
                .any(|f| !f.foreign_keys.is_empty() || has_record_keys(index, &f.ty))
        }),
        _ => false,
    }
}

/// A cell of field `fi` of `t` with the rows its keys name as links: the cell's text read as the
/// field's type, each key (a direct key, an element of a list, a key field of a record) linked.
fn linked(
    index: &Index,
    places: &Places,
    t: &Table,
    fi: usize,
    text: &str,
    sep: crate::typing::cell::Grammar,
) -> String {
    let f = &t.fields[fi];
    let parsed = if text.trim().is_empty() {
        return String::new();
    } else {
        crate::typing::cell::parse_cell_with(text, &f.ty, index.project, sep)
    };
    let Ok(value) = parsed else {
        return esc(text);
    };
    let anchor = row_anchor(places, &t.name);
    let mut keys: Vec<(String, String)> = vec![];
    collect_keys(index, &f.ty, &f.foreign_keys, &value, &anchor, &mut keys);
    match (f.ty.strip_optional(), &value) {
        // A key, or a list of keys: each element is its link.
        (Type::Array(_), Value::Array(items))
            if !f.foreign_keys.is_empty() && keys.len() == items.len() =>
        {
            keys.iter()
                .map(|(k, href)| format!("<a class=\"fk\" href=\"{}\">{}</a>", esc(href), esc(k)))
                .collect::<Vec<_>>()
                .join(&sep.separator.to_string())
        }
        (_, _)
            if !f.foreign_keys.is_empty()
                && keys.len() == 1
                && !matches!(value, Value::Array(_)) =>
        {
            format!(
                "<a class=\"fk\" href=\"{}\">{}</a>",
                esc(&keys[0].1),
                esc(text)
            )
        }
        // Keys inside records: the text, then the links.
        _ if !keys.is_empty() => format!(
            "{} <span class=\"muted\">→ {}</span>",
            esc(text),
            keys.iter()
                .map(|(k, href)| format!("<a class=\"fk\" href=\"{}\">{}</a>", esc(href), esc(k)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        _ => esc(text),
    }
}

/// The keys inside `v` (of type `ty`, with the foreign keys `fks` of its field) and the links to their rows.
fn collect_keys(
    index: &Index,
    ty: &Type,
    fks: &[(String, Option<String>)],
    v: &Value,
    anchor: &dyn Fn(&Table, usize) -> Option<String>,
    out: &mut Vec<(String, String)>,
) {
    match (ty.strip_optional(), v) {
        (_, Value::Null) => {}
        (Type::Array(inner), Value::Array(items)) => {
            for x in items {
                collect_keys(index, inner, fks, x, anchor, out);
            }
        }
        (Type::Record(n), Value::Record(values)) => {
            if let Some(r) = index.project.records.get(n) {
                for (f, x) in r.fields.iter().zip(values) {
                    collect_keys(index, &f.ty, &f.foreign_keys, x, anchor, out);
                }
            }
        }
        (ty, v) if !fks.is_empty() => {
            if let Some((t, row)) = index.target(fks, v) {
                if let Some(href) = anchor(t, row) {
                    out.push((
                        crate::typing::cell::print::cell_text(index.project, ty, v, '|'),
                        href,
                    ));
                }
            }
        }
        _ => {}
    }
}
